"""The user's registered base models: ``<user data>/models/models.json`` and the folders beside it.

A model is either *owned* (converted from a GGUF file, copied, or got from the package
registry: its folder is ``models/<id>/`` and is deleted with it) or *registered in place*
(a folder of the user's that is only pointed at and never touched). Training names a
registered model by its id; :func:`resolve` turns the id into its folder.

Every change is a read-modify-write of models.json under a file lock, written atomically.
New folders are built under ``models/.staging/`` by a process that holds a lock on its
staging folder; one whose process died (killed mid-conversion) is swept away by the next
change, so a cancelled conversion leaves nothing behind. ``models/`` holds only the store's
own folders: one no entry owns (its process killed between moving it and listing it) is
swept too.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from filelock import FileLock, Timeout
from pydantic import BaseModel, Field, ValidationError

from .errors import WorkbenchError
from .fsutil import atomic_write_json
from .paths import user_data_dir

STORE_FILE = "models.json"
STAGING = ".staging"
TRASH = ".trash"
FORMAT = 1
LOCK_TIMEOUT_S = 30


class ModelStoreError(WorkbenchError):
    """The store refused a change (a duplicate name, an unknown id) or cannot be read."""


class ModelSource(BaseModel):
    kind: Literal["gguf", "folder", "package"]
    path: str | None = None  # the GGUF file or the folder it came from
    package: str | None = None  # the registry package, "name==version"
    sha256: str | None = None
    file_type: str | None = None  # a GGUF's quantisation, e.g. Q4_K_M


class Licence(BaseModel):
    name: str | None = None
    file: str | None = None  # a file name inside the model's folder
    url: str | None = None
    accepted_at: str | None = None  # when the user accepted it (ISO 8601, UTC)


class ModelEntry(BaseModel):
    id: str
    name: str
    family: str
    model_type: str | None = None
    folder: str  # owned: relative to the store; registered in place: absolute
    parameters: int | None = None
    source: ModelSource
    licence: Licence = Field(default_factory=Licence)
    owned: bool
    added_at: str

    @property
    def path(self) -> Path:
        p = Path(self.folder)
        return p if p.is_absolute() else store_dir() / p

    @property
    def missing(self) -> bool:
        """Its folder is gone (a registered folder moved or deleted): listed, not usable."""
        return not (self.path / "config.json").is_file()

    def to_dict(self) -> dict[str, Any]:
        return {**self.model_dump(), "folder": str(self.path), "missing": self.missing}


class _StoreFile(BaseModel):
    format: int = FORMAT
    models: list[ModelEntry] = Field(default_factory=list)
    licences: dict[str, Licence] = Field(default_factory=dict)  # accepted once, per licence


def store_dir() -> Path:
    return user_data_dir() / "models"


def now_iso() -> str:
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def model_id_from_name(name: str) -> str:
    """A model's id from its name: lower-case ASCII letters, digits and single dashes."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")[:64].strip("-")
    if not slug:
        raise ModelStoreError(f"'{name}' gives no usable model id (it needs a letter or digit in Latin script). "
                              "Give the model a name such as 'qwen2-0.5b-legal' with --name.", code="model_name_without_id",
                              name=name)
    return slug


# ----- reading and writing ---------------------------------------------------------


def _lock() -> FileLock:
    store_dir().mkdir(parents=True, exist_ok=True)
    return FileLock(str(store_dir() / f"{STORE_FILE}.lock"), timeout=LOCK_TIMEOUT_S)


@contextmanager
def _locked() -> Iterator[None]:
    try:
        with _lock():
            yield
    except Timeout:
        raise ModelStoreError(f"The model list {store_dir() / STORE_FILE} is being changed by another Workbench "
                              f"process and stayed locked for {LOCK_TIMEOUT_S} s. Wait for it to finish, "
                              "then try again.", code="model_list_locked", path=str(store_dir() / STORE_FILE),
                              seconds=LOCK_TIMEOUT_S) from None


def _read() -> _StoreFile:
    path = store_dir() / STORE_FILE
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _StoreFile()
    try:
        return _StoreFile.model_validate(json.loads(raw))
    except (ValueError, ValidationError) as exc:
        raise ModelStoreError(f"The model list {path} is damaged ({str(exc).splitlines()[0]}). Move it aside to "
                              "start an empty list (the model folders beside it stay), then add the models "
                              "again.", code="model_list_damaged", path=str(path),
                              detail=str(exc).splitlines()[0]) from None


def _write(data: _StoreFile) -> None:
    atomic_write_json(store_dir() / STORE_FILE, data.model_dump(mode="json"))


# ----- queries ------------------------------------------------------------------


def list_models() -> list[ModelEntry]:
    """Every registered model, in the order added; a vanished folder shows as ``missing``."""
    return list(_read().models)


def get_model(model_id: str) -> ModelEntry | None:
    return next((m for m in _read().models if m.id == model_id), None)


def require_model(model_id: str) -> ModelEntry:
    entry = get_model(model_id)
    if entry is None:
        ids = [m.id for m in list_models()]
        known = ", ".join(ids) or "none yet"
        raise ModelStoreError(f"No registered model has the id '{model_id}' (registered: {known}). "
                              "See 'workbench models list'.", code="model_id_unknown", model=model_id, known=ids)
    return entry


