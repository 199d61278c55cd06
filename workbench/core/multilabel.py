"""Multi-label classification data: a row's label cell holds a *set* of labels.

A list cell (nested JSON, kept by the reader as JSON text) is the row's label set; a text
cell is split on the separator (default: whitespace, commas, 、 and semicolons). The label
table, ``--label-map``, renames, merges, exclusions and ``--min-label-rows`` apply to each
label on its own; a row keeps the labels that survive and is dropped only when none does.

In memory the cleaned frame's ``label`` column holds each row's labels as JSON text in the
project's label order (cleaning steps see plain strings); the prepared JSONL rows carry
``labels`` as a list.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pandas as pd

from .cleaning.steps import LabelLookup

DEFAULT_SEPARATOR = r"[\s,，、;；]+"
LABEL_SET_JOINER = " | "  # a predicted label set in one CSV cell (the bundle's predict.py writes the same)


def split_cell(cell: Any, sep: str | None = None) -> list[str]:
    """The raw label values of one cell, blanks and repeats removed, order kept."""
    if cell is None or (isinstance(cell, float) and cell != cell) or cell is pd.NA:
        return []
    text = str(cell).strip()
    items: list[Any] | None = None
    if text.startswith("["):
        try:
            value = json.loads(text)
            items = value if isinstance(value, list) else None
        except ValueError:
            items = None
    if items is None:
        items = re.split(DEFAULT_SEPARATOR, text) if not sep else text.split(sep)
    out = [(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)).strip() for x in items]
    return list(dict.fromkeys(x for x in out if x))


def value_counts(sets: Sequence[list[str]]) -> tuple[dict[str, int], int]:
    """Rows per raw value (a value counts once per row) and rows with no value at all."""
    counts: Counter[str] = Counter()
    blank = 0
    for s in sets:
        counts.update(s)
        blank += not s
    return dict(counts), blank


def map_sets(sets: Sequence[list[str]], labels: Sequence[str], aliases: dict[str, list[str]],
             codes: dict[str, str]) -> tuple[list[list[str]], Counter]:
    """Each raw set as the project's labels, in label order; unknown values are counted."""
    lookup = LabelLookup(list(labels), aliases)
    order = {lab: i for i, lab in enumerate(labels)}
    unknown: Counter[str] = Counter()
    out = []
    for s in sets:
        found = set()
        for v in s:
            lab = lookup(codes.get(v, v))
            if lab is None:
                unknown[v] += 1
            else:
                found.add(lab)
        out.append(sorted(found, key=order.__getitem__))
    return out, unknown


def encode(sets: Sequence[list[str]]) -> list[str]:
    return [json.dumps(list(s), ensure_ascii=False) for s in sets]


def decode(cell: Any) -> list[str]:
    """A cleaned ``label`` cell (JSON text) or a prepared row's ``labels`` list."""
    if isinstance(cell, list):
        return [str(x) for x in cell]
    if cell is None or cell is pd.NA or cell == "":
        return []
    value = json.loads(cell)
    return [str(x) for x in value] if isinstance(value, list) else [str(value)]


def label_rows(sets: Sequence[list[str]], labels: Sequence[str]) -> dict[str, int]:
    counts = Counter(lab for s in sets for lab in s)
    return {lab: int(counts.get(lab, 0)) for lab in labels}


def stratum(sets: Sequence[list[str]]) -> list[str]:
    """The stratum of each row for the split: its rarest label.

    A documented approximation of iterative stratification (Sechidis et al. 2011): every
    label reaches every split when it has enough rows, because each row is placed by the
    label for which placement is hardest; frequent labels then follow by the law of large
    numbers. It reuses the per-class allocation of :func:`split.split_frame` unchanged."""
    counts = Counter(lab for s in sets for lab in s)
    return [min(s, key=lambda lab: (counts[lab], lab)) if s else "" for s in sets]
