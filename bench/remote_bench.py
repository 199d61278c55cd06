"""Runs on a server over SSH, measured: the mirror's latency, and a run's wall time through a
target against the same run started here, side by side in one run.

    python bench/remote_bench.py [--smoke] [--steps N] [--lines N]

The server is OpenSSH's own sshd started on 127.0.0.1 for the bench (the tests' server), so
both runs share this machine's CPU: the difference is what the SSH path costs (upload, the
detached start, the mirror), not a faster computer.

* latency: lines appended to a run's events.jsonl on the server, one every 50 ms, and the time
  each appears in the local mirror (median and p99; target <= 1 s);
* overhead: the built-in model trained for the same steps locally and through the target,
  from the start call to the ``end`` event in the local folder (target: <= 5 % beyond the
  upload).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the tests' sshd on 127.0.0.1


def _project(tmp: Path):
    import pandas as pd

    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    t = TemplateCatalog().get("finance_service_qa")
    src = tmp / "rows.csv"
    pd.read_csv(t.sample_path, dtype=str, keep_default_na=False).head(200).to_csv(src, index=False)
    project, _ = prepare(t, src, tmp / "project")
    return project


def _job(project, steps: int):
    from workbench.core.operations import runs as run_operations

    return run_operations.build_job(project, "builtin:tiny", "full", max_steps=steps, batch_size=8, max_length=96,
                         learning_rate=3e-3, logging_steps=5, eval_steps=steps, save_steps=steps, seed=7)


def _ended(run_dir: Path) -> bool:
    from workbench.core.runs import read_events

    events = read_events(run_dir)
    return bool(events) and events[-1].get("event") == "end"


def latency(project, lines: int) -> list[float]:
    """Seconds from a line written on the server to the same line in the local mirror."""
    from workbench.core import remote
    from workbench.core.jobs import new_run_id, write_job
    from workbench.core.runs import EVENTS_FILE, REMOTE_FILE

    run_dir = project.runs_dir / new_run_id("latency")
    write_job(run_dir, _job(project, 1))
    info = remote.RemoteRun(target="bench", project=str(project.root) + "-server", run=f"runs/{run_dir.name}")
    server_events = Path(info.project) / info.run / EVENTS_FILE
    server_events.parent.mkdir(parents=True, exist_ok=True)
    server_events.write_text("")
    (run_dir / REMOTE_FILE).write_text(json.dumps({**info.to_dict(), "server_status": "running"}))
    mirror = remote.Mirror(run_dir).start()
    local = run_dir / EVENTS_FILE
    delays = []
    time.sleep(1.0)  # the connection is up
    for i in range(lines):
        end = i == lines - 1
        with open(server_events, "a", encoding="utf-8") as fh:  # the worker's own way: a line, flushed
            fh.write(json.dumps({"v": 1, "event": "end" if end else "log", "i": i, "status": "completed"}) + "\n")
        written = time.perf_counter()
        while not local.exists() or local.read_bytes().count(b"\n") < i + 1:
            time.sleep(0.002)
        delays.append(time.perf_counter() - written)
        time.sleep(0.05)
    mirror.close()
    return delays


def wall(project, steps: int, on: str | None) -> tuple[float, float]:
    """``(seconds to the end event, seconds of them spent before the worker started)``."""
    from workbench.core.operations import runs as run_operations

    t0 = time.perf_counter()
    started = run_operations.start_run(project, _job(project, steps), detach=False, on=on)
    launched = time.perf_counter() - t0
    while not _ended(started.run_dir):
        time.sleep(0.02)
    took = time.perf_counter() - t0
    if on:
        started.proc.close()
    else:
        started.proc.wait()
    return took, launched


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="a few lines and steps")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    steps, lines = (10, 20) if args.smoke else (args.steps, args.lines)
    args.repeats = 1 if args.smoke else args.repeats

    from sshd_factory import SSHD, start_sshd

    if SSHD is None:
        print("OpenSSH's sshd is not installed: nothing to measure")
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="remote-bench-"))
    os.environ["WORKBENCH_HOME"] = str(tmp / "home")
    from workbench.core.targets import add_target

    server = start_sshd(tmp / "sshd")
    try:
        add_target("bench", server.url, ssh_config=str(server.config), python=sys.executable,
                   workdir=str(tmp / "server"))
        project = _project(tmp)
        delays = sorted(latency(project, lines))
        p99 = delays[min(len(delays) - 1, int(round(0.99 * (len(delays) - 1))))]
        print(f"mirror latency over {len(delays)} lines: median {statistics.median(delays) * 1000:.0f} ms, "
              f"p99 {p99 * 1000:.0f} ms (target <= 1000 ms)")
        here, there, launched = [], [], []
        for _ in range(args.repeats):  # alternating, so a change in the machine's load hits both
            here.append(wall(project, steps, None)[0])
            took, up = wall(project, steps, "bench")
            there.append(took)
            launched.append(up)
        local_s, remote_s, launch_s = (statistics.median(x) for x in (here, there, launched))
        print(f"run of builtin:tiny, {steps} steps, medians of {args.repeats}: here {local_s:.1f} s, through the "
              f"target {remote_s:.1f} s, of which upload and start {launch_s:.1f} s")
        beyond = (remote_s - launch_s) / max(local_s, 1e-9)
        print(f"ratio target / here beyond the upload: {beyond:.3f} (target <= 1.05)")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
