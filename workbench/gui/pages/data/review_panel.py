"""The Data page's Review tab: the rows whose label looks wrong, and the person's judgement of
each, kept as corrections (core/corrections.py) that make the next data version.

The list comes from ``workbench review --json`` in a child process (it fits models); a
decision is recorded at once (the user's file is never touched) and the data version is
written once, when the person asks for it or trains again.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHBoxLayout, QHeaderView, QLabel, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from ....core.errors import WorkbenchError
from ...background import BackgroundWork, describe_error
from ...error_texts import error_text, exception_text
from ...session import ProjectSession

CONTEXT = "ReviewPanel"
# why a row is listed, by the review's code: (text, the fields that fill {0}, {1}...)
REASONS = {
    "model_prefers": (QT_TRANSLATE_NOOP(
        "ReviewPanel", "models: {0} {1:.0%}, this label {3:.0%}"),
        ("label", "probability", "given", "given_probability")),
    "model_unsure": (QT_TRANSLATE_NOOP("ReviewPanel", "models: this label only {1:.0%}"),
                     ("given", "given_probability")),
    "run_prefers": (QT_TRANSLATE_NOOP("ReviewPanel", "run {0}: {1} {2:.0%}, this label {4:.0%}"),
                    ("run", "label", "probability", "given", "given_probability")),
    "duplicates_disagree": (QT_TRANSLATE_NOOP("ReviewPanel", "identical texts labelled {1}: {0}"),
                            ("count", "label")),
    "near_duplicates_disagree": (QT_TRANSLATE_NOOP(
        "ReviewPanel", "nearly identical texts labelled {1}: {0} (similarity {2:.2f})"),
        ("count", "label", "similarity")),
}
DECIDED = QColor(225, 240, 225)  # a row the person has judged
COLUMNS = 6  # text, label, suggested, doubt, decision, why (the longest, last: it takes the room left)
DECISION, WHY = 4, 5


def reason_text(reason: dict) -> str:
    """A reason of the review in the interface language; an unknown code shows its English."""
    known = REASONS.get(reason.get("code", ""))
    fields = reason.get("fields") or {}
    if known is None or any(f not in fields for f in known[1]):
        return str(reason.get("message", ""))
    try:
        return QCoreApplication.translate(CONTEXT, known[0]).format(*(fields[f] for f in known[1]))
    except (ValueError, TypeError, IndexError):
        return str(reason.get("message", ""))


class ReviewPanel(QWidget):
    corrections_changed = Signal()  # a correction was recorded or undone, or a version written

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session, self.background = session, background
        self.rows: list[dict] = []
        self.decisions: dict[str, str] = {}  # row id -> what the person decided, as shown
        self._op = None
        lv = QVBoxLayout(self)
        self.intro = QLabel(self.tr(
            "The rows whose label looks wrong: models fitted without each row disagree with its label, or the "
            "same text carries other labels. Your decisions are kept in the project, never in your file, and "
            "are replayed whenever the data is prepared again."))
        self.intro.setWordWrap(True)
        top = QHBoxLayout()
        self.find_button = QPushButton(self.tr("Find rows to review"))
        self.find_button.clicked.connect(self.find)
        self.status = QLabel()
        self.status.setWordWrap(True)
        top.addWidget(self.find_button)
        top.addWidget(self.status, 1)
        self.table = QTableWidget(0, COLUMNS)
        self.table.setHorizontalHeaderLabels([self.tr("text"), self.tr("label"), self.tr("suggested"),
                                              self.tr("doubt"), self.tr("your decision"), self.tr("why")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(24)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        hh.setDefaultSectionSize(90)
        hh.setStretchLastSection(True)
        self.table.currentCellChanged.connect(lambda *_: self._update_buttons())
        keys = QHBoxLayout()
        self.accept_button = QPushButton(self.tr("Accept the suggestion (A)"))
        self.label_combo = QComboBox()
        self.label_combo.setEditable(True)  # a label the project does not have yet can be typed
        self.label_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.set_button = QPushButton(self.tr("Set this label (L)"))
        self.not_sure_button = QPushButton(self.tr("Not sure (N)"))
        self.exclude_button = QPushButton(self.tr("Exclude the row (X)"))
        self.undo_button = QPushButton(self.tr("Undo (U)"))
        for b in (self.accept_button, self.label_combo, self.set_button, self.not_sure_button, self.exclude_button,
                  self.undo_button):
            keys.addWidget(b)
        keys.addStretch(1)
        self.accept_button.clicked.connect(self.accept_suggestion)
        self.set_button.clicked.connect(self.set_chosen_label)
        self.not_sure_button.clicked.connect(self.mark_not_sure)
        self.exclude_button.clicked.connect(self.exclude)
        self.undo_button.clicked.connect(self.undo)
        # the keys act on the table's current row (an event filter rather than shortcuts: a letter
        # typed into the label box must stay a letter)
        self._keys = {Qt.Key.Key_A: self.accept_suggestion, Qt.Key.Key_L: self.set_chosen_label,
                      Qt.Key.Key_N: self.mark_not_sure, Qt.Key.Key_X: self.exclude, Qt.Key.Key_U: self.undo}
        self.table.installEventFilter(self)
        bottom = QHBoxLayout()
        self.pending_label = QLabel()
        self.pending_label.setWordWrap(True)
        self.apply_button = QPushButton(self.tr("Make the next data version"))
        self.apply_button.clicked.connect(self.apply)
        bottom.addWidget(self.pending_label, 1)
        bottom.addWidget(self.apply_button)
        lv.addWidget(self.intro)
        lv.addLayout(top)
        lv.addWidget(self.table, 1)
        lv.addLayout(keys)
        lv.addLayout(bottom)
        session.project_changed.connect(self.reset)
        session.data_prepared.connect(self._on_data_prepared)
        self.reset()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        if watched is self.table and event.type() == QEvent.Type.KeyPress and not (
                event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier):
            slot = self._keys.get(Qt.Key(event.key()))
            if slot is not None:
                slot()
                return True
        return super().eventFilter(watched, event)

    # ----- the project
    def refusal(self) -> str | None:
        """Why the open project's rows cannot be reviewed (in the user's words), or None."""
        why = self.not_correctable()
        if why is None and self.session.project.task.multi_label:  # its label sets are corrected in the table
            return error_text("review_multi_label", {}, "")
        return why

    def not_correctable(self) -> str | None:
        """Why the open project's rows cannot be corrected (in the user's words), or None."""
        project = self.session.project
        if project is None:
            return self.tr("Open a project first.")
        from ....core.operations.corrections import check_correctable

        try:
            check_correctable(project)
        except WorkbenchError as exc:
            return exception_text(exc)
        return None

    @Slot()
    def reset(self) -> None:
        if self._op is not None and self._op.running:
            self._op.cancel()
        self.rows, self.decisions = [], {}
        self.table.setRowCount(0)
        why = self.refusal()
        self.find_button.setEnabled(why is None)
        self.status.setText(why or "")
        self.label_combo.clear()
        if why is None:
            self.label_combo.addItems(list(self.session.project.task.labels))
            self._load_decisions()
        self._update_buttons()
        self._show_pending()

    @Slot()
    def _on_data_prepared(self) -> None:
        """A new data version: the list stays (its rows keep their ids), the labels and counts follow."""
        why = self.refusal()
        if why is not None:
            self.reset()
            return
        chosen = self.label_combo.currentText()
        self.label_combo.clear()
        self.label_combo.addItems(list(self.session.project.task.labels))
        self.label_combo.setCurrentText(chosen)
        self._load_decisions()
        self._show_pending()

    @Slot()
    def refresh_decisions(self) -> None:
        """Corrections made elsewhere (the data table): the list stays, its decisions follow."""
        if self.refusal() is not None:  # nothing to review, yet corrections to write (a multi-label project's)
            self._show_pending()
            return
        self._load_decisions()
        for i, row in enumerate(self.rows):
            item = self.table.item(i, DECISION)
            if item is not None:
                item.setText(self.decisions.get(row.get("row_id"), ""))
                self._paint(i)
        self._update_buttons()
        self._show_pending()

    def _load_decisions(self) -> None:
        from ....core import corrections

        try:
            recorded = corrections.load(self.session.project.root)
        except WorkbenchError as exc:
            self.status.setText(exception_text(exc))
            return
        self.decisions = {rid: self._decision_text(c.action, c.label) for rid, c in recorded.items()}

    def _decision_text(self, action: str, label: str | None) -> str:
        if action == "exclude":
            return self.tr("excluded")
        if action == "not_sure":
            return self.tr("not sure")
        return self.tr("→ {0}").format(label)

    def _show_pending(self) -> None:
        project = self.session.project
        n = 0
        if project is not None and self.not_correctable() is None:
            from ....core.operations.corrections import pending

            n = pending(project.root)
        self.apply_button.setEnabled(n > 0)
        self.pending_label.setText(
            self.tr("Corrections not in the data yet: {0}. They apply to the next data version, made here or "
                    "when you train again.").format(n) if n else
            (self.tr("Every correction is in the current data version.") if self.decisions else ""))

    # ----- finding
    def review_args(self) -> list[str]:
        return ["review", "--project", str(self.session.project.root), "--top", "200", "--json"]

    @Slot()
    def find(self):
        if self.refusal() is not None:
            return None
        op = self.background.command(self.review_args(), self.tr("Finding rows to review")).with_progress()
        self.find_button.setEnabled(False)
        self.status.setText(self.tr("Fitting models on the other rows…"))
        op.succeeded.connect(self._on_found)
        op.failed.connect(self._on_failed)
        op.finished.connect(lambda: self.find_button.setEnabled(self.refusal() is None))
        self._op = op
        return op.run()

    @Slot(object)
    def _on_found(self, result) -> None:
        rows = list((result or {}).get("rows") or [])
        self.rows = rows
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            why = "; ".join(reason_text(r) for r in row.get("reasons") or [])
            cells = [str(row.get("text", "")).replace("\n", " ⏎ "), str(row.get("label", "")),
                     str(row.get("suggested") or ""), f"{float(row.get('score') or 0):.2f}",
                     self.decisions.get(row.get("row_id"), ""), why]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (0, WHY):
                    item.setToolTip(str(row.get("text", "")) if c == 0 else why)
                if c == 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, c, item)
            self._paint(i)
        fm = self.table.fontMetrics()
        for c in (1, 2, 3, DECISION):  # short columns as wide as what they hold
            self.table.resizeColumnToContents(c)
        self.table.setColumnWidth(0, max(160, min(16 * fm.horizontalAdvance("中"), self.table.viewport().width() // 3)))
        self.status.setText(self.tr("{0} rows to review, most doubtful first ({1} rows read).").format(
            len(rows), f"{int((result or {}).get('rows_reviewed') or 0):,}") if rows else
            self.tr("No row's label looks wrong."))
        if rows:
            self.table.setCurrentCell(0, 0)
            self.table.setFocus()
        self._update_buttons()

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self.status.setText(message)

    # ----- deciding
    def current_row(self) -> dict | None:
        i = self.table.currentRow()
        return self.rows[i] if 0 <= i < len(self.rows) else None

    def _update_buttons(self) -> None:
        row = self.current_row()
        for b in (self.accept_button, self.set_button, self.not_sure_button, self.exclude_button, self.label_combo):
            b.setEnabled(row is not None)
        self.accept_button.setEnabled(row is not None and bool(row.get("suggested")))
        self.undo_button.setEnabled(row is not None and row.get("row_id") in self.decisions)
        if row is not None and row.get("suggested"):
            i = self.label_combo.findText(str(row["suggested"]))
            if i >= 0:
                self.label_combo.setCurrentIndex(i)

    @Slot()
    def accept_suggestion(self):
        row = self.current_row()
        if row is not None and row.get("suggested"):
            return self._decide(row, "label", str(row["suggested"]))
        return None

    @Slot()
    def set_chosen_label(self):
        row = self.current_row()
        label = self.label_combo.currentText().strip()
        if row is None or not label:
            return None
        if label not in self.session.project.task.labels and not self.confirm_new_label(label):
            return None
        return self._decide(row, "label", label)

    def confirm_new_label(self, label: str) -> bool:
        """Whether the person adds ``label``, which the project does not have, to its labels."""
        from PySide6.QtWidgets import QMessageBox

        answer = QMessageBox.question(self, self.tr("A new label"), self.tr(
            "The project has no label “{0}”. Add it to the project's labels? It takes part from the next data "
            "version on.").format(label))
        return answer == QMessageBox.StandardButton.Yes

    @Slot()
    def mark_not_sure(self):
        row = self.current_row()
        return self._decide(row, "not_sure", None) if row is not None else None

    @Slot()
    def exclude(self):
        row = self.current_row()
        return self._decide(row, "exclude", None) if row is not None else None

    @Slot()
    def undo(self):
        row = self.current_row()
        if row is None or row.get("row_id") not in self.decisions:
            return None
        return self._decide(row, "undo", None)

    def _decide(self, row: dict, action: str, label: str | None):
        """Record the decision in a background operation (it reads the prepared rows to check the
        id), then show it and go to the next row."""
        from ....core.operations.corrections import correct

        root, rid = self.session.project.root, str(row["row_id"])
        index = self.rows.index(row)

        def work(_ctx):
            if action == "undo":
                correct(root, undo=[rid], write_version=False)
            elif action == "not_sure":
                correct(root, not_sure=[rid], source="review", write_version=False)
            else:  # a new label was confirmed by the person (set_chosen_label)
                correct(root, [(rid, label)], source="review", write_version=False, add_labels=True)

        def done(_result):
            if action == "undo":
                self.decisions.pop(rid, None)
            else:
                self.decisions[rid] = self._decision_text(action, label)
            self.table.item(index, DECISION).setText(self.decisions.get(rid, ""))
            self._paint(index)
            if action != "undo" and index + 1 < len(self.rows):
                self.table.setCurrentCell(index + 1, self.table.currentColumn())
            self._update_buttons()
            self._show_pending()
            self.corrections_changed.emit()

        def failed(exc):
            self.status.setText(describe_error(exc)[0])

        return self.background.op(work, self.tr("Recording your correction")).on_success(done).on_failure(
            failed).run()

    def _paint(self, index: int) -> None:
        decided = self.rows[index].get("row_id") in self.decisions
        for c in range(COLUMNS):
            item = self.table.item(index, c)
            if item is not None:
                item.setBackground(QBrush(DECIDED) if decided else QBrush())

    @Slot()
    def apply(self):
        """Write the data version the corrections make; new runs train on it."""
        from ....core.operations.corrections import rebuild
        from ....core.project import Project

        root = self.session.project.root

        def done(applied):
            self.session.reload()  # the current version and the label counts changed
            self.status.setText(self.tr("Data version {0}: {1} labels corrected, {2} rows excluded. New runs "
                                        "train on it.").format(applied.version, applied.corrected, applied.excluded))
            self.corrections_changed.emit()

        def failed(exc):
            self.status.setText(describe_error(exc)[0])

        return self.background.op(lambda _ctx: rebuild(Project.open(root)),
                                  self.tr("Making the next data version")).on_success(done).on_failure(failed).run()
