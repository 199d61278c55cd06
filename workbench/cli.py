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
