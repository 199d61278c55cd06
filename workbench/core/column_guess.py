"""Which column holds what, told from the cells when the names say nothing.

Real files name their columns 标题, 正/负面, originalText, label_36class or nothing at all
(col1 …); :func:`core.mapping.suggest_mapping` matches names only. Here: the long free-text
column is the text, a column of few distinct short values is the label. A guess is only a
suggestion: the Data page shows it for the user to confirm, the CLI names the flag to give.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pandas as pd

SAMPLE = 5_000  # rows looked at
LABEL_MAX_VALUES = 200
LABEL_MAX_CHARS = 30  # a label is a word or a short phrase
TEXT_MIN_CHARS = 6  # average length of a column worth calling free text
_DATE = re.compile(r"\d{4}[-/.年]\d{1,2}([-/.月]\d{1,2})?")
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")
TEXT_ROLES = ("text", "instruction", "input", "output")


@dataclass(frozen=True)
class ColumnGuess:
    role: str
    column: str
    # what the cells showed, for the front ends to say in the user's language:
    # "free_text" (average characters, distinct share) or "few_values" (distinct values, rows)
    code: str
    args: tuple

    @property
    def message(self) -> str:
        if self.code == "few_values":
            where = f"the first {self.args[1]:,} rows" if self.args[1] >= SAMPLE else f"{self.args[1]:,} rows"
            return f"'{self.column}' looks like the {self.role}: {self.args[0]:,} distinct short values in {where}"
        return f"'{self.column}' looks like the {self.role}: free text, {self.args[0]:.0f} characters on average"


@dataclass(frozen=True)
class _Profile:
    column: str
    rows: int  # non-blank cells
    distinct: int
    mean_chars: float
    is_list: bool
    dates_or_numbers: float  # share of cells that are dates or plain numbers


def _profile(df: pd.DataFrame, list_columns: Iterable[str]) -> list[_Profile]:
    lists = set(list_columns)
    out = []
    head = df.head(SAMPLE)
    for col in head.columns:
        cells = head[col].astype("string").fillna("").str.strip()
        cells = cells[cells != ""]
        if not len(cells):
            continue
        is_list = col in lists
        if is_list:
            items = [str(x) for c in cells for x in _items(c)]
            values = pd.Series(items, dtype="string") if items else cells
        else:
            values = cells
        plain = values.str.fullmatch(_NUMBER.pattern) | values.str.fullmatch(_DATE.pattern + r".*")
        out.append(_Profile(str(col), len(cells), int(values.nunique()), float(values.str.len().mean()),
                            is_list, float(plain.fillna(False).mean())))
    return out


def _items(cell: str) -> list:
    try:
        value = json.loads(cell)
    except ValueError:
        return [cell]
    return value if isinstance(value, list) else [cell]


def _is_label(p: _Profile) -> bool:
    if p.distinct < 2 or p.distinct > LABEL_MAX_VALUES or p.mean_chars > LABEL_MAX_CHARS:
        return False
    if p.dates_or_numbers > 0.5 and p.distinct > 20:  # dates, amounts, ids: not a class
        return False
    return p.is_list or p.distinct <= max(2, p.rows // 3)


def guess_columns(df: pd.DataFrame, roles: Sequence[str], *, taken: Iterable[str] = (),
                  list_columns: Iterable[str] = ()) -> list[ColumnGuess]:
    """Columns for ``roles`` (those of ``label`` and :data:`TEXT_ROLES` among them) from the
    cells, never one in ``taken``: the label is the column of fewest distinct short values
    (the rightmost of equals, where labels usually are); text roles take the free-text
    columns, longest first, except that an instruction is shorter than its output."""
    taken = set(map(str, taken))
    profiles = [p for p in _profile(df, list_columns) if p.column not in taken]
    guesses: list[ColumnGuess] = []
    if "label" in roles:
        labels = [(i, p) for i, p in enumerate(profiles) if _is_label(p)]
        if labels:
            _, best = min(labels, key=lambda ip: (not ip[1].is_list, ip[1].distinct, -ip[0]))
            guesses.append(ColumnGuess("label", best.column, "few_values", (best.distinct, best.rows)))
            profiles = [p for p in profiles if p.column != best.column]
    wanted = [r for r in TEXT_ROLES if r in roles]
    free = [p for p in profiles if not p.is_list and p.mean_chars >= TEXT_MIN_CHARS and p.dates_or_numbers < 0.5
            and p.distinct >= max(2, p.rows // 2)]
    free.sort(key=lambda p: -p.mean_chars)
    if "instruction" in wanted and "output" in wanted and len(free) >= 2:
        # an answer is longer than its question: the longest is the output, the next the instruction
        order = ["output", "instruction"] + [r for r in wanted if r not in ("output", "instruction")]
    else:
        order = wanted
    for role, p in zip(order, free):
        guesses.append(ColumnGuess(role, p.column, "free_text", (p.mean_chars, p.distinct / max(1, p.rows))))
    return guesses


def guess_missing(df: pd.DataFrame, roles: Sequence[str], mapping: dict[str, str | None],
                  list_columns: Iterable[str] = ()) -> list[ColumnGuess]:
    """Guesses for the roles ``mapping`` leaves empty, from the columns it leaves free."""
    from .mapping import mapped_columns

    columns = [str(c) for c in df.columns]
    taken = [c for v in mapping.values() if v for c in (mapped_columns(v, columns) or [])]
    missing = [r for r in roles if not mapping.get(r)]
    guesses = guess_columns(df, missing, taken=taken, list_columns=list_columns) if missing else []
    return sorted(guesses, key=lambda g: missing.index(g.role))  # in the order of the roles
