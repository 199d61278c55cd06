"""The bundle's HTTP service against predict.py's own batch throughput, in one run.

For each classification bundle, on the same inputs (texts of the finance_sentiment sample),
side by side:

* predict.py's batch path: the bundle's ``Predictor.classify`` over all inputs at the
  predictor batch size (what ``predict.py --input FILE`` does after loading), in a fresh
  process, in samples per second, with its default threads and with ``--threads 1``;
  measured before and after the service; the best of all four is the baseline;
* serve.py started on 127.0.0.1 with the same predictor batch size, loaded by --clients
  concurrent keep-alive clients (aiohttp's client in this process) at 1, 8 and 32 inputs
  per request: requests per second, samples per second, p50 and p99 latency, errors, the
  ratio to predict.py, and the CPU milliseconds the service and the clients spent on each
  request (where the cores went).

Two models: the built-in classifier (character n-grams, ~0.13 ms a sample: the HTTP round
trip costs more than the model) and a tiny Llama-family decoder of the test fixtures
trained as a classifier (a few ms a sample: the model dominates). The clients run on the
same cores as the service; the first line says how many there are.

Target: the service's samples per second at least 0.8x predict.py's at 1 input per request.

    python bench/serve_bench.py                          # both models, trained and exported here
    python bench/serve_bench.py --models builtin         # the built-in classifier only
    python bench/serve_bench.py --bundle DIR             # an exported classification bundle
    python bench/serve_bench.py --workers 1 2 --clients 16 64
    python bench/serve_bench.py --smoke                  # the built-in classifier, 32 inputs, 4 clients
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

PER_REQUEST = (1, 8, 32)
SAMPLES = {"builtin": 2048, "llama": 256}  # a few seconds of load each


def _make_bundle(root: Path, model: str) -> Path:
    """``builtin``: the built-in tiny classifier; ``llama``: the tests' tiny random Llama
    folder (2 layers of 64) fine-tuned a few steps as a classifier."""
    from workbench.engine.export import export_run

    root.mkdir(parents=True, exist_ok=True)
    if model == "llama":
        sys.path.insert(0, str(ROOT / "tests"))
        from model_factory import make_model_folder

        base = str(make_model_folder("llama", root / "llama-base"))
    else:
        base = "builtin:tiny"
    from export_bench import _train_sample_run

    project, run = _train_sample_run(root, base, steps=4)
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
inputs, batch_size, repeat, threads = json.loads(sys.stdin.read())
pred = Predictor(".", device="cpu", threads=threads)
pred.classify(inputs[:batch_size], batch_size=batch_size)  # warm-up
best = float("inf")
for _ in range(repeat):
    t = time.perf_counter()
    pred.classify(inputs, batch_size=batch_size)
    best = min(best, time.perf_counter() - t)
print(len(inputs) / best)
"""


def _predict_py_throughput(bundle: Path, inputs: list[str], batch_size: int, repeat: int) -> dict:
    """predict.py's batch path (``Predictor.classify`` at its batch size) in a fresh process of its
    own, as predict.py runs, so that nothing this process loaded competes with it: with its default
    threads (all cores) and with ``--threads 1`` (faster where another process holds a core)."""
    out = {}
    for threads in (None, 1):
        r = subprocess.run([sys.executable, "-c", BATCH_SCRIPT], cwd=bundle,
                           input=json.dumps([inputs, batch_size, repeat, threads]), capture_output=True, text=True,
                           timeout=1800)
        if r.returncode != 0:
            raise SystemExit(f"the batch measurement failed: {r.stderr[-800:]}")
        out[threads or os.cpu_count()] = float(r.stdout.strip().splitlines()[-1])
    return out


def _load(port: int, inputs: list[str], clients: int, per_request: int) -> dict:
    """``clients`` concurrent keep-alive connections sending the inputs ``per_request`` at a
    time; each answer checked (status 200, one prediction per input)."""
    import aiohttp

    chunks = [inputs[i:i + per_request] for i in range(0, len(inputs), per_request)]
    chunks.reverse()  # popped from the end: sent in order
    times, errors = [], []
    url = f"http://127.0.0.1:{port}/predict"

    async def client(session):
        while chunks:
            chunk = chunks.pop()
            t = time.perf_counter()
            try:
                async with session.post(url, json={"inputs": chunk}) as resp:
                    data = await resp.read()
                ok = resp.status == 200 and len(json.loads(data)["predictions"]) == len(chunk)
            except Exception as exc:  # counted
                ok, data = False, repr(exc).encode()
            (times if ok else errors).append(time.perf_counter() - t if ok else data[:200])

    async def run():
        connector = aiohttp.TCPConnector(limit=clients)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=300)) as session:
            await asyncio.gather(*(client(session) for _ in range(clients)))

    n_requests = len(chunks)
    t = time.perf_counter()
    asyncio.run(run())
    wall = time.perf_counter() - t
    times.sort()
    return {"requests": n_requests, "errors": len(errors), "wall_s": wall,
            "requests_per_s": n_requests / wall, "samples_per_s": len(inputs) / wall,
            "p50_ms": statistics.median(times) * 1000 if times else float("nan"),
            "p99_ms": times[min(len(times) - 1, int(0.99 * len(times)))] * 1000 if times else float("nan"),
            "first_error": errors[0] if errors else None}


def _cpu_s(pids: list[int]) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            for p in [proc] + proc.children(recursive=True):
                c = p.cpu_times()
                total += c.user + c.system
        except psutil.NoSuchProcess:
            pass
    return total


