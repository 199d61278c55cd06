"""Render the application icon (resources/icons/app.svg) for the installers.

    python installer/make_icons.py [OUT_DIR]      (default: build/icons)

Writes workbench.png (256 px, for the Linux .desktop entry), workbench-48.png and
workbench.ico (16-256 px, for the Windows executable and Inno Setup).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def render(svg: Path, size: int):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    return image


def main(argv: list[str]) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    out = Path(argv[0]) if argv else ROOT / "build" / "icons"
    out.mkdir(parents=True, exist_ok=True)
    app = QGuiApplication.instance() or QGuiApplication(["make_icons"])  # noqa: F841
    svg = ROOT / "resources" / "icons" / "app.svg"
    render(svg, 256).save(str(out / "workbench.png"))
    render(svg, 48).save(str(out / "workbench-48.png"))
    try:
        from PIL import Image

        Image.open(out / "workbench.png").save(
            out / "workbench.ico", sizes=[(s, s) for s in (16, 24, 32, 48, 64, 128, 256)])
    except ImportError:  # Qt writes a single-size .ico
        render(svg, 256).save(str(out / "workbench.ico"))
    print(f"icons written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
