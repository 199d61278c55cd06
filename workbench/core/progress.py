"""The progress protocol of the long commands (``data prepare``, ``eval``, ``export``, ``predict``).

With ``--json`` a command writes one JSON object per line on stdout while it works,
``{"event": "progress", "stage": "...", "done": 3, "total": 40}``, and its result as the
last line; front ends (the GUI) read the lines as they come. Without ``--json`` the same
reports draw a progress bar on the terminal (stderr), so stdout keeps only the result.
docs/protocols.md describes it beside the training worker's events.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

PROGRESS_EVENT = "progress"
ERROR_EVENT = "error"
BAR_WIDTH = 24


def progress_record(stage: str, done: int | float, total: int | float) -> dict[str, Any]:
    return {"event": PROGRESS_EVENT, "stage": str(stage), "done": done, "total": total}


def parse_progress(line: str) -> dict[str, Any] | None:
    """The progress report a line holds, or None (for a result, a notice or a torn line)."""
    line = line.strip()
    if not line.startswith('{"event"'):
        return None
    try:
        ev = json.loads(line)
    except ValueError:
        return None
    if not isinstance(ev, dict) or ev.get("event") != PROGRESS_EVENT:
        return None
    done, total = ev.get("done"), ev.get("total")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (done, total)):
        return None
    return {"stage": str(ev.get("stage", "")), "done": done, "total": total}


def error_record(exc) -> dict[str, Any]:
    """A failed command's last line under ``--json``: the error's code, fields and English
    message (core.errors.WorkbenchError), for a front end that words the code itself."""
    return {"event": ERROR_EVENT, "code": getattr(exc, "code", None), "fields": getattr(exc, "fields", {}) or {},
            "message": str(exc)}


def parse_error(line: str) -> dict[str, Any] | None:
    """The error a line holds (``code``, ``fields``, ``message``), or None."""
    line = line.strip()
    if not line.startswith('{"event"'):
        return None
    try:
        ev = json.loads(line)
    except ValueError:
        return None
    if not isinstance(ev, dict) or ev.get("event") != ERROR_EVENT or not isinstance(ev.get("message"), str):
        return None
    code, fields = ev.get("code"), ev.get("fields")
    return {"code": code if isinstance(code, str) else None, "fields": fields if isinstance(fields, dict) else {},
            "message": ev["message"]}


def fraction(done: float, total: float) -> float:
    return min(max(done / total, 0.0), 1.0) if total else 0.0


class ProgressReporter:
    """``reporter(stage, done, total)``: JSON lines on stdout, or a bar on the terminal.

    The JSON goes to a duplicate of the descriptor stdout had when the reporter was made,
    so it still reaches the reader while the command sends library output on descriptor 1
    to stderr (Paddle's C++ code prints there).
    """

    def __init__(self, as_json: bool, err: IO[str] | None = None):
        self.as_json = as_json
        self.err = err or sys.stderr
        self._out: IO[str] = sys.stdout
        if as_json:
            try:
                sys.stdout.flush()
                self._out = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8", closefd=True)
            except (AttributeError, OSError, ValueError):  # no real descriptor (embedded, captured)
                self._out = sys.stdout
        self._stage: str | None = None
        self._last: tuple | None = None
        self._tty = hasattr(self.err, "isatty") and self.err.isatty()

    def __call__(self, stage: str, done: int | float, total: int | float) -> None:
        if self.as_json:
            # one line per whole percent of a stage at most: a million rows stay a hundred lines
            key = (stage, int(100 * done / total) if total else done)
            if key == self._last:
                return
            self._last = key
            self._out.write(json.dumps(progress_record(stage, done, total), ensure_ascii=False) + "\n")
            self._out.flush()
            return
        new = stage != self._stage
        if new and self._stage is not None and self._tty:
            self.err.write("\n")
        self._stage = stage
        if self._tty:  # one line redrawn in place
            filled = int(BAR_WIDTH * fraction(done, total))
            count = f" {done}/{total}" if total and total > 1 else ""
            self.err.write(f"\r  {stage:<12} [{'#' * filled:<{BAR_WIDTH}}]{count}  ")
        elif done == total or (new and total <= 1):  # a log file gets a line per stage done
            count = f" {done}/{total}" if total and total > 1 else ""
            self.err.write(f"  {stage}{count}\n")
        self.err.flush()

    def close(self) -> None:
        if not self.as_json and self._tty and self._stage is not None:
            self.err.write("\n")
            self.err.flush()
        if self._out is not sys.stdout:
            self._out.close()
        self._stage = None

    def __enter__(self) -> "ProgressReporter":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False


def print_result(obj: Any, out: IO[str] | None = None) -> None:
    """A command's result under ``--json``: one line, the last one on stdout."""
    out = out or sys.stdout
    out.write(json.dumps(obj, ensure_ascii=False, default=str) + "\n")
    out.flush()
