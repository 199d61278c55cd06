"""Entry point of the built application (PyInstaller one-folder build).

The application folder has no separate Python interpreter, yet parts of Workbench and
its libraries start ``sys.executable`` as if it were one: the GUI runs
``-m workbench ...`` and ``-m workbench.engine.envcheck``, the export converts to ONNX
with ``-c CODE`` and checks the bundle with ``predict.py``. So, when frozen, the
executable understands these interpreter forms as well as the Workbench commands:

    Workbench                         the desktop application
    Workbench COMMAND ...             the headless commands (workbench --help)
    Workbench --worker RUN_DIR        the training worker (what launch_worker starts)
    Workbench --selftest              the installation check
    Workbench -m MODULE [ARGS]        run a bundled module as __main__
    Workbench -c CODE [ARGS]          run CODE
    Workbench SCRIPT.py [ARGS]        run a script, e.g. an exported bundle's predict.py

Interpreter flags such as ``-u``, ``-B``, ``-s``, ``-E`` or ``-I`` before them are accepted
and ignored, as is ``-W``/``-X`` with their value.
"""

from __future__ import annotations

import os
import sys

_FLAGS = {"-u", "-B", "-s", "-S", "-E", "-I", "-O", "-OO", "-q", "-b", "-bb", "-d", "-P"}
_FLAGS_WITH_VALUE = {"-W", "-X"}


def _strip_interpreter_flags(argv: list[str]) -> list[str]:
    i = 0
    while i < len(argv):
        if argv[i] in _FLAGS:
            i += 1
        elif argv[i] in _FLAGS_WITH_VALUE and i + 1 < len(argv):
            i += 2
        else:
            break
    return argv[i:]


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_as_interpreter(argv: list[str]) -> int | None:
    """Run ``-m``, ``-c`` or ``script.py`` the way the interpreter would; None when
    ``argv`` is not one of these forms (then it is a Workbench command line)."""
    import runpy

    args = _strip_interpreter_flags(list(argv))
    if len(args) >= 2 and args[0] == "-m":
        module, rest = args[1], args[2:]
        if module == "workbench":
            from workbench.cli import main

            return main(rest)
        sys.argv = [module, *rest]
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            return _exit_code(exc)
        return 0
    if len(args) >= 2 and args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        if "" not in sys.path:
            sys.path.insert(0, "")
        namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        try:
            exec(compile(args[1], "<string>", "exec"), namespace)
        except SystemExit as exc:
            return _exit_code(exc)
        return 0
    if args and args[0].endswith((".py", ".pyw")) and os.path.isfile(args[0]):
        script = os.path.abspath(args[0])
        sys.argv = [args[0], *args[1:]]
        sys.path.insert(0, os.path.dirname(script))
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            return _exit_code(exc)
        return 0
    return None


def restore_library_path() -> None:
    """On Linux the bootloader puts the application's library folder first on
    LD_LIBRARY_PATH. This process has read it already (the dynamic loader reads it once, at
    start); programs it starts must not inherit it, or a file manager or browser opened
    from Workbench would load the application's Qt instead of its own. Workbench's own
    child processes get it again from their bootloader."""
    if not sys.platform.startswith("linux") or "LD_LIBRARY_PATH" not in os.environ:
        return
    original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    if original:
        os.environ["LD_LIBRARY_PATH"] = original
    else:
        del os.environ["LD_LIBRARY_PATH"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if getattr(sys, "frozen", False):
        restore_library_path()
        code = run_as_interpreter(argv)
        if code is not None:
            return code
    from workbench.cli import main as cli_main

    return cli_main(argv)
