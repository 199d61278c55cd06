"""Headless commands: the same code the GUI runs, for scripts and clusters. ``main`` is the entry
point; each command group lives in a module of its own and adds its parsers here.

Exit status: 0 success, 2 bad input (a one-paragraph message on stderr, no traceback),
1 an unexpected internal error.
"""

from __future__ import annotations

import argparse
import sys

from workbench.cli import data, demo, evaluate_export, feedback, models, review, runs, targets, templates
from workbench.core.errors import WorkbenchError, os_error


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="workbench", description="Fine-tune, evaluate and export language models on PaddlePaddle.")
    p.add_argument("--selftest", action="store_true",
                   help="check this installation end to end (imports, GUI, train, evaluate, export) and exit")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("gui", help="open the desktop application (also: workbench with no arguments)",
                   add_help=False).add_argument("--project", help="open this project folder")
    for group in (templates, data, runs, feedback, targets, demo, evaluate_export, review, models):
        group.add_parser(sub)
    return p


def _failed(exc: WorkbenchError, args: argparse.Namespace) -> int:
    """Bad input: the message for people on stderr and, under ``--json``, the error's code and
    fields as the last line on stdout, which the window words in its own language."""
    print(f"error: {exc}", file=sys.stderr)
    if getattr(args, "json", False):
        from workbench.core.progress import error_record, print_result

        print_result(error_record(exc))
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--selftest"]:  # check this installation end to end (see workbench/selftest.py)
        from workbench.selftest import main as selftest_main

        return selftest_main(argv[1:])
    if argv[:1] == ["--worker"]:  # the training worker, for the built application (no "python -m" there)
        from workbench.engine.worker import main as worker_main

        return worker_main(argv[1:])
    if not argv or argv[0] == "gui":  # no command: the desktop application
        from workbench.gui.app import main as gui_main

        return gui_main(list(argv[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        if getattr(args, "on", None) and args.command in ("eval", "export", "playground"):
            from workbench.cli.targets import run_on_server

            return run_on_server(args, argv)
        return int(args.func(args) or 0)
    except WorkbenchError as exc:
        return _failed(exc, args)
    except OSError as exc:  # a path that is a file, a full disk, a folder without rights
        return _failed(os_error(exc), args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