def _self_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _serve_runs(bundle: Path, inputs: list[str], clients: int, workers: int, batch_size: int,
                per_request: tuple[int, ...] = PER_REQUEST) -> dict:
    proc = subprocess.Popen([sys.executable, "serve.py", "--port", "0", "--quiet", "--device", "cpu",
                             "--workers", str(workers), "--batch-size", str(batch_size), "--max-batch", "64"],
                            cwd=bundle, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"127\.0\.0\.1:(\d+)", line)
        if not m:
            raise SystemExit(f"serve.py did not start: {line}{proc.stderr.read()}")
        port = int(m.group(1))
        _load(port, inputs[:256], clients, 1)  # warm-up
        runs = {}
        for n in per_request:
            served, own = _cpu_s([proc.pid]), _self_cpu_s()
            runs[n] = _load(port, inputs, clients, n)
            runs[n]["service_cpu_s"] = _cpu_s([proc.pid]) - served
            runs[n]["clients_cpu_s"] = _self_cpu_s() - own
        return runs
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _report(name: str, batch: dict, runs_by: dict, batch_size: int) -> list[str]:
    """``runs_by``: {(workers, clients): {inputs per request: measurement}}."""
    threads, base = max(batch.items(), key=lambda kv: kv[1])
    lines = [f"{name}: predictor batch {batch_size}",
             f"  predict.py batch path {base:9.1f} samples/s ({1000 / base:.2f} ms a sample; the best of "
             + ", ".join(f"{v:.0f} with {k} thread(s)" for k, v in batch.items()) + ", each the best of before and "
             "after the service)",
             "  workers  clients  inputs/req      req/s  samples/s   p50 ms   p99 ms  errors  ratio  "
             "CPU-ms a request service/clients"]
    verdicts = []
    for (workers, clients), runs in runs_by.items():
        for n, r in runs.items():
            ratio = r["samples_per_s"] / base
            lines.append(f"  {workers:7d}  {clients:7d}  {n:10d}  {r['requests_per_s']:9.1f}  {r['samples_per_s']:9.1f}  "
                         f"{r['p50_ms']:7.1f}  {r['p99_ms']:7.1f}  {r['errors']:6d}  {ratio:5.2f}  "
                         f"{r['service_cpu_s'] / r['requests'] * 1000:.2f} / "
                         f"{r['clients_cpu_s'] / r['requests'] * 1000:.2f}")
            if r["first_error"]:
                lines.append(f"    first error: {r['first_error']}")
            verdicts.append((workers, clients, n, ratio >= 0.8 and r["errors"] == 0, ratio))
    for key in runs_by:
        met = [f"{n}: {'met' if ok else 'NOT met'} ({ratio:.2f})" for w, c, n, ok, ratio in verdicts if (w, c) == key]
        lines.append(f"  target service >= 0.8x predict.py, {key[0]} worker(s), {key[1]} clients, by inputs per "
                     "request: " + ", ".join(met))
    return lines


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bundle", help="an exported classification bundle (default: train and export the models)")
    p.add_argument("--models", nargs="+", default=["builtin", "llama"], choices=["builtin", "llama"])
    p.add_argument("--samples", type=int, help="inputs per measurement (default: 2048 builtin, 256 llama)")
    p.add_argument("--clients", type=int, nargs="+", default=[16], help="concurrent clients, one or more values")
    p.add_argument("--workers", type=int, nargs="+", default=[1], help="serve.py --workers values to measure")
    p.add_argument("--batch-size", type=int, default=8, help="predictor batch, for predict.py and serve.py alike")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="tiny sizes, the same code paths (the tests run it)")
    args = p.parse_args(argv)
    per_request = PER_REQUEST
    if args.smoke:
        args.models, args.samples, args.clients, args.workers, args.repeat = ["builtin"], 32, [4], [1], 1
        per_request = (1, 8)
    errors = 0

    out = [f"machine: {os.cpu_count()} CPU cores, shared by the service, its clients (this process) "
           f"and whatever else runs (load average {os.getloadavg()[0]:.1f} at the start)"]
    with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
        targets = ([("bundle " + args.bundle, Path(args.bundle), args.samples or SAMPLES["builtin"])] if args.bundle
                   else [(m, _make_bundle(Path(tmp) / m, m), args.samples or SAMPLES[m]) for m in args.models])
        for name, bundle, n in targets:
            info = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
            if info["task"] != "classification":
                raise SystemExit("serve_bench measures a classification bundle")
            if not args.bundle:
                name = ("built-in classifier (builtin:tiny)" if name == "builtin"
                        else "tiny Llama decoder as a classifier (the tests' model folder)")
            inputs = _inputs(n)
            before = _predict_py_throughput(bundle, inputs, args.batch_size, args.repeat)
            runs_by = {(w, c): _serve_runs(bundle, inputs, c, w, args.batch_size, per_request)
                       for w in args.workers for c in args.clients}
            errors += sum(r["errors"] for runs in runs_by.values() for r in runs.values())
            # the better of before and after: the machine may be shared
            after = before if args.smoke else _predict_py_throughput(bundle, inputs, args.batch_size, args.repeat)
            batch = {k: max(before[k], after[k]) for k in before}
            out += _report(f"{name}, {n} inputs", batch, runs_by, args.batch_size)
            print("\n".join(out), flush=True)
            out = []
    if args.smoke and errors:  # a figure is a measurement only when every answer came back right
        print(f"{errors} request(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
