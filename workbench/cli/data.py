"""``workbench data``: inspect a file, and prepare it into a project (import, clean, map, split)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.cli.common import clip, print_json
from workbench.core.errors import WorkbenchError

# ----- data -------------------------------------------------------------------


def cmd_data_inspect(args: argparse.Namespace) -> int:
    from workbench.core.dataio import inspect_file

    info = inspect_file(args.file, sheet=args.sheet, preview_rows=args.rows, header=args.header)
    if args.json:
        print_json(info.model_dump())
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
            shown = ", ".join(f"{clip(v, 20)} {n}" for v, n in items[:12]) + (
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
        cells = [f"{k}={clip(v)}" for k, v in row.items()]
        print("  " + " | ".join(cells))
    return 0


def _header_flags(parser: argparse.ArgumentParser) -> None:
    g = parser.add_mutually_exclusive_group()
    g.add_argument("--header", dest="header", action="store_true", default=None,
                   help="CSV/Excel: the first row names the columns (default: told from the file)")
    g.add_argument("--no-header", dest="header", action="store_false",
                   help="CSV/Excel: the first row is data; the columns are named col1 … colN")


def print_prepare_summary(summary: dict) -> None:
    src = summary["source"]
    print(f"imported   {src['rows']} rows from {src['path']} ({src['format']}"
          + (f", {src['encoding']}" if src.get("encoding") else "") + ")")
    print("mapping    " + ", ".join(f"{r}={c}" for r, c in summary["mapping"].items() if c))
    print(f"{'step':<24}{'rows in':>9}{'rows out':>10}{'changed':>9}  details")
    for s in summary["steps"]:
        details = ", ".join(f"{k}: {v}" for k, v in s.get("details", {}).items() if v) if s.get("details") else ""
        print(f"{s['op']:<24}{s['rows_in']:>9}{s['rows_out']:>10}{s['cells_changed']:>9}  {clip(details, 60)}")
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
    from workbench.core.mapping import parse_mapping_args
    from workbench.core.project import SplitSettings, prepare
    from workbench.core.templates import TemplateCatalog

    template = TemplateCatalog().get(args.template)
    split = None
    if args.split or args.seed is not None:
        ratios = _parse_ratios(args.split) if args.split else template.split.model_dump().values()
        tr, va, te = ratios
        split = SplitSettings(train=tr, val=va, test=te, seed=args.seed if args.seed is not None else 42)
    from workbench.core.progress import ProgressReporter

    with ProgressReporter(args.json) as progress:
        _, summary = prepare(
            template, args.input, args.project, recipe=args.recipe, mapping=parse_mapping_args(args.mapping or []),
            split=split, sheet=args.sheet, header=args.header, labels=_label_choice(args, template),
            progress=lambda stage, frac: progress(stage, round(frac * 100), 100))
    if args.json:
        print_json(summary)
    else:
        print_prepare_summary(summary)
    return 0


def _label_choice(args: argparse.Namespace, template):
    """The label flags over what the project was prepared with (or the template's labels)."""
    from workbench.core.labels import parse_code_map, parse_label_list, parse_label_pairs, template_choice
    from workbench.core.project import PROJECT_FILE, Project

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


def add_parser(sub) -> None:
    """``workbench data inspect`` and ``data prepare``."""
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
    add_correction_parsers(dsub)


def cmd_data_correct(args: argparse.Namespace) -> int:
    from workbench.core import corrections
    from workbench.core.operations.corrections import correct

    labels: list[tuple[str, str | None]] = []
    if args.from_file:
        labels += corrections.read_file(args.from_file)
    for item in args.set or []:
        rid, sep, label = item.partition("=")
        if not sep or not rid.strip():
            raise WorkbenchError(f"--set '{item}' must be ROW_ID=LABEL (an empty label excludes the row).",
                                 code="corrections_bad_set", item=item)
        labels.append((rid.strip(), label.strip() or None))
    if not (labels or args.not_sure or args.undo):
        raise WorkbenchError("Nothing to correct: give --from FILE.csv, --set ROW_ID=LABEL, --not-sure or --undo.",
                             code="corrections_nothing")
    applied = correct(args.project, labels, not_sure=args.not_sure or [], undo=args.undo or [],
                      add_labels=args.add_labels)
    if args.json:
        print_json(applied.to_dict())
        return 0
    print(f"data version   {applied.version}")
    print(f"corrected      {applied.corrected} rows")
    print(f"excluded       {applied.excluded} rows")
    if applied.not_sure:
        print(f"not sure       {applied.not_sure} rows (marked; their labels are kept)")
    if applied.added_labels:
        print(f"labels added   {', '.join(applied.added_labels)}")
    if applied.unmatched:
        print(f"warning: {len(applied.unmatched)} recorded correction(s) match no row of the prepared data: "
              f"{', '.join(applied.unmatched[:10])}", file=sys.stderr)
    return 0


def cmd_data_versions(args: argparse.Namespace) -> int:
    import time

    from workbench.core.operations.corrections import versions

    found = versions(args.project)
    if args.json:
        print_json({"versions": found})
        return 0
    if not found:
        print("no data versions: prepare the data first")
        return 0
    print(f"{'version':<14} {'made':<17} {'kind':<12} {'train/val/test':<18} changes")
    for v in found:
        rows = "/".join(str(v["rows"].get(s, 0)) for s in ("train", "val", "test"))
        what = f"{v['corrected']} corrected, {v['excluded']} excluded" if v["kind"] == "corrections" else "prepared"
        mark = " (current)" if v["current"] else ""
        made = time.strftime("%Y-%m-%d %H:%M", time.localtime(v["created"]))
        print(f"{v['id']:<14} {made:<17} {v['kind']:<12} {rows:<18} {what}{mark}")
    return 0


def add_correction_parsers(dsub) -> None:
    """``workbench data correct`` and ``data versions``."""
    dc = dsub.add_parser("correct", help="correct labels of prepared rows (a new data version; your file is kept)")
    dc.add_argument("--project", required=True)
    dc.add_argument("--from", dest="from_file", metavar="FILE.csv",
                    help="a CSV file with the columns row_id,label; an empty label excludes the row; in a "
                         "multi-label project the label cell is the row's label set, as in your file (A,B)")
    dc.add_argument("--set", action="append", metavar="ROW_ID=LABEL",
                    help="one correction (repeatable); ROW_ID= with no label excludes the row; in a multi-label "
                         "project the row's label set: ROW_ID=A,B")
    dc.add_argument("--not-sure", nargs="+", action="extend", metavar="ROW_ID",
                    help="mark rows as not sure: they keep their labels and are listed")
    dc.add_argument("--undo", nargs="+", action="extend", metavar="ROW_ID",
                    help="take back the corrections of these rows")
    dc.add_argument("--add-labels", action="store_true",
                    help="add a label the project does not have yet, where a correction names one")
    dc.add_argument("--json", action="store_true")
    dc.set_defaults(func=cmd_data_correct)
    dv = dsub.add_parser("versions", help="list the data versions, with what changed in each")
    dv.add_argument("--project", required=True)
    dv.add_argument("--json", action="store_true")
    dv.set_defaults(func=cmd_data_versions)
