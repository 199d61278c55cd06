"""The bundle's HTTP service against predict.py's own batch throughput, in one run.

On the same inputs (texts of the sample data's test split), side by side:

* predict.py's batch path: the bundle's ``Predictor.classify`` over all inputs at its
  batch size (what ``predict.py --input FILE`` does after loading), in samples per second;
* serve.py started on 127.0.0.1, loaded by concurrent clients over keep-alive connections,
  one input per request and then a few per request: requests per second, samples per
  second, p50 and p99 latency, and errors.

Target: the service's samples per second at least 0.8x predict.py's.

    python bench/serve_bench.py                          # trains and exports the built-in tiny model
    python bench/serve_bench.py --bundle DIR             # an exported classification bundle
    python bench/serve_bench.py --clients 16 --requests 40 --workers 1
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _make_bundle(root: Path, size: str, steps: int) -> Path:
    from export_bench import _train_sample_run

    from workbench.engine.export import export_run

    project, run = _train_sample_run(root, size, steps)
    out = root / "bundle"
    export_run(project, run, out, formats=["static"], evaluate=False, check_script=False, parity_rows=4)
    return out


def _inputs(n: int) -> list[str]:
    import pandas as pd

    from workbench.core.templates import TemplateCatalog

    df = pd.read_csv(TemplateCatalog().get("finance_sentiment").sample_path, dtype=str, keep_default_na=False)
    texts = list(df.iloc[:, 0])
    return [texts[i % len(texts)] for i in range(n)]


BATCH_SCRIPT = r"""
import json, sys, time
sys.path.insert(0, ".")
from bundle_runtime import Predictor
inputs, batch_size, repeat = json.loads(sys.stdin.read())
pred = Predictor(".", device="cpu")
pred.classify(inputs[:batch_size], batch_size=batch_size)  # warm-up
best = float("inf")
for _ in range(repeat):
    t = time.perf_counter()
    pred.classify(inputs, batch_size=batch_size)
    best = min(best, time.perf_counter() - t)
print(len(inputs) / best)
"""


def _predict_py_throughput(bundle: Path, inputs: list[str], batch_size: int, repeat: int) -> float:
    """predict.py's batch path (``Predictor.classify`` at its batch size) in a fresh process of its
    own, as predict.py runs, so that nothing this process loaded competes with it."""
    r = subprocess.run([sys.executable, "-c", BATCH_SCRIPT], cwd=bundle, input=json.dumps([inputs, batch_size, repeat]),
                       capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        raise SystemExit(f"the batch measurement failed: {r.stderr[-800:]}")
    return float(r.stdout.strip().splitlines()[-1])


def _load(port: int, inputs: list[str], clients: int, per_request: int) -> dict:
    chunks = [inputs[i:i + per_request] for i in range(0, len(inputs), per_request)]
    lock, cursor = threading.Lock(), [0]
    times, errors = [], []

    def client(_):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        while True:
            with lock:
                if cursor[0] >= len(chunks):
                    break
                chunk = chunks[cursor[0]]
                cursor[0] += 1
            body = json.dumps({"inputs": chunk}, ensure_ascii=False).encode()
            t = time.perf_counter()
            try:
                conn.request("POST", "/predict", body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
                ok = resp.status == 200 and len(json.loads(data)["predictions"]) == len(chunk)
            except Exception as exc:  # counted, and the connection renewed
                ok = False
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
                data = repr(exc).encode()
            dt = time.perf_counter() - t
            with lock:
                (times if ok else errors).append(dt if ok else data[:200])
        conn.close()

    t = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    wall = time.perf_counter() - t
    times.sort()
    return {"requests": len(times) + len(errors), "errors": len(errors), "wall_s": wall,
            "requests_per_s": (len(times) + len(errors)) / wall, "samples_per_s": len(inputs) / wall,
            "p50_ms": statistics.median(times) * 1000 if times else float("nan"),
            "p99_ms": times[min(len(times) - 1, int(0.99 * len(times)))] * 1000 if times else float("nan"),
            "first_error": errors[0] if errors else None}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bundle", help="an exported classification bundle (default: train and export one)")
    p.add_argument("--size", default="tiny", choices=["tiny", "small"])
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--samples", type=int, default=512)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
        bundle = Path(args.bundle) if args.bundle else _make_bundle(Path(tmp), args.size, args.steps)
        if json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))["task"] != "classification":
            raise SystemExit("serve_bench measures a classification bundle")
        inputs = _inputs(args.samples)
        before = _predict_py_throughput(bundle, inputs, args.batch_size, args.repeat)
        proc = subprocess.Popen([sys.executable, "serve.py", "--port", "0", "--quiet", "--device", "cpu",
                                 "--workers", str(args.workers), "--batch-size", str(args.batch_size),
                                 "--max-batch", "64"], cwd=bundle, stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stderr.readline()
            m = re.search(r"127\.0\.0\.1:(\d+)", line)
            if not m:
                raise SystemExit(f"serve.py did not start: {line}{proc.stderr.read()}")
            port = int(m.group(1))
            _load(port, inputs[:64], args.clients, 1)  # warm-up
            runs = {n: _load(port, inputs, args.clients, n) for n in (1, 8)}
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        # measured before and after the service, the better of the two: the machine may be shared
        base = max(before, _predict_py_throughput(bundle, inputs, args.batch_size, args.repeat))

    print(f"bundle {bundle if args.bundle else f'builtin:{args.size} (sample data)'}, {len(inputs)} inputs, "
          f"{args.clients} clients, {args.workers} worker(s), predictor batch {args.batch_size}")
    print(f"  predict.py batch path     {base:9.1f} samples/s")
    for n, r in runs.items():
        print(f"  serve.py, {n} input(s)/req  {r['samples_per_s']:9.1f} samples/s  {r['requests_per_s']:8.1f} req/s  "
              f"p50 {r['p50_ms']:7.1f} ms  p99 {r['p99_ms']:7.1f} ms  errors {r['errors']}"
              f"  ratio {r['samples_per_s'] / base:.2f}")
        if r["first_error"]:
            print(f"    first error: {r['first_error']}")
    ok = all(r["errors"] == 0 for r in runs.values())
    print(f"target: service >= 0.8x predict.py (1 input per request): "
          f"{'met' if runs[1]['samples_per_s'] / base >= 0.8 and ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
