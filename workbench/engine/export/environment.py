"""The Python environment of an exported bundle: exact pins, their hashes, an optional
wheelhouse, and the container files.

    requirements.txt   the packages predict.py and serve.py import, at the exporting versions
    requirements.lock  every package they need (their dependencies too), ``==`` the version
                       installed where the bundle was exported, with the sha256 of each wheel
                       for the target platform
    wheels/            (``--wheelhouse``) those wheels, so that
                       ``pip install --no-index --find-links wheels -r requirements.lock``
                       installs with no network on the target platform
    Dockerfile         an image that runs serve.py from static/, installing from the lock
                       (from wheels/ when the build context has them)
    .dockerignore      keeps onnx/, merged/, gguf/ and int8/ out of the build context

The pins are the exporting environment itself: the dependency closure of the bundle's
imports read from the installed packages' metadata (``importlib.metadata``), so a fresh
install gets the versions the export was checked with. The lock and the wheels are for a
target platform (core.operations.export.BUNDLE_TARGETS; by default the Docker image's:
manylinux x86-64, CPython 3.11), not necessarily the exporting machine's: the closure's
environment markers are evaluated for the target (``colorama; platform_system ==
"Windows"`` is in a Windows lock only), a package the target needs that is not installed
here is resolved by pip for the target (the newest version its requirement allows), and
pip picks each wheel with ``--platform/--python-version/--implementation/--abi
--only-binary=:all:``. The hashes come from pip: a ``pip install --dry-run --no-deps
--report`` over the exact pins reports, for each, the wheel pip would install on the target
and its sha256 from the package index (looked up once per target and set of pins, then
cached). Without an index (an offline machine) the lock keeps the exact pins and says that
it has no hashes.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from workbench.core.errors import WorkbenchError
from workbench.core.operations.export import BundleTarget, bundle_target

# what predict.py, serve.py and bundle_runtime.py import (aiohttp: serve.py only)
BUNDLE_NEEDS = ("paddlepaddle", "tokenizers", "numpy", "aiohttp")
# the base image of the Dockerfile, pinned: the multi-arch index of python:3.11-slim (Python
# 3.11.16, Debian trixie). Re-resolve deliberately: `docker pull python:3.11-slim` prints it.
BASE_IMAGES = {"3.11": "python:3.11-slim@sha256:9c900dea9e8fb7e16277c179b555cc72d29a352dbc33cff48ad5a0412fd5bfc7"}
# what an image that serves static/ never needs (the Dockerfile copies only what it names, too)
# (wheels/ stays in the context: the Dockerfile mounts it for the install, and no layer keeps it)
DOCKERIGNORE = ("onnx/", "onnx_generate/", "merged/", "gguf/", "int8/", "*.gguf")
PIP_TIMEOUT_S = 600
RESOLVE_ROUNDS = 5  # requirements of requirements resolved for a target (one level is what is seen)


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


def target_environment(target: BundleTarget) -> dict[str, str]:
    """The PEP 508 environment markers are evaluated in for ``target``."""
    return {**default_environment(), **dict(target.markers)}


def pinned_closure(roots: Iterable[str], environment: dict[str, str] | None = None,
                   unmet: list[Requirement] | None = None) -> list[tuple[str, str]]:
    """``(name, version)`` of ``roots`` and everything they require, as installed here.

    Not a resolver: the installed environment already is the resolution; this reads it
    (each distribution's ``Requires-Dist``, markers evaluated for ``environment``, default
    this interpreter, with the extras asked for). pip has no command for "the installed
    closure of X" (``pip freeze`` lists the whole environment, the training stack included).
    With ``unmet`` (a list), a requirement that applies in ``environment`` but is not
    installed here (another platform's) is appended to it rather than refused."""
    found: dict[str, tuple[str, str, frozenset[str]]] = {}
    todo: list[tuple[str, frozenset[str], Requirement | None]] = [(r, frozenset(), None) for r in roots]
    while todo:
        name, extras, why = todo.pop()
        key = canonicalize_name(name)
        if key in found and extras <= found[key][2]:
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError as exc:
            if unmet is not None and why is not None:
                unmet.append(why)
                continue
            raise WorkbenchError(f"The package {name}, which the bundle needs, is not installed here, so the "
                                 "bundle's requirements cannot be pinned. Reinstall Workbench.",
                                 code="bundle_package_missing", package=str(name)) from exc
        extras = extras | (found[key][2] if key in found else frozenset())
        found[key] = (dist.metadata["Name"], dist.version, extras)
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker and not any(req.marker.evaluate({**(environment or {}), "extra": e})
                                      for e in (extras or {""})):
                continue
            todo.append((req.name, frozenset(req.extras), req))
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
                      reason: str | None = None, target: BundleTarget | None = None,
                      resolved: Sequence[str] = (), unmet: Sequence[str] = ()) -> str:
    """The lock's text. ``resolved``: pinned packages the target needs that are not installed
    here (pip chose their versions); ``unmet``: such requirements left unpinned (no index)."""
    target = target or bundle_target(None)
    where = "this computer" if target.here else target.title
    head = [f"# Every package predict.py and serve.py need on {where}, at the versions installed where this "
            f"bundle was exported (Python {platform.python_version()}, {sys.platform} {platform.machine()}).",
            "#   pip install -r requirements.lock",
            "#   pip install --no-index --find-links wheels -r requirements.lock     # with the bundle's wheels/"]
    if hashes:
        head.append(f"# The hashes are those of the wheels for {where}; pip refuses any other file (on another "
                    "system, install requirements.txt).")
    else:
        why = " ".join((reason or "no package index was reachable at export").split())  # one comment line
        head.append(f"# No hashes: {why}.")
    if resolved:
        head.append(f"# Not installed where it was exported, so at the newest version the index had then: "
                    f"{', '.join(resolved)}.")
    body = []
    for n, v in pins:
        h = (hashes or {}).get(canonicalize_name(n)) or []
        body.append(f"{n}=={v}" + "".join(f" \\\n    --hash=sha256:{x}" for x in h))
    body += [f"{r}  # needed there, not installed here: not pinned" for r in unmet]
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


