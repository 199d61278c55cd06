"""Does a model earn its training time? Side by side, in one run, on real data.

Prepares the file with the template's cleaning recipe (the project's labels taken from
the data with ``--labels from-data``), trains each base model given (``--base-model``,
default the built-in one) with the recommended settings through the real worker
(``workbench train``) on the same split, and evaluates each with ``workbench eval``, which
also fits the classical baseline (character 1-3-gram TF-IDF + logistic regression) on the
same train split and scores it on the same test rows. Prints each model's macro-F1 beside
the baseline's with the 95 % bootstrap interval of their difference over the test rows
("matches" where it holds 0), their ratio (target for the built-in model: at least 1.0),
the training time as CPU seconds of the worker process (the machine may be shared, so wall
time is shown too; target: at most 5 CPU-minutes for the built-in model), its peak memory,
the estimate the recommendation gave, and the evaluation time against the training's
(target: at most a fifth).

A pretrained model classifies with its classification head (engine/models/decoder_head.py);
``MODEL@MIN`` gives one model its own time budget in minutes and ``MODEL@none`` none at all
(what a server with a GPU would train), e.g. ``--base-model builtin:small gemma-3-270m@30``;
The head starts from the frozen model (the default, the Train page's check box ticked);
``+plain`` after either trains it by LoRA alone (the box cleared, ``--no-head-features``), e.g.
``gemma-3-270m@10 gemma-3-270m@10+plain``; ``+frozen`` names the frozen start's flags.

A test split of a few hundred rows decides macro-F1 over tens of labels by a handful of
rows (on 326 legal cases one row is 0.003-0.01 of it), so ``--seeds 0 1 2`` repeats the
whole run on other random splits of the same file and prints each split's figures and
their means: the ratio of the means is the steadier verdict.

    python bench/quality_bench.py --input FILE --template ID [--mapping ROLE=COLUMN ...]
        [--labels from-data|A,B,C] [--multi-label] [--label-sep SEP] [--time-budget MIN]
        [--base-model builtin:small [gemma-3-270m@30 ...]]
        [--max-chars N] [--project DIR] [--seeds 0 [1 2 ...]] [--json]
    python bench/quality_bench.py --smoke     # the finance_sentiment sample, builtin:tiny twice (12 and 18 s budgets)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.commands import last_json, wb  # noqa: E402
from workbench.core.cleaning import Recipe  # noqa: E402
from workbench.core.labels import template_choice  # noqa: E402
from workbench.core.operations.runs import FROZEN_START, head_defaults, resolve_base_model  # noqa: E402
from workbench.core.project import SplitSettings, prepare  # noqa: E402
from workbench.core.recommend import recommend  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402




def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--input", help="the data file (required unless --smoke)")
    p.add_argument("--template", help="the template id (required unless --smoke)")
    p.add_argument("--mapping", nargs="*", default=[], metavar="ROLE=COLUMN")
    p.add_argument("--labels", default="from-data", help="from-data (default) or a comma-separated label list")
    p.add_argument("--multi-label", action="store_true", help="several labels per row (default: the template's)")
    p.add_argument("--label-sep", help="separator of the labels in a text cell (multi-label)")
    p.add_argument("--base-model", nargs="+", default=["builtin:small"], metavar="MODEL[@MIN|@none][+plain|+frozen]",
                   help="base models trained side by side on the same split (default builtin:small)")
    p.add_argument("--time-budget", type=float, help="minutes (default: the recommendation's, 10)")
    p.add_argument("--max-chars", type=int, help="raise the recipe's length limit (long legal texts)")
    p.add_argument("--project", help="project folder to create (default: a temporary one); with several "
                                     "seeds, one folder per seed beside it")
    p.add_argument("--seeds", nargs="+", type=int, default=[0], help="split seeds, one whole run each (default 0)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--smoke", action="store_true", help="tiny sizes, the same code paths (the tests run it)")
    args = p.parse_args(argv)
    if args.smoke:
        template = TemplateCatalog().get(args.template or "finance_sentiment")
        args.template, args.input = template.id, args.input or str(template.sample_path)
        # two runs, so the comparison of a model with the first runs too
        args.base_model, args.time_budget = ["builtin:tiny", "builtin:tiny@0.3"], 0.2
        if not args.project:
            with tempfile.TemporaryDirectory(prefix="quality-bench-") as tmp:
                args.project = str(Path(tmp) / "project")
                return run_all(args)
    elif not (args.input and args.template):
        p.error("--input and --template are required (or --smoke)")
    return run_all(args)


def run_all(args) -> int:
    runs = []
    for seed in args.seeds:
        out = one_run(args, seed)
        if out is None:
            return 1
        if args.smoke and not (out["ratio"] and out["model_macro_f1"] > 0):
            print("the built-in model or the baseline scored nothing", file=sys.stderr)
            return 1
        runs.append(out)
    if len(runs) > 1:
        mean = {k: sum(r[k] for r in runs) / len(runs) for k in ("model_macro_f1", "baseline_macro_f1", "train_cpu_s")}
        summary = {"seeds": args.seeds, "model_macro_f1": round(mean["model_macro_f1"], 4),
                   "baseline_macro_f1": round(mean["baseline_macro_f1"], 4),
                   "ratio_of_means": round(mean["model_macro_f1"] / mean["baseline_macro_f1"], 4),
                   "ratios": [r["ratio"] for r in runs], "train_cpu_s": round(mean["train_cpu_s"], 1),
                   "max_train_cpu_s": max(r["train_cpu_s"] for r in runs)}
        if args.json:
            print(json.dumps(summary, ensure_ascii=False))
        else:
            print(f"over {len(runs)} splits: macro-F1 built-in {summary['model_macro_f1']:.4f}   baseline "
                  f"{summary['baseline_macro_f1']:.4f}   ratio of the means {summary['ratio_of_means']:.3f} "
                  f"(per split {', '.join(f'{x:.3f}' for x in summary['ratios'])}); training "
                  f"{summary['train_cpu_s'] / 60:.2f} CPU-minutes on average, at most "
                  f"{summary['max_train_cpu_s'] / 60:.2f}")
            print(json.dumps(summary, ensure_ascii=False))
    return 0


def one_run(args, seed: int) -> dict | None:
    """Prepare, train and evaluate on the split drawn with ``seed``; the figures, printed."""

    template = TemplateCatalog().get(args.template)
    mapping = dict(m.split("=", 1) for m in args.mapping)
    start = template_choice(template)  # several labels per row where the template says so
    if args.multi_label or args.label_sep:
        start = start.model_copy(update={"multi_label": True, "separator": args.label_sep or start.separator})
    labels = start.model_copy(update={"source": "data"}) if args.labels == "from-data" else \
        start.model_copy(update={"source": "list", "labels": [x.strip() for x in args.labels.split(",") if x.strip()]})
    recipe = Recipe.from_template(template)
    for step in recipe.steps:
        if step.op == "length_filter" and args.max_chars:
            step.params["max_chars"] = args.max_chars
    root = Path(args.project) if args.project else Path(tempfile.mkdtemp(prefix="quality-bench-")) / "project"
    if len(args.seeds) > 1:
        root = root.with_name(f"{root.name}-seed{seed}")

    t0 = time.perf_counter()
    project, summary = prepare(template, args.input, root, recipe=recipe, mapping=mapping or None, labels=labels,
                               split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=seed))
    prep_s = time.perf_counter() - t0
    stats = project.config.stats
    models = []
    for spec in args.base_model:
        figures = train_and_evaluate(args, template, project, spec)
        if figures is None:
            return None
        models.append(figures)
    first = models[0]
    base_f1 = first["baseline_macro_f1"]
    for m in models[1:]:  # does it pay over the first model (the built-in one), on the same rows?
        m["vs_first"] = against(project, m, first)
    out = {
        "input": args.input, "template": args.template, "labels": len(project.task.labels), "rows": stats["rows_clean"],
        "splits": stats["splits"], "prepare_s": round(prep_s, 1), "multi_label": bool(project.task.multi_label),
        "baseline_macro_f1": base_f1, "baseline_accuracy": first["baseline_accuracy"],
        "baseline_fit_s": first["baseline_fit_s"], "project": str(root), "split_seed": seed, "models": models,
        # the first model's figures at the top level, as before several models were compared
        **{k: first[k] for k in ("model_macro_f1", "model_accuracy", "ratio", "train_cpu_s", "train_wall_s")},
    }
    if args.json:
        print(json.dumps(out, ensure_ascii=False))
        return out
    print(f"{Path(args.input).name}: {out['rows']} rows after cleaning, {out['labels']} labels, "
          f"splits {stats['splits']} (split seed {seed}); baseline macro-F1 {base_f1:.4f}, accuracy "
          f"{out['baseline_accuracy']:.4f} (fitted in {out['baseline_fit_s']} s)")
    for m in models:
        show(m, out["multi_label"])
    if len(models) > 1:
        print(f"  {'model':<28} {'macro-F1':>8}  {'vs baseline (95% interval)':<34} {'train':>8} {'eval':>7} {'peak MB':>8}")
        for m in models:
            iv = m["interval"]
            span = f"{m['difference']:+.3f} ({iv['low']:+.3f} to {iv['high']:+.3f}) {m['verdict']}" if iv else "-"
            print(f"  {m['name']:<28} {m['model_macro_f1']:8.4f}  {span:<34} {m['train_wall_s'] / 60:6.1f} m "
                  f"{m['eval_wall_s']:5.0f} s {m['peak_rss_mb'] or 0:8.0f}")
        for m in models[1:]:
            vs = m["vs_first"]
            if vs:
                print(f"  {m['name']} against {first['name']}: {vs['difference']:+.3f} ({vs['low']:+.3f} to "
                      f"{vs['high']:+.3f}) {vs['verdict']}")
    print(json.dumps(out, ensure_ascii=False))
    return out


def train_and_evaluate(args, template, project, spec: str) -> dict | None:
    """Train the base model of ``spec`` (``MODEL``, ``MODEL@MIN`` or ``MODEL@none``) on the
    project through the worker, evaluate it, and return its figures."""
    model_budget, _, stage = spec.partition("+")
    base_model, _, budget = model_budget.partition("@")
    budget_min = None if budget == "none" else float(budget) if budget else args.time_budget
    root = project.root
    method = "full" if base_model.startswith("builtin:") else "lora"
    head = not base_model.startswith("builtin:")
    if stage not in ("", "frozen", "plain"):
        raise SystemExit(f"unknown stage '+{stage}' in {spec}: +frozen or +plain")
    # the head's settings as the run gets them: the frozen start by default, LoRA alone with +plain
    heads = head_defaults(head, {"head_features": False} if stage == "plain" else None)
    rec = recommend(template, project.config.stats, "cpu", base_model if base_model.startswith("builtin:") else
                    str(resolve_base_model(base_model)[0]), method,
                    time_budget_min=budget_min if budget_min is not None else 10**6, head=head,
                    head_depth=heads.get("head_depth"), head_features=bool(heads.get("head_features")))
    train_args = ["train", "--project", str(root), "--base-model", base_model, "--json"]
    if head and stage == "frozen":  # the Train page's "Start from the frozen model", as its command line gives it
        train_args += ["--head-features", "--head-linear", "--head-pooling", FROZEN_START["head_pooling"],
                       "--head-depth", str(FROZEN_START["head_depth"])]
    elif head and stage == "plain":  # the check box cleared
        train_args += ["--no-head-features"]
    if budget_min is not None:
        train_args += ["--time-budget", str(budget_min)]
    elif budget == "none":
        train_args += ["--time-budget", str(10**6)]  # no bound: the recommended epochs, however long
    before = set(p.name for p in project.runs_dir.iterdir()) if project.runs_dir.is_dir() else set()
    t0 = time.perf_counter()
    res = wb(*train_args, timeout=10**6)
    train_wall = time.perf_counter() - t0
    events = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    end = next((e for e in reversed(events) if e.get("event") == "end"), {})
    if end.get("status") != "completed":
        print(res.stdout[-3000:], res.stderr[-3000:], file=sys.stderr)
        return None
    start = next(e for e in events if e.get("event") == "start")
    run_id = sorted(p.name for p in project.runs_dir.iterdir() if (p / "job.json").is_file() and p.name not in before)[-1]
    run_info = json.loads((project.runs_dir / run_id / "final" / "workbench_run.json").read_text(encoding="utf-8"))

    t0 = time.perf_counter()
    ev = wb("eval", "--project", str(root), "--run", run_id, "--no-compare-base", "--json")
    eval_wall = time.perf_counter() - t0
    if ev.returncode != 0:
        print(ev.stderr[-3000:], file=sys.stderr)
        return None
    result = last_json(ev.stdout)
    model_f1 = result["metrics"]["macro_f1"]
    base_f1 = result["baseline"]["macro_f1"]
    comparison = result["baseline"].get("comparison") or {}
    interval = comparison.get("interval")
    train_cpu = end.get("cpu_seconds")
    out = {
        "name": spec, "base_model": base_model, "time_budget_min": budget_min, "run": run_id,
        "recommended": {"epochs": rec.epochs, "batch_size": rec.batch_size, "max_length": rec.max_length,
                        "learning_rate": rec.learning_rate, "total_steps": rec.total_steps,
                        "est_seconds": rec.est_seconds},
        "steps": start.get("total_steps"), "best_step": run_info.get("best_step"),
        "last_step": run_info.get("last_step"), "early_stopped_at": run_info.get("early_stopped_at"),
        "train_cpu_s": train_cpu, "train_wall_s": round(train_wall, 1),
        # the estimate against the run (target 0.7-1.3): the wall clock the user waits, and the
        # worker's CPU time where the machine is shared (it includes the baseline's fit, which
        # runs on a second core while the network trains)
        "estimate_vs_wall": round(rec.est_seconds / train_wall, 2) if train_wall else None,
        "estimate_vs_cpu": round(rec.est_seconds / train_cpu, 2) if train_cpu else None,
        "eval_wall_s": round(eval_wall, 1), "eval_in_process_s": result.get("seconds"),
        # the memory estimate against the worker's peak resident memory
        "est_memory_mb": rec.est_memory_mb, "peak_rss_mb": end.get("peak_rss_mb"),
        "memory_estimate_vs_peak": round(rec.est_memory_mb / end["peak_rss_mb"], 2) if end.get("peak_rss_mb") else None,
        # the first evaluation against the training (target: at most 0.2)
        "eval_vs_train": round(eval_wall / train_wall, 3) if train_wall else None,
        # a multi-label project's accuracy is the share of rows whose whole label set is right
        "model_accuracy": result["metrics"].get("accuracy", result["metrics"].get("subset_accuracy")),
        "model_macro_f1": model_f1,
        "baseline_accuracy": result["baseline"].get("accuracy", result["baseline"].get("subset_accuracy")),
        "baseline_macro_f1": base_f1, "baseline_fit_s": result["baseline"]["fit_seconds"],
        "ratio": round(model_f1 / base_f1, 4) if base_f1 else None,
        "difference": comparison.get("difference", round(model_f1 - base_f1, 4)),
        "interval": {"low": interval["low"], "high": interval["high"]} if interval else None,
        "verdict": verdict(interval) if interval else None,
    }
    parts = result["metrics"].get("parts")
    if parts:  # a head with the linear part: each part's test macro-F1 beside the mixture's
        # (the network's is None where the mixture is the linear part alone: it was not read)
        out["parts"] = {k: round(float(v), 4) for k, v in parts.items() if v is not None}
    if run_info.get("frozen_start"):  # LoRA after the frozen start, against it on all validation rows
        out["frozen_start"] = run_info["frozen_start"]
    if result["metrics"].get("multi_label"):
        out["model_micro_f1"] = result["metrics"].get("micro_f1")
        out["baseline_micro_f1"] = result["baseline"].get("micro_f1")
    return out


def against(project, m: dict, other: dict) -> dict | None:
    """``m``'s macro-F1 against ``other``'s on the same test rows (their predictions.csv), with the
    paired bootstrap interval the evaluation uses against the baseline."""
    import pandas as pd

    from workbench.engine.models.ngram_baseline import difference_interval

    ours, theirs = (pd.read_csv(project.runs_dir / x["run"] / "eval" / "predictions.csv", dtype=str,
                                keep_default_na=False) for x in (m, other))
    if list(ours["reference"]) != list(theirs["reference"]):
        return None
    iv = difference_interval("classification", bool(project.task.multi_label), list(ours["reference"]),
                             list(ours["prediction"]), list(theirs["prediction"]), list(project.task.labels))
    if iv is None:
        return None
    return {"difference": round(m["model_macro_f1"] - other["model_macro_f1"], 4), "low": iv["low"],
            "high": iv["high"], "verdict": verdict(iv)}


def verdict(interval: dict) -> str:
    """A difference whose interval holds 0 is within the noise of the rows."""
    return "beats" if interval["low"] > 0 else "below" if interval["high"] < 0 else "matches"


def show(m: dict, multi_label: bool) -> None:
    rec = m["recommended"]
    train_cpu, train_wall = m["train_cpu_s"] or 0, m["train_wall_s"]
    print(f"  {m['name']}: recommended {rec['epochs']:g} epochs x {rec['batch_size']} rows, max length "
          f"{rec['max_length']}, lr {rec['learning_rate']:g}, estimate {rec['est_seconds'] / 60:.1f} min")
    print(f"  trained {m['last_step']} of {m['steps']} steps (best at step {m['best_step']}): "
          f"{train_cpu / 60:.2f} CPU-minutes of the worker, {train_wall / 60:.2f} minutes wall; "
          f"estimate / wall time {m['estimate_vs_wall']}, / CPU time {m['estimate_vs_cpu']}; memory "
          f"{m['peak_rss_mb']} MB at its peak, estimate / peak {m['memory_estimate_vs_peak']}")
    who = "built-in" if m["base_model"].startswith("builtin:") else m["base_model"]
    print(f"  macro-F1   {who} {m['model_macro_f1']:.4f}   baseline {m['baseline_macro_f1']:.4f}   "
          f"ratio {m['ratio']:.3f}" + (f"   ({m['verdict']} it: difference {m['difference']:+.4f}, interval "
                                       f"{m['interval']['low']:+.4f} to {m['interval']['high']:+.4f})"
                                       if m["interval"] else ""))
    print(f"  {'set acc.' if multi_label else 'accuracy'}   {who} {m['model_accuracy']:.4f}   "
          f"baseline {m['baseline_accuracy']:.4f}")
    if multi_label:
        print(f"  micro-F1   {who} {m['model_micro_f1']:.4f}   baseline {m['baseline_micro_f1']:.4f}")
    if m.get("parts"):
        p = m["parts"]
        head = f"{p['network_macro_f1']:.4f}" if "network_macro_f1" in p else "not read (share 1)"
        print(f"  parts (test macro-F1): the head alone {head}, the linear part alone "
              f"{p['linear_macro_f1']:.4f}, mixed at linear share {p['linear_share']:.2f}")
    f = m.get("frozen_start")
    if f and f.get("lora_skipped"):
        print(f"  the first stage left LoRA no time: kept the frozen start (validation macro-F1 "
              f"{f['frozen_macro_f1']:.4f})")
    elif f:
        print(f"  LoRA after the frozen start: validation macro-F1 {f['lora_macro_f1']:.4f} against the frozen "
              f"start's {f['frozen_macro_f1']:.4f}: kept {'LoRA' if f['kept'] == 'lora' else 'the frozen start'}")
    print(f"  evaluation {m['eval_wall_s']:.1f} s wall ({m['eval_in_process_s']} s in the evaluator), "
          f"{m['eval_vs_train']:.2f} of the training's wall time")


if __name__ == "__main__":
    raise SystemExit(main())
