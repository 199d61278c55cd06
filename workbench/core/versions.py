"""Data versions: every prepare and every set of corrections writes the splits anew.

A version is a folder ``data/versions/<id>/`` holding ``version.json`` and the splits; its id
is the hash of the splits' content, so preparing the same data twice gives the same version,
and a version never changes once written. ``data/<split>.jsonl`` is a copy of the project's
current version (what a new run trains on); a run records the version it started on
(``JobSpec.data_version``), and its evaluation, resume and export read that version's splits
(:func:`split_file`), so the data can be prepared again or corrected while it trains.

A prepared version holds its three splits whole. A corrections version holds only what it
changes in its base (the prepared version it corrects): ``changes.json``, the row ids it leaves
out and the rows whose label it replaces, a few kilobytes where the splits are megabytes. Its
id is still the hash of its splits as they read, and :func:`split_file` makes them from the
base's on the first read. (Corrections versions written before this hold their splits whole
and are read as they are.)

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
from collections.abc import Iterator, Mapping
from pathlib import Path

import pandas as pd
from pydantic import BaseModel, Field

from .errors import ProjectError
from .fsutil import atomic_write_text

VERSIONS_DIR = "versions"
VERSION_FILE = "version.json"
CHANGES_FILE = "changes.json"
CACHE_DIR = "cache"  # the project's folder of what can be made again (Project.cache_dir)
SPLIT_NAMES = ("train", "val", "test")
ROW_ID = "row_id"
ID_CHARS = 12  # 48 bits: a clash among a million rows has odds of about 1 in 500
LOCK_TIMEOUT_S = 120  # another process making the same version's splits waits this long at most


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


class Changes(BaseModel):
    """What a corrections version changes in its base's splits (``changes.json``)."""

    exclude: list[str] = Field(default_factory=list)  # the rows left out, by id
    labels: dict[str, str | list[str]] = Field(default_factory=dict)  # row id -> its label (a list: a label set)


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


def materialised_dir(data_dir: str | os.PathLike, version: str) -> Path:
    """Where a corrections version's splits are made for its readers. Not in the version's own
    folder: that stays as written (what a copy or a backup of the project must keep, and small),
    while these can be deleted at any time and are made again on the next read."""
    return _made_root(data_dir) / version


def _made_root(data_dir: str | os.PathLike) -> Path:
    return Path(data_dir).parent / CACHE_DIR / VERSIONS_DIR


def content_id(texts: Mapping[str, str]) -> str:
    h = hashlib.sha256()
    for name in SPLIT_NAMES:
        h.update(name.encode() + b"\0" + texts[name].encode("utf-8") + b"\0")
    return h.hexdigest()[:ID_CHARS]


def _rows(text: str) -> Iterator[dict]:
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def diff(base: Mapping[str, str], texts: Mapping[str, str]) -> Changes | None:
    """The changes that make ``texts`` from ``base`` (split -> JSON lines): rows left out and
    labels replaced, in the base's order. None where ``texts`` differ otherwise (a row added,
    moved or changed beyond its label, or a row without an id): they are then kept whole."""
    exclude: list[str] = []
    labels: dict[str, str | list[str]] = {}
    for name in SPLIT_NAMES:
        new = _rows(texts[name])
        nxt = next(new, None)
        for row in _rows(base[name]):
            rid = row.get(ROW_ID)
            if rid is None:
                return None
            if nxt is None or nxt.get(ROW_ID) != rid:
                exclude.append(rid)
                continue
            if nxt != row:
                key = "labels" if "labels" in row else "label"
                if key not in nxt or {**nxt, key: row[key]} != row:
                    return None
                labels[rid] = nxt[key]
            nxt = next(new, None)
        if nxt is not None:
            return None
    return Changes(exclude=exclude, labels=labels)


def apply_changes(base: Mapping[str, str], changes: Changes) -> dict[str, str]:
    """The splits (split -> JSON lines) ``changes`` make of ``base``: a row left as it is keeps
    its line byte for byte, so a version's id is its base's where nothing changes."""
    drop, labels = set(changes.exclude), changes.labels
    out = {}
    for name in SPLIT_NAMES:
        if not drop and not labels:
            out[name] = base[name]
            continue
        lines = []
        for line in base[name].splitlines(keepends=True):
            if not line.strip():
                lines.append(line)
                continue
            row = json.loads(line)
            rid = row.get(ROW_ID)
            if rid in drop:
                continue
            if rid in labels:
                row["labels" if "labels" in row else "label"] = labels[rid]
                line = json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"
            lines.append(line)
        out[name] = "".join(lines)
    return out


def _whole_texts(data_dir: Path, version: str) -> dict[str, str] | None:
    """A version's splits where its folder holds them whole; None where it does not."""
    folder = version_dir(data_dir, version)
    try:
        return {n: (folder / f"{n}.jsonl").read_text(encoding="utf-8") for n in SPLIT_NAMES}
    except OSError:
        return None


