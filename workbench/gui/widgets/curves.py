"""Live training curves with pyqtgraph, in the manner of its scrollingPlots example.

Each series keeps pre-allocated numpy buffers that double when full; points are appended
as events arrive and the curve is handed the filled slice with ``setData`` on a 50 ms
timer, only when something changed. Nothing is cleared and re-plotted while streaming.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QTimer, Slot
from PySide6.QtWidgets import QVBoxLayout, QWidget

# Set where the plots are made, not at start-up: the window's first pages draw no plot, and
# importing pyqtgraph was a large share of the time to the window shown (python -X importtime).
pg.setConfigOptions(antialias=True, foreground="#3c4655", background=None)

PALETTE = ["#2f6fde", "#e8603c", "#2ca58d", "#9b59b6", "#f2a900", "#d6336c", "#17a2b8", "#6c757d"]


class Series:
    """A growing (x, y) buffer bound to one PlotDataItem."""

    def __init__(self, item: pg.PlotDataItem, capacity: int = 256):
        self.item = item
        self.x = np.empty(capacity)
        self.y = np.empty(capacity)
        self.n = 0
        self.dirty = False

    def append(self, x: float, y: float) -> None:
        if self.n == len(self.x):
            self.x = np.resize(self.x, 2 * len(self.x))
            self.y = np.resize(self.y, 2 * len(self.y))
        self.x[self.n] = x
        self.y[self.n] = y
        self.n += 1
        self.dirty = True

    def clear(self) -> None:
        self.n = 0
        self.dirty = True

    def flush(self) -> None:
        if self.dirty:
            self.item.setData(self.x[: self.n], self.y[: self.n])
            self.dirty = False


class CurvePlot(QWidget):
    """One plot with named series; ``append`` is cheap, repaint happens on the timer."""

    def __init__(self, title: str = "", y_label: str = "", x_label: str = "", log_y: bool = False, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget()
        self.plot.setBackground(None)
        # no axis grid: pyqtgraph draws it as part of each axis' picture, over the whole plot,
        # and replaying it made every repaint of a live curve cost ~30 ms of the UI thread
        if title:
            self.plot.setTitle(title)
        if y_label:
            self.plot.setLabel("left", y_label)
        if x_label:
            self.plot.setLabel("bottom", x_label)
        self.plot.setLogMode(False, log_y)
        self._log_y = log_y
        self._flat_y = False  # y fixed by flush() around a flat curve (one point, a constant rate)
        self.legend = self.plot.addLegend(offset=(-10, 10))
        lay.addWidget(self.plot)
        self.series: dict[str, Series] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(50)
        self._timer.timeout.connect(self._on_timer_timeout)
        self._timer.start()

    def add_series(self, key: str, label: str, color: str, dashed: bool = False, symbol: str | None = None) -> Series:
        pen = pg.mkPen(color, width=2, style=pg.QtCore.Qt.PenStyle.DashLine if dashed else pg.QtCore.Qt.PenStyle.SolidLine)
        # not antialiased: a solid 2 px curve is then drawn as line segments, pyqtgraph's fast
        # path; stroking it as an antialiased path took most of each repaint of a long curve
        item = self.plot.plot([], [], pen=pen, name=label, symbol=symbol, symbolSize=6,
                              symbolBrush=color if symbol else None, symbolPen=None, antialias=False)
        item.setClipToView(True)
        item.setDownsampling(auto=True, method="peak")
        s = Series(item)
        self.series[key] = s
        return s

    def remove_series(self, key: str) -> None:
        s = self.series.pop(key, None)
        if s is not None:
            self.plot.removeItem(s.item)
            self.legend.removeItem(s.item)

    def clear_series(self) -> None:
        for key in list(self.series):
            self.remove_series(key)

    def append(self, key: str, x: float, y: float) -> None:
        s = self.series.get(key)
        try:  # numbers only: np.isfinite raised TypeError on an int past 64 bits (a damaged events file)
            x, y = float(x), float(y)
        except (TypeError, ValueError, OverflowError):
            return
        if s is not None and math.isfinite(x) and math.isfinite(y):
            s.append(x, y)

    def set_x_extent(self, hi: float | None) -> None:
        """Fix the x axis to [0, hi], a run's planned steps; None hands it back to auto-range.
        A live curve growing to the right otherwise moved the x range on every flush, and each
        move rebuilt the axis picture on the UI thread."""
        if hi:
            self.plot.setXRange(0, hi, padding=0.02)  # turns x auto-range off
        else:
            self.plot.enableAutoRange(x=True)

    def reset_view(self) -> None:
        """Back to the empty plot's axes, auto-ranging again: an empty plot keeps the range of
        what it last showed, so another project's run stayed in the axes under "No run yet"."""
        self.plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
        self.plot.enableAutoRange()
        self._flat_y = False

    def point_count(self, key: str) -> int:
        s = self.series.get(key)
        return s.n if s else 0

    def flush(self) -> None:
        changed = False
        for s in self.series.values():
            changed = changed or s.dirty
            s.flush()
        if changed and not self._log_y:
            self._fit_flat_y()

    def _fit_flat_y(self) -> None:
        """A curve of one value (one point, a constant learning rate) has no height to auto-range
        on: pyqtgraph centres it in a range one unit tall, so a rate of 2e-4 showed an axis
        from -0.5 to 0.5. Such a curve is drawn halfway up an axis from zero to twice its value."""
        ys = [s.y[: s.n] for s in self.series.values() if s.n]
        if not ys:
            return
        lo, hi = min(float(y.min()) for y in ys), max(float(y.max()) for y in ys)
        if lo == hi:
            span = (0.0, 2 * lo) if lo > 0 else (2 * lo, 0.0) if lo < 0 else (0.0, 1.0)
            self.plot.setYRange(*span, padding=0.05)  # turns y auto-range off
            self._flat_y = True
        elif self._flat_y:
            self.plot.enableAutoRange(y=True)
            self._flat_y = False

    @Slot()
    def _on_timer_timeout(self) -> None:
        self.flush()
