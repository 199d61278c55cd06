#!/usr/bin/env python
"""HTTP prediction service for this exported model bundle.

    python serve.py [--host 127.0.0.1] [--port 8000] [--workers N] [--api-key KEY]

    GET  /health                 200 {"status": "ok"}; with the key also "task", "labels", "run",
                                 "device", "threads", "context_length", ...
    POST /predict                {"inputs": ["text", {"field": "value", ...}, ...]}
                                 -> {"predictions": [{"label", "probabilities"} | {"answer"}, ...]}
                                 (a multi-label model: {"labels": [...], "probabilities"})
    POST /v1/chat/completions    instruction bundles: the OpenAI chat completions interface,
                                 with "stream": true as server-sent events (and the usage as a
                                 last chunk with "stream_options": {"include_usage": true})

A chat's system message (else the system prompt the model was trained with) and earlier
turns go through the model's own chat format (bundle.json "chat", cut from its chat template
at export and checked against it); "stop" ends the answer before the first of its texts; a
streamed answer is the non-streamed one to the character. What the service cannot honour is
refused with a 400 that names it, never dropped: a field it does not take (tools,
frequency_penalty, ...), a conversation ending with an assistant message (a prefilled
answer), a system message after the first, earlier turns where the chat format was not
checked for them. Generation follows bundle.json "generation" (the settings the ollama
Modelfile carries too), and an answer's length shrinks to fit the training length, prompt
and answer together, as in predict.py (bundle_runtime.answer_budget).

An input object names its fields as bundle.json "fields" does, or by the column names of
the project's data ("columns"); a plain text is the main field. With --api-key (or the
MODEL_API_KEY environment variable) every endpoint needs the header ``Authorization: Bearer
KEY``, and /health tells a caller without it only that the service is up; a placeholder
key (change-me, ...) is refused at start. It listens on 127.0.0.1 unless --host says otherwise.

A client's mistake gets a 4xx and a one-line reason in the OpenAI API's shape, {"error":
{"message", "type", "param", "code"}}, never a 500: a body that is not UTF-8 JSON, holds a
lone surrogate escape or is nested deeper than a request is, an unknown field name or an
empty text (400); a body not sent as application/json (415); a body that has not
arrived --read-timeout seconds after its headers (408, and the connection is closed);
too many inputs or bytes (413). Headers that have not arrived --keepalive-timeout seconds
after the connection opened (or after its last answer) close the connection. A chat whose
prompt and max_tokens exceed the model's context (bundle.json "max_length", as trained)
is refused with the code context_length_exceeded, as the OpenAI API refuses it; /predict
and predict.py cut a long prompt from its middle instead, as training did.

Concurrency: one asyncio event loop answers every connection (HTTP/1.1 keep-alive); the
model runs beside it in a thread of its own with its own Paddle Inference predictor (a
predictor must not run in two threads at once). Classification requests that arrive while
the model is busy wait in one queue and are taken together as the next batch (up to
--max-batch inputs, cut into predictor runs of --batch-size), so under load a request
with one input costs the model what a batch of them costs it. Generation requests take the
model one at a time. --workers N starts N such processes listening on the same port
(SO_REUSEPORT: the kernel spreads the connections over them), each with its own predictor;
where the system has no SO_REUSEPORT load balancing (not Linux), the N predictors run as
threads of one process instead.

Server library: aiohttp: one maintained package that handles keep-alive, body limits,
chunked bodies and streaming, with no framework on top (FastAPI would add validation done
here in a few lines). It has no read timeout of its own, hence --read-timeout.

Measured by bench/serve_bench.py on the texts the model is for (the test split of the
finance_sentiment sample, 41 characters on average), 16 keep-alive clients, 10 s of
sustained load each, on a machine of 2 CPU cores shared with other people's work (load
average 8 to 17 during the run) and with the clients: the built-in classifier answered
270 requests/s at 1 input per request (p50 41 ms, p99 519 ms), 73 requests/s (583
samples/s) at 8 and 18.5 (592 samples/s) at 32, where predict.py's batch path did 988
samples/s; a tiny Llama decoder as a classifier 16.6 requests/s at 1 input, 26 samples/s
at 8 and 13 at 32 (p50 31 s: 512 inputs queued), against 29 samples/s; no errors. So 0.27x
to 0.6x predict.py for the built-in classifier and 0.44x to 0.91x for the decoder (the
bench's target is 0.8x at 1 input per request). The service's own CPU time was 0.68 ms a
request at 1 input and 2.4 ms at 8 for the classifier, 13 ms a sample for the decoder;
two earlier runs that day (the same loads, counted to the last answer) measured up to 2.4x
more requests/s at a load average of 11 to 13: on shared cores the figures say more about
the load than about the code.

Put a reverse proxy (TLS, rate limits) in front of it when it leaves the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bundle_runtime import (InputError, Predictor, answer_budget, load_bundle, record_from_input,  # noqa: E402
                            silence_native_stdout)
from serve_batcher import Batcher, Job  # noqa: E402
from serve_requests import (API_KEY_ENV, CHAT_FIELDS, JSON_TYPE, MAX_JSON_DEPTH, PREDICT_FIELDS,  # noqa: E402
                            HTTPError, api_key, chat_turns, check_json, include_usage, not_json, stop_texts,
                            usage_of)
# several processes on one port, connections shared out by the kernel: Linux's SO_REUSEPORT
# (the BSDs' and macOS's hand every connection to one socket)
SHARED_PORT = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


class Service:
    def __init__(self, args, predictors):
        self.args = args
        self.bundle = load_bundle()
        self.api_key = api_key(args)
        shared_out = max(1, ((os.cpu_count() or 1) - 1) // args.workers)  # a core for the HTTP side
        predictor = Predictor(device=args.device, variant=args.variant, tensorrt=not args.no_tensorrt,
                              threads=args.threads, default_threads=shared_out)
        self.device, self.threads = predictor.device, predictor.threads
        self.task = predictor.task
        self.labels = predictor.labels
        self.multi_label = predictor.multi_label
        b = self.bundle
        self.context_length = int(b["max_length"])  # prompt and answer together, as in training
        # a larger answer than the context leaves is shrunk by /predict as by predict.py
        # (bundle_runtime.answer_budget); a chat asking for it explicitly is refused below
        self.max_tokens = args.max_tokens
        self.default_tokens = min(int(b.get("max_new_tokens") or 128), self.max_tokens)
        self.model_name = f"{b.get('template', 'model')}-{b.get('run', '')}".strip("-")
        self.tokenizer_side = predictor  # prompt lengths (the tokenizer may be called from any thread)
        self.batcher = Batcher([predictor] + [predictor.clone() for _ in range(predictors - 1)], args.max_batch,
                               args.batch_size, args.batch_wait_ms / 1000.0)

    def health(self, request):
        """Only that it is up to a caller without the key; what it serves to one with it."""
        if not self.authorised(request):
            return {"status": "ok"}
        b = self.bundle
        return {"status": "ok", "task": self.task, "labels": self.labels, "multi_label": self.multi_label,
                "fields": b["fields"],
                "columns": b.get("columns") or {}, "version": b.get("format_version"), "model": self.model_name,
                "run": b.get("run"), "created": b.get("created"), "device": self.device,
                "threads": self.threads, "workers": self.args.workers, "max_batch": self.args.max_batch, "max_tokens": self.max_tokens,
                "context_length": self.context_length}

    def authorised(self, request):
        if self.api_key is None:
            return True
        given = request.headers.get("Authorization", "")
        token = given[7:].strip() if given[:7].lower() == "bearer " else ""
        return hmac.compare_digest(token.encode("utf-8"), self.api_key.encode("utf-8"))

    def authorise(self, request):
        if not self.authorised(request):
            raise HTTPError(401, "missing or wrong API key: send the header 'Authorization: Bearer KEY'",
                            "authentication_error")

    async def body(self, request):
        if request.content_type != JSON_TYPE and not (request.content_type.startswith("application/")
                                                       and request.content_type.endswith("+json")):
            sent = request.headers.get("Content-Type")
            raise HTTPError(415, (f"the body is sent as {sent!r}" if sent else "the request has no Content-Type")
                            + f"; send JSON with the header 'Content-Type: {JSON_TYPE}'", code="unsupported_media_type")
        if (request.charset or "utf-8").lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise HTTPError(415, f"the body is sent as {request.charset} text; send it as UTF-8 "
                                 f"('Content-Type: {JSON_TYPE}')", code="unsupported_media_type")
        limit = self.args.max_body_bytes
        too_large = HTTPError(413, f"the request body has {request.content_length} bytes; at most {limit} are "
                                   "allowed", "request_too_large")
        if request.content_length is not None and request.content_length > limit:
            raise too_large  # refused before it is read
        from aiohttp import web

        try:
            # aiohttp has no read timeout of its own (a body sent a byte a minute holds its
            # connection for good): the whole body within --read-timeout, or 408 and the
            # connection is closed
            raw = await asyncio.wait_for(request.read(), self.args.read_timeout)
        except web.HTTPRequestEntityTooLarge:  # a chunked body that grew past the limit
            raise HTTPError(413, f"the request body has more than {limit} bytes; at most {limit} are allowed",
                            "request_too_large") from None
        except asyncio.TimeoutError:
            raise HTTPError(408, f"the request body did not arrive within {self.args.read_timeout:g} seconds",
                            code="request_timeout", close=True) from None
        except web.RequestPayloadError as exc:  # e.g. a Content-Encoding: gzip body that is not gzip
            reason = ([line.strip() for line in str(exc).splitlines() if line.strip()] or ["unreadable"])[-1]
            raise HTTPError(400, f"the request body could not be read ({reason})", close=True) from None
        try:
            body = json.loads(raw.decode("utf-8"), parse_constant=not_json)
        except UnicodeDecodeError:
            raise HTTPError(400, "the body is not UTF-8 text") from None
        except json.JSONDecodeError as exc:
            raise HTTPError(400, f"the body is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                                 f"{exc.msg})") from None
        except RecursionError:
            raise HTTPError(400, f"the body is nested more than {MAX_JSON_DEPTH} levels deep") from None
        except ValueError as exc:  # a number of more than 4,300 digits
            raise HTTPError(400, f"the body is not valid JSON ({exc})") from None
        check_json(body)
        if not isinstance(body, dict):
            raise HTTPError(400, "the body must be a JSON object")
        return body

    # ----- request bodies ---------------------------------------------------------------------------
    def _records(self, body):
        if "inputs" not in body:
            raise HTTPError(400, "missing field 'inputs': a list of texts or objects of fields")
        unknown = [k for k in body if k not in PREDICT_FIELDS]
        if unknown:
            raise HTTPError(400, f"unknown field '{unknown[0]}'; /predict takes {', '.join(sorted(PREDICT_FIELDS))}",
                            param=unknown[0])
        inputs = body["inputs"]
        if not isinstance(inputs, list) or not inputs:
            raise HTTPError(400, "'inputs' must be a non-empty list of texts or objects of fields")
        if len(inputs) > self.args.max_batch:
            raise HTTPError(413, f"{len(inputs)} inputs in one request; at most {self.args.max_batch} are allowed",
                            "batch_too_large")
        try:
            return [record_from_input(self.bundle, v, f"inputs[{i}]") for i, v in enumerate(inputs)]
        except InputError as exc:
            raise HTTPError(400, str(exc)) from None

    def _tokens(self, body, *keys):
        return self._asked_tokens(body, *keys) or self.default_tokens

    def _asked_tokens(self, body, *keys):
        """The answer's length the request asks for, None where it does not say."""
        for key in keys:
            if body.get(key) is not None:
                n = body[key]
                if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                    raise HTTPError(400, f"'{key}' must be a positive whole number")
                if n > self.max_tokens:
                    raise HTTPError(400, f"'{key}' is {n}; this service allows at most {self.max_tokens}")
                return n
        return None

    def _sampling(self, body, max_new_tokens):
        """Greedy unless a positive temperature is given (then top-p sampling)."""
        options = {"max_new_tokens": max_new_tokens, "mode": "greedy"}
        temperature = body.get("temperature")
        if temperature is not None:
            if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not 0 <= temperature <= 2:
                raise HTTPError(400, "'temperature' must be a number from 0 to 2")
            if temperature > 0:
                options.update(mode="sample", temperature=float(temperature))
        top_p = body.get("top_p")
        if top_p is not None:
            if not isinstance(top_p, (int, float)) or isinstance(top_p, bool) or not 0 < top_p <= 1:
                raise HTTPError(400, "'top_p' must be a number above 0 and at most 1")
            options["top_p"] = float(top_p)
        if body.get("seed") is not None:
            if not isinstance(body["seed"], int) or isinstance(body["seed"], bool) or body["seed"] < 0:
                raise HTTPError(400, "'seed' must be a whole number, 0 or more")
            options["seed"] = body["seed"]
        # the repetition guards: the bundle's own unless the request sets them
        penalty = body.get("repetition_penalty")
        if penalty is not None:
            if not isinstance(penalty, (int, float)) or isinstance(penalty, bool) or not 0 < penalty <= 10:
                raise HTTPError(400, "'repetition_penalty' must be a number above 0 and at most 10 (1 means none)")
            options["repetition_penalty"] = float(penalty)
        ngram = body.get("no_repeat_ngram")
        if ngram is not None:
            if not isinstance(ngram, int) or isinstance(ngram, bool) or ngram < 0:
                raise HTTPError(400, "'no_repeat_ngram' must be a whole number, 0 (allow repeats) or more")
            options["no_repeat_ngram"] = ngram
        return options

    @staticmethod
    async def _wait(jobs):
        results = []
        for job in jobs:
            try:
                results.append(await job.future)
            except Exception as exc:
                raise HTTPError(500, f"the model failed on this request ({type(exc).__name__})",
                                "server_error") from None
        return results

    # ----- endpoints ------------------------------------------------------------------------------------
    async def predict(self, body):
        records = self._records(body)
        if self.task == "classification":
            results = (await self._wait([self.batcher.submit(Job(records))]))[0]
            key = "labels" if self.multi_label else "label"  # a multi-label model answers with a list
            return {"predictions": [{key: label, "probabilities": probs} for label, probs in results]}
        options = self._sampling(body, self._tokens(body, "max_tokens", "max_new_tokens"))
        results = await self._wait([self.batcher.submit(Job([r], options)) for r in records])
        return {"predictions": [{"answer": r["answer"]} for r in results]}

    def chat_job(self, body):
        if self.task != "instruction":
            raise HTTPError(404, "this bundle is a classifier: use POST /predict", "not_found")
        unknown = [k for k in body if k not in CHAT_FIELDS]
        if unknown:
            raise HTTPError(400, f"unknown or unsupported field '{unknown[0]}'; this service takes "
                                 f"{', '.join(sorted(CHAT_FIELDS))}", param=unknown[0])
        system, turns = chat_turns(body.get("messages"), self.bundle.get("chat"))
        if body.get("n", 1) != 1:
            raise HTTPError(400, "'n' must be 1: this service returns one answer per request", param="n")
        if not isinstance(body.get("stream", False), bool):
            raise HTTPError(400, "'stream' must be true or false", param="stream")
        stream, with_usage = bool(body.get("stream")), include_usage(body)
        asked = self._asked_tokens(body, "max_completion_tokens", "max_tokens")
        stops = stop_texts(body.get("stop"))
        if self.bundle.get("chat"):  # the client's system message and earlier turns, in the trained format
            ids = self.tokenizer_side.chat_prompt_ids(system, turns)
        else:  # a bundle exported before conversations were carried: one user message, the bundle's system
            ids = self.tokenizer_side.prompt_ids(turns[-1][0], 1 << 30)
        n_new = self._fit_context(len(ids), asked)
        options = dict(self._sampling(body, n_new), prompt_ids=ids, stop=stops)
        job = self.batcher.submit(Job([turns[-1][0]], options, stream=stream))
        job.include_usage = with_usage
        return job

    def _fit_context(self, prompt, asked):
        """The answer's length in tokens for a prompt of ``prompt`` tokens: a prompt and answer
        longer than the model's context are refused as the OpenAI API refuses them
        (predict.py and /predict cut a long prompt from its middle, as training did)."""
        limit = self.context_length
        if asked is not None and prompt + asked > limit:
            raise HTTPError(400, f"This model's maximum context length is {limit} tokens. However, you requested "
                                 f"{prompt + asked} tokens ({prompt} in the messages, {asked} in the completion). "
                                 "Please reduce the length of the messages or completion.",
                            code="context_length_exceeded", param="messages")
        if asked is not None:
            return asked
        # no length asked for: the answer budget /predict and predict.py give (the answer shrinks
        # towards a floor before the prompt would be cut; a prompt that leaves less is refused)
        keep, n_new = answer_budget(prompt, limit, self.default_tokens)
        if keep < prompt:
            raise HTTPError(400, f"This model's maximum context length is {limit} tokens. However, your messages "
                                 f"resulted in {prompt} tokens, which leaves fewer than {n_new} for the answer. "
                                 "Please reduce the length of the messages.",
                            code="context_length_exceeded", param="messages")
        return n_new

    async def completion(self, job):
        result = (await self._wait([job]))[0]
        return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
                "model": self.model_name,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": result["answer"]},
                             "finish_reason": result["finish_reason"]}],
                "usage": usage_of(result)}


