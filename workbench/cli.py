"""Headless commands: the same code the GUI runs, for scripts and clusters.

Exit status: 0 success, 2 bad input (a one-paragraph message on stderr, no traceback),
1 an unexpected internal error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .core.errors import WorkbenchError


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2, default=str) + "\n")


def _lang() -> str:
    import locale

    loc = (locale.getlocale()[0] or "").lower()
    return "zh" if loc.startswith("zh") else "en"


# ----- templates --------------------------------------------------------------


def cmd_templates(args: argparse.Namespace) -> int:
    from .core.templates import TemplateCatalog

    catalog = TemplateCatalog()
    if args.json:
        _print_json({"templates": [t.summary() for t in catalog], "problems": catalog.problems})
        return 0
    lang = _lang()
    for vertical, items in catalog.by_vertical().items():
        print(f"[{vertical}]")
        for t in items:
            labels = f"  labels: {', '.join(t.labels)}" if t.labels else ""
            print(f"  {t.id:<20} {t.task.value:<15} {t.name.get(lang)}{labels}")
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return 0


# ----- data -------------------------------------------------------------------


def cmd_data_inspect(args: argparse.Namespace) -> int:
    from .core.dataio import inspect_file

    info = inspect_file(args.file, sheet=args.sheet, preview_rows=args.rows)
    if args.json:
        _print_json(info.model_dump())
        return 0
    print(f"file:      {info.path}")
    print(f"format:    {info.format}" + (f" (encoding {info.encoding})" if info.encoding else ""))
    if info.sheets:
        print(f"sheets:    {', '.join(info.sheets)} (reading {info.sheet})")
    print(f"rows:      {info.rows}")
    print(f"columns:   {', '.join(info.columns)}")
    for note in info.notes:
        print(f"note:      {note}")
    print("preview:")
    for row in info.preview:
        cells = [f"{k}={_clip(v)}" for k, v in row.items()]
        print("  " + " | ".join(cells))
    return 0


def _clip(v: Any, n: int = 30) -> str:
    s = "" if v is None else str(v).replace("\n", " ")
    return s if len(s) <= n else s[: n - 1] + "…"


def _print_prepare_summary(summary: dict) -> None:
    src = summary["source"]
    print(f"imported   {src['rows']} rows from {src['path']} ({src['format']}"
          + (f", {src['encoding']}" if src.get("encoding") else "") + ")")
    print("mapping    " + ", ".join(f"{r}={c}" for r, c in summary["mapping"].items() if c))
    print(f"{'step':<24}{'rows in':>9}{'rows out':>10}{'changed':>9}  details")
    for s in summary["steps"]:
        details = ", ".join(f"{k}: {v}" for k, v in s.get("details", {}).items() if v) if s.get("details") else ""
        print(f"{s['op']:<24}{s['rows_in']:>9}{s['rows_out']:>10}{s['cells_changed']:>9}  {_clip(details, 60)}")
    st = summary["stats"]
    print(f"clean rows {st['rows_clean']}  split: " + ", ".join(f"{k} {v}" for k, v in st["splits"].items()))
    if "labels" in st:
        print("labels     " + ", ".join(f"{k} {v}" for k, v in st["labels"].items()))
    for w in summary["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    print(f"project    {summary['project']}")


def cmd_data_prepare(args: argparse.Namespace) -> int:
    from .core.mapping import parse_mapping_args
    from .core.project import SplitSettings, prepare
    from .core.templates import TemplateCatalog

    template = TemplateCatalog().get(args.template)
    split = None
    if args.split or args.seed is not None:
        ratios = _parse_ratios(args.split) if args.split else template.split.model_dump().values()
        tr, va, te = ratios
        split = SplitSettings(train=tr, val=va, test=te, seed=args.seed if args.seed is not None else 42)
    _, summary = prepare(
        template, args.input, args.project,
        recipe=args.recipe, mapping=parse_mapping_args(args.mapping or []), split=split, sheet=args.sheet)
    if args.json:
        _print_json(summary)
    else:
        _print_prepare_summary(summary)
    return 0


def _parse_ratios(text: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3:
        raise WorkbenchError(f"--split '{text}' must be three numbers such as 0.8,0.1,0.1 (train, validation, test).")
    return parts  # type: ignore[return-value]


# ----- train / runs -------------------------------------------------------------


def _fmt_secs(s: float | None) -> str:
    if s is None:
        return "--:--"
    s = int(s)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


def _progress_line(ev: dict, total: int | None) -> str:
    step = ev.get("step", 0)
    total = total or 0
    frac = step / total if total else 0.0
    bar = "#" * int(frac * 30)
    return (f"\r[{bar:<30}] {step}/{total} loss {ev.get('loss', float('nan')):.4f} "
            f"lr {ev.get('lr', 0):.2e} {ev.get('tokens_per_s', 0):.0f} tok/s ETA {_fmt_secs(ev.get('eta_s'))}   ")


def follow_run(run_dir: Path, proc, as_json: bool) -> str:
    """Print the run's events as they arrive; returns the final status."""
    import time as _time

    from .core.runs import EventTail, request_stop, summarize

    tail = EventTail(run_dir / "events.jsonl")
    total = None
    status = None
    try:
        while status is None:
            for ev in tail.read_new():
                if as_json:
                    sys.stdout.write(json.dumps(ev, ensure_ascii=False) + "\n")
                    sys.stdout.flush()
                kind = ev.get("event")
                if kind == "start":
                    total = ev.get("total_steps")
                    if not as_json:
                        what = (f"built-in model '{ev.get('builtin')}', trained from scratch on this project's data"
                                if ev.get("builtin") else ev.get("base_model"))
                        print(f"training {what} ({ev.get('family')}, {ev.get('method')}) on {ev.get('device')}: "
                              f"{ev.get('trainable_params'):,} of {ev.get('total_params'):,} parameters trainable, "
                              f"{total} steps")
                elif kind == "step" and not as_json:
                    sys.stdout.write(_progress_line(ev, total))
                    sys.stdout.flush()
                elif kind == "eval" and not as_json:
                    m = " ".join(f"{k} {v:.4f}" for k, v in (ev.get("metrics") or {}).items())
                    print(f"\neval at step {ev.get('step')}: eval_loss {ev.get('eval_loss', float('nan')):.4f} {m}")
                elif kind == "checkpoint" and not as_json:
                    print(f"\ncheckpoint {ev.get('path')}")
                elif kind == "log" and not as_json and ev.get("level") in ("warning", "error"):
                    print(f"\n{ev.get('level')}: {ev.get('message')}", file=sys.stderr)
                elif kind == "end":
                    status = ev.get("status")
                    if not as_json:
                        print(f"\nrun {run_dir.name} {status}" + (f": {ev.get('error')}" if ev.get("error") else ""))
            if status is None and proc.poll() is not None:
                _time.sleep(0.2)
                if not tail.read_new():
                    status = summarize(run_dir).status
                    if not as_json:
                        print(f"\nrun {run_dir.name} {status}: the worker exited without reporting; see worker.log")
                    break
            _time.sleep(0.2)
    except KeyboardInterrupt:
        print("\nstopping: the worker saves a checkpoint first (Ctrl+C again to leave it running)", file=sys.stderr)
        request_stop(run_dir)
        try:
            return follow_run(run_dir, proc, as_json)
        except KeyboardInterrupt:
            return "running"
    return status or "failed"


