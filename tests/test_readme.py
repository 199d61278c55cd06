"""The README's paths exist and its data example runs as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from workbench.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# the repository's own folders; a path under one of them is a file or folder of this tree
TOP = ("workbench", "templates", "bench", "docs", "installer", "tests", "resources")
PATH = re.compile(r"(?<![\w./~-])((?:%s)/[\w./-]*)" % "|".join(TOP))


def _paths() -> list[str]:
    found = {m.group(1).rstrip(".,;:)") for m in PATH.finditer(README)}
    return sorted(p for p in found if p.rstrip("/") not in TOP or p.endswith("/"))


def test_every_path_the_readme_names_exists():
    paths = _paths()
    assert "bench/gui_bench.py" in paths and len(paths) > 20  # the pattern finds them
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"The README names paths that do not exist: {missing}"


def test_the_readme_data_example_runs(tmp_path, monkeypatch, capsys):
    block = next(b for b in re.findall(r"```\n(.*?)```", README, re.S) if b.startswith(".venv/bin/workbench data prepare"))
    argv = shlex.split(block.replace("\\\n", " "))
    assert argv[0].endswith("workbench") and argv[1:3] == ["data", "prepare"]
    argv = [str(tmp_path / "news") if a.startswith("~") else a for a in argv[1:]]
    monkeypatch.chdir(ROOT)  # "from a terminal in the repository"
    assert cli_main(argv) == 0, capsys.readouterr().err
    assert (tmp_path / "news" / "project.json").is_file()