def write_version(data_dir: str | os.PathLike, texts: Mapping[str, str], meta: DataVersion) -> DataVersion:
    """Write the splits (``texts``: split -> JSON lines) as a version and make it the current
    one (``data/<split>.jsonl``). ``meta.id`` is replaced by the content's hash; a version of
    the same content is reused as written. A corrections version (``meta.base`` set) is
    written as its changes to the base where they say all that differs."""
    data_dir = Path(data_dir)
    changes = None
    base = _whole_texts(data_dir, meta.base) if meta.kind == "corrections" and meta.base else None
    if base is not None:
        changes = diff(base, texts)
        if changes is not None:  # the splits as a reader gets them, to the byte
            texts = apply_changes(base, changes)
    meta = meta.model_copy(update={"id": content_id(texts), "rows": {n: texts[n].count("\n") for n in SPLIT_NAMES}})
    folder = version_dir(data_dir, meta.id)
    if (folder / VERSION_FILE).is_file():
        meta = read_version(data_dir, meta.id) or meta
    else:
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder.parent))
        try:
            if changes is not None:
                (staging / CHANGES_FILE).write_text(changes.model_dump_json() + "\n", encoding="utf-8")
            else:
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


def split_file(data_dir: str | os.PathLike, version: str, split: str) -> Path:
    """The file of ``split`` of data ``version``, what every reader of a version opens: the
    version's own where it holds its splits whole, else the splits made from its base's (made
    once, then kept in the project's cache)."""
    folder = version_dir(data_dir, version)
    whole = folder / f"{split}.jsonl"
    if whole.is_file() or not (folder / CHANGES_FILE).is_file():
        return whole  # a prepared version, one written before changes were, or a missing one
    made = materialised_dir(data_dir, version) / f"{split}.jsonl"
    if not made.is_file():
        _materialise(Path(data_dir), version)
    return made


def _materialise(data_dir: Path, version: str) -> None:
    """Make the splits of corrections version ``version`` from its base's, checked against its
    id. Under a lock, so a run that starts and an evaluation that reads the same version make
    them once; written beside and renamed, so a reader never sees half of them."""
    from filelock import FileLock

    target = materialised_dir(data_dir, version)
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target.parent / ".materialise.lock"), timeout=LOCK_TIMEOUT_S):
        if all((target / f"{n}.jsonl").is_file() for n in SPLIT_NAMES):
            return  # another process made them while this one waited
        meta = read_version(data_dir, version)
        base = _whole_texts(data_dir, meta.base) if meta is not None and meta.base else None
        if base is None:
            missing = meta.base if meta is not None and meta.base else version
            raise ProjectError(f"Data version {missing} of {data_dir.parent} is missing, so a run that trained on it "
                               "cannot read its rows. Restore the project's data folder from a backup.",
                               code="data_version_missing", version=missing, path=str(data_dir.parent))
        changes = Changes.model_validate_json((version_dir(data_dir, version) / CHANGES_FILE).read_text("utf-8"))
        texts = apply_changes(base, changes)
        if content_id(texts) != version:
            raise ProjectError(f"Data version {version} of {data_dir.parent} does not match the rows it was made "
                               f"from (version {meta.base} was changed). Restore the project's data folder from a "
                               "backup, or prepare the data again and train a new run.",
                               code="data_version_damaged", version=version, base=meta.base,
                               path=str(data_dir.parent))
        shutil.rmtree(target, ignore_errors=True)  # a part left by hand: made again whole
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
        try:
            for name in SPLIT_NAMES:
                (staging / f"{name}.jsonl").write_text(texts[name], encoding="utf-8")
            os.rename(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)


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
                        out[row[ROW_ID]] = str(row.get("label", row.get("labels", "")))
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
    try:
        pa, pb = split_file(data_dir, a, split), split_file(data_dir, b, split)
    except ProjectError:  # a version whose base is gone
        return None
    if not pa.is_file() or not pb.is_file():
        return None
    la, lb = read_labels(pa), read_labels(pb)
    return sum(la.get(k) != lb.get(k) for k in set(la) | set(lb))


def prune_versions(data_dir: str | os.PathLike, keep: set[str]) -> list[str]:
    """Remove the corrections versions not in ``keep`` (the current one, its base, and those a
    run records), with the splits made of them: each set of corrections in the window writes
    one, and only these are read again. Prepared versions stay, as the history of what was
    imported and the base a kept corrections version is made from."""
    found = list_versions(data_dir)
    keep = set(keep) | {v.base for v in found if v.id in keep and v.base}
    removed = []
    for v in found:
        if v.kind == "corrections" and v.id not in keep:
            shutil.rmtree(version_dir(data_dir, v.id), ignore_errors=True)
            removed.append(v.id)
    made = _made_root(data_dir)
    for d in made.iterdir() if made.is_dir() else []:  # splits made of a version no longer there
        if d.is_dir() and not d.name.startswith(".") and not version_dir(data_dir, d.name).is_dir():
            shutil.rmtree(d, ignore_errors=True)
    return removed
