"""Asks for the id and names of a template saved from the project."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout

from ....core.operations.save_template import ID_PATTERN


class SaveTemplateDialog(QDialog):
    def __init__(self, project_name: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Save as template"))
        v = QVBoxLayout(self)
        hint = QLabel(self.tr("The template keeps this project's labels, prompt, cleaning steps and settings, and a "
                              "small sample of its cleaned data with personal data masked."))
        hint.setWordWrap(True)
        v.addWidget(hint)
        form = QFormLayout()
        self.id_edit = QLineEdit()
        self.id_edit.setPlaceholderText(self.tr("e.g. hospital_triage"))
        self.id_edit.textChanged.connect(self._on_id_edit_changed)
        self.name_zh = QLineEdit(project_name)
        self.name_en = QLineEdit(project_name)
        form.addRow(self.tr("Id (letters, digits, _ and -)"), self.id_edit)
        form.addRow(self.tr("Name (Chinese)"), self.name_zh)
        form.addRow(self.tr("Name (English)"), self.name_en)
        v.addLayout(form)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        v.addWidget(self.buttons)
        self._on_id_edit_changed(self.id_edit.text())

    @Slot(str)
    def _on_id_edit_changed(self, text: str) -> None:
        import re

        self.buttons.button(QDialogButtonBox.StandardButton.Save).setEnabled(bool(re.fullmatch(ID_PATTERN, text)))

    def values(self) -> tuple[str, str, str]:
        return self.id_edit.text().strip(), self.name_zh.text().strip(), self.name_en.text().strip()
