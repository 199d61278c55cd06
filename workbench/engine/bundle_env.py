"""The Python environment of an exported bundle: exact pins, their hashes, an optional
wheelhouse, and the container files.

    requirements.txt   the packages predict.py and serve.py import, at the exporting versions
    requirements.lock  every package they need (their dependencies too), ``==`` the version
                       installed where the bundle was exported, with the sha256 of each wheel
    wheels/            (``--wheelhouse``) those wheels, so that
                       ``pip install --no-index --find-links wheels -r requirements.lock``
                       installs with no network
    Dockerfile         an image that runs serve.py from static/, installing from the lock
                       (from wheels/ when the build context has them)
    .dockerignore      keeps onnx/, merged/, gguf/ and int8/ out of the build context

The pins are the exporting environment itself: the dependency closure of the bundle's
imports read from the installed packages' metadata (``importlib.metadata``), so a fresh
install gets the versions the export was checked with. The hashes come from pip: a
``pip install --dry-run --no-deps --report`` over the exact pins reports, for each, the
wheel pip would install for this machine and its sha256 from the package index (looked up
once per set of pins, then cached). Without an index (an offline machine) the lock keeps
the exact pins and says that it has no hashes.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from ..core.errors import WorkbenchError

# what predict.py, serve.py and bundle_runtime.py import (aiohttp: serve.py only)
BUNDLE_NEEDS = ("paddlepaddle", "tokenizers", "numpy", "aiohttp")
# the base image of the Dockerfile, pinned: the multi-arch index of python:3.11-slim (Python
# 3.11.16, Debian trixie). Re-resolve deliberately: `docker pull python:3.11-slim` prints it.
BASE_IMAGES = {"3.11": "python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7"}
# what an image that serves static/ never needs (the Dockerfile copies only what it names, too)
# (wheels/ stays in the context: the Dockerfile mounts it for the install, and no layer keeps it)
DOCKERIGNORE = ("onnx/", "onnx_generate/", "merged/", "gguf/", "int8/", "*.gguf")
PIP_TIMEOUT_S = 600


class WheelhouseError(WorkbenchError):
    """The wheels for the bundle could not be downloaded; the message says which and why."""


# ----- exact pins ---------------------------------------------------------------------------------------


def _paddle_package() -> str:
    """paddlepaddle, or paddlepaddle-gpu where that is what is installed."""
    for name in ("paddlepaddle", "paddlepaddle-gpu"):
        try:
            distribution(name)
            return name
        except PackageNotFoundError:
            continue
    return "paddlepaddle"


def bundle_needs() -> list[str]:
    return [_paddle_package() if n == "paddlepaddle" else n for n in BUNDLE_NEEDS]


def pinned_closure(roots: Iterable[str]) -> list[tuple[str, str]]:
    """``(name, version)`` of ``roots`` and everything they require here, as installed.

    Not a resolver: the installed environment already is the resolution; this reads it
    (each distribution's ``Requires-Dist``, markers evaluated for this interpreter, with
    the extras asked for). pip has no command for "the installed closure of X" (``pip
    freeze`` lists the whole environment, the training stack included)."""
    found: dict[str, tuple[str, str, frozenset[str]]] = {}
    todo = [(r, frozenset()) for r in roots]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if key in found and extras <= found[key][2]:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError as exc:
            raise WorkbenchError(f"The package {name}, which the bundle needs, is not installed here, so the "
                                 "bundle's requirements cannot be pinned. Reinstall Workbench.") from exc
        extras = extras | (found[key][2] if key in found else frozenset())
        found[key] = (dist.metadata["Name"], dist.version, extras)
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker and not any(req.marker.evaluate({"extra": e}) for e in (extras or {""})):
                continue
            todo.append((req.name, frozenset(req.extras)))
    return sorted(((n, v) for n, v, _ in found.values()), key=lambda nv: canonicalize_name(nv[0]))


def requirements_txt(pins: Sequence[tuple[str, str]]) -> str:
    version = {canonicalize_name(n): (n, v) for n, v in pins}
    lines = [
        "# What predict.py and serve.py import, at the versions this bundle was exported and checked with.",
        "# requirements.lock pins every package they need, with hashes: pip install -r requirements.lock",
        "# On a machine with an NVIDIA GPU install paddlepaddle-gpu of the same version instead of paddlepaddle",
        "# (see https://www.paddlepaddle.org.cn/install).",
    ]
    for need in bundle_needs():
        n, v = version[canonicalize_name(need)]
        lines.append(f"{n}=={v}" + ("  # serve.py's HTTP server (predict.py runs without it)"
                                    if need == "aiohttp" else ""))
    return "\n".join(lines) + "\n"


def requirements_lock(pins: Sequence[tuple[str, str]], hashes: dict[str, list[str]] | None,
                      reason: str | None = None) -> str:
    head = [f"# Every package predict.py and serve.py need, as installed where this bundle was exported "
            f"(Python {platform.python_version()}, {sys.platform} {platform.machine()}).",
            "#   pip install -r requirements.lock",
            "#   pip install --no-index --find-links wheels -r requirements.lock     # with the bundle's wheels/"]
    if hashes:
        head.append("# The hashes are those of the wheels for this platform; pip refuses any other file.")
    else:
        why = " ".join((reason or "no package index was reachable at export").split())  # one comment line
        head.append(f"# No hashes: {why}.")
    body = []
    for n, v in pins:
        h = (hashes or {}).get(canonicalize_name(n)) or []
        body.append(f"{n}=={v}" + "".join(f" \\\n    --hash=sha256:{x}" for x in h))
    return "\n".join(head + body) + "\n"


# ----- hashes and wheels, through pip -------------------------------------------------------------------


def _pip() -> list[str] | None:
    """pip of this interpreter; None in the built application (it runs no pip)."""
    if getattr(sys, "frozen", False):
        return None
    # its metadata, not the import system: even looking the module 'pip' up makes setuptools'
    # distutils shim give way to the standard library's, and a later 'import setuptools'
    # (paddle imports it) then fails
    try:
        distribution("pip")
    except PackageNotFoundError:
        return None
    return [sys.executable, "-m", "pip"]


def _cache_file() -> Path:
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "workbench" / "wheel-hashes.json"


def _pins_key(pins: Sequence[tuple[str, str]]) -> str:
    tag = f"{sys.implementation.name}{sys.version_info.major}{sys.version_info.minor}-{sys.platform}-" \
          f"{platform.machine()}"
    return tag + "-" + hashlib.sha256("\n".join(f"{n}=={v}" for n, v in pins).encode()).hexdigest()[:16]


def _short(text: str, n: int = 600) -> str:
    lines = [x for x in text.strip().splitlines() if "is ignored: it is neither a file nor a directory" not in x]
    return "\n".join(lines)[-n:]


def wheel_hashes(pins: Sequence[tuple[str, str]]) -> tuple[dict[str, list[str]] | None, str | None]:
    """``({canonical name: [sha256]}, None)`` for the wheels pip picks here, or ``(None, reason)``."""
    pip = _pip()
    if pip is None:
        return None, "this installation has no pip to look the wheels up with"
    cache = _cache_file()
    key = _pins_key(pins)
    try:
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if isinstance(known, dict) and isinstance(known.get(key), dict):
        return known[key], None
    with tempfile.TemporaryDirectory(prefix="workbench-lock-") as tmp:
        pins_file, report = Path(tmp) / "pins.txt", Path(tmp) / "report.json"
        pins_file.write_text("".join(f"{n}=={v}\n" for n, v in pins), encoding="utf-8")
        cmd = pip + ["install", "--dry-run", "--ignore-installed", "--no-deps", "--only-binary=:all:",
                     "--disable-pip-version-check", "--retries", "1", "--timeout", "15", "--quiet",
                     "--report", str(report), "-r", str(pins_file)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, "the package index did not answer in time"
        if r.returncode != 0 or not report.is_file():
            return None, "pip could not look the wheels up: " + (_short(r.stderr or r.stdout, 300) or "no reason given")
        items = json.loads(report.read_text(encoding="utf-8")).get("install", [])
    hashes: dict[str, list[str]] = {}
    for item in items:
        digest = (((item.get("download_info") or {}).get("archive_info") or {}).get("hashes") or {}).get("sha256")
        if digest:
            hashes[canonicalize_name(item["metadata"]["name"])] = [digest]
    missing = [n for n, _ in pins if canonicalize_name(n) not in hashes]
    if missing:
        return None, f"the package index gave no sha256 for {', '.join(missing)}"
    if isinstance(known, dict):
        known[key] = hashes
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            part = cache.with_name(cache.name + f".{os.getpid()}.tmp")
            part.write_text(json.dumps(known, indent=1) + "\n", encoding="utf-8")
            os.replace(part, cache)
        except OSError:
            pass  # a cache only: the next export asks the index again
    return hashes, None


def download_wheels(lock: Path, folder: Path) -> dict[str, Any]:
    """Fetch the wheels of ``lock`` into ``folder`` (hash-checked by pip), then prove the folder
    installs the lock on its own: a dry run with ``--no-index --find-links folder``."""
    pip = _pip()
    if pip is None:
        raise WheelhouseError("This installation has no pip, so it cannot download the bundle's wheels. Export "
                              "without the wheelhouse, then run 'pip download -r requirements.lock -d wheels' "
                              "in the bundle on a machine with Python.")
    folder.mkdir(parents=True, exist_ok=True)
    cmd = pip + ["download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check", "--quiet",
                 "--retries", "1", "--timeout", "30", "-d", str(folder), "-r", str(lock)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise WheelhouseError("Downloading the bundle's wheels took longer than "
                              f"{PIP_TIMEOUT_S // 60} minutes; export again, or without the wheelhouse.") from exc
    if r.returncode != 0:
        raise WheelhouseError("The bundle's wheels could not be downloaded (the wheelhouse needs a package index "
                              "once, at export): " + (_short(r.stderr or r.stdout) or "pip gave no reason")
                              + "\nExport without the wheelhouse, or where the index is reachable.")
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)  # only this folder: no configured index or links
    for k in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        env.pop(k, None)
    check = pip + ["install", "--dry-run", "--ignore-installed", "--no-index", "--find-links", str(folder),
                   "--quiet", "-r", str(lock)]
    r = subprocess.run(check, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, env=env)
    if r.returncode != 0:
        raise WheelhouseError("The downloaded wheels do not install the bundle's requirements.lock on their own: "
                              + (_short(r.stderr or r.stdout) or "pip gave no reason"))
    wheels = sorted(p.name for p in folder.glob("*.whl"))
    return {"status": "ok", "wheels": len(wheels), "size_mb": round(sum(p.stat().st_size for p in folder.iterdir())
                                                                    / 1e6, 1), "offline_install_checked": True}


def write_environment(stage: Path, *, wheelhouse: bool, scripts: Sequence[str]) -> dict[str, Any]:
    """requirements.txt, requirements.lock, wheels/ (when asked), Dockerfile and .dockerignore
    in ``stage``; returns bundle.json's ``requirements`` check."""
    pins = pinned_closure(bundle_needs())
    hashes, reason = wheel_hashes(pins)
    if wheelhouse and not hashes:
        raise WheelhouseError(f"The bundle's wheels cannot be fetched: {reason}. Export without the wheelhouse, "
                              "or where a package index is reachable.")
    (stage / "requirements.txt").write_text(requirements_txt(pins), encoding="utf-8")
    lock = stage / "requirements.lock"
    lock.write_text(requirements_lock(pins, hashes, reason), encoding="utf-8")
    check: dict[str, Any] = {"packages": len(pins), "hashes": bool(hashes), "reason": reason,
                             "platform": f"{sys.platform}-{platform.machine()}",
                             "python": platform.python_version()}
    if wheelhouse:
        check["wheelhouse"] = download_wheels(lock, stage / "wheels")
    (stage / "Dockerfile").write_text(dockerfile(scripts), encoding="utf-8")
    (stage / ".dockerignore").write_text(
        "# the image serves static/: the other formats stay out of the build context\n"
        + "\n".join(DOCKERIGNORE) + "\n", encoding="utf-8")
    return check


