"""Step 3: choose a base model and settings, train in a worker process, watch it live.

The worker is a separate process (started by ``core.runs.launch_worker``) that keeps
training if the window closes; this page reads its events through the session's
:class:`~workbench.gui.run_monitor.RunMonitor` and appends them to the curves.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout,
    QLabel, QLineEdit, QPlainTextEdit, QProgressBar, QPushButton, QScrollArea, QSpinBox,
    QSplitter, QTabWidget, QVBoxLayout, QWidget,
)

from ...core.errors import WorkbenchError
from ...core.jobs import JobSpec
from ...core.machine_load import busy_share
from ...core.operations import runs as ops
from ...core.recommend import DEFAULT_TIME_BUDGET_MIN
from ...core.templates import Task
from ...core.runs import RunBusy, format_duration
from ..i18n import localized
from ..resources import icon
from ..session import ProjectSession
from ..tasks import TaskManager
from ..widgets.curves import PALETTE, CurvePlot
from .run_text import metric_title, status_text
from .train import delete_run, models_panel
from .train.runs_list import CompareView, RunsTable
from .train.servers import ServersDialog, TargetCombo

# hyper-parameter -> (JobSpec field, integer?, decimals)
HYPER = {
    "learning_rate": (False, 6),
    "epochs": (False, 3),  # a time budget may allow a share of one epoch (core/recommend.py)
    "batch_size": (True, 0),
    "max_length": (True, 0),
    "lora_r": (True, 0),
    "lora_alpha": (False, 1),
    "lora_dropout": (False, 3),
    "warmup_ratio": (False, 3),
    "gradient_accumulation_steps": (True, 0),
    "weight_decay": (False, 3),
}
LORA_ONLY = ("lora_r", "lora_alpha", "lora_dropout")


def hyper_label(name: str) -> str:
    return {
        "learning_rate": QCoreApplication.translate("TrainPage", "Learning rate"),
        "epochs": QCoreApplication.translate("TrainPage", "Epochs"),
        "batch_size": QCoreApplication.translate("TrainPage", "Rows per step (batch)"),
        "max_length": QCoreApplication.translate("TrainPage", "Maximum length (tokens)"),
        "lora_r": QCoreApplication.translate("TrainPage", "LoRA rank"),
        "lora_alpha": QCoreApplication.translate("TrainPage", "LoRA scaling"),
        "lora_dropout": QCoreApplication.translate("TrainPage", "LoRA dropout"),
        "warmup_ratio": QCoreApplication.translate("TrainPage", "Warm-up share"),
        "gradient_accumulation_steps": QCoreApplication.translate("TrainPage", "Gradient accumulation"),
        "weight_decay": QCoreApplication.translate("TrainPage", "Weight decay"),
        "base_model": QCoreApplication.translate("TrainPage", "Base model"),
        "method": QCoreApplication.translate("TrainPage", "Method"),
        "max_steps": QCoreApplication.translate("TrainPage", "Stop after steps"),
        "eval_steps": QCoreApplication.translate("TrainPage", "Check every (steps)"),
        "save_steps": QCoreApplication.translate("TrainPage", "Save every (steps)"),
        "logging_steps": QCoreApplication.translate("TrainPage", "Log every (steps)"),
        "save_total_limit": QCoreApplication.translate("TrainPage", "Checkpoints kept"),
        "seed": QCoreApplication.translate("TrainPage", "Random seed"),
        "device": QCoreApplication.translate("TrainPage", "Device"),
        "precision": QCoreApplication.translate("TrainPage", "Precision"),
        "quantization": QCoreApplication.translate("TrainPage", "Quantisation"),
        "lr_scheduler": QCoreApplication.translate("TrainPage", "Learning rate schedule"),
        "lora_target_modules": QCoreApplication.translate("TrainPage", "LoRA layers"),
        "allow_pickle": QCoreApplication.translate("TrainPage", "Pickle weights allowed"),
        "vocabulary": QCoreApplication.translate("TrainPage", "Vocabulary trained over"),
        "recompute": QCoreApplication.translate("TrainPage", "Layers recomputed (less memory)"),
    }.get(name, name)


fmt_secs = format_duration
REAP_INTERVAL_MS = 2000
# how often the processor's load is read while the page is in view (the window between two
# reads is the measure: core/machine_load.py), and the steps its share is shown in
LOAD_INTERVAL_MS = 3000
LOAD_STEP = 0.05


class TrainPage(QWidget):
    run_started = Signal(str)
    curve_updated = Signal(str, int)  # run id, loss points so far

    def __init__(self, session: ProjectSession, tasks: TaskManager, parent=None):
        super().__init__(parent)
        self.session = session
        self.tasks = tasks
        self.current_run: str | None = None
        self._last_step: dict | None = None
        self._estimate: dict | None = None  # the run's latest "estimate" event (core/timing.py)
        self._run_t0: float | None = None  # when the worker (the latest start or resume) started
        self._starts = 0  # start events: more than one after a resume
        self._budget_s: float | None = None  # the run's time budget, as its estimate events carry it
        # workers this window started: waited for once they end, or each stays a <defunct> process
        self._workers: list = []
        self._reap_timer = QTimer(self)
        self._reap_timer.setInterval(REAP_INTERVAL_MS)
        self._reap_timer.timeout.connect(self._reap_workers)
        # the share of the processor other work keeps busy, which the estimate counts on (None: not read yet)
        self._cpu_busy: float | None = None
        self._cpu_cores: int | None = None  # the logical cores that share is of (None: this computer's)
        self._load_timer = QTimer(self)
        self._load_timer.setInterval(LOAD_INTERVAL_MS)
        self._load_timer.timeout.connect(self._on_load_timer_timeout)
        self.total_steps: int | None = None
        self.spins: dict[str, QDoubleSpinBox | QSpinBox] = {}
        self._row_updated: dict[str, float] = {}
        self._build()
        session.project_changed.connect(self._on_session_project_changed)
        session.data_prepared.connect(self._on_session_project_changed)
        session.monitor.events_arrived.connect(self._on_monitor_events_arrived)
        session.monitor.status_changed.connect(self._on_monitor_status_changed)
        session.monitor.runs_changed.connect(self._refresh_runs_table)
        self._on_session_project_changed()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        # settings column
        settings = QWidget()
        sv = QVBoxLayout(settings)
        model_box = QGroupBox(self.tr("Base model"))
        mf = QFormLayout(model_box)
        self.model_combo = QComboBox()
        self.model_combo.addItem(self.tr("Built-in tiny model (trains in a minute)"), "builtin:tiny")
        self.model_combo.addItem(self.tr("Built-in small model (trains in minutes)"), "builtin:small")
        self.model_combo.addItem(self.tr("A model folder on this computer…"), "folder")
        self.model_combo.addItem(self.tr("A model id (downloaded)"), "id")
        self.model_combo.setToolTip(self.tr("The built-in models are trained from scratch on your data so that everything "
                                            "works offline on any computer; they show the flow, not production quality. "
                                            "For real use pick a downloaded ERNIE, Qwen or Llama folder."))
        self.model_combo.currentIndexChanged.connect(self._on_model_combo_changed)
        self.model_edit = QLineEdit()
        self.model_edit.setPlaceholderText(self.tr("folder or model id"))
        self.model_edit.editingFinished.connect(self._update_estimate)
        self.browse_button = QPushButton(self.tr("Browse…"))
        self.browse_button.clicked.connect(self._on_browse_button_clicked)
        row = QHBoxLayout()
        row.addWidget(self.model_edit, 1)
        row.addWidget(self.browse_button)
        self.method_combo = QComboBox()
        self.method_combo.addItem(self.tr("LoRA (small add-on, fast)"), "lora")
        self.method_combo.addItem(self.tr("Full fine-tuning (all weights)"), "full")
        self.method_combo.setToolTip(self.tr("LoRA trains a small add-on and keeps the base model unchanged: faster and "
                                             "needs less memory. Full fine-tuning changes every weight."))
        self.method_combo.currentIndexChanged.connect(self._on_method_changed)
        mf.addRow(self.tr("Model"), self.model_combo)
        mf.addRow("", row)
        # the registered models (core.models_store) in the choice, and adding or getting one
        self.models_panel = models_panel.ModelsPanel(self.tasks, self)
        self.models_panel.models_changed.connect(self._on_models_panel_models_changed)
        self.models_panel.model_added.connect(self._on_models_panel_model_added)
        mf.addRow("", self.models_panel)
        models_panel.fill_model_combo(self.model_combo, models_panel.registered_models())
        mf.addRow(self.tr("Method"), self.method_combo)
        self.method_hint = QLabel()
        self.method_hint.setObjectName("hint")
        self.method_hint.setWordWrap(True)
        mf.addRow("", self.method_hint)
        sv.addWidget(model_box)

        hp_box = QGroupBox(self.tr("Settings"))
        hv = QVBoxLayout(hp_box)
        prow = QHBoxLayout()
        self.preset_combo = QComboBox()
        self.preset_combo.currentIndexChanged.connect(self._on_preset_combo_changed)
        prow.addWidget(QLabel(self.tr("Preset")))
        prow.addWidget(self.preset_combo, 1)
        self.time_budget = QDoubleSpinBox()
        self.time_budget.setRange(0.5, 24 * 60)
        self.time_budget.setDecimals(1)
        self.time_budget.setValue(DEFAULT_TIME_BUDGET_MIN)
        self.time_budget.setSuffix(self.tr(" min"))
        self.time_budget.setToolTip(self.tr("How long training may take: the recommended settings fit this time on "
                                            "this computer, for every model (a pretrained one may read only part of "
                                            "the data)."))
        self.time_budget.valueChanged.connect(self._on_time_budget_changed)
        hv.addLayout(prow)
        self.hp_form = QFormLayout()
        # a row of its own: beside the preset it widened the column past a 1366-pixel window
        self.hp_form.addRow(self.tr("Time budget"), self.time_budget)
        for name, (is_int, dec) in HYPER.items():
            spin = QSpinBox() if is_int else QDoubleSpinBox()
            if not is_int:
                spin.setDecimals(dec)
            spin.valueChanged.connect(self._on_hyper_changed)
            self.spins[name] = spin
            self.hp_form.addRow(hyper_label(name), spin)
        self.max_steps = QSpinBox()
        self.max_steps.setRange(0, 10_000_000)
        self.max_steps.setSpecialValueText(self.tr("by epochs"))
        self.max_steps.valueChanged.connect(self._on_hyper_changed)
        self.max_steps.setToolTip(self.tr("Stop after this many steps instead of after the epochs; 0 trains for the epochs."))
        self.eval_steps = QSpinBox()
        self.eval_steps.setRange(1, 1_000_000)
        self.eval_steps.setValue(50)
        self.eval_steps.setToolTip(self.tr("How often (in steps) the model is checked on the validation rows and saved."))
        self.hp_form.addRow(self.tr("Stop after steps"), self.max_steps)
        self.hp_form.addRow(self.tr("Check and save every"), self.eval_steps)
        hv.addLayout(self.hp_form)
        self.estimate_label = QLabel()
        self.estimate_label.setWordWrap(True)
        self.estimate_label.setObjectName("hint")
        self.estimate_label.setContentsMargins(6, 4, 6, 0)
        sv.addWidget(hp_box)
        buttons = QHBoxLayout()
        self.start_button = QPushButton(icon("start"), self.tr("Start"))
        self.start_button.setObjectName("primary")
        self.start_button.clicked.connect(self._on_start_button_clicked)
        self.stop_button = QPushButton(icon("stop"), self.tr("Stop"))
        self.stop_button.clicked.connect(self._on_stop_button_clicked)
        self.resume_button = QPushButton(icon("resume"), self.tr("Resume"))
        self.resume_button.clicked.connect(self._on_resume_button_clicked)
        for b in (self.start_button, self.stop_button, self.resume_button):
            buttons.addWidget(b)
        sv.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(settings)
        # as wide as the settings need (with a vertical scroll bar), so they never scroll sideways;
        # measured again once styled and filled (_fit_settings_column)
        scroll.setMinimumWidth(max(340, settings.minimumSizeHint().width()
                                   + scroll.verticalScrollBar().sizeHint().width() + 2 * scroll.frameWidth()))
        self.settings_scroll = scroll
        # the buttons below the scrolled settings, not at their end: always in view, on any screen
        column = QWidget()
        cv = QVBoxLayout(column)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.addWidget(scroll, 1)
        # the estimate under the settings it follows, not at their end: at 1366x768 it was below the fold
        cv.addWidget(self.estimate_label)
        where = QHBoxLayout()
        self.target_combo = TargetCombo()
        # a server's processor is not this one: the estimate drops this computer's load
        self.target_combo.currentIndexChanged.connect(self._on_hyper_changed)
        self.servers_button = QPushButton(self.tr("Servers…"))
        self.servers_button.clicked.connect(self._on_servers_button_clicked)
        where.addWidget(QLabel(self.tr("Train on")))
        where.addWidget(self.target_combo, 1)
        where.addWidget(self.servers_button)
        cv.addLayout(where)
        cv.addLayout(buttons)
        self.buttons_row = buttons

        # live view
        live = QWidget()
        lv = QVBoxLayout(live)
        lv.setContentsMargins(0, 0, 0, 0)
        self.run_title = QLabel(self.tr("No run yet: choose the settings and click Start."))
        self.run_title.setObjectName("sectionTitle")
        self.run_title.setWordWrap(True)
        lv.addWidget(self.run_title)
        # a failed or crashed run: what went wrong and where its log is
        self.failure_banner = QLabel()
        self.failure_banner.setObjectName("warning")
        self.failure_banner.setWordWrap(True)
        self.failure_banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.failure_banner.hide()
        lv.addWidget(self.failure_banner)
        curves = QSplitter(Qt.Orientation.Horizontal)
        self.loss_plot = CurvePlot(self.tr("Loss"), x_label=self.tr("step"))
        self.loss_plot.add_series("loss", self.tr("training loss"), PALETTE[0])
        self.loss_plot.add_series("eval_loss", self.tr("validation loss"), PALETTE[1], symbol="o")
        self.lr_plot = CurvePlot(self.tr("Learning rate"), x_label=self.tr("step"))
        self.lr_plot.add_series("lr", self.tr("learning rate"), PALETTE[2])
        curves.addWidget(self.loss_plot)
        curves.addWidget(self.lr_plot)
        curves.setSizes([560, 360])
        lv.addWidget(curves, 3)
        prog = QHBoxLayout()
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setFormat("%p%")
        self.progress_label = QLabel()
        # a running run's line (pace, time left, the whole run's range) is long in English:
        # it wraps rather than widening the window past a 1366-pixel screen
        self.progress_label.setWordWrap(True)
        prog.addWidget(self.progress, 2)
        prog.addWidget(self.progress_label, 3)
        lv.addLayout(prog)

        self.tabs = QTabWidget()
        # the runs list and the comparison of the runs ticked in it (pages/train/runs_list.py)
        self.runs_table = RunsTable()
        self.runs_table.run_selected.connect(self.select_run)
        self.runs_table.ticks_changed.connect(self.update_comparison)
        self.runs_table.customContextMenuRequested.connect(
            lambda pos: delete_run.show_menu(self, self.runs_table, pos))
        self.compare_view = CompareView(hyper_label)
        self.compare_plot, self.diff_table = self.compare_view.plot, self.compare_view.diff_table
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setMaximumBlockCount(5000)
        self.tabs.addTab(self.runs_table, self.tr("Runs"))
        self.tabs.addTab(self.compare_view, self.tr("Compare runs"))
        self.tabs.addTab(self.log, self.tr("Log"))
        lv.addWidget(self.tabs, 2)

        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(column)
        split.addWidget(live)
        split.setStretchFactor(1, 1)
        split.setSizes([360, 820])
        lay = QVBoxLayout(self)
        lay.addWidget(split)

    # ------------------------------------------------------------------ project
    def _show_template_texts(self, template) -> None:
        """The template's own words (presets, settings' help) in the interface language."""
        for i in range(self.preset_combo.count()):
            k = self.preset_combo.itemData(i)
            if isinstance(k, int) and 0 <= k < len(template.presets):
                self.preset_combo.setItemText(i, localized(template.presets[k].name))
        for name, spin in self.spins.items():
            hp = template.hyperparameters.get(name)
            tip = localized(hp.help) if hp and hp.help else ""
            spin.setToolTip(tip)
            label = self.hp_form.labelForField(spin)
            if label is not None:
                label.setToolTip(tip)

    def on_language_changed(self) -> None:
        if self.session.template is not None:
            self._show_template_texts(self.session.template)
        self._update_estimate()  # its notes come from the core in English: put into words again

    @Slot()
    def _on_session_project_changed(self) -> None:
        template = self.session.template
        self.preset_combo.blockSignals(True)
        self.preset_combo.clear()
        self.preset_combo.addItem(self.tr("Recommended for this data"), -1)
        if template is not None:
            for i, p in enumerate(template.presets):
                self.preset_combo.addItem(localized(p.name), i)
            for name, spin in self.spins.items():
                hp = template.hyperparameters.get(name)
                lo = hp.min if hp and hp.min is not None else 0
                if name == "epochs":  # what the time budget allows comes first, however small
                    lo = min(lo, 10 ** -HYPER["epochs"][1])
                hi = hp.max if hp and hp.max is not None else 1e6
                spin.setRange(lo, hi)
                if isinstance(spin, QDoubleSpinBox):
                    spin.setSingleStep(max((hi - lo) / 100, 10 ** -spin.decimals()))
            self._show_template_texts(template)
        self.preset_combo.blockSignals(False)
        last = ops.last_job(self.session.project) if self.session.project is not None else None
        if last is None:  # no run yet: by epochs, as recommended, not the previous project's limit
            self.max_steps.setValue(0)
        idx = self.model_combo.findData(self._preferred_model())
        self.model_combo.blockSignals(True)
        self.model_combo.setCurrentIndex(max(0, idx))
        self.model_combo.blockSignals(False)
        self._on_model_combo_changed()
        if last is not None:  # reopening continues with the settings the user chose last
            self.restore_settings(last)
        self._refresh_runs_table()
        runs = list(self.session.monitor.runs)
        self.select_run(runs[-1] if runs else None)
        self._update_buttons()
        self._fit_settings_column()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._refill_registered()  # a model may have been added on the command line meanwhile
        self._fit_settings_column()
        busy_share(None)  # the window the next read measures starts now
        self._load_timer.start()

    def hideEvent(self, event) -> None:
        self._load_timer.stop()
        super().hideEvent(event)

    @Slot()
    def _on_load_timer_timeout(self) -> None:
        self.show_processor_load(busy_share(None))  # the use since the last read: returns at once

    def show_processor_load(self, share: float | None, cores: int | None = None) -> None:
        """Count the estimate on ``share`` of the processor (``cores`` logical cores, this computer's
        where not given) busy with other work (core/machine_load.py), in LOAD_STEP steps so that the
        range does not flicker with every read."""
        share = None if share is None else round(round(share / LOAD_STEP) * LOAD_STEP, 3)
        if (share, cores) != (self._cpu_busy, self._cpu_cores):
            self._cpu_busy, self._cpu_cores = share, cores
            self._update_estimate()

    def _is_instruction(self) -> bool:
        template = self.session.template
        return template is not None and template.task is Task.instruction

    def _preferred_model(self) -> str:
        """What a project starts with: an instruction project takes a registered pretrained model
        when there is one (the built-in model only demonstrates the flow there)."""
        preferred = self.session.preferred_base_model
        if self._is_instruction() and preferred == ops.DEFAULT_BASE_MODEL:
            return models_panel.preferred_registered(models_panel.registered_models()) or preferred
        return preferred

    def _refill_registered(self) -> None:
        before = self.model_combo.currentData()
        models_panel.fill_model_combo(self.model_combo, models_panel.registered_models())
        if self.model_combo.currentData() != before:  # the chosen model went: the one a project starts with
            self.model_combo.blockSignals(True)
            self.model_combo.setCurrentIndex(max(0, self.model_combo.findData(self._preferred_model())))
            self.model_combo.blockSignals(False)
            self._on_model_combo_changed()
        else:
            self._update_models_hint()

    @Slot()
    def _on_models_panel_models_changed(self) -> None:
        self._refill_registered()

    @Slot(str)
    def _on_models_panel_model_added(self, model_id: str) -> None:
        models_panel.fill_model_combo(self.model_combo, models_panel.registered_models())
        idx = self.model_combo.findData(model_id)
        if idx >= 0:
            self.model_combo.setCurrentIndex(idx)  # the model just added is the one to train

    def _update_models_hint(self) -> None:
        entries = models_panel.registered_models()
        kind = self.model_combo.currentData()
        self.models_panel.set_selected(kind, entries)
        self.models_panel.update_hint(self._is_instruction(), str(kind).startswith("builtin:"), entries)

    def _fit_settings_column(self) -> None:
        # as wide as its rows need once styled and filled (font, language, preset names decide it),
        # so that no control is cut off on the right behind a horizontal scroll bar
        scroll = self.settings_scroll
        scroll.setMinimumWidth(max(340, scroll.widget().minimumSizeHint().width()
                                   + scroll.verticalScrollBar().sizeHint().width() + 2 * scroll.frameWidth()))

    # ------------------------------------------------------------------ settings
    def base_model(self) -> str:
        kind = self.model_combo.currentData()
        if kind in ("folder", "id"):
            return self.model_edit.text().strip()
        return kind

    @Slot()
    def _on_model_combo_changed(self, *_):
        kind = self.model_combo.currentData()
        custom = kind in ("folder", "id")
        self.model_edit.setEnabled(custom)
        self.browse_button.setEnabled(kind == "folder")
        builtin = str(kind).startswith("builtin:")
        if builtin:
            self.method_combo.setCurrentIndex(self.method_combo.findData("full"))
        elif not self.method_combo.isEnabled():  # leaving a built-in model: a pretrained one starts with LoRA
            self.method_combo.setCurrentIndex(self.method_combo.findData(ops.default_method(str(kind))))
        self.method_combo.setEnabled(not builtin)
        self._update_models_hint()
        self._on_method_changed()
        self.apply_recommended()

    @Slot()
    def _on_browse_button_clicked(self) -> None:
        d = QFileDialog.getExistingDirectory(self, self.tr("Choose a model folder (with config.json)"))
        if d:
            self.model_edit.setText(d)
            self._update_estimate()

    @Slot()
    def _on_method_changed(self, *_):
        lora = self.method_combo.currentData() == "lora"
        for name in LORA_ONLY:
            # the LoRA settings mean nothing when every weight is trained: hide them
            self.spins[name].setEnabled(lora)
            self.hp_form.setRowVisible(self.spins[name], lora)
        self._update_method_hint()
        self._update_estimate()

    def _update_method_hint(self) -> None:
        if str(self.model_combo.currentData()).startswith("builtin:"):
            text = self.tr("The built-in model is built from this project's data and starts untrained, so all of it "
                           "is trained here (LoRA adapts a model that has already learned; it does not apply here).")
        elif self.method_combo.currentData() == "full":
            text = self.tr("Every weight of the model is trained, so there are no LoRA settings.")
        else:
            text = ""
        self.method_hint.setText(text)
        self.method_hint.setVisible(bool(text))

    def recommendation(self):
        template = self.session.template
        if template is None or self.session.project is None:
            return None
        base = self.base_model() or ops.DEFAULT_BASE_MODEL
        return ops.recommended_settings(self.session.project, base, self.method_combo.currentData(),
                                        template=template, time_budget_min=self.time_budget.value())[1]

    def apply_recommended(self) -> None:
        template = self.session.template
        if template is None or self.session.project is None:
            return
        base = self.base_model() or ops.DEFAULT_BASE_MODEL
        values, _ = ops.recommended_settings(self.session.project, base, self.method_combo.currentData(),
                                             template=template, time_budget_min=self.time_budget.value())
        self.eval_steps.setValue(int(values.pop("eval_steps", self.eval_steps.value())))
        self._set_values(values)
        self.preset_combo.blockSignals(True)
        self.preset_combo.setCurrentIndex(0)
        self.preset_combo.blockSignals(False)
        self._update_estimate()

    def _set_values(self, values: dict[str, Any]) -> None:
        for name, v in values.items():
            spin = self.spins.get(name)
            if spin is not None:
                spin.blockSignals(True)
                spin.setValue(int(v) if isinstance(spin, QSpinBox) else float(v))
                spin.blockSignals(False)

    @Slot(int)
    def _on_preset_combo_changed(self, _i: int) -> None:
        data = self.preset_combo.currentData()
        template = self.session.template
        if template is None:
            return
        if data == -1:
            self.apply_recommended()
            return
        self._set_values(template.presets[data].values)
        self._update_estimate()

    @Slot(float)
    def _on_time_budget_changed(self, _v: float) -> None:
        if self.preset_combo.currentIndex() == 0:  # the recommended settings follow the budget
            self.apply_recommended()
        else:
            self._update_estimate()

    @Slot()
    def _on_hyper_changed(self, *_):
        self._update_estimate()

    def _update_estimate(self) -> None:
        rec = self.recommendation()
        if rec is None:
            self.estimate_label.setText("")
            return
        rows = int(self.session.project.config.stats.get("splits", {}).get("train", 0))
        batch = self.spins["batch_size"].value() * self.spins["gradient_accumulation_steps"].value()
        epochs = self.spins["epochs"].value()
        steps = self.max_steps.value() or max(1, int(rows / max(batch, 1) * epochs + 0.999))
        try:  # the range core makes for the job these settings start, as `train` prints it
            span = ops.estimate_range(self.job_spec())
        except (WorkbenchError, ValueError, TypeError):  # no model chosen yet, a setting out of range
            span = None
        if span is None:
            self.estimate_label.setText("")
            return
        notes = self._notes(rec)
        if span.load_factor > 1:  # the range counts on the load: say so, first
            notes.insert(0, self.tr("The processor is {0}% busy with other work: the times above count on about "
                                    "{1:.1f} times as long as on an idle processor.").format(
                round(100 * (span.busy or 0.0)), span.load_factor))
        self.estimate_label.setText(self.tr("About {0} steps, {1} to {2} and {3:.0f} MB of memory on this computer's "
                                            "processor (an estimate from the data size and the model, not a "
                                            "promise).")
                                    .format(steps, fmt_secs(span.low), fmt_secs(span.high), rec.est_memory_mb)
                                    + "".join(f"\n{n}" for n in notes))

    def _notes(self, rec) -> list[str]:
        """The recommendation's notes in the interface language (the built-in model's note is
        the method hint's)."""
        out = []
        for n in rec.notes:
            if n.startswith("The built-in model is trained from scratch"):
                continue
            lowered = re.match(r"Rows per step lowered to (\d+) so that training fits in this computer's (\d+) GB", n)
            if lowered:
                n = self.tr("Rows per step lowered to {0} so that training fits in this computer's {1} GB of "
                            "memory.").format(*lowered.groups())
            recomputed = re.match(r"Layers are recomputed in the backward pass, (\d+) rows a step, so that training "
                                  r"fits in this computer's (\d+) GB of memory; each step takes about ([\d.]+)x", n)
            if recomputed:
                n = self.tr("Layers are recomputed in the backward pass, {0} rows a step, so that training fits in "
                            "this computer's {1} GB of memory; each step takes about {2}x as long.").format(
                    *recomputed.groups())
            if n.startswith("One pass over the training rows") and rec.data_share and rec.epoch_seconds:
                n = self.tr("One pass over the training rows takes about {0} on this computer, more than the time "
                            "budget, so training reads about {1:.0%} of them; a larger budget or a GPU trains on "
                            "all of them.").format(fmt_secs(rec.epoch_seconds), rec.data_share)
            if n.startswith("This would take hours on the CPU"):
                n = self.tr("This would take hours on the processor: a GPU, a smaller model or fewer epochs help.")
            out.append(n)
        return out

    def job_spec(self) -> JobSpec:
        base = self.base_model()
        if not base:
            raise WorkbenchError(self.tr("Choose a base model: a model folder on this computer or a model id."))
        values = {name: spin.value() for name, spin in self.spins.items()}
        if self.method_combo.currentData() != "lora":
            for name in LORA_ONLY:
                values.pop(name)
        job = ops.build_job(self.session.project, base, self.method_combo.currentData(),
                            template=self.session.template, time_budget_min=self.time_budget.value(),
                            max_steps=self.max_steps.value(),
                            eval_steps=self.eval_steps.value(), **values)
        # the load read last (none yet: Start reads it); a server's run carries none of this computer's
        return ops.with_processor_load(job, self.target_combo.currentData(), self._cpu_busy, self._cpu_cores,
                                       measure=False)

    def restore_settings(self, job: JobSpec) -> None:
        """Show the settings of ``job`` (the project's last run) so reopening continues from them."""
        idx = self.model_combo.findData(job.base_model_name or job.base_model)
        self.model_combo.blockSignals(True)
        if idx >= 0:
            self.model_combo.setCurrentIndex(idx)
        else:
            self.model_combo.setCurrentIndex(self.model_combo.findData(
                "folder" if Path(job.base_model).exists() else "id"))
            self.model_edit.setText(job.base_model)
        self.model_combo.blockSignals(False)
        self._on_model_combo_changed()  # method, LoRA rows and the recommended values first
        self.method_combo.setCurrentIndex(max(0, self.method_combo.findData(job.method)))
        self._set_values({name: getattr(job, name) for name in self.spins})
        self.max_steps.setValue(max(0, job.max_steps))
        self.eval_steps.setValue(job.eval_steps)
        self._update_estimate()

    # ------------------------------------------------------------------ start / stop / resume
    @Slot()
    def _on_start_button_clicked(self) -> None:
        self.start()

    def start(self) -> str | None:
        if not self.session.is_prepared:
            self.tasks.show_error(self.tr("The data is not prepared"),
                                  self.tr("Prepare the data on the Data page first (Save and prepare the data)."))
            return None
        on = self.target_combo.currentData()
        try:
            job = self.job_spec()
            if on:  # the upload and the start over SSH run off the UI thread
                return self._start_on(job, on)
            started = ops.start_run(self.session.project, job)
        except ops.MultiLabelNeedsBuiltin as exc:
            self.tasks.show_error(self.tr("Training could not start"), self.tr(
                "This project has several labels per row, which only the built-in model learns: choose "
                "a built-in model (tiny or small) instead of {0}. A pretrained model can be trained on a project with one label "
                "per row (switch multi-label off on the Data page and prepare again).").format(exc.base_model))
            return None
        except (WorkbenchError, OSError, ValueError) as exc:
            self.tasks.show_error(self.tr("Training could not start"), exc)
            return None
        self._keep_worker(started.proc)
        self.session.monitor.attach(started.run_dir)
        self._refresh_runs_table()
        self.select_run(started.run_id)
        self.tabs.setCurrentIndex(0)
        self.run_started.emit(started.run_id)
        return started.run_id

    def _keep_worker(self, proc) -> None:
        import subprocess

        if isinstance(proc, subprocess.Popen):  # a local worker (a server run's mirror is the monitor's)
            self._workers.append(proc)
            self._reap_timer.start()

    @Slot()
    def _reap_workers(self) -> None:
        """Wait for the workers that have ended (poll() reaps them); stop once none is left."""
        self._workers = [p for p in self._workers if p.poll() is None]
        if not self._workers:
            self._reap_timer.stop()

    def _start_on(self, job, on: str):
        project = self.session.project

        def done(started):
            started.proc.close()  # the monitor keeps its own mirror of the run (core.remote.ensure_mirror)
            self.session.monitor.attach(started.run_dir)
            self._refresh_runs_table()
            self.select_run(started.run_id)
            self.tabs.setCurrentIndex(0)
            self.run_started.emit(started.run_id)

        def failed(exc):
            self.tasks.show_error(self.tr("Training could not start"), exc)

        self.start_button.setEnabled(False)
        op = self.tasks.op(lambda ctx: ops.start_run(project, job, on=on),
                           self.tr("Starting the run on server {0}").format(on))
        op.on_success(done).on_failure(failed)
        op.run()
        return op

    @Slot()
    def _on_servers_button_clicked(self) -> None:
        dialog = ServersDialog(self.tasks, self)
        dialog.servers_changed.connect(self.target_combo.refresh)
        dialog.open()

    @Slot()
    def _on_stop_button_clicked(self) -> None:
        if self.current_run:
            self.stop(self.current_run)

    def stop(self, run_id: str) -> None:
        self.session.monitor.stop(run_id)
        self._append_log(self.tr("Asked {0} to save a checkpoint and stop.").format(run_id))
        if run_id == self.current_run:
            self._show_state(run_id)
        self._update_buttons()

    @Slot()
    def _on_resume_button_clicked(self) -> None:
        if self.current_run:
            self.resume(self.current_run)

    def resume(self, run_id: str) -> bool:
        st = self.session.monitor.runs.get(run_id)
        if st is None:
            return False
        try:
            started = ops.resume_run(self.session.project, run_id)
        except RunBusy as exc:
            self.tasks.show_error(self.tr("Training could not resume"), self.tr(
                "Run {0} is already running (process {1} is training it).").format(run_id, exc.pid or "?"))
            return False
        except (WorkbenchError, OSError) as exc:
            self.tasks.show_error(self.tr("Training could not resume"), exc)
            return False
        self._keep_worker(started.proc)
        self.session.monitor.attach(st.path)
        self._append_log(self.tr("Resuming {0} from {1}.").format(run_id, started.resumed_from))
        self._show_state(run_id)
        self._update_buttons()
        return True

    def _update_buttons(self) -> None:
        monitor = self.session.monitor
        status = monitor.status(self.current_run) if self.current_run else None
        # one run at a time from this window: its worker uses the processor (or the GPU) fully
        self.start_button.setEnabled(self.session.is_prepared and not monitor.running_ids())
        self.stop_button.setEnabled(status == "running" and not monitor.stopping(self.current_run))
        summary = monitor.summary(self.current_run) if self.current_run else None
        self.resume_button.setEnabled(summary is not None and ops.can_resume(summary)
                                      and not monitor.running_ids())

    # ------------------------------------------------------------------ runs list
    @Slot()
    def _refresh_runs_table(self) -> None:
        self.runs_table.show_runs(self.session.monitor, self.current_run)

    def _row_of(self, run_id: str) -> int:
        return self.runs_table.row_of(run_id)

    def _select_row_of(self, run_id: str) -> None:
        self.runs_table.select_run(run_id)

    def _update_run_row(self, run_id: str) -> None:
        if not self.runs_table.update_run(self.session.monitor, run_id):
            self._refresh_runs_table()

    def compared_runs(self) -> list[str]:
        return self.runs_table.compared_runs()

    @Slot()
    def update_comparison(self) -> None:
        self.compare_view.show_runs(self.session.monitor, self.compared_runs())

    # ------------------------------------------------------------------ live view
    def select_run(self, run_id: str | None) -> None:
        if run_id == self.current_run and run_id is not None:
            return
        self.current_run = run_id
        for key in ("loss", "eval_loss"):
            self.loss_plot.series[key].clear()
        self.lr_plot.series["lr"].clear()
        for plot in (self.loss_plot, self.lr_plot):
            plot.reset_view()  # nothing of the last run's (or project's) axes
        self.log.clear()
        self.total_steps = None
        self._last_step = None
        self._estimate = None
        self._run_t0 = None
        self._starts = 0
        self._budget_s = None
        self.progress.setValue(0)
        self.progress_label.setText("")
        if run_id is None:
            self.run_title.setText(self.tr("No run yet: choose the settings and click Start."))
            self.failure_banner.hide()
            self._update_buttons()
            return
        self._select_row_of(run_id)
        self._apply_events(run_id, self.session.monitor.events(run_id))
        self._show_state(run_id)
        self._update_buttons()

    def _show_state(self, run_id: str) -> None:
        """The title, the failure banner and the ETA as the run's status has them."""
        monitor = self.session.monitor
        status = monitor.status(run_id)
        shown = (self.tr("stopping…") if status == "running" and monitor.stopping(run_id)
                 else status_text(status))
        self.run_title.setText(self.tr("Run {0} · {1}").format(run_id, shown))
        summary = monitor.summary(run_id)
        if status in ("failed", "crashed") and summary is not None:
            what = summary.error or self.tr("The worker process ended without reporting why.")
            self.failure_banner.setText(self.tr("This run {0}: {1}\nIts log: {2}").format(
                status_text(status), what, ops.log_path(summary.path)))
            self.failure_banner.show()
        else:
            self.failure_banner.hide()
        self._show_progress_text(run_id)

    def _show_progress_text(self, run_id: str) -> None:
        ev = self._last_step
        if ev is None:
            self.progress_label.setText("")
            return
        step, total = ev.get("step", 0), self.total_steps or "?"
        monitor = self.session.monitor
        if monitor.status(run_id) == "running" and not monitor.stopping(run_id):
            t = ev.get("t")
            elapsed = t - self._run_t0 if isinstance(t, (int, float)) and self._run_t0 is not None else None
            left = ev.get("eta_s") if isinstance(ev.get("eta_s"), (int, float)) else None
            if left is not None and elapsed is not None and self._budget_s is not None:
                left = min(left, max(0.0, self._budget_s - elapsed))  # the budget ends the run
            text = self.tr("step {0} of {1} · {2:.0f} tokens/s · about {3} left").format(
                step, total, ev.get("tokens_per_s") or 0, fmt_secs(left))
            self.progress_label.setText(text + self._estimate_text(elapsed, left))
        else:  # no time left to estimate once the run ends or is stopping
            self.progress_label.setText(self.tr("step {0} of {1}").format(step, total))

    def _estimate_text(self, elapsed: float | None = None, left: float | None = None) -> str:
        """The whole run's time as a range: measured from its steps once the worker has, else the
        recommendation's (a guide made before anything ran). Nothing where the run has already
        gone past it, or will by far by its own count ("about 05:06 left · the whole run: 00:26
        to 00:53" contradicted itself)."""
        e = self._estimate
        if not e or not all(isinstance(e.get(k), (int, float)) for k in ("low", "high")):
            return ""
        # past, or far past by the run's own count (the first steps' pace alone may differ a little)
        if elapsed is not None and (elapsed > e["high"] or (left is not None and elapsed + left > 1.5 * e["high"])):
            return ""
        low, high = fmt_secs(e["low"]), fmt_secs(e["high"])
        span = low if low == high else self.tr("{0} to {1}").format(low, high)
        if e.get("basis") == "measured":
            return self.tr(" · the whole run: {0}, measured from its first {1} steps").format(span, int(e.get("step") or 0))
        return self.tr(" · the whole run: {0}, estimated before it started").format(span)

    @Slot(str, list)
    def _on_monitor_events_arrived(self, run_id: str, events: list) -> None:
        if run_id == self.current_run:
            self._apply_events(run_id, events)
        # the runs table summarises the whole history: refresh it at most twice a second
        now = time.monotonic()
        if now - self._row_updated.get(run_id, 0.0) > 0.5 or any(e.get("event") == "end" for e in events):
            self._row_updated[run_id] = now
            self._update_run_row(run_id)

    @Slot(str, str)
    def _on_monitor_status_changed(self, run_id: str, status: str) -> None:
        self._update_run_row(run_id)
        if run_id == self.current_run:
            self._show_state(run_id)
            if status == "crashed":
                self._append_log(self.tr("The worker process ended without reporting. Resume continues from the last "
                                         "checkpoint; its log says what happened: {0}").format(
                                             ops.log_path(self.session.monitor.runs[run_id].path)))
        self._update_buttons()

    def _apply_events(self, run_id: str, events: list[dict]) -> None:
        last_step = None
        completed = False
        for ev in events:
            kind = ev.get("event")
            if kind == "step":
                step = ev.get("step", 0)
                self.loss_plot.append("loss", step, ev.get("loss"))
                self.lr_plot.append("lr", step, ev.get("lr"))
                last_step = ev
            elif kind == "eval":
                self.loss_plot.append("eval_loss", ev.get("step", 0), ev.get("eval_loss"))
                m = ", ".join(f"{metric_title(k)} {v:.4f}" for k, v in (ev.get("metrics") or {}).items()
                              if isinstance(v, (int, float)))
                self._append_log(self.tr("step {0}: validation loss {1:.4f} {2}").format(
                    ev.get("step"), ev.get("eval_loss") or float("nan"), m))
            elif kind == "start":
                self._run_t0 = ev.get("t") if isinstance(ev.get("t"), (int, float)) else None
                self._starts += 1
                self.total_steps = ev.get("total_steps")
                for plot in (self.loss_plot, self.lr_plot):
                    plot.set_x_extent(self.total_steps if isinstance(self.total_steps, int) else None)
                what = (self.tr("the built-in model (trained from scratch on this data)") if ev.get("builtin")
                        else str(ev.get("base_model")))
                self._append_log(self.tr("Training {0} on {1}: {2:,} of {3:,} parameters trainable, {4} steps.").format(
                    what, ev.get("device"), ev.get("trainable_params") or 0, ev.get("total_params") or 0, self.total_steps))
            elif kind == "checkpoint":
                self._append_log(self.tr("Saved checkpoint {0}").format(ev.get("path")))
            elif kind == "estimate":
                budget = ev.get("time_budget_s")
                self._budget_s = float(budget) if isinstance(budget, (int, float)) and budget > 0 else None
                # after a resume the recommendation's range again is the one the run already
                # proved wrong: only what the resumed steps measure is shown
                self._estimate = ev if ev.get("basis") == "measured" or self._starts <= 1 else None
            elif kind == "log":
                self._append_log(self._log_text(ev))
            elif kind == "end":
                text = self.tr("Run ended: {0}").format(status_text(str(ev.get("status"))))
                if ev.get("error"):
                    text += f"\n{ev['error']}"
                self._append_log(text)
                completed = ev.get("status") == "completed"
        if last_step is not None:
            step = last_step.get("step", 0)
            total = self.total_steps or 0
            if total:
                self.progress.setValue(int(1000 * min(step / total, 1.0)))
            self._last_step = last_step
            self._show_progress_text(run_id)
        # after the steps: a run read in one go (a reopened project) ends full even if it stopped early
        if completed and self.total_steps:
            self.progress.setValue(1000)
        self.curve_updated.emit(run_id, self.loss_plot.point_count("loss"))

    def _log_text(self, ev: dict) -> str:
        """A worker's log line in the interface language where its code is known (the engine's
        own English text otherwise, as for messages from the libraries)."""
        code = ev.get("code")
        try:
            if code == "preparing_base":
                return self.tr("Preparing the base model")
            if code == "linear_fit":
                return self.tr("Fitted the word-statistics part on {0:,} rows ({1:,} character n-grams) in {2:.1f} s").format(
                    int(ev["rows"]), int(ev["ngrams"]), float(ev["seconds"]))
            if code == "early_stopping":
                return self.tr("Stopped early at step {0}: validation {1} has not improved on {2:.4f} (step {3}) "
                               "for {4} evaluations").format(int(ev["step"]), metric_title(str(ev["metric"])),
                                                             float(ev["best"]), int(ev["best_step"]), int(ev["evals"]))
            if code == "best_weights":
                return self.tr("Kept the best weights: step {0}, validation {1} {2:.4f}").format(
                    int(ev["step"]), metric_title(str(ev["metric"])), float(ev["value"]))
            if code == "part_scores":
                return self.tr("Validation Macro F1 {0:.4f} (network alone {1:.4f}, word-statistics part alone {2:.4f}, "
                               "its share {3:g})").format(float(ev["macro_f1"]), float(ev["network"]),
                                                          float(ev["linear"]), float(ev["share"]))
            if code == "saved_final":
                return self.tr("Saved the trained model")
            if code == "time_budget_reached":
                return self.tr("The time budget of {0} is used up: training ends at step {1} of {2}").format(
                    fmt_secs(float(ev["budget_s"])), int(ev["step"]), int(ev["total_steps"]))
            if code == "baseline_pending":
                return self.tr("The simple baseline was still being fitted when the time budget ran out; the "
                               "evaluation fits it")
        except (KeyError, TypeError, ValueError):
            pass  # a line without its figures: the engine's own words below
        return f"{ev.get('level', 'info')}: {ev.get('message')}"

    def _append_log(self, text: str) -> None:
        self.log.appendPlainText(text)

    def shutdown(self) -> None:
        pass

