"""docs/cli.md against the real command-line parser, so that the reference cannot drift.

docs/cli.md has one section per command, headed ``## `workbench <command path>` `` and running
to the next ``## `` heading. The parser's commands are enumerated by walking argparse's
subparser actions. Every command with options or arguments of its own (or none, being a leaf)
has its section, every heading names a real command, every option string of a command (each
half of --x/--no-x included) appears in its section, every --flag a section names exists in
that command's parser, and a section's usage block invokes that command with its positional
arguments. A --flag inside a code span or a code line that invokes another command
(``workbench eval --rows``) is checked against that command; one in a line that runs another
program (``pip install --no-index``) is not a Workbench flag and is left alone.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from workbench.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "cli.md"
HEADING = re.compile(r"^## `(workbench(?: [a-z][a-z0-9-]*)*)`[ \t]*$", re.M)
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)")
BLOCK = re.compile(r"^```[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
SPAN = re.compile(r"`([^`\n]+)`")
INVOKE = re.compile(r"^(?:\.venv/bin/)?workbench(?=\s|$)")
HELP = {"-h", "--help"}


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ("workbench",)):
    """(path, parser, has subcommands) for the parser and every subcommand below it."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    yield path, parser, bool(subs)
    for action in subs:
        for name, sub in action.choices.items():
            yield from _commands(sub, (*path, name))


COMMANDS = {" ".join(path): (parser, grouping) for path, parser, grouping in _commands(build_parser())}


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--")} - HELP


def _positionals(parser: argparse.ArgumentParser) -> list[str]:
    return [(a.metavar or a.dest).upper() for a in parser._actions
            if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]


def _needs_section(parser: argparse.ArgumentParser, grouping: bool) -> bool:
    return not grouping or bool(_options(parser) or _positionals(parser))


def _sections(text: str) -> dict[str, str]:
    """Command path -> its section's text; the text before the first command heading and any
    other ``## `` section go under the key None."""
    parts = re.split(r"^(?=## )", text, flags=re.M)
    out: dict[str | None, str] = {None: ""}
    for part in parts:
        m = HEADING.match(part)
        if m:
            assert m.group(1) not in out, f"docs/cli.md has two sections for `{m.group(1)}`"
            out[m.group(1)] = part
        else:
            out[None] += part
    return out


def _invoked(code: str) -> str | None:
    """The command path a code line runs: the longest real path its words begin with."""
    if not INVOKE.match(code):
        return None
    words = INVOKE.sub("workbench", code, count=1).split()
    path = "workbench"
    for word in words[1:]:
        if f"{path} {word}" not in COMMANDS:
            break
        path = f"{path} {word}"
    return path


def _named_flags(section: str, own: str | None) -> list[tuple[str | None, str, str]]:
    """(command path the flag belongs to, flag, where) for every --flag the section names.
    ``own`` is the section's command; None: any command may own it."""
    found: list[tuple[str | None, str, str]] = []

    def code(piece: str) -> None:
        piece = piece.strip()
        path = _invoked(piece)
        if path is None and not piece.startswith("-"):
            return  # another program's command line: python, pip, ollama, docker ...
        found.extend((path or own, f, piece) for f in FLAG.findall(piece))

    def block(m: re.Match) -> str:
        for line in m.group(1).replace("\\\n", " ").splitlines():
            code(line)
        return ""

    def span(m: re.Match) -> str:
        code(m.group(1))
        return ""

    prose = SPAN.sub(span, BLOCK.sub(block, section))
    found.extend((own, f, "prose") for f in FLAG.findall(prose))
    return found


DOC_TEXT = DOC.read_text(encoding="utf-8")
SECTIONS = _sections(DOC_TEXT)


def test_the_parser_walk_finds_the_commands():
    # the walk itself: nested groups and their leaves
    assert {"workbench", "workbench data prepare", "workbench models get", "workbench targets add",
            "workbench templates save", "workbench eval"} <= set(COMMANDS)
    assert "--no-multi-label" in _options(COMMANDS["workbench data prepare"][0])
    assert _positionals(COMMANDS["workbench stop"][0]) == ["RUN"]


def test_every_command_has_its_section():
    missing = [path for path, (parser, grouping) in COMMANDS.items()
               if _needs_section(parser, grouping) and path not in SECTIONS]
    assert not missing, f"docs/cli.md has no section for: {missing}"
    # a group of commands without options of its own is named by its commands' sections
    unnamed = [path for path in COMMANDS if not any(h and (h == path or h.startswith(path + " ")) for h in SECTIONS)]
    assert not unnamed, f"docs/cli.md never names: {unnamed}"


def test_every_section_is_a_real_command():
    stale = [h for h in SECTIONS if h is not None and h not in COMMANDS]
    assert not stale, f"docs/cli.md has sections for commands the parser does not have: {stale}"


def _table_flags(section: str) -> set[str]:
    """The flags of a section's table: those in the first cell of its rows."""
    return {f for row in re.findall(r"^\| *(`--[^|\n]*(?:\\\|[^|\n]*)*)\|", section, re.M) for f in FLAG.findall(row)}


@pytest.mark.parametrize("path", sorted(p for p in SECTIONS if p is not None))
def test_every_flag_of_a_command_has_its_row(path):
    options = _options(COMMANDS[path][0])
    rows = _table_flags(SECTIONS[path])
    assert not options - rows, f"the table of `{path}` in docs/cli.md has no row for {sorted(options - rows)}"
    assert not rows - options, f"the table of `{path}` in docs/cli.md has rows for {sorted(rows - options)}, " \
                               "which the command does not have"


@pytest.mark.parametrize("path", sorted(p for p in SECTIONS if p is not None))
def test_a_sections_usage_block_runs_its_command(path):
    blocks = BLOCK.findall(SECTIONS[path])
    assert blocks, f"the section of `{path}` has no usage block"
    usage = blocks[0].replace("\\\n", " ")
    first = usage.splitlines()[0]
    assert _invoked(first) == path, f"the usage block of `{path}` starts with: {first}"
    words = set(re.findall(r"[\w-]+", usage))
    missing = [p for p in _positionals(COMMANDS[path][0]) if p not in words]
    assert not missing, f"the usage of `{path}` does not show its arguments {missing}"
    shown = {f for owner, f, _ in _named_flags("```\n" + blocks[0] + "```\n", path) if owner == path}
    missing = sorted(_options(COMMANDS[path][0]) - shown)
    assert not missing, f"the usage of `{path}` does not show {missing}"


def test_every_flag_the_doc_names_exists():
    wrong = []
    for path, section in SECTIONS.items():
        for owner, flag, where in _named_flags(section, path):
            owners = [owner] if owner else list(COMMANDS)
            if not any(flag in _options(COMMANDS[o][0]) for o in owners):
                wrong.append(f"{flag} ({owner or 'any command'}, in {where!r})")
    assert not wrong, "docs/cli.md names flags the parser does not have:\n" + "\n".join(wrong)


def test_the_checks_catch_a_missing_or_a_made_up_flag():
    rows = "| flag | what it does |\n| --- | --- |\n| `--eval-rows N` | rows |\n| `--labels a\\|b` | `--other` |\n"
    assert _table_flags(rows) == {"--eval-rows", "--labels"}
    assert _table_flags(rows.replace("| `--eval-rows N` | rows |\n", "")) == {"--labels"}
    made_up = _named_flags("Use `--fast` here, or `workbench eval --rows 5`, or `pip install --no-index`.",
                           "workbench train")
    assert made_up == [("workbench train", "--fast", "--fast"),
                       ("workbench eval", "--rows", "workbench eval --rows 5")]
