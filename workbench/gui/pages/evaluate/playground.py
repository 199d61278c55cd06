"""The Evaluate page's playground: a question to the chosen run's model, its answer as it
streams (or the label and the most likely labels), a busy line while the model works and a
warning where core says the run's answers may be poor."""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSizePolicy, QStackedLayout, QVBoxLayout, QWidget,
)

from ....core.errors import WorkbenchError
from ....core.jobs import run_task
from ....core.mapping import joined_parts
from ....core.operations.caveats import answers_caveat
from ...i18n import content_lang
from ...session import ProjectSession
from ...background import OpProgress, BackgroundWork


class PromptInput(QWidget):
    """The question box: one line, Enter asks; or, for a model that reads several texts joined
    one a line (a pair of questions), several lines, Enter starts the next part and Ctrl+Enter
    asks. ``text()``/``setText()`` as a line edit's."""

    returnPressed = Signal()  # noqa: N815  (a line edit's name)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.line = QLineEdit()
        self.line.returnPressed.connect(self.returnPressed)
        self.lines = QPlainTextEdit()
        self.lines.setTabChangesFocus(True)
        self.lines.installEventFilter(self)
        self.lines.setFixedHeight(self.lines.fontMetrics().lineSpacing() * 4 + 12)
        self.stack = QStackedLayout(self)
        self.stack.setContentsMargins(0, 0, 0, 0)
        self.stack.addWidget(self.line)
        self.stack.addWidget(self.lines)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._fit()

    def _fit(self) -> None:
        # the stack's own size is its tallest page's: the box is as tall as the page it shows
        self.setFixedHeight(self.lines.minimumHeight() if self.is_multi_line() else self.line.sizeHint().height())

    def is_multi_line(self) -> bool:
        return self.stack.currentWidget() is self.lines

    def set_multi_line(self, multi: bool) -> None:
        if multi == self.is_multi_line():
            return
        text = self.text()
        self.stack.setCurrentWidget(self.lines if multi else self.line)
        self.setText(text)
        self._fit()

    def text(self) -> str:
        return self.lines.toPlainText() if self.is_multi_line() else self.line.text()

    def setText(self, text: str) -> None:  # noqa: N802  (a line edit's name)
        if self.is_multi_line():
            self.lines.setPlainText(text)
        else:
            self.line.setText(text.replace("\n", " "))

    def clear(self) -> None:
        self.line.clear()
        self.lines.clear()

    def setPlaceholderText(self, text: str) -> None:  # noqa: N802
        self.line.setPlaceholderText(text)
        self.lines.setPlaceholderText(text)

    def placeholderText(self) -> str:  # noqa: N802
        return self.stack.currentWidget().placeholderText()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if watched is self.lines and event.type() == QEvent.Type.KeyPress \
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) \
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.returnPressed.emit()
            return True
        return super().eventFilter(watched, event)


