"""The Train page's settings column: the base model and method, the hyper-parameters with their
presets and time budget, the estimate before a run, and where it trains.

It binds the settings to a job (core: operations.runs.build_job) and shows the range core
estimates for it (operations.runs.estimate_range), counted on the processor's load it reads while
in view (core/machine_load.py). The page (pages/train_page.py) starts, stops and watches runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer, Slot
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton,
    QScrollArea, QSpinBox, QVBoxLayout, QWidget,
)

from ....core.errors import WorkbenchError
from ....core.jobs import JobSpec
from ....core.machine_load import busy_share
from workbench.core.operations import runs as run_operations
from ....core.recommend import DEFAULT_TIME_BUDGET_MIN, StagePlan, stage_plan
from ....core.runs import format_duration
from ....core.templates import TaskKind
from ...i18n import localized
from ...session import ProjectSession
from ...background import BackgroundWork
from ..run_text import hyper_label
from . import models_panel, settings_notes
from .servers import ServersDialog, TargetCombo

# the preset box's items besides the template's presets (their index there)
RECOMMENDED = -1  # follows the data, the model and the time budget
OWN_SETTINGS = -2  # values changed by hand or a run's restored: a budget changed later keeps them

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
# what a setting shows while there is nothing to recommend it for: no project, no prepared data or
# no model chosen
NO_VALUE = "—"


fmt_secs = format_duration
# how often the processor's load is read while the panel is in view (the window between two
# reads is the measure: core/machine_load.py), and the steps its share is shown in
LOAD_INTERVAL_MS = 3000
LOAD_STEP = 0.05


class TrainSettingsPanel(QWidget):
    """The settings column; ``job_spec()`` is the job they describe."""

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
        self.spins: dict[str, QDoubleSpinBox | QSpinBox] = {}
        # the share of the processor other work keeps busy, which the estimate counts on (None: not read yet)
        self._cpu_busy: float | None = None
        self._cpu_cores: int | None = None  # the logical cores that share is of (None: this computer's)
        self._load_timer = QTimer(self)
        self._load_timer.setInterval(LOAD_INTERVAL_MS)
        self._load_timer.timeout.connect(self._on_load_timer_timeout)
        # the model the settings on the page were recommended or restored for (None: none yet)
        self._settings_model: str | None = None
        self._build()

    def _build(self) -> None:
        settings = QWidget()
        sv = QVBoxLayout(settings)
        model_box = QGroupBox(self.tr("Base model"))
        mf = self.model_form = QFormLayout(model_box)
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
        self.model_edit.editingFinished.connect(self._on_model_edit_finished)
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
        self.method_combo.currentIndexChanged.connect(self._on_method_chosen)
        mf.addRow(self.tr("Model"), self.model_combo)
        mf.addRow("", row)
        # the registered models (core.models_store) in the choice, and adding or getting one
        self.models_panel = models_panel.ModelsPanel(self.background, self)
        self.models_panel.models_changed.connect(self._on_models_panel_models_changed)
        self.models_panel.model_added.connect(self._on_models_panel_model_added)
        mf.addRow("", self.models_panel)
        models_panel.fill_model_combo(self.model_combo, models_panel.registered_models())
        mf.addRow(self.tr("Method"), self.method_combo)
        # a pretrained model's head: fitted on the frozen model's states first (core decides what that is)
        self.frozen_check = QCheckBox(self.tr("Start from the frozen model, with word statistics"))
        self.frozen_check.setToolTip(self.tr(
            "First fit the classification head on what the pretrained model reads in each row, without training "
            "it (one pass over the rows), mixed with word statistics of the text; LoRA then starts from that "
            "head with the time left. Reads half of the model's layers, which also makes every step and answer "
            "faster."))
        self.frozen_check.setChecked(True)  # core's default (operations.runs.head_defaults)
        self.frozen_check.toggled.connect(self._on_frozen_check_toggled)
        mf.addRow("", self.frozen_check)
        self.method_hint = QLabel()
        self.method_hint.setObjectName("hint")
        self.method_hint.setWordWrap(True)
        mf.addRow("", self.method_hint)
        sv.addWidget(model_box)

        hp_box = QGroupBox(self.tr("Settings"))
        self.hp_box = hp_box
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
        # the budget the user set last: a project's until one of its runs has its own
        self.default_time_budget = DEFAULT_TIME_BUDGET_MIN
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
            spin.valueChanged.connect(self._on_setting_edited)
            self.spins[name] = spin
            self.hp_form.addRow(hyper_label(name), spin)
        self.max_steps = QSpinBox()
        self.max_steps.setRange(0, 10_000_000)
        self.max_steps.setSpecialValueText(self.tr("by epochs"))
        self.max_steps.valueChanged.connect(self._on_setting_edited)
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
        sv.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(settings)
        # as wide as the settings need (with a vertical scroll bar), so they never scroll sideways;
        # measured again once styled and filled (_fit_settings_column)
        scroll.setMinimumWidth(max(340, settings.minimumSizeHint().width()
                                   + scroll.verticalScrollBar().sizeHint().width() + 2 * scroll.frameWidth()))
        self.settings_scroll = scroll
        # the page's buttons go below this panel, not at the settings' end: always in view, on any screen
        cv = QVBoxLayout(self)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.addWidget(scroll, 1)
        # the estimate under the settings it follows, not at their end: at 1366x768 it was below the fold
        cv.addWidget(self.estimate_label)
        where = QHBoxLayout()
        self.target_combo = TargetCombo()
        # a server's devices are not this computer's: the settings are recommended for them, and
        # the estimate drops this computer's load
        self.target_combo.currentIndexChanged.connect(self._on_target_changed)
        self.servers_button = QPushButton(self.tr("Servers…"))
        self.servers_button.clicked.connect(self._on_servers_button_clicked)
        where.addWidget(QLabel(self.tr("Train on")))
        where.addWidget(self.target_combo, 1)
        where.addWidget(self.servers_button)
        cv.addLayout(where)

    # ------------------------------------------------------------------ project
    def show_project(self) -> None:
        """The project's presets, the ranges its template allows, the model it starts with, and the
        settings of its last run where it has one."""
        template = self.session.template
        self.preset_combo.blockSignals(True)
        self.preset_combo.clear()
        self.preset_combo.addItem(self.tr("Recommended for this data"), RECOMMENDED)
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
        self.preset_combo.addItem(self.tr("Your own settings"), OWN_SETTINGS)
        self.preset_combo.blockSignals(False)
        last = run_operations.last_job(self.session.project) if self.session.project is not None else None
        if last is None:  # no run yet: by epochs, as recommended, not the previous project's limit
            self._set_values({"max_steps": 0})
        if last is None or not last.time_budget_s:
            self.time_budget.blockSignals(True)
            self.time_budget.setValue(self.default_time_budget)
            self.time_budget.blockSignals(False)
        idx = self.model_combo.findData(self._preferred_model())
        self.model_combo.blockSignals(True)
        self.model_combo.setCurrentIndex(max(0, idx))
        self.model_combo.blockSignals(False)
        # each project its own model: not the folder typed in the previous one (its last run's
        # comes back below)
        self.model_edit.clear()
        self._settings_model = None
        self._on_model_combo_changed()
        if last is not None:  # reopening continues with the settings the user chose last
            self.restore_settings(last)
        self._fit_settings_column()

    def on_language_changed(self) -> None:
        if self.session.template is not None:
            self._show_template_texts(self.session.template)
        self._update_method_texts()
        self._update_estimate()  # its notes come from the core in English: put into words again
        self._fit_settings_column()  # the other language's texts are wider or narrower

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._refill_registered()  # a model may have been added on the command line meanwhile
        self._fit_settings_column()
        busy_share(None)  # the window the next read measures starts now
        self._load_timer.start()

    def hideEvent(self, event) -> None:
        self._load_timer.stop()
        super().hideEvent(event)

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

    def _is_instruction(self) -> bool:
        template = self.session.template
        return template is not None and template.task is TaskKind.instruction

    def _preferred_model(self) -> str:
        """What a project starts with: an instruction project takes a registered pretrained model
        when there is one (the built-in model only demonstrates the flow there)."""
        preferred = self.session.preferred_base_model
        if self._is_instruction() and preferred == run_operations.DEFAULT_BASE_MODEL:
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

    # ------------------------------------------------------------------ the processor's load
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

    @Slot()
    def _on_servers_button_clicked(self) -> None:
        dialog = ServersDialog(self.background, self)
        dialog.servers_changed.connect(self.target_combo.refresh)
        dialog.open()

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
        self.method_combo.blockSignals(True)  # the recommendation below follows the method too
        if builtin:
            self.method_combo.setCurrentIndex(self.method_combo.findData("full"))
        elif not self.method_combo.isEnabled():  # leaving a built-in model: a pretrained one starts with LoRA
            self.method_combo.setCurrentIndex(self.method_combo.findData(run_operations.default_method(str(kind))))
        self.method_combo.blockSignals(False)
        self.method_combo.setEnabled(not builtin)
        self._update_models_hint()
        self._update_method_texts()
        self._on_method_changed()
        self.apply_recommended()

    @Slot()
    def _on_model_edit_finished(self) -> None:
        """A folder or model id typed (Enter, Tab or a click elsewhere): another model gets its own
        recommended settings, as a model chosen in the list does; the same one keeps the page's."""
        if self.base_model() != self._settings_model:
            self._on_model_combo_changed()

    @Slot()
    def _on_browse_button_clicked(self) -> None:
        d = QFileDialog.getExistingDirectory(self, self.tr("Choose a model folder (with config.json)"))
        if d:
            self.model_edit.setText(d)
            self._on_model_edit_finished()

    @Slot()
    def _on_target_changed(self, *_) -> None:
        """Another place to train: the recommended settings are for its devices (the user's own stay)."""
        if self.preset_combo.currentData() == RECOMMENDED:
            self.apply_recommended()
        else:
            self._update_estimate()

    @Slot()
    def _on_method_chosen(self, *_):
        self._on_method_changed()
        if self.preset_combo.currentData() == RECOMMENDED:  # full training learns at another rate
            self.apply_recommended()

    def _on_method_changed(self, *_):
        lora = self.method_combo.currentData() == "lora"
        for name in LORA_ONLY:
            # the LoRA settings mean nothing when every weight is trained: hide them
            self.spins[name].setEnabled(lora)
            self.hp_form.setRowVisible(self.spins[name], lora)
        self._update_method_hint()
        self._update_estimate()

    def _on_frozen_check_toggled(self, _on: bool) -> None:
        if self.preset_combo.currentData() == RECOMMENDED:  # the first stage takes its share of the budget
            self.apply_recommended()
        else:
            self._update_estimate()

    def head_settings(self) -> dict[str, Any]:
        """The head's settings the page chose: core's frozen start where ticked (the default), else
        core's plain head."""
        if not self._trains_head():
            return {}
        return dict(run_operations.FROZEN_START if self.frozen_check.isChecked() else run_operations.PLAIN_HEAD)

    def _trains_head(self) -> bool:
        """Whether a run of the chosen model trains a classification head (core decides: a
        pretrained model on a classification project)."""
        template = self.session.template
        kind = str(self.model_combo.currentData())
        return template is not None and run_operations.uses_head(template.task.value, kind)

    def _head_method_name(self) -> str:
        """What a head run of the chosen method trains, as the method list names it."""
        return (self.tr("LoRA + classification head") if self.method_combo.currentData() == "lora"
                else self.tr("Full fine-tuning + classification head"))

    def _update_method_texts(self) -> None:
        """The method list names what a run trains: with a classification head beside LoRA's add-on
        (or beside every weight) where the project classifies with a pretrained model."""
        self.model_form.setRowVisible(self.frozen_check, self._trains_head())
        lora, full = self.method_combo.findData("lora"), self.method_combo.findData("full")
        if self._trains_head():
            self.method_combo.setItemText(lora, self.tr("LoRA + classification head (small add-on, fast)"))
            self.method_combo.setItemText(full, self.tr("Full fine-tuning + classification head (all weights)"))
        else:
            self.method_combo.setItemText(lora, self.tr("LoRA (small add-on, fast)"))
            self.method_combo.setItemText(full, self.tr("Full fine-tuning (all weights)"))
        self._fit_settings_column()  # the longer names widen the list

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

    def _recommended(self) -> tuple[dict[str, Any], Any] | None:
        """Core's recommended values and recommendation for the chosen model, method, time budget
        and place to train; None where there is nothing to recommend for (no project, no prepared
        data, no model chosen yet, a server no longer registered)."""
        template, base = self.session.template, self.base_model()
        if template is None or not self.session.is_prepared or not base:
            return None
        try:
            return run_operations.recommended_settings(self.session.project, base, self.method_combo.currentData(),
                                                       template=template, time_budget_min=self.time_budget.value(),
                                                       on=self.target_combo.currentData(),
                                                       head_settings=self.head_settings())
        except WorkbenchError:
            return None

    def recommendation(self):
        got = self._recommended()
        return got[1] if got is not None else None

    def apply_recommended(self) -> None:
        self._settings_model = self.base_model()
        got = self._recommended()
        if got is None:  # nothing to recommend for: no values rather than another model's or zeros
            self._show_no_values()
        else:
            values = dict(got[0])
            self._set_values(values | {"eval_steps": int(values.get("eval_steps") or self.eval_steps.value())})
            self.preset_combo.blockSignals(True)
            self.preset_combo.setCurrentIndex(0)
            self.preset_combo.blockSignals(False)
        self._update_estimate()

    def _value_spins(self) -> list[QDoubleSpinBox | QSpinBox]:
        return [*self.spins.values(), self.eval_steps]

    def _show_no_values(self) -> None:
        """Dashes in the settings, which cannot be edited, until a project and a model give them values."""
        for spin in self._value_spins():
            spin.blockSignals(True)
            spin.setSpecialValueText(NO_VALUE)
            spin.setValue(spin.minimum())
            spin.blockSignals(False)
        self.hp_box.setEnabled(False)

    def _set_values(self, values: dict[str, Any]) -> None:
        """Settings put on the page by the program, not by the user's hand (no signals)."""
        if not self.hp_box.isEnabled():  # values again after dashes
            for spin in self._value_spins():
                spin.setSpecialValueText("")
            self.hp_box.setEnabled(True)
        for name, v in values.items():
            spin = {"max_steps": self.max_steps, "eval_steps": self.eval_steps}.get(name) or self.spins.get(name)
            if spin is not None and v is not None:
                spin.blockSignals(True)
                spin.setValue(int(v) if isinstance(spin, QSpinBox) else float(v))
                spin.blockSignals(False)

    @Slot(int)
    def _on_preset_combo_changed(self, _i: int) -> None:
        data = self.preset_combo.currentData()
        template = self.session.template
        if template is None:
            return
        if data == RECOMMENDED:
            self.apply_recommended()
            return
        if data != OWN_SETTINGS:  # the user's own: the values on the page stay
            self._set_values(template.presets[data].values)
        self._update_estimate()

    def _show_preset(self, data: int) -> None:
        self.preset_combo.blockSignals(True)
        self.preset_combo.setCurrentIndex(max(0, self.preset_combo.findData(data)))
        self.preset_combo.blockSignals(False)

    @Slot()
    def _on_setting_edited(self, *_) -> None:
        """A value changed by hand: the settings are the user's own, which a budget changed later
        keeps (the recommended ones follow the budget)."""
        self._show_preset(OWN_SETTINGS)
        self._update_estimate()

    def set_default_time_budget(self, minutes: float) -> None:
        """The budget the user set last (in any project): shown for a project whose last run had
        none, and from now on for the projects without runs."""
        self.default_time_budget = minutes
        last = run_operations.last_job(self.session.project) if self.session.project is not None else None
        if last is None or not last.time_budget_s:
            self.time_budget.setValue(minutes)

    @Slot(float)
    def _on_time_budget_changed(self, minutes: float) -> None:
        self.default_time_budget = minutes
        if self.preset_combo.currentData() == RECOMMENDED:  # the recommended settings follow the budget
            self.apply_recommended()
        else:
            self._update_estimate()

    @Slot()
    def _on_hyper_changed(self, *_):
        self._update_estimate()

    def _update_estimate(self) -> None:
        rec = self.recommendation()
        try:  # the range core makes for the job these settings start, as `train` prints it
            job = self.job_spec() if rec is not None else None
            span = run_operations.estimate_range(job) if job is not None else None
        except (WorkbenchError, ValueError, TypeError):  # no model chosen yet, a setting out of range
            span = None
        if span is None:
            self.estimate_label.setText("")
            return
        # the steps, those the budget leaves and the rows they read: one count (core), said once here
        reach = run_operations.expected_reach(self.session.project, job, span)
        plan = stage_plan(rec, load_factor=span.load_factor, steps=reach.steps, passes=reach.data_share)
        notes = self._notes(rec, job, plan)
        on = self.target_combo.currentData()
        if on:  # recommended for the server's devices; its curves show its real pace
            notes.insert(0, self.tr("It trains on server {0}: the settings and times above are recommended and "
                                    "estimated for its devices ({1}); its curves show its real pace once it "
                                    "runs.").format(on, run_operations.recommendation_device(on)))
        if span.load_factor > 1:  # the range counts on the load: say so, first
            notes.insert(0, self.tr("The processor is {0}% busy with other work: the times above count on about "
                                    "{1:.1f} times as long as on an idle processor.").format(
                round(100 * (span.busy or 0.0)), span.load_factor))
        if plan is not None and plan.squeezed:  # the first stage and a step for its checkpoint: the stage note says so
            text = (self.tr("About {0} and {1:.0f} MB of memory (an estimate from the data size and the model, not a "
                            "promise).") if on else
                    self.tr("About {0} and {1:.0f} MB of memory on this computer's processor (an estimate from the "
                            "data size and the model, not a promise).")).format(fmt_secs(span.seconds),
                                                                                rec.est_memory_mb)
        elif reach.steps < reach.planned:  # the load makes the budget end the run first: say where, not a range past it
            text = self.tr("About {0} of the {1} steps planned: on this busy processor the time budget, {2}, ends the "
                           "run there; {3:.0f} MB of memory (an estimate from the data size and the model, not a "
                           "promise).").format(reach.steps, reach.planned, fmt_secs(span.seconds), rec.est_memory_mb)
        elif on:
            text = self.tr("About {0} steps, {1} to {2} and {3:.0f} MB of memory (an estimate from the data size and "
                           "the model, not a promise).").format(
                reach.planned, fmt_secs(span.low), fmt_secs(span.high), rec.est_memory_mb)
        else:
            text = self.tr("About {0} steps, {1} to {2} and {3:.0f} MB of memory on this computer's processor (an "
                           "estimate from the data size and the model, not a promise).").format(
                reach.planned, fmt_secs(span.low), fmt_secs(span.high), rec.est_memory_mb)
        if run_operations.says_rows_unread(rec, reach):  # under the steps it counts
            text += "\n" + self.tr("These steps read about {0:.0%} of the training rows; a larger time budget or a "
                                  "GPU trains on all of them.").format(reach.data_share)
        self.estimate_label.setText(text + "".join(f"\n{n}" for n in notes))

    def model_shown_name(self) -> str:
        """The chosen model as the model list names it (a registered model chosen by its folder
        too), else its folder's name or its id."""
        kind = str(self.model_combo.currentData())
        entries = models_panel.registered_models()
        if kind in ("folder", "id"):
            base = self.base_model()
            entry = models_panel.registered_for(base, entries)
            return entry.name if entry is not None else (Path(base).name or base)
        entry = next((e for e in entries if e.id == kind), None)
        return entry.name if entry is not None else self.model_combo.currentText()

    def _notes(self, rec, job: JobSpec | None = None, stages: StagePlan | None = None) -> list[str]:
        return settings_notes.notes_text(rec, job, stages, model_name=self.model_shown_name(),
                                         head_method=self._head_method_name(),
                                         full=self.method_combo.currentData() == "full")

    def job_spec(self) -> JobSpec:
        base = self.base_model()
        if not base:
            raise WorkbenchError(self.tr("Choose a base model: a model folder on this computer or a model id."))
        values = {name: spin.value() for name, spin in self.spins.items()}
        if self.method_combo.currentData() != "lora":
            for name in LORA_ONLY:
                values.pop(name)
        job = run_operations.build_job(self.session.project, base, self.method_combo.currentData(),
                                       template=self.session.template, time_budget_min=self.time_budget.value(),
                                       on=self.target_combo.currentData(), max_steps=self.max_steps.value(),
                                       eval_steps=self.eval_steps.value(), **values, **self.head_settings())
        # the load read last (none yet: Start reads it); a server's run carries none of this computer's
        return run_operations.with_processor_load(job, self.target_combo.currentData(), self._cpu_busy, self._cpu_cores,
                                       measure=False)

    def _page_values(self) -> dict[str, float]:
        return {**{name: spin.value() for name, spin in self.spins.items()},
                "max_steps": self.max_steps.value(), "eval_steps": self.eval_steps.value()}

    def restore_settings(self, job: JobSpec) -> None:
        """Show the settings of ``job`` (the project's last run) so reopening continues from them."""
        if job.time_budget_s:  # first: the recommended values below follow the budget
            self.time_budget.blockSignals(True)
            self.time_budget.setValue(job.time_budget_s / 60)
            self.time_budget.blockSignals(False)
        idx = self.model_combo.findData(job.base_model_name or job.base_model)
        if idx < 0:  # a registered model chosen by its folder comes back by its name, not as a path
            entry = models_panel.registered_for(job.base_model, models_panel.registered_models())
            idx = self.model_combo.findData(entry.id) if entry is not None else -1
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
        self.frozen_check.blockSignals(True)
        self.frozen_check.setChecked(job.head_features if job.head else True)  # a built-in run: the default
        self.frozen_check.blockSignals(False)
        recommended = self._page_values()
        self._set_values({name: getattr(job, name) for name in self.spins} | {"max_steps": max(0, job.max_steps)})
        self.eval_steps.setValue(job.eval_steps)
        # "Recommended" only for what the recommendation gives now, as the spin boxes round it
        self._show_preset(RECOMMENDED if self._page_values() == recommended else OWN_SETTINGS)
        self._update_estimate()
