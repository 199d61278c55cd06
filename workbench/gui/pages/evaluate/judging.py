"""Recording the person's judgements of a run's answers from the window: good or bad, a better
answer written in place of the model's, a choice between two answers (pages/evaluate/compare.py).

For projects that write answers only (core.operations.preference.check_instruction). Each
judgement is recorded at once through core (core/feedback.py: append-only, under a lock), one
write after another in the order given, off the UI thread; a changed mind takes back the judgement
it replaces (an undo line) and records the new one. Every write ends with the session's
``feedback_changed``, which the Feedback tab and the marks on the answers follow.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot
from PySide6.QtWidgets import (
    QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget,
)

from ....core import feedback
from ....core.errors import WorkbenchError
from ....core.feedback import Judgement
from ....core.operations.preference import check_instruction
from ...background import BackgroundWork
from ...session import ProjectSession

SOURCE = "window"  # a judgement's "source": where the person gave it


def writes_answers(project) -> bool:
    """Whether ``project``'s answers can be judged: it writes answers (core decides)."""
    if project is None:
        return False
    try:
        check_instruction(project)
    except WorkbenchError:
        return False
    return True


@dataclass
class AnswerRef:
    """One answer to judge and what wrote it."""

    prompt: str  # the question as the model's user turn read it
    answer: str
    run: str | None = None
    checkpoint: str | None = None
    generation: dict[str, Any] | None = None
    reference: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """As core.feedback.ratings_in_force keys the ratings."""
        return self.run or "", self.prompt, self.answer

    def rating(self, value: int, rewrite: str | None = None) -> Judgement:
        return Judgement(kind="rating", prompt=self.prompt, answers=[self.answer], rating=value, rewrite=rewrite,
                         reference=self.reference, run=self.run, checkpoint=self.checkpoint,
                         generation=self.generation, source=SOURCE)


class JudgementRecorder(QObject):
    """Writes judgements (and takes them back) through core, one write at a time, in order: a
    replacement's undo never runs before the line it takes back was written."""

    recorded = Signal()  # a write ended (recorded, or failed and said so)

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
        self._waiting: deque[Callable[[], None]] = deque()
        self._running = False

    @property
    def busy(self) -> bool:
        """A write is running or waiting: what is recorded is not yet what the window shows."""
        return self._running or bool(self._waiting)

    def record(self, new: Sequence[Judgement], replaces: Sequence[str] = ()) -> None:
        """Take back the judgements ``replaces`` names, then record ``new``."""
        if self.session.project is None:
            return
        root, new, replaces = self.session.project.root, list(new), list(replaces)

        def work(_ctx):
            for old in replaces:
                try:
                    feedback.undo(root, old)
                except WorkbenchError as exc:  # taken back already (the Feedback tab): gone either way
                    if exc.code not in ("feedback_already_undone", "feedback_unknown_id"):
                        raise
            if new:
                feedback.append(root, new)

        self._waiting.append(lambda: self._run(work))
        if not self._running:
            self._next()

    def undo(self, ids: Sequence[str]) -> None:
        self.record([], replaces=ids)

    def _run(self, work) -> None:
        op = self.background.op(work, self.tr("Recording your judgement"))
        op.on_failure(lambda exc: self.background.show_error(self.tr("The judgement was not recorded"), exc))
        op.finished.connect(self._on_finished)
        op.run()

    def _next(self) -> None:
        self._running = bool(self._waiting)
        if self._waiting:
            self._waiting.popleft()()

    @Slot()
    def _on_finished(self) -> None:
        self._next()
        self.recorded.emit()
        if not self.busy:  # the views read the file back once it holds everything asked
            self.session.feedback_changed.emit()


class BetterAnswerDialog(QDialog):
    """The question, the model's answer (or two), and an editor for the person's own answer."""

    def __init__(self, question: str, answers: Sequence[str], start: str = "", parent=None):
        """``start``: the editor's first text (the person's earlier answer); empty, "Start from this
        answer" copies one in to be edited."""
        super().__init__(parent)
        self.setWindowTitle(self.tr("Write a better answer"))
        self.resize(720, 560)
        self.answers = [a.strip() for a in answers]
        v = QVBoxLayout(self)
        v.addWidget(self._title(self.tr("Question")))
        v.addWidget(self._text(question, 3))
        for i, answer in enumerate(answers):
            title = self.tr("The model's answer") if len(answers) == 1 else self.tr("Answer {0}").format(i + 1)
            row = QHBoxLayout()
            row.addWidget(self._title(title), 1)
            use = QPushButton(self.tr("Start from this answer"))
            use.clicked.connect(lambda _=False, a=answer: self.editor.setPlainText(a))
            row.addWidget(use)
            v.addLayout(row)
            v.addWidget(self._text(answer, 4))
        v.addWidget(self._title(self.tr("Your answer")))
        self.editor = QPlainTextEdit(start)
        self.editor.setPlaceholderText(self.tr("The answer the model should have given"))
        self.editor.textChanged.connect(self._on_text_changed)
        v.addWidget(self.editor, 2)
        self.note = QLabel()
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        v.addWidget(self.note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Record my answer"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        v.addWidget(self.buttons)
        self._on_text_changed()
        self.editor.setFocus()

    @staticmethod
    def _title(text: str) -> QLabel:
        label = QLabel(text)
        label.setObjectName("sectionTitle")
        return label

    @staticmethod
    def _text(text: str, lines: int) -> QPlainTextEdit:
        box = QPlainTextEdit(text)
        box.setReadOnly(True)
        box.setMaximumHeight(box.fontMetrics().lineSpacing() * lines + 14)
        return box

    def text(self) -> str:
        return self.editor.toPlainText().strip()

    @Slot()
    def _on_text_changed(self) -> None:
        text = self.text()
        same = bool(text) and text in self.answers
        self.note.setText(self.tr("Your answer is the model's answer word for word: change it, or rate the "
                                  "answer good instead.") if same else "")
        self.note.setVisible(same)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(text) and not same)


