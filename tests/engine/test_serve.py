"""The bundle's serve.py, for real: exported bundles of short training runs, the service
started on 127.0.0.1 in a process that cannot import the workbench, driven over HTTP and
compared with the bundle's predict.py on the same inputs."""

from __future__ import annotations

import csv
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import sysconfig
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from unittest.mock import ANY

import pandas as pd
import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from workbench.core.templates import TemplateCatalog  # noqa: E402

from test_bundle_env import dockerfile_checks  # noqa: E402
from trained_factory import CLS, INST, RUN, USER_COLUMNS, trained_project  # noqa: E402


pytestmark = pytest.mark.slow  # a trained, exported bundle served over HTTP: `make test-slow`


def isolated_env() -> dict[str, str]:
    """Python finds paddle, tokenizers and numpy but not the workbench (see test_evaluate_export)."""
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "MODEL_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def export_bundle(template_id: str, base: Path) -> Path:
    from workbench.engine.export.bundle import export_run

    project = trained_project(template_id, base)
    out = base / f"{template_id}-bundle"
    export_run(project.root, RUN, out, formats=["static"], evaluate=False, check_script=False, parity_rows=4)
    return out


@pytest.fixture(scope="module")
def bundles(tmp_path_factory):
    base = tmp_path_factory.mktemp("serve")
    return {CLS: export_bundle(CLS, base), INST: export_bundle(INST, base)}


