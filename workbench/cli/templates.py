"""``workbench templates``: the vertical templates, and a project saved as an organisation's own."""

from __future__ import annotations

import argparse
import sys

from workbench.cli.common import interface_lang, print_json

# ----- templates --------------------------------------------------------------


def cmd_templates(args: argparse.Namespace) -> int:
    from workbench.core.templates import TemplateCatalog

    catalog = TemplateCatalog()
    if args.json:
        print_json({"templates": [t.summary() for t in catalog], "problems": catalog.problems})
        return 0
    lang = interface_lang()
    for vertical, items in catalog.by_vertical().items():
        print(f"[{vertical}]")
        for t in items:
            labels = f"  labels: {', '.join(t.labels)}" if t.labels else ""
            print(f"  {t.id:<20} {t.task.value:<15} {t.name.get(lang)}{labels}")
    for problem in catalog.problems:
        print(f"warning: {problem}", file=sys.stderr)
    return 0


def cmd_templates_save(args: argparse.Namespace) -> int:
    from workbench.core.operations.save_template import save_as_template
    from workbench.core.templates import load_template

    folder = save_as_template(args.project, args.id, name_zh=args.name_zh, name_en=args.name_en)
    spec = load_template(folder)
    if args.json:
        print_json(spec.summary())
    else:
        labels = f" with {len(spec.labels)} labels ({', '.join(spec.labels)})" if spec.labels else ""
        print(f"saved template {spec.id}{labels} to {folder}")
    return 0


def add_parser(sub) -> None:
    """``workbench templates`` and ``templates save``."""
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