def ask_better_answer(parent: QWidget, question: str, answers: Sequence[str], done: Callable[[str], None],
                      start: str = "") -> BetterAnswerDialog:
    """Open the dialog (window-modal, the event loop runs on); ``done`` gets the person's answer."""
    dialog = BetterAnswerDialog(question, answers, start, parent)
    dialog.accepted.connect(lambda: done(dialog.text()))
    dialog.finished.connect(dialog.deleteLater)
    dialog.open()
    return dialog


class RatingButtons(QWidget):
    """Good / Bad (checked: the rating in force) and "Write a better answer…" for one answer."""

    good = Signal()
    bad = Signal()
    better = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.good_button = QPushButton(self.tr("Good"))
        self.bad_button = QPushButton(self.tr("Bad"))
        self.better_button = QPushButton(self.tr("Write a better answer…"))
        self.why_label = QLabel()  # why the buttons are off, where that is not plain to see
        self.why_label.setObjectName("hint")
        self.why_label.setWordWrap(True)  # on one line it widened the window past a laptop's screen
        self.why_label.hide()
        for button, signal in ((self.good_button, self.good), (self.bad_button, self.bad),
                               (self.better_button, self.better)):
            button.setToolTip(self._tips()[button])
            button.clicked.connect(signal)
            lay.addWidget(button)
        lay.addWidget(self.why_label, 1)  # the room beside the buttons, when it shows
        lay.addStretch(0)  # else that room stays empty: the buttons keep their size
        for button in (self.good_button, self.bad_button):
            button.setCheckable(True)

    def _tips(self) -> dict[QPushButton, str]:  # looked up when set: the language may have changed
        return {self.good_button: self.tr("This answer is good. Click again to take the rating back."),
                self.bad_button: self.tr("This answer is bad. Click again to take the rating back."),
                self.better_button: self.tr("Write the answer the model should have given: tuning on your "
                                            "judgements prefers it to the model's.")}

    def show_rating(self, j: Judgement | None) -> None:
        self.good_button.setChecked(j is not None and j.rating == 1)
        self.bad_button.setChecked(j is not None and j.rating == -1)
        self.better_button.setText(self.tr("Edit my better answer…") if j is not None and j.rewrite
                                   else self.tr("Write a better answer…"))

    def set_available(self, available: bool, why: str = "") -> None:
        """Turn the buttons on or off; ``why``: the reason they are off, shown beside them."""
        for button in (self.good_button, self.bad_button, self.better_button):
            button.setEnabled(available)
            button.setToolTip(self._tips()[button] if available or not why else why)
        self.why_label.setText(why)
        self.why_label.setVisible(bool(why) and not available)


def empty_answer_reason() -> str:
    """Why an empty answer has no rating buttons: a judgement needs an answer to weigh (core.feedback)."""
    return QCoreApplication.translate(
        "RatingButtons", "The answer is empty, so there is nothing to rate. Compare two sampled answers to the "
        "question instead, or train longer: a model that ends its turn at once has not learnt to answer yet.")


def rate(recorder: JudgementRecorder, ref: AnswerRef, current: Judgement | None, value: int) -> Judgement | None:
    """Rate ``ref`` good (1) or bad (-1) in place of its rating in force, ``current``; the same
    rating again takes it back. A better answer written for it stays with the new rating.
    Returns the rating now in force."""
    if current is not None and current.rating == value:
        recorder.undo([current.id])
        return None
    new = ref.rating(value, current.rewrite if current is not None else None)
    recorder.record([new], replaces=[current.id] if current is not None else [])
    return new


def rewrite(recorder: JudgementRecorder, ref: AnswerRef, current: Judgement | None, text: str) -> Judgement:
    """Record the person's better answer to ``ref``: a bad rating with the rewrite, or a good one
    where they rated the answer good (core.preference pairs the rewrite against the answer
    either way)."""
    value = 1 if current is not None and current.rating == 1 else -1
    new = ref.rating(value, text)
    recorder.record([new], replaces=[current.id] if current is not None else [])
    return new
