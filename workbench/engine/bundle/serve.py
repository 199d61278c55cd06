#!/usr/bin/env python
"""HTTP prediction service for this exported model bundle.

    python serve.py [--host 127.0.0.1] [--port 8000] [--workers N] [--api-key KEY]

    GET  /health                 200 {"status": "ok", "task", "labels", "version", ...}
    POST /predict                {"inputs": ["text", {"field": "value", ...}, ...]}
                                 -> {"predictions": [{"label", "probabilities"} | {"answer"}, ...]}
                                 (a multi-label model: {"labels": [...], "probabilities"})
    POST /v1/chat/completions    instruction bundles: the OpenAI chat completions interface,
                                 with "stream": true as server-sent events

An input object names its fields as bundle.json "fields" does, or by the column names of
the project's data ("columns"); a plain text is the main field. With --api-key (or the
MODEL_API_KEY environment variable) every endpoint but /health needs the header
``Authorization: Bearer KEY``. It listens on 127.0.0.1 unless --host says otherwise.

Concurrency: the HTTP server answers each connection in its own thread; the model runs in
--workers threads, each with its own Paddle Inference predictor (a predictor must not run
in two threads at once; clones share the weights). Classification requests that arrive
while a worker is busy are joined into one batch for the predictor; generation requests
take one worker each.

Server library: the standard library's ThreadingHTTPServer, so that the bundle still needs
only paddlepaddle, tokenizers and numpy and installs on an air-gapped machine from the same
three wheels. The model, not the HTTP layer, is the bottleneck here (serve_bench compares
the service with predict.py's own batch throughput); FastAPI + uvicorn would add a dozen
packages for validation and an event loop this service does not need. Put a reverse proxy
(TLS, rate limits) in front of it when it leaves the machine.
"""

from __future__ import annotations

import argparse
import hmac
import json
import os
import queue
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bundle_runtime import (InputError, Predictor, load_bundle, record_from_input,  # noqa: E402
                            silence_native_stdout)

API_KEY_ENV = "MODEL_API_KEY"


class HTTPError(Exception):
    def __init__(self, status, message, kind="invalid_request_error"):
        super().__init__(message)
        self.status, self.message, self.kind = status, message, kind


class _Cancelled(Exception):
    pass


class Job:
    """One unit of work for a model worker: records to classify, or one record to answer."""

    def __init__(self, records, options=None, stream=False):
        self.records, self.options = records, options or {}
        self.done = threading.Event()
        self.result = self.error = None
        self.cancelled = False
        self.pieces = queue.Queue() if stream else None

    def finish(self, result=None, error=None):
        self.result, self.error = result, error
        if self.pieces is not None:
            self.pieces.put(None)
        self.done.set()


class ModelWorkers:
    """``workers`` threads, each owning a predictor, taking jobs from one queue."""

    def __init__(self, predictor, workers, max_batch, batch_size, batch_wait_s):
        self.task = predictor.task
        self.max_batch, self.batch_size, self.batch_wait_s = max_batch, batch_size, batch_wait_s
        self.jobs = queue.Queue()
        self.predictors = [predictor] + [predictor.clone() for _ in range(workers - 1)]
        self.threads = [threading.Thread(target=self._loop, args=(p,), name=f"model-{i}", daemon=True)
                        for i, p in enumerate(self.predictors)]
        for t in self.threads:
            t.start()

    def submit(self, job):
        self.jobs.put(job)
        return job

    def _loop(self, predictor):
        while True:
            job = self.jobs.get()
            if self.task == "classification":
                self._classify(predictor, self._gather(job))
            else:
                self._generate(predictor, job)

    def _gather(self, first):
        """The first job plus whatever else is waiting, up to max_batch records."""
        batch, n = [first], len(first.records)
        deadline = time.monotonic() + self.batch_wait_s
        while n < self.max_batch:
            try:
                left = deadline - time.monotonic()
                job = self.jobs.get(timeout=left) if left > 0 else self.jobs.get_nowait()
            except queue.Empty:
                break
            batch.append(job)
            n += len(job.records)
        return batch

    def _classify(self, predictor, jobs):
        records = [r for job in jobs for r in job.records]
        # similar lengths side by side, so each predictor batch pads little (right padding does
        # not change a row's result beyond rounding: the graph is causal)
        order = sorted(range(len(records)), key=lambda i: sum(len(v) for v in records[i].values()))
        try:
            ranked = predictor.classify([records[i] for i in order], batch_size=self.batch_size)
        except Exception as exc:  # reported to each waiting request as a 500 without a traceback
            for job in jobs:
                job.finish(error=exc)
            return
        results = [None] * len(records)
        for i, result in zip(order, ranked):
            results[i] = result
        start = 0
        for job in jobs:
            job.finish(result=results[start:start + len(job.records)])
            start += len(job.records)

    def _generate(self, predictor, job):
        def stream(piece):
            if job.cancelled:
                raise _Cancelled()
            job.pieces.put(piece)

        try:
            result = predictor.generate_full(job.records[0], stream=stream if job.pieces is not None else None,
                                             **job.options)
        except _Cancelled:
            result = None
        except Exception as exc:
            job.finish(error=exc)
            return
        job.finish(result=result)