class Service:
    """serve.py in a child process on a free port of 127.0.0.1."""

    def __init__(self, bundle: Path, *args: str, env: dict | None = None):
        self.proc = subprocess.Popen([sys.executable, "-S", "serve.py", "--port", "0", "--quiet", *args],
                                     cwd=bundle, env={**isolated_env(), **(env or {})}, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
        first = self.proc.stderr.readline()  # "serving ... on http://127.0.0.1:PORT (...)", or the process ended
        m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
        if not m:
            self.proc.kill()
            raise AssertionError(f"serve.py did not start: {first}{self.proc.stderr.read()}")
        self.port = int(m.group(1))
        self.log: list[str] = []
        self._reader = threading.Thread(target=lambda: self.log.extend(self.proc.stderr), daemon=True)
        self._reader.start()

    def request(self, method, path, body=None, headers=None, raw: bytes | None = None, conn=None):
        own = conn is None
        conn = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        data = raw if raw is not None else (None if body is None else json.dumps(body, ensure_ascii=False).encode())
        conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
        resp = conn.getresponse()
        payload = resp.read()
        if own:
            conn.close()
        return resp.status, payload.decode("utf-8"), dict(resp.getheaders())

    def json(self, method, path, body=None, headers=None, conn=None):
        status, text, _ = self.request(method, path, body, headers, conn=conn)
        return status, json.loads(text)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self._reader.join(timeout=5)
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.stop()


def predict_py(bundle: Path, rows: list[dict], tmp: Path, *extra: str) -> list[dict]:
    src, dst = tmp / "in.csv", tmp / "out.csv"
    with open(src, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    r = subprocess.run([sys.executable, "-S", "predict.py", "--input", str(src), "--output", str(dst), *extra],
                       cwd=bundle, env=isolated_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with open(dst, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def texts(n: int) -> list[str]:
    df = pd.read_csv(TemplateCatalog().get(CLS).sample_path, dtype=str)
    return list(df.iloc[:, 0].head(n))


# ----- classification ---------------------------------------------------------------------------------


def test_bundle_ships_the_service_and_its_image(bundles):
    for bundle in bundles.values():
        for name in ("bundle_runtime.py", "predict.py", "serve.py", "serve_batcher.py", "serve_requests.py",
                     "Dockerfile", ".dockerignore", "requirements.txt", "requirements.lock"):
            assert (bundle / name).is_file(), name
        requirements = (bundle / "requirements.txt").read_text()
        assert re.search(r"^aiohttp==", requirements, re.M)  # serve.py's HTTP server, pinned
        docker = (bundle / "Dockerfile").read_text()
        assert "pip install --no-cache-dir -r requirements.lock" in docker
        dockerfile_checks(docker, bundle)  # base pinned, 127.0.0.1 only, static/ only
        card = (bundle / "README.md").read_text(encoding="utf-8")
        assert "pip install -r requirements.lock" in card and "-p 127.0.0.1:8000:8000" in card
        assert 'ENTRYPOINT ["python", "serve.py", "--host", "0.0.0.0"' in docker
        assert re.search(r"^USER \d+$", docker, re.M)  # not root
        hadolint = shutil.which("hadolint")
        if hadolint:
            r = subprocess.run([hadolint, str(bundle / "Dockerfile")], capture_output=True, text=True)
            assert r.returncode == 0, r.stdout + r.stderr
    bundle = json.loads((bundles[CLS] / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["columns"] == {"text": USER_COLUMNS[CLS]["text"]}  # the project's own column name


def bundle_fields(bundle: Path) -> list[str]:
    return json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))["fields"]


def test_model_card_describes_the_projects_data(bundles):
    from workbench.core.project import Project

    for tid, bundle in bundles.items():
        card = (bundle / "README.md").read_text(encoding="utf-8")
        project = Project.open(bundle.parent / tid)
        stats = project.config.stats
        assert f"`{tid}-export.csv` (csv, gb18030)" in card
        assert "synthetic" not in card.lower() and "sample data" not in card.lower()
        assert f"| rows imported | {stats['rows_imported']} |" in card
        assert f"| rows after cleaning | {stats['rows_clean']} |" in card
        assert f"| data version | `{project.config.data_version}` |" in card, "the rows the run trained on"
        for role, col in USER_COLUMNS[tid].items():
            assert f"{col} → {role}" in card
        assert "python serve.py --port 8000" in card
        assert f"`{USER_COLUMNS[tid][bundle_fields(bundle)[-1]]}` as in the training data" in card
    card = (bundles[CLS] / "README.md").read_text(encoding="utf-8")
    labels = Project.open(bundles[CLS].parent / CLS).config.stats["labels"]
    assert "rows per label (after cleaning) | " + ", ".join(f"{k} {v}" for k, v in labels.items()) in card


def test_service_matches_predict_py_and_guards_its_door(bundles, tmp_path):
    bundle = bundles[CLS]
    inputs = texts(12)
    want = predict_py(bundle, [{USER_COLUMNS[CLS]["text"]: t} for t in inputs], tmp_path)
    with Service(bundle, env={"MODEL_API_KEY": "s3cret"}) as svc:
        # open without the key, and says only that it is up; what it serves, to the key's holder
        assert svc.json("GET", "/health") == (200, {"status": "ok"})
        assert svc.json("GET", "/health", headers={"Authorization": "Bearer wrong"}) == (200, {"status": "ok"})
        status, health = svc.json("GET", "/health", headers={"Authorization": "Bearer s3cret"})
        assert status == 200 and health["task"] == "classification" and health["labels"] == ["正面", "中性", "负面"]
        assert health["version"] == 1 and health["run"] == RUN and health["device"].startswith("cpu")
        body = {"inputs": inputs[:6] + [{USER_COLUMNS[CLS]["text"]: t} for t in inputs[6:9]]
                + [{"text": t} for t in inputs[9:]]}
        assert svc.json("POST", "/predict", body)[0] == 401
        assert svc.json("POST", "/predict", body, {"Authorization": "Bearer wrong"})[0] == 401
        status, got = svc.json("POST", "/predict", body, {"Authorization": "Bearer s3cret"})
        assert status == 200
        preds = got["predictions"]
        assert [p["label"] for p in preds] == [r["prediction"] for r in want]
        for p, r in zip(preds, want):
            for label, prob in p["probabilities"].items():
                assert prob == pytest.approx(float(r[f"p_{label}"]), abs=1e-5)
        assert svc.stop() in (0, -15)
    assert not [line for line in svc.log if "Traceback" in line]


def test_bad_requests_get_one_line_reasons(bundles):
    with Service(bundles[CLS], "--max-batch", "4", "--max-body-bytes", "2000") as svc:
        cases = [
            (b'{"inputs": [', 400, "not valid JSON"),
            (b'["a"]', 400, "must be a JSON object"),
            (b'{"texts": ["a"]}', 400, "missing field 'inputs'"),
            (b'{"inputs": "a"}', 400, "non-empty list"),
            (b'{"inputs": [3]}', 400, "inputs[0] must be a text"),
            (b'{"inputs": [{"other": "x", "more": "y"}]}', 400, "inputs[0]: unknown field 'other'"),
            (b'{"inputs": ["a", "b", "c", "d", "e"]}', 413, "at most 4"),
            (json.dumps({"inputs": ["很长" * 600]}).encode(), 413, "at most 2000"),
            (b"\xff\xfe{", 400, "not UTF-8"),
        ]
        for raw, status, reason in cases:
            got, text, _ = svc.request("POST", "/predict", raw=raw)
            assert got == status, (raw[:40], text)
            message = json.loads(text)["error"]["message"]
            assert reason in message and "\n" not in message and "Traceback" not in text
        assert svc.json("POST", "/predict", {"inputs": ["好"]})[0] == 200
        assert svc.json("POST", "/nowhere", {"inputs": ["a"]})[0] == 404
        assert svc.json("POST", "/v1/chat/completions", {"messages": []})[0] == 404  # a classifier
        # a keep-alive connection survives a refused request
        conn = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=60)
        assert svc.json("POST", "/predict", {"inputs": []}, conn=conn)[0] == 400
        assert svc.json("POST", "/predict", {"inputs": ["好"]}, conn=conn)[0] == 200
        conn.close()
        assert svc.json("GET", "/health")[0] == 200
    assert not [line for line in svc.log if "Traceback" in line]


def test_load_16_clients_no_errors_and_batched_results_agree(bundles):
    inputs = texts(40)
    clients, per_client = 16, 20
    with Service(bundles[CLS], "--workers", "2") as svc:
        status, alone = svc.json("POST", "/predict", {"inputs": inputs})
        assert status == 200
        expected = {t: p for t, p in zip(inputs, alone["predictions"])}

        def client(k):
            conn = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=120)
            times, errors = [], []
            for i in range(per_client):
                text = inputs[(k * per_client + i) % len(inputs)]
                t = time.perf_counter()
                try:
                    code, got = svc.json("POST", "/predict", {"inputs": [text]}, conn=conn)
                except Exception as exc:
                    errors.append(repr(exc))
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=120)
                    continue
                times.append(time.perf_counter() - t)
                pred = got["predictions"][0] if code == 200 else None
                want = expected[text]
                if pred is None or pred["label"] != want["label"] or any(
                        abs(pred["probabilities"][k2] - v) > 1e-5 for k2, v in want["probabilities"].items()):
                    errors.append((code, got))
            conn.close()
            return times, errors

        with ThreadPoolExecutor(clients) as pool:
            results = list(pool.map(client, range(clients)))
        assert svc.stop() in (0, -15)
    # the second worker process shared the port and ended with the first
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", svc.port), timeout=5).close()
    times = sorted(t for r, _ in results for t in r)
    errors = [e for _, errs in results for e in errs]
    assert not errors, errors[:3]
    assert len(times) == clients * per_client
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"\n{len(times)} requests from {clients} clients: p50 {statistics.median(times) * 1000:.1f} ms, "
          f"p99 {p99 * 1000:.1f} ms")


