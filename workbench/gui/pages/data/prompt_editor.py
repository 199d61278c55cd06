"""The project's prompt: the system text and the user text with its placeholders, editable
per project; {labels} is filled with the project's labels (shown in the preview)."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget
from pydantic import ValidationError

from ....core.task import TaskSpec
from ....core.templates import PromptFormat


class PromptEditor(QWidget):
    """Emits ``prompt_edited`` with a valid PromptFormat when the user applies an edit."""

    prompt_edited = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.task: TaskSpec | None = None
        self.template_prompt: PromptFormat | None = None
        v = QVBoxLayout(self)
        hint = QLabel(self.tr("What the model is told before each text. In the user text, {text}, {instruction} and "
                              "{input} stand for the mapped columns, and {labels} for this project's labels."))
        hint.setWordWrap(True)
        hint.setObjectName("hint")
        v.addWidget(hint)
        v.addWidget(QLabel(self.tr("System text (Chinese, used for training)")))
        self.system_zh = QPlainTextEdit()
        v.addWidget(self.system_zh, 1)
        v.addWidget(QLabel(self.tr("System text (English)")))
        self.system_en = QPlainTextEdit()
        v.addWidget(self.system_en, 1)
        v.addWidget(QLabel(self.tr("User text")))
        self.user = QPlainTextEdit()
        v.addWidget(self.user, 1)
        self.message = QLabel()
        self.message.setWordWrap(True)
        v.addWidget(self.message)
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setObjectName("hint")
        v.addWidget(self.preview)
        row = QHBoxLayout()
        self.apply_button = QPushButton(self.tr("Use this prompt"))
        self.apply_button.clicked.connect(self._on_apply_button_clicked)
        self.reset_button = QPushButton(self.tr("Back to the template's prompt"))
        self.reset_button.clicked.connect(self._on_reset_button_clicked)
        row.addWidget(self.apply_button)
        row.addWidget(self.reset_button)
        row.addStretch(1)
        v.addLayout(row)

    def set_task(self, task: TaskSpec | None, template_prompt: PromptFormat | None = None) -> None:
        """Show ``task``'s prompt (its labels fill the preview)."""
        self.task = task
        if template_prompt is not None:
            self.template_prompt = template_prompt
        for w in (self.system_zh, self.system_en, self.user, self.apply_button, self.reset_button):
            w.setEnabled(task is not None)
        if task is None:
            return
        self.system_zh.setPlainText(task.prompt.system.zh)
        self.system_en.setPlainText(task.prompt.system.en)
        self.user.setPlainText(task.prompt.user)
        self.message.clear()
        self._show_preview(task)

    def update_labels(self, task: TaskSpec | None) -> None:
        """The labels changed (the preview follows); the text being edited is left alone."""
        if task is None or self.task is None:
            return
        self.task = self.task.with_labels(list(task.labels), task.label_aliases)
        self._show_preview(self.task)

    def _show_preview(self, task: TaskSpec) -> None:
        example = {r: f"<{r}>" for r in task.input_roles}
        self.preview.setText(self.tr("The model sees: {0}").format(task.user_text(example)))

    def edited_prompt(self) -> PromptFormat | None:
        """The prompt in the boxes, or None (with the reason shown) when it is not valid."""
        if self.task is None:
            return None
        try:
            prompt = PromptFormat.model_validate({
                "system": {"zh": self.system_zh.toPlainText().strip(), "en": self.system_en.toPlainText().strip()},
                "user": self.user.toPlainText()})
            task = self.task.model_copy(update={"prompt": prompt})
            TaskSpec.model_validate(task.model_dump())  # the placeholders must be roles or {labels}
        except ValidationError as exc:
            err = exc.errors()[0]
            self.message.setObjectName("warning")
            self.message.setText(self.tr("This prompt cannot be used: {0}").format(
                err["msg"].removeprefix("Value error, ")))
            return None
        self.message.clear()
        self._show_preview(task)
        return prompt

    @Slot()
    def _on_apply_button_clicked(self) -> None:
        prompt = self.edited_prompt()
        if prompt is not None:
            self.prompt_edited.emit(prompt)

    @Slot()
    def _on_reset_button_clicked(self) -> None:
        if self.template_prompt is not None and self.task is not None:
            self.set_task(self.task.model_copy(update={"prompt": self.template_prompt}))
            self.prompt_edited.emit(self.template_prompt)