class Service:
    def __init__(self, args):
        self.args = args
        self.bundle = load_bundle()
        self.api_key = args.api_key or os.environ.get(API_KEY_ENV) or None
        threads = args.threads or max(1, (os.cpu_count() or 1) // args.workers)
        predictor = Predictor(device=args.device, variant=args.variant, tensorrt=not args.no_tensorrt,
                              threads=threads)
        self.device = predictor.device
        self.task = predictor.task
        self.labels = predictor.labels
        self.multi_label = predictor.multi_label
        b = self.bundle
        self.max_tokens = min(args.max_tokens, max(1, int(b["max_length"]) - 8))
        self.default_tokens = min(int(b.get("max_new_tokens") or 128), self.max_tokens)
        self.model_name = f"{b.get('template', 'model')}-{b.get('run', '')}".strip("-")
        self.workers = ModelWorkers(predictor, args.workers, args.max_batch, args.batch_size,
                                    args.batch_wait_ms / 1000.0)

    def health(self):
        b = self.bundle
        return {"status": "ok", "task": self.task, "labels": self.labels, "multi_label": self.multi_label,
                "fields": b["fields"],
                "columns": b.get("columns") or {}, "version": b.get("format_version"), "model": self.model_name,
                "run": b.get("run"), "created": b.get("created"), "device": self.device,
                "workers": self.args.workers, "max_batch": self.args.max_batch, "max_tokens": self.max_tokens}

    # ----- request bodies ---------------------------------------------------------------------------
    def _records(self, body):
        if "inputs" not in body:
            raise HTTPError(400, "missing field 'inputs': a list of texts or objects of fields")
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
        for key in keys:
            if body.get(key) is not None:
                n = body[key]
                if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                    raise HTTPError(400, f"'{key}' must be a positive whole number")
                if n > self.max_tokens:
                    raise HTTPError(400, f"'{key}' is {n}; this service allows at most {self.max_tokens}")
                return n
        return self.default_tokens

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
            if not isinstance(body["seed"], int):
                raise HTTPError(400, "'seed' must be a whole number")
            options["seed"] = body["seed"]
        return options

    @staticmethod
    def _wait(jobs):
        for job in jobs:
            job.done.wait()
            if job.error is not None:
                raise HTTPError(500, f"the model failed on this request ({type(job.error).__name__})", "server_error")
        return [job.result for job in jobs]

    # ----- endpoints ------------------------------------------------------------------------------------
    def predict(self, body):
        records = self._records(body)
        if self.task == "classification":
            results = self._wait([self.workers.submit(Job(records))])[0]
            key = "labels" if self.multi_label else "label"  # a multi-label model answers with a list
            return {"predictions": [{key: label, "probabilities": probs} for label, probs in results]}
        options = self._sampling(body, self._tokens(body, "max_tokens", "max_new_tokens"))
        results = self._wait([self.workers.submit(Job([r], options)) for r in records])
        return {"predictions": [{"answer": r["answer"]} for r in results]}

    def chat_job(self, body):
        if self.task != "instruction":
            raise HTTPError(404, "this bundle is a classifier: use POST /predict", "not_found")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise HTTPError(400, "missing field 'messages': a list of {\"role\", \"content\"} objects")
        user = None
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or "role" not in m or "content" not in m:
                raise HTTPError(400, f"messages[{i}] must be an object with 'role' and 'content'")
            if m["role"] == "user":
                user = _content_text(m["content"], i)
        if user is None:
            raise HTTPError(400, "'messages' has no message with the role 'user'")
        if body.get("n", 1) != 1:
            raise HTTPError(400, "'n' must be 1: this service returns one answer per request")
        options = self._sampling(body, self._tokens(body, "max_completion_tokens", "max_tokens"))
        # the model was trained with its own system prompt (bundle.json "system"); the last
        # user message is the user's text
        return self.workers.submit(Job([user], options, stream=bool(body.get("stream"))))

    def completion(self, job):
        result = self._wait([job])[0]
        return {"id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
                "model": self.model_name,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": result["answer"]},
                             "finish_reason": result["finish_reason"]}],
                "usage": {"prompt_tokens": result["prompt_tokens"], "completion_tokens": result["completion_tokens"],
                          "total_tokens": result["prompt_tokens"] + result["completion_tokens"]}}


