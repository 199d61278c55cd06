"""Start the desktop application: ``workbench`` (no arguments) or ``python -m workbench``."""

from __future__ import annotations

import argparse
import os
import sys
import time

_T0 = time.perf_counter()


# Qt's font database says, once per font and script, that a font lacks OpenType tables
# ("qt.text.font.db: OpenType support missing for ..."): 88 lines in a terminal at start-up
# on a Linux desktop, about fonts Qt draws with anyway
QUIET_LOGGING = "qt.text.font.db.warning=false"


def build_app(argv: list[str] | None = None):
    from PySide6.QtCore import QLoggingCategory, Qt
    from PySide6.QtWidgets import QApplication

    QLoggingCategory.setFilterRules(QUIET_LOGGING)
    app = QApplication.instance()
    if app is None:
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0]] + list(argv or []))
    app.setApplicationName("Workbench")
    app.setOrganizationName("Workbench")
    return app


def setup(app, settings) -> str:
    """Language, font, style sheet and the wheel guard; returns the family that renders Chinese (or None)."""
    from . import i18n, wheel_guard
    from .resources import install_cjk_font, stylesheet

    i18n.install(app, settings.language)
    wheel_guard.install(app)  # the wheel scrolls pages; it changes only the field in focus
    # Python's cycle collector on the GUI thread only, on a timer: run on a worker thread it may
    # destroy a widget there, whose destructor then waits for the GIL while the GUI thread waits
    # for Qt's lock (a hang seen in the tests)
    from pyqtgraph.util.garbage_collector import GarbageCollector

    app._workbench_gc = GarbageCollector(interval=1.0)
    family = install_cjk_font(app)
    app.setStyleSheet(stylesheet(settings.theme))
    return family


def platform_problem() -> str | None:
    """What keeps Qt from opening a window here, in the user's language, or None. Asked before
    the QApplication exists: Qt would abort the process with a message about its plugin."""
    from .platform_check import missing_libraries

    missing = missing_libraries()
    if not missing:
        return None
    from PySide6.QtCore import QCoreApplication

    from . import i18n
    from .settings import Settings

    # a window-less application: enough for the translation of this one message
    app = QCoreApplication.instance() or QCoreApplication([sys.argv[0]])
    i18n.install(app, Settings().language)
    libraries = ", ".join(library for library, _ in missing)
    packages = " ".join(dict.fromkeys(package for _, package in missing if package))
    unknown = [library for library, package in missing if not package]
    if len(missing) == 1 and packages:
        return QCoreApplication.translate(
            "Launcher", "Workbench cannot open its window: the system library {0} is missing. Install the "
                        "package {1} (sudo apt install {1} on Debian or Ubuntu), then start Workbench again."
        ).format(libraries, packages)
    if len(missing) == 1:
        return QCoreApplication.translate(
            "Launcher", "Workbench cannot open its window: the system library {0}, which Qt needs to draw on "
                        "X11, is missing. Install the package that provides it, then start Workbench again."
        ).format(libraries)
    text = QCoreApplication.translate(
        "Launcher", "Workbench cannot open its window: the system libraries {0}, which Qt needs to draw on X11, "
                    "are missing.").format(libraries)
    if packages:
        text += " " + QCoreApplication.translate(
            "Launcher", "Install the packages {0} (sudo apt install {0} on Debian or Ubuntu).").format(packages)
    if unknown:
        text += " " + QCoreApplication.translate(
            "Launcher", "Install the packages that provide {0}.").format(", ".join(unknown))
    return text + " " + QCoreApplication.translate("Launcher", "Then start Workbench again.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="workbench gui", description="Open the Workbench desktop application.")
    parser.add_argument("--project", help="open this project folder")
    args, qt_args = parser.parse_known_args(argv if argv is not None else [])
    problem = platform_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 1

    from PySide6.QtCore import QCoreApplication, QTimer

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
        win.statusBar().showMessage(QCoreApplication.translate(
            "MainWindow", "No Chinese font was found: Chinese text may show as boxes. "
                          "Install one, e.g. the fonts-noto-cjk package."), 30000)
    if args.project:
        QTimer.singleShot(0, lambda: win.open_project(args.project))
    elif not os.environ.get("WORKBENCH_REPORT_STARTUP"):
        QTimer.singleShot(0, win.restore_last_session)  # where the user was at the last close
        QTimer.singleShot(300, win.offer_sample_project)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
