"""Step 5: export a deployable bundle and show its checks (parity, latency)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QProgressBar, QPushButton,
    QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget, QAbstractItemView,
)

from ..commands import CommandRunner, explain_failure
from ..resources import icon
from ..session import ProjectSession
from ..tasks import TaskManager

FORMATS = ("static", "merged", "onnx")


def format_title(fmt: str) -> str:
    from PySide6.QtCore import QCoreApplication

    return {
        "static": QCoreApplication.translate("ExportPage", "Paddle Inference (static graph, for servers)"),
        "merged": QCoreApplication.translate("ExportPage", "Merged weights (safetensors, for further training)"),
        "onnx": QCoreApplication.translate("ExportPage", "ONNX (for ONNX Runtime)"),
    }.get(fmt, fmt)


class ExportPage(QWidget):
    export_finished = Signal(object)  # the result dict or None

    def __init__(self, session: ProjectSession, tasks: TaskManager, parent=None):
        super().__init__(parent)
        self.session = session
        self.tasks = tasks
        self.result: dict | None = None
        self.bundle_dir: Path | None = None
        self.runner = CommandRunner(self)
        self.runner.finished.connect(self._on_runner_finished)
        self.runner.line.connect(self._on_runner_line)
        self.runner.failed_to_start.connect(lambda e: self.tasks.show_error(self.tr("Export could not start"), e))
        self._build()
        session.project_changed.connect(self.refresh_runs)
        session.monitor.status_changed.connect(lambda *_: self.refresh_runs())
        self.refresh_runs()

    def _build(self) -> None:
        top = QHBoxLayout()
        self.run_combo = QComboBox()
        self.run_combo.currentIndexChanged.connect(self._on_run_combo_changed)
        top.addWidget(QLabel(self.tr("Run")))
        top.addWidget(self.run_combo, 1)
        box = QGroupBox(self.tr("Formats"))
        bv = QVBoxLayout(box)
        self.format_checks: dict[str, QCheckBox] = {}
        for fmt in FORMATS:
            c = QCheckBox(format_title(fmt))
            c.setChecked(fmt != "onnx")
            self.format_checks[fmt] = c
            bv.addWidget(c)
        self.int8_check = QCheckBox(self.tr("Also an 8-bit (int8) model: smaller and faster on processors, slightly less exact"))
        bv.addWidget(self.int8_check)
        intro = QLabel(self.tr("The bundle holds the model, a stand-alone predict.py, its requirements and a model card "
                               "with the evaluation figures. Every format is checked against the trained model."))
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        bv.addWidget(intro)
        buttons = QHBoxLayout()
        self.export_button = QPushButton(icon("export"), self.tr("Export"))
        self.export_button.setObjectName("primary")
        self.export_button.clicked.connect(self._on_export_button_clicked)
        self.open_button = QPushButton(icon("folder"), self.tr("Open the bundle's folder"))
        self.open_button.clicked.connect(self._on_open_button_clicked)
        self.open_button.setEnabled(False)
        buttons.addWidget(self.export_button)
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels([self.tr("Format"), self.tr("Status"), self.tr("Largest difference from the trained model"),
                                              self.tr("Files")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.latency_label = QLabel()
        self.latency_label.setWordWrap(True)
        self.latency_label.setTextFormat(Qt.TextFormat.RichText)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.log.setMaximumHeight(140)
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(box)
        lay.addLayout(buttons)
        lay.addWidget(self.progress)
        lay.addWidget(self.status_label)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.latency_label)
        lay.addWidget(self.log)

    def on_shown(self) -> None:
        self.refresh_runs()

    @Slot()
    def refresh_runs(self) -> None:
        current = self.run_combo.currentData()
        self.run_combo.blockSignals(True)
        self.run_combo.clear()
        for run_id, st in self.session.monitor.runs.items():
            if st.status in ("completed", "stopped"):
                self.run_combo.addItem(f"{run_id} ({st.status})", run_id)
        if self.run_combo.count() == 0:
            self.run_combo.addItem(self.tr("(no finished run yet: train one on the Train page)"), None)
        idx = self.run_combo.findData(current)
        self.run_combo.setCurrentIndex(idx if idx >= 0 else self.run_combo.count() - 1)
        self.run_combo.blockSignals(False)
        self._on_run_combo_changed()

    @Slot()
    def _on_run_combo_changed(self, *_):
        run_id = self.run_combo.currentData()
        self.export_button.setEnabled(run_id is not None and not self.runner.running)
        self.show_existing(run_id)

    def show_existing(self, run_id: str | None) -> None:
        """The checks of an earlier export of this run, read from its bundle.json."""
        self.table.setRowCount(0)
        self.latency_label.setText("")
        self.bundle_dir = None
        self.open_button.setEnabled(False)
        if run_id is None or self.session.project is None:
            return
        folder = self.session.project.exports_dir / run_id
        bundle = folder / "bundle.json"
        if bundle.is_file():
            try:
                data = json.loads(bundle.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return
            checks = data.get("checks") or {}
            formats = {f: checks[f] for f in FORMATS if f in checks}
            self.show_result({"formats": formats, "latency": checks.get("latency"), "out": str(folder)})
            self.status_label.setText(self.tr("Exported earlier into {0}.").format(folder))

    @Slot()
    def _on_export_button_clicked(self) -> None:
        self.export()

    def export(self) -> bool:
        run_id = self.run_combo.currentData()
        if run_id is None or self.session.project is None or self.runner.running:
            return False
        formats = [f for f, c in self.format_checks.items() if c.isChecked()]
        if not formats:
            self.tasks.show_error(self.tr("No format chosen"), self.tr("Tick at least one format to export."))
            return False
        args = ["export", "--project", str(self.session.project.root), "--run", run_id,
                "--formats", ",".join(formats), "--json"]
        if self.int8_check.isChecked():
            args.append("--int8")
        self.export_button.setEnabled(False)
        self.progress.setRange(0, 0)  # busy until the command reports stages
        self.status_label.setText(self.tr("Exporting {0} in a separate process…").format(run_id))
        self.log.clear()
        self.runner.start(args)
        return True

    @Slot(str)
    def _on_runner_line(self, line: str) -> None:
        if line.startswith('{"') and '"stage"' in line:
            try:
                ev = json.loads(line)
            except ValueError:
                return
            self.status_label.setText(self.tr("Exporting: {0}").format(ev.get("stage")))
            if ev.get("total"):
                self.progress.setRange(0, int(ev["total"]))
                self.progress.setValue(int(ev.get("done") or 0))
        elif line.strip() and not line.startswith((" ", "{", "}", "]", "[")):
            self.log.appendPlainText(line)

    @Slot(int, object, str)
    def _on_runner_finished(self, code: int, result, stderr: str) -> None:
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if code == 0 else 0)
        self.export_button.setEnabled(True)
        if code != 0 or not isinstance(result, dict):
            msg = explain_failure("export", code, stderr) if code != 0 else self.tr("The export printed no result.")
            self.status_label.setText(msg)
            self.tasks.show_error(self.tr("Export failed"), msg)
            self.export_finished.emit(None)
            return
        self.show_result(result)
        self.status_label.setText(self.tr("Exported into {0}.").format(result.get("out", "")))
        self.session.state_changed.emit()
        self.export_finished.emit(result)

    def show_result(self, result: dict) -> None:
        self.result = result
        formats = result.get("formats") or {}
        self.table.setRowCount(len(formats))
        for i, (fmt, info) in enumerate(formats.items()):
            info = info or {}
            diff = info.get("max_abs_diff")
            status = info.get("status") or "ok"
            vals = [format_title(fmt), status if not info.get("reason") else f"{status}: {info['reason']}",
                    f"{diff:.2e}" if isinstance(diff, (int, float)) else "–", ", ".join(info.get("files") or [])]
            for c, v in enumerate(vals):
                self.table.setItem(i, c, QTableWidgetItem(v))
        lat = result.get("latency") or {}
        if isinstance(lat, dict) and lat:
            parts = [f"{k}: {v:.1f} ms" if isinstance(v, (int, float)) else f"{k}: {v}" for k, v in lat.items()]
            self.latency_label.setText(self.tr("<b>Latency</b> (median per request on this computer): {0}").format(" · ".join(parts)))
        out = result.get("out")
        self.bundle_dir = Path(out) if out else None
        self.open_button.setEnabled(bool(self.bundle_dir and self.bundle_dir.is_dir()))

    @Slot()
    def _on_open_button_clicked(self) -> None:
        if self.bundle_dir is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.bundle_dir)))

    def shutdown(self) -> None:
        self.runner.cancel()