# ----- the HTTP side -----------------------------------------------------------------------------------


def _json(status, obj, headers=None):
    from aiohttp import web

    return web.Response(status=status, body=json.dumps(obj, ensure_ascii=False).encode("utf-8"),
                        content_type="application/json", charset="utf-8", headers=headers)


def _error(err):
    headers = {"WWW-Authenticate": "Bearer"} if err.status == 401 else None
    return _json(err.status, {"error": {"message": err.message, "type": err.kind, "param": err.param,
                                        "code": err.code}}, headers)


def make_app(service):
    from aiohttp import web

    @web.middleware
    async def guard(request, handler):
        """The API key, then the handler; every error as a JSON object with a one-line reason."""
        try:
            if request.match_info.http_exception is None and request.path != "/health":
                service.authorise(request)
            return await handler(request)
        except HTTPError as err:
            if not err.close:
                return _error(err)
            # the rest of the body may never come: answer, then close at once (aiohttp would
            # otherwise keep reading the body for up to 10 s)
            resp = _error(err)
            await resp.prepare(request)
            await resp.write_eof()
            request.protocol.force_close()
            return resp
        except web.HTTPException as exc:  # the router's own 404 / 405
            if exc.status < 400:
                raise
            kind = "not_found" if exc.status == 404 else "invalid_request_error"
            return _error(HTTPError(exc.status, f"no endpoint {request.method} {request.path}"
                                    if exc.status in (404, 405) else exc.reason, kind))
        except (ConnectionResetError, asyncio.CancelledError):
            raise
        except Exception as exc:  # one line in the log, a short reason to the client, never a traceback
            sys.stderr.write(f"error: {request.method} {request.path}: {type(exc).__name__}: {exc}\n")
            return _error(HTTPError(500, f"internal error ({type(exc).__name__})", "server_error"))

    async def health(request):
        return _json(200, service.health(request))

    async def models(request):
        return _json(200, {"object": "list", "data": [{"id": service.model_name, "object": "model",
                                                       "owned_by": "local"}]})

    async def predict(request):
        return _json(200, await service.predict(await service.body(request)))

    async def chat(request):
        job = service.chat_job(await service.body(request))
        if job.pieces is None:
            return _json(200, await service.completion(job))
        return await _stream(request, job)

    async def _stream(request, job):
        """Server-sent events as OpenAI streams them: a role chunk, content chunks, a
        finish chunk, then ``data: [DONE]``."""
        cid, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())

        def chunk(delta, finish=None, usage=None):
            obj = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": service.model_name,
                   "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}]}
            if job.include_usage:  # stream_options.include_usage: null on every chunk but the last
                obj["usage"] = usage
            return b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n"

        resp = web.StreamResponse(headers={"Cache-Control": "no-cache"})
        resp.content_type, resp.charset = "text/event-stream", "utf-8"
        await resp.prepare(request)
        try:
            await resp.write(chunk({"role": "assistant", "content": ""}))
            while (piece := await job.pieces.get()) is not None:
                await resp.write(chunk({"content": piece}))
            try:
                result = await job.future
            except Exception as exc:
                err = {"error": {"message": f"the model failed ({type(exc).__name__})", "type": "server_error"}}
                await resp.write(b"data: " + json.dumps(err).encode("utf-8") + b"\n\n")
            else:
                await resp.write(chunk({}, result["finish_reason"]))
                if job.include_usage:
                    await resp.write(chunk(None, usage=usage_of(result)))
            await resp.write(b"data: [DONE]\n\n")
            await resp.write_eof()
        except (ConnectionResetError, asyncio.CancelledError):
            job.cancelled = True  # the client went away: stop generating
            raise
        return resp

    app = web.Application(middlewares=[guard], client_max_size=service.args.max_body_bytes)
    app.router.add_get("/health", health)
    app.router.add_get("/v1/models", models)
    app.router.add_post("/predict", predict)
    app.router.add_post("/v1/chat/completions", chat)
    return app