def cmd_train(args: argparse.Namespace) -> int:
    from .core.jobs import JobSpec, new_run_id, read_job, write_job
    from .core.project import Project
    from .core.recommend import recommend
    from .core.runs import launch_worker, summarize
    from .core.templates import TemplateCatalog

    project = Project.open(args.project)
    if not project.is_prepared:
        raise WorkbenchError(f"Project {project.root} has no prepared data. Run 'workbench data prepare' first.")
    if args.resume:
        run_dir = project.runs_dir / args.resume
        if not (run_dir / "job.json").is_file():
            raise WorkbenchError(f"Run '{args.resume}' does not exist in {project.root}; 'workbench runs' lists the runs.")
        s = summarize(run_dir)
        if s.status == "running":
            raise WorkbenchError(f"Run '{args.resume}' is still running; stop it first.")
        if s.status == "completed":
            raise WorkbenchError(f"Run '{args.resume}' has completed; start a new run to train further.")
        ckpt = args.checkpoint or s.last_checkpoint
        if not ckpt:
            raise WorkbenchError(f"Run '{args.resume}' has no checkpoint to resume from; start a new run.")
        job = read_job(run_dir).model_copy(update={"resume_from": ckpt})
        write_job(run_dir, job)
    else:
        template = TemplateCatalog().get(project.config.template)
        rec = recommend(template, project.config.stats, "cpu", args.base_model, args.method)
        hp = template.hyperparameter_defaults()
        settings = {
            "epochs": args.epochs if args.epochs is not None else rec.epochs,
            "max_steps": args.max_steps if args.max_steps is not None else -1,
            "learning_rate": args.learning_rate or rec.learning_rate,
            "batch_size": args.batch_size or rec.batch_size,
            "max_length": args.max_length or rec.max_length,
            "lora_r": int(hp.get("lora_r", 8)), "lora_alpha": float(hp.get("lora_alpha", 16)),
            "lora_dropout": float(hp.get("lora_dropout", 0.05)),
            "warmup_ratio": float(hp.get("warmup_ratio", 0.05)),
            "gradient_accumulation_steps": int(hp.get("gradient_accumulation_steps", 1)),
        }
        for key in ("eval_steps", "save_steps", "logging_steps", "seed", "device"):
            if getattr(args, key) is not None:
                settings[key] = getattr(args, key)
        method = "full" if args.base_model.startswith("builtin:") and args.method is None else (args.method or "lora")
        job = JobSpec(project=str(project.root.resolve()), template=template.id, task=template.task.value,
                      base_model=args.base_model, method=method, allow_pickle=args.allow_pickle,
                      quantization=args.quantization, **settings)
        run_dir = project.runs_dir / new_run_id()
        write_job(run_dir, job)
        if not args.json:
            print(f"recommended for this data: batch {rec.batch_size}, max length {rec.max_length}, "
                  f"{rec.epochs:g} epochs, learning rate {rec.learning_rate:g}; "
                  f"about {_fmt_secs(rec.est_seconds)} and {rec.est_memory_mb:.0f} MB on the CPU")
            for note in rec.notes:
                print(f"note: {note}")
            print(f"run {run_dir.name}: worker log in {run_dir / 'worker.log'}")
    proc = launch_worker(run_dir, detach=False)
    status = follow_run(run_dir, proc, args.json)
    return 0 if status in ("completed", "stopped", "running") else 1


