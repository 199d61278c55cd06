"""Files written atomically get the permissions an ordinary write gives them.

Seen: saved predictions (.xlsx) and the eval/ files were mode 0600, the temporary file's, so
colleagues sharing the project folder could not read them."""

from __future__ import annotations

import os
import stat
import sys

import pandas as pd
import pytest

from workbench.core.fsutil import atomic_write, atomic_write_json, atomic_write_text, current_umask

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_new_file_follows_the_umask(tmp_path, umask_022):
    assert current_umask() == 0o022
    assert _mode(atomic_write_json(tmp_path / "eval" / "metrics.json", {"accuracy": 0.9})) == 0o644
    path = tmp_path / "predictions.xlsx"
    atomic_write(path, lambda tmp: pd.DataFrame({"text": ["a"], "label": ["b"]}).to_excel(
        tmp, index=False, engine="openpyxl"))
    assert _mode(path) == 0o644
    os.umask(0o027)
    assert _mode(atomic_write_text(tmp_path / "report.html", "<html></html>")) == 0o640


def test_a_replaced_file_keeps_its_permissions(tmp_path, umask_022):
    path = atomic_write_text(tmp_path / "project.json", "{}")
    os.chmod(path, 0o600)
    atomic_write_text(path, "{\"a\": 1}")
    assert _mode(path) == 0o600 and path.read_text() == "{\"a\": 1}"
