"""A read-only Qt table model over a pandas DataFrame that reads cells on demand.

``data()`` reads one cell with ``df.iat`` when the view paints it, so a million rows cost
nothing until they are seen. Sorting and filtering produce an array of row positions
(``view``); computing it for a large frame is done off the UI thread with
:func:`sorted_positions` / :func:`filtered_positions`, then handed to :meth:`set_view`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor

MAX_CELL_CHARS = 300


def sorted_positions(df: pd.DataFrame, column: int, ascending: bool, base: np.ndarray | None = None) -> np.ndarray:
    """Row positions of ``df`` (restricted to ``base`` if given) ordered by one column; blanks last.

    Mostly-numeric columns sort as numbers, others as text (with Arrow, fast on a million rows).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    s = df.iloc[:, column] if base is None else df.iloc[base, column]
    pos = np.arange(len(df)) if base is None else np.asarray(base)
    num = pd.to_numeric(s, errors="coerce")
    filled = int(s.notna().sum())
    if filled and int(num.notna().sum()) >= 0.9 * filled:
        arr = pa.array(num.to_numpy(dtype=float, na_value=np.nan), from_pandas=True)
    else:
        arr = pa.array(s.astype("string").to_numpy(dtype=object, na_value=None), type=pa.string())
    order = pc.sort_indices(arr, sort_keys=[("", "ascending" if ascending else "descending")],
                            null_placement="at_end").to_numpy()
    return pos[order]


def filtered_positions(df: pd.DataFrame, text: str, column: int | None = None) -> np.ndarray | None:
    """Positions of rows containing ``text`` (case-insensitive) in one column or any; None for no filter."""
    text = text.strip()
    if not text:
        return None
    cols = [df.columns[column]] if column is not None and column >= 0 else list(df.columns)
    mask = np.zeros(len(df), dtype=bool)
    for c in cols:
        s = df[c].astype("string")
        mask |= s.str.contains(text, case=False, regex=False, na=False).to_numpy(dtype=bool)
    return np.flatnonzero(mask)


class DataFrameTableModel(QAbstractTableModel):
    def __init__(self, df: pd.DataFrame | None = None, parent=None):
        super().__init__(parent)
        self._df = df if df is not None else pd.DataFrame()
        self._view: np.ndarray | None = None  # row positions shown, or None for all in order
        self._highlight: dict[int, QColor] = {}  # row position -> background
        self._show_index = True

    # -- data --
    @property
    def frame(self) -> pd.DataFrame:
        return self._df

    @property
    def view(self) -> np.ndarray | None:
        return self._view

    def set_frame(self, df: pd.DataFrame) -> None:
        self.beginResetModel()
        self._df = df
        self._view = None
        self._highlight = {}
        self.endResetModel()

    def set_view(self, positions: np.ndarray | None) -> None:
        self.beginResetModel()
        self._view = None if positions is None else np.asarray(positions, dtype=np.int64)
        self.endResetModel()

    def set_highlight(self, rows: dict[int, QColor]) -> None:
        self._highlight = dict(rows)
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [Qt.ItemDataRole.BackgroundRole])

    def position(self, row: int) -> int:
        """The frame row position shown in view row ``row``."""
        return int(self._view[row]) if self._view is not None else row

    # -- Qt model API --
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return len(self._view) if self._view is not None else len(self._df)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._df.shape[1]

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            v = self._df.iat[self.position(index.row()), index.column()]
            if v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v)):
                return ""
            s = str(v)
            if role == Qt.ItemDataRole.DisplayRole:
                s = s.replace("\n", " ⏎ ")
                return s if len(s) <= MAX_CELL_CHARS else s[: MAX_CELL_CHARS - 1] + "…"
            return s if len(s) > 40 else None
        if role == Qt.ItemDataRole.BackgroundRole and self._highlight:
            c = self._highlight.get(self.position(index.row()))
            return QBrush(c) if c is not None else None
        return None

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return str(self._df.columns[section]) if section < self._df.shape[1] else None
        if section < self.rowCount():
            label = self._df.index[self.position(section)]
            return str(label + 1) if isinstance(label, (int, np.integer)) else str(label)
        return None
