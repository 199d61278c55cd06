"""The Evaluate page's Feedback tab: the judgements in force (core.operations.preference.listing),
counted per run, the preference pairs they make, and taking a judgement back."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout,
    QWidget,
)

from ....core.errors import WorkbenchError
from ....core.feedback import Judgement
from ....core.operations.preference import Listing, listing
from ...error_texts import exception_text
from ...session import ProjectSession
from .judging import JudgementRecorder, writes_answers

SHOWN_CHARS = 200  # of a question or an answer in a cell; the tooltip has it whole


def _clip(text: str | None) -> str:
    text = (text or "").replace("\n", " ⏎ ")
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1] + "…"


class FeedbackTab(QWidget):
    def __init__(self, session: ProjectSession, recorder: JudgementRecorder, parent=None):
        super().__init__(parent)
        self.session = session
        self.recorder = recorder
        self.shown: Listing | None = None
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.counts_table = QTableWidget(0, 6)
        self.counts_table.setHorizontalHeaderLabels([self.tr("Run"), self.tr("Choices"), self.tr("Ties"),
                                                     self.tr("Good"), self.tr("Bad"), self.tr("Better answers")])
        self.counts_table.verticalHeader().hide()
        self.counts_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.counts_table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels([self.tr("When"), self.tr("Run"), self.tr("Question"),
                                              self.tr("Answers judged"), self.tr("Judgement"),
                                              self.tr("Your better answer")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        head = self.table.horizontalHeader()
        head.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for column, width in enumerate((120, 130, 240, 300, 110)):  # the better answer: the rest
            self.table.setColumnWidth(column, width)
        head.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._on_selection_changed)
        self.undo_button = QPushButton(self.tr("Take back the selected judgements"))
        self.undo_button.setEnabled(False)
        self.undo_button.clicked.connect(self.undo_selected)
        self.hint = QLabel(self.tr("Taking a judgement back leaves it in the project's records, marked as taken "
                                   "back: it no longer counts or trains."))
        self.hint.setObjectName("hint")
        self.hint.setWordWrap(True)

        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.counts_table)
        lay.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(self.hint, 1)
        row.addWidget(self.undo_button)
        lay.addLayout(row)
        session.feedback_changed.connect(self.refresh)
        session.project_changed.connect(self.refresh)
        self.refresh()

    # ------------------------------------------------------------------ what is shown
    @Slot()
    def refresh(self) -> None:
        project = self.session.project
        self.shown = None
        if writes_answers(project):
            try:
                self.shown = listing(project.root)
            except (WorkbenchError, OSError) as exc:
                self.summary.setText(exception_text(exc))
                self._fill([], {})
                return
        items = self.shown.judgements if self.shown else []
        self._fill(items, self.shown.counts if self.shown else {})
        self.summary.setText(self._summary_text())

    def _summary_text(self) -> str:
        if self.shown is None or not self.shown.judgements:
            return self.tr("No judgements yet. Rate the model's answers on the Samples or Playground tab, or compare "
                           "two answers to a question: what you judge appears here.")
        pc = self.shown.pair_counts
        text = self.tr("Judgements in force: {0}. Preference pairs they make to tune on: {1} ({2} from choices, "
                       "{3} from better answers, {4} from good and bad answers to the same question).").format(
            len(self.shown.judgements), pc.pairs, pc.from_choices, pc.from_rewrites, pc.from_ratings)
        if pc.unpaired_good:  # a line of its own: a language switch converts the lines one by one
            text += "\n" + self.tr("Answers rated good with no bad answer to the same question beside them make no "
                                  "pair: {0}.").format(pc.unpaired_good)
        return text

    def _fill(self, items: list[Judgement], counts: dict[str, dict[str, int]]) -> None:
        self.counts_table.setRowCount(len(counts))
        for r, (run, c) in enumerate(sorted(counts.items())):
            values = [run or self.tr("(no run)"), c["choices"], c["ties"], c["good"], c["bad"], c["rewrites"]]
            for column, value in enumerate(values):
                item = QTableWidgetItem(str(value))
                if column:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.counts_table.setItem(r, column, item)
        self.counts_table.setVisible(bool(counts))
        rows = self.counts_table.rowCount()
        self.counts_table.setFixedHeight(self.counts_table.horizontalHeader().sizeHint().height()
                                         + sum(self.counts_table.rowHeight(i) for i in range(rows)) + 4)
        ordered = sorted(items, key=lambda j: j.at, reverse=True)  # the newest first
        # rows move when one is taken back: a selection kept would be of other judgements
        self.table.clearSelection()
        self.table.setRowCount(len(ordered))
        for r, j in enumerate(ordered):
            when = QTableWidgetItem(time.strftime("%Y-%m-%d %H:%M", time.localtime(j.at)))
            when.setData(Qt.ItemDataRole.UserRole, j.id)
            if j.kind == "choice":
                judged = "\n".join(f"{i + 1}: {_clip(a)}" for i, a in enumerate(j.answers))
                verdict = {"a": self.tr("answer 1 is better"), "b": self.tr("answer 2 is better"),
                           "tie": self.tr("a tie")}.get(j.choice or "", "")
            else:
                judged = _clip(j.answers[0])
                verdict = self.tr("good") if j.rating == 1 else self.tr("bad")
            cells = [when, QTableWidgetItem(j.run or ""), QTableWidgetItem(_clip(j.prompt)), QTableWidgetItem(judged),
                     QTableWidgetItem(verdict), QTableWidgetItem(_clip(j.rewrite))]
            full = [None, j.checkpoint and f"{j.run or ''} · {j.checkpoint}", j.prompt,
                    "\n\n".join(j.answers), None, j.rewrite]
            for column, item in enumerate(cells):
                if full[column]:
                    item.setToolTip(full[column])
                self.table.setItem(r, column, item)
        self.table.resizeRowsToContents()
        self._on_selection_changed()

    # ------------------------------------------------------------------ taking back
    def selected_ids(self) -> list[str]:
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return [self.table.item(r, 0).data(Qt.ItemDataRole.UserRole) for r in rows]

    @Slot()
    def _on_selection_changed(self) -> None:
        self.undo_button.setEnabled(bool(self.selected_ids()))

    @Slot()
    def undo_selected(self) -> None:
        ids = self.selected_ids()
        if ids:
            self.undo_button.setEnabled(False)
            self.recorder.undo(ids)