def pip_target_args(target: BundleTarget) -> list[str]:
    """pip's options that pick the wheels of ``target`` rather than this machine's."""
    if target.here:
        return []
    py = target.python or f"{sys.version_info.major}.{sys.version_info.minor}"
    return [a for tag in target.platforms for a in ("--platform", tag)] + [
        "--python-version", py, "--implementation", "cp", "--abi", "cp" + py.replace(".", "")]


def _same_markers(target: BundleTarget) -> bool:
    """Whether a requirement's markers read the same here as on ``target`` (then pip, which
    evaluates them for this interpreter whatever --platform says, resolves for it too)."""
    keys = ("os_name", "sys_platform", "platform_system", "platform_machine", "python_version",
            "implementation_name")
    here, there = default_environment(), target_environment(target)
    return target.here or all(here[k] == there[k] for k in keys)


def _pins_key(lines: Sequence[str], target: BundleTarget) -> str:
    tag = f"{sys.implementation.name}{sys.version_info.major}{sys.version_info.minor}-{sys.platform}-" \
          f"{platform.machine()}" if target.here else target.key
    return "v2-" + tag + "-" + hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _short(text: str, n: int = 600) -> str:
    lines = [x for x in text.strip().splitlines() if "is ignored: it is neither a file nor a directory" not in x]
    return "\n".join(lines)[-n:]


def _merged(reqs: Iterable[Requirement]) -> list[str]:
    """One requirement line per package (markers dropped: they were evaluated for the target)."""
    by_name: dict[str, Requirement] = {}
    for r in reqs:
        key = canonicalize_name(r.name)
        if key in by_name:
            by_name[key].specifier &= r.specifier
        else:
            by_name[key] = Requirement(f"{r.name}{r.specifier}")
    return sorted(str(r) for r in by_name.values())


