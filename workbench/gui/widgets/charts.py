"""Small charts: bars (label distribution, histograms) and a confusion-matrix heat-map."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QVBoxLayout, QWidget

from .curves import PALETTE


class BarChart(QWidget):
    def __init__(self, title: str = "", parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget()
        self.plot.setBackground(None)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        if title:
            self.plot.setTitle(title)
        lay.addWidget(self.plot)
        self._bars = None
        self.labels: list[str] = []
        self.values: list[float] = []

    def set_data(self, labels: list[str], values: list[float], color: str = PALETTE[0]) -> None:
        self.labels, self.values = list(labels), [float(v) for v in values]
        if self._bars is not None:
            self.plot.removeItem(self._bars)
        x = np.arange(len(values))
        self._bars = pg.BarGraphItem(x=x, height=self.values, width=0.7, brush=color, pen=None)
        self.plot.addItem(self._bars)
        ax = self.plot.getAxis("bottom")
        step = max(1, len(labels) // 12)
        ax.setTicks([[(i, str(lab)) for i, lab in enumerate(labels) if i % step == 0]])
        self.plot.setXRange(-0.6, max(len(values) - 0.4, 0.4), padding=0)
        self.plot.setYRange(0, max(self.values + [1.0]) * 1.1, padding=0)


class HistogramChart(BarChart):
    def set_histogram(self, counts: np.ndarray, edges: np.ndarray, color: str = PALETTE[2]) -> None:
        labels = [f"{int(edges[i])}" for i in range(len(counts))]
        self.set_data(labels, list(counts), color)


class HeatMap(QWidget):
    """A labelled matrix (confusion matrix): colour by row share, count written in each cell."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = pg.PlotWidget()
        self.plot.setBackground(None)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.invertY(True)
        self.plot.setAspectLocked(False)
        lay.addWidget(self.plot)
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        self._texts: list[pg.TextItem] = []
        self.matrix = np.zeros((0, 0))

    def set_matrix(self, matrix, labels: list[str], x_title: str = "", y_title: str = "") -> None:
        m = np.asarray(matrix, dtype=float)
        self.matrix = m
        for t in self._texts:
            self.plot.removeItem(t)
        self._texts = []
        n = len(labels)
        if m.size == 0:
            self.image.clear()
            return
        share = m / np.maximum(m.sum(axis=1, keepdims=True), 1)
        cmap = pg.ColorMap([0.0, 1.0], [QColor("#f4f7fb"), QColor("#2f6fde")])
        self.image.setImage(share.T, levels=(0, 1), lut=cmap.getLookupTable(nPts=256))
        font = QFont()
        font.setPointSize(11)
        for i in range(n):
            for j in range(n):
                color = "#ffffff" if share[i, j] > 0.55 else "#1d2633"
                t = pg.TextItem(str(int(m[i, j])), color=color, anchor=(0.5, 0.5))
                t.setFont(font)
                t.setPos(j + 0.5, i + 0.5)
                self.plot.addItem(t)
                self._texts.append(t)
        ticks = [(k + 0.5, str(lab)) for k, lab in enumerate(labels)]
        self.plot.getAxis("bottom").setTicks([ticks])
        self.plot.getAxis("left").setTicks([ticks])
        self.plot.setLabel("bottom", x_title)
        self.plot.setLabel("left", y_title)
        self.plot.setXRange(0, n, padding=0.02)
        self.plot.setYRange(0, n, padding=0.02)
