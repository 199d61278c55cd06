"""Atomic writes: a temporary file in the same folder, then an atomic rename.

A crash mid-write leaves either the old file or the new one, never half of one. The file
gets the permissions an ordinary write would give it: those of the file it replaces, or
0o666 less the user's umask (the temporary file is made private, 0o600).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any


def atomic_write(path: str | os.PathLike, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp_path)`` and rename the result onto ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        write(tmp_path)
        with open(tmp_path, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp_path, _mode_for(path))
        os.replace(tmp_path, path)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    return path


def _mode_for(path: Path) -> int:
    """The permissions a new ``path`` is written with: the replaced file's, else the umask's."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    """The process's umask, read without changing it where the system tells it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and put back at once
    os.umask(mask)
    return mask


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    return atomic_write(path, lambda p: p.write_bytes(data))


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | os.PathLike, obj: Any) -> Path:
    return atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def write_jsonl(path: str | os.PathLike, records: list[dict]) -> Path:
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    return atomic_write_text(path, lines)


def read_jsonl(path: str | os.PathLike) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
