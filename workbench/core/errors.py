"""Errors meant for the user: one paragraph that says what was wrong and what to do.

An error the user meets often carries a stable ``code`` and the ``fields`` its text is made
from, beside its English message. The command line prints the message; the window words the
code in its own language (gui/error_texts.py), so the decision what went wrong is made once,
here, and each front end says it in its own words. A child command run with ``--json`` ends
with the same code and fields as its last line (core.progress.error_record).
"""

from __future__ import annotations

from typing import Any


class WorkbenchError(Exception):
    """A problem the user can fix. The CLI prints its message without a traceback.

    ``code`` names the problem for the window, which has its own translated text for it;
    ``fields`` are that text's names and figures (strings, numbers or lists of them)."""

    def __init__(self, message: str = "", *, code: str | None = None, **fields: Any):
        super().__init__(message)
        self.code = code
        self.fields = fields


class DataError(WorkbenchError):
    """The input data cannot be read or does not fit the template."""


class TemplateError(WorkbenchError):
    """A template spec is invalid or unknown."""


class ProjectError(WorkbenchError):
    """A project folder is missing, damaged or in the wrong state."""


class Cancelled(WorkbenchError):
    """The user cancelled a long operation; nothing it would have written was left behind."""


def coded(message: str, code: str, **fields: Any) -> dict[str, Any]:
    """A problem reported inside a result rather than raised (a server check's ``problems``):
    the same code, fields and English message an error carries."""
    return {"code": code, "fields": fields, "message": message}


def os_error(exc: OSError) -> WorkbenchError:
    """What a failed read or write means for the user, and what to do, with its code:
    ``disk_full``, ``no_access``, ``not_where_expected`` or ``io_error`` (fields ``path``
    and ``reason``, the system's own words)."""
    import errno

    path = str(exc.filename or "")
    where = f" ({path})" if path else ""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOSPC:
        return WorkbenchError(
            f"The disk is full{where}. Free some space, for example by deleting runs you no longer need from the "
            "project's runs folder (each keeps its checkpoints), then try again. What was saved before is intact: "
            "files are written in full before they replace the old ones.", code="disk_full", path=path, reason=reason)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return WorkbenchError(
            f"Workbench may not read or write this place{where}: {reason}. Choose a folder of your own (for "
            "example in your home folder), or ask the owner of this one for access, then try again.",
            code="no_access", path=path, reason=reason)
    if exc.errno in (errno.ENOTDIR, errno.EISDIR, errno.ENOENT, errno.EEXIST):
        return WorkbenchError(
            f"A file or folder is not where it was expected{where}: {reason}. Check the path (a folder name may be "
            "taken by a file, or a folder may be missing), then try again.",
            code="not_where_expected", path=path, reason=reason)
    return WorkbenchError(
        f"A file could not be read or written{where}: {reason}. Check that it exists, that you may open it and "
        "that the disk is not full, then try again.", code="io_error", path=path, reason=reason)


def os_error_message(exc: OSError) -> str:
    """The words the command line and the training worker print for a failed read or write."""
    return str(os_error(exc))
