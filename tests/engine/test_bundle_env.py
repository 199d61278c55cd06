"""The bundle's environment: exact pins read from this installation, hashes from pip, a
wheelhouse that installs with no network, and container files that serve static/ only."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import distribution, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from workbench.engine.export import environment

SCRIPTS = ("bundle_runtime.py", "predict.py", "serve.py")


def offline(monkeypatch) -> None:
    """pip with no index and no links: what an air-gapped machine has."""
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    for k in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        monkeypatch.delenv(k, raising=False)


@pytest.fixture
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_pins_are_the_installed_closure_of_what_the_bundle_imports():
    pins = environment.pinned_closure(environment.bundle_needs())
    names = {canonicalize_name(n): v for n, v in pins}
    for need in ("paddlepaddle", "tokenizers", "numpy", "aiohttp"):
        assert names[need] == version(need)
    assert "paddleformers" not in names and "pyside6-essentials" not in names  # not the training stack
    for name, v in pins:  # closed: every requirement that applies here is pinned, at the installed version
        assert version(name) == v
        for line in distribution(name).requires or []:
            req = Requirement(line)
            if req.marker and not req.marker.evaluate({"extra": ""}):
                continue
            assert canonicalize_name(req.name) in names, (name, line)
            assert req.specifier.contains(names[canonicalize_name(req.name)], prereleases=True), (name, line)


def test_requirements_txt_pins_exactly_what_the_scripts_import():
    pins = environment.pinned_closure(environment.bundle_needs())
    lines = [ln.split("#")[0].strip() for ln in environment.requirements_txt(pins).splitlines()]
    reqs = [Requirement(ln) for ln in lines if ln]
    assert sorted(r.name for r in reqs) == ["aiohttp", "numpy", "paddlepaddle", "tokenizers"]
    assert all(str(r.specifier) == f"=={version(r.name)}" for r in reqs)


def lock_entries(lock: str) -> list[str]:
    """The requirements of a lock, one entry each (its hash lines included)."""
    body = "\n".join(ln for ln in lock.splitlines() if not ln.startswith("#"))
    return re.split(r"\n(?=[A-Za-z])", body.strip())


def lock_hashes(lock: str) -> dict[str, list[str]]:
    return {canonicalize_name(Requirement(e.split(" ")[0]).name): re.findall(r"--hash=sha256:([0-9a-f]{64})", e)
            for e in lock_entries(lock)}


def index_or_skip(hashes, reason) -> None:
    if hashes is None and "could not look" in (reason or ""):
        pytest.skip(f"no package index here: {reason}")


@pytest.mark.slow
def test_the_lock_has_a_hash_per_pin_from_the_index(own_cache):
    pins = environment.pinned_closure(environment.bundle_needs())
    hashes, reason, resolved = environment.wheel_hashes(pins)
    index_or_skip(hashes, reason)
    assert reason is None and resolved == [] and set(hashes) == {canonicalize_name(n) for n, _ in pins}
    assert all(re.fullmatch(r"[0-9a-f]{64}", h[0]) for h in hashes.values())
    lock = environment.requirements_lock(pins, hashes)
    entries = lock_entries(lock)
    assert len(entries) == len(pins)
    for entry, (name, v) in zip(entries, pins):
        assert entry.startswith(f"{name}=={v} \\\n    --hash=sha256:")
    assert (own_cache / "workbench" / "wheel-hashes.json").is_file()
    assert environment.wheel_hashes(pins) == (hashes, None, [])  # the second export reads the cache


def test_an_offline_export_keeps_exact_pins_and_says_it_has_no_hashes(tmp_path, monkeypatch, own_cache):
    offline(monkeypatch)
    check = environment.write_environment(tmp_path, wheelhouse=False, scripts=SCRIPTS)
    assert check["hashes"] is False and "could not look the wheels up" in check["reason"]
    lock = (tmp_path / "requirements.lock").read_text()
    assert "--hash" not in lock and "# No hashes: pip could not look the wheels up" in lock
    assert f"\npaddlepaddle=={version('paddlepaddle')}\n" in lock
    assert check["packages"] == len([ln for ln in lock.splitlines() if ln and not ln.startswith("#")])


def test_a_wheelhouse_without_an_index_is_refused_with_the_reason(tmp_path, monkeypatch, own_cache):
    offline(monkeypatch)
    with pytest.raises(environment.WheelhouseError, match="Export without the wheelhouse"):
        environment.write_environment(tmp_path, wheelhouse=True, scripts=SCRIPTS)
    assert not (tmp_path / "wheels").exists()


def dockerfile_checks(text: str, bundle: Path | None = None) -> None:
    """What every bundle's Dockerfile must say."""
    base = re.search(r"^ARG BASE_IMAGE=(\S+)$", text, re.M).group(1)
    assert re.fullmatch(r"python:3\.11-slim@sha256:[0-9a-f]{64}", base)
    assert "FROM ${BASE_IMAGE}" in text
    run = re.search(r"^#\s+docker run (.+)$", text, re.M).group(1)
    assert "-p 127.0.0.1:8000:8000" in run and "change-me" not in text
    assert re.search(r"pip install --no-cache-dir .*-r requirements\.lock", text)
    copied = [p for line in re.findall(r"^COPY (.+)$", text, re.M) for p in line.split()[:-1]]
    assert not any(p.startswith(("onnx", "merged", "gguf", "int8", "wheels", ".")) for p in copied), copied
    assert {"static/", "tokenizer/", "bundle.json", *SCRIPTS} <= set(copied)
    if bundle is not None:
        assert all((bundle / p).exists() for p in copied), [p for p in copied if not (bundle / p).exists()]
        assert {p.name for p in bundle.glob("*.py")} <= set(copied)  # every script the service may import
        ignored = (bundle / ".dockerignore").read_text().split()
        assert {"onnx/", "merged/", "gguf/", "int8/"} <= set(ignored)


