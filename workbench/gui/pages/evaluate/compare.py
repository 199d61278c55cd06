"""Comparison mode and the review queue: two sampled answers to a question side by side, and the
person picks one, calls it a tie, writes a better one or skips it (keys 1 / 2 / = / e / s).

The pairs come from ``workbench feedback pairs --json`` in a child process (the window never
loads a model): N questions of the training or validation rows or of a JSON-lines file, or one
question typed in the playground (``--question``). The child remembers them in the project
(core.feedback.remember_pairs), so each choice is recorded from the pair as core knows it
(``feedback.choose``, ``feedback.rewrite_pair``) with the run, checkpoint and sampling settings
that wrote the answers.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox, QFileDialog, QGroupBox, QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QSpinBox,
    QStackedWidget, QVBoxLayout, QWidget,
)

from ....core import feedback
from ....core.feedback import AnswerPair
from ...background import BackgroundWork, OpProgress
from ...session import ProjectSession
from .judging import SOURCE, JudgementRecorder, ask_better_answer

DEFAULT_QUESTIONS = 20
# what each key does: the buttons' keys and the verdicts they record
KEYS = {"a": "1", "b": "2", "tie": "=", "rewrite": "E", "skip": "S"}


def new_seed() -> int:
    """A seed for each sampling: the questions and answers of the next batch are new ones, not
    the last batch again (the command's own default seed is fixed, for scripts)."""
    return random.randrange(1, 2**31)


class PairPanel(QWidget):
    """One pair at a time from a list, with the keys; skipped pairs are come back to."""

    judged = Signal(str)  # the pair id

    def __init__(self, recorder: JudgementRecorder, parent=None):
        super().__init__(parent)
        self.recorder = recorder
        self.pairs: list[AnswerPair] = []
        self.verdicts: dict[str, tuple[str, list[str]]] = {}  # pair id -> (verdict, judgement ids in force)
        self.skipped: set[str] = set()
        self.index = -1  # the pair shown; -1: the end of the list
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

        self.position = QLabel()
        self.position.setObjectName("sectionTitle")
        self.question = self._box(4)
        self.reference = QLabel()
        self.reference.setObjectName("hint")
        self.reference.setWordWrap(True)
        self.reference.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.identical = QLabel(self.tr("The two answers are the same text: call it a tie, write a better one, or "
                                        "skip it."))
        self.identical.setObjectName("warning")
        self.identical.setWordWrap(True)
        self.answer_boxes = [self._box(0), self._box(0)]
        answers = QHBoxLayout()
        for i, box in enumerate(self.answer_boxes):
            group = QGroupBox(self.tr("Answer {0}").format(i + 1))
            QVBoxLayout(group).addWidget(box)
            answers.addWidget(group, 1)
        self.verdict = QLabel()
        self.verdict.setObjectName("ok")

        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        self.back_button = QPushButton(self.tr("‹ Previous"))
        self.back_button.clicked.connect(self.previous)
        row.addWidget(self.back_button)
        row.addStretch(1)
        for verdict, text in (("a", self.tr("Answer 1 is better (1)")), ("b", self.tr("Answer 2 is better (2)")),
                              ("tie", self.tr("Tie (=)")), ("rewrite", self.tr("Write a better answer… (E)")),
                              ("skip", self.tr("Skip (S)"))):
            button = QPushButton(text)
            button.setCheckable(verdict in ("a", "b", "tie"))
            button.clicked.connect(lambda _=False, v=verdict: self.act(v))
            row.addWidget(button)
            self.buttons[verdict] = button
            shortcut = QShortcut(QKeySequence(KEYS[verdict]), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(lambda v=verdict: self.act(v))
        self.buttons["rewrite"].setToolTip(self.tr("Both answers fall short: write the answer the model should give. "
                                                   "Tuning prefers yours to each of them."))

        self.pair_view = QWidget()
        pv = QVBoxLayout(self.pair_view)
        pv.setContentsMargins(0, 0, 0, 0)
        pv.addWidget(self.question)
        pv.addWidget(self.reference)
        pv.addWidget(self.identical)
        pv.addLayout(answers, 1)
        pv.addWidget(self.verdict)
        self.end_view = QWidget()
        ev = QVBoxLayout(self.end_view)
        self.end_text = QLabel()
        self.end_text.setWordWrap(True)
        self.again_button = QPushButton(self.tr("Go through the skipped ones"))
        self.again_button.clicked.connect(self.revisit_skipped)
        ev.addWidget(self.end_text)
        ev.addWidget(self.again_button, 0, Qt.AlignmentFlag.AlignLeft)
        ev.addStretch(1)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.pair_view)
        self.stack.addWidget(self.end_view)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.position)
        lay.addWidget(self.stack, 1)
        lay.addLayout(row)

    @staticmethod
    def _box(lines: int) -> QPlainTextEdit:
        box = QPlainTextEdit()
        box.setReadOnly(True)
        box.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # the keys stay the panel's
        if lines:
            box.setMaximumHeight(box.fontMetrics().lineSpacing() * lines + 14)
        return box

    # ------------------------------------------------------------------ the list
    def set_pairs(self, pairs: list[AnswerPair]) -> None:
        self.pairs, self.verdicts, self.skipped = list(pairs), {}, set()
        self.index = 0 if self.pairs else -1
        self.show_current()
        self.setFocus()

    @property
    def current(self) -> AnswerPair | None:
        return self.pairs[self.index] if 0 <= self.index < len(self.pairs) else None

    def _open(self) -> list[int]:
        """Positions of the pairs neither judged nor skipped."""
        return [i for i, p in enumerate(self.pairs) if p.pair_id not in self.verdicts and p.pair_id not in self.skipped]

    def _advance(self) -> None:
        waiting = self._open()
        later = [i for i in waiting if i > self.index]
        self.index = later[0] if later else waiting[0] if waiting else -1
        self.show_current()

    @Slot()
    def previous(self) -> None:
        if self.pairs:
            self.index = (self.index if self.index >= 0 else len(self.pairs)) - 1
            self.index = max(self.index, 0)
            self.show_current()

    @Slot()
    def revisit_skipped(self) -> None:
        self.skipped.clear()
        self.index = -1
        self._advance()
        self.setFocus()

    def show_current(self) -> None:
        n, judged, skipped = len(self.pairs), len(self.verdicts), len(self.skipped)
        pair = self.current
        counts = self.tr("{0} judged, {1} skipped").format(judged, skipped)
        self.back_button.setEnabled(bool(self.pairs) and self.index != 0)
        for verdict, button in self.buttons.items():
            button.setEnabled(pair is not None and not (pair.identical and verdict in ("a", "b")))
        if pair is None:
            self.position.setText(self.tr("Judged {0} of {1}, skipped {2}").format(judged, n, skipped) if n else "")
            if skipped:
                self.end_text.setText(self.tr("You went through every question and skipped {0} of {1}. Go through "
                                              "the skipped ones now, or later from here.").format(skipped, n))
            else:
                self.end_text.setText(self.tr("Every question is judged. Your judgements are on the Feedback tab."))
            self.again_button.setVisible(bool(skipped))
            self.stack.setCurrentWidget(self.end_view)
            for button in self.buttons.values():
                button.setChecked(False)
            return
        self.position.setText(self.tr("Question {0} of {1}").format(self.index + 1, n) + " · " + counts)
        self.question.setPlainText(pair.prompt)
        self.reference.setText(self.tr("The answer in the data: {0}").format(pair.reference) if pair.reference else "")
        self.reference.setVisible(bool(pair.reference))
        self.identical.setVisible(pair.identical)
        for box, text in zip(self.answer_boxes, (pair.a, pair.b)):
            box.setPlainText(text)
        verdict = self.verdicts.get(pair.pair_id, (None, []))[0]
        for key in ("a", "b", "tie"):
            self.buttons[key].setChecked(verdict == key)
        self.verdict.setText({"a": self.tr("You chose answer 1."), "b": self.tr("You chose answer 2."),
                              "tie": self.tr("You called it a tie."),
                              "rewrite": self.tr("You wrote a better answer.")}.get(verdict, "")
                             if pair.pair_id not in self.skipped else self.tr("You skipped this question."))
        self.stack.setCurrentWidget(self.pair_view)

    # ------------------------------------------------------------------ judging
    def act(self, verdict: str):
        """What a key or button does: choose ("a", "b", "tie"), "rewrite" or "skip"."""
        pair = self.current
        if pair is None or not self.buttons[verdict].isEnabled():
            return None
        if verdict == "skip":
            self.skipped.add(pair.pair_id)
            self._advance()
            return None
        if verdict == "rewrite":
            dialog = ask_better_answer(self, pair.prompt, [pair.a] if pair.identical else [pair.a, pair.b],
                                       lambda text: self._record(pair, "rewrite", text))
            # the keys go on working once it closes (Qt gives the focus back to where it was)
            dialog.finished.connect(lambda _result: QTimer.singleShot(0, self._take_keys))
            return dialog
        self._record(pair, verdict)
        return None

    @Slot()
    def _take_keys(self) -> None:
        self.window().activateWindow()
        self.setFocus()

    def _record(self, pair: AnswerPair, verdict: str, text: str = "") -> None:
        # a better answer is recorded as both answers rated bad with it, so tuning prefers it to
        # each (core.feedback.rewrite_pair); a choice as the choice (core.feedback.choose)
        new = feedback.rewrite_pair(pair, text, SOURCE) if verdict == "rewrite" else [
            feedback.choose(pair, verdict, SOURCE)]
        if not new:
            return
        before = self.verdicts.get(pair.pair_id, (None, []))[1]
        self.recorder.record(new, replaces=before)
        self.verdicts[pair.pair_id] = (verdict, [j.id for j in new])
        self.skipped.discard(pair.pair_id)
        self.judged.emit(pair.pair_id)
        if self.current is pair:
            self._advance()
        self.setFocus()


