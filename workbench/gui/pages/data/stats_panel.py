"""The Data page's Columns tab: a column's rows, blanks, distinct values and text lengths,
and its most frequent values (a label column's distribution)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ...widgets.charts import BarChart, HistogramChart


class ColumnStatsPanel(QWidget):
    """Shows ``stats`` (display.column_stats) of the column chosen; ``label_column()`` names
    the column whose values are labels."""

    def __init__(self, label_column: Callable[[], str | None], parent=None):
        super().__init__(parent)
        self.label_column = label_column
        self.stats: dict[str, dict] = {}
        v = QVBoxLayout(self)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Column")))
        self.column_combo = QComboBox()
        self.column_combo.currentIndexChanged.connect(self.show_column)
        row.addWidget(self.column_combo, 1)
        v.addLayout(row)
        self.label = QLabel(self.tr("Import data to see its columns."))
        self.label.setWordWrap(True)
        v.addWidget(self.label)
        self.length_chart = HistogramChart(self.tr("Text length (characters)"))
        self.values_chart = BarChart(self.tr("Most frequent values"))
        v.addWidget(self.length_chart, 1)
        v.addWidget(self.values_chart, 1)

    def clear(self) -> None:
        """No data: nothing of a previous project's columns."""
        self.stats = {}
        self.label.setText(self.tr("Import data to see its columns."))
        self.length_chart.set_data([], [])
        self.values_chart.set_data([], [])

    def set_columns(self, names: list[str]) -> None:
        self.column_combo.blockSignals(True)
        self.column_combo.clear()
        self.column_combo.addItems(names)
        self.column_combo.blockSignals(False)

    def set_stats(self, stats: dict[str, dict]) -> None:
        self.stats = stats
        self.show_column()

    @Slot()
    def show_column(self, *_) -> None:
        name = self.column_combo.currentText()
        st = self.stats.get(name)
        if not st:
            return
        rows = max(st["rows"], 1)
        self.label.setText(self.tr("{0} rows · {1} missing or blank ({2:.1%}) · {3} distinct values · "
                                   "average length {4:.0f}, longest {5} characters").format(
            f"{st['rows']:,}", f"{st['missing']:,}", st["missing"] / rows, f"{st['distinct']:,}", st["mean_len"],
            st["max_len"]))
        counts, edges = st["hist"]
        self.length_chart.set_histogram(counts, edges)
        label_col = self.label_column()
        is_label = name == label_col or st["distinct"] <= 30
        self.values_chart.setVisible(is_label)
        if is_label:
            top = st["top"][:15]
            self.values_chart.set_title(self.tr("Label distribution") if name == label_col
                                        else self.tr("Most frequent values"))
            self.values_chart.set_data([k[:8] for k, _ in top], [v for _, v in top])
