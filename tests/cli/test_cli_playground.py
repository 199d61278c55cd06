"""The command line's playground in plain text, through the real parser and engine on a run of the
built-in tiny model trained for a few steps.

Seen: a classification answer printed its label twice, "label: 负面  (负面 0.966  正面 0.034)负面":
the engine follows the labels event with the label as answer text (the window already ignores it).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("paddle")


@pytest.mark.slow
def test_a_classifiers_answer_prints_its_label_once(tmp_path):
    from trained_factory import CLS, RUN, trained_project

    project = trained_project(CLS, tmp_path)  # 4 steps of the built-in tiny classifier
    labels = list(project.task.labels)
    res = subprocess.run([sys.executable, "-m", "workbench", "playground", "--project", str(project.root),
                          "--run", RUN, "--", "公司业绩大增"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.splitlines()
    assert lines and all(line.strip() for line in lines), res.stdout  # no empty lines around the answer
    assert len(lines) == 1, res.stdout
    line = lines[0]
    assert line.startswith("label: ")
    label = line[len("label: "):].split("  (", 1)[0]
    assert label in labels
    # the probabilities end the line: nothing follows them, the label not again
    assert line.endswith(")") and line.count(label) == 2  # once as the answer, once among the probabilities
    assert all(f"{name} " in line for name in labels)


@pytest.mark.slow
def test_a_generated_answer_ends_its_line_and_has_no_label(tmp_path):
    from trained_factory import INST, RUN, trained_project

    project = trained_project(INST, tmp_path)
    res = subprocess.run([sys.executable, "-m", "workbench", "playground", "--project", str(project.root),
                          "--run", RUN, "--max-new-tokens", "6", "--", "利率是多少？"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "label:" not in res.stdout
    assert res.stdout == "" or (res.stdout.endswith("\n") and not res.stdout.endswith("\n\n")), repr(res.stdout)
    assert "tokens," in res.stderr  # the count and time go to the error stream, apart from the answer