class CompareTab(QWidget):
    """The Evaluate page's tab of comparisons: the questions to sample, the child's progress,
    then the pairs one by one."""

    def __init__(self, session: ProjectSession, background: BackgroundWork, recorder: JudgementRecorder,
                 run_id: Callable[[], str | None], parent=None):
        super().__init__(parent)
        self.session, self.background, self.recorder, self.run_id = session, background, recorder, run_id
        self.op = None  # the running 'workbench feedback pairs' child, if any
        self.questions_file: Path | None = None

        intro = QLabel(self.tr("The model answers each question twice, by sampling; you choose the better answer "
                               "with the keys 1 and 2, = for a tie, E to write a better one, S to skip. Tuning on "
                               "your judgements (Train page) teaches the model what you prefer."))
        intro.setObjectName("hint")
        intro.setWordWrap(True)
        top = QHBoxLayout()
        self.rows_spin = QSpinBox()
        self.rows_spin.setRange(1, 1000)
        self.rows_spin.setValue(DEFAULT_QUESTIONS)
        self.split_combo = QComboBox()
        self.split_combo.addItem(self.tr("validation rows"), "val")
        self.split_combo.addItem(self.tr("training rows"), "train")
        self.split_combo.addItem(self.tr("a file of questions (JSON lines)…"), "file")
        self.split_combo.activated.connect(self._on_split_activated)
        self.start_button = QPushButton(self.tr("Sample the answers"))
        self.start_button.setObjectName("primary")
        self.start_button.clicked.connect(self.start)
        top.addWidget(QLabel(self.tr("Questions")))
        top.addWidget(self.rows_spin)
        top.addWidget(QLabel(self.tr("from")))
        top.addWidget(self.split_combo)
        top.addWidget(self.start_button)
        top.addStretch(1)
        self.progress = OpProgress()
        self.status = QLabel()
        self.status.setObjectName("hint")
        self.status.setWordWrap(True)
        self.panel = PairPanel(recorder)
        self.panel.hide()

        lay = QVBoxLayout(self)
        lay.addWidget(intro)
        lay.addLayout(top)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addWidget(self.panel, 1)
        self.stretch = QWidget()
        lay.addWidget(self.stretch, 1)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self.panel.isVisible():
            self.panel.setFocus()  # the keys work as soon as the tab is shown

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Nothing of a previous project: its pairs, a sampling still running."""
        if self.op is not None:
            self.op.cancel()
            self.op = None
        self.questions_file = None
        self.split_combo.setCurrentIndex(0)
        self.panel.set_pairs([])
        self.panel.hide()
        self.stretch.show()
        self.status.clear()

    def set_available(self, available: bool) -> None:
        self.start_button.setEnabled(available and self.op is None)

    @Slot(int)
    def _on_split_activated(self, _index: int) -> None:
        if self.split_combo.currentData() != "file":
            return
        path, _ = QFileDialog.getOpenFileName(self, self.tr("A file of questions"), "",
                                              self.tr("JSON lines (*.jsonl *.json);;All files (*)"))
        if path:
            self.questions_file = Path(path)
            self.status.setText(self.tr("Questions from {0}").format(path))
        elif self.questions_file is None:
            self.split_combo.setCurrentIndex(0)

    # ------------------------------------------------------------------ sampling
    def args(self, run_id: str) -> list[str]:
        """The 'workbench feedback pairs' command line for the tab's choices."""
        split = self.split_combo.currentData()
        if split == "file":
            split = str(self.questions_file)
        return ["feedback", "pairs", "--project", str(self.session.project.root), "--run", run_id,
                "--rows", str(self.rows_spin.value()), "--split", split, "--seed", str(new_seed()), "--json"]

    def question_args(self, run_id: str, question: str) -> list[str]:
        # "=" keeps a question that starts with "-" the option's value
        return ["feedback", "pairs", "--project", str(self.session.project.root), "--run", run_id,
                "--seed", str(new_seed()), f"--question={question}", "--json"]

    @Slot()
    def start(self):
        run_id = self.run_id()
        if run_id is None or self.session.project is None:
            return None
        if self.split_combo.currentData() == "file" and self.questions_file is None:
            return None
        return self._sample(self.args(run_id), self.tr("Sampling two answers to {0} questions").format(
            self.rows_spin.value()))

    def compare_question(self, question: str):
        """Two answers to one question (the playground's)."""
        run_id = self.run_id()
        if run_id is None or self.session.project is None or not question.strip():
            return None
        return self._sample(self.question_args(run_id, question), self.tr("Sampling two answers to your question"))

    def _sample(self, args: list[str], title: str):
        if self.op is not None:
            self.op.cancel()
        self.start_button.setEnabled(False)
        self.status.setText(self.tr("The model writes two answers to each question in a separate process…"))
        root = self.session.project.root
        op = self.background.command(args, title)
        op.on_success(lambda result: self._on_sampled(root, result))
        op.on_failure(self.status.setText)
        op.cancelled.connect(lambda: self.status.setText(self.tr("Sampling cancelled.")))
        op.finished.connect(self._on_finished)
        self.op = op
        self.progress.follow(op)
        return op.run()

    def _on_sampled(self, root: Path, result) -> None:
        if self.session.project is None or self.session.project.root != root:
            return  # another project was opened meanwhile
        shown = (result or {}).get("pairs") or []
        known = feedback.load_pairs(root)  # with the run, checkpoint and settings that wrote them
        pairs = [known.get(p.get("pair_id")) or AnswerPair.model_validate(p) for p in shown if isinstance(p, dict)]
        if not pairs:
            self.status.setText(self.tr("There were no questions to sample."))
            return
        same = sum(p.identical for p in pairs)
        self.status.setText(self.tr("Pairs of answers to judge: {0} (the same answer twice: {1}).").format(
            len(pairs), same) if same else self.tr("Pairs of answers to judge: {0}.").format(len(pairs)))
        self.stretch.hide()
        self.panel.show()
        self.panel.set_pairs(pairs)

    @Slot()
    def _on_finished(self) -> None:
        if self.sender() is not None and self.sender() is not self.op:
            return
        self.op = None
        self.set_available(self.run_id() is not None)

    def shutdown(self) -> None:
        if self.op is not None:
            self.op.cancel()
