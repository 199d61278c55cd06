"""``workbench review``: the training and validation rows whose label looks wrong."""

from __future__ import annotations

import argparse

from workbench.cli.common import clip, engine_work, print_json


def _top(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of rows") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"{n} rows: give 0 (every row) or more")
    return n


def cmd_review(args: argparse.Namespace) -> int:
    from workbench.core.project import Project

    Project.open(args.project)  # a folder that is no project fails before the engine loads
    with engine_work(args.json) as progress:
        from workbench.engine.review import review_project

        result = review_project(args.project, run=args.run, top=args.top, device=args.device, progress=progress)
    if args.json:
        print_json(result)
        return 0
    print(f"{result['rows_reviewed']} rows reviewed ({result['splits']['train']} train, {result['splits']['val']} "
          f"validation) in {result['seconds']:.1f} s; {result['found']} flagged as likely label errors"
          + (f"; run {result['run']} judged the {result['run_rows']} validation rows" if result["run"] else ""))
    if not result["rows"]:
        return 0
    print(f"{'#':>4}  {'row':<12} {'score':>5}  {'label':<14} {'suggested':<14} {'text':<32} why")
    for rank, row in enumerate(result["rows"], 1):
        why = "; ".join(r["message"] for r in row["reasons"]) or "-"
        suggested = "" if row["suggested"] == row["label"] else row["suggested"]
        print(f"{rank:>4}{'*' if row['flagged'] else ' '} {clip(row['row_id'], 12):<12} {row['score']:>5.2f}  "
              f"{clip(row['label'], 14):<14} {clip(suggested, 14):<14} {clip(row['text'], 32):<32} {why}")
    print("* flagged by confident learning; score: 1 - the probability given to the row's label")
    return 0


def add_parser(sub) -> None:
    rv = sub.add_parser("review", help="rank the training and validation rows by how likely their label is wrong")
    rv.add_argument("--project", required=True)
    rv.add_argument("--run", help="also ask this trained run's model (on the validation rows, which it did not "
                                  "learn from)")
    rv.add_argument("--top", type=_top, default=50, metavar="N",
                    help="how many of the most doubtful rows to show (default 50; 0: every row)")
    rv.add_argument("--device", default="cpu", help="where the run's model runs, with --run (default: cpu)")
    rv.add_argument("--json", action="store_true", help="progress lines, then the result as the last line")
    rv.set_defaults(func=cmd_review)
