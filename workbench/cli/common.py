"""What the command groups share: the last JSON line, the interface language, number formats, and
keeping the engine's import chatter off stdout."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def print_json(obj: Any) -> None:
    from workbench.core.progress import print_result

    print_result(obj)  # one line, the last one: after progress lines a reader takes the last


def interface_lang() -> str:
    import locale

    loc = (locale.getlocale()[0] or "").lower()
    return "zh" if loc.startswith("zh") else "en"


def clip(v: Any, n: int = 30) -> str:
    s = "" if v is None else str(v).replace("\n", " ")
    return s if len(s) <= n else s[: n - 1] + "…"


# ----- train / runs -------------------------------------------------------------


def format_seconds(s: float | None) -> str:
    from workbench.core.runs import format_duration

    return format_duration(s)


# ----- evaluate / export / playground -------------------------------------------


class StdoutToStderr:
    """While active, anything written to file descriptor 1 (Paddle's C++ code prints
    notes there) goes to stderr, so stdout carries only the command's result."""

    def __enter__(self):
        import os

        sys.stdout.flush()
        try:
            self._saved = os.dup(1)
            os.dup2(2, 1)
        except (OSError, ValueError, AttributeError):  # no real descriptors (embedded)
            self._saved = None
        return self

    def __exit__(self, *exc) -> bool:
        import os

        sys.stdout.flush()
        if self._saved is not None:
            os.dup2(self._saved, 1)
            os.close(self._saved)
        return False


def quiet_engine_imports() -> None:
    """Keep the libraries' import-time notices (build tools, missing PyTorch) off the user's terminal."""
    import os
    import warnings

    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    warnings.filterwarnings("ignore", message="No ccache found")
    warnings.filterwarnings("ignore", message="Setuptools is replacing distutils")


@contextmanager
def engine_work(json_mode: bool) -> Iterator[Callable[[str, float, float], None]]:
    """Where a command's engine work runs: progress (JSON lines with --json), the engine's own
    prints on stderr, its import notices off. "load" comes first, since importing the engine is
    most of the wait before the first row."""
    from workbench.core.progress import ProgressReporter

    with ProgressReporter(json_mode) as progress, StdoutToStderr():
        progress("load", 0, 1)
        quiet_engine_imports()
        yield progress


def format_metric(v: Any) -> str:
    return "-" if v is None else (f"{v:.4f}" if isinstance(v, float) else str(v))


# ----- models -------------------------------------------------------------------


def format_params(n: int | None) -> str:
    if not n:
        return "?"
    if n >= 1e9:
        return f"{n / 1e9:.1f}B"
    return f"{n / 1e6:.0f}M" if n >= 1e6 else f"{n / 1e3:.0f}K"