def raw_request(port: int, head: bytes, body: bytes = b"") -> tuple[int, dict]:
    """One request as the bytes given (a header the http client would add or change is not added)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, json.loads(data.split(b"\r\n\r\n", 1)[1])


def test_client_mistakes_get_4xx_never_500(bundles):
    """What Python's JSON reader takes but is no request, names no field, holds no text, or
    is not JSON at all: each a 4xx naming the problem, in the OpenAI API's error shape."""
    col = USER_COLUMNS[CLS]["text"]
    cases = [
        (b'{"inputs": ["\\ud800"]}', 400, "\\ud800, half of a UTF-16 surrogate pair"),
        (b'{"inputs": ["ok", {"text": "\\udfff x"}]}', 400, "\\udfff"),
        (b'{"inputs": ' + b"[" * 5000 + b"]" * 5000 + b"}", 400, "nested more than 32 levels"),
        (b'{"inputs": ' + b"[" * 40 + b'"a"' + b"]" * 40 + b"}", 400, "nested more than 32 levels"),
        (b'{"inputs": [NaN]}', 400, "NaN is not a JSON number"),
        (b'{"inputs": [' + b"7" * 5000 + b"]}", 400, "not valid JSON"),
        (json.dumps({"inputs": [{"txt": "公司净利润增长"}]}).encode(), 400,
         f"inputs[0]: unknown field 'txt'; the fields are text / {col}"),
        (json.dumps({"inputs": [{"text": "利润增长", "lang": "zh"}]}).encode(), 400, "unknown field 'lang'"),
        (json.dumps({"inputs": [{"text": "利润", col: "增长"}]}).encode(), 400, "name the same field"),
        (b'{"inputs": ["ok", ""]}', 400, "inputs[1] is an empty text"),
        (json.dumps({"inputs": [" \u3000\n"]}).encode(), 400, "inputs[0] is an empty text"),
        (json.dumps({"inputs": [{col: None}]}).encode(), 400, "inputs[0] is an empty text"),
        (b'{"inputs": [{"text": true}]}', 400, "'text' must be a text"),
    ]
    with Service(bundles[CLS]) as svc:
        for raw, status, reason in cases:
            got, text, _ = svc.request("POST", "/predict", raw=raw)
            assert got == status, (raw[:60], text)
            error = json.loads(text)["error"]
            assert reason in error["message"] and error["type"] == "invalid_request_error", (raw[:60], error)
            assert set(error) == {"message", "type", "param", "code"}
        # a whole surrogate pair is a character; the column name and the field name both work
        assert svc.request("POST", "/predict", raw=b'{"inputs": ["\\ud83d\\ude00 \xe5\x88\xa9\xe6\xb6\xa6"]}')[0] == 200
        status, got = svc.json("POST", "/predict", {"inputs": [{col: "利润增长"}, {"text": "利润增长"}, "利润增长"]})
        assert status == 200 and len({json.dumps(p, sort_keys=True) for p in got["predictions"]}) == 1
        # not JSON by its type: 415, whatever the body
        good = json.dumps({"inputs": ["利润增长"]}).encode()
        head = b"POST /predict HTTP/1.1\r\nHost: x\r\n"
        for content_type, status, reason in [(b"text/plain", 415, "'text/plain'"),
                                             (b"application/x-www-form-urlencoded", 415, "Content-Type: application/json"),
                                             (None, 415, "no Content-Type"),
                                             (b"application/json; charset=gb18030", 415, "send it as UTF-8"),
                                             (b"application/json; charset=utf-8", 200, None),
                                             (b"application/vnd.api+json", 200, None)]:
            got, answer = raw_request(svc.port, head + (b"Content-Type: " + content_type + b"\r\n"
                                                        if content_type else b""), good)
            assert got == status, (content_type, answer)
            if reason:
                assert reason in answer["error"]["message"] and answer["error"]["code"] == "unsupported_media_type"
        # a body that says it is gzip and is not
        got, answer = raw_request(svc.port, head + b"Content-Type: application/json\r\nContent-Encoding: gzip\r\n",
                                  b"0123456789")
        assert got == 400 and "could not be read (Can not decode content-encoding: gzip)" in answer["error"]["message"]
        assert svc.json("GET", "/health")[0] == 200
    assert not [line for line in svc.log if "Traceback" in line or line.startswith("error:")], svc.log