def _pip_report(pip: list[str], lines: Sequence[str], target: BundleTarget) -> tuple[list[dict] | None, str | None]:
    """What ``pip install --dry-run --no-deps`` would install for ``target``: its report's items."""
    with tempfile.TemporaryDirectory(prefix="workbench-lock-") as tmp:
        pins_file, report = Path(tmp) / "pins.txt", Path(tmp) / "report.json"
        pins_file.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
        cmd = pip + ["install", "--dry-run", "--ignore-installed", "--no-deps", "--only-binary=:all:",
                     *pip_target_args(target), "--disable-pip-version-check", "--retries", "1", "--timeout", "15",
                     "--quiet", "--report", str(report), "-r", str(pins_file)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, "the package index did not answer in time"
        if r.returncode != 0 or not report.is_file():
            none = re.search(r"No matching distribution found for (\S+)", r.stderr or "")
            if none and "(from versions: none)" not in r.stderr:  # other versions have wheels for it, not this
                where = "this computer" if target.here else target.title
                return None, f"the package index has no wheel of {none.group(1)} for {where}"
            return None, "pip could not look the wheels up: " + (_short(r.stderr or r.stdout, 300) or "no reason given")
        return json.loads(report.read_text(encoding="utf-8")).get("install", []), None


def wheel_hashes(pins: Sequence[tuple[str, str]], target: BundleTarget | None = None,
                 unmet: Sequence[Requirement] = ()) -> tuple[dict[str, list[str]] | None, str | None,
                                                             list[tuple[str, str]]]:
    """``({canonical name: [sha256]}, None, resolved)`` for the wheels pip picks for ``target``
    (default: the Docker image's platform), or ``(None, reason, [])``. ``unmet``: requirements the
    target has that are not installed here; pip resolves them (and theirs, markers evaluated for
    the target) and ``resolved`` is their ``(name, version)``."""
    target = target or bundle_target(None)
    pip = _pip()
    if pip is None:
        return None, "this installation has no pip to look the wheels up with", []
    lines = [f"{n}=={v}" for n, v in pins] + _merged(unmet)
    cache = _cache_file()
    key = _pins_key(lines, target)
    try:
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    entry = known.get(key) if isinstance(known, dict) else None
    if isinstance(entry, dict) and isinstance(entry.get("hashes"), dict):
        return entry["hashes"], None, [tuple(x) for x in entry.get("resolved") or []]
    env = target_environment(target)
    pinned = {canonicalize_name(n) for n, _ in pins}
    hashes: dict[str, list[str]] = {}
    resolved: list[tuple[str, str]] = []
    ask = lines
    for _ in range(RESOLVE_ROUNDS):
        items, reason = _pip_report(pip, ask, target)
        if items is None:
            return None, reason, []
        more: list[Requirement] = []
        for item in items:
            meta = item["metadata"]
            name = canonicalize_name(meta["name"])
            digest = (((item.get("download_info") or {}).get("archive_info") or {}).get("hashes") or {}).get("sha256")
            if digest:
                hashes[name] = [digest]
            if name in pinned:
                continue
            pinned.add(name)  # resolved for the target: its own requirements are looked at next
            resolved.append((meta["name"], meta["version"]))
            for line in meta.get("requires_dist") or []:
                req = Requirement(line)
                if not (req.marker and not req.marker.evaluate({**env, "extra": ""})):
                    more.append(req)
        ask = _merged(r for r in more if canonicalize_name(r.name) not in pinned)
        if not ask:
            break
    else:
        return None, f"the requirements of {', '.join(ask)} go deeper than {RESOLVE_ROUNDS} levels", []
    missing = [n for n, _ in [*pins, *resolved] if canonicalize_name(n) not in hashes]
    if missing:
        return None, f"the package index gave no sha256 for {', '.join(missing)}", []
    if isinstance(known, dict):
        known[key] = {"hashes": hashes, "resolved": resolved}
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            part = cache.with_name(cache.name + f".{os.getpid()}.tmp")
            part.write_text(json.dumps(known, indent=1) + "\n", encoding="utf-8")
            os.replace(part, cache)
        except OSError:
            pass  # a cache only: the next export asks the index again
    return hashes, None, resolved


def download_wheels(lock: Path, folder: Path, target: BundleTarget | None = None) -> dict[str, Any]:
    """Fetch the wheels of ``lock`` for ``target`` into ``folder`` (hash-checked by pip), then
    prove the folder installs the lock on its own: a dry run with ``--no-index --find-links
    folder`` for the target. pip follows the dependencies in that check only where their markers
    read the same here as there; elsewhere it checks every pinned file is there (the closure,
    markers evaluated for the target, is the lock itself)."""
    target = target or bundle_target(None)
    pip = _pip()
    if pip is None:
        raise WheelhouseError("This installation has no pip, so it cannot download the bundle's wheels. Export "
                              "without the wheelhouse, then run 'pip download -r requirements.lock -d wheels' "
                              "in the bundle on a machine with Python.", code="wheelhouse_without_pip")
    folder.mkdir(parents=True, exist_ok=True)
    cmd = pip + ["download", "--no-deps", "--only-binary=:all:", *pip_target_args(target),
                 "--disable-pip-version-check", "--quiet", "--retries", "1", "--timeout", "30", "-d", str(folder),
                 "-r", str(lock)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    except subprocess.TimeoutExpired as exc:
        raise WheelhouseError("Downloading the bundle's wheels took longer than "
                              f"{PIP_TIMEOUT_S // 60} minutes; export again, or without the wheelhouse.",
                              code="wheelhouse_timeout", minutes=PIP_TIMEOUT_S // 60) from exc
    if r.returncode != 0:
        said = _short(r.stderr or r.stdout) or "pip gave no reason"
        raise WheelhouseError("The bundle's wheels could not be downloaded (the wheelhouse needs a package index "
                              "once, at export): " + said
                              + "\nExport without the wheelhouse, or where the index is reachable.",
                              code="wheelhouse_download_failed", detail=said)
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)  # only this folder: no configured index or links
    for k in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_NO_INDEX"):
        env.pop(k, None)
    with_deps = _same_markers(target)
    check = pip + ["install", "--dry-run", "--ignore-installed", "--no-index", "--find-links", str(folder),
                   "--only-binary=:all:", *pip_target_args(target), *([] if with_deps else ["--no-deps"]), "--quiet", "-r", str(lock)]
    r = subprocess.run(check, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, env=env)
    if r.returncode != 0:
        said = _short(r.stderr or r.stdout) or "pip gave no reason"
        raise WheelhouseError("The downloaded wheels do not install the bundle's requirements.lock on their own: "
                              + said, code="wheelhouse_incomplete", detail=said)
    wheels = sorted(p.name for p in folder.glob("*.whl"))
    return {"status": "ok", "wheels": len(wheels), "size_mb": round(sum(p.stat().st_size for p in folder.iterdir())
                                                                    / 1e6, 1), "offline_install_checked": True,
            "dependencies_checked": with_deps}


def write_environment(stage: Path, *, wheelhouse: bool, scripts: Sequence[str],
                      target: str | BundleTarget | None = None) -> dict[str, Any]:
    """requirements.txt, requirements.lock (for ``target``, a key of BUNDLE_TARGETS; default the
    Docker image's platform), wheels/ (when asked), Dockerfile and .dockerignore in ``stage``;
    returns bundle.json's ``requirements`` check."""
    target = target if isinstance(target, BundleTarget) else bundle_target(target)
    unmet: list[Requirement] = []
    pins = pinned_closure(bundle_needs(), target_environment(target), unmet)
    hashes, reason, resolved = wheel_hashes(pins, target, unmet)
    if wheelhouse and not hashes:
        no_wheel = "has no wheel" in (reason or "")
        raise WheelhouseError(f"The bundle's wheels cannot be fetched: {reason}. Export without the wheelhouse, "
                              + ("or for another target platform." if no_wheel
                                 else "or where a package index is reachable."),
                              code="wheelhouse_platform_lacks_wheel" if no_wheel else "wheelhouse_unavailable",
                              detail=str(reason))
    (stage / "requirements.txt").write_text(requirements_txt(pins), encoding="utf-8")
    lock = stage / "requirements.lock"
    locked = sorted([*pins, *resolved], key=lambda nv: canonicalize_name(nv[0]))
    lock.write_text(requirements_lock(locked, hashes, reason, target, [f"{n}=={v}" for n, v in resolved],
                                      [] if hashes else _merged(unmet)), encoding="utf-8")
    check: dict[str, Any] = {"packages": len(locked), "hashes": bool(hashes), "reason": reason,
                             "target": target.key, "target_title": target.title,
                             "platform": f"{sys.platform}-{platform.machine()}",
                             "python": platform.python_version()}
    if resolved:
        check["resolved_for_target"] = [f"{n}=={v}" for n, v in resolved]
    if wheelhouse:
        check["wheelhouse"] = download_wheels(lock, stage / "wheels", target)
    # the model's licence travels inside the image too (a derivative is passed on with its terms)
    notices = [name for name in NOTICE_FILES if (stage / name).is_file()]
    (stage / "Dockerfile").write_text(dockerfile(scripts, target, notices=notices), encoding="utf-8")
    (stage / ".dockerignore").write_text(
        "# the image serves static/: the other formats stay out of the build context\n"
        + "\n".join(DOCKERIGNORE) + "\n", encoding="utf-8")
    return check


# ----- the container --------------------------------------------------------------------------------


NOTICE_FILES = ("LICENSE", "NOTICE")


def dockerfile(scripts: Sequence[str], target: BundleTarget | None = None, *, notices: Sequence[str] = ()) -> str:
    """An image that runs serve.py on the CPU from static/ (for a GPU image, start from a CUDA
    base and install paddlepaddle-gpu instead). It installs from the bundle's wheels/ when the
    build context has them (added at export, or later with pip download), else from the index.
    Its Python is the target's (the lock's wheels are for it); a lock for another system than
    Linux cannot build it, and the file says so."""
    target = target or bundle_target(None)
    py = target.python or f"{sys.version_info.major}.{sys.version_info.minor}"
    base = BASE_IMAGES.get(py, f"python:{py}-slim")
    linux = target_environment(target)["sys_platform"] == "linux"
    warning = "" if linux else (
        f"# requirements.lock and wheels/ of this bundle are for {'this computer' if target.here else target.title},"
        "\n# not Linux: export it again for linux-x86_64 (the default) to build this image.\n")
    return f"""# syntax=docker/dockerfile:1
# The prediction service of this bundle on the CPU.
{warning}#   docker build -t my-model .
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

# only what serve.py runs: the static model, the tokenizer and the bundle's code{", and the model's licence" if notices else ""}
COPY bundle.json {' '.join([*scripts, *notices])} ./
COPY tokenizer/ tokenizer/
COPY static/ static/
RUN useradd --system --uid 10001 model
USER 10001

EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \\
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
ENTRYPOINT ["python", "serve.py", "--host", "0.0.0.0", "--port", "8000"]
"""


def package_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None
