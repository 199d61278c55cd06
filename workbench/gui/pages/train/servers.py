"""Where a run trains: this computer or a registered server (core/targets.py), and the
"Servers…" dialog that adds, checks and removes servers. Thin over core: the check is
``workbench targets check NAME --json`` in a child process, so no SSH runs on the UI thread."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from ....core.errors import WorkbenchError
from ....core.targets import add_target, list_targets, remove_target
from ...error_texts import error_text, exception_text
from ...i18n import join_list


def check_args(name: str) -> list[str]:
    """The ``workbench`` arguments of a server's check."""
    return ["targets", "check", name, "--json"]


class TargetCombo(QComboBox):
    """This computer, then the registered servers; ``currentData()`` is None or a server's name."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.refresh()

    def refresh(self) -> None:
        current = self.currentData()
        self.blockSignals(True)
        self.clear()
        self.addItem(self.tr("This computer"), None)
        try:
            targets = list_targets()
        except WorkbenchError:
            targets = []
        for t in targets:
            self.addItem(self.tr("Server {0} ({1})").format(t.name, t.devices), t.name)
        idx = self.findData(current)
        self.setCurrentIndex(idx if idx >= 0 else 0)
        self.blockSignals(False)


class AddServerDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Add a server"))
        self.setMinimumWidth(560)  # the address and folder hints were cut off at the form's own width
        form = QFormLayout(self)
        self.name = QLineEdit()
        self.url = QLineEdit()
        self.url.setPlaceholderText(self.tr("ssh://user@gpu-server.example.org"))
        self.devices = QLineEdit("cpu")
        self.devices.setToolTip(self.tr("cpu, or the devices to use, such as gpu:0 or gpu:0,1 or npu:0"))
        self.workdir = QLineEdit()
        self.workdir.setPlaceholderText(self.tr("workbench-server in your home folder there"))
        self.python = QLineEdit()
        self.python.setPlaceholderText("python3")
        note = QLabel(self.tr("Workbench logs in with your SSH key, as the ssh command does; it asks for no "
                              "password and stores none."))
        note.setWordWrap(True)
        note.setObjectName("hint")
        form.addRow(self.tr("Name"), self.name)
        form.addRow(self.tr("Address"), self.url)
        form.addRow(self.tr("Devices"), self.devices)
        form.addRow(self.tr("Work folder"), self.workdir)
        form.addRow(self.tr("Python there"), self.python)
        form.addRow(note)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setObjectName("error")
        form.addRow(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._on_buttons_accepted)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    @Slot()
    def _on_buttons_accepted(self) -> None:
        try:
            add_target(self.name.text().strip(), self.url.text().strip(), devices=self.devices.text().strip() or None,
                       workdir=self.workdir.text().strip() or None, python=self.python.text().strip() or None)
        except WorkbenchError as exc:
            self.error.setText(exception_text(exc))
            return
        self.accept()


class ServersDialog(QDialog):
    """The registered servers: add, check (versions, devices, free disk and memory), remove."""

    servers_changed = Signal()

    def __init__(self, background, parent: QWidget | None = None):
        super().__init__(parent)
        self.background = background
        self.setWindowTitle(self.tr("Servers"))
        self.resize(720, 420)
        v = QVBoxLayout(self)
        intro = QLabel(self.tr("Runs can train on a GPU server or a cluster reached over SSH. The data, the curves and "
                               "the evaluation stay here; the run folder is mirrored while it trains."))
        intro.setWordWrap(True)
        v.addWidget(intro)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels([self.tr("Name"), self.tr("Address"), self.tr("Devices"),
                                              self.tr("Work folder")])
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        v.addWidget(self.table, 1)
        self.report = QLabel()
        self.report.setWordWrap(True)
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        v.addWidget(self.report)
        row = QHBoxLayout()
        self.add_button = QPushButton(self.tr("Add…"))
        self.add_button.clicked.connect(self._on_add_button_clicked)
        self.check_button = QPushButton(self.tr("Check"))
        self.check_button.clicked.connect(self._on_check_button_clicked)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.clicked.connect(self._on_remove_button_clicked)
        close = QPushButton(self.tr("Close"))
        close.clicked.connect(self.accept)
        for b in (self.add_button, self.check_button, self.remove_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(close)
        v.addLayout(row)
        self.refresh()

    def refresh(self) -> None:
        try:
            targets = list_targets()
        except WorkbenchError as exc:
            targets = []
            self.report.setText(exception_text(exc))
        self.table.setRowCount(len(targets))
        for i, t in enumerate(targets):
            for c, value in enumerate((t.name, t.url, t.devices, t.workdir)):
                self.table.setItem(i, c, QTableWidgetItem(value))
        if targets and self.table.currentRow() < 0:
            self.table.selectRow(0)
        has = bool(targets)
        self.check_button.setEnabled(has)
        self.remove_button.setEnabled(has)

    def selected(self) -> str | None:
        item = self.table.item(self.table.currentRow(), 0)
        return item.text() if item else None

    @Slot()
    def _on_add_button_clicked(self) -> None:
        dialog = AddServerDialog(self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.refresh()
            self.servers_changed.emit()

    @Slot()
    def _on_remove_button_clicked(self) -> None:
        name = self.selected()
        if name:
            remove_target(name)
            self.report.setText(self.tr("Removed {0}; its files on the server stay.").format(name))
            self.refresh()
            self.servers_changed.emit()

    @Slot()
    def _on_check_button_clicked(self) -> None:
        self.check(self.selected())

    def check(self, name: str | None):
        if not name:
            return None
        self.report.setText(self.tr("Connecting to {0}…").format(name))
        self.check_button.setEnabled(False)
        op = self.background.command(check_args(name), self.tr("Checking server {0}").format(name))
        op.on_success(self._show_report)
        op.on_failure(lambda message: self._show_failure(op, message))
        return op.run()

    def _show_failure(self, op, message: str) -> None:
        report = op.result
        if isinstance(report, dict) and "problems" in report:  # the check ran and found problems (exit 1)
            self._show_report(report)
            return
        self.check_button.setEnabled(True)
        self.report.setText(message)

    def _show_report(self, report) -> None:
        self.check_button.setEnabled(True)
        server = (report or {}).get("server") or {}
        lines = []
        if server:
            gpus = join_list(f"{g['name']} ({g['memory_mb']:,} MB)" for g in server.get("gpus") or [])
            lines.append(self.tr("Workbench {0}, Paddle {1}, PaddleFormers {2}").format(
                server.get("workbench_version"), server.get("paddle_version"), server.get("paddleformers_version")))
            lines.append(self.tr("Devices: {0}; {1} CPU cores").format(
                join_list(server.get("devices", [])) + (f"; {gpus}" if gpus else ""),
                server.get("cpu_count")))
            lines.append(self.tr("Free: {0:,} MB of disk in the work folder, {1:,} MB of memory").format(
                int(server.get("disk_free_mb") or 0), int(server.get("memory_free_mb") or 0)))
        problems = (report or {}).get("problems") or []
        lines += [self.tr("Problem: {0}").format(error_text(p.get("code"), p.get("fields"), p.get("message", "")))
                  if isinstance(p, dict) else self.tr("Problem: {0}").format(p) for p in problems]
        if server and not problems:
            lines.append(self.tr("Ready: choose it under \"Train on\" and start."))
        self.report.setText("\n".join(lines))
