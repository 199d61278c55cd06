"""The Data page's table: the imported or cleaned rows, filtered and sorted in the background,
read cell by cell on demand (gui/table_model.py)."""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import QSize, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QStyle,
                               QStyleOptionComboBox, QTableView, QVBoxLayout, QWidget)

from ...table_model import DataFrameTableModel, RowHeader, filtered_positions, sorted_positions
from ...background import BackgroundOp, BackgroundWork


class DataTablePanel(QWidget):
    """Which rows (imported or after cleaning), a filter, and the table."""

    which_changed = Signal()  # imported <-> after cleaning
    column_selected = Signal(int)  # the current cell's column

    def __init__(self, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.background = background
        self._sort: tuple[int, bool] | None = None
        self._view_op: BackgroundOp | None = None
        self._fit_pending = False  # the columns' widths were set before the table had its width
        lv = QVBoxLayout(self)
        lv.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.which_combo = QComboBox()
        self.which_combo.addItem(self.tr("Imported data"), "raw")
        self.which_combo.addItem(self.tr("After cleaning"), "clean")
        self.which_combo.currentIndexChanged.connect(self._on_which_combo_changed)
        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText(self.tr("Filter rows containing…"))
        self.filter_edit.setClearButtonEnabled(True)
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(300)
        self._filter_timer.timeout.connect(self.update_view)
        self.filter_edit.textChanged.connect(lambda _t: self._filter_timer.start())
        self.filter_column = QComboBox()
        self.filter_column.addItem(self.tr("in all columns"), -1)
        self.filter_column.currentIndexChanged.connect(lambda _i: self._filter_timer.start())
        self.filter_column.model().dataChanged.connect(self._fit_filter_column)  # a language switch renames it
        self._fit_filter_column()
        self.rows_label = QLabel()
        bar.addWidget(self.which_combo)
        bar.addWidget(self.filter_edit, 1)
        bar.addWidget(self.filter_column)
        bar.addWidget(self.rows_label)
        self.table_model = DataFrameTableModel()
        self.table = QTableView()
        self.table.setVerticalHeader(RowHeader(self.table))
        self.table.setModel(self.table_model)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setDefaultSectionSize(160)
        hh.setStretchLastSection(True)
        hh.setSortIndicatorShown(True)
        hh.setSectionsClickable(True)
        hh.sectionClicked.connect(self.sort_by)
        self.table.selectionModel().currentChanged.connect(self._on_table_current_changed)
        lv.addLayout(bar)
        lv.addWidget(self.table, 1)

    @Slot()
    def _fit_filter_column(self) -> None:
        """The column box at least as wide as "in all columns" in the interface language: sized
        when first shown, it kept the width of "所有列" after a switch to English ("in all co")."""
        box = self.filter_column
        opt = QStyleOptionComboBox()
        box.initStyleOption(opt)
        fm = box.fontMetrics()
        text = QSize(fm.horizontalAdvance(box.itemText(0)), fm.height())
        box.setMinimumWidth(box.style().sizeFromContents(QStyle.ContentsType.CT_ComboBox, opt, text, box).width())

    def showing_cleaned(self) -> bool:
        return self.which_combo.currentData() == "clean"

    @Slot(int)
    def _on_which_combo_changed(self, _i: int) -> None:
        self.which_changed.emit()

    @Slot()
    def _on_table_current_changed(self, current, _previous) -> None:
        if current.isValid():
            self.column_selected.emit(current.column())

    def set_frame(self, df: pd.DataFrame | None) -> None:
        """Show ``df`` (None: nothing), unsorted, filtered as the filter says."""
        df = df if df is not None else pd.DataFrame()
        self._sort = None
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table_model.set_frame(df)
        self._fit_columns(df)
        self.filter_column.blockSignals(True)
        self.filter_column.clear()
        self.filter_column.addItem(self.tr("in all columns"), -1)
        for i, c in enumerate(df.columns):
            self.filter_column.addItem(str(c), i)
        self.filter_column.blockSignals(False)
        self._fit_filter_column()
        self._update_rows_label()
        if self.filter_edit.text().strip():
            self.update_view()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self._fit_pending:  # fitted while hidden: the table's width is known now
            self._fit_columns(self.table_model.frame)

    def _fit_columns(self, df: pd.DataFrame) -> None:
        """Short columns (labels, dates, codes) as wide as what they hold; the room left goes to
        the text columns. With every column 160 pixels and the last one stretched, "After
        cleaning" showed the text narrow and the label column taking the width."""
        hh = self.table.horizontalHeader()
        self._fit_pending = not self.table.isVisible()
        if df.empty or len(df.columns) == 0:
            hh.setStretchLastSection(True)
            return
        fm = self.table.fontMetrics()
        sample = df.head(50)
        pad = 2 * fm.horizontalAdvance("M")
        natural = []
        for c in df.columns:
            texts = [str(v) for v in sample[c].tolist()]
            widest = max((fm.horizontalAdvance(t[:80]) for t in texts), default=0)
            natural.append(max(fm.horizontalAdvance(str(c)) + 3 * pad, widest + pad))
        short = [w <= 220 for w in natural]
        width = self.table.viewport().width()
        bar = self.table.verticalScrollBar()
        if not bar.isVisible():  # a frame just set: the scroll bar it brings takes its room soon
            width -= bar.sizeHint().width()
        room = max(width, 300) - sum(w for w, s in zip(natural, short) if s) - 2
        long_cols = short.count(False)
        hh.setStretchLastSection(False)
        for i, (w, is_short) in enumerate(zip(natural, short)):
            hh.resizeSection(i, w if is_short else max(220, min(w, room // max(long_cols, 1))))

    def _update_rows_label(self) -> None:
        df = self.table_model.frame
        shown = self.table_model.rowCount()
        if shown == len(df):
            self.rows_label.setText(self.tr("{0} rows").format(f"{len(df):,}"))
        else:
            self.rows_label.setText(self.tr("{0} of {1} rows").format(f"{shown:,}", f"{len(df):,}"))

    @Slot(int)
    def sort_by(self, column: int) -> None:
        """Sort by ``column``; the same column again reverses the order."""
        asc = not (self._sort is not None and self._sort[0] == column and self._sort[1])
        self._sort = (column, asc)
        self.table.horizontalHeader().setSortIndicator(
            column, Qt.SortOrder.AscendingOrder if asc else Qt.SortOrder.DescendingOrder)
        self.update_view()

    def update_view(self) -> BackgroundOp | None:
        df = self.table_model.frame
        text = self.filter_edit.text()
        col = self.filter_column.currentData()
        sort = self._sort
        if self._view_op is not None and self._view_op.running:
            self._view_op.cancel()
        if not text.strip() and sort is None:
            self.table_model.set_view(None)
            self._update_rows_label()
            return None

        def work(ctx):
            base = filtered_positions(df, text, col if col is not None and col >= 0 else None)
            ctx.check()
            if sort is not None:
                return sorted_positions(df, sort[0], sort[1], base)
            return base

        def done(positions):
            if self.table_model.frame is df:
                self.table_model.set_view(positions)
                self._update_rows_label()

        op = self.background.op(work, self.tr("Sorting and filtering")).on_success(done)
        self._view_op = op
        return op.run()

    def cancel(self) -> None:
        if self._view_op is not None:
            self._view_op.cancel()
