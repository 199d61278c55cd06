"""``workbench feedback``: answer pairs to judge, the person's judgements recorded, listed,
exported in PaddleFormers' preference-data formats and taken back. Training on them is
``workbench train --method dpo --from-run RUN``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.common import clip, engine_work, print_json
from workbench.core.errors import DataError, WorkbenchError


def _records(project, split: str) -> list[dict]:
    """The rows of a split, or of a JSON-lines file of questions (the template's input fields, or
    "prompt"; "output" is kept as the reference)."""
    from workbench.engine.examples import read_jsonl

    if split in ("train", "val", "test"):
        path = project.split_path(split)
        if not path.is_file():
            raise WorkbenchError(f"The project has no '{split}' split; prepare the data first.", code="project_not_prepared")
        return read_jsonl(path)
    path = Path(split)
    if not path.is_file():
        raise DataError(f"{split} is neither train, val nor a file of questions.", code="feedback_no_questions",
                        path=split)
    main = project.task.input_roles[0]
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise DataError(f"Line {n} of {path} is not a JSON object.", code="feedback_bad_questions", line=n)
        if "prompt" in obj and main not in obj:
            obj[main] = obj.pop("prompt")
        rows.append(obj)
    return rows


def cmd_pairs(args: argparse.Namespace) -> int:
    from workbench.core import feedback
    from workbench.core.operations.preference import check_instruction
    from workbench.core.project import Project
    from workbench.core.trained import resolve_trained_run

    project = Project.open(args.project)
    check_instruction(project)
    resolve_trained_run(project, args.run)  # a run without weights is refused before paddle loads
    if args.question is not None and not args.question.strip():
        raise WorkbenchError("--question is empty: give the question's text.", code="feedback_rows")
    if args.question is None and args.rows < 1:
        raise WorkbenchError("--rows must be at least 1.", code="feedback_rows")
    with engine_work(args.json) as progress:
        from workbench.engine.inference.pairs import pick_rows, sample_pairs

        if args.question is not None:  # one question of the person's own (the window's playground)
            records = [{project.task.input_roles[0]: args.question}]
        else:
            records = pick_rows(_records(project, args.split), args.rows, args.seed)
        pairs = sample_pairs(project.root, args.run, records, seed=args.seed, temperature=args.temperature,
                             max_new_tokens=args.max_new_tokens, device=args.device, progress=progress)
    feedback.remember_pairs(project.root, pairs)
    if args.json:
        print_json({"pairs": [p.to_dict() for p in pairs]})
        return 0
    for p in pairs:
        print(f"{p.pair_id}{'  (identical)' if p.identical else ''}\n  Q: {clip(p.prompt, 100)}\n"
              f"  a: {clip(p.a, 100)}\n  b: {clip(p.b, 100)}")
        if p.reference:
            print(f"  reference: {clip(p.reference, 100)}")
    print(f"{len(pairs)} pairs; record choices with 'workbench feedback add --from FILE' "
          "(lines of {\"pair_id\": ..., \"choice\": \"a\"|\"b\"|\"tie\"})")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    from workbench.core.operations.preference import add_from_file

    added = add_from_file(args.project, args.from_file)
    if args.json:
        print_json({"added": [j.id for j in added]})
    else:
        print(f"recorded {len(added)} judgement(s)")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from workbench.core.operations import preference as ops

    if args.out and args.format:
        return cmd_export(args)
    if args.format:
        lines = ops.export_lines(args.project, args.format)
        if args.json:
            print_json({"format": args.format, "pairs": lines})
        else:
            for line in lines:
                print(json.dumps(line, ensure_ascii=False))
        return 0
    shown = ops.listing(args.project)
    if args.out:  # the judgements in force, one JSON line each
        from workbench.core.fsutil import atomic_write_text

        atomic_write_text(args.out, "".join(json.dumps(j.model_dump(exclude_none=True), ensure_ascii=False) + "\n"
                                            for j in shown.judgements))
    if args.json:
        print_json(shown.to_dict())
        return 0
    for j in shown.judgements:
        what = f"choice {j.choice}" if j.kind == "choice" else ("good" if j.rating == 1 else "bad") + (
            " + rewrite" if j.rewrite else "")
        print(f"{j.id:<26} {what:<14} {j.run or '-':<28} {clip(j.prompt, 40)}")
    for run, c in shown.counts.items():
        print(f"run {run or '-'}: {c['choices']} choices, {c['ties']} ties, {c['good']} good, {c['bad']} bad, "
              f"{c['rewrites']} rewrites")
    pc = shown.pair_counts
    print(f"{pc.pairs} preference pairs ({pc.from_choices} from choices, {pc.from_rewrites} from rewrites, "
          f"{pc.from_ratings} from ratings); {pc.unpaired_good} good answers without a bad one to the same question")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from workbench.core.fsutil import atomic_write_text
    from workbench.core.operations import preference as ops

    lines = ops.export_lines(args.project, args.format)
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    if not args.out:
        sys.stdout.write(text)
        return 0
    atomic_write_text(args.out, text)
    if args.json:
        print_json({"format": args.format, "pairs": len(lines), "out": str(args.out)})
    else:
        print(f"wrote {len(lines)} preference pairs ({args.format}) to {args.out}")
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    from workbench.core import feedback
    from workbench.core.project import Project

    line = feedback.undo(Project.open(args.project).root, args.id)
    if args.json:
        print_json({"undone": args.id, "id": line.id})
    else:
        print(f"took back judgement {args.id}")
    return 0


def add_parser(sub) -> None:
    """``workbench feedback pairs|add|list|export|undo``."""
    fb = sub.add_parser("feedback", help="judge a run's answers; the judgements tune it (train --method dpo)")
    fsub = fb.add_subparsers(dest="feedback_command", required=True)

    pr = fsub.add_parser("pairs", help="sample two answers per question from a run's model, to choose between")
    pr.add_argument("--project", required=True)
    pr.add_argument("--run", required=True, help="the run whose model answers")
    which = pr.add_mutually_exclusive_group(required=True)
    which.add_argument("--rows", type=int, metavar="N", help="questions to sample from --split")
    which.add_argument("--question", metavar="TEXT", help="one question of your own instead")
    pr.add_argument("--split", default="val", metavar="train|val|FILE",
                    help="where the questions come from: a split (default val) or a JSON-lines file of questions")
    pr.add_argument("--seed", type=int, default=0, help="draws the questions and the answers")
    pr.add_argument("--temperature", type=float, default=0.9, help="sampling temperature (default 0.9)")
    pr.add_argument("--max-new-tokens", type=int, help="answer length (default: from the references)")
    pr.add_argument("--device", default="cpu")
    pr.add_argument("--json", action="store_true", help="progress lines, then {\"pairs\": [...]} as the last line")
    pr.set_defaults(func=cmd_pairs)

    ad = fsub.add_parser("add", help="record judgements from a JSON-lines file")
    ad.add_argument("--project", required=True)
    ad.add_argument("--from", dest="from_file", required=True, metavar="FILE",
                    help="lines of {\"pair_id\", \"choice\": \"a\"|\"b\"|\"tie\"} or "
                         "{\"prompt\", \"answer\", \"rating\": 1|-1, \"rewrite\"}")
    ad.add_argument("--json", action="store_true")
    ad.set_defaults(func=cmd_add)

    for name, func, text in (("list", cmd_list, "show the judgements (or, with --format, the preference pairs)"),
                             ("export", cmd_export, "write the preference pairs in a PaddleFormers data format")):
        p = fsub.add_parser(name, help=text)
        p.add_argument("--project", required=True)
        p.add_argument("--format", choices=["erniekit", "chatml"], default=None if name == "list" else "erniekit",
                       help="erniekit (src/tgt/response/sort) or chatml (messages, chosen/rejected responses)")
        p.add_argument("--out", metavar="FILE", help="write to this file (default: show them)")
        p.add_argument("--json", action="store_true")
        p.set_defaults(func=func)

    un = fsub.add_parser("undo", help="take back a judgement (one more line; nothing is rewritten)")
    un.add_argument("--project", required=True)
    un.add_argument("id", help="the judgement's id ('feedback list' shows them)")
    un.add_argument("--json", action="store_true")
    un.set_defaults(func=cmd_undo)