class PlaygroundPanel(QWidget):
    """Asks ``workbench playground --json`` about the run ``run_id()`` names."""

    answered = Signal(str)  # the full answer, once the command has ended
    asked = Signal()  # a question went to the model (what was shown is replaced)

    def __init__(self, session: ProjectSession, background: BackgroundWork, run_id: Callable[[], str | None], parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
        self.run_id = run_id
        self.op = None  # the running 'workbench playground' child, if any
        self._labelled = False  # the answer has its label line
        self.done: dict | None = None  # the last answer's "done" event: its text and what wrote it
        pv = QVBoxLayout(self)
        prow = QHBoxLayout()
        self.prompt_edit = PromptInput()
        self.prompt_edit.setPlaceholderText(self.tr("Type a text or a question, as in your data, and press Enter"))
        self.prompt_edit.returnPressed.connect(self.ask)
        self.generate_button = QPushButton(self.tr("Ask the model"))
        self.generate_button.clicked.connect(self.ask)
        prow.addWidget(self.prompt_edit, 1)
        prow.addWidget(self.generate_button, 0, Qt.AlignmentFlag.AlignTop)
        pv.addLayout(prow)
        # working: loading a model and its first words can take tens of seconds on a processor
        self.progress = OpProgress()
        pv.addWidget(self.progress)
        self.warning = QLabel()  # why this run's answers may be poor (core decides)
        self.warning.setObjectName("warning")
        self.warning.setWordWrap(True)
        self.warning.hide()
        pv.addWidget(self.warning)
        self.answer = QPlainTextEdit()
        self.answer.setReadOnly(True)
        pv.addWidget(self.answer, 1)
        self.below = QHBoxLayout()  # what acts on the answer (pages/evaluate/ratings.py)
        pv.addLayout(self.below)

    # ------------------------------------------------------------------ state
    def reset(self) -> None:
        """Nothing of a previous project: its question, its answer, a question still running."""
        if self.op is not None:
            self.op.cancel()
            self.op = None
        self.prompt_edit.clear()
        self.answer.clear()
        self.done = None
        self.asked.emit()

    def set_available(self, available: bool) -> None:
        self.generate_button.setEnabled(available and self.op is None)

    def warning_text(self) -> str:
        """The chosen run's caveat (core.operations.caveats) in words, or ""."""
        run_id = self.run_id()
        st = self.session.monitor.runs.get(run_id) if run_id else None
        if st is None or self.session.project is None:
            return ""
        try:
            task = run_task(st.path, self.session.project)
        except (WorkbenchError, OSError):
            task = None
        c = answers_caveat(self.session.monitor.summary(st.run_id), st.events, task)
        if c is None:
            return ""
        parts = []
        if "stopped" in c.reasons:
            parts.append(self.tr("It was stopped after {0} of its {1} training steps.").format(c.steps, c.planned))
        elif "few_steps" in c.reasons:
            parts.append(self.tr("It trained for only {0} steps.").format(c.steps))
        if "loss_high" in c.reasons and c.loss_rose:  # a rise, not a small fall (core says which)
            parts.append(self.tr("Its loss rose from {0:.2f} to {1:.2f}.").format(c.first_loss, c.last_loss))
        elif "loss_high" in c.reasons:
            parts.append(self.tr("Its loss fell only from {0:.2f} to {1:.2f}.").format(c.first_loss, c.last_loss))
        if "guessing" in c.reasons:
            parts.append(self.tr("Its validation macro F1, {0:.2f}, is no better than picking one of its {1} "
                                 "labels at random.").format(c.macro_f1, c.labels))
        sentences = [self.tr("This run's answers may be poor."), *parts,
                     self.tr("Train longer, or resume the run, before relying on them.")]
        return ("" if content_lang() == "zh" else " ").join(sentences)  # Chinese puts no space between

    def update_warning(self) -> None:
        text = self.warning_text()
        self.warning.setText(text)
        self.warning.setVisible(bool(text))
        self.update_input()

    def update_input(self) -> None:
        """One line, or one line per column where the chosen run's model reads its text from
        several columns joined, one a line (core.mapping), as it was trained."""
        run_id = self.run_id()
        st = self.session.monitor.runs.get(run_id) if run_id else None
        parts: list[str] = []
        if st is not None and self.session.project is not None:
            try:
                task = run_task(st.path, self.session.project)
            except (WorkbenchError, OSError):
                task = None
            if task is not None and task.input_roles:
                parts = joined_parts(task.columns.get(task.input_roles[0]))
        self.prompt_edit.set_multi_line(bool(parts))
        if parts:
            self.prompt_edit.setPlaceholderText(self.tr(
                "The model reads “{0}” and “{1}” one a line: type each on a line of its own (Enter starts the "
                "next), then press Ctrl+Enter").format(parts[0], "”, “".join(parts[1:])))
        else:
            self.prompt_edit.setPlaceholderText(self.tr("Type a text or a question, as in your data, and press Enter"))

    # ------------------------------------------------------------------ asking
    def args(self, run_id: str, prompt: str) -> list[str]:
        # "--" ends the options: a prompt may start with "-"
        return ["playground", "--project", str(self.session.project.root), "--run", run_id, "--json", "--", prompt]

    @Slot()
    def ask(self) -> None:
        run_id = self.run_id()
        text = self.prompt_edit.text().strip()
        if not text or run_id is None or self.session.project is None:
            return
        if self.op is not None:
            self.op.cancel()
        self.answer.clear()
        self._labelled = False
        self.done = None
        self.asked.emit()
        self.generate_button.setEnabled(False)
        op = self.background.command(self.args(run_id, text), self.tr("Asking the model"))
        op.line.connect(self._on_play_line)
        op.on_failure(lambda msg: self.answer.appendPlainText("\n" + msg))
        op.finished.connect(self._on_play_finished)
        self.op = op
        self.progress.follow(op)
        op.run()

    @Slot(str)
    def _on_play_line(self, line: str) -> None:
        """One event of ``playground --json``: answer text as it streams, or the chosen label."""
        try:
            ev = json.loads(line)
        except ValueError:
            return
        if not isinstance(ev, dict):
            return
        if ev.get("event") == "done":
            self.done = ev
        if ev.get("event") == "token":
            if not self._labelled:  # after the label, a classifier's "answer" is that label again
                self._append_answer(str(ev.get("text", "")))
        elif ev.get("event") == "done" and ev.get("max_new_tokens") and ev.get("note"):
            # the answer's budget was shortened by the training length (engine/inference/playground.py)
            self._append_answer("\n\n" + self.tr("(Answers are at most {0} tokens here: the model was trained on "
                                                  "shorter texts, question and answer together.)").format(
                ev["max_new_tokens"]))
        elif ev.get("event") == "labels":
            self._labelled = True
            probs = sorted((ev.get("probabilities") or {}).items(), key=lambda kv: -kv[1])[:5]
            shown = "  ·  ".join(f"{lab} {p:.1%}" for lab, p in probs)
            if self.answer.toPlainText() and not self.answer.toPlainText().endswith("\n"):
                self._append_answer("\n")  # below the text the model generated, if any
            self._append_answer(self.tr("Label: {0}\nMost likely: {1}").format(ev.get("label", ""), shown))

    def _append_answer(self, text: str) -> None:
        cursor = self.answer.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        cursor.insertText(text)
        self.answer.setTextCursor(cursor)

    @Slot()
    def _on_play_finished(self) -> None:
        if self.sender() is not self.op:
            return  # an answer replaced by a newer question
        self.op = None
        self.generate_button.setEnabled(True)
        self.answered.emit(self.answer.toPlainText())

    def shutdown(self) -> None:
        if self.op is not None:
            self.op.cancel()
