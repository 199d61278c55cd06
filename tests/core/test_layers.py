"""The layer rule: core imports neither Qt nor paddle; the GUI never reaches the engine."""

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import workbench

PKG = Path(workbench.__file__).parent
FORBIDDEN_IN_CORE = ("paddle", "paddleformers", "paddle2onnx", "PySide6", "pyqtgraph", "shiboken6")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_core_sources_import_no_qt_or_paddle():
    offenders = []
    for path in (PKG / "core").rglob("*.py"):
        for name in _imports(path):
            if name.split(".")[0] in FORBIDDEN_IN_CORE:
                offenders.append(f"{path.relative_to(PKG)}: {name}")
    assert not offenders, offenders


def test_importing_all_of_core_loads_no_qt_or_paddle():
    mods = [m.name for m in pkgutil.walk_packages([str(PKG / "core")], "workbench.core.")]
    assert "workbench.core.templates" in mods
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN_IN_CORE!r})\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_gui_sources_do_not_import_engine_or_paddle():
    gui = PKG / "gui"
    offenders = []
    for path in gui.rglob("*.py") if gui.is_dir() else []:
        for name in _imports(path):
            if name.split(".")[0] in ("paddle", "paddleformers") or name.startswith("workbench.engine"):
                offenders.append(f"{path.relative_to(PKG)}: {name}")
        if "..engine" in path.read_text(encoding="utf-8"):
            offenders.append(f"{path.relative_to(PKG)}: relative import of engine")
    assert not offenders, offenders