def test_slow_clients_get_408_and_their_connection_closes(bundles):
    with Service(bundles[CLS], "--read-timeout", "1.5", "--keepalive-timeout", "2") as svc:
        body = json.dumps({"inputs": ["公司净利润增长"]}).encode()
        # a body that stops coming: 408 after the read timeout, then the connection is closed
        slow_body = socket.create_connection(("127.0.0.1", svc.port), timeout=30)
        slow_body.sendall(b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
        # headers that stop coming: the connection is closed after the keep-alive timeout
        slow_head = socket.create_connection(("127.0.0.1", svc.port), timeout=30)
        slow_head.sendall(b"POST /predict HTTP/1.1\r\nHost: x\r\n")
        t = time.perf_counter()
        assert svc.json("POST", "/predict", {"inputs": ["公司净利润增长"]})[0] == 200  # others are served meanwhile
        answer = b""
        while chunk := slow_body.recv(65536):  # to the end: the service closed it
            answer += chunk
        waited = time.perf_counter() - t
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        error = json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]
        assert error["code"] == "request_timeout" and "within 1.5 seconds" in error["message"]
        assert 1.0 < waited < 10, waited
        assert slow_head.recv(65536) == b""  # closed without an answer: it never sent a request
        assert 1.5 < time.perf_counter() - t < 10
        slow_body.close()
        slow_head.close()
        # a client that sends its request in pieces within the timeout is served
        with socket.create_connection(("127.0.0.1", svc.port), timeout=30) as sock:
            sock.sendall(b"POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body[:10])
            time.sleep(0.5)
            sock.sendall(body[10:])
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
    assert not [line for line in svc.log if "Traceback" in line], svc.log


def test_a_placeholder_api_key_is_refused_at_start(bundles):
    for args, env in [(["--api-key", "change-me"], {}), ([], {"MODEL_API_KEY": "CHANGEME"}),
                      (["--api-key", "<your-api-key>"], {}), (["--api-key", "xxxxxxxx"], {}),
                      (["--api-key", " "], {})]:
        r = subprocess.run([sys.executable, "-S", "serve.py", "--port", "0", *args], cwd=bundles[CLS],
                           env={**isolated_env(), **env}, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2, (args, env, r.stderr)
        assert r.stderr.startswith("error: the API key") and "is a placeholder" in r.stderr, r.stderr
        assert "MODEL_API_KEY=$(python -c" in r.stderr and len(r.stderr.strip().splitlines()) == 1


# ----- instruction --------------------------------------------------------------------------------------


def _sse(text: str) -> list:
    events = [line[6:] for line in text.split("\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    return [json.loads(e) for e in events[:-1]]


def test_chat_completions_and_stream_match_predict_py(bundles, tmp_path):
    bundle = bundles[INST]
    questions = ["信用卡怎么挂失？", "理财产品可以提前赎回吗？"]
    cols = USER_COLUMNS[INST]
    want = predict_py(bundle, [{cols["instruction"]: q, cols["input"]: ""} for q in questions], tmp_path,
                      "--max-new-tokens", "12")
    with Service(bundle) as svc:
        status, got = svc.json("POST", "/predict", {"inputs": [{cols["instruction"]: q} for q in questions],
                                                    "max_tokens": 12})
        assert status == 200 and [p["answer"] for p in got["predictions"]] == [r["prediction"] for r in want]
        system = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))["system"]
        chat = {"model": "any", "messages": [{"role": "system", "content": system}] if system else [],
                "max_tokens": 12}
        chat["messages"].append({"role": "user", "content": questions[0]})
        status, done = svc.json("POST", "/v1/chat/completions", chat)
        assert status == 200 and done["object"] == "chat.completion"
        assert done["choices"][0]["message"] == {"role": "assistant", "content": want[0]["prediction"]}
        assert done["usage"]["total_tokens"] == done["usage"]["prompt_tokens"] + done["usage"]["completion_tokens"]
        # sampled with a seed: the streamed pieces add up to the same answer as without streaming
        sampled = {**chat, "temperature": 1.5, "seed": 7, "max_tokens": 16}
        status, plain = svc.json("POST", "/v1/chat/completions", sampled)
        assert status == 200
        status, text, headers = svc.request("POST", "/v1/chat/completions", {**sampled, "stream": True})
        assert status == 200 and headers["Content-Type"].startswith("text/event-stream")
        chunks = _sse(text)
        assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
        assert chunks[-1]["choices"][0]["finish_reason"] in ("stop", "length")
        streamed = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
        assert streamed == plain["choices"][0]["message"]["content"]
        assert plain["usage"]["completion_tokens"] > 0
        # limits
        assert svc.json("POST", "/v1/chat/completions", {**chat, "max_tokens": 100000})[0] == 400
        assert svc.json("POST", "/v1/chat/completions", {"messages": [{"role": "user"}]})[0] == 400
        assert svc.json("POST", "/v1/chat/completions", {"messages": [{"role": "assistant", "content": "x"}]})[0] == 400
        assert svc.json("GET", "/v1/models")[0] == 200
        # the repetition guards: the bundle's unless the request sets them
        assert svc.json("POST", "/v1/chat/completions", {**chat, "repetition_penalty": 0})[0] == 400
        assert svc.json("POST", "/v1/chat/completions", {**chat, "no_repeat_ngram": -1})[0] == 400
        assert svc.json("POST", "/v1/chat/completions", {**chat, "repetition_penalty": 1, "no_repeat_ngram": 0})[0] == 200
        # a client that leaves mid-stream: the service stops that answer and goes on serving
        body = json.dumps({**sampled, "stream": True, "max_tokens": 100}).encode()
        with socket.create_connection(("127.0.0.1", svc.port), timeout=60) as sock:
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        assert svc.json("POST", "/v1/chat/completions", chat)[1] == done | {"id": ANY, "created": ANY}
    assert not [line for line in svc.log if "Traceback" in line]


def test_chat_refuses_a_prompt_past_the_context_and_streams_usage(bundles):
    bundle = bundles[INST]
    context = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))["max_length"]
    short = "信用卡怎么挂失？"
    long = "我想咨询一下信用卡的年费、积分和分期手续费应该怎么计算。" * 110  # ~3,000 characters
    with Service(bundle) as svc:
        def chat(content, **extra):
            return svc.json("POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": content}],
                                                             **extra})

        status, done = chat(short, max_tokens=8)
        assert status == 200
        # the CPU threads the export timed for the generation step, unless --threads says otherwise
        timed = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))["generate"]["threads"]
        shared_out = max(1, ((os.cpu_count() or 1) - 1))
        assert svc.json("GET", "/health")[1]["threads"] == (timed or shared_out)
        prompt = done["usage"]["prompt_tokens"]
        # the prompt the service counted plus the answer asked for, past the context: refused
        asked = context - prompt + 1
        status, got = chat(short, max_tokens=asked)
        assert status == 400 and got["error"]["code"] == "context_length_exceeded", got
        assert got["error"]["param"] == "messages" and got["error"]["type"] == "invalid_request_error"
        assert (f"maximum context length is {context} tokens. However, you requested {prompt + asked} tokens "
                f"({prompt} in the messages, {asked} in the completion)") in got["error"]["message"]
        assert chat(short, max_tokens=asked - 1)[0] == 200  # exactly the context: answered
        for extra in ({"max_tokens": 8}, {}):  # a long question is never cut silently
            status, got = chat(long, **extra)
            assert status == 400 and got["error"]["code"] == "context_length_exceeded", (extra, got)
            assert f"maximum context length is {context} tokens" in got["error"]["message"]
        assert chat(" ")[0] == 400
        assert chat(short, seed=-1, temperature=1)[0] == 400 and chat(short, seed=True)[0] == 400
        assert chat(short, stream="yes")[0] == 400
        # stream_options.include_usage: a last chunk with no choices and the usage, as OpenAI sends it
        sampled = {"temperature": 1.5, "seed": 11, "max_tokens": 12}
        status, plain = chat(short, **sampled)
        assert status == 200
        body = {"messages": [{"role": "user", "content": short}], "stream": True, **sampled}
        status, text, _ = svc.request("POST", "/v1/chat/completions", {**body, "stream_options": {"include_usage": True}})
        assert status == 200
        chunks = _sse(text)
        assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == plain["usage"]
        assert all(c["usage"] is None for c in chunks[:-1])
        assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks[:-1]).strip() == \
            plain["choices"][0]["message"]["content"]
        status, text, _ = svc.request("POST", "/v1/chat/completions", body)
        assert status == 200 and all("usage" not in c for c in _sse(text))
        assert chat(short, stream_options={"include_usage": True})[0] == 400  # without "stream": true
        status, got = svc.json("POST", "/v1/chat/completions", {**body, "stream_options": {"include_usage": "yes"}})
        assert status == 400 and got["error"]["param"] == "stream_options"
    assert not [line for line in svc.log if "Traceback" in line or line.startswith("error:")], svc.log


