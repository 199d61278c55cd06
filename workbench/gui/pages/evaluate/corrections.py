"""Correcting a row's label from the Evaluate page's samples.

A person who reads the model's answers finds rows whose label in the file is wrong. A context
menu on a row (or F2) records a new label, an exclusion or an undo as the project's
corrections (core/operations/corrections.py, in a background operation); the data version they
make is written when the next run is trained (the Train page), so a key press costs no rewrite
of the splits. A corrected row's label is shown as corrected, with the label it had, and the
row is scored against it in the "correct" columns and the "Wrong only" filter (the truth the
person gave); the metrics stay the evaluation's, as it computed them.
"""

from __future__ import annotations

import pandas as pd
from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel, QMenu, QTableView

from ....core import corrections as records
from ....core.errors import WorkbenchError
from ....core.operations import corrections as correcting
from ....core.versions import ROW_ID
from ...background import BackgroundOp, BackgroundWork
from ...error_texts import error_text, exception_text
from ...session import ProjectSession
from ...table_model import DataFrameTableModel

# a corrected label and an excluded row, over the light and the dark style alike
CORRECTED = QColor(255, 179, 0, 90)
EXCLUDED = QColor(128, 128, 128, 90)
# the predictions' columns that score an answer against the row's label -> the answer they score
SCORED = {"correct": "prediction", "base_correct": "base_prediction"}
MENU_KEY = Qt.Key.Key_F2  # opens the menu on the selected row, as the menu key or a right click does


