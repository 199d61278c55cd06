"""``workbench targets``: the servers runs can train on (core/targets.py, core/remote.py)."""

from __future__ import annotations

import argparse
import json


def cmd_targets_add(args: argparse.Namespace) -> int:
    from workbench.core.targets import add_target

    hosts = [h.strip() for h in (args.hosts or "").split(",") if h.strip()]
    t = add_target(args.name, args.url, workdir=args.workdir, python=args.python, devices=args.devices,
                   hosts=hosts or None, ssh_config=args.ssh_config)
    if args.json:
        print(json.dumps(t.model_dump(), ensure_ascii=False))
    else:
        print(f"registered server {t.name} ({t.url}, work folder {t.workdir}, devices {t.devices}); "
              f"check it with: workbench targets check {t.name}")
    return 0


def cmd_targets_list(args: argparse.Namespace) -> int:
    from workbench.core.targets import list_targets

    targets = list_targets()
    if args.json:
        print(json.dumps({"targets": [t.model_dump() for t in targets]}, ensure_ascii=False))
        return 0
    if not targets:
        print("no servers registered; add one with: workbench targets add NAME ssh://user@host")
    for t in targets:
        print(f"{t.name:<16} {t.url:<32} {t.devices:<10} {t.workdir}")
    return 0


def cmd_targets_check(args: argparse.Namespace) -> int:
    from workbench.core.remote import check
    from workbench.core.targets import get_target

    report = check(get_target(args.name))
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return 0 if not report["problems"] else 1
    server = report.get("server") or {}
    print(f"server {report['target']} ({report['url']}), work folder {report['workdir']}")
    if server:
        print(f"  Workbench {server.get('workbench_version')}, Paddle {server.get('paddle_version')}, "
              f"PaddleFormers {server.get('paddleformers_version')}, Python {server.get('python')}")
        gpus = ", ".join(f"{g['name']} ({g['memory_mb']:,} MB)" for g in server.get("gpus") or [])
        print(f"  devices: {', '.join(map(str, server.get('devices', [])))}{'; ' + gpus if gpus else ''}; "
              f"{server.get('cpu_count')} CPU cores")
        print(f"  free: {server.get('disk_free_mb', 0):,} MB of disk in the work folder, "
              f"{server.get('memory_free_mb') or 0:,} MB of memory")
        print(f"  Paddle's own check: {'passed' if (server.get('run_check') or {}).get('ok') else 'FAILED'}")
    for p in report["problems"]:
        print(f"problem: {p['message']}")
    if not report["problems"]:
        print("ready: train there with --on " + report["target"])
    return 0 if not report["problems"] else 1


def cmd_targets_remove(args: argparse.Namespace) -> int:
    from workbench.core.targets import remove_target

    t = remove_target(args.name)
    print(f"removed server {t.name} (nothing on the server was deleted)")
    return 0


def cmd_targets_wheelhouse(args: argparse.Namespace) -> int:
    from workbench.core.remote import wheelhouse

    wheels = wheelhouse(args.dir, deps=not args.no_deps)
    size = sum(w.stat().st_size for w in wheels) / 2**20
    print(f"wrote {len(wheels)} wheels ({size:,.0f} MB) and constraints.txt to {args.dir}; on the server: "
          f"python3 -m pip install --no-index --find-links DIR -c DIR/constraints.txt workbench")
    return 0


def run_on_server(args: argparse.Namespace, argv: list[str]) -> int:
    """``eval``, ``export`` or ``playground --on SERVER``: the same command on the server the run
    trained on, with the project there; its results come down (the evaluation into the run
    folder, the bundle into --out)."""
    from pathlib import Path

    from workbench.core.errors import WorkbenchError
    from workbench.core.project import Project
    from workbench.core.remote import remote_info, run_command_there
    from workbench.core.runs import run_dir_of

    project = Project.open(args.project)
    run_dir = run_dir_of(project.root, args.run)
    info = remote_info(run_dir)
    if info is None or info.target != args.on:
        where = f"server '{info.target}'" if info else "this computer"
        raise WorkbenchError(f"Run '{run_dir.name}' trained on {where}, so --on {args.on} cannot reach its weights; "
                             f"leave out --on{'' if info is None else ' or use --on ' + info.target}.")
    rest, skip = [], False
    for i, a in enumerate(argv):  # the same arguments, but the project is the server's folder
        if skip:
            skip = False
            continue
        if a in ("--on", "--project", "--out"):
            skip = True
            continue
        if a.startswith(("--on=", "--project=", "--out=")):
            continue
        rest.append(a)
    out = None
    if args.command == "export":
        out = Path(args.out) if args.out else project.exports_dir / run_dir.name
        if out.exists() and any(out.iterdir()):
            raise WorkbenchError(f"{out} is not empty; choose a new or empty folder with --out.")
        rest += ["--out", f"exports/{run_dir.name}-{int(__import__('time').time())}"]
    return run_command_there(run_dir, [rest[0], "--project", ".", *rest[1:]], out)


def add_parser(sub) -> None:
    """``workbench targets add``, ``list``, ``check``, ``wheelhouse`` and ``remove``."""
    t = sub.add_parser("targets", help="the servers runs can train on, reached over SSH: add, list, check, remove")
    tsub = t.add_subparsers(dest="targets_command", required=True)
    ta = tsub.add_parser("add", help="register a server (no password is stored: your SSH key logs in)")
    ta.add_argument("name")
    ta.add_argument("url", help="ssh://[user@]host[:port]")
    ta.add_argument("--workdir", help="the folder on the server for projects and models (default: "
                                      "workbench-server in your home there)")
    ta.add_argument("--python", help="the Python on the server that has Workbench (default: python3)")
    ta.add_argument("--devices", help="cpu, gpu:0,1, npu:0 ... (default: cpu)")
    ta.add_argument("--hosts", help="several hosts sharing the work folder: h1,h2")
    ta.add_argument("--ssh-config", help="an ssh config file of its own (passed to ssh as -F)")
    ta.add_argument("--json", action="store_true")
    ta.set_defaults(func=cmd_targets_add)
    tl = tsub.add_parser("list", help="list the registered servers")
    tl.add_argument("--json", action="store_true")
    tl.set_defaults(func=cmd_targets_list)
    tc = tsub.add_parser("check", help="connect and report versions, devices, free disk and memory")
    tc.add_argument("name")
    tc.add_argument("--json", action="store_true")
    tc.set_defaults(func=cmd_targets_check)
    tw = tsub.add_parser("wheelhouse", help="write Workbench and every package it needs, pinned as here, for a "
                                             "server without internet")
    tw.add_argument("dir")
    tw.add_argument("--no-deps", action="store_true", help="Workbench's own wheel and the pins only")
    tw.set_defaults(func=cmd_targets_wheelhouse)
    tr = tsub.add_parser("remove", help="forget a server (its files there stay)")
    tr.add_argument("name")
    tr.set_defaults(func=cmd_targets_remove)