def cmd_runs(args: argparse.Namespace) -> int:
    from .core.project import Project
    from .core.runs import list_runs

    project = Project.open(args.project)
    runs = list_runs(project.root)
    if args.json:
        _print_json({"runs": [r.to_dict() for r in runs]})
        return 0
    if not runs:
        print("no runs yet")
    for r in runs:
        loss = f"{r.last_loss:.4f}" if r.last_loss is not None else "-"
        metrics = " ".join(f"{k} {v:.3f}" for k, v in r.metrics.items())
        print(f"{r.id:<28} {r.status:<10} step {r.last_step}/{r.total_steps or '?'} loss {loss} "
              f"checkpoint {r.last_checkpoint or '-'} {metrics}")
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    from .core.project import Project
    from .core.runs import request_stop

    project = Project.open(args.project)
    run_dir = project.runs_dir / args.run
    if not (run_dir / "job.json").is_file():
        raise WorkbenchError(f"Run '{args.run}' does not exist in {project.root}.")
    request_stop(run_dir)
    print(f"asked run {args.run} to save a checkpoint and stop")
    return 0


# ----- demo -------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """The embedded-defaults flow: a sample template's data prepared into a project."""
    from .core.paths import default_projects_dir
    from .core.project import prepare
    from .core.templates import TemplateCatalog

    template = TemplateCatalog().get(args.template)
    root = Path(args.project) if args.project else default_projects_dir() / f"sample-{template.id}"
    print(f"Workbench demo: template {template.id} ({template.name.get(_lang())}), its synthetic sample data")
    _, summary = prepare(template, template.sample_path, root)
    _print_prepare_summary(summary)
    return 0


