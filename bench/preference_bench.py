"""Does preference tuning on a person's judgements move a model towards the answers they prefer?

On a real Chinese Q&A file, through the real commands: prepares the file with a Q&A template,
trains an instruction run (``workbench train``), samples two answers per training question from
it (``workbench feedback pairs``), records a judgement for each pair, trains a DPO adapter on top
of the run (``workbench train --method dpo --from-run``), and evaluates both runs on the same test
rows (``workbench eval``).

The judgements are SYNTHETIC, not a person's. ``--judge choice`` (the default): of the two
answers, the one with the higher ROUGE-L against the row's reference answer is chosen (equal
scores, or scores closer than ``--tie-below``: a tie, which trains nothing, as a person calls two
answers that are about as good). ``--judge thumbs``: each answer alone gets a thumb, up if its
ROUGE-L against the reference is at least the median of all sampled answers', down otherwise; the
project pairs a question's good and bad answers, as it does a person's thumbs. So the bench
measures whether DPO learns a preference that is there to learn, and whether learning it moves
greedy answers towards the references.

Prints, for the held-out pairs (a seeded fifth of them or more): the implicit-reward preference
accuracy before (0.5: every reward is 0 before training) and after, and the share where the model's
likelihood prefers the chosen answer before and after; for the test rows: ROUGE-L of the run, of
the DPO run and of the retrieval baseline (the answer of the nearest training question) against
the references, with the paired bootstrap interval of the DPO run's difference from the run; the
time of each stage (wall and the worker's CPU seconds) and the DPO run's peak memory.

    python bench/preference_bench.py --input FILE [--template medical_qa] [--mapping ROLE=COLUMN ...]
        [--rows N] [--base-model builtin:small|MODEL] [--sft-minutes M] [--pairs N] [--dpo-minutes M]
        [--dpo-loss sigmoid] [--judge choice|thumbs] [--tie-below D] [--eval-rows N] [--project DIR] [--json]
    python bench/preference_bench.py --project DIR --sft-run RUN ...   # tune an instruction run again
    python bench/preference_bench.py --project DIR --sft-run RUN --pairs 0 --rejudge --tie-below 0.02
        # the same sampled answers judged again (the judgements in force are taken back first)

``--eval-rows 0`` skips the test rows' evaluations: the held-out pairs only, to compare settings.
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


def evaluated(project: Path, run: str, rows: int, max_new_tokens: int) -> tuple[dict, list[dict], float]:
    """``workbench eval`` of a run on the first test rows: its result, its rows and the wall seconds."""
    import pandas as pd

    t0 = time.perf_counter()
    res = check(wb("eval", "--project", project, "--run", run, "--rows", rows, "--no-compare-base",
                   "--max-new-tokens", max_new_tokens, "--json"), "evaluation")
    wall = time.perf_counter() - t0
    frame = pd.read_csv(project / "runs" / run / "eval" / "predictions.csv", keep_default_na=False, dtype=str)
    return last_json(res.stdout), frame.to_dict("records"), wall


def judge(pairs: list[dict], how: str, tie_below: float = 0.0) -> tuple[list[str], int]:
    """The synthetic judgements of the pairs, as ``feedback add`` lines, and how many trained nothing.
    A choice between answers whose ROUGE-L differs by less than ``tie_below`` is a tie, as a person
    calls two answers that are about as good."""
    from workbench.engine.scoring import rouge_l

    scores = [(rouge_l(p["a"], p.get("reference")), rouge_l(p["b"], p.get("reference"))) for p in pairs]
    lines, idle = [], 0
    if how == "choice":
        for pair, (ra, rb) in zip(pairs, scores):
            choice = "tie" if abs(ra - rb) < tie_below or ra == rb else "a" if ra > rb else "b"
            idle += choice == "tie"
            lines.append(json.dumps({"pair_id": pair["pair_id"], "choice": choice}))
        return lines, idle
    import statistics

    cut = statistics.median([s for both in scores for s in both])
    for pair, both in zip(pairs, scores):
        thumbs = [1 if s >= cut else -1 for s in both]
        idle += thumbs[0] == thumbs[1]  # two good or two bad answers make no pair
        lines += [json.dumps({"prompt": pair["prompt"], "answer": pair[k], "rating": t, "run": pair.get("run"),
                              "checkpoint": pair.get("checkpoint")}, ensure_ascii=False)
                  for k, t in zip("ab", thumbs) if pair[k].strip()]  # an empty answer cannot be rated
    return lines, idle


def record(root: Path, lines: list[str]) -> None:
    """The judgements recorded as a person's file of them is, through ``feedback add``."""
    judged = root.parent / f"judgements-{int(time.time())}.jsonl"
    judged.write_text("\n".join(lines) + "\n", encoding="utf-8")
    check(wb("feedback", "add", "--project", root, "--from", judged), "recording the judgements")


