"""GUI tests: offscreen Qt, a private settings/projects folder, and helpers."""

from __future__ import annotations

import gc
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


_HEAP_SET_ASIDE: list[bool] = []


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread():
    """Python's cycle collector runs on whichever thread allocates. Seen in CI: on a worker
    thread reading a file it destroyed a widget an earlier test had left in a cycle; the
    widget's destructor waited for the GIL while the GUI thread, holding it, waited for Qt's
    lock, and the run hung. During a GUI test cycles are collected on this thread only, as
    the application collects them (gui/app.py)."""
    gc.collect()
    if not _HEAP_SET_ASIDE:
        # What the tests before the GUI tests left (the engine tests' models, paddle's modules) is
        # set aside from later collections once: over that heap, each collection took 0.5-1 s, two
        # a test. Only that: a widget of an earlier GUI test set aside too was never collected and
        # crashed a later test ("shared QObject was deleted directly").
        gc.freeze()
        _HEAP_SET_ASIDE.append(True)
    gc.disable()
    yield
    # The application's own collector (gui/app.py) runs on a timer; one left running by a test
    # that set the application up fired inside a later test's event processing, where it
    # destroyed a page an earlier test had dropped while its Qt side was alive: a segfault in
    # CI. No test leaves it running.
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    collector = getattr(app, "_workbench_gc", None)
    if collector is not None:
        collector.timer.stop()
        del app._workbench_gc
    gc.enable()
    gc.collect()


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WORKBENCH_PROJECTS_DIR", str(tmp_path / "projects"))
    monkeypatch.setenv("WORKBENCH_TEMPLATES_DIR", str(tmp_path / "user-templates"))
    yield


@pytest.fixture
def background(qtbot):
    from workbench.gui.background import BackgroundWork

    tm = BackgroundWork()
    tm.show_dialogs = False
    yield tm
    tm.cancel_all()
    tm.wait(30000)


@pytest.fixture
def session(qtbot):
    from workbench.gui.session import ProjectSession

    s = ProjectSession()
    yield s
    s.close()


@pytest.fixture
def sample_project(tmp_path):
    """A prepared project built from the finance_sentiment sample data (pure core, no paddle)."""
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    spec = TemplateCatalog().get("finance_sentiment")
    root = tmp_path / "projects" / "sample"
    prepare(spec, spec.sample_path, root)
    return root


@pytest.fixture
def styled_app(qapp):
    """The application's own font, style sheet and wheel guard; the first two decide how tall and
    wide pages are."""
    from workbench.gui import wheel_guard
    from workbench.gui.app import setup
    from workbench.gui.settings import Settings

    font, sheet = qapp.font(), qapp.styleSheet()
    setup(qapp, Settings())
    yield qapp
    wheel_guard.uninstall(qapp)
    qapp.setStyleSheet(sheet)
    qapp.setFont(font)


@pytest.fixture
def laptop_window(qtbot, tmp_path):
    """``open(project=None, resize=True)``: a main window at 1366 x 768 (a common laptop screen),
    shown, with ``project`` open; its settings live in tmp_path/gui.ini."""
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    def open_window(project=None, resize: bool = True):
        w = MainWindow(Settings(tmp_path / "gui.ini"))
        qtbot.addWidget(w)
        if resize:
            w.resize(1366, 768)
        w.show()
        qtbot.waitExposed(w)
        if project is not None:
            w.open_project(project)
        return w

    return open_window