# ----- the container --------------------------------------------------------------------------------


def dockerfile(scripts: Sequence[str]) -> str:
    """An image that runs serve.py on the CPU from static/ (for a GPU image, start from a CUDA
    base and install paddlepaddle-gpu instead). It installs from the bundle's wheels/ when the
    build context has them (added at export, or later with pip download), else from the index."""
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    base = BASE_IMAGES.get(py, f"python:{py}-slim")
    return f"""# syntax=docker/dockerfile:1
# The prediction service of this bundle on the CPU.
#   docker build -t my-model .
#   docker run -p 127.0.0.1:8000:8000 -e MODEL_API_KEY="$(openssl rand -hex 24)" my-model
# -p 127.0.0.1:... publishes the port on this host only; put a TLS proxy in front to serve others.
ARG BASE_IMAGE={base}
FROM ${{BASE_IMAGE}}

# Paddle's CPU kernels need the GNU OpenMP runtime; the base image's Debian release fixes
# its version, so it is not pinned here
# hadolint ignore=DL3008
RUN apt-get update \\
    && apt-get install -y --no-install-recommends libgomp1 \\
    && rm -rf /var/lib/apt/lists/*

WORKDIR /bundle
COPY requirements.lock .
# the build context is mounted for this step only, so no layer keeps the wheels
RUN --mount=type=bind,target=/tmp/bundle \\
    if [ -d /tmp/bundle/wheels ]; then \\
        pip install --no-cache-dir --no-index --find-links /tmp/bundle/wheels -r requirements.lock; \\
    else \\
        pip install --no-cache-dir -r requirements.lock; \\
    fi

# only what serve.py runs: the static model, the tokenizer and the bundle's code
COPY bundle.json {' '.join(scripts)} ./
COPY tokenizer/ tokenizer/
COPY static/ static/
RUN useradd --system --uid 10001 model
USER 10001

EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \\
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
ENTRYPOINT ["python", "serve.py", "--host", "0.0.0.0", "--port", "8000"]
"""