def _content_text(content, i):
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        texts = [p.get("text") for p in content if p.get("type") == "text"]
        if texts and all(isinstance(t, str) for t in texts):
            return "\n".join(texts)
    raise HTTPError(400, f"messages[{i}].content must be a text (or a list of text parts)")


def make_handler(service):
    args = service.args

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "bundle-serve/1"
        timeout = args.read_timeout  # a client that stops sending mid-request is dropped

        def log_message(self, fmt, *a):
            if not args.quiet:
                sys.stderr.write(f"{self.address_string()} {fmt % a}\n")

        def send_error(self, code, message=None, explain=None):  # the server's own errors, as JSON too
            self._json(code, {"error": {"message": message or self.responses.get(code, ("",))[0],
                                        "type": "invalid_request_error"}})

        def _json(self, status, obj, headers=()):
            data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _fail(self, err):
            headers = [("WWW-Authenticate", "Bearer")] if err.status == 401 else []
            self._json(err.status, {"error": {"message": err.message, "type": err.kind}}, headers)

        def _authorise(self):
            if service.api_key is None:
                return
            given = self.headers.get("Authorization", "")
            token = given[7:].strip() if given[:7].lower() == "bearer " else ""
            if not hmac.compare_digest(token.encode("utf-8"), service.api_key.encode("utf-8")):
                raise HTTPError(401, "missing or wrong API key: send the header 'Authorization: Bearer KEY'",
                                "authentication_error")

        def _body(self):
            length = self.headers.get("Content-Length")
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked" or length is None:
                self.close_connection = True
                raise HTTPError(411, "send the body with a Content-Length header")
            try:
                n = int(length)
            except ValueError:
                self.close_connection = True
                raise HTTPError(400, "the Content-Length header is not a number") from None
            if n > args.max_body_bytes:
                self.close_connection = True  # the body is not read
                raise HTTPError(413, f"the request body has {n} bytes; at most {args.max_body_bytes} are allowed",
                                "request_too_large")
            raw = self.rfile.read(n)
            self.body_read = True
            try:
                body = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError:
                raise HTTPError(400, "the body is not UTF-8 text") from None
            except json.JSONDecodeError as exc:
                raise HTTPError(400, f"the body is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                                     f"{exc.msg})") from None
            if not isinstance(body, dict):
                raise HTTPError(400, "the body must be a JSON object")
            return body

        def handle_expect_100(self):  # refuse a body that is too large before the client sends it
            length = self.headers.get("Content-Length", "")
            if length.isdigit() and int(length) > args.max_body_bytes:
                self.close_connection = True
                self._fail(HTTPError(413, f"the request body has {length} bytes; at most {args.max_body_bytes} are "
                                          "allowed", "request_too_large"))
                return False
            return super().handle_expect_100()

        def do_GET(self):
            self._guarded(self._get)

        def do_POST(self):
            self._guarded(self._post)

        def _guarded(self, fn):
            self.body_read = False
            try:
                fn()
            except HTTPError as err:
                if self.command == "POST" and not self.body_read:
                    self.close_connection = True  # the unread body must not be taken for the next request
                self._fail(err)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            except Exception as exc:  # one line in the log, a short reason to the client, never a traceback
                sys.stderr.write(f"error: {self.command} {self.path}: {type(exc).__name__}: {exc}\n")
                self.close_connection = True
                self._fail(HTTPError(500, f"internal error ({type(exc).__name__})", "server_error"))

        def _get(self):
            path = self.path.split("?", 1)[0]
            if path == "/health":
                return self._json(200, service.health())
            self._authorise()
            if path == "/v1/models":
                return self._json(200, {"object": "list", "data": [
                    {"id": service.model_name, "object": "model", "owned_by": "local"}]})
            raise HTTPError(404, f"no endpoint GET {path}", "not_found")

        def _post(self):
            path = self.path.split("?", 1)[0]
            if path not in ("/predict", "/v1/chat/completions"):
                raise HTTPError(404, f"no endpoint POST {path}", "not_found")
            self._authorise()
            body = self._body()
            if path == "/predict":
                return self._json(200, service.predict(body))
            job = service.chat_job(body)
            if job.pieces is None:
                return self._json(200, service.completion(job))
            self._stream(job)

        def _stream(self, job):
            """Server-sent events as OpenAI streams them: a role chunk, content chunks, a
            finish chunk, then ``data: [DONE]``."""
            cid, created = f"chatcmpl-{uuid.uuid4().hex[:24]}", int(time.time())

            def chunk(delta, finish=None):
                obj = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": service.model_name,
                       "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n")
                self.wfile.flush()

            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                chunk({"role": "assistant", "content": ""})
                while True:
                    piece = job.pieces.get()
                    if piece is None:
                        break
                    chunk({"content": piece})
                if job.error is not None:
                    err = {"error": {"message": f"the model failed ({type(job.error).__name__})", "type": "server_error"}}
                    self.wfile.write(b"data: " + json.dumps(err).encode("utf-8") + b"\n\n")
                else:
                    chunk({}, job.result["finish_reason"])
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                job.cancelled = True  # the client went away: stop generating

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def build_parser():
    p = argparse.ArgumentParser(description="HTTP prediction service for this model bundle.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for all)")
    p.add_argument("--port", type=int, default=8000, help="port (0: any free port, printed at start)")
    p.add_argument("--workers", type=int, default=1, help="model threads, each with its own predictor")
    p.add_argument("--api-key", help=f"require 'Authorization: Bearer KEY' (or set {API_KEY_ENV})")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "gpu"])
    p.add_argument("--variant", default="static", help="static (default) or int8 where the bundle has it")
    p.add_argument("--no-tensorrt", action="store_true")
    p.add_argument("--threads", type=int, help="CPU threads per worker (default: the cores shared out)")
    p.add_argument("--batch-size", type=int, default=8, help="inputs per predictor run")
    p.add_argument("--max-batch", type=int, default=64, help="most inputs in one request, and in one joined batch")
    p.add_argument("--batch-wait-ms", type=float, default=1.0,
                   help="how long a worker waits for more requests to join a batch")
    p.add_argument("--max-body-bytes", type=int, default=1 << 20, help="largest request body (413 above it)")
    p.add_argument("--max-tokens", type=int, default=512, help="largest max_tokens a request may ask for")
    p.add_argument("--read-timeout", type=float, default=30.0, help="seconds to wait for a slow client's request")
    p.add_argument("--quiet", action="store_true", help="no line per request on stderr")
    return p


def _stop(signum, frame):
    raise KeyboardInterrupt


def main(argv=None):
    args = build_parser().parse_args(argv)
    for name in ("workers", "batch_size", "max_batch", "max_body_bytes", "max_tokens"):
        if getattr(args, name) < 1:
            print(f"error: --{name.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    silence_native_stdout()  # Paddle's C++ notes go nowhere; our own lines go to stderr
    try:
        service = Service(args)
        server = Server((args.host, args.port), make_handler(service))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port} ({exc.strerror or exc})", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)  # docker stop: finish like Ctrl+C
    host, port = server.server_address[:2]
    print(f"serving {service.task} model {service.model_name} on http://{host}:{port} "
          f"({args.workers} worker(s), {service.device}{', API key required' if service.api_key else ''})",
          file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
