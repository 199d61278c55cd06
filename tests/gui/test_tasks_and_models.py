"""Background operations, the DataFrame model, and a guard against a PySide6 refcount bug."""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QObject, Qt, Signal

from workbench.core.errors import DataError
from workbench.gui.models.dataframe_model import DataFrameTableModel, filtered_positions, sorted_positions


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


def test_op_success_and_progress(qtbot, tasks):
    seen = []

    def work(ctx):
        for i in range(5):
            ctx.progress(i / 5)
        return 42

    op = tasks.op(work, "t").with_progress()
    op.progressed.connect(lambda f, m: seen.append(f))
    with qtbot.waitSignal(op.succeeded, timeout=10000) as blocker:
        op.run()
    assert blocker.args == [42]
    assert seen and max(seen) <= 1.0


def test_op_failure_shows_the_error_message(qtbot, tasks):
    def work(ctx):
        raise DataError("The file has no rows. Choose another file.")

    with qtbot.waitSignal(tasks.error_shown, timeout=10000) as blocker:
        tasks.op(work, "Reading").run()
    assert blocker.args == ["Reading", "The file has no rows. Choose another file."]


def test_op_cancel(qtbot, tasks):
    import threading

    started = threading.Event()

    def work(ctx):
        started.set()
        while True:
            ctx.progress(0.5)

    op = tasks.op(work, "long")
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


def test_sort_positions_numeric_text_and_blanks():
    df = pd.DataFrame({"n": ["10", "9", None, "100"], "t": ["b", None, "a", "c"]})
    assert list(sorted_positions(df, 0, True)) == [1, 0, 3, 2]
    assert list(sorted_positions(df, 1, True)) == [2, 0, 3, 1]
    assert list(sorted_positions(df, 1, False))[:3] == [3, 0, 2]
    assert list(sorted_positions(df, 1, True, base=np.array([0, 3]))) == [0, 3]
