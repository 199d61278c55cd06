"""What kind each column is (text, number, list) and, for a column of few distinct values,
those values with their counts, so a label column shows itself before it is mapped."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import pandas as pd

FEW_VALUES = 100  # columns with at most this many distinct values list them


def _list_items(cells: pd.Series) -> list[str]:
    items: list[str] = []
    for c in cells:
        try:
            value = json.loads(c) if c.startswith("[") else c
        except ValueError:
            value = c
        items += [str(v) for v in value] if isinstance(value, list) else [c]
    return items


def profile_columns(df: pd.DataFrame, list_columns: Sequence[str] = ()) -> tuple[dict[str, str], dict[str, dict[str, int]]]:
    """``(kinds, values)``: column -> "text" | "number" | "list"; column -> {value: rows}
    (most frequent first) for columns with few distinct values. List cells count each element."""
    kinds: dict[str, str] = {}
    values: dict[str, dict[str, int]] = {}
    for col in df.columns:
        cells = df[col].astype("string").fillna("")
        cells = cells[cells.str.strip() != ""]
        if col in list_columns:
            kinds[col] = "list"
            counts = Counter(_list_items(cells))
        else:
            numeric = len(cells) > 0 and bool(pd.to_numeric(cells, errors="coerce").notna().all())
            kinds[col] = "number" if numeric else "text"
            if cells.nunique() > FEW_VALUES:
                continue
            counts = Counter(cells.tolist())
        if 0 < len(counts) <= FEW_VALUES and len(counts) < max(2, len(cells)):
            values[col] = dict(counts.most_common())
    return kinds, values
