"""Dialogs: new project, settings, environment."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, Slot
from PySide6.QtWidgets import (
    QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
    QPlainTextEdit, QPushButton, QVBoxLayout, QWidget,
)

from ..core.library_noise import without_noise
from ..core.runs import engine_command
from ..core.templates import TemplateCatalog
from .i18n import join_list, localized
from .settings import Settings


def data_file_filter() -> str:
    """The file dialogs' filter for a data file: the usual suffixes first, then every file (any other
    text file is read by its content, see core.io)."""
    from ..core.dataio import SUPPORTED_SUFFIXES

    patterns = " ".join(f"*{s}" for s in SUPPORTED_SUFFIXES)
    return ";;".join([QCoreApplication.translate("DataFiles", "Data files ({0})").format(patterns),
                      QCoreApplication.translate("DataFiles", "All files (*)")])


def _folder_row(edit: QLineEdit, parent: QWidget, caption: str) -> QWidget:
    w = QWidget()
    lay = QHBoxLayout(w)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.addWidget(edit, 1)
    # translate() with a named context: parent.tr() would look the text up under the
    # dialog's class while lupdate files it under "parent", so it never found a translation
    b = QPushButton(QCoreApplication.translate("FolderRow", "Browse…"))

    def browse():
        d = QFileDialog.getExistingDirectory(parent, caption, edit.text())
        if d:
            edit.setText(d)

    b.clicked.connect(browse)
    lay.addWidget(b)
    return w


class NewProjectDialog(QDialog):
    def __init__(self, catalog: TemplateCatalog, projects_dir: Path, template_id: str | None = None, parent=None,
                 name: str = ""):
        super().__init__(parent)
        self.setWindowTitle(self.tr("New project"))
        self.catalog = catalog
        form = QFormLayout()
        self.name_edit = QLineEdit(name)
        self.name_edit.setPlaceholderText(self.tr("e.g. news-sentiment"))
        self.template_combo = QComboBox()
        for spec in catalog:
            self.template_combo.addItem(localized(spec.name), spec.id)
        if template_id:
            self.template_combo.setCurrentIndex(max(0, self.template_combo.findData(template_id)))
        self.folder_edit = QLineEdit(str(projects_dir))
        form.addRow(self.tr("Name"), self.name_edit)
        form.addRow(self.tr("Template"), self.template_combo)
        form.addRow(self.tr("Folder"), _folder_row(self.folder_edit, self, self.tr("Projects folder")))
        self.message = QLabel()
        self.message.setObjectName("warning")
        self.message.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.message)
        lay.addWidget(self.buttons)
        self.name_edit.textChanged.connect(self._on_name_edit_text_changed)
        self.folder_edit.textChanged.connect(self._on_name_edit_text_changed)
        self._on_name_edit_text_changed()

    @property
    def project_dir(self) -> Path:
        return Path(self.folder_edit.text().strip()) / self.name_edit.text().strip()

    @property
    def template_id(self) -> str:
        return self.template_combo.currentData()

    @Slot()
    def _on_name_edit_text_changed(self, *_):
        name = self.name_edit.text().strip()
        problem = ""
        if not name:
            problem = self.tr("Give the project a name.")
        elif re.search(r'[\\/:*?"<>|]', name):
            problem = self.tr("A name cannot contain any of \\ / : * ? \" < > |.")
        elif self.project_dir.exists() and any(self.project_dir.iterdir()):
            problem = self.tr("A folder of this name already exists and is not empty.")
        self.message.setText(problem)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, parent=None):
        super().__init__(parent)
        self.settings = settings
        self.setWindowTitle(self.tr("Settings"))
        self.setMinimumWidth(600)  # the folders' paths stay readable beside the shorter Chinese labels
        form = QFormLayout()
        self.language = QComboBox()
        self.language.addItem(self.tr("Follow the system"), "system")
        self.language.addItem("简体中文", "zh_CN")
        self.language.addItem("English", "en")
        self.language.setCurrentIndex(max(0, self.language.findData(settings.language)))
        self.theme = QComboBox()
        self.theme.addItem(self.tr("Light"), "light")
        self.theme.addItem(self.tr("Dark"), "dark")
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        self.projects = QLineEdit(str(settings.projects_dir))
        self.templates = QLineEdit(str(settings.templates_dir))
        form.addRow(self.tr("Language"), self.language)
        form.addRow(self.tr("Theme"), self.theme)
        form.addRow(self.tr("Projects folder"), _folder_row(self.projects, self, self.tr("Projects folder")))
        form.addRow(self.tr("Your organisation's templates"), _folder_row(self.templates, self, self.tr("Templates folder")))
        note = QLabel(self.tr("The language changes as soon as you click OK; a new templates folder takes effect "
                              "the next time Workbench starts."))
        note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(note)
        lay.addWidget(buttons)

    def apply(self) -> dict[str, bool]:
        """Store the choices; returns which ones changed."""
        s = self.settings
        changed = {
            "language": self.language.currentData() != s.language,
            "theme": self.theme.currentData() != s.theme,
            "templates": self.templates.text().strip() != str(s.templates_dir),
        }
        s.language = self.language.currentData()
        s.theme = self.theme.currentData()
        s.projects_dir = self.projects.text().strip()
        s.templates_dir = self.templates.text().strip()
        return changed


class EnvironmentDialog(QDialog):
    """Paddle's version, devices and installation check, measured in a separate process."""

    def __init__(self, background, parent=None):
        super().__init__(parent)
        self.background = background
        self.op = None
        self.setWindowTitle(self.tr("Environment"))
        self.resize(640, 480)
        self.summary = QLabel(self.tr("Checking the PaddlePaddle installation in a separate process…"))
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.recheck = buttons.addButton(self.tr("Check again"), QDialogButtonBox.ButtonRole.ActionRole)
        self.recheck.clicked.connect(self.start)
        lay = QVBoxLayout(self)
        lay.addWidget(self.summary)
        lay.addWidget(self.details, 1)
        lay.addWidget(buttons)
        self.report: dict | None = None
        self.finished.connect(self._on_dialog_finished)

    @Slot()
    def start(self) -> None:
        if self.op is not None:
            return
        self.recheck.setEnabled(False)
        self.summary.setText(self.tr("Checking the PaddlePaddle installation in a separate process…"))
        op = self.background.process(engine_command("envcheck"), self.tr("Checking the installation"), name="envcheck")
        op.succeeded.connect(self._on_check_succeeded)
        op.on_failure(self._on_check_failed)
        op.finished.connect(self._on_check_finished)
        self.op = op
        op.run()

    @Slot(object)
    def _on_check_succeeded(self, rep) -> None:
        if not isinstance(rep, dict):
            self._on_check_failed(self.tr("The check printed no report."))
            return
        self.show_report(rep)

    def _on_check_failed(self, message: str) -> None:
        self.summary.setText(self.tr("The check did not finish. The details below say why; "
                                     "reinstalling the application usually fixes it."))
        self.details.setPlainText(message + "\n\n" + without_noise(self.op.stderr_text[-8000:] if self.op else "")[-4000:])

    @Slot()
    def _on_check_finished(self) -> None:
        self.op = None
        self.recheck.setEnabled(True)

    @Slot(int)
    def _on_dialog_finished(self, _result: int) -> None:
        if self.op is not None:
            self.op.cancel()

    def show_report(self, rep: dict) -> None:
        self.report = rep
        if "paddle_error" in rep:
            self.summary.setText(self.tr("<b>PaddlePaddle cannot be loaded:</b> {0}<br>Training, evaluation and export "
                                         "need it; reinstall the application or its dependencies.").format(rep["paddle_error"]))
            return
        ok = rep.get("run_check", {}).get("ok")
        verdict = self.tr("passed") if ok else self.tr("failed")
        rows = [
            self.tr("<b>PaddlePaddle</b> {0}").format(rep.get("paddle_version", "?")),
            self.tr("<b>PaddleFormers</b> {0}").format(rep.get("paddleformers_version", rep.get("paddleformers_error", "?"))),
            self.tr("<b>Devices</b> {0}").format(join_list(rep.get("devices", []))),
            self.tr("<b>Installation check</b> {0}").format(verdict),
            self.tr("<b>Python</b> {0} on {1}").format(rep.get("python", "?"), rep.get("platform", "?")),
        ]
        self.summary.setText("<br>".join(rows))
        # Paddle's own check, without the warnings its libraries print along the way
        self.details.setPlainText(without_noise(rep.get("run_check", {}).get("output", "")))
