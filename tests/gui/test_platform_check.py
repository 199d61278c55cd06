"""Without a system library of Qt's X11 plugin the launcher names it and its package,
instead of letting Qt abort the process with its own message."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys

import pytest

from workbench.gui.platform_check import PACKAGES, _MISSING, missing_library, platform_name, plugin_path

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's X11 plugin is Linux's")


def _plugin_needing(tmp_path, soname: str):
    """A platforms/ folder whose libqxcb.so needs ``soname``, which no folder holds."""
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler to build a plugin with a missing library")
    lib_dir, plugins = tmp_path / "lib", tmp_path / "platforms"
    lib_dir.mkdir()
    plugins.mkdir()
    (tmp_path / "gone.c").write_text("int gone(void) { return 1; }\n")
    (tmp_path / "plugin.c").write_text("int gone(void);\nint plugin(void) { return gone(); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(lib_dir / soname),
                    str(tmp_path / "gone.c")], check=True)
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(plugins / "libqxcb.so"), str(tmp_path / "plugin.c"),
                    str(lib_dir / soname)], check=True)
    (lib_dir / soname).unlink()  # as on a computer without the package
    return plugins


@linux
def test_the_launcher_names_the_missing_library_before_qt_aborts(tmp_path):
    plugins = _plugin_needing(tmp_path, "libwb-gone.so.1")
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", QT_QPA_PLATFORM_PLUGIN_PATH=str(plugins), DISPLAY=":84",
               WORKBENCH_HOME=str(tmp_path / "home"))
    env.pop("WAYLAND_DISPLAY", None)
    res = subprocess.run([sys.executable, "-m", "workbench", "gui"], env=env, capture_output=True, text=True,
                         timeout=120)
    # Qt itself would abort (SIGABRT) with "no Qt platform plugin could be initialized"
    assert res.returncode == 1, (res.returncode, res.stderr[-2000:])
    assert "libwb-gone.so.1" in res.stderr and "Install the package that provides it" in res.stderr
    assert "could not be initialized" not in res.stderr


@linux
def test_the_missing_library_and_its_package(tmp_path):
    plugins = _plugin_needing(tmp_path, "libwb-gone.so.1")
    env = {"QT_QPA_PLATFORM_PLUGIN_PATH": str(plugins), "DISPLAY": ":1"}
    assert plugin_path(env) == plugins / "libqxcb.so"
    assert missing_library(env) == ("libwb-gone.so.1", None)
    assert missing_library(dict(env, QT_QPA_PLATFORM="offscreen")) is None  # not X11: nothing to check
    # the installed plugin: whatever it reports missing, the dynamic loader cannot find either
    found = missing_library({"DISPLAY": ":1"})
    if found is not None:
        with pytest.raises(OSError):
            ctypes.CDLL(found[0])
    # the loader's message for the library Qt 6.5 and later need most often names its package
    m = _MISSING.search("libxcb-cursor.so.0: cannot open shared object file: No such file or directory")
    assert PACKAGES[m.group(1)] == "libxcb-cursor0"


def test_the_platform_qt_will_choose():
    assert platform_name({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"
    assert platform_name({"QT_QPA_PLATFORM": "wayland;xcb"}) == "wayland"
    assert platform_name({"WAYLAND_DISPLAY": "wayland-0"}) == "wayland"
    assert platform_name({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}) == "xcb"
    assert platform_name({}) == "xcb"


def _plugin_needing_all(tmp_path, sonames: list[str]):
    """A platforms/ folder whose libqxcb.so needs every one of ``sonames``, which no folder holds."""
    if shutil.which("gcc") is None:
        pytest.skip("no C compiler to build a plugin with missing libraries")
    lib_dir, plugins = tmp_path / "lib", tmp_path / "platforms"
    lib_dir.mkdir()
    plugins.mkdir()
    calls = []
    for i, soname in enumerate(sonames):
        (tmp_path / f"gone{i}.c").write_text(f"int gone{i}(void) {{ return {i}; }}\n")
        subprocess.run(["gcc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o", str(lib_dir / soname),
                        str(tmp_path / f"gone{i}.c")], check=True)
        calls.append(f"gone{i}()")
    decls = "".join(f"int gone{i}(void);\n" for i in range(len(sonames)))
    (tmp_path / "plugin.c").write_text(decls + f"int plugin(void) {{ return {' + '.join(calls)}; }}\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,--no-as-needed", "-o", str(plugins / "libqxcb.so"),
                    str(tmp_path / "plugin.c"), *(str(lib_dir / s) for s in sonames)], check=True)
    for soname in sonames:
        (lib_dir / soname).unlink()  # as on a computer without the packages
    return plugins


@linux
def test_every_missing_library_is_named_at_once(tmp_path):
    """Seen on a fresh machine: the launcher named libxcb-icccm4; installed, it named libxcb-keysyms1."""
    from workbench.gui.platform_check import missing_libraries

    plugins = _plugin_needing_all(tmp_path, ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libwb-gone.so.2"])
    env = {"QT_QPA_PLATFORM_PLUGIN_PATH": str(plugins), "DISPLAY": ":1"}
    found = missing_libraries(env)
    names = [library for library, _ in found]
    # the system may have a library of the same name itself; those that it lacks are all named
    expected = [s for s in ("libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libwb-gone.so.2") if not _loads(s)]
    assert sorted(names) == sorted(expected) and "libwb-gone.so.2" in names, found
    assert dict(found)["libwb-gone.so.2"] is None
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", QT_QPA_PLATFORM_PLUGIN_PATH=str(plugins), DISPLAY=":84",
               WORKBENCH_HOME=str(tmp_path / "home"))
    env.pop("WAYLAND_DISPLAY", None)
    res = subprocess.run([sys.executable, "-m", "workbench", "gui"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 1, (res.returncode, res.stderr[-2000:])
    assert all(name in res.stderr for name in names), res.stderr


def _loads(name: str) -> bool:
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True
