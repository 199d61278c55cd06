"""``workbench demo``: the sample flow on the embedded defaults, headless."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from workbench.cli.common import interface_lang
from workbench.cli.data import print_prepare_summary
from workbench.cli import evaluate_export
from workbench.cli.evaluate_export import cmd_eval
from workbench.cli.runs import follow_run

# ----- demo -------------------------------------------------------------------


def cmd_demo(args: argparse.Namespace) -> int:
    """The embedded-defaults flow, headless: a sample template's data prepared into a
    project, the built-in tiny model trained on it in the worker, then evaluated."""
    from workbench.core.operations import runs as run_operations
    from workbench.core.paths import default_projects_dir
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    template = TemplateCatalog().get(args.template)
    root = Path(args.project) if args.project else default_projects_dir() / f"sample-{template.id}"
    print(f"Workbench demo: template {template.id} ({template.name.get(interface_lang())}), its synthetic sample data")
    project, summary = prepare(template, template.sample_path, root)
    print_prepare_summary(summary)
    if args.steps <= 0:
        return 0
    job = run_operations.build_job(project, "builtin:tiny", template=template, max_steps=args.steps, learning_rate=3e-3,
                        max_length=128, eval_steps=args.steps, logging_steps=5, device="cpu")
    started = run_operations.start_run(project, job, detach=False)
    run_dir = started.run_dir
    print()
    status = follow_run(run_dir, started.proc, as_json=False)
    if status != "completed":
        return 1
    print()
    # through the real parser of ``eval``, so the evaluation gets every option's default
    parser = argparse.ArgumentParser(prog="workbench")
    evaluate_export.add_parser(parser.add_subparsers(dest="command"))
    cmd_eval(parser.parse_args(["eval", "--project", str(project.root), "--run", run_dir.name, "--max-new-tokens", "48"]))
    print(f"\nNext: open the desktop application with '{Path(sys.argv[0]).name} gui --project {project.root}', "
          f"or export with 'workbench export --project {project.root} --run {run_dir.name}'.")
    return 0


def add_parser(sub) -> None:
    """``workbench demo``."""
    demo = sub.add_parser("demo", help="run the sample flow on the embedded defaults")
    demo.add_argument("--template", default="finance_sentiment")
    demo.add_argument("--project")
    demo.add_argument("--steps", type=int, default=60, help="training steps of the built-in tiny model (0: data only)")
    demo.set_defaults(func=cmd_demo)