class _OneLine(logging.Formatter):
    """Log records on one line each: an exception as its type and message, no traceback."""

    def format(self, record):
        exc = record.exc_info[1] if record.exc_info else None
        record.exc_info = record.exc_text = None
        line = super().format(record)
        return f"{line}: {type(exc).__name__}: {exc}" if exc is not None else line


def _configure_logging(quiet):
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_OneLine("%(message)s"))
    root = logging.getLogger("aiohttp")
    root.handlers[:] = [handler]
    root.propagate = False
    root.setLevel(logging.WARNING)
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING if quiet else logging.INFO)


def _listen(host, port, shared):
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if shared:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
        sock.listen(1024)
    except OSError:
        sock.close()
        raise
    return sock


async def _serve(service, sock, ready=None):
    from aiohttp import web

    service.batcher.start()
    runner = web.AppRunner(make_app(service), access_log=None if service.args.quiet else logging.getLogger(
        "aiohttp.access"), access_log_format='%a "%r" %s %b %Tfs', handler_cancellation=False,
        # aiohttp closes a connection whose next request has not come in this long (3,630 s
        # by default): a client that sends its headers a byte at a time is cut off here
        keepalive_timeout=service.args.keepalive_timeout)
    await runner.setup()
    await web.SockSite(runner, sock, shutdown_timeout=5.0).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):  # docker stop: finish like Ctrl+C
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # Windows: Ctrl+C raises KeyboardInterrupt instead
            pass
    if ready is not None:
        ready()
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def _start_workers(argv, port, n):
    """n - 1 more processes of this service on the same port, each told when to stop by
    the end of its standard input (so they end with this one, however it ends)."""
    procs, pipes = [], []
    for _ in range(n):
        r, w = os.pipe()
        cmd = [sys.executable] + (["-S"] if sys.flags.no_site else []) + [os.path.abspath(__file__), *argv,
                                                                           "--port", str(port), "--ready-fd", str(w)]
        procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, pass_fds=(w,)))
        os.close(w)
        pipes.append(r)
    for proc, r in zip(procs, pipes):
        with os.fdopen(r, "rb") as fh:
            if fh.read(1) != b"1":  # closed without a word: the process failed (its reason is on stderr)
                _stop_workers(procs)
                raise RuntimeError(f"a worker process of the service failed to start (exit status {proc.wait()})")
    return procs