class SampleCorrections(QObject):
    """The corrections of the rows ``view`` shows (``model`` over the evaluation's predictions):
    the menu, the marks on corrected rows and the line saying what is not in the data yet."""

    recorded = Signal()  # a correction (or an undo) was recorded
    changed = Signal()  # the corrections shown changed (and with them the rows scored against one)

    def __init__(self, session: ProjectSession, background: BackgroundWork, view: QTableView,
                 model: DataFrameTableModel, note: QLabel, parent=None):
        super().__init__(parent or view)
        self.session = session
        self.background = background
        self.view = view
        self.model = model
        self.note = note
        self.predictions = pd.DataFrame()
        self.metrics: dict | None = None
        self.reference_column = -1  # the shown column of the label the row was scored against
        self.scored_columns: dict[str, int] = {}  # the predictions' SCORED columns -> their shown column
        self.truths: dict[int, str] = {}  # row position -> the corrected label it is scored against now
        self.reason: str | None = None  # why the rows cannot be corrected; None: they can
        self.items: dict[str, records.Correction] = {}  # row id -> its correction, as recorded
        self.more_actions = None  # (menu, view row) -> None: other items of a row's menu (ratings.py)
        self._positions: dict[str, int] = {}  # row id -> its position in the predictions
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._on_menu_requested)
        view.installEventFilter(self)  # F2 (a read-only table's edit key) opens the menu
        note.hide()

    # ------------------------------------------------------------------ what is shown
    def show(self, predictions: pd.DataFrame, metrics: dict | None, reference_column: int,
             scored_columns: dict[str, int] | None = None) -> None:
        """The rows of an evaluation (``predictions`` as eval wrote them, in the model's row order;
        ``reference_column``: the shown column of their labels, -1 where there is none;
        ``scored_columns``: the shown column of each of its SCORED columns)."""
        self.predictions = predictions
        self.metrics = metrics
        self.reference_column = reference_column
        self.scored_columns = dict(scored_columns or {})
        ids = predictions[ROW_ID].astype(str).tolist() if ROW_ID in predictions.columns else []
        self._positions = {rid: i for i, rid in enumerate(ids)}
        self.refresh()

    def _why_not(self) -> str | None:
        """Why the rows shown cannot be corrected, in the interface language; None when they can."""
        project = self.session.project
        if project is None or not len(self.predictions):
            return self.tr("There are no evaluated rows to correct.")
        try:
            correcting.check_correctable(project)
        except WorkbenchError as exc:
            return exception_text(exc)
        result = self.metrics or {}
        if result.get("task", "classification") != "classification":
            return error_text("corrections_not_classification", {}, "")
        if (result.get("metrics") or {}).get("multi_label"):
            return self.tr("A row's label set is corrected on the Data page: right-click the row in its table.")
        if not self._positions or self.reference_column < 0:
            return self.tr("This evaluation was made before rows had ids, so a correction could not find its row. "
                           "Evaluate the run again, then correct its rows here.")
        return None

    @Slot()
    def refresh(self) -> None:
        """The corrections as recorded now: the marks on the rows and the line below."""
        self.reason = self._why_not()
        self.items = {}
        if self.reason is None:
            try:
                self.items = records.load(self.session.project.root)
            except WorkbenchError as exc:  # a damaged corrections file: said, and nothing is corrected
                self.reason = exception_text(exc)
        self.truths = records.truths(self.items, self.predictions[ROW_ID].astype(str).tolist(),
                                     self.predictions["reference"].astype(str).tolist()) if self.items else {}
        self._show_marks()
        self._show_note()
        self.changed.emit()

    def scored(self, position: int, column: str = "correct") -> bool | None:
        """Whether row ``position``'s answer in the predictions' SCORED ``column`` matches its
        corrected label; None where the row has no corrected label (it keeps its score)."""
        label = self.truths.get(position)
        answer = SCORED.get(column)
        if label is None or answer not in self.predictions.columns:
            return None
        return str(self.predictions.at[position, answer]).strip() == label.strip()

    def _show_marks(self) -> None:
        notes = {}
        col = self.reference_column
        for rid, c in self.items.items():
            pos = self._positions.get(rid)
            if pos is None or col < 0:
                continue
            was = c.original if c.original is not None else str(self.predictions.at[pos, "reference"])
            if c.action == "label" and c.label is not None:
                notes[(pos, col)] = (c.label, CORRECTED, self.tr("Your correction: {0}. The file says {1}.").format(
                    c.label, was))
            elif c.action == "exclude":
                notes[(pos, col)] = (self.tr("{0} (excluded)").format(was), EXCLUDED, self.tr(
                    "You excluded this row: the next run trains and is scored without it."))
            elif c.action == "not_sure":
                notes[(pos, col)] = (None, None, self.tr("You marked this row as not sure: it keeps its label."))
        yes_no = {True: self.tr("yes"), False: self.tr("no")}
        for pos, label in self.truths.items():
            for name, shown in self.scored_columns.items():
                now = self.scored(pos, name)
                if now is None:
                    continue
                then = str(self.predictions.at[pos, name]).strip().lower() in ("true", "1", "1.0")
                notes[(pos, shown)] = (yes_no[now], CORRECTED, self.tr(
                    "Scored against your correction {0}: {1}. The evaluation scored it against {2}: {3}, and its "
                    "figures count that.").format(label, yes_no[now], self.predictions.at[pos, "reference"],
                                                  yes_no[then]))
        self.model.set_cell_notes(notes)

    def _show_note(self) -> None:
        text = ""
        if self.reason is None:
            waiting = correcting.pending(self.session.project.root)
            active = sum(c.action != "not_sure" for c in self.items.values())
            if waiting and active:
                text = self.tr("Corrections not in the data yet: {0}. They apply when you train again (Train page: "
                               "Train again with the corrections).").format(waiting)
            elif waiting:
                text = self.tr("Your corrections were undone; the data holds them until you train again (Train page: "
                               "Train again with the corrections).")
            else:
                text = self.tr("A wrong label in the file? Right-click the row, or select it and press F2, to "
                               "correct it or to exclude the row.")
        self.note.setText(text)
        self.note.setVisible(bool(text))

    # ------------------------------------------------------------------ the menu
    def row_id(self, position: int) -> str:
        return str(self.predictions.at[position, ROW_ID])

    def current_label(self, position: int) -> str:
        """The row's label as the person last said it: their correction, else the file's."""
        c = self.items.get(self.row_id(position))
        if c is not None and c.action == "label" and c.label is not None:
            return c.label
        return str(self.predictions.at[position, "reference"])

    def menu(self, row: int) -> QMenu:
        """The corrections of view row ``row``: its labels (the model's answer first), exclude,
        undo; disabled, with the reason as their tooltip, where the rows cannot be corrected."""
        menu = QMenu(self.view)
        menu.setToolTipsVisible(True)
        labels = menu.addMenu(self.tr("Correct the label to…"))
        labels.setToolTipsVisible(True)
        exclude = menu.addAction(self.tr("Exclude this row"))
        undo = menu.addAction(self.tr("Undo my correction"))
        if self.more_actions is not None:
            self.more_actions(menu, row)
        if self.reason is not None or row < 0:
            for action in (labels.menuAction(), exclude, undo):
                action.setEnabled(False)
                action.setToolTip(self.reason or "")
            return menu
        pos = self.model.position(row)
        rid = self.row_id(pos)
        predicted = str(self.predictions.at[pos, "prediction"]) if "prediction" in self.predictions.columns else ""
        current = self.current_label(pos)
        project_labels = list(self.session.project.task.labels)
        order = ([predicted] if predicted in project_labels else []) + [x for x in project_labels if x != predicted]
        for i, label in enumerate(order):
            shown = label.replace("&", "&&")
            if label == predicted:
                shown = self.tr("{0} (the model's answer)").format(shown)
            action = labels.addAction(shown)
            action.setData(label)
            action.setCheckable(label == current)  # the label the row has now: ticked, not offered
            action.setChecked(label == current)
            action.setEnabled(label != current)
            action.triggered.connect(lambda _=False, p=pos, lab=label: self.correct(p, lab))
            if i == 0 and label == predicted and len(order) > 1:
                labels.addSeparator()
        c = self.items.get(rid)
        exclude.setEnabled(c is None or c.action != "exclude")
        exclude.triggered.connect(lambda _=False, p=pos: self.exclude(p))
        undo.setEnabled(c is not None)
        undo.triggered.connect(lambda _=False, p=pos: self.undo(p))
        return menu

    @Slot(QPoint)
    def _on_menu_requested(self, pos: QPoint) -> None:
        index = self.view.indexAt(pos)
        if index.isValid():
            self.menu(index.row()).popup(self.view.viewport().mapToGlobal(pos))

    def eventFilter(self, watched, event) -> bool:
        if (watched is self.view and event.type() == QEvent.Type.KeyPress and event.key() == MENU_KEY
                and event.modifiers() == Qt.KeyboardModifier.NoModifier):
            index = self.view.currentIndex()
            if index.isValid():
                rect = self.view.visualRect(index)
                self.menu(index.row()).popup(self.view.viewport().mapToGlobal(rect.center()))
            return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ recording
    def correct(self, position: int, label: str) -> BackgroundOp:
        rid = self.row_id(position)
        c = self.items.get(rid)
        if c is not None and c.original == label:  # the file's own label again: no correction is left
            return self._record(undo=[rid])
        return self._record(labels=[(rid, label)])

    def exclude(self, position: int) -> BackgroundOp:
        return self._record(labels=[(self.row_id(position), None)])

    def undo(self, position: int) -> BackgroundOp:
        return self._record(undo=[self.row_id(position)])

    def _record(self, **what) -> BackgroundOp:
        root = self.session.project.root

        def work(_ctx):
            # recorded only: the Train page writes the data version once, when it trains again
            return correcting.correct(root, source="predictions", write_version=False, **what)

        def failed(exc: BaseException) -> None:
            self.background.show_error(self.tr("The correction was not recorded"), exc)
            self.refresh()

        def done(_result) -> None:
            if self.session.project is not None and self.session.project.root == root:
                self.refresh()
            self.recorded.emit()
            self.session.corrections_changed.emit()

        op = self.background.op(work, self.tr("Recording the correction"))
        op.on_success(done).on_failure(failed)
        return op.run()
