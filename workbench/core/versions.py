"""Data versions: every prepare and every set of corrections writes the splits anew.

A version is a folder ``data/versions/<id>/`` holding the three splits and ``version.json``;
its id is the hash of the splits' content, so preparing the same data twice gives the same
version, and a version never changes once written. ``data/<split>.jsonl`` is a copy of the
project's current version (what a new run trains on); a run records the version it started
on (``JobSpec.data_version``), and its evaluation, resume and export read that version's
folder, so the data can be prepared again or corrected while it trains.

Every split row carries a ``row_id`` made from the content of the source row it came from
(its column names and cells, not its position), so a re-import of a newer file gives an
unchanged row the same id, and a correction keyed by it finds that row again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
from pydantic import BaseModel, Field

from .fsutil import atomic_write_text

VERSIONS_DIR = "versions"
VERSION_FILE = "version.json"
SPLIT_NAMES = ("train", "val", "test")
ROW_ID = "row_id"
ID_CHARS = 12  # 48 bits: a clash among a million rows has odds of about 1 in 500


class DataVersion(BaseModel):
    id: str
    kind: str = "prepare"  # "prepare" | "corrections"
    base: str | None = None  # the prepared version a corrections version is made from
    parent: str | None = None  # the project's version before this one
    created: float = Field(default_factory=time.time)
    rows: dict[str, int] = Field(default_factory=dict)
    corrected: int = 0  # rows whose label a correction changed
    excluded: int = 0  # rows a correction took out
    source_sha256: str | None = None  # the imported file
    applied: dict[str, str] = Field(default_factory=dict)  # row id -> the correction applied (corrections.effect)


def row_ids(frame: pd.DataFrame) -> list[str]:
    """One id per row of ``frame`` (the imported table), from its column names and cells.
    Identical rows get ``-2``, ``-3``... in the order they come, so each id names one row."""
    names = sorted(str(c) for c in frame.columns)
    order = [list(map(str, frame.columns)).index(n) for n in names]
    cells = frame.astype("string").fillna("").to_numpy(dtype=object)
    seen: dict[str, int] = {}
    out = []
    for row in cells:
        text = "\x1f".join(f"{n}\x1e{row[i]}" for n, i in zip(names, order))
        rid = hashlib.sha256(text.encode("utf-8")).hexdigest()[:ID_CHARS]
        k = seen.get(rid, 0) + 1
        seen[rid] = k
        out.append(rid if k == 1 else f"{rid}-{k}")
    return out


def version_dir(data_dir: str | os.PathLike, version: str) -> Path:
    return Path(data_dir) / VERSIONS_DIR / version


def write_version(data_dir: str | os.PathLike, texts: Mapping[str, str], meta: DataVersion) -> DataVersion:
    """Write the splits (``texts``: split -> JSON lines) as a version and make it the current
    one (``data/<split>.jsonl``). ``meta.id`` is replaced by the content's hash; a version of
    the same content is reused as written."""
    data_dir = Path(data_dir)
    h = hashlib.sha256()
    for name in SPLIT_NAMES:
        h.update(name.encode() + b"\0" + texts[name].encode("utf-8") + b"\0")
    meta = meta.model_copy(update={"id": h.hexdigest()[:ID_CHARS],
                                   "rows": {n: texts[n].count("\n") for n in SPLIT_NAMES}})
    folder = version_dir(data_dir, meta.id)
    if (folder / VERSION_FILE).is_file():
        meta = read_version(data_dir, meta.id) or meta
    else:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
        try:
            for name in SPLIT_NAMES:
                (staging / f"{name}.jsonl").write_text(texts[name], encoding="utf-8")
            (staging / VERSION_FILE).write_text(meta.model_dump_json(indent=2) + "\n", encoding="utf-8")
            try:
                os.rename(staging, folder)  # the version appears whole or not at all
            except OSError:
                if not (folder / VERSION_FILE).is_file():  # not another writer's same version
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    for name in SPLIT_NAMES:  # the current version, where runs that record none read it
        atomic_write_text(data_dir / f"{name}.jsonl", texts[name])
    return meta


def read_version(data_dir: str | os.PathLike, version: str) -> DataVersion | None:
    path = version_dir(data_dir, version) / VERSION_FILE
    try:
        return DataVersion.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def list_versions(data_dir: str | os.PathLike) -> list[DataVersion]:
    """The project's versions, oldest first."""
    root = Path(data_dir) / VERSIONS_DIR
    found = [read_version(data_dir, d.name) for d in root.iterdir() if d.is_dir() and not d.name.startswith(".")] \
        if root.is_dir() else []
    return sorted((v for v in found if v is not None), key=lambda v: v.created)


def read_labels(path: str | os.PathLike) -> dict[str, str]:
    """row id -> label of a split file (rows without an id are left out)."""
    out: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    row = json.loads(line)
                    if ROW_ID in row:
                        out[row[ROW_ID]] = str(row.get("label", ""))
    except OSError:
        pass
    return out


def label_differences(data_dir: str | os.PathLike, a: str | None, b: str | None, split: str = "test") -> int | None:
    """How many rows of ``split`` two versions label differently (or hold in one only); None
    where a version is unknown (a run from before versions)."""
    if not a or not b:
        return None
    if a == b:
        return 0
    pa, pb = version_dir(data_dir, a) / f"{split}.jsonl", version_dir(data_dir, b) / f"{split}.jsonl"
    if not pa.is_file() or not pb.is_file():
        return None
    la, lb = read_labels(pa), read_labels(pb)
    return sum(la.get(k) != lb.get(k) for k in set(la) | set(lb))


def prune_versions(data_dir: str | os.PathLike, keep: set[str]) -> list[str]:
    """Remove the corrections versions not in ``keep`` (the current one, its base, and those a
    run records): each set of corrections in the window writes one, and only these are read
    again. Prepared versions stay, as the history of what was imported."""
    removed = []
    for v in list_versions(data_dir):
        if v.kind == "corrections" and v.id not in keep:
            shutil.rmtree(version_dir(data_dir, v.id), ignore_errors=True)
            removed.append(v.id)
    return removed
