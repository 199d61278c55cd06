"""Only core names the files of a run folder: the front ends ask core.operations.runs."""

from __future__ import annotations

import re
from pathlib import Path

import workbench

PKG = Path(workbench.__file__).parent
NAMES = ["events.jsonl", "job.json", "STOP", "worker.pid", "worker.lock", "worker.log", "final", "checkpoints",
         "checkpoint-", "trainer_state.json", "workbench_run.json", "metrics.json", "predictions.csv",
         "report.html", "model_state"]


def test_front_ends_never_name_a_run_folder_file():
    files = [*sorted((PKG / "cli").rglob("*.py")), *sorted((PKG / "gui").rglob("*.py"))]
    found = []
    for f in files:
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            for name in NAMES:
                # as a string literal or a path part: "final", / "final", 'worker.log' ...
                if re.search(rf"""["'/]{re.escape(name)}["'/]""", line):
                    found.append(f"{f.relative_to(PKG)}:{n}: {name}")
    assert not found, "\n".join(found)
