"""Good / Bad / a better answer for the playground's answer and for the Evaluate page's samples,
recorded through pages/evaluate/judging.py. A rated answer shows its rating (the buttons'
checked state; a mark in the samples' "your rating" column), looked up in the judgements in force
(core.feedback.ratings_in_force), so an answer met again, in the playground or in a later
evaluation, shows the rating given before."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
from PySide6.QtCore import QModelIndex, QObject, Signal, Slot
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QPushButton, QTableView, QWidget

from ....core import feedback
from ....core.feedback import Judgement
from ...session import ProjectSession
from ...table_model import DataFrameTableModel
from .judging import (
    AnswerRef, JudgementRecorder, RatingButtons, ask_better_answer, empty_answer_reason, rate, rewrite, writes_answers,
)

RATING_COLUMN = "your_rating"  # the samples' column of the person's ratings (not in predictions.csv)
GOOD = QColor(46, 160, 67, 80)
BAD = QColor(218, 54, 51, 80)


def _ratings(session: ProjectSession) -> dict[tuple[str, str, str], Judgement]:
    if session.project is None:
        return {}
    return feedback.ratings_in_force(feedback.load(session.project.root))


class PlaygroundRating(QWidget):
    """Below the playground's answer: rate it, write a better one, or compare two answers to the
    question (pages/evaluate/compare.py)."""

    compare = Signal(str)  # the question typed, to sample two answers to

    def __init__(self, session: ProjectSession, recorder: JudgementRecorder, playground, parent=None):
        super().__init__(parent)
        self.session = session
        self.recorder = recorder
        self.playground = playground
        self.ref: AnswerRef | None = None
        self.current: Judgement | None = None  # the answer's rating in force
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.buttons = RatingButtons()
        self.buttons.good.connect(lambda: self._rate(1))
        self.buttons.bad.connect(lambda: self._rate(-1))
        self.buttons.better.connect(self._better)
        self.compare_button = QPushButton(self.tr("Compare two answers"))
        self.compare_button.setToolTip(self.tr("Sample two answers to this question side by side and choose the "
                                               "better one"))
        self.compare_button.clicked.connect(self._on_compare_clicked)
        lay.addWidget(self.buttons, 1)
        lay.addWidget(self.compare_button)
        playground.below.addWidget(self)
        playground.asked.connect(self._on_asked)
        playground.answered.connect(self._on_answered)
        session.feedback_changed.connect(self.refresh)
        self._on_asked()

    @Slot()
    def _on_asked(self) -> None:
        self.ref, self.current = None, None
        self.buttons.show_rating(None)
        self.buttons.set_available(False)

    @Slot()
    def _on_answered(self) -> None:
        done = self.playground.done or {}
        text = str(done.get("text") or "").strip()
        if not done.get("user") or not writes_answers(self.session.project):
            return  # failed, or an engine without what a judgement records
        if not text:
            self.buttons.set_available(False, empty_answer_reason())
            return
        self.ref = AnswerRef(prompt=done["user"], answer=text, run=done.get("run"),
                             checkpoint=done.get("checkpoint"), generation=done.get("generation"))
        self.buttons.set_available(True)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        if self.ref is None or self.recorder.busy:
            return  # the last write's signal comes once all are written
        self.current = _ratings(self.session).get(self.ref.key)
        self.buttons.show_rating(self.current)

    def _rate(self, value: int) -> None:
        if self.ref is not None:
            self.current = rate(self.recorder, self.ref, self.current, value)
        self.buttons.show_rating(self.current)

    def _better(self):
        """Open the better-answer dialog for the answer shown; returns it (None: no answer)."""
        if self.ref is None:
            return None
        ref, current = self.ref, self.current

        def done(text: str) -> None:
            if self.ref is ref:
                self.current = rewrite(self.recorder, ref, self.current, text)
                self.buttons.show_rating(self.current)
            else:  # another question was asked meanwhile: recorded all the same
                rewrite(self.recorder, ref, current, text)

        return ask_better_answer(self, ref.prompt, [ref.answer], done,
                                 start=current.rewrite if current is not None and current.rewrite else "")

    @Slot()
    def _on_compare_clicked(self) -> None:
        text = self.playground.prompt_edit.text().strip()
        if text:
            self.compare.emit(text)

    def set_available(self, available: bool) -> None:
        """A run is chosen: a question can be compared."""
        self.compare_button.setEnabled(available)


class SampleRatings(QObject):
    """The ratings of the answers the samples table shows (``model`` over an evaluation's
    predictions, with a "your rating" column): the buttons acting on the selected row, the
    items of the row's menu and the marks."""

    def __init__(self, session: ProjectSession, recorder: JudgementRecorder, view: QTableView,
                 model: DataFrameTableModel, parent=None):
        super().__init__(parent or view)
        self.session = session
        self.recorder = recorder
        self.view = view
        self.model = model
        self.predictions = pd.DataFrame()
        self.run: str | None = None
        self.checkpoint: str | None = None
        self.generation: dict | None = None
        self.column = -1  # the shown column of the ratings; -1: the rows are not rated here
        self.items: dict[tuple[str, str, str], Judgement] = {}
        self.bar = QWidget()  # above the table: the selected answer's buttons
        lay = QHBoxLayout(self.bar)
        lay.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel(self.tr("The selected answer:"))
        self.buttons = RatingButtons()
        self.buttons.good.connect(lambda: self.rate_row(self._current_row(), 1))
        self.buttons.bad.connect(lambda: self.rate_row(self._current_row(), -1))
        self.buttons.better.connect(lambda: self.better_row(self._current_row()))
        lay.addWidget(self.label)
        lay.addWidget(self.buttons, 1)
        self.bar.hide()
        session.feedback_changed.connect(self.refresh)

    # ------------------------------------------------------------------ what is shown
    def shown_frame(self, shown: pd.DataFrame, result: dict | None) -> pd.DataFrame:
        """``shown`` with the "your rating" column after the model's answer, where the project
        writes answers and the evaluation has them."""
        if (not writes_answers(self.session.project) or (result or {}).get("task") != "instruction"
                or "prediction" not in shown.columns):
            return shown
        shown = shown.copy()
        shown.insert(list(shown.columns).index("prediction") + 1, RATING_COLUMN, "")
        return shown

    def show(self, predictions: pd.DataFrame, result: dict | None, column: int) -> None:
        """The rows of an evaluation; ``column``: the shown "your rating" column (-1: none)."""
        result = result or {}
        self.predictions = predictions
        self.column = column if {"input", "prediction"} <= set(predictions.columns) else -1
        self.run, self.checkpoint = result.get("run"), result.get("source")
        self.generation = result.get("generation")
        self.bar.setVisible(self.column >= 0)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        if self.recorder.busy:
            return
        self.items = _ratings(self.session) if self.column >= 0 else {}
        self._show_marks()

    def ref(self, position: int) -> AnswerRef:
        row = self.predictions.iloc[position]
        reference = str(row["reference"]) if "reference" in self.predictions.columns else ""
        return AnswerRef(prompt=str(row["input"]), answer=str(row["prediction"]), run=self.run,
                         checkpoint=self.checkpoint, generation=self.generation, reference=reference or None)

    def rating(self, position: int) -> Judgement | None:
        return self.items.get(self.ref(position).key)

    def _show_marks(self) -> None:
        notes = {}
        if self.column >= 0:
            for pos in range(len(self.predictions)):
                j = self.rating(pos)
                if j is None:
                    continue
                text = self.tr("good") if j.rating == 1 else self.tr("bad")
                tip = self.tr("You rated this answer good.") if j.rating == 1 else self.tr("You rated this answer bad.")
                if j.rewrite:
                    text = self.tr("{0}, rewritten").format(text)
                    tip = self.tr("{0} Your answer: {1}").format(tip, j.rewrite)
                notes[(pos, self.column)] = (text, GOOD if j.rating == 1 else BAD, tip)
        self.model.set_cell_notes(notes, layer="ratings")
        self._show_buttons()

    def _current_row(self) -> int:
        index = self.view.currentIndex()
        return index.row() if index.isValid() else -1

    @Slot()
    def _show_buttons(self, *_args) -> None:
        row = self._current_row()
        available = self.column >= 0 and 0 <= row < self.model.rowCount()
        empty = available and not self.ref(self.model.position(row)).answer.strip()
        self.buttons.set_available(available and not empty, empty_answer_reason() if empty else "")
        self.buttons.show_rating(self.rating(self.model.position(row)) if available else None)

    def connect_selection(self) -> None:
        """Follow the table's current row (its selection model is the view's own)."""
        self.view.selectionModel().currentRowChanged.connect(self._on_current_row_changed)

    @Slot(QModelIndex, QModelIndex)
    def _on_current_row_changed(self, _now, _before) -> None:
        self._show_buttons()

    # ------------------------------------------------------------------ recording
    def _ratable(self, row: int) -> bool:
        return (self.column >= 0 and 0 <= row < self.model.rowCount()
                and bool(self.ref(self.model.position(row)).answer.strip()))

    def rate_row(self, row: int, value: int) -> None:
        """Rate the answer of view row ``row`` good (1) or bad (-1); the same again takes it back."""
        if not self._ratable(row):
            return
        ref = self.ref(self.model.position(row))
        self._keep(ref, rate(self.recorder, ref, self.items.get(ref.key), value))

    def better_row(self, row: int):
        if not self._ratable(row):
            return None
        ref = self.ref(self.model.position(row))
        current = self.items.get(ref.key)
        start = current.rewrite if current is not None and current.rewrite else ""
        return ask_better_answer(self.view, ref.prompt, [ref.answer],
                                 lambda text: self._keep(ref, rewrite(self.recorder, ref, self.items.get(ref.key), text)),
                                 start=start)

    def _keep(self, ref: AnswerRef, j: Judgement | None) -> None:
        if j is None:
            self.items.pop(ref.key, None)
        else:
            self.items[ref.key] = j
        self._show_marks()

    def add_to_menu(self, menu: QMenu, row: int) -> None:
        """The rating items at the top of a row's menu (pages/evaluate/corrections.py)."""
        if not self._ratable(row):
            return  # no items for an empty answer; the bar above the table says why
        j = self.rating(self.model.position(row))
        first = menu.actions()[0] if menu.actions() else None
        items: list[tuple[str, Callable[[], object], bool]] = [
            (self.tr("Good answer"), lambda: self.rate_row(row, 1), j is not None and j.rating == 1),
            (self.tr("Bad answer"), lambda: self.rate_row(row, -1), j is not None and j.rating == -1),
            (self.tr("Write a better answer…"), lambda: self.better_row(row), False)]
        for text, act, checked in items:
            action = menu.addAction(text)
            action.setCheckable(checked)
            action.setChecked(checked)
            action.triggered.connect(lambda _=False, act=act: act())
            if first is not None:
                menu.removeAction(action)
                menu.insertAction(first, action)
        if j is not None:
            take_back = menu.addAction(self.tr("Take back my rating"))
            take_back.triggered.connect(lambda _=False: self.rate_row(row, j.rating))
            if first is not None:
                menu.removeAction(take_back)
                menu.insertAction(first, take_back)
        if first is not None:
            menu.insertSeparator(first)
