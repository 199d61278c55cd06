"""`make run` on a machine without a screen runs `workbench demo`: prepare, train, evaluate."""

import subprocess
import sys

import pytest

pytest.importorskip("paddle")


pytestmark = pytest.mark.slow  # the whole headless flow: `make test-slow`


def test_demo_prepares_trains_and_evaluates(tmp_path):
    res = subprocess.run([sys.executable, "-m", "workbench", "demo", "--project", str(tmp_path / "demo"),
                          "--steps", "4"], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert "Traceback" not in res.stderr
    assert "completed" in res.stdout and "macro_f1" in res.stdout and "report" in res.stdout
