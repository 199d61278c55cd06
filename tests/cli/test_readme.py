"""The README and the pages under docs/: the paths and links they name exist, and the README's
data example runs as written."""

from __future__ import annotations

import re
import shlex
import unicodedata
from pathlib import Path

import pytest

from workbench.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
         for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
# the repository's own folders; a path under one of them is a file or folder of this tree
TOP = ("workbench", "templates", "bench", "docs", "installer", "tests", "resources")
PATH = re.compile(r"(?<![\w./~-])((?:%s)/[\w./-]*)" % "|".join(TOP))
# a Markdown link or image to a file of this tree: not a web address, not a bare anchor
LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s]+)\)")


def _paths(text: str) -> list[str]:
    found = {m.group(1).rstrip(".,;:)") for m in PATH.finditer(text)}
    return sorted(p for p in found if p.rstrip("/") not in TOP or p.endswith("/"))


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.replace("`", "").replace("*", "").strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return text.replace(" ", "-")


def _anchors(text: str) -> set[str]:
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} +(.+?) *$", text, re.M)}


def test_the_readme_is_a_short_start():
    assert len(README.splitlines()) <= 200
    assert "make run" in README and "make test" in README
    for step in ("Template", "Data", "Train", "Evaluate", "Export"):
        assert f"**{step}**" in README
    images = re.findall(r"!\[[^\]]*\]\((docs/screenshots/[^)]+)\)", README)
    assert any("/zh/" in i for i in images) and any("/zh/" not in i for i in images), images


def test_every_path_the_docs_name_exists():
    paths = sorted({p for text in PAGES.values() for p in _paths(text)})
    assert "bench/gui_bench.py" in paths and len(paths) > 20  # the pattern finds them
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"The README or docs/ name paths that do not exist: {missing}"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_every_link_of_a_page_leads_somewhere(page):
    broken = []
    for target in LINK.findall(PAGES[page]):
        file, _, anchor = target.partition("#")
        path = (ROOT / page).parent / file
        if not path.exists():
            broken.append(target)
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path.read_text(encoding="utf-8")):
            broken.append(target)
    assert not broken, f"{page} links to what does not exist: {broken}"


def test_every_page_under_docs_is_reached_from_the_readme():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in LINK.findall(README)}
    unlinked = [p for p in PAGES if p != "README.md" and (ROOT / p).resolve() not in linked]
    assert not unlinked, f"the README does not link {unlinked}"


def test_the_link_checks_see_links_and_anchors():
    assert LINK.findall("[a](docs/cli.md#workbench-train) ![b](x.png) [c](https://e.org) [d](#top)") == \
        ["docs/cli.md#workbench-train", "x.png"]
    assert _slug("`workbench data prepare`") == "workbench-data-prepare"
    assert _slug("The GGUF file where people run it (tests/test_gguf_runtimes.py)") == \
        "the-gguf-file-where-people-run-it-teststest_gguf_runtimespy"
    assert "workbench-train" in _anchors(PAGES["docs/cli.md"])


def test_the_readme_data_example_runs(tmp_path, monkeypatch, capsys):
    block = next(b for b in re.findall(r"```\n(.*?)```", README, re.S) if b.startswith(".venv/bin/workbench data prepare"))
    argv = shlex.split(block.replace("\\\n", " "))
    assert argv[0].endswith("workbench") and argv[1:3] == ["data", "prepare"]
    argv = [str(tmp_path / "news") if a.startswith("~") else a for a in argv[1:]]
    monkeypatch.chdir(ROOT)  # "from a terminal in the repository"
    assert cli_main(argv) == 0, capsys.readouterr().err
    assert (tmp_path / "news" / "project.json").is_file()


def test_the_heads_table_is_the_same_on_both_pages():
    """docs/models.md shows the head's measured table where a model is chosen, docs/benchmarks.md
    beside its command: one table, copied, so the two must not drift apart."""
    def rows(page: str) -> list[str]:
        return [r for r in PAGES[page].splitlines() if r.startswith("| ") and "Gemma 3 270M head" not in r
                and re.match(r"\| [A-Z][\w-]+ [\w ]+ \([\d,]+, \d+\) \|", r)]
    assert len(rows("docs/models.md")) == 4 and rows("docs/models.md") == rows("docs/benchmarks.md")
