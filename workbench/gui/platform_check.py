"""Before the window opens on Linux: can Qt's X11 platform plugin load at all?

Without one of its system libraries (since Qt 6.5 most often libxcb-cursor0) Qt prints a
line about "xcb-cursor0 or libxcb-cursor0" among several others and aborts the process.
Loading the plugin the way Qt will, before Qt does, names the missing libraries (all of
them at once) and the packages to install, and lets the launcher exit with that message
instead. No Qt here.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import sys
from pathlib import Path

# the plugin's libraries as Debian and Ubuntu package them (the names Qt's own
# documentation lists for the xcb plugin)
PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
}

_MISSING = re.compile(r"([\w.+-]+\.so(?:\.\d+)*): cannot open shared object file")


def platform_name(environ=os.environ) -> str:
    """The platform plugin Qt will choose: QT_QPA_PLATFORM's first entry, else X11 on Linux
    (Qt takes Wayland only where asked or where no X display is set)."""
    asked = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if asked:
        return asked
    if environ.get("WAYLAND_DISPLAY") and not environ.get("DISPLAY"):
        return "wayland"
    return "xcb"


def plugin_path(environ=os.environ) -> Path | None:
    """The file of the xcb platform plugin Qt would load, or None where it cannot be found."""
    dirs = [Path(d) for d in environ.get("QT_QPA_PLATFORM_PLUGIN_PATH", "").split(os.pathsep) if d]
    spec = importlib.util.find_spec("PySide6")
    if spec and spec.submodule_search_locations:
        dirs.append(Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms")
    return next((d / "libqxcb.so" for d in dirs if (d / "libqxcb.so").is_file()), None)


def missing_library(environ=os.environ) -> tuple[str, str | None] | None:
    """(the library the X11 plugin cannot find, its Debian/Ubuntu package or None), or None
    when the plugin loads, or the platform is not X11, or the plugin is not where it is looked for."""
    found = missing_libraries(environ)
    return found[0] if found else None


def missing_libraries(environ=os.environ) -> list[tuple[str, str | None]]:
    """Every library the X11 plugin needs and this system lacks, with its Debian/Ubuntu package
    or None: the dynamic loader names only the first, and installing that one package only led
    to the next message (libxcb-icccm4, then libxcb-keysyms1). Empty when the plugin loads, or
    the platform is not X11, or the plugin is not where it is looked for."""
    if not sys.platform.startswith("linux") or platform_name(environ) != "xcb":
        return []
    path = plugin_path(environ)
    if path is None:
        return []
    try:
        ctypes.CDLL(str(path))  # what Qt's plugin loader does: the dynamic loader resolves its libraries
    except OSError as exc:
        m = _MISSING.search(str(exc))
        if m is None:
            return []  # not a missing library: Qt's own message says more
        first = m.group(1)
        others = [name for name in _needed_names(path) if name != first and not _loads(name)]
        return [(name, PACKAGES.get(name)) for name in [first, *others]]
    return []


_SONAME = re.compile(rb"lib[\w.+-]+?\.so(?:\.\d+)*(?=\x00)")


def _needed_names(plugin: Path) -> list[str]:
    """The library names the plugin and Qt's X11 library beside it name (their dynamic string
    tables), in order, once each."""
    files = [plugin, *sorted((plugin.parents[2] / "lib").glob("libQt6XcbQpa.so*"))]
    names: dict[str, None] = {}
    for f in files:
        try:
            data = f.read_bytes()
        except OSError:
            continue
        names.update(dict.fromkeys(m.decode() for m in _SONAME.findall(data)))
    own = {f.name for f in files}
    return [n for n in names if n not in own and not n.startswith(("libQt6", "libpyside6", "libshiboken6"))]


def _loads(name: str) -> bool:
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True
