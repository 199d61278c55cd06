"""What the benches share: Workbench's real command line, run in a child as a person runs it,
and the JSON result it prints last."""

from __future__ import annotations

import json
import subprocess
import sys


def wb(*args, timeout: int = 7200) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def last_json(stdout: str) -> dict:
    """The command's result: the last JSON object on stdout (progress lines come first; a
    result may span several lines)."""
    lines = stdout.strip().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith("{"):
            try:
                return json.loads("\n".join(lines[i:]))
            except ValueError:
                continue
    raise ValueError("no JSON result on stdout")
