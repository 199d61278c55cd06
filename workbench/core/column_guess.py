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

from .mapping import join_columns, mapped_columns

SAMPLE = 5_000  # rows looked at
LABEL_MAX_VALUES = 200
LABEL_MAX_CHARS = 30  # a label is a word or a short phrase
TEXT_MIN_CHARS = 6  # average length of a column worth calling free text
_DATE = re.compile(r"\d{4}[-/.年]\d{1,2}([-/.月]\d{1,2})?")
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?")
TEXT_ROLES = ("text", "instruction", "input", "output")
# Two columns of short free text beside a label of two values are a pair the label judges (two
# questions and whether they ask the same, a claim and its evidence): the text reads both. Short:
# a question or a headline, not an article.
PAIR_MAX_CHARS = 64


@dataclass(frozen=True)
class ColumnGuess:
    role: str
    column: str
    # what the cells showed, for the front ends to say in the user's language: "free_text"
    # (average characters, distinct share), "few_values" (distinct values, rows) or "text_pair"
    # (the two columns' average characters, their names)
    code: str
    args: tuple

    @property
    def message(self) -> str:
        if self.code == "text_pair":
            first, second = self.args[2:4]
            return (f"'{first}' and '{second}' look like a pair of texts, read together as the {self.role} (one a "
                    f"line): short free text ({self.args[0]:.0f} and {self.args[1]:.0f} characters on average) "
                    "beside a label of two values")
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
                  list_columns: Iterable[str] = (), label: str | None = None) -> list[ColumnGuess]:
    """Columns for ``roles`` (those of ``label`` and :data:`TEXT_ROLES` among them) from the
    cells, never one in ``taken``: the label is the column of fewest distinct short values
    (the rightmost of equals, where labels usually are); text roles take the free-text
    columns, longest first, except that an instruction is shorter than its output. Two short
    free-text columns beside a label of two values (guessed, or ``label``, the column already
    mapped to it) are a pair: the text reads both joined (``col1+col2``, see core.mapping)."""
    taken = set(map(str, taken))
    everything = _profile(df, list_columns)
    profiles = [p for p in everything if p.column not in taken]
    guesses: list[ColumnGuess] = []
    judged = next((p for p in everything if p.column == label), None)  # the label column already mapped
    if "label" in roles:
        labels = [(i, p) for i, p in enumerate(profiles) if _is_label(p)]
        if labels:
            _, best = min(labels, key=lambda ip: (not ip[1].is_list, ip[1].distinct, -ip[0]))
            guesses.append(ColumnGuess("label", best.column, "few_values", (best.distinct, best.rows)))
            profiles = [p for p in profiles if p.column != best.column]
            judged = best
    wanted = [r for r in TEXT_ROLES if r in roles]
    free = [p for p in profiles if not p.is_list and p.mean_chars >= TEXT_MIN_CHARS and p.dates_or_numbers < 0.5
            and p.distinct >= max(2, p.rows // 2)]
    if wanted == ["text"] and judged is not None and judged.distinct == 2 and not judged.is_list \
            and len(free) == 2 and all(p.mean_chars <= PAIR_MAX_CHARS for p in free):
        first, second = free  # in the file's order
        guesses.append(ColumnGuess("text", join_columns([first.column, second.column]), "text_pair",
                                   (first.mean_chars, second.mean_chars, first.column, second.column)))
        return guesses
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
    columns = [str(c) for c in df.columns]
    taken = [c for v in mapping.values() if v for c in (mapped_columns(v, columns) or [])]
    missing = [r for r in roles if not mapping.get(r)]
    label = mapping.get("label") if mapping.get("label") in columns else None
    guesses = guess_columns(df, missing, taken=taken, list_columns=list_columns, label=label) if missing else []
    return sorted(guesses, key=lambda g: missing.index(g.role))  # in the order of the roles