def prepared(root: Path, args, template, sft_args: list):
    """The project of the first rows of the file, and its instruction run."""
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
    return project, prep_s, train(root, "--base-model", args.base_model, *sft_args)


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
    p.add_argument("--judge", choices=("choice", "thumbs"), default="choice",
                   help="a choice between the two answers, or a thumb on each")
    p.add_argument("--tie-below", type=float, default=0.0,
                   help="--judge choice: call a pair a tie where the answers' ROUGE-L differs by less")
    p.add_argument("--rejudge", action="store_true",
                   help="with --sft-run and --pairs 0: judge the project's sampled pairs again, each "
                        "judgement in force taken back first (an undo line each; nothing is rewritten)")
    p.add_argument("--sft-run", help="an instruction run of --project to tune (skips preparing and training)")
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
    if not args.input and not args.sft_run:
        p.error("--input is required (or --smoke, or --project with --sft-run)")
    if args.sft_run and not args.project:
        p.error("--sft-run needs the --project that holds it")
    if args.rejudge and not args.sft_run:
        p.error("--rejudge needs --project and --sft-run")
    root = Path(args.project or tempfile.mkdtemp(prefix="preference-bench-")) / "project"
    if args.sft_run:
        from workbench.core.project import Project

        project = Project.open(root)
        prep_s, sft, sft_end, sft_wall = 0.0, args.sft_run, {}, 0.0
    else:
        project, prep_s, (sft, sft_end, sft_wall) = prepared(root, args, template, sft_args)
    splits = project.config.stats["splits"]
    pairs, pairs_s, identical, idle = [], 0.0, 0, 0
    if args.rejudge:  # the same sampled answers, judged again: each judgement in force taken back first
        from workbench.core import feedback

        in_force = feedback.load(root)
        for j in in_force:
            feedback.undo(root, j.id)
        stored = feedback.load_pairs(root)
        pairs = [stored[k].to_dict() for k in sorted({j.pair_id for j in in_force if j.pair_id}) if k in stored]
        lines, idle = judge(pairs, args.judge, args.tie_below)
        record(root, lines)
    elif args.pairs:  # 0: tune on the judgements already in force (another loss on the same pairs)
        t0 = time.perf_counter()
        res = check(wb("feedback", "pairs", "--project", root, "--run", sft, "--rows", args.pairs, "--split",
                       "train", "--max-new-tokens", args.max_new_tokens, "--json"), "sampling the pairs")
        pairs_s = time.perf_counter() - t0
        pairs = last_json(res.stdout)["pairs"]
        identical = sum(bool(pair.get("identical")) for pair in pairs)
        lines, idle = judge(pairs, args.judge, args.tie_below)
        record(root, lines)
    dpo_args: list = ["--method", "dpo", "--from-run", sft, "--dpo-loss", args.dpo_loss,
                      "--time-budget", args.dpo_minutes]
    if args.dpo_steps:
        dpo_args += ["--max-steps", args.dpo_steps, "--eval-steps", max(1, args.dpo_steps // 2)]
    if args.learning_rate:
        dpo_args += ["--learning-rate", args.learning_rate]
    dpo, dpo_end, dpo_wall = train(root, *dpo_args)

    from workbench.core.operations.preference import run_report

    report = run_report(root, dpo)
    rouge_sft = rouge_dpo = retrieval = interval = None
    sft_eval, dpo_rows, eval_sft_s, eval_dpo_s = {}, [], 0.0, 0.0
    if args.eval_rows:  # 0: the held-out pairs only (a quick comparison of settings)
        sft_eval, sft_rows, eval_sft_s = evaluated(root, sft, args.eval_rows, args.max_new_tokens)
        dpo_eval, dpo_rows, eval_dpo_s = evaluated(root, dpo, args.eval_rows, args.max_new_tokens)
        from workbench.engine.models.ngram_baseline import rouge_l_difference_interval

        # the same test rows, in the same order: the DPO run's change, paired row by row
        interval = rouge_l_difference_interval([r["reference"] for r in dpo_rows],
                                               [r["prediction"] for r in dpo_rows],
                                               [r["prediction"] for r in sft_rows])
        rouge_sft, rouge_dpo = float(sft_eval["metrics"]["rouge_l"]), float(dpo_eval["metrics"]["rouge_l"])
        retrieval = (dpo_eval.get("baseline") or {}).get("rouge_l")
    before, after = report.get("before") or {}, report.get("after") or {}
    out = {"input": str(args.input or root), "rows": project.config.stats.get("rows_clean"), "splits": splits,
           "base_model": json.loads((root / "runs" / sft / "job.json").read_text())["base_model"], "sft_run": sft, "dpo_run": dpo, "judge": args.judge,
           "pairs_sampled": len(pairs), "no_pair": idle, "identical": identical,
           "train_pairs": report.get("train_pairs"), "heldout_pairs": report.get("heldout_pairs"),
           "loss": report.get("loss"), "beta": report.get("beta"),
           "preference_accuracy_before": before.get("preference_accuracy"),
           "preference_accuracy_after": after.get("preference_accuracy"),
           "likelihood_accuracy_before": before.get("likelihood_accuracy"),
           "likelihood_accuracy_after": after.get("likelihood_accuracy"),
           "rouge_l_sft": rouge_sft, "rouge_l_dpo": rouge_dpo, "rouge_l_retrieval": retrieval,
           "rouge_l_change_interval": interval, "eval_rows": len(dpo_rows),
           "prepare_s": round(prep_s, 1), "sft_wall_s": round(sft_wall, 1), "sft_cpu_s": sft_end.get("cpu_seconds"),
           "pairs_wall_s": round(pairs_s, 1), "dpo_wall_s": round(dpo_wall, 1), "dpo_cpu_s": dpo_end.get("cpu_seconds"),
           "dpo_peak_rss_mb": dpo_end.get("peak_rss_mb"), "eval_wall_s": round(eval_sft_s + eval_dpo_s, 1)}
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return 0
    what = ("a choice of the answer closer to the reference by ROUGE-L" if args.judge == "choice" else
            "a thumb on each answer, up at or above the median ROUGE-L")
    print(f"{Path(out['input']).name}: {out['rows']} rows, splits {splits}; run {sft} ({out['base_model']}), "
          f"DPO run {dpo} ({out['loss']} loss, beta {out['beta']})")
    print(f"judgements (synthetic: {what}): {len(pairs)} questions sampled, {idle} made no pair, {identical} "
          f"identical; {out['train_pairs']} pairs train, {out['heldout_pairs']} held out")
    print(f"held-out preference accuracy (implicit reward): before {before.get('preference_accuracy')} after "
          f"{after.get('preference_accuracy')}")
    print(f"held-out likelihood prefers the chosen answer: before {before.get('likelihood_accuracy')} after "
          f"{after.get('likelihood_accuracy')}")
    if rouge_sft is not None:
        noise = (f"; DPO - run {rouge_dpo - rouge_sft:+.4f}, 95% paired bootstrap interval {interval['low']:+.4f} "
                 f"to {interval['high']:+.4f}" if interval else "")
        print(f"ROUGE-L on {out['eval_rows']} test rows: run {rouge_sft:.4f}  DPO run {rouge_dpo:.4f}  retrieval "
              f"baseline {retrieval if retrieval is None else round(retrieval, 4)}{noise}")
    print(f"time (wall s): prepare {out['prepare_s']}, instruction run {out['sft_wall_s']} (CPU {out['sft_cpu_s']}), "
          f"pairs {out['pairs_wall_s']}, DPO run {out['dpo_wall_s']} (CPU {out['dpo_cpu_s']}, peak "
          f"{out['dpo_peak_rss_mb']} MB), evaluations {out['eval_wall_s']}")
    print(json.dumps(out, ensure_ascii=False))
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