def test_the_dockerfile_pins_its_base_and_serves_only_static():
    text = environment.dockerfile(SCRIPTS)
    dockerfile_checks(text)
    assert text.startswith("# syntax=docker/dockerfile:1\n")  # RUN --mount needs BuildKit's syntax
    # the wheels when the context has them, from a mount of this step only (no layer keeps them)
    assert re.search(r"RUN --mount=type=bind,target=/tmp/bundle \\\n\s+if \[ -d /tmp/bundle/wheels \]; then \\\n"
                     r"\s+pip install --no-cache-dir --no-index --find-links /tmp/bundle/wheels -r requirements\.lock; "
                     r"\\\n\s+else \\\n\s+pip install --no-cache-dir -r requirements\.lock; \\\n\s+fi\n", text)
    assert "wheels/" not in environment.DOCKERIGNORE  # the mount sees only what the context has


def test_the_frozen_application_writes_pins_without_asking_pip(tmp_path, monkeypatch, own_cache):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    check = environment.write_environment(tmp_path, wheelhouse=False, scripts=SCRIPTS)
    assert check["hashes"] is False and "no pip" in check["reason"]
    with pytest.raises(environment.WheelhouseError, match="no pip"):
        environment.write_environment(tmp_path / "w", wheelhouse=True, scripts=SCRIPTS)


def test_finding_pip_leaves_setuptools_importable():
    """Importing pip in the exporting process broke a later 'import setuptools' (paddle's)."""
    code = "from workbench.engine.export.environment import _pip; assert _pip(); import setuptools; print('ok')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-1000:]


@pytest.mark.slow
def test_a_bundle_installs_from_its_own_wheels_into_a_fresh_venv_and_predicts(tmp_path, own_cache):
    """An air-gapped machine: a new venv, only the bundle's wheels/ and requirements.lock,
    no index, no configured links; then its predict.py gives the answers it gives here."""
    pytest.importorskip("paddle")
    from workbench.engine.export.bundle import ExportError, export_run

    from trained_factory import CLS, RUN, trained_project

    project = trained_project(CLS, tmp_path)
    out = tmp_path / "bundle"
    try:
        result = export_run(project.root, RUN, out, formats=["static"], evaluate=False, check_script=False,
                            parity_rows=4, wheelhouse=True)
    except ExportError as exc:
        if "needs a package index" in str(exc):
            pytest.skip(f"no package index here: {exc}")
        raise
    wheels = result["checks"]["requirements"]["wheelhouse"]
    assert wheels["status"] == "ok" and wheels["offline_install_checked"]
    assert len(list((out / "wheels").glob("*.whl"))) == result["checks"]["requirements"]["packages"] == wheels["wheels"]
    dockerfile_checks((out / "Dockerfile").read_text(), out)
    assert "pip install --no-index --find-links wheels -r requirements.lock" in (out / "README.md").read_text()

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON"))}
    env["PIP_CONFIG_FILE"] = os.devnull  # no index, no links from this machine's pip configuration
    if os.name == "nt":  # the documented command
        cmd = [str(py), "-m", "pip", "install", "--no-index", "--find-links", "wheels", "-r", "requirements.lock"]
    else:  # the Dockerfile's own install step, its build context mounted where the bundle is
        docker = (out / "Dockerfile").read_text()
        step = re.search(r"^RUN --mount=type=bind,target=/tmp/bundle \\\n(.*?\n\s*fi)$", docker, re.M | re.S).group(1)
        cmd = ["sh", "-c", step.replace("/tmp/bundle", str(out))]
        env["PATH"] = str(py.parent) + os.pathsep + env.get("PATH", "")  # its 'pip' is the new venv's
    r = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    frozen = subprocess.run([str(py), "-m", "pip", "freeze"], env=env, capture_output=True, text=True, timeout=120)
    pins = {canonicalize_name(n): v for n, v in environment.pinned_closure(environment.bundle_needs())}
    got = dict(line.split("==") for line in frozen.stdout.split() if "==" in line)
    assert {canonicalize_name(k): v for k, v in got.items()} == pins  # exactly the lock, nothing more

    src = tmp_path / "new.csv"
    src.write_text("新闻正文\n央行宣布下调存款准备金率，市场流动性明显改善\n该公司净利润同比下滑三成，股价大跌\n"
                   "基金经理表示，下半年消费板块仍有机会\n", encoding="gb18030")
    fresh = subprocess.run([str(py), "predict.py", "--input", str(src), "--output", str(tmp_path / "fresh.csv")],
                           cwd=out, env=env, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr[-2000:]
    here = subprocess.run([sys.executable, "predict.py", "--input", str(src), "--output", str(tmp_path / "here.csv")],
                          cwd=out, capture_output=True, text=True, timeout=300)
    assert here.returncode == 0, here.stderr[-2000:]
    rows = (tmp_path / "fresh.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(rows) == 4 and "prediction" in rows[0]
    assert (tmp_path / "fresh.csv").read_bytes() == (tmp_path / "here.csv").read_bytes()
