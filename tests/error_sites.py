"""Where the core and the engine make the errors a person reads: every construction of a
:class:`~workbench.core.errors.WorkbenchError` subclass, found in the source, with the code
and the fields it is given. The tests of the codes (tests/core/test_error_codes.py) and of
their texts in the window (tests/gui/test_error_texts.py) walk the same sites."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "workbench"


def _modules(*parts: str) -> Iterator[tuple[Path, ast.Module]]:
    """The modules under ``workbench/<part>`` for each part (all but the window's without one),
    but not the bundle's own files: they are copied into every export and run without the
    workbench (engine/bundle), and answer HTTP clients with codes of their own."""
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).parts
        if where[:2] == ("engine", "bundle") or (parts and where[0] not in parts) or where[0] == "gui":
            continue
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _gives_code(call: ast.Call) -> bool:
    return any(k.arg == "code" for k in call.keywords)


def error_classes() -> tuple[set[str], set[str]]:
    """(the WorkbenchError subclasses of the core and the engine, those of them whose
    ``__init__`` gives the code itself)."""
    bases: dict[str, set[str]] = {}
    coded: set[str] = set()
    for _path, tree in _modules("core", "engine"):
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases.setdefault(node.name, set()).update(_name(b) for b in node.bases)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__" and any(
                        isinstance(c, ast.Call) and _name(c.func) == "__init__" and _gives_code(c)
                        for c in ast.walk(item)):
                    coded.add(node.name)

    def derives(name: str, seen: frozenset = frozenset()) -> bool:
        return name == "WorkbenchError" or any(derives(b, seen | {name}) for b in bases.get(name, ())
                                               if b not in seen)

    return {name for name in bases if derives(name)} | {"WorkbenchError"}, coded


def codes_of(call: ast.Call) -> set[str]:
    """The codes a call gives: a string, or either of two (``"a" if x else "b"``)."""
    for k in call.keywords:
        if k.arg == "code":
            value = k.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return {value.value}
            if isinstance(value, ast.IfExp):
                return {v.value for v in (value.body, value.orelse)
                        if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    if _name(call.func) == "coded" and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant):
        return {call.args[1].value}
    return set()


@dataclass
class Site:
    path: str  # relative to workbench/
    line: int
    function: str  # the function it is made in ("" at module level)
    cls: str  # the error's class
    call: ast.Call

    @property
    def coded(self) -> bool:
        return _gives_code(self.call)

    @property
    def fields(self) -> set[str]:
        return {k.arg for k in self.call.keywords if k.arg and k.arg != "code"}

    def __str__(self) -> str:
        return f"workbench/{self.path}:{self.line} ({self.function or 'module'}): {self.cls}"


def error_sites(*parts: str) -> list[Site]:
    """Every construction of a WorkbenchError subclass under ``workbench/<part>``; a class of the
    same name that a module defines for itself (cleaning's own Cancelled) is not one."""
    errors, _ = error_classes()
    sites = []
    for path, tree in _modules(*parts):
        own = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
               and not any(_name(b) in errors for b in n.bases) and n.name != "WorkbenchError"}

        def visit(node: ast.AST, function: str) -> None:
            for child in ast.iter_child_nodes(node):
                name = function
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = child.name
                if isinstance(child, ast.Call) and _name(child.func) in errors - own:
                    sites.append(Site(str(path.relative_to(PACKAGE)), child.lineno, function,
                                      _name(child.func), child))
                visit(child, name)

        visit(tree, "")
    return sites


def coded_calls() -> Iterator[tuple[str, int, ast.Call]]:
    """Every call outside the window that gives a code: an error's construction (a WorkbenchError subclass's, or
    any ``...Error`` such as the importer's TextFileError), ``super().__init__`` in an error
    class, and ``coded()`` for a problem reported in a result."""
    errors, _ = error_classes()
    for path, tree in _modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = _name(node.func)
            if not (func in errors or func in ("coded", "__init__")
                    or (func.endswith("Error") and func != "HTTPError")):
                continue  # the worker's log events and the mapping's problems have codes of their own
            if codes_of(node):
                yield str(path.relative_to(PACKAGE)), node.lineno, node
