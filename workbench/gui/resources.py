"""Icons, style sheets, translations and the bundled CJK font from the ``resources/`` folder."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase, QIcon

BUNDLED_FONT_FAMILY = "Workbench Sans SC"


def resources_dir() -> Path:
    env = os.environ.get("WORKBENCH_RESOURCES")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "resources"


@lru_cache(maxsize=None)
def icon(name: str) -> QIcon:
    path = resources_dir() / "icons" / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


def stylesheet(theme: str) -> str:
    path = resources_dir() / "styles" / f"{theme}.qss"
    if not path.is_file():
        path = resources_dir() / "styles" / "light.qss"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def translations_dir() -> Path:
    return resources_dir() / "translations"


def install_cjk_font(app) -> str | None:
    """Make Chinese render as glyphs everywhere.

    The bundled subset of Noto Sans CJK SC is registered with the application. When the
    system has no Simplified Chinese font of its own (a fresh Linux machine), the
    bundled family is added to the application font's fallback list. Returns the family
    used for Chinese, or None when neither exists (the caller tells the user what to install).
    """
    fonts = resources_dir() / "fonts"
    bundled = None
    for path in sorted(fonts.glob("*.otf")) + sorted(fonts.glob("*.ttf")):
        fid = QFontDatabase.addApplicationFont(str(path))
        if fid >= 0:
            fams = QFontDatabase.applicationFontFamilies(fid)
            bundled = bundled or (fams[0] if fams else None)
    system = [f for f in QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
              if f != bundled and not QFontDatabase.isPrivateFamily(f)]
    simplified = [f for f in system if any(k in f for k in (" SC", "CN", "YaHei", "PingFang", "Hei", "Song"))]
    if os.environ.get("WORKBENCH_FONT") == "bundled" and bundled:
        choice = bundled
    else:
        # a Simplified Chinese face of the system if it has one (Han glyph shapes differ
        # between the SC, TC, JP and KR faces), else the bundled one
        choice = (simplified or ([bundled] if bundled else []) or system or [None])[0]
    if choice:
        font: QFont = app.font()
        fams = [f for f in font.families() if f != choice] or [font.family()]
        font.setFamilies(fams + [choice])
        app.setFont(font)
    return choice
