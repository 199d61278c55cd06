"""Corrections: the person's own judgement of a row's label, kept as a project record.

A correction is keyed by the row's id (core/versions.py: made from the source row's
content), never written into the user's file. ``judgements/corrections.json`` holds the latest word
on each row: a new label (a multi-label project's: a new label set), "exclude", or "not sure" (a
mark only: the row keeps its label).
They are replayed after the cleaning recipe whenever the data is prepared, so a newer file
keeps them, and applying them never moves a row between splits: the splits are drawn from
the prepared labels, then corrected.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

import pandas as pd
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from .errors import DataError
from .fsutil import atomic_write_text
from .versions import ROW_ID

JUDGEMENTS_DIR = "judgements"  # what the person decided: corrections here, answer ratings beside them
CORRECTIONS_FILE = "corrections.json"
Action = Literal["label", "exclude", "not_sure"]


class Correction(BaseModel):
    row_id: str
    action: Action = "label"
    label: str | None = None  # the new label (action "label")
    labels: list[str] | None = None  # a multi-label project's: the row's new label set (action "label")
    original: str | None = None  # the label the row had when it was corrected (a set: joined with " | ")
    split: str | None = None
    text: str | None = None  # the row's text then, for the list (cut to 200 characters)
    source: str = "command line"  # where it was made: review, table, predictions, command line
    at: float = Field(default_factory=time.time)


_LIST = TypeAdapter(list[Correction])


def corrections_path(root: str | os.PathLike) -> Path:
    return Path(root) / JUDGEMENTS_DIR / CORRECTIONS_FILE


def _lock(root: str | os.PathLike):
    from filelock import FileLock

    folder = Path(root) / JUDGEMENTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    return FileLock(str(folder / f".{CORRECTIONS_FILE}.lock"), timeout=30)


def load(root: str | os.PathLike) -> dict[str, Correction]:
    """row id -> its correction, as recorded."""
    path = corrections_path(root)
    if not path.is_file():
        return {}
    try:
        items = _LIST.validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError):
        raise DataError(f"{path} is damaged and cannot be read. Restore it from a backup, or remove it to start "
                        "without corrections.", code="corrections_damaged", path=str(path)) from None
    return {c.row_id: c for c in items}


def save(root: str | os.PathLike, items: Mapping[str, Correction]) -> None:
    data = [c.model_dump(exclude_none=True) for c in sorted(items.values(), key=lambda c: c.at)]
    atomic_write_text(corrections_path(root), json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def update(root: str | os.PathLike, new: Iterable[Correction] = (), undo: Iterable[str] = ()) -> dict[str, Correction]:
    """Record ``new`` (the latest word on a row replaces an earlier one) and drop the rows in
    ``undo``, under a lock, written atomically; returns what is recorded now."""
    with _lock(root):
        items = load(root)
        for rid in undo:
            items.pop(rid, None)
        for c in new:
            items[c.row_id] = c
        save(root, items)
        return items


def _cell(c: Correction, multi_label: bool) -> str | None:
    """The label cell a correction gives its row (a multi-label project's: the label set as the
    cleaned rows hold it, JSON text; a single label counts as a set of one); None: it gives none."""
    if c.action != "label":
        return None
    if not multi_label:
        return c.label
    chosen = c.labels if c.labels is not None else ([c.label] if c.label is not None else None)
    return None if chosen is None else json.dumps(chosen, ensure_ascii=False)


def apply(frames: Mapping[str, pd.DataFrame], items: Mapping[str, Correction],
          multi_label: bool = False) -> tuple[dict[str, pd.DataFrame], dict]:
    """The splits with the corrections applied: labels replaced, excluded rows taken out; no
    row changes split. Returns the frames and what was done: ``corrected``, ``excluded``,
    ``not_sure`` and ``unmatched`` (row ids found in no split, e.g. rows a newer file lacks).
    ``multi_label``: the frames' label cells are label sets (JSON text)."""
    from .multilabel import decode

    out: dict[str, pd.DataFrame] = {}
    seen: set[str] = set()
    corrected = excluded = 0
    relabel = {r: v for r, c in items.items() if (v := _cell(c, multi_label)) is not None}
    for name, frame in frames.items():
        if ROW_ID not in frame.columns or not items:
            out[name] = frame
            continue
        ids = frame[ROW_ID].astype(str)
        seen.update(set(ids) & set(items))
        drop = ids.map(lambda r: r in items and items[r].action == "exclude")
        new = ids.map(relabel)
        old = frame["label"].astype(str)
        if multi_label:  # the same set in another order is no change
            differs = pd.Series([isinstance(n, str) and set(decode(n)) != set(decode(o)) for n, o in zip(new, old)],
                                index=frame.index, dtype=bool)
        else:
            differs = new != old
        changed = new.notna() & ~drop & differs
        frame = frame.copy()
        frame.loc[changed, "label"] = new[changed]
        corrected += int(changed.sum())
        excluded += int(drop.sum())
        out[name] = frame[~drop]
    return out, {"corrected": corrected, "excluded": excluded,
                 "not_sure": sum(c.action == "not_sure" for c in items.values()),
                 "unmatched": sorted(set(items) - seen)}


def effect(items: Mapping[str, Correction]) -> dict[str, str]:
    """What the corrections do to the data, by row id ("label:NEW", "labels:[JSON list]" or
    "exclude"); a version records the effect it applied, so the window can count the
    corrections not in it yet."""
    return {c.row_id: "exclude" if c.action == "exclude" else f"label:{c.label}" if c.labels is None
            else "labels:" + json.dumps(c.labels, ensure_ascii=False) for c in items.values() if c.action != "not_sure"}


def added_labels(items: Mapping[str, Correction], known: Iterable[str]) -> list[str]:
    """The labels the corrections give that ``known`` (the project's) lacks, sorted."""
    given = {x for c in items.values() if c.action == "label" for x in [*([c.label] if c.label else []), *(c.labels or [])]}
    return sorted(given - set(known))


def truths(items: Mapping[str, Correction], row_ids: Sequence[str], references: Sequence[str]) -> dict[int, str]:
    """The rows of an evaluation (by position: their ids and the labels it scored them against)
    that a recorded correction gives another label: position -> that label, the truth the
    person gave. An excluded row keeps its label: the exclusion says nothing of it."""
    out = {}
    for i, (rid, ref) in enumerate(zip(row_ids, references)):
        c = items.get(str(rid))
        if c is not None and c.action == "label" and c.label is not None and c.label != str(ref):
            out[i] = c.label
    return out


def read_file(path: str | os.PathLike) -> list[tuple[str, str | None]]:
    """``row_id,label`` rows of a CSV file; an empty label excludes the row."""
    from .dataio import read_table

    df, _ = read_table(path, header=True)
    cols = [str(c).strip().lower() for c in df.columns]
    if cols[:2] != ["row_id", "label"] and not {"row_id", "label"} <= set(cols):
        raise DataError(f"{path} must have the columns row_id and label (it has {', '.join(map(str, df.columns))}). "
                        "Write one row per correction, an empty label to exclude the row.",
                        code="corrections_bad_header", path=str(path), columns=list(map(str, df.columns)))
    df.columns = cols
    out = []
    for rid, label in zip(df["row_id"].astype("string").fillna(""), df["label"].astype("string").fillna("")):
        rid, label = str(rid).strip(), str(label).strip()
        if rid:
            out.append((rid, label or None))
    return out