def _stop_workers(procs):
    for proc in procs:
        try:
            proc.stdin.close()
            proc.terminate()
        except OSError:
            pass
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def build_parser():
    p = argparse.ArgumentParser(description="HTTP prediction service for this model bundle.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--port", type=int, default=8000, help="port (0: any free port, printed at start)")
    p.add_argument("--workers", type=int, default=1,
                   help="model processes sharing the port (threads of one process where the system cannot share "
                        "a port), each with its own predictor")
    p.add_argument("--api-key", help=f"require 'Authorization: Bearer KEY' (or set {API_KEY_ENV})")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "gpu"])
    p.add_argument("--variant", default="static", help="static (default) or int8 where the bundle has it")
    p.add_argument("--no-tensorrt", action="store_true")
    p.add_argument("--threads", type=int,
                   help="CPU threads per predictor (default: the cores but one, shared out; at least 1)")
    p.add_argument("--batch-size", type=int, default=8, help="inputs per predictor run (predict.py's default)")
    p.add_argument("--max-batch", type=int, default=64, help="most inputs in one request, and in one joined batch")
    p.add_argument("--batch-wait-ms", type=float, default=0.0,
                   help="how long the model waits for more requests before a batch (default 0: requests that "
                        "arrive while it works join the next batch anyway)")
    p.add_argument("--max-body-bytes", type=int, default=1 << 20, help="largest request body (413 above it)")
    p.add_argument("--max-tokens", type=int, default=512, help="largest max_tokens a request may ask for")
    p.add_argument("--read-timeout", type=float, default=30.0,
                   help="seconds a client has to send a request's body once its headers came (408 after, and the "
                        "connection is closed; default 30)")
    p.add_argument("--keepalive-timeout", type=float, default=75.0,
                   help="seconds an idle connection stays open, and the most a client has to send a request's "
                        "headers from connecting or from its last answer (default 75: longer than a reverse "
                        "proxy's usual 60, so the proxy closes first)")
    p.add_argument("--quiet", action="store_true", help="no line per request on stderr")
    p.add_argument("--ready-fd", type=int, help=argparse.SUPPRESS)  # a worker process started by --workers
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    for name in ("workers", "batch_size", "max_batch", "max_body_bytes", "max_tokens"):
        if getattr(args, name) < 1:
            print(f"error: --{name.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    for name in ("read_timeout", "keepalive_timeout"):
        if not getattr(args, name) > 0:
            print(f"error: --{name.replace('_', '-')} must be above 0 seconds", file=sys.stderr)
            return 2
    try:
        api_key(args)  # before the model loads: a placeholder key is refused at once
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        print("error: serve.py needs aiohttp: pip install -r requirements.txt", file=sys.stderr)
        return 2
    _configure_logging(args.quiet)
    silence_native_stdout()  # Paddle's C++ notes go nowhere; our own lines go to stderr
    processes = args.workers if SHARED_PORT else 1
    worker = args.ready_fd is not None
    if worker:  # the first process's stdin closes when it ends: end too
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), os.kill(os.getpid(), signal.SIGTERM)),
                         daemon=True).start()
    try:
        service = Service(args, predictors=1 if SHARED_PORT else args.workers)
        sock = _listen(args.host, args.port, shared=processes > 1)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port} ({exc.strerror or exc})", file=sys.stderr)
        return 2
    host, port = sock.getsockname()[:2]
    procs = []

    def ready():
        if worker:
            os.write(args.ready_fd, b"1")
            os.close(args.ready_fd)
            return
        print(f"serving {service.task} model {service.model_name} on http://{host}:{port} "
              f"({args.workers} worker(s), {service.device}{', API key required' if service.api_key else ''})",
              file=sys.stderr, flush=True)

    try:
        if not worker and processes > 1:
            procs = _start_workers(argv, port, processes - 1)
        asyncio.run(_serve(service, sock, ready))
    except KeyboardInterrupt:
        pass
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        _stop_workers(procs)
        sock.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
