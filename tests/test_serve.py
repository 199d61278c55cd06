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

from trained_factory import CLS, INST, RUN, USER_COLUMNS, trained_project  # noqa: E402


def isolated_env() -> dict[str, str]:
    """Python finds paddle, tokenizers and numpy but not the workbench (see test_evaluate_export)."""
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "MODEL_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def export_bundle(template_id: str, base: Path) -> Path:
    from workbench.engine.export import export_run

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
        for name in ("bundle_runtime.py", "predict.py", "serve.py", "Dockerfile", "requirements.txt"):
            assert (bundle / name).is_file(), name
        requirements = (bundle / "requirements.txt").read_text()
        assert re.search(r"^aiohttp>=", requirements, re.M)  # serve.py's HTTP server
        docker = (bundle / "Dockerfile").read_text()
        assert "pip install --no-cache-dir -r requirements.txt" in docker
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
        status, health = svc.json("GET", "/health")  # open without the key
        assert status == 200 and health["task"] == "classification" and health["labels"] == ["正面", "中性", "负面"]
        assert health["version"] == 1
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
            (b'{"inputs": [{"other": "x", "more": "y"}]}', 400, "no column named"),
            (b'{"inputs": ["a", "b", "c", "d", "e"]}', 413, "at most 4"),
            (json.dumps({"inputs": ["很长" * 600]}).encode(), 413, "at most 2000"),
            (b"\xff\xfe{", 400, "not UTF-8"),
        ]
        for raw, status, reason in cases:
            got, text, _ = svc.request("POST", "/predict", raw=raw)
            assert got == status, (raw[:40], text)
            message = json.loads(text)["error"]["message"]
            assert reason in message and "\n" not in message and "Traceback" not in text
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
        chat = {"model": "any", "messages": [{"role": "system", "content": "ignored"},
                                             {"role": "user", "content": questions[0]}], "max_tokens": 12}
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
        assert streamed.strip() == plain["choices"][0]["message"]["content"]
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
