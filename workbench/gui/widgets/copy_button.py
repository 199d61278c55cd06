"""A Copy button that says it copied: its text reads "Copied" for a moment after a click."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QPushButton

FEEDBACK_MS = 1500


class CopyButton(QPushButton):
    """Puts ``text()`` of its source on the clipboard; ``copied`` carries what it put there."""

    copied = Signal(str)

    def __init__(self, source: Callable[[], str] | None = None, parent=None):
        super().__init__(parent)
        self._source = source
        self._value = ""
        self._feedback = QTimer(self)
        self._feedback.setSingleShot(True)
        self._feedback.setInterval(FEEDBACK_MS)
        self._feedback.timeout.connect(self._show_title)
        self.clicked.connect(self._on_clicked)
        self._show_title()

    def set_value(self, value: str) -> None:
        """What a click copies, where no source function was given."""
        self._value = value

    def value(self) -> str:
        return self._source() if self._source is not None else self._value

    @property
    def showing_feedback(self) -> bool:
        return self._feedback.isActive()

    @Slot()
    def _on_clicked(self) -> None:
        value = self.value()
        if not value:
            return
        QGuiApplication.clipboard().setText(value)
        self.setText(self.tr("Copied"))
        self._feedback.start()
        self.copied.emit(value)

    @Slot()
    def _show_title(self) -> None:
        self.setText(self.tr("Copy"))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.setText(self.tr("Copied") if self._feedback.isActive() else self.tr("Copy"))
