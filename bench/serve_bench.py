"""The bundle's HTTP service against predict.py's own batch throughput, in one run.

For each classification bundle, on the same inputs, side by side. The inputs are the texts
the model is for: the test split of the bundle's project (the bench's own bundles, or a
bundle exported into a project's exports/ folder), else the text column of its template's
sample data; each request sends them as the bundle's fields.

* predict.py's batch path: the bundle's ``Predictor.classify`` over all inputs at the
  predictor batch size (what ``predict.py --input FILE`` does after loading), in a fresh
  process, in samples per second, with its default threads and with ``--threads 1``;
  measured before and after the service; the best of all four is the baseline;
* serve.py started on 127.0.0.1 with the same predictor batch size, loaded for --seconds
  (sustained: counted from the moment every client has had its first answer) by --clients
  concurrent keep-alive clients (aiohttp's client in this process) at 1, 8 and 32 inputs
  per request: requests per second, samples per second, p50 and p99 latency, errors, the
  ratio to predict.py, and the CPU milliseconds the service and the clients spent on each
  request sent (where the cores went).

Two models: the built-in classifier (character n-grams, ~0.13 ms a sample: the HTTP round
trip costs more than the model) and a tiny Llama-family decoder of the test fixtures
trained as a classifier (a few ms a sample: the model dominates). The clients run on the
same cores as the service; the first line says how many there are.

Target: the service's samples per second at least 0.8x predict.py's at 1 input per request.

    python bench/serve_bench.py                          # both models, trained and exported here
    python bench/serve_bench.py --models builtin         # the built-in classifier only
    python bench/serve_bench.py --bundle DIR             # an exported classification bundle
    python bench/serve_bench.py --workers 1 2 --clients 16 64
    python bench/serve_bench.py --seconds 30             # longer measurements
    python bench/serve_bench.py --smoke                  # the built-in classifier, 1 s loads, 4 clients
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
SAMPLES = {"builtin": 2048, "llama": 256}  # inputs of predict.py's batch measurement


def _make_bundle(root: Path, model: str) -> tuple[Path, Path]:
    """``builtin``: the built-in tiny classifier; ``llama``: the tests' tiny random Llama
    folder (2 layers of 64) fine-tuned a few steps as a classifier."""
    from workbench.engine.export.bundle import export_run

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
    return out, project


def _bundle_texts(bundle: Path, info: dict, project: Path | None = None) -> tuple[list, str]:
    """The inputs a request sends, each a text (a one-field bundle) or an object of the bundle's
    fields, and where they came from: the project's test split, else the template's sample."""
    import pandas as pd

    from workbench.core.project import Project
    from workbench.core.templates import TemplateCatalog

    fields = info["fields"]
    if project is None:  # a bundle exported into <project>/exports/<name>
        project = next((p for p in bundle.resolve().parents if (p / "project.json").is_file()), None)
    rows, source = [], ""
    if project is not None:
        test = Project.open(project).split_path("test")
        if test.is_file():
            with open(test, encoding="utf-8") as fh:
                rows = [json.loads(line) for line in fh if line.strip()]
            source = f"the test split of project {project.name} ({len(rows)} rows)"
    if not rows:
        try:
            template = TemplateCatalog().get(info["template"])
        except Exception as exc:
            raise SystemExit(f"no texts for this bundle: it is not in a project folder with a test split, and its "
                             f"template {info.get('template')!r} is not installed here ({exc})") from None
        df = pd.read_csv(template.sample_path, dtype=str, keep_default_na=False)
        rows = df.rename(columns={template.columns[f]: f for f in fields if f in template.columns}).to_dict("records")
        source = f"the text column(s) of template {template.id}'s sample ({len(rows)} rows)"
    missing = [f for f in fields if f not in rows[0]]
    if missing:
        raise SystemExit(f"the texts have no {', '.join(missing)} field for this bundle")
    inputs = [r[fields[0]] if len(fields) == 1 else {f: r[f] for f in fields} for r in rows]
    inputs = [x for x in inputs if (x if isinstance(x, str) else "".join(x.values())).strip()]
    return inputs, source


def _cycle(items: list, n: int) -> list:
    return [items[i % len(items)] for i in range(n)]


def _text_length(inputs: list) -> float:
    return statistics.mean(len(x) if isinstance(x, str) else sum(len(v) for v in x.values()) for x in inputs)


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


def _predict_py_throughput(bundle: Path, inputs: list, batch_size: int, repeat: int) -> dict:
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


def _load(port: int, inputs: list, clients: int, per_request: int, seconds: float) -> dict:
    """``clients`` concurrent keep-alive connections, each sending the next ``per_request``
    inputs (round the list) as soon as its last answer came; each answer checked (status
    200, one prediction per input). Measured in the steady state: the window of ``seconds``
    opens once every client has had an answer (the queue is as full as it gets) and counts
    the answers that arrive in it; the requests still out at its end are answered, not counted."""
    import aiohttp

    times, errors, counted, position = [], [], [0], [0]
    window, ready, sent = [None], [0], [0]
    url = f"http://127.0.0.1:{port}/predict"

    async def client(session):
        first = True
        while window[0] is None or time.perf_counter() < window[0] + seconds:
            start = position[0]
            position[0] = (start + per_request) % len(inputs)
            chunk = [inputs[(start + i) % len(inputs)] for i in range(per_request)]
            t = time.perf_counter()
            sent[0] += 1
            try:
                async with session.post(url, json={"inputs": chunk}) as resp:
                    data = await resp.read()
                ok = resp.status == 200 and len(json.loads(data)["predictions"]) == len(chunk)
            except Exception as exc:  # counted
                ok, data = False, repr(exc).encode()
            now = time.perf_counter()
            if not ok:
                errors.append(data[:200])
            elif window[0] is not None and now <= window[0] + seconds:
                times.append(now - t)
                counted[0] += len(chunk)
            if first:
                first, ready[0] = False, ready[0] + 1
                if ready[0] == clients:
                    window[0] = now

    async def run():
        connector = aiohttp.TCPConnector(limit=clients)
        async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=600)) as session:
            await asyncio.gather(*(client(session) for _ in range(clients)))

    asyncio.run(run())
    times.sort()
    return {"requests": sent[0], "errors": len(errors), "requests_per_s": len(times) / seconds,
            "samples_per_s": counted[0] / seconds,
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


def _serve_runs(bundle: Path, inputs: list, clients: int, workers: int, batch_size: int, seconds: float,
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
        runs = {}
        for n in per_request:
            served, own = _cpu_s([proc.pid]), _self_cpu_s()
            runs[n] = _load(port, inputs, clients, n, seconds)
            runs[n]["service_cpu_s"] = _cpu_s([proc.pid]) - served
            runs[n]["clients_cpu_s"] = _self_cpu_s() - own
        return runs
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _report(name: str, batch: dict, runs_by: dict, batch_size: int, seconds: float) -> list[str]:
    """``runs_by``: {(workers, clients): {inputs per request: measurement}}."""
    threads, base = max(batch.items(), key=lambda kv: kv[1])
    lines = [f"{name}: predictor batch {batch_size}; each service load sustained {seconds:g} s",
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
    p.add_argument("--seconds", type=float, default=10.0, help="how long each service load lasts (default 10)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--smoke", action="store_true", help="tiny sizes, the same code paths (the tests run it)")
    args = p.parse_args(argv)
    per_request = PER_REQUEST
    if args.smoke:
        args.models, args.samples, args.clients, args.workers, args.repeat = ["builtin"], 32, [4], [1], 1
        args.seconds, per_request = 1.0, (1, 8)
    errors = 0

    out = [f"machine: {os.cpu_count()} CPU cores, shared by the service, its clients (this process) "
           f"and whatever else runs (load average {os.getloadavg()[0]:.1f} at the start)"]
    with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
        targets = ([("bundle " + args.bundle, (Path(args.bundle), None), args.samples or SAMPLES["builtin"])]
                   if args.bundle else [(m, _make_bundle(Path(tmp) / m, m), args.samples or SAMPLES[m])
                                        for m in args.models])
        for name, (bundle, project), n in targets:
            info = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
            if info["task"] != "classification":
                raise SystemExit("serve_bench measures a classification bundle")
            if not args.bundle:
                name = ("built-in classifier (builtin:tiny)" if name == "builtin"
                        else "tiny Llama decoder as a classifier (the tests' model folder)")
            texts, source = _bundle_texts(bundle, info, project)
            out.append(f"inputs for {name}: {source}, {_text_length(texts):.0f} characters on average")
            inputs = _cycle(texts, n)
            before = _predict_py_throughput(bundle, inputs, args.batch_size, args.repeat)
            runs_by = {(w, c): _serve_runs(bundle, texts, c, w, args.batch_size, args.seconds, per_request)
                       for w in args.workers for c in args.clients}
            errors += sum(r["errors"] for runs in runs_by.values() for r in runs.values())
            # the better of before and after: the machine may be shared
            after = before if args.smoke else _predict_py_throughput(bundle, inputs, args.batch_size, args.repeat)
            batch = {k: max(before[k], after[k]) for k in before}
            out += _report(f"{name}, batch path over {n} inputs", batch, runs_by, args.batch_size, args.seconds)
            print("\n".join(out), flush=True)
            out = []
    if args.smoke and errors:  # a figure is a measurement only when every answer came back right
        print(f"{errors} request(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
