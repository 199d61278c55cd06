"""How far off are a run's time estimates? Side by side, in one run, on the sample templates.

For each template its sample data is prepared and trained with the recommended settings
through the real worker (``workbench train --json``), within the time budget. Each run's
timing record (core/timing.py, the run folder's timing.json) holds the estimate the
recommendation gave before anything ran, the first estimate measured from the run's own
steps and the actual time; printed here as ratios to the actual time, and the measured
pace alone on the steps the run really took (early stopping ends most sample runs before
their length, which no projection knows). Targets, per sample: the start estimate within 30 %
of the actual time (it counts the epochs early stopping is expected to leave), and the measured
pace within 30 % of it. Both are figures of an idle machine: another job on the same cores slows
the run and not the estimate made before it.

    python bench/estimate_bench.py [--templates ID ...] [--base-model builtin:small]
        [--time-budget MIN] [--json]
    python bench/estimate_bench.py --smoke     # one sample, builtin:tiny, a 1-minute budget
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.project import prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.core.timing import read_timing  # noqa: E402

TARGET = 0.30
SAMPLES = ["finance_sentiment", "medical_triage", "legal_case_type", "legal_case_type_multi", "legal_consult_qa"]


def train(root: Path, base_model: str, budget_min: float) -> dict:
    res = subprocess.run([sys.executable, "-m", "workbench", "train", "--project", str(root), "--base-model",
                          base_model, "--time-budget", f"{budget_min:g}", "--json"],
                         capture_output=True, text=True, timeout=int(budget_min * 60 * 3 + 600),
                         stdin=subprocess.DEVNULL)
    if res.returncode != 0:
        raise SystemExit(f"training {root.name} failed:\n{res.stderr[-2000:]}")
    first = json.loads(res.stdout.splitlines()[0])
    end = json.loads(res.stdout.strip().splitlines()[-1])
    timing = read_timing(root / "runs" / first["run"]) or {}
    return {"template": root.name, "status": end.get("status"), "cpu_s": end.get("cpu_seconds"), **timing}


def ratio(entry: dict | None) -> float | None:
    return (entry or {}).get("ratio_to_actual")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--templates", nargs="+", default=SAMPLES)
    ap.add_argument("--base-model", default="builtin:small")
    ap.add_argument("--time-budget", type=float, default=10.0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.smoke:
        args.templates, args.base_model, args.time_budget = ["finance_sentiment"], "builtin:tiny", 1.0
    catalog = TemplateCatalog()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for tid in args.templates:
            t = catalog.get(tid)
            root = Path(tmp) / tid
            prepare(t, t.sample_path, root)
            rows.append(train(root, args.base_model, args.time_budget))
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return 0
    print(f"base model {args.base_model}, time budget {args.time_budget:g} min; ratios estimate / actual")
    if load is not None:  # another job on these cores slows the runs, not their estimates
        print(f"machine load before the runs: {load:.2f} (1-minute average) on {os.cpu_count()} cores")
    print(f"{'template':<24}{'actual s':>9}{'cpu s':>8}{'steps':>11}{'at start':>10}{'range':>14}"
          f"{'measured':>10}{'pace':>7}{'at step':>9}  start within {TARGET:.0%}  budget reached")
    within, start_within = [], []
    for r in rows:
        start, first = ratio(r.get("estimate_at_start")), ratio(r.get("first_measured"))
        actual = r.get("actual_s") or 0
        est = r.get("estimate_at_start") or {}
        span = (f"{est['low'] / actual:.2f}-{est['high'] / actual:.2f}" if actual > 0 and est else "-")
        pace = (r.get("first_measured") or {}).get("pace_ratio_to_actual")
        at = (r.get("first_measured") or {}).get("step")
        steps = f"{r.get('steps')}/{r.get('total_steps')}"
        met = start is not None and abs(start - 1.0) <= TARGET
        print(f"{r['template']:<24}{actual:>9.1f}{r.get('cpu_s') or 0:>8.1f}{steps:>11}"
              f"{start if start is not None else '-':>10}{span:>14}{first if first is not None else '-':>10}"
              f"{pace if pace is not None else '-':>7}"
              f"{at if at is not None else '-':>9}  {'yes' if met else 'NO':<{len(f'start within {TARGET:.0%}')}}"
              f"  {bool(r.get('budget_reached'))}")
        start_within.append(met)
        if pace is not None:
            within.append(abs(pace - 1.0) <= TARGET)
    print(f"start estimate within {TARGET:.0%} of the actual time: {sum(start_within)} of {len(rows)} runs")
    print(f"first measured estimate within {TARGET:.0%} of the actual time: {sum(within)} of {len(rows)} runs "
          "(its pace, on the steps run)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