# ----- entry point ------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="workbench", description="Fine-tune, evaluate and export language models on PaddlePaddle.")
    sub = p.add_subparsers(dest="command")

    t = sub.add_parser("templates", help="list the vertical templates")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_templates)

    d = sub.add_parser("data", help="inspect and prepare data")
    dsub = d.add_subparsers(dest="data_command", required=True)
    di = dsub.add_parser("inspect", help="show a file's format, encoding, columns and a preview")
    di.add_argument("file")
    di.add_argument("--sheet")
    di.add_argument("--rows", type=int, default=5)
    di.add_argument("--json", action="store_true")
    di.set_defaults(func=cmd_data_inspect)
    dp = dsub.add_parser("prepare", help="import, clean, map and split a file into a project")
    dp.add_argument("--template", required=True)
    dp.add_argument("--input", required=True)
    dp.add_argument("--project", required=True)
    dp.add_argument("--recipe", help="cleaning recipe JSON file (default: the template's recipe)")
    dp.add_argument("--mapping", nargs="*", metavar="ROLE=COLUMN")
    dp.add_argument("--sheet", help="Excel sheet to read (default: the first)")
    dp.add_argument("--split", help="train,val,test ratios, e.g. 0.8,0.1,0.1")
    dp.add_argument("--seed", type=int)
    dp.add_argument("--json", action="store_true")
    dp.set_defaults(func=cmd_data_prepare)

    tr = sub.add_parser("train", help="fine-tune in a background worker process")
    tr.add_argument("--project", required=True)
    tr.add_argument("--base-model", default="builtin:small",
                    help="builtin:tiny, builtin:small (trained from scratch), a local model folder, or a model id")
    tr.add_argument("--method", choices=["lora", "full"])
    tr.add_argument("--quantization", choices=["none", "int8", "int4"], default="none")
    g = tr.add_mutually_exclusive_group()
    g.add_argument("--epochs", type=float)
    g.add_argument("--max-steps", type=int)
    tr.add_argument("--learning-rate", type=float)
    tr.add_argument("--batch-size", type=int)
    tr.add_argument("--max-length", type=int)
    tr.add_argument("--eval-steps", type=int)
    tr.add_argument("--save-steps", type=int)
    tr.add_argument("--logging-steps", type=int)
    tr.add_argument("--seed", type=int)
    tr.add_argument("--device", help="auto, cpu, gpu, gpu:N or a custom device type")
    tr.add_argument("--allow-pickle", action="store_true", help="allow pickle-based weight files (only if you trust them)")
    tr.add_argument("--resume", metavar="RUN", help="resume this run from its last checkpoint")
    tr.add_argument("--checkpoint", help="with --resume: the checkpoint folder to resume from")
    tr.add_argument("--json", action="store_true", help="print the events as JSON lines")
    tr.set_defaults(func=cmd_train)

    rn = sub.add_parser("runs", help="list a project's runs and their status")
    rn.add_argument("--project", required=True)
    rn.add_argument("--json", action="store_true")
    rn.set_defaults(func=cmd_runs)

    st = sub.add_parser("stop", help="ask a running run to checkpoint and stop")
    st.add_argument("--project", required=True)
    st.add_argument("run")
    st.set_defaults(func=cmd_stop)

    demo = sub.add_parser("demo", help="run the sample flow on the embedded defaults")
    demo.add_argument("--template", default="finance_sentiment")
    demo.add_argument("--project")
    demo.set_defaults(func=cmd_demo)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
