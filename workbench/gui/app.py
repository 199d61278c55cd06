"""Start the desktop application: ``workbench`` (no arguments) or ``python -m workbench``."""

from __future__ import annotations

import argparse
import os
import sys
import time

_T0 = time.perf_counter()


def build_app(argv: list[str] | None = None):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0]] + list(argv or []))
    app.setApplicationName("Workbench")
    app.setOrganizationName("Workbench")
    return app


def setup(app, settings) -> str:
    """Language, font and style sheet; returns the family that renders Chinese (or None)."""
    import pyqtgraph as pg

    from . import i18n
    from .resources import install_cjk_font, stylesheet

    i18n.install(app, settings.language)
    family = install_cjk_font(app)
    app.setStyleSheet(stylesheet(settings.theme))
    pg.setConfigOptions(antialias=True, foreground="#3c4655", background=None)
    return family


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="workbench gui", description="Open the Workbench desktop application.")
    parser.add_argument("--project", help="open this project folder")
    args, qt_args = parser.parse_known_args(argv if argv is not None else [])

    from PySide6.QtCore import QTimer

    from .main_window import MainWindow
    from .settings import Settings

    app = build_app(qt_args)
    settings = Settings()
    family = setup(app, settings)
    win = MainWindow(settings)
    win.show()
    if os.environ.get("WORKBENCH_REPORT_STARTUP"):
        def report():
            print(f"window shown after {time.perf_counter() - _T0:.3f} s", flush=True)
            if os.environ.get("WORKBENCH_REPORT_STARTUP") == "quit":
                app.quit()
        QTimer.singleShot(0, report)
    if family is None:
        win.statusBar().showMessage(win.tr("No Chinese font was found: Chinese text may show as boxes. "
                                           "Install one, e.g. the fonts-noto-cjk package."), 30000)
    if args.project:
        QTimer.singleShot(0, lambda: win.open_project(args.project))
    elif not os.environ.get("WORKBENCH_REPORT_STARTUP"):
        QTimer.singleShot(300, win.offer_sample_project)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
