"""The bundle's lock and wheels are for a target platform, by default the Docker image's
(manylinux x86-64, CPython 3.11), whatever system exports it: markers evaluated for the
target, the target's wheels picked by pip, their hashes in the lock. The tests that ask the
package index skip where there is none."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from workbench.core.errors import WorkbenchError
from workbench.core.operations.export import BUNDLE_TARGETS, DEFAULT_TARGET, bundle_target
from workbench.engine.export import environment

from test_bundle_env import SCRIPTS, index_or_skip, lock_hashes

LINUX, WINDOWS = bundle_target("linux-x86_64"), bundle_target("windows-x86_64")
BINARY = "multidict"  # a small package of the closure with a wheel per platform


@pytest.fixture
def own_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "cache"))


def platform_tags(wheel: str) -> set[str]:
    return {t.platform for t in parse_wheel_filename(wheel)[3]}


def pip_download(target, req: str, folder: Path) -> Path:
    """The one wheel pip fetches for ``target``, the way a user would on that platform."""
    r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                        *environment.pip_target_args(target), "--quiet", "-d", str(folder), req],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        pytest.skip(f"no package index here: {r.stderr[-300:]}")
    (wheel,) = folder.glob("*.whl")
    return wheel


def test_the_default_target_is_the_docker_images_platform():
    t = bundle_target(None)
    assert t.key == DEFAULT_TARGET == "linux-x86_64" and not t.here
    assert environment.pip_target_args(t)[-6:] == ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311"]
    platforms = environment.pip_target_args(t)[1::2][:len(t.platforms)]
    assert "manylinux_2_41_x86_64" in platforms and "manylinux_2_17_x86_64" in platforms  # the image's glibc, down
    assert environment.pip_target_args(bundle_target("this")) == []
    # the image's Python is the target's: the Dockerfile's base is the lock's
    assert re.search(r"^ARG BASE_IMAGE=python:3\.11-slim@sha256:[0-9a-f]{64}$", environment.dockerfile(SCRIPTS), re.M)
    with pytest.raises(WorkbenchError, match="Unknown target platform 'solaris'.*linux-x86_64"):
        bundle_target("solaris")


def test_markers_are_evaluated_for_the_target():
    """tqdm needs colorama on Windows only: a Windows lock has it, a Linux lock has not,
    whichever system exports."""
    assert "tqdm" in {canonicalize_name(n) for n, _ in environment.pinned_closure(environment.bundle_needs())}
    linux = {canonicalize_name(n) for n, _ in environment.pinned_closure(environment.bundle_needs(), environment.target_environment(LINUX))}
    unmet: list[Requirement] = []
    windows = environment.pinned_closure(environment.bundle_needs(), environment.target_environment(WINDOWS), unmet)
    names = {canonicalize_name(n) for n, _ in windows} | {canonicalize_name(r.name) for r in unmet}
    assert "colorama" in names and "colorama" not in linux
    env = environment.target_environment(WINDOWS)
    assert (env["sys_platform"], env["platform_system"], env["python_version"]) == ("win32", "Windows", "3.11")


@pytest.mark.slow
def test_the_linux_lock_names_the_manylinux_wheels_hashes(tmp_path, own_cache):
    check = environment.write_environment(tmp_path, wheelhouse=False, scripts=SCRIPTS)  # the default target
    index_or_skip(check["hashes"] or None, check["reason"])
    assert check["target"] == "linux-x86_64" and check["hashes"]
    lock = (tmp_path / "requirements.lock").read_text()
    assert "for Linux x86-64, CPython 3.11 (the Docker image's)" in lock
    hashes = lock_hashes(lock)
    assert len(hashes) == check["packages"] and all(len(h) == 1 for h in hashes.values())
    wheel = pip_download(LINUX, f"{BINARY}=={version(BINARY)}", tmp_path / "linux")
    assert all(p.startswith("manylinux") for p in platform_tags(wheel.name)), wheel.name
    assert hashes[BINARY] == [hashlib.sha256(wheel.read_bytes()).hexdigest()]
    # a Windows lock: the same versions, the hash of the Windows wheel
    (tmp_path / "w").mkdir()
    win = environment.write_environment(tmp_path / "w", wheelhouse=False, scripts=SCRIPTS, target="windows-x86_64")
    win_lock = (tmp_path / "w" / "requirements.lock").read_text()
    assert win["target"] == "windows-x86_64" and "for Windows x86-64, CPython 3.11" in win_lock
    assert f"\n{BINARY}=={version(BINARY)} \\" in win_lock
    win_wheel = pip_download(WINDOWS, f"{BINARY}=={version(BINARY)}", tmp_path / "windows")
    assert platform_tags(win_wheel.name) == {"win_amd64"}
    assert lock_hashes(win_lock)[BINARY] == [hashlib.sha256(win_wheel.read_bytes()).hexdigest()] != hashes[BINARY]
    assert "colorama" in lock_hashes(win_lock) and "colorama" not in hashes
    # its Dockerfile says that it cannot build the Linux image
    docker = (tmp_path / "w" / "Dockerfile").read_text()
    assert "are for Windows x86-64, CPython 3.11,\n# not Linux: export it again for linux-x86_64" in docker
    assert "not Linux" not in (tmp_path / "Dockerfile").read_text()


def test_a_requirement_only_the_target_has_is_resolved_for_it(own_cache):
    """A package the target needs that is not installed here gets the newest version its
    requirement allows, and its own requirements, markers read for the target, follow."""
    hashes, reason, resolved = environment.wheel_hashes([], WINDOWS, [Requirement("tqdm>=4.60")])
    index_or_skip(hashes, reason)
    names = {canonicalize_name(n): v for n, v in resolved}
    assert set(names) == {"tqdm", "colorama"} == set(hashes)  # colorama: tqdm's, on Windows only
    hashes, reason, resolved = environment.wheel_hashes([], LINUX, [Requirement("tqdm>=4.60")])
    assert [canonicalize_name(n) for n, _ in resolved] == ["tqdm"]
    lock = environment.requirements_lock(resolved, hashes, None, LINUX, [f"{n}=={v}" for n, v in resolved])
    assert "# Not installed where it was exported, so at the newest version the index had then: tqdm==" in lock


@pytest.mark.slow
def test_a_foreign_wheelhouse_holds_that_platforms_wheels(tmp_path, own_cache):
    pins = [(BINARY, version(BINARY)), ("colorama", "0.4.6")]
    hashes, reason, _ = environment.wheel_hashes(pins, WINDOWS)
    index_or_skip(hashes, reason)
    lock = tmp_path / "requirements.lock"
    lock.write_text(environment.requirements_lock(pins, hashes, None, WINDOWS))
    got = environment.download_wheels(lock, tmp_path / "wheels", WINDOWS)
    wheels = sorted(p.name for p in (tmp_path / "wheels").glob("*.whl"))
    assert got["status"] == "ok" and got["wheels"] == 2 and got["offline_install_checked"]
    assert got["dependencies_checked"] is False  # pip reads markers for this system, not Windows: files only
    tags = {canonicalize_name(parse_wheel_filename(w)[0]): platform_tags(w) for w in wheels}
    assert tags == {BINARY: {"win_amd64"}, "colorama": {"any"}}
    # the Docker image's platform: where markers read here as there, pip checks the dependencies too
    pins = [(BINARY, version(BINARY))] + [(n, version(n)) for n in ("typing_extensions",)]
    hashes, reason, _ = environment.wheel_hashes(pins, LINUX)
    lock.write_text(environment.requirements_lock(pins, hashes, None, LINUX))
    got = environment.download_wheels(lock, tmp_path / "linux", LINUX)
    assert got["wheels"] == 2 and got["dependencies_checked"] == environment._same_markers(LINUX)
    assert all(p.startswith("manylinux") for p in platform_tags(next((tmp_path / "linux").glob("multidict*"))
                                                                .name))


@pytest.mark.slow  # downloads every wheel of the Windows lock (about 140 MB)
def test_a_windows_wheelhouse_of_the_whole_lock(tmp_path, own_cache):
    try:
        check = environment.write_environment(tmp_path, wheelhouse=True, scripts=SCRIPTS, target="windows-x86_64")
    except environment.WheelhouseError as exc:
        if "could not look" in str(exc):
            pytest.skip(f"no package index here: {exc}")
        raise
    wheels = list((tmp_path / "wheels").glob("*.whl"))
    assert len(wheels) == check["packages"] == check["wheelhouse"]["wheels"]
    assert all(platform_tags(w.name) <= {"win_amd64", "any"} for w in wheels), [w.name for w in wheels]
    assert {canonicalize_name(parse_wheel_filename(w.name)[0]) for w in wheels} == \
        set(lock_hashes((tmp_path / "requirements.lock").read_text()))
    assert any(canonicalize_name(parse_wheel_filename(w.name)[0]) == "paddlepaddle" for w in wheels)


def test_every_target_is_one_pip_understands():
    for t in BUNDLE_TARGETS.values():
        args = environment.pip_target_args(t)
        assert len(args) == (0 if t.here else 2 * len(t.platforms) + 6)
        env = environment.target_environment(t)
        assert Requirement('x; python_version >= "3.8" and os_name != "java"').marker.evaluate(env)


@pytest.mark.slow
def test_export_for_another_platform_from_the_command_line(tmp_path, own_cache, capsys):
    """`workbench export --target-platform windows-x86_64`: the lock, the card and the
    Dockerfile all say which platform the requirements are for."""
    pytest.importorskip("paddle")
    from workbench.cli import main as cli_main

    from trained_factory import CLS, RUN, trained_project

    project = trained_project(CLS, tmp_path)
    out = tmp_path / "bundle"
    assert cli_main(["export", "--project", str(project.root), "--run", RUN, "--out", str(out), "--formats", "static",
                     "--no-eval", "--target-platform", "windows-x86_64", "--json"]) == 0
    req = json.loads(capsys.readouterr().out.splitlines()[-1])["checks"]["requirements"]
    assert req["target"] == "windows-x86_64" and req["target_title"] == WINDOWS.title
    assert json.loads((out / "bundle.json").read_text(encoding="utf-8"))["checks"]["requirements"] == req
    card = (out / "README.md").read_text(encoding="utf-8")
    assert ("`requirements.lock` are for Windows x86-64, CPython 3.11 (export option `--target-platform "
            "windows-x86_64`); on another system install `requirements.txt`") in card
    assert "for Windows x86-64, CPython 3.11" in (out / "requirements.lock").read_text()
    assert "not Linux: export it again for linux-x86_64" in (out / "Dockerfile").read_text()
    if req["hashes"]:
        assert "colorama" in lock_hashes((out / "requirements.lock").read_text())
    with pytest.raises(SystemExit) as exc:  # the parser refuses what is not offered, naming what is
        cli_main(["export", "--project", str(project.root), "--run", RUN, "--target-platform", "solaris"])
    assert exc.value.code == 2 and "choose from 'linux-x86_64'" in capsys.readouterr().err
