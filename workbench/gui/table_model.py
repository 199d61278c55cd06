"""A read-only Qt table model over a pandas DataFrame that reads cells on demand.

Cells are read when the view paints them, a block of rows at a time, so a million rows cost
nothing until they are seen. Sorting and filtering produce an array of row positions
(``view``); computing it for a large frame is done off the UI thread with
:func:`sorted_positions` / :func:`filtered_positions`, then handed to :meth:`set_view`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QStyle, QStyleOptionHeader

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


_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_BACKGROUND = Qt.ItemDataRole.BackgroundRole.value


def _blank(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v))


class DataFrameTableModel(QAbstractTableModel):
    """Cells are read a block of rows at a time and kept as display strings.

    A view paints a few dozen rows at once and asks for every cell several times (one
    request per role); reading ``BLOCK_ROWS`` rows of the frame in one ``iloc`` and
    answering the rest from the cache keeps a repaint to a few Python calls. ``multiData``
    answers all the roles the view wants for a cell in one call.
    """

    BLOCK_ROWS = 128
    MAX_BLOCKS = 64

    def __init__(self, df: pd.DataFrame | None = None, parent=None):
        super().__init__(parent)
        self._df = df if df is not None else pd.DataFrame()
        self._view: np.ndarray | None = None  # row positions shown, or None for all in order
        self._highlight: dict[int, QColor] = {}  # row position -> background
        # (row position, column) -> (text shown, background, tooltip), each None to keep the cell's own
        self._notes: dict[tuple[int, int], tuple[str | None, QColor | None, str | None]] = {}
        self._note_layers: dict[str, dict[tuple[int, int], tuple[str | None, QColor | None, str | None]]] = {}
        self._show_index = True
        self._titles: dict[str, str] = {}  # column name -> the header shown (translated), where it differs
        self._words: dict[str, dict[str, str]] = {}  # column name -> {cell text: the text shown}
        self._blocks: dict[int, tuple[list[list[str]], list[str]]] = {}
        self.rows_read = 0  # frame rows read so far (tests check that a view reads only what it shows)

    # -- data --
    @property
    def frame(self) -> pd.DataFrame:
        return self._df

    @property
    def view(self) -> np.ndarray | None:
        return self._view

    def set_titles(self, titles: dict[str, str], words: dict[str, dict[str, str]] | None = None) -> None:
        """Headers to show for some columns (their names stay what the frame calls them), and
        for some columns the text to show for a cell's value (True -> "yes")."""
        self._titles, self._words = dict(titles), dict(words or {})
        self._blocks = {}
        if self._df.shape[1]:
            self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, self._df.shape[1] - 1)

    def set_frame(self, df: pd.DataFrame) -> None:
        self.beginResetModel()
        self._df = df
        self._view = None
        self._highlight = {}
        self._notes = {}
        self._note_layers = {}
        self._blocks = {}
        self.endResetModel()

    def set_view(self, positions: np.ndarray | None) -> None:
        self.beginResetModel()
        self._view = None if positions is None else np.asarray(positions, dtype=np.int64)
        self._blocks = {}
        self.endResetModel()

    def set_highlight(self, rows: dict[int, QColor]) -> None:
        self._highlight = dict(rows)
        if self.rowCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [Qt.ItemDataRole.BackgroundRole])

    def set_cell_notes(self, notes: dict[tuple[int, int], tuple[str | None, QColor | None, str | None]],
                       layer: str = "") -> None:
        """Cells shown otherwise than the frame holds them, by (row position, column): the text
        shown, a background and a tooltip, each None to keep the cell's own (a person's
        correction over what a file says). Each ``layer`` (corrections, ratings) sets its own
        notes without clearing another's."""
        self._note_layers[layer] = dict(notes)
        self._notes = {k: v for layer_notes in self._note_layers.values() for k, v in layer_notes.items()}
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1),
                                  [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.BackgroundRole,
                                   Qt.ItemDataRole.ToolTipRole])

    def cell_note(self, row: int, column: int) -> tuple[str | None, QColor | None, str | None] | None:
        """The note on view row ``row``'s cell in ``column``, if any."""
        return self._notes.get((self.position(row), column)) if self._notes else None

    def position(self, row: int) -> int:
        """The frame row position shown in view row ``row``."""
        return int(self._view[row]) if self._view is not None else row

    def _block(self, row: int) -> tuple[list[list[str]], list[str]]:
        """(cell texts by column, row labels) of the block of view rows holding ``row``."""
        b = row // self.BLOCK_ROWS
        block = self._blocks.get(b)
        if block is None:
            r0 = b * self.BLOCK_ROWS
            r1 = min(r0 + self.BLOCK_ROWS, self.rowCount())
            rows = self._df.iloc[r0:r1] if self._view is None else self._df.iloc[self._view[r0:r1]]
            cells = [["" if _blank(v) else str(v) for v in rows.iloc[:, c].tolist()] for c in range(rows.shape[1])]
            for c, name in enumerate(map(str, rows.columns)):
                if name in self._words:
                    cells[c] = [self._words[name].get(v, v) for v in cells[c]]
            labels = [str(x + 1) if isinstance(x, (int, np.integer)) else str(x) for x in rows.index.tolist()]
            self.rows_read += r1 - r0
            if len(self._blocks) >= self.MAX_BLOCKS:
                self._blocks.clear()
            block = self._blocks[b] = (cells, labels)
        return block

    def _text(self, row: int, column: int) -> str:
        return self._block(row)[0][column][row % self.BLOCK_ROWS]

    def _role_data(self, row: int, column: int, role: int):
        note = self.cell_note(row, column)
        if note is not None:
            value = {_DISPLAY: note[0], _BACKGROUND: QBrush(note[1]) if note[1] is not None else None,
                     _TOOLTIP: note[2]}.get(role)
            if value is not None:
                return value
        if role == _DISPLAY:
            s = self._text(row, column).replace("\n", " ⏎ ")
            return s if len(s) <= MAX_CELL_CHARS else s[: MAX_CELL_CHARS - 1] + "…"
        if role == _TOOLTIP:
            s = self._text(row, column)
            return s if len(s) > 40 else None
        if role == _BACKGROUND and self._highlight:
            c = self._highlight.get(self.position(row))
            return QBrush(c) if c is not None else None
        return None

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
        return self._role_data(index.row(), index.column(), role.value if isinstance(role, Qt.ItemDataRole) else role)

    def multiData(self, index, roleDataSpan) -> None:
        if not index.isValid():
            for rd in roleDataSpan:
                rd.clearData()
            return
        row, column = index.row(), index.column()
        for rd in roleDataSpan:
            v = self._role_data(row, column, rd.role())
            if v is None:
                rd.clearData()
            else:
                rd.setData(v)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role != Qt.ItemDataRole.DisplayRole and role != _DISPLAY:
            return None
        if orientation == Qt.Orientation.Horizontal:
            if section >= self._df.shape[1]:
                return None
            name = str(self._df.columns[section])
            return self._titles.get(name, name)
        if 0 <= section < self.rowCount():
            return self._block(section)[1][section % self.BLOCK_ROWS]
        return None

    def widest_row_label(self) -> str:
        """The longest row label among the first and last rows (what the row header is sized for)."""
        n = self.rowCount()
        rows = list(range(min(n, 100))) + list(range(max(100, n - 100), n))
        return max((self._block(r)[1][r % self.BLOCK_ROWS] for r in rows), key=len, default="")


class RowHeader(QHeaderView):
    """A vertical header sized from the labels of the first and last rows in one call.

    QHeaderView asks the model for a few roles of each of up to 200 sections to work out its
    width; with a Python model that is a thousand calls on the UI thread after every reset.
    """

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setSectionsClickable(True)  # as QTableView's own header: a click selects the row
        self.setHighlightSections(True)
        self._hint: tuple[object, int, QSize] | None = None

    def sizeHint(self) -> QSize:
        model = self.model()
        if not isinstance(model, DataFrameTableModel):
            return super().sizeHint()
        key = (model.frame, model.rowCount())
        if self._hint is not None and self._hint[0] is key[0] and self._hint[1] == key[1]:
            return self._hint[2]
        opt = QStyleOptionHeader()
        self.initStyleOption(opt)
        opt.text = model.widest_row_label() or "0"
        opt.section = 0
        size = self.style().sizeFromContents(QStyle.ContentsType.CT_HeaderSection, opt, QSize(), self)
        hint = QSize(size.width(), self.defaultSectionSize())
        self._hint = (key[0], key[1], hint)
        return hint
