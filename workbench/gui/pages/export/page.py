"""Step 5: export a deployable bundle and show its checks (parity, latency)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QGridLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QPlainTextEdit, QPushButton,
    QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget, QAbstractItemView,
)

from ...commands import stage_text
from ...i18n import join_list
from ...resources import icon
from ...session import ProjectSession
from ...background import OpProgress, BackgroundWork
from ...widgets.copy_button import CopyButton
from ....core.errors import WorkbenchError
from ....core.library_noise import NoiseFilter
from ....core.operations import runs as run_operations
from ....core.operations.export import (
    BUNDLE_TARGETS,
    DEFAULT_FORMATS,
    DEFAULT_TARGET,
    export_estimate,
    run_gguf_refusal,
    run_int8_refusal,
)
from ..run_text import fill_run_combo

FORMATS = ("static", "merged", "onnx", "gguf")


def format_title(fmt: str) -> str:
    from PySide6.QtCore import QCoreApplication

    return {
        "static": QCoreApplication.translate("ExportPage", "Paddle Inference (static graph, for servers)"),
        "merged": QCoreApplication.translate("ExportPage", "Merged weights (safetensors, for further training)"),
        "onnx": QCoreApplication.translate("ExportPage", "ONNX (for ONNX Runtime)"),
        "gguf": QCoreApplication.translate("ExportPage", "GGUF (for llama.cpp and ollama)"),
    }.get(fmt, fmt)


def target_title(key: str) -> str:
    """The Export page's words for a platform the requirements can be written for."""
    return {
        "linux-x86_64": QCoreApplication.translate("ExportPage", "Linux x86-64, Python 3.11 (the Docker image)"),
        "linux-aarch64": QCoreApplication.translate("ExportPage", "Linux ARM64, Python 3.11 (the Docker image on ARM)"),
        "windows-x86_64": QCoreApplication.translate("ExportPage", "Windows x86-64, Python 3.11"),
        "macos-arm64": QCoreApplication.translate("ExportPage", "macOS 14 or later on Apple silicon, Python 3.11"),
        "this": QCoreApplication.translate("ExportPage", "This computer"),
    }.get(key, key)