# ----- predict.py and serve.py read what the importer reads ----------------------------------------------


def test_predict_py_reads_the_users_files_quietly(bundles, tmp_path):
    from trained_factory import user_frame

    bundle = bundles[CLS]
    col = USER_COLUMNS[CLS]["text"]
    new = user_frame(CLS).head(5)
    files = {"gb18030.csv": lambda p: new.to_csv(p, index=False, encoding="gb18030"),
             "utf16.tsv": lambda p: new.to_csv(p, index=False, sep="\t", encoding="utf-16"),
             "bom.csv": lambda p: new.to_csv(p, index=False, encoding="utf-8-sig"),
             "records.json": lambda p: p.write_text(new.to_json(orient="records", force_ascii=False), "utf-8"),
             "lines.jsonl": lambda p: p.write_text(new.to_json(orient="records", lines=True, force_ascii=False),
                                                   "utf-8"),
             "single.csv": lambda p: new[[col]].rename(columns={col: "摘要"}).to_csv(p, index=False, encoding="gb18030"),
             "sheet.xlsx": lambda p: new.to_excel(p, index=False)}
    results = {}
    for name, write in files.items():
        src, dst = tmp_path / name, tmp_path / f"{name}.out.csv"
        write(src)
        r = subprocess.run([sys.executable, "-S", "predict.py", "--input", str(src), "--output", str(dst)],
                           cwd=bundle, env=isolated_env(), capture_output=True, text=True, timeout=300)
        if name.endswith(".xlsx") and "needs openpyxl" in r.stderr:
            continue  # openpyxl is not among the bundle's requirements
        assert r.returncode == 0, (name, r.stderr)
        noise = [line for line in (r.stdout + r.stderr).splitlines()
                 if "OneDNN" in line or "oneDNN" in line or "ccache" in line or "Traceback" in line]
        assert not noise, (name, noise)
        with open(dst, encoding="utf-8-sig", newline="") as fh:
            results[name] = [row["prediction"] for row in csv.DictReader(fh)]
    assert len({tuple(v) for v in results.values()}) == 1, results  # the same rows, the same predictions
    assert len(results) >= 6

    bad = {"image.csv": b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "other.csv": "编号,日期\n1,2\n".encode(),
           "broken.json": b'[{"text": "a"'}
    for name, raw in bad.items():
        (tmp_path / name).write_bytes(raw)
        r = subprocess.run([sys.executable, "-S", "predict.py", "--input", str(tmp_path / name)],
                           cwd=bundle, env=isolated_env(), capture_output=True, text=True, timeout=300)
        assert r.returncode == 2 and r.stderr.startswith("error: ") and "Traceback" not in r.stderr, (name, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1
    r = subprocess.run([sys.executable, "-S", "predict.py", "--input", str(tmp_path / "missing.csv")],
                       cwd=bundle, env=isolated_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "could not be read" in r.stderr


def test_bundle_encoding_detection_agrees_with_the_importer(bundles):
    import importlib.util

    from workbench.core.io.encodings import _detect_encoding

    spec = importlib.util.spec_from_file_location("rt", bundles[CLS] / "bundle_runtime.py")
    rt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rt)
    def outcome(fn, raw):
        try:
            return fn(raw)
        except Exception:
            return "refused"

    for text in ("新闻正文,编号\n公司净利润增长１２％，超出预期,1\n", "text,id\nprofit up 12% (公司),1\n"):
        for encoding in ("utf-8", "utf-8-sig", "gb18030", "utf-16", "utf-16-le", "utf-16-be"):
            raw = text.encode(encoding)
            ours = outcome(rt.detect_encoding, raw)
            assert ours == outcome(lambda r: _detect_encoding("x.csv", r, True), raw), (text, encoding)
            if ours != "refused":
                assert raw.decode(ours).lstrip("\ufeff") == text


def _engine_tokenizer(bundle: Path):
    """The trained run's own tokenizer (its chat template), beside the bundle in the test's folder."""
    from workbench.core.project import Project
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.inference.trained import load_trained

    return load_trained(resolve_trained_run(Project.open(bundle.parent / INST), RUN, "best"))[1]


def test_chat_honours_system_earlier_turns_and_stop_or_refuses(bundles):
    """An OpenAI client's system message and earlier turns go through the chat template the model
    was trained with, "stop" cuts the answer, and what the service cannot honour is a 400 that
    names it; streamed text is the non-streamed text to the character."""
    from workbench.engine import examples

    bundle = bundles[INST]
    meta = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
    assert meta["chat"]["system_message"] and meta["chat"]["multi_turn"], meta["chat"]
    tok = _engine_tokenizer(bundle)
    q1, a1, q2, own = "信用卡怎么挂失？", "拨打客服电话即可。", "挂失要收费吗？", "你是一名银行柜员，回答要简短。"

    def n_tokens(messages):  # the prompt the engine's tokenizer writes for the conversation
        return len(examples.encode_prompt(tok, tok.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)))

    with Service(bundle) as svc:
        def chat(messages, **extra):
            return svc.json("POST", "/v1/chat/completions", {"messages": messages, "max_tokens": 12, **extra})

        status, alone = chat([{"role": "user", "content": q1}])
        assert status == 200
        trained_sys = [{"role": "system", "content": meta["system"]}] if meta["system"] else []
        assert alone["usage"]["prompt_tokens"] == len(examples.encode_prompt(tok, examples.build_prompt(tok, meta["system"], q1)))
        # the client's own system message replaces the trained one, in the template's place for it
        status, got = chat([{"role": "system", "content": own}, {"role": "user", "content": q1}])
        assert status == 200 and got["usage"]["prompt_tokens"] == n_tokens(
            [{"role": "system", "content": own}, {"role": "user", "content": q1}])
        assert got["usage"]["prompt_tokens"] != alone["usage"]["prompt_tokens"]
        # earlier turns: the whole conversation, as the template writes it
        convo = trained_sys + [{"role": "user", "content": q1}, {"role": "assistant", "content": a1},
                               {"role": "user", "content": q2}]
        status, got = chat(convo[len(trained_sys):])
        assert status == 200 and got["usage"]["prompt_tokens"] == n_tokens(convo), got
        # stop: the answer ends before the first stop text, finish_reason "stop"
        sampled = {"temperature": 1.5, "seed": 5, "max_tokens": 24}
        status, plain = chat([{"role": "user", "content": q1}], **sampled)
        text = plain["choices"][0]["message"]["content"]
        assert status == 200 and len(text) >= 3, plain
        cut = text[len(text) // 2]
        status, stopped = chat([{"role": "user", "content": q1}], stop=[cut], **sampled)
        assert status == 200, stopped
        assert stopped["choices"][0]["message"]["content"] == text[:text.index(cut)].strip()
        assert cut not in stopped["choices"][0]["message"]["content"]
        assert stopped["choices"][0]["finish_reason"] == "stop"
        # streamed: exactly the non-streamed text, no trailing newline or leading space
        for extra in ({}, {"stop": cut}):
            body = {"messages": [{"role": "user", "content": q1}], "stream": True, **sampled, **extra}
            status, raw, _ = svc.request("POST", "/v1/chat/completions", body)
            streamed = "".join(c["choices"][0]["delta"].get("content", "") for c in _sse(raw) if c["choices"])
            want = chat([{"role": "user", "content": q1}], **sampled, **extra)[1]["choices"][0]["message"]["content"]
            assert status == 200 and streamed == want, (streamed, want)
        # refused, each with a 400 that names what it refuses
        for body, param, words in (
                ({"messages": [{"role": "user", "content": q1}], "frequency_penalty": 0.5}, "frequency_penalty",
                 "unknown or unsupported field 'frequency_penalty'"),
                ({"messages": [{"role": "user", "content": q1}], "tools": []}, "tools", "'tools'"),
                ({"messages": [{"role": "user", "content": q1}, {"role": "assistant", "content": "好的"}]},
                 "messages", "the last message is the assistant's"),
                ({"messages": [{"role": "user", "content": q1}, {"role": "system", "content": own}]}, "messages",
                 "system message after the conversation began"),
                ({"messages": [{"role": "tool", "content": "x"}]}, "messages", "the role 'tool'"),
                ({"messages": [{"role": "user", "content": q1}], "stop": ""}, "stop", "empty text"),
                ({"messages": [{"role": "user", "content": q1}], "stop": ["a", "b", "c", "d", "e"]}, "stop",
                 "at most 4")):
            status, got = svc.json("POST", "/v1/chat/completions", body)
            assert status == 400 and got["error"]["param"] == param and words in got["error"]["message"], (body, got)
        status, got = svc.json("POST", "/predict", {"inputs": [q1], "stream": True})
        assert status == 400 and got["error"]["param"] == "stream" and "unknown field 'stream'" in got["error"]["message"]
    assert not [line for line in svc.log if "Traceback" in line or line.startswith("error:")], svc.log