def resolve(base_model: str) -> str | None:
    """The folder of a registered model's id, or None when ``base_model`` is no registered id
    (a built-in model, a folder path, a hub id). A registered model whose folder is gone is
    an error that says so."""
    entry = get_model(base_model) if base_model and re.fullmatch(r"[a-z0-9-]+", base_model) else None
    if entry is None:
        return None
    if entry.missing:
        raise ModelStoreError(
            f"The registered model '{entry.id}' ({entry.name}) has no model in its folder {entry.path} any more. "
            f"Put the folder back, or remove the model ('workbench models remove {entry.id}') and add it again.",
            code="registered_model_missing", model=entry.id, name=entry.name, path=str(entry.path))
    return str(entry.path)


def licence_accepted(key: str) -> Licence | None:
    """The record of a licence the user accepted (once per licence), or None."""
    return _read().licences.get(key)


# ----- changes --------------------------------------------------------------------


def check_new(model_id: str, name: str) -> None:
    """Refuse an id or a name already taken, before any long work."""
    for m in _read().models:
        if m.id == model_id or m.name.casefold() == name.casefold():
            raise ModelStoreError(
                f"A model named '{m.name}' (id {m.id}) is already registered. Give this one another name with "
                f"--name, or remove that one first ('workbench models remove {m.id}').", code="model_name_taken",
                name=m.name, model=m.id)


def add_entry(entry: ModelEntry, staged: Path | None = None) -> ModelEntry:
    """Register ``entry``; an owned model's finished folder ``staged`` is moved to ``models/<id>``
    in the same locked step, so the list never names a folder that is not complete."""
    with _locked():
        data = _read()
        for m in data.models:
            if m.id == entry.id or m.name.casefold() == entry.name.casefold():
                raise ModelStoreError(
                    f"A model named '{m.name}' (id {m.id}) is already registered. Give this one another name "
                    f"with --name, or remove that one first ('workbench models remove {m.id}').",
                    code="model_name_taken", name=m.name, model=m.id)
        if entry.owned:
            target = store_dir() / entry.id
            if target.exists():  # left by a model removed by hand from models.json
                _discard(target)
            if staged is not None:
                os.replace(staged, target)
            entry = entry.model_copy(update={"folder": entry.id})
        data.models.append(entry)
        _write(data)
        return entry


def remove_model(model_id: str) -> ModelEntry:
    """Unregister a model; an owned folder is deleted, a folder registered in place is left alone."""
    with _locked():
        data = _read()
        entry = next((m for m in data.models if m.id == model_id), None)
        if entry is None:
            ids = [m.id for m in data.models]
            known = ", ".join(ids) or "none yet"
            raise ModelStoreError(f"No registered model has the id '{model_id}' (registered: {known}). "
                                  "See 'workbench models list'.", code="model_id_unknown", model=model_id, known=ids)
        data.models = [m for m in data.models if m.id != model_id]
        _write(data)
        if entry.owned and entry.path.exists() and entry.path.parent == store_dir():
            _discard(entry.path)
        return entry


def record_licence(key: str, licence: Licence) -> Licence:
    """Remember that the user accepted ``licence`` (with the time); returns the record."""
    with _locked():
        data = _read()
        rec = licence.model_copy(update={"accepted_at": licence.accepted_at or now_iso(), "file": None})
        data.licences[key] = rec
        _write(data)
        return rec


def _discard(folder: Path) -> None:
    """Delete a folder: renamed out of the way first, so a delete cut short never leaves half a
    model under a model's name."""
    trash = store_dir() / TRASH
    trash.mkdir(parents=True, exist_ok=True)
    dead = trash / f"{folder.name}-{secrets.token_hex(4)}"
    os.replace(folder, dead)
    shutil.rmtree(dead, ignore_errors=True)


# ----- staging -----------------------------------------------------------------------


@contextmanager
def staging() -> Iterator[Path]:
    """An empty folder inside the store for building a model (same disk: the final move is a
    rename), held by this process and deleted on the way out, whatever happened."""
    sweep_staging()
    root = store_dir() / STAGING
    root.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(6)
    lock = FileLock(str(root / f"{token}.lock"))
    lock.acquire()
    folder = root / token
    folder.mkdir()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        lock.release()
        Path(lock.lock_file).unlink(missing_ok=True)


def sweep_staging() -> list[str]:
    """Delete what killed processes left in the staging and trash folders; returns the names."""
    removed = []
    root = store_dir() / STAGING
    if root.is_dir():
        for folder in [p for p in root.iterdir() if p.is_dir()]:
            lock = FileLock(str(root / f"{folder.name}.lock"))
            try:
                lock.acquire(timeout=0)
            except Timeout:  # its process is still building
                continue
            try:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder.name)
            finally:
                lock.release()
                Path(lock.lock_file).unlink(missing_ok=True)
    # a folder moved into place by a process killed before it wrote the list: under the lock,
    # so that no add is between its move and its write
    if store_dir().is_dir():
        with _locked():
            owned = {m.folder for m in _read().models if m.owned}
            for p in store_dir().iterdir():
                if p.is_dir() and not p.name.startswith(".") and p.name not in owned:
                    _discard(p)
                    removed.append(p.name)
    trash = store_dir() / TRASH
    if trash.is_dir():
        for p in trash.iterdir():
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p.name)
    return removed