def _num(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def describe_latency(lat: dict) -> str:
    """The latency check as a sentence: per-request times, speed ratio, throughput and the processor."""
    parts = []
    static_ms, eager_ms = _num(lat.get("static_ms")), _num(lat.get("eager_ms"))
    if static_ms is not None and eager_ms is not None:
        # what is compared, and which way is better: "0.53× the speed" said neither
        if static_ms <= eager_ms:
            text = QCoreApplication.translate(
                "ExportPage", "Per request, the exported static model takes {0} ms and the trained model run directly "
                              "{1} ms: the static model is {2}× as fast").format(
                f"{static_ms:.1f}", f"{eager_ms:.1f}", f"{eager_ms / static_ms:.2f}" if static_ms > 0 else "–")
        else:
            text = QCoreApplication.translate(
                "ExportPage", "Per request, the exported static model takes {0} ms and the trained model run directly "
                              "{1} ms: the static model is slower, {2}× as long").format(
                f"{static_ms:.1f}", f"{eager_ms:.1f}", f"{static_ms / eager_ms:.2f}")
        parts.append(text)
    elif static_ms is not None:
        parts.append(QCoreApplication.translate("ExportPage", "Static model {0} ms per request").format(f"{static_ms:.1f}"))
    tput, batch = _num(lat.get("throughput_samples_per_s")), _num(lat.get("throughput_batch"))
    if tput is not None:
        parts.append(QCoreApplication.translate("ExportPage", "{0} samples/s at batch {1}").format(f"{tput:.0f}", int(batch or 1)))
    device = str(lat.get("device") or "")
    threads = _num(lat.get("threads"))
    if device:
        where = QCoreApplication.translate("ExportPage", "CPU with oneDNN") if device == "cpu+onednn" else (
            QCoreApplication.translate("ExportPage", "CPU") if device == "cpu" else device.upper())
        if threads:
            where += ", " + QCoreApplication.translate("ExportPage", "{0} threads").format(int(threads))
        parts.append(where)
    return " · ".join(parts)


def plain_figure(v: float) -> str:
    """A small figure with two significant digits and no exponent: 0.0000031, 0.12, 120."""
    if v == 0:
        return "0"
    digits = max(0, 1 - math.floor(math.log10(abs(v))))
    return f"{v:.{digits}f}"


def difference_text(diff: float | None, relative: float | None) -> str:
    """How far an exported model's outputs are from the trained model's: "identical", or the
    largest difference, as a share of the largest output where the check measured that."""
    if diff is None:
        return "–"
    if diff == 0:
        return QCoreApplication.translate("ExportPage", "identical")
    if relative is not None:
        return QCoreApplication.translate("ExportPage", "largest difference {0}% of the largest output").format(
            plain_figure(100 * relative))
    return QCoreApplication.translate("ExportPage", "largest difference {0}").format(plain_figure(diff))


def status_text(status: str | None) -> str:
    return {
        "ok": QCoreApplication.translate("ExportPage", "verified"),
        "failed": QCoreApplication.translate("ExportPage", "not made"),
        "skipped": QCoreApplication.translate("ExportPage", "skipped"),
    }.get(status or "ok", status or "")


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def describe_int8(info: dict) -> str:
    """What the 8-bit model changes: accuracy (or perplexity) and size."""
    parts = []
    a32, a8 = _num(info.get("accuracy_fp32")), _num(info.get("accuracy_int8"))
    if a32 is not None and a8 is not None:
        parts.append(QCoreApplication.translate("ExportPage", "accuracy {0} → {1} ({2:+.1f} points)").format(_pct(a32), _pct(a8), 100 * (a8 - a32)))
    p32, p8 = _num(info.get("perplexity_fp32")), _num(info.get("perplexity_int8"))
    if a32 is None and p32 is not None and p8 is not None:
        parts.append(QCoreApplication.translate("ExportPage", "perplexity {0} → {1}").format(f"{p32:.2f}", f"{p8:.2f}"))
    agree = _num(info.get("label_agreement"))
    if agree is None:
        agree = _num(info.get("next_token_agreement"))
    if agree is not None:
        parts.append(QCoreApplication.translate("ExportPage", "same answer as the full model on {0} of the rows").format(_pct(agree)))
    s32, s8 = _num(info.get("size_mb_fp32")), _num(info.get("size_mb_int8"))
    if s32 is not None and s8 is not None:
        parts.append(QCoreApplication.translate("ExportPage", "weights {0} MB instead of {1} MB").format(f"{s8:.1f}", f"{s32:.1f}"))
    return " · ".join(parts)


def _human_size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def bundle_entries(folder: Path) -> list[tuple[str, int, str]]:
    """(name, size in bytes, what it is) of the top-level entries of a bundle folder."""
    what = {
        "README.md": QCoreApplication.translate("ExportPage", "model card: evaluation figures, checks, how to use it"),
        "bundle.json": QCoreApplication.translate("ExportPage", "the bundle's description and every check's figures"),
        "predict.py": QCoreApplication.translate("ExportPage", "stand-alone prediction script (CSV/JSONL in, predictions out)"),
        "requirements.txt": QCoreApplication.translate("ExportPage", "the packages predict.py and serve.py need"),
        "requirements.lock": QCoreApplication.translate("ExportPage", "every package they need, exact versions with hashes"),
        "wheels": QCoreApplication.translate("ExportPage", "those packages' files, to install without internet"),
        "static": format_title("static"),
        "merged": format_title("merged"),
        "onnx": format_title("onnx"),
        "gguf": format_title("gguf"),
        "int8": QCoreApplication.translate("ExportPage", "8-bit (int8) static model"),
        "tokenizer": QCoreApplication.translate("ExportPage", "tokenizer files"),
        "serve.py": QCoreApplication.translate("ExportPage", "prediction service (HTTP, OpenAI-compatible for answers)"),
        "bundle_runtime.py": QCoreApplication.translate("ExportPage", "the model code predict.py and serve.py share"),
        "serve_batcher.py": QCoreApplication.translate("ExportPage", "the service's batching of concurrent requests"),
        "serve_requests.py": QCoreApplication.translate("ExportPage", "what a request to the service may contain"),
        "io_sniff.py": QCoreApplication.translate("ExportPage", "how predict.py reads files: the application's own rules"),
        "io_header.py": QCoreApplication.translate("ExportPage", "how predict.py tells a header line from data"),
        "Dockerfile": QCoreApplication.translate("ExportPage", "builds a container image that runs serve.py"),
        "onnx_generate": QCoreApplication.translate("ExportPage", "ONNX step of generation with a key/value cache"),
    }
    out = []
    try:
        children = sorted(folder.iterdir(), key=lambda p: (p.is_file(), p.name))
    except OSError:
        return out
    for p in children:
        if p.name.startswith("."):
            continue
        try:
            size = sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size
        except OSError:
            size = 0
        out.append((p.name + ("/" if p.is_dir() else ""), size, what.get(p.name, "")))
    return out


class ExportPage(QWidget):
    export_finished = Signal(object)  # the result dict or None

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
        self.result: dict | None = None
        self.bundle_dir: Path | None = None
        self.export_op = None  # the running 'workbench export' child, if any
        self._export_root: Path | None = None  # the project that export belongs to
        self._build()
        session.project_changed.connect(self._on_session_project_changed)
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
        # two columns: one check a row left the bundle's contents two rows at 1366x768
        grid = QGridLayout()
        grid.setHorizontalSpacing(24)
        self.format_checks: dict[str, QCheckBox] = {}
        for i, fmt in enumerate(FORMATS):
            c = QCheckBox(format_title(fmt))
            c.setChecked(fmt in DEFAULT_FORMATS)  # what the command line makes unless told otherwise
            self.format_checks[fmt] = c
            grid.addWidget(c, i // 2, i % 2)
        self.int8_check = QCheckBox(self._int8_title(None))
        grid.addWidget(self.int8_check, (len(FORMATS) + 1) // 2, 0)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        bv.addLayout(grid)
        self.wheelhouse_check = QCheckBox(self.tr("Also the files of every package it needs (wheels/, about 240 MB), "
                                                  "so it installs on a computer without internet"))
        self.wheelhouse_check.setToolTip(self.tr("Downloaded once now, for the system chosen below; then "
                                                 "'pip install --no-index --find-links wheels -r requirements.lock' "
                                                 "needs no network there, and the Dockerfile installs from them."))
        grid.addWidget(self.wheelhouse_check, (len(FORMATS) + 1) // 2, 1)
        target_row = QHBoxLayout()
        self.target_combo = QComboBox()
        for key in BUNDLE_TARGETS:
            self.target_combo.addItem(target_title(key), key)
        self.target_combo.setCurrentIndex(self.target_combo.findData(DEFAULT_TARGET))
        self.target_combo.setToolTip(self.tr("The system requirements.lock (the hashes of its packages' files) and "
                                             "wheels/ are for. The bundle's Dockerfile builds a Linux image, so "
                                             "Linux x86-64 is the default."))
        target_row.addWidget(QLabel(self.tr("Packages for")))
        target_row.addWidget(self.target_combo, 1)
        bv.addLayout(target_row)
        intro = QLabel(self.tr("The bundle holds the model, a stand-alone predict.py, its requirements and a model card "
                               "with the evaluation figures. Every format is checked against the trained model."))
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        bv.addWidget(intro)
        self.memory_label = QLabel()  # what the ticked formats will take, before they are made
        self.memory_label.setWordWrap(True)
        self.memory_label.setObjectName("hint")
        bv.addWidget(self.memory_label)
        for c in [*self.format_checks.values(), self.int8_check]:
            c.toggled.connect(self._show_memory_needed)
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
        self.progress = OpProgress(label=False)  # progress and Cancel while the export runs; the status says the stage
        self.progress.cancel_button.clicked.connect(lambda: self.status_label.setText(self.tr("Cancelling…")))
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # the bundle's path, for a system where no file manager opens it
        self.path_copy = CopyButton(lambda: str(self.bundle_dir) if self.bundle_dir else "")
        self.path_copy.setToolTip(self.tr("Copy the bundle folder's path"))
        self.path_copy.hide()
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels([self.tr("Format"), self.tr("Status"), self.tr("Check against the trained model"),
                                              self.tr("Files")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        th = self.table.horizontalHeader()
        th.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        th.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # long checks are cut; the tooltip has them whole
        th.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        th.setStretchLastSection(False)
        th.resizeSection(3, 280)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.table.setSizeAdjustPolicy(QAbstractItemView.SizeAdjustPolicy.AdjustToContents)
        self.latency_label = QLabel()
        self.latency_label.setWordWrap(True)
        self.latency_label.setTextFormat(Qt.TextFormat.RichText)
        self.contents = QTableWidget(0, 3)
        self.contents.setHorizontalHeaderLabels([self.tr("File or folder"), self.tr("Size"), self.tr("What it is")])
        self.contents.verticalHeader().setVisible(False)
        self.contents.verticalHeader().setDefaultSectionSize(26)
        self.contents.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.contents.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.contents.setShowGrid(False)
        self.contents.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.contents.horizontalHeader().setStretchLastSection(True)
        self.contents.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(2000)
        self.log.setPlaceholderText(self.tr("The export command's messages appear here while it runs."))
        self.log.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        # the checks, the contents and the log share the room below: each gets all of it
        self.checks_tab = QWidget()
        cv = QVBoxLayout(self.checks_tab)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.addWidget(self.table)
        cv.addWidget(self.latency_label)
        cv.addStretch(1)
        self.details = QTabWidget()
        self.details.addTab(self.checks_tab, self.tr("Checks"))
        self.details.addTab(self.contents, self.tr("Bundle contents"))
        self.details.addTab(self.log, self.tr("Export log"))
        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(box)
        lay.addLayout(buttons)
        lay.addWidget(self.progress)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status_label, 1)
        status_row.addWidget(self.path_copy, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(status_row)
        lay.addWidget(self.details, 1)

    def on_shown(self) -> None:
        self.refresh_runs()

    @Slot()
    def _on_session_project_changed(self) -> None:
        # nothing of the previous project stays: "Exported into …" and the log named its folders
        self.status_label.clear()
        self.log.clear()
        self.result = None
        self.refresh_runs()

    def _same_project(self) -> bool:
        """Whether the project the running export belongs to is still the one open."""
        project = self.session.project
        return project is not None and project.root == self._export_root

    @Slot()
    def refresh_runs(self) -> None:
        fill_run_combo(self.run_combo, self.session.monitor.runs,
                       lambda st: run_operations.can_export(self.session.monitor.summary(st.run_id)),
                       self.tr("(no finished run yet: train one on the Train page)"),
                       follow=self.export_op is None)  # an export keeps its run on screen
        self._on_run_combo_changed()

    @Slot()
    def _on_run_combo_changed(self, *_):
        run_id = self.run_combo.currentData()
        self.export_button.setEnabled(run_id is not None and self.export_op is None)
        self._offer_int8(run_id)
        self._offer_gguf(run_id)
        self._show_memory_needed()
        self.show_existing(run_id)

    def ticked_formats(self) -> list[str]:
        return [f for f, c in self.format_checks.items() if c.isChecked() and c.isEnabled()]

    @Slot()
    def _show_memory_needed(self, *_) -> None:
        """The export's peak memory for the ticked formats (core estimates it), against what is free."""
        run_id = self.run_combo.currentData()
        formats = self.ticked_formats()
        if run_id is None or self.session.project is None or not formats:
            self.memory_label.setText("")
            return
        try:
            need = export_estimate(self.session.project.runs_dir / run_id, formats,
                                   int8=self.int8_check.isChecked() and self.int8_check.isEnabled())
        except WorkbenchError:
            self.memory_label.setText("")
            return
        gb = f"{need.memory_mb / 1024:.1f}"
        if need.fits:  # what is free only where it is short: the reading moves from second to second
            self.memory_label.setObjectName("hint")
            self.memory_label.setText(self.tr("This export needs about {0} GB of memory.").format(gb))
        else:
            self.memory_label.setObjectName("warning")
            self.memory_label.setText(self.tr("This export needs about {0} GB of memory, and only {1} GB is free now: "
                                              "close other programs, or tick fewer formats.")
                                      .format(gb, f"{need.available_mb / 1024:.1f}"))
        self.memory_label.style().polish(self.memory_label)

    def _int8_title(self, why: str | None) -> str:
        if why:
            return self.tr("No 8-bit (int8) model for this run: the built-in classifier has nothing to quantise")
        return self.tr("Also an 8-bit (int8) model: smaller and faster on processors, slightly less exact")

    def _offer_int8(self, run_id: str | None) -> None:
        """int8 is offered only where there is something to quantise (core decides)."""
        why = None
        if run_id is not None and self.session.project is not None:
            why = run_int8_refusal(self.session.project.runs_dir / run_id)
        self.int8_check.setEnabled(why is None)
        if why:
            self.int8_check.setChecked(False)
        self.int8_check.setText(self._int8_title(why))
        self.int8_check.setToolTip({
            "builtin_classifier": self.tr("The built-in classifier has nothing for int8 to quantise: its weights are "
                                          "tables of character n-gram embeddings, and its linear layers hold under "
                                          "1 % of them. Its static model is the one to ship."),
        }.get(why, self.tr("Weight-only int8 of the model's linear layers, checked against the fp32 model.")))

    def _offer_gguf(self, run_id: str | None) -> None:
        """GGUF is offered only for a language model (core decides): the export refused it late."""
        why = None
        if run_id is not None and self.session.project is not None:
            why = run_gguf_refusal(self.session.project.runs_dir / run_id)
        box = self.format_checks["gguf"]
        box.setEnabled(why is None)
        if why == "head":
            box.setChecked(False)
            box.setText(self.tr("No GGUF file for this run: a model with a classification head writes no text"))
            box.setToolTip(self.tr("llama.cpp and ollama run language models that write text; this model answers "
                                   "a probability for each of the project's labels, which has no GGUF form. Its "
                                   "static model (and ONNX) carry the head, and predict.py and serve.py run it."))
        elif why:
            box.setChecked(False)
            box.setText(self.tr("No GGUF file for this run: the built-in classifier is not a language model"))
            box.setToolTip(self.tr("llama.cpp and ollama run language models; the built-in classifier is an "
                                   "n-gram classifier with a classification head, which has no GGUF form. Its "
                                   "static model is the one to ship."))
        else:
            box.setText(format_title("gguf"))
            box.setToolTip("")

    def show_existing(self, run_id: str | None) -> None:
        """The checks of an earlier export of this run, read from its bundle.json."""
        self.table.setRowCount(0)
        self.contents.setRowCount(0)
        self.latency_label.setText("")
        self.bundle_dir = None
        self.open_button.setEnabled(False)
        self.path_copy.hide()
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
            formats = {f: checks[f] for f in FORMATS if f in checks and checks[f].get("shipped", True)}
            self.show_result({"formats": formats, "latency": checks.get("latency"), "int8": checks.get("int8"),
                              "predict_script": checks.get("predict_script"),
                              "requirements": checks.get("requirements"), "out": str(folder)})
            self.status_label.setText(self.tr("Exported earlier into {0}.").format(folder))

    @Slot()
    def _on_export_button_clicked(self) -> None:
        self.export()

    def export_args(self, run_id: str) -> list[str]:
        """The 'workbench export' command line for ``run_id`` with the ticked formats."""
        formats = self.ticked_formats()
        args = ["export", "--project", str(self.session.project.root), "--run", run_id,
                "--formats", ",".join(formats), "--json"]
        if self.int8_check.isChecked() and self.int8_check.isEnabled():
            args.append("--int8")
        if self.wheelhouse_check.isChecked():
            args.append("--wheelhouse")
        args += ["--target-platform", self.target_combo.currentData()]
        return args

    def export(self) -> bool:
        run_id = self.run_combo.currentData()
        if run_id is None or self.session.project is None or self.export_op is not None:
            return False
        if not any(c.isChecked() for c in self.format_checks.values()):
            self.background.show_error(self.tr("No format chosen"), self.tr("Tick at least one format to export."))
            return False
        self.export_button.setEnabled(False)
        self._export_root = self.session.project.root
        self.path_copy.hide()
        self.status_label.setText(self.tr("Exporting {0} in a separate process…").format(run_id))
        self.log.clear()
        self.table.setRowCount(0)
        self.contents.setRowCount(0)
        self.latency_label.setText("")
        self.details.setCurrentWidget(self.log)
        op = self.background.command(self.export_args(run_id), self.tr("Exporting {0}").format(run_id))
        op.stage_progress.connect(self._on_export_stage)
        self._noise = NoiseFilter()
        op.log_line.connect(self._on_export_log_line)  # the command's own messages, as they come
        op.succeeded.connect(self._on_export_succeeded)
        op.failed.connect(self._on_export_failed)
        op.cancelled.connect(self._on_export_cancelled)
        op.finished.connect(self._on_export_finished)
        self.export_op = op
        self.progress.follow(op)
        op.run()
        return True

    @Slot(str)
    def _on_export_log_line(self, line: str) -> None:
        if not self._same_project():
            return
        if not self._noise.is_noise(line):  # the libraries' warnings and info lines say nothing here
            self.log.appendPlainText(line)

    @Slot(str, float, float)
    def _on_export_stage(self, stage: str, done: float, total: float) -> None:
        if not self._same_project():
            return
        self.status_label.setText(self.tr("Exporting: {0}").format(stage_text(stage)))
        if done == 0 or done == total:
            self.log.appendPlainText("▶ " + stage_text(stage) + (f" {int(done)}/{int(total)}" if total > 1 else ""))

    @Slot(object)
    def _on_export_succeeded(self, result) -> None:
        if not self._same_project():  # another project was opened meanwhile: its page stays as it is
            self.export_finished.emit(result if isinstance(result, dict) else None)
            return
        if not isinstance(result, dict):
            self._on_export_failed(self.tr("The export printed no result."))
            self.background.show_error(self.tr("Export failed"), self.tr("The export printed no result."))
            return
        self.result = result
        self.show_result(result)
        self.status_label.setText(self.tr("Exported into {0}.").format(result.get("out", "")))
        self.session.state_changed.emit()
        self.export_finished.emit(result)

    @Slot(str)
    def _on_export_failed(self, message: str) -> None:
        if not self._same_project():
            self.export_finished.emit(None)
            return
        self.status_label.setText(message)
        self.details.setCurrentWidget(self.log)
        self.export_finished.emit(None)

    @Slot()
    def _on_export_cancelled(self) -> None:
        if not self._same_project():
            self.export_finished.emit(None)
            return
        self.status_label.setText(self.tr("Export cancelled; nothing was written."))
        self.export_finished.emit(None)

    @Slot()
    def _on_export_finished(self) -> None:
        self.export_op = None
        self.export_button.setEnabled(self.run_combo.currentData() is not None)

    def show_result(self, result: dict) -> None:
        self.result = result
        rows: list[tuple[str, str, str, str, str]] = []  # format, status, check, files, tooltip
        for fmt, info in (result.get("formats") or {}).items():
            info = info or {}
            diff = _num(info.get("max_abs_diff"))
            status = info.get("status") or "ok"
            reason = str(info.get("reason") or "")
            if status == "ok":
                check = difference_text(diff, _num(info.get("relative_diff")))
            else:
                check = reason or "–"
            rows.append((format_title(fmt), status_text(status), check, join_list(info.get("files") or []), reason))
        int8 = result.get("int8")
        if isinstance(int8, dict):
            status = int8.get("status") or "ok"
            reason = str(int8.get("reason") or "")
            check = describe_int8(int8) if status == "ok" else (reason or "–")
            rows.append((self.tr("8-bit (int8) static model"), status_text(status), check,
                         join_list(int8.get("files") or []), reason or check))
        script = result.get("predict_script")
        if isinstance(script, dict) and script.get("rows"):
            check = self.tr("same answers as the evaluation on {0} of {1} test rows").format(
                script.get("same_as_engine", 0), script.get("rows"))
            rows.append((self.tr("predict.py (run as a user would)"), status_text(script.get("status")), check,
                         "predict.py", str(script.get("reason") or "") if script.get("status") == "failed" else ""))
        req = result.get("requirements") or (result.get("checks") or {}).get("requirements")
        if isinstance(req, dict) and req.get("packages"):
            rows.append(self.requirements_row(req))
        self.table.setRowCount(len(rows))
        for i, (title, status, check, files, tip) in enumerate(rows):
            for c, v in enumerate((title, status, check, files)):
                item = QTableWidgetItem(v)
                item.setToolTip(tip if c == 2 and tip else v)
                if c == 1 and status == status_text("failed"):
                    item.setForeground(Qt.GlobalColor.darkRed)
                self.table.setItem(i, c, item)
        lat = result.get("latency") or {}
        if isinstance(lat, dict) and lat:
            self.latency_label.setText(self.tr("<b>Speed</b> (median per request on this computer): {0}").format(
                describe_latency(lat)))
            if lat.get("cpu"):
                self.latency_label.setToolTip(self.tr("Processor: {0}; measured on {1} requests, one at a time.").format(
                    lat.get("cpu"), lat.get("samples", "?")))
        out = result.get("out")
        self.bundle_dir = Path(out) if out else None
        self.open_button.setEnabled(bool(self.bundle_dir and self.bundle_dir.is_dir()))
        self.path_copy.setVisible(self.open_button.isEnabled())
        self._show_contents()

    def requirements_row(self, req: dict) -> tuple[str, str, str, str, str]:
        """The table row of bundle.json's ``requirements`` check: pins, hashes, the wheelhouse."""
        if req.get("hashes"):
            check = self.tr("{0} packages at the exported versions, with hashes").format(req["packages"])
        else:
            check = self.tr("{0} packages at the exported versions; no hashes: {1}").format(
                req["packages"], req.get("reason") or "–")
        if req.get("target"):
            check += self.tr("; for {0}").format(target_title(req["target"]))
        files = "requirements.lock"
        wheels = req.get("wheelhouse")
        if isinstance(wheels, dict):
            check += self.tr("; wheels/: {0} files, {1} MB, installs without network (checked)").format(
                wheels.get("wheels"), wheels.get("size_mb"))
            files += ", wheels/"
        return self.tr("Requirements"), status_text("ok"), check, files, check

    def _show_contents(self) -> None:
        entries = bundle_entries(self.bundle_dir) if self.bundle_dir and self.bundle_dir.is_dir() else []
        self.contents.setRowCount(len(entries))
        for i, (name, size, what) in enumerate(entries):
            size_item = QTableWidgetItem(_human_size(size))
            size_item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.contents.setItem(i, 0, QTableWidgetItem(name))
            self.contents.setItem(i, 1, size_item)
            self.contents.setItem(i, 2, QTableWidgetItem(what))
        if entries:
            self.details.setCurrentWidget(self.checks_tab)

    @Slot()
    def _on_open_button_clicked(self) -> bool:
        if self.bundle_dir is None:
            return False
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.bundle_dir))):
            self.status_label.setText(self.tr("No program opened the bundle's folder. It is {0}; open it in a "
                                              "file manager, or copy its path.").format(self.bundle_dir))
            self.path_copy.show()
            return False
        return True

    def shutdown(self) -> None:
        if self.export_op is not None:
            self.export_op.cancel()
