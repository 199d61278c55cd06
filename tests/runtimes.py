"""The programs an exported model is run with, for the tests that run it there: llama.cpp's
Python binding and a Go toolchain (ollama renders a Modelfile's TEMPLATE with Go's
text/template).

Neither is a dependency of the product. Where one is missing its tests skip, unless
``WORKBENCH_REQUIRE_RUNTIMES`` names it (comma-separated: ``llama_cpp``, ``go``): CI installs
both before the long tests and sets it, so a failed install fails those tests instead of
leaving them silently skipped.
"""

from __future__ import annotations

import importlib
import os
import shutil

import pytest

REQUIRE_VARIABLE = "WORKBENCH_REQUIRE_RUNTIMES"


def required() -> set[str]:
    return {x.strip() for x in os.environ.get(REQUIRE_VARIABLE, "").split(",") if x.strip()}


def _missing(name: str, why: str):
    if name in required():
        pytest.fail(f"{why}, and {REQUIRE_VARIABLE} says it must be there (its install step failed?)", pytrace=False)
    pytest.skip(why)


def llama_cpp():
    """The llama_cpp module (llama-cpp-python)."""
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as exc:
        _missing("llama_cpp", f"llama-cpp-python is not installed ({exc})")


def go() -> str:
    """The path of the ``go`` command."""
    path = shutil.which("go")
    if path is None:
        _missing("go", "no Go toolchain ('go' is not on PATH)")
    return path
