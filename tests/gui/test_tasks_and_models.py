"""Background operations, the DataFrame model, and a guard against a PySide6 refcount bug."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
from PySide6.QtCore import QObject, Qt, Signal

from workbench.core.errors import DataError
from workbench.gui.table_model import DataFrameTableModel, RowHeader, filtered_positions, sorted_positions


def test_signal_emit_keeps_reference_counts():
    # PySide6 6.12.0 on Python 3.11 drops a reference to True on every emit() and aborts
    # the interpreter after a few thousand signals; the pinned version must not.
    class S(QObject):
        fired = Signal(object)

    s = S()
    s.fired.connect(lambda v: None)
    before = sys.getrefcount(True), sys.getrefcount(None)
    for _ in range(500):
        s.fired.emit(None)
    assert (sys.getrefcount(True), sys.getrefcount(None)) == before


def test_op_success_and_progress(qtbot, background):
    seen = []

    def work(ctx):
        for i in range(5):
            ctx.progress(i / 5)
        return 42

    op = background.op(work, "t").with_progress()
    op.progressed.connect(lambda f, m: seen.append(f))
    with qtbot.waitSignal(op.succeeded, timeout=10000) as blocker:
        op.run()
    assert blocker.args == [42]
    assert seen and max(seen) <= 1.0


def test_op_failure_shows_the_error_message(qtbot, background):
    def work(ctx):
        raise DataError("The file has no rows. Choose another file.")

    with qtbot.waitSignal(background.error_shown, timeout=10000) as blocker:
        background.op(work, "Reading").run()
    assert blocker.args == ["Reading", "The file has no rows. Choose another file."]


def test_op_cancel(qtbot, background):
    import threading

    started = threading.Event()

    def work(ctx):
        started.set()
        while True:
            ctx.progress(0.5)

    op = background.op(work, "long")
    op.run()
    qtbot.waitUntil(started.is_set, timeout=10000)
    with qtbot.waitSignal(op.cancelled, timeout=10000):
        op.cancel()


def test_dataframe_model_reads_a_million_rows_on_demand(qtbot):
    df = pd.DataFrame({"text": pd.array([f"row {i}" for i in range(1_000_000)], dtype="string"),
                       "label": pd.array(["a", "b"] * 500_000, dtype="string")})
    model = DataFrameTableModel(df)
    assert model.rowCount() == 1_000_000 and model.columnCount() == 2
    assert model.data(model.index(999_999, 0)) == "row 999999"
    assert model.headerData(0, Qt.Orientation.Vertical) == "1"
    pos = filtered_positions(df, "row 99999", 0)
    assert 99999 in pos and 999990 in pos
    model.set_view(pos)
    assert model.rowCount() == len(pos)
    assert model.data(model.index(0, 0)) == df["text"].iloc[pos[0]]


def test_op_cancelled_after_its_work_ended_drops_the_result(qtbot, background):
    import threading

    finished = threading.Event()
    got = []

    def work(ctx):
        finished.set()
        return "stale"

    op = background.op(work, "superseded").on_success(got.append)
    op.run()
    finished.wait(10)
    background.wait(10000)  # the worker is done; its result is queued for the UI thread
    with qtbot.waitSignal(op.cancelled, timeout=10000):
        op.cancel()
    assert got == []


def test_op_frees_what_its_work_holds_on_the_ui_thread(qtbot, background, monkeypatch):
    # On a loaded machine the worker thread can be descheduled right after it reports, while
    # the UI thread handles the result and deletes the operation. What the work and its
    # callbacks captured (pages, widgets) must not then be freed by the worker: a QObject
    # destroyed off the UI thread crashes Qt (a segfault seen once in the GUI tests).
    import gc
    import threading
    import time

    from workbench.gui import background as gui_background

    freed = []

    class Held:
        def __del__(self):
            freed.append(threading.get_ident())

    original = gui_background._Runnable.run

    def descheduled_run(self):
        original(self)
        time.sleep(0.5)

    monkeypatch.setattr(gui_background._Runnable, "run", descheduled_run)
    gc.disable()  # freed when the last reference goes, not at a collection on some thread
    try:
        _run_twice(qtbot, background, Held, freed)
    finally:
        gc.enable()


def _run_twice(qtbot, background, Held, freed):
    import threading

    for fails in (False, True):
        freed.clear()
        held = Held()

        def work(ctx, h=held, fails=fails):
            if fails:
                raise DataError("The file has no rows. Choose another file.")
            return 1

        op = background.op(work, "t").on_success(lambda r, h=held: None)
        del held, work
        with qtbot.waitSignal(op.finished, timeout=10000):
            op.run()
        del op
        qtbot.waitUntil(lambda: bool(freed), timeout=5000)
        assert freed == [threading.get_ident()]
        background.wait(10000)


def test_table_view_over_a_million_rows_reads_only_what_it_shows(qtbot):
    from PySide6.QtWidgets import QTableView

    n = 1_000_000
    df = pd.DataFrame({"text": pd.array([f"line\n{i}" for i in range(n)], dtype="string"),
                       "value": np.arange(n, dtype=float)})
    df.loc[3, "value"] = np.nan
    model = DataFrameTableModel()
    view = QTableView()
    view.setVerticalHeader(RowHeader(view))
    view.setModel(model)
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    qtbot.waitExposed(view)
    model.set_frame(df)
    view.viewport().repaint()
    view.verticalHeader().viewport().repaint()
    # the view's first screen and the header's width (first and last rows), nothing more
    assert 0 < model.rows_read <= 4 * DataFrameTableModel.BLOCK_ROWS
    assert view.verticalHeader().sizeHint().width() >= view.fontMetrics().horizontalAdvance("1000000")
    assert model.data(model.index(3, 1)) == ""
    assert model.data(model.index(2, 0)) == "line ⏎ 2"
    assert model.data(model.index(n - 1, 1)) == str(float(n - 1))
    assert model.headerData(n - 1, Qt.Orientation.Vertical) == str(n)
    view.scrollToBottom()
    view.viewport().repaint()
    assert model.rows_read <= 6 * DataFrameTableModel.BLOCK_ROWS
    model.set_view(np.array([5, 1]))
    assert model.data(model.index(0, 0)) == "line ⏎ 5" and model.headerData(1, Qt.Orientation.Vertical) == "2"


def test_sort_positions_numeric_text_and_blanks():
    df = pd.DataFrame({"n": ["10", "9", None, "100"], "t": ["b", None, "a", "c"]})
    assert list(sorted_positions(df, 0, True)) == [1, 0, 3, 2]
    assert list(sorted_positions(df, 1, True)) == [2, 0, 3, 1]
    assert list(sorted_positions(df, 1, False))[:3] == [3, 0, 2]
    assert list(sorted_positions(df, 1, True, base=np.array([0, 3]))) == [0, 3]
