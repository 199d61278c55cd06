"""The person's corrections in the Data page's table: corrected label cells are marked (the
original on hover), and a row's label can be corrected, excluded or put back from its menu.

Rows are matched by their id (core/versions.py: made from the source row's content), so the
marks follow a row through sorting, filtering and a newer file. In a multi-label project a row's
label set is chosen in a small dialog of the project's labels."""

from __future__ import annotations

import json

import pandas as pd
from PySide6.QtCore import QObject, QPoint, Qt, Signal, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QListWidget, QListWidgetItem, QMenu, QVBoxLayout

from ....core.corrections import Correction
from ....core.errors import WorkbenchError

CORRECTED = QColor(255, 236, 179)
EXCLUDED = QColor(224, 224, 224)
NOT_SURE = QColor(225, 236, 250)


class TableCorrections(QObject):
    changed = Signal()  # a correction was recorded or undone here

    def __init__(self, page, parent=None):
        super().__init__(parent or page)
        self.page = page
        self.ids: pd.Series | None = None  # imported row index -> row id
        self._ids_of = None  # the imported frame the ids are of
        self._op = None
        table = page.table_panel.table
        table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        table.customContextMenuRequested.connect(self._on_menu_requested)

    def _project(self):
        """The open project where its rows can be corrected, else None."""
        from ....core.operations.corrections import check_correctable

        project = self.page.session.project
        if project is None:
            return None
        try:
            check_correctable(project)
        except WorkbenchError:
            return None
        return project

    def _recorded(self) -> dict[str, Correction]:
        from ....core import corrections

        project = self._project()
        if project is None:
            return {}
        try:
            return corrections.load(project.root)
        except WorkbenchError:
            return {}

    @Slot()
    def refresh(self) -> None:
        """Mark the shown frame's corrected rows, once the imported rows' ids are known (they are
        computed in the background the first time)."""
        page = self.page
        model = page.table_panel.table_model
        raw, df = page.raw, page.current_frame()
        if raw is None or df is None or not page.table_panel.showing_cleaned() or "label" not in df.columns \
                or self._project() is None:
            model.set_cell_notes({})
            return
        if self._ids_of is not raw:
            self._compute_ids(raw)
            return
        recorded = self._recorded()
        ids = self.ids.reindex(df.index)
        marks = {}
        for pos, rid in enumerate(ids.tolist()):
            c = recorded.get(rid) if isinstance(rid, str) else None
            if c is None:
                continue
            if c.action == "label":
                tip = self.tr("Corrected by you; the label was {0}").format(c.original or "")
                shown = c.label if c.labels is None else json.dumps(c.labels, ensure_ascii=False)  # as the cells
                marks[pos] = (shown, CORRECTED, tip)
            elif c.action == "exclude":
                marks[pos] = (None, EXCLUDED, self.tr("Excluded by you: the next data version leaves this row out"))
            else:
                marks[pos] = (None, NOT_SURE, self.tr("Marked not sure by you; the label is kept"))
        column = list(map(str, df.columns)).index("label")
        model.set_cell_notes({(pos, column): note for pos, note in marks.items()})

    def _compute_ids(self, raw: pd.DataFrame) -> None:
        from ....core.versions import row_ids

        if self._op is not None and self._op.running:
            self._op.cancel()

        def done(ids):
            if self.page.raw is raw:
                self.ids, self._ids_of = ids, raw
                self.refresh()

        self._op = self.page.background.op(lambda _ctx: pd.Series(row_ids(raw), index=raw.index),
                                           self.tr("Matching your corrections")).on_success(done)
        self._op.run()

    # ----- the menu
    def row_id_at(self, view_row: int) -> str | None:
        df = self.page.current_frame()
        if df is None or self.ids is None or self._ids_of is not self.page.raw:
            return None
        pos = self.page.table_panel.table_model.position(view_row)
        rid = self.ids.get(df.index[pos]) if 0 <= pos < len(df) else None
        return rid if isinstance(rid, str) else None

    @Slot(QPoint)
    def _on_menu_requested(self, point: QPoint) -> None:
        table = self.page.table_panel.table
        index = table.indexAt(point)
        menu = self.menu_for(index.row() if index.isValid() else -1)
        if menu is not None:
            menu.exec(table.viewport().mapToGlobal(point))

    def menu_for(self, view_row: int) -> QMenu | None:
        """The corrections menu of a shown row (None where the row cannot be corrected)."""
        project = self._project()
        rid = self.row_id_at(view_row) if view_row >= 0 and self.page.table_panel.showing_cleaned() else None
        if project is None or rid is None:
            return None
        recorded = self._recorded().get(rid)
        menu = QMenu(self.page.table_panel.table)
        if project.task.multi_label:
            menu.addAction(self.tr("Set the labels…"), lambda: self.choose_set(rid, view_row))
        else:
            to = menu.addMenu(self.tr("Correct the label to"))
            for lab in project.task.labels:
                to.addAction(lab, lambda lab=lab: self.decide(rid, "label", lab))
            to.addSeparator()
            to.addAction(self.tr("A new label…"), lambda: self._new_label(rid))
        menu.addAction(self.tr("Exclude this row"), lambda: self.decide(rid, "exclude", None))
        menu.addAction(self.tr("Mark as not sure"), lambda: self.decide(rid, "not_sure", None))
        undo = menu.addAction(self.tr("Undo my correction"), lambda: self.decide(rid, "undo", None))
        undo.setEnabled(recorded is not None)
        return menu

    def current_set(self, rid: str, view_row: int) -> list[str]:
        """A multi-label row's label set as the person last said it: their correction, else the cell's."""
        from ....core.multilabel import decode

        c = self._recorded().get(rid)
        if c is not None and c.action == "label" and (c.labels is not None or c.label is not None):
            return list(c.labels) if c.labels is not None else [c.label]
        df = self.page.current_frame()
        pos = self.page.table_panel.table_model.position(view_row)
        try:
            return decode(df["label"].iloc[pos])
        except (ValueError, TypeError, IndexError, KeyError):
            return []

    def choose_set(self, rid: str, view_row: int):
        """Ask for the row's label set; record it where the person chose another."""
        current = self.current_set(rid, view_row)
        dialog = LabelSetDialog(self.page.session.project.task.labels, current, self.page)
        if dialog.exec() != QDialog.DialogCode.Accepted or set(dialog.chosen()) == set(current):
            return None
        if not dialog.chosen():
            return self.decide(rid, "exclude", None)
        return self.decide(rid, "label", json.dumps(dialog.chosen(), ensure_ascii=False))

    def _new_label(self, rid: str) -> None:
        from PySide6.QtWidgets import QInputDialog

        label, ok = QInputDialog.getText(self.page, self.tr("A new label"), self.tr(
            "The label for this row, added to the project's labels from the next data version on:"))
        if ok and label.strip():
            self.decide(rid, "label", label.strip())

    def decide(self, rid: str, action: str, label: str | None):
        from ....core.operations.corrections import correct
        from ...background import describe_error

        root = self.page.session.project.root

        def work(_ctx):
            if action == "undo":
                correct(root, undo=[rid], write_version=False)
            elif action == "not_sure":
                correct(root, not_sure=[rid], source="table", write_version=False)
            else:  # a label from the menu, or a new one the person typed (_new_label)
                correct(root, [(rid, label)], source="table", write_version=False, add_labels=True)

        def done(_r):
            self.refresh()
            self.changed.emit()

        def failed(exc):
            self.page.background.show_error(self.tr("The correction was not recorded"), describe_error(exc)[0])

        return self.page.background.op(work, self.tr("Recording your correction")).on_success(done).on_failure(
            failed).run()


class LabelSetDialog(QDialog):
    """The labels of one row of a multi-label project, each a box to tick."""

    def __init__(self, labels, chosen, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("The labels of this row"))
        self.list = QListWidget()
        for lab in labels:
            item = QListWidgetItem(lab)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if lab in chosen else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        hint = QLabel(self.tr("Tick the labels this row has. A row left with none is excluded from the next data "
                              "version."))
        hint.setWordWrap(True)
        lay.addWidget(hint)
        lay.addWidget(self.list)
        lay.addWidget(buttons)

    def chosen(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())
                if self.list.item(i).checkState() == Qt.CheckState.Checked]
