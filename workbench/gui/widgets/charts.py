"""Small charts: bars (label distribution, histograms) and a confusion-matrix heat-map."""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette, QPen
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from .curves import PALETTE


class BarChart(QWidget):
    """Bars with a title, a value axis and category labels, drawn by one ``paintEvent``.

    Painted with QPainter rather than a plot scene: a handful of bars needs no scene graph,
    and this way a new result is two assignments and one repaint on the UI thread.
    """

    def __init__(self, title: str = "", parent=None):
        super().__init__(parent)
        self.setMinimumHeight(120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.title = title
        self.labels: list[str] = []
        self.values: list[float] = []
        self.color = PALETTE[0]
        self.skip_labels = False  # too many labels for the width: skip some (True) or shorten each (False)

    def set_title(self, title: str) -> None:
        if title != self.title:
            self.title = title
            self.update()

    def set_data(self, labels: list[str], values: list[float], color: str = PALETTE[0]) -> None:
        self.labels, self.values = [str(lab) for lab in labels], [float(v) for v in values]
        self.color = color
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(320, 200)

    @staticmethod
    def _nice_step(top: float, ticks: int = 4) -> float:
        raw = max(top, 1.0) / ticks
        mag = 10 ** math.floor(math.log10(raw))
        for m in (1, 2, 2.5, 5, 10):
            if raw <= m * mag:
                return m * mag
        return 10 * mag

    @staticmethod
    def _tick_text(v: float) -> str:
        if v >= 1e6:
            return f"{v / 1e6:g}M"
        if v >= 1e4:
            return f"{v / 1e3:g}k"
        return f"{v:g}"

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        fg = self.palette().color(QPalette.ColorRole.WindowText)
        fm = p.fontMetrics()
        line = fm.height()
        rect = self.rect().adjusted(4, 4, -8, -4)
        top = rect.top()
        if self.title:
            p.setPen(fg)
            p.drawText(QRectF(rect.left(), top, rect.width(), line), int(Qt.AlignmentFlag.AlignHCenter),
                       fm.elidedText(self.title, Qt.TextElideMode.ElideRight, rect.width()))
            top += line + 6
        n = len(self.values)
        rotated, label_h = self.label_layout(fm, rect.width())
        vmax = max(self.values + [1.0])
        step = self._nice_step(vmax)
        ymax = step * math.ceil(vmax * 1.05 / step)
        ticks = [step * k for k in range(int(round(ymax / step)) + 1)]
        axis_w = max(fm.horizontalAdvance(self._tick_text(t)) for t in ticks) + 8
        plot = QRectF(rect.left() + axis_w, top + line / 2, rect.width() - axis_w,
                      rect.bottom() - top - line - label_h - 6)
        if plot.height() < 10 or plot.width() < 10:
            p.end()
            return
        grid = QColor(fg)
        grid.setAlpha(40)
        for t in ticks:
            y = plot.bottom() - plot.height() * t / ymax
            p.setPen(QPen(grid, 1))
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            p.setPen(fg)
            p.drawText(QRectF(rect.left(), y - line / 2, axis_w - 6, line),
                       int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), self._tick_text(t))
        p.setPen(QPen(fg, 1))
        p.drawLine(QPointF(plot.left(), plot.bottom()), QPointF(plot.right(), plot.bottom()))
        if n:
            slot = plot.width() / n
            bar_w = slot * 0.7
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(QColor(self.color))
            for i, v in enumerate(self.values):
                h = plot.height() * v / ymax
                p.drawRect(QRectF(plot.left() + i * slot + (slot - bar_w) / 2, plot.bottom() - h, bar_w, h))
            p.setPen(fg)
            every = max(1, n // 12)
            if self.skip_labels and self.labels:  # numbers: show every k-th in full rather than cut them
                widest = max(fm.horizontalAdvance(lab) for lab in self.labels) + 6
                every = max(every, math.ceil(widest / max(slot, 1)))
            for i, lab in enumerate(self.labels):
                if i % every:
                    continue
                if rotated:  # whole labels at 45 degrees, ending under their bar
                    text = fm.elidedText(lab, Qt.TextElideMode.ElideRight, int(label_h * 1.41))
                    p.save()
                    p.translate(plot.left() + i * slot + slot / 2 + line / 3, plot.bottom() + 6)
                    p.rotate(-45)
                    p.drawText(QRectF(-fm.horizontalAdvance(text) - 2, -line, fm.horizontalAdvance(text) + 2, line),
                               int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
                    p.restore()
                    continue
                w = slot * every
                x = plot.left() + i * slot + slot / 2 - w / 2
                p.drawText(QRectF(x, plot.bottom() + 4, w, line), int(Qt.AlignmentFlag.AlignHCenter),
                           fm.elidedText(lab, Qt.TextElideMode.ElideRight, int(w)))
        p.end()

    def label_layout(self, fm, width: float) -> tuple[bool, float]:
        """(rotated, height of the label band). Category labels that do not fit under their
        bars (Chinese labels are wide) are turned 45 degrees instead of being cut."""
        line = fm.height()
        if self.skip_labels or not self.labels:
            return False, line
        slot = max(width - 40, 1) / len(self.labels)
        widest = max(fm.horizontalAdvance(lab) for lab in self.labels) + 6
        if widest <= slot:
            return False, line
        band = min(widest * 0.71 + line, max(self.height() * 0.4, line * 2))
        return True, band


class HistogramChart(BarChart):
    def __init__(self, title: str = "", parent=None):
        super().__init__(title, parent)
        self.skip_labels = True

    def set_histogram(self, counts: np.ndarray, edges: np.ndarray, color: str = PALETTE[2]) -> None:
        # bins are [edge, next edge): one length per bar, or the range of lengths it holds
        labels = [f"{int(edges[i])}" if int(edges[i + 1]) - int(edges[i]) <= 1
                  else f"{int(edges[i])}–{int(edges[i + 1]) - 1}" for i in range(len(counts))]
        self.set_data(labels, list(counts), color)


def _fixed_plot() -> pg.PlotWidget:
    """A plot the user reads but does not pan, zoom or configure."""
    plot = pg.PlotWidget()
    plot.setBackground(None)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMenuEnabled(False)
    return plot


class HeatMap(QWidget):
    """A labelled matrix (confusion matrix): colour by row share, count written in each cell."""

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = _fixed_plot()
        self.plot.invertY(True)
        self.plot.setAspectLocked(False)
        lay.addWidget(self.plot)
        self.image = pg.ImageItem()
        self.plot.addItem(self.image)
        self._texts: list[pg.TextItem] = []
        self.matrix = np.zeros((0, 0))

    MANY = 12  # labels above which the compact form below is drawn
    SHORT = 12  # characters of a label's name kept in the compact form

    @classmethod
    def _short(cls, name: str) -> str:
        return name if len(name) <= cls.SHORT else name[:cls.SHORT - 1] + "…"

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
        # Tens of labels (62 criminal charges): counts in the non-empty cells only, in a smaller
        # font; rows numbered with their names shortened and columns by number, so the names
        # do not take the matrix's width (the table beside it lists them whole, in this order).
        many = n > self.MANY
        font = QFont()
        font.setPointSize(11 if not many else max(6, round(11 * self.MANY / n)))
        cells = zip(*np.nonzero(m)) if many else ((i, j) for i in range(n) for j in range(n))
        for i, j in cells:
            color = "#ffffff" if share[i, j] > 0.55 else "#1d2633"
            t = pg.TextItem(str(int(m[i, j])), color=color, anchor=(0.5, 0.5))
            t.setFont(font)
            t.setPos(j + 0.5, i + 0.5)
            self.plot.addItem(t)
            self._texts.append(t)
        if many:
            names = [f"{k + 1} {self._short(str(lab))}" for k, lab in enumerate(labels)]
            step = math.ceil(n / 20)
            columns = [(k + 0.5, str(k + 1)) for k in range(0, n, step)]
        else:
            names = [str(lab) for lab in labels]
            columns = [(k + 0.5, name) for k, name in enumerate(names)]
        self.plot.getAxis("bottom").setTicks([columns])
        left = self.plot.getAxis("left")
        left.setTicks([[(k + 0.5, name) for k, name in enumerate(names)]])
        # the axis is as wide as its longest label (its default width cuts Chinese labels)
        fm = QFontMetrics(left.style.get("tickFont") or self.font())
        left.setWidth(max((fm.horizontalAdvance(name) for name in names), default=0) + fm.height() + 16)
        self.plot.setLabel("bottom", x_title)
        self.plot.setLabel("left", y_title)
        self.plot.setXRange(0, n, padding=0.02)
        self.plot.setYRange(0, n, padding=0.02)


class LabelBars(QWidget):
    """Multi-label results: horizontal bars of precision, recall and F1 for each label, its
    rows (support) beside its name. Names like 掩饰、隐瞒犯罪所得、犯罪所得收益罪 are long: on
    a vertical axis they read whole. Three BarGraphItems are created once and given new
    heights with ``setOpts``; nothing is cleared and re-plotted."""

    SERIES = ("precision", "recall", "f1")
    ROW_PX = 26  # one label's three bars and its name

    def __init__(self, names: dict[str, str] | None = None, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = _fixed_plot()
        self.plot.setXRange(0, 1.04, padding=0)  # room for the tick label 1.0 at the right edge
        self.plot.getAxis("bottom").setTicks([[(v / 5, f"{v / 5:.1f}") for v in range(6)]])
        # the legend above the plot, not in it: bars reach 1.0 at the right edge
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.set_names(names or {})
        self.bars: dict[str, pg.BarGraphItem] = {}
        for i, key in enumerate(self.SERIES):
            item = pg.BarGraphItem(x0=[], y=[], width=[], height=0.26, brush=PALETTE[i], pen=None)
            self.plot.addItem(item)
            self.bars[key] = item
        # many labels: each keeps ROW_PX of height and the plot scrolls, rather than squeezing
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(self.plot)
        lay.addWidget(self.legend)
        lay.addWidget(self.scroll, 1)
        self.labels: list[str] = []
        self.values: dict[str, list[float]] = {k: [] for k in self.SERIES}
        self.setMinimumHeight(160)

    def set_names(self, names: dict[str, str]) -> None:
        self.legend.setText("&nbsp;&nbsp;&nbsp;".join(
            f'<span style="color:{PALETTE[i]}">■</span> {html.escape(names.get(key, key))}'
            for i, key in enumerate(self.SERIES)))

    def set_data(self, per_class: dict[str, dict]) -> None:
        """``per_class`` as eval writes it: label -> precision, recall, f1, support."""
        self.labels = list(per_class)
        n = len(self.labels)
        y = np.arange(n)[::-1].astype(float)  # the first label on top
        for i, key in enumerate(self.SERIES):
            self.values[key] = [float(per_class[lab].get(key, 0.0)) for lab in self.labels]
            self.bars[key].setOpts(x0=np.zeros(n), y=y + (1 - i) * 0.27, width=np.array(self.values[key]),
                                   height=0.26)
        self.plot.getAxis("left").setTicks(
            [[(float(pos), f"{lab} ({per_class[lab].get('support', 0)})") for pos, lab in zip(y, self.labels)]])
        self.plot.setYRange(-0.6, max(n - 0.4, 0.6), padding=0)
        self.plot.setMinimumHeight(self.ROW_PX * n + 40)
