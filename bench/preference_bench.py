"""Does preference tuning on a person's judgements move a model towards the answers they prefer?

On a real Chinese Q&A file, through the real commands: prepares the file with a Q&A template,
trains an instruction run (``workbench train``), samples two answers per training question from
it (``workbench feedback pairs``), records a judgement for each pair, trains a DPO adapter on top
of the run (``workbench train --method dpo --from-run``), and evaluates both runs on the same test
rows (``workbench eval``).

The judgements are SYNTHETIC, not a person's: of the two answers, the one with the higher
ROUGE-L against the row's reference answer is chosen (equal scores: a tie, which trains nothing).
So the bench measures whether DPO learns a preference that is there to learn, and whether learning
it moves greedy answers towards the references.

Prints, for the held-out pairs (a seeded fifth of them or more): the implicit-reward preference
accuracy before (0.5: every reward is 0 before training) and after, and the share where the model's
likelihood prefers the chosen answer before and after; for the test rows: ROUGE-L of the run and
of the DPO run against the references; the time of each stage (wall and the worker's CPU seconds).

    python bench/preference_bench.py --input FILE [--template medical_qa] [--mapping ROLE=COLUMN ...]
        [--rows N] [--base-model builtin:small|MODEL] [--sft-minutes M] [--pairs N] [--dpo-minutes M]
        [--dpo-loss sigmoid] [--eval-rows N] [--project DIR] [--json]
    python bench/preference_bench.py --smoke   # the medical_qa sample, builtin:tiny, a few steps
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.commands import last_json, wb  # noqa: E402
from workbench.core.project import SplitSettings, prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402




def check(res: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    if res.returncode != 0:
        raise SystemExit(f"{what} failed ({res.returncode}):\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}")
    return res


def train(project: Path, *args) -> tuple[str, dict, float]:
    """A run through the worker: its id, its end event and the wall seconds."""
    t0 = time.perf_counter()
    res = check(wb("train", "--project", project, *args, "--json"), "training")
    wall = time.perf_counter() - t0
    events = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    end = [e for e in events if e.get("event") == "end"][-1]
    if end["status"] != "completed":
        raise SystemExit(f"the run ended {end['status']}: {end.get('error')}")
    return events[0]["run"], end, wall


def rouge_of(project: Path, run: str, rows: int, max_new_tokens: int) -> tuple[float, float]:
    t0 = time.perf_counter()
    res = check(wb("eval", "--project", project, "--run", run, "--rows", rows, "--no-compare-base",
                   "--max-new-tokens", max_new_tokens, "--json"), "evaluation")
    return float(last_json(res.stdout)["metrics"]["rouge_l"]), time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--input", help="a Q&A file (any format 'workbench data prepare' reads)")
    p.add_argument("--template", default="medical_qa")
    p.add_argument("--mapping", nargs="*", default=[], metavar="ROLE=COLUMN")
    p.add_argument("--rows", type=int, default=2000, help="rows of the file to use (the first N)")
    p.add_argument("--base-model", default="builtin:small")
    p.add_argument("--sft-minutes", type=float, default=10.0)
    p.add_argument("--pairs", type=int, default=200, help="training questions to sample two answers for")
    p.add_argument("--dpo-minutes", type=float, default=10.0)
    p.add_argument("--dpo-loss", default="sigmoid")
    p.add_argument("--dpo-steps", type=int, help="fix the DPO run's steps instead of the recommendation")
    p.add_argument("--learning-rate", type=float, help="the DPO run's learning rate (default: recommended)")
    p.add_argument("--eval-rows", type=int, default=100)
    p.add_argument("--max-new-tokens", type=int, default=96)
    p.add_argument("--project", help="folder for the project (default: a temporary one)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    template = TemplateCatalog().get(args.template)
    sft_args: list = ["--time-budget", args.sft_minutes]
    if args.smoke:
        args.input, args.rows, args.base_model = str(template.sample_path), 10**6, "builtin:tiny"
        args.pairs, args.eval_rows, args.max_new_tokens = 12, 8, 16
        sft_args = ["--max-steps", 6, "--eval-steps", 6]
        args.dpo_steps = args.dpo_steps or 4
        args.learning_rate = args.learning_rate or 5e-3
    if not args.input:
        p.error("--input is required (or --smoke)")
    root = Path(args.project or tempfile.mkdtemp(prefix="preference-bench-")) / "project"
    src = Path(args.input)
    if args.rows:  # the first rows only: a CPU run over thousands of answers takes hours
        import pandas as pd

        from workbench.core.dataio import read_table

        df, _ = read_table(src, header=True)
        src = root.parent / f"first-{args.rows}.csv"
        root.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(df.head(args.rows)).to_csv(src, index=False)
    t0 = time.perf_counter()
    mapping = dict(m.split("=", 1) for m in args.mapping) or None
    project, _ = prepare(template, src, root, mapping=mapping, split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=0))
    prep_s = time.perf_counter() - t0
    splits = project.config.stats["splits"]

    sft, sft_end, sft_wall = train(root, "--base-model", args.base_model, *sft_args)
    t0 = time.perf_counter()
    res = check(wb("feedback", "pairs", "--project", root, "--run", sft, "--rows", args.pairs, "--split", "train",
                   "--max-new-tokens", args.max_new_tokens, "--json"), "sampling the pairs")
    pairs_s = time.perf_counter() - t0
    pairs = last_json(res.stdout)["pairs"]

    from workbench.engine.scoring import rouge_l

    lines, ties, identical = [], 0, 0
    for pair in pairs:  # the synthetic judge: the answer closer to the reference by ROUGE-L
        ra, rb = rouge_l(pair["a"], pair.get("reference")), rouge_l(pair["b"], pair.get("reference"))
        identical += bool(pair.get("identical"))
        choice = "a" if ra > rb else "b" if rb > ra else "tie"
        ties += choice == "tie"
        lines.append(json.dumps({"pair_id": pair["pair_id"], "choice": choice}))
    judged = root.parent / "judgements.jsonl"
    judged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    check(wb("feedback", "add", "--project", root, "--from", judged), "recording the judgements")

    dpo_args: list = ["--method", "dpo", "--from-run", sft, "--dpo-loss", args.dpo_loss,
                      "--time-budget", args.dpo_minutes]
    if args.dpo_steps:
        dpo_args += ["--max-steps", args.dpo_steps, "--eval-steps", max(1, args.dpo_steps // 2)]
    if args.learning_rate:
        dpo_args += ["--learning-rate", args.learning_rate]
    dpo, dpo_end, dpo_wall = train(root, *dpo_args)

    from workbench.core.operations.preference import run_report

    report = run_report(root, dpo)
    rouge_sft, eval_sft_s = rouge_of(root, sft, args.eval_rows, args.max_new_tokens)
    rouge_dpo, eval_dpo_s = rouge_of(root, dpo, args.eval_rows, args.max_new_tokens)
    before, after = report.get("before") or {}, report.get("after") or {}
    out = {"input": str(args.input), "rows": project.config.stats.get("rows_clean"), "splits": splits,
           "base_model": args.base_model, "sft_run": sft, "dpo_run": dpo, "pairs_sampled": len(pairs),
           "ties": ties, "identical": identical, "train_pairs": report.get("train_pairs"),
           "heldout_pairs": report.get("heldout_pairs"), "loss": report.get("loss"), "beta": report.get("beta"),
           "preference_accuracy_before": before.get("preference_accuracy"),
           "preference_accuracy_after": after.get("preference_accuracy"),
           "likelihood_accuracy_before": before.get("likelihood_accuracy"),
           "likelihood_accuracy_after": after.get("likelihood_accuracy"),
           "rouge_l_sft": rouge_sft, "rouge_l_dpo": rouge_dpo, "eval_rows": args.eval_rows,
           "prepare_s": round(prep_s, 1), "sft_wall_s": round(sft_wall, 1), "sft_cpu_s": sft_end.get("cpu_seconds"),
           "pairs_wall_s": round(pairs_s, 1), "dpo_wall_s": round(dpo_wall, 1), "dpo_cpu_s": dpo_end.get("cpu_seconds"),
           "dpo_peak_rss_mb": dpo_end.get("peak_rss_mb"), "eval_wall_s": round(eval_sft_s + eval_dpo_s, 1)}
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0
    print(f"{Path(args.input).name}: {out['rows']} rows, splits {splits}; run {sft} ({args.base_model}), "
          f"DPO run {dpo} ({out['loss']} loss, beta {out['beta']})")
    print(f"judgements (synthetic: the answer closer to the reference by ROUGE-L): {len(pairs)} pairs sampled, "
          f"{ties} ties, {identical} identical; {out['train_pairs']} pairs train, {out['heldout_pairs']} held out")
    print(f"held-out preference accuracy (implicit reward): before {before.get('preference_accuracy')} after "
          f"{after.get('preference_accuracy')}")
    print(f"held-out likelihood prefers the chosen answer: before {before.get('likelihood_accuracy')} after "
          f"{after.get('likelihood_accuracy')}")
    print(f"ROUGE-L on {args.eval_rows} test rows: run {rouge_sft:.4f}  DPO run {rouge_dpo:.4f}  "
          f"ratio {rouge_dpo / rouge_sft if rouge_sft else float('nan'):.3f}")
    print(f"time (wall s): prepare {out['prepare_s']}, instruction run {out['sft_wall_s']} (CPU {out['sft_cpu_s']}), "
          f"pairs {out['pairs_wall_s']}, DPO run {out['dpo_wall_s']} (CPU {out['dpo_cpu_s']}, peak "
          f"{out['dpo_peak_rss_mb']} MB), evaluations {out['eval_wall_s']}")
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
