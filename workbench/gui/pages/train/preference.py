""""Tune on your judgements" on the Train page: for a finished run that writes answers, the pairs
of answers the person's judgements make, the settings core recommends for them, the loss to
tune with, and the start of the preference run (DPO with LoRA on top of the run's model).

The job is core's (``operations.preference.build_dpo_job``, what ``workbench train --method dpo
--from-run RUN`` builds); the page starts it like any other run.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout, QLabel, QPushButton, QVBoxLayout, QWidget,
)

from ....core import preference
from ....core.errors import WorkbenchError
from ....core.operations import preference as preference_operations
from ....core.operations import runs as run_operations
from ....core.runs import format_duration
from ...error_texts import exception_text
from ...i18n import content_lang


def offered(summary) -> bool:
    """Whether a run can be tuned on the judgements: it writes answers, is not training, and has
    weights to start from."""
    return (summary is not None and summary.task == "instruction" and summary.status != "running"
            and run_operations.can_evaluate(summary))


def sentence_join(sentences: list[str]) -> str:
    """Sentences one after another: with a space in English, none in Chinese."""
    return (" " if content_lang() == "en" else "").join(sentences)


def loss_name(loss: str) -> str:
    return {
        "sigmoid": QCoreApplication.translate("PreferenceDialog", "DPO (sigmoid loss)"),
        "ipo": QCoreApplication.translate("PreferenceDialog", "IPO"),
        "hinge": QCoreApplication.translate("PreferenceDialog", "Hinge"),
        "kto_pair": QCoreApplication.translate("PreferenceDialog", "KTO on pairs"),
        "simpo": QCoreApplication.translate("PreferenceDialog", "SimPO (no reference model)"),
        "orpo": QCoreApplication.translate("PreferenceDialog", "ORPO (no reference model; also learns the chosen answers)"),
        "sft": QCoreApplication.translate("PreferenceDialog", "Learn the chosen answers only (no contrast)"),
    }.get(loss, loss)


class PreferenceBox(QWidget):
    """The button that opens :class:`PreferenceDialog` for the run in view, shown for a run
    :func:`offered` accepts."""

    tune = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.button = QPushButton(self.tr("Tune on your judgements…"))
        self.button.clicked.connect(self.tune)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.button)
        self.run_id: str | None = None
        self.hide()

    def show_state(self, summary, busy: bool) -> None:
        """For run ``summary`` (None: no run in view); disabled while a run trains (``busy``)."""
        shown = offered(summary)
        self.run_id = summary.id if shown else None
        self.setVisible(shown)
        self.button.setEnabled(shown and not busy)
        if shown:
            self.button.setToolTip(self.tr("Train a small add-on on top of run {0}'s model so that it prefers the "
                                           "answers you preferred on the Evaluate page.").format(summary.id))


class PreferenceDialog(QDialog):
    """What tuning run ``run_id`` on the judgements would do, and its start: ``start_requested``
    carries core's job and the server it trains on (None: this computer), where the run it tunes
    trained."""

    start_requested = Signal(object, object)

    def __init__(self, project, run_id: str, time_budget_min: float, cpu_busy: float | None = None,
                 cpu_cores: int | None = None, parent=None):
        super().__init__(parent)
        self.project, self.run_id = project, run_id
        self._load = (cpu_busy, cpu_cores)
        self.on = run_operations.where(project.runs_dir / run_id)
        self.job = self.rec = self.counts = None
        self.refusal: Exception | None = None
        self.setWindowTitle(self.tr("Tune on your judgements"))
        self.setMinimumWidth(560)
        title = QLabel(self.tr("Tune run {0} on your judgements").format(run_id))
        title.setObjectName("sectionTitle")
        title.setWordWrap(True)
        intro = QLabel(self.tr(
            "Preference tuning (DPO) trains a small LoRA add-on on top of run {0}'s model, so that it prefers the "
            "answers you preferred. The new run is a run like any other: its curves, stop and resume, evaluation "
            "and export.").format(run_id))
        self.counts_label = QLabel()
        self.refusal_label = QLabel()
        self.refusal_label.setObjectName("warning")
        self.where_label = QLabel()  # where judgements are made
        self.where_label.setObjectName("hint")
        self.notes_label = QLabel()
        self.notes_label.setObjectName("hint")
        for label in (intro, self.counts_label, self.refusal_label, self.where_label, self.notes_label):
            label.setWordWrap(True)
        self.loss_combo = QComboBox()
        self.loss_combo.addItem("", None)  # core's choice for the pairs' kind, named in show_plan
        for loss in preference.DPO_LOSSES:
            self.loss_combo.addItem(loss_name(loss), loss)
        self.loss_combo.setToolTip(self.tr(
            "How the pairs are weighed. Recommended: the sigmoid loss of the DPO paper, or the one measured best "
            "where every pair comes from answers rated good and bad; SimPO and ORPO need no reference model."))
        self.loss_combo.currentIndexChanged.connect(self._on_setting_changed)
        self.time_budget = QDoubleSpinBox()
        self.time_budget.setRange(0.5, 24 * 60)
        self.time_budget.setDecimals(1)
        self.time_budget.setSuffix(self.tr(" min"))
        self.time_budget.setValue(time_budget_min)
        self.time_budget.valueChanged.connect(self._on_setting_changed)
        self.values: dict[str, QLabel] = {k: QLabel() for k in ("beta", "learning_rate", "epochs", "batch_size",
                                                                "max_length", "estimate", "where")}
        form = QFormLayout()
        form.addRow(self.tr("Preference loss"), self.loss_combo)
        form.addRow(self.tr("Time budget"), self.time_budget)
        form.addRow(self.tr("Beta"), self.values["beta"])
        self.values["beta"].setToolTip(self.tr("How near run {0}'s model the tuned model stays: a larger beta keeps "
                                               "it nearer. Recommended from the number of pairs.").format(run_id))
        form.addRow(self.tr("Learning rate"), self.values["learning_rate"])
        form.addRow(self.tr("Passes over the pairs"), self.values["epochs"])
        form.addRow(self.tr("Pairs per step"), self.values["batch_size"])
        form.addRow(self.tr("Maximum length (tokens)"), self.values["max_length"])
        form.addRow(self.tr("Estimated time"), self.values["estimate"])
        form.addRow(self.tr("Trains on"), self.values["where"])
        self.form_box = QWidget()
        self.form_box.setLayout(form)
        self.buttons = QDialogButtonBox()
        self.start_button = self.buttons.addButton(self.tr("Start tuning"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.start_button.setObjectName("primary")
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._on_start_clicked)
        self.buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        for w in (title, intro, self.counts_label, self.refusal_label, self.form_box, self.notes_label,
                  self.where_label):
            lay.addWidget(w)
        lay.addWidget(self.buttons)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.show_plan()

    def show_plan(self) -> None:
        """Core's job, recommendation and pair counts for the loss and time budget chosen, or its refusal."""
        self.refusal = None
        try:
            self.job, self.rec, self.counts = preference_operations.build_dpo_job(
                self.project, self.run_id, dpo_loss=self.loss_combo.currentData(),
                time_budget_min=self.time_budget.value(), on=self.on)
        except (WorkbenchError, OSError, ValueError) as exc:
            self.job = self.rec = None
            self.refusal = exc
            self.counts = preference_operations.listing(self.project.root).pair_counts
        self._show_counts()
        recommended = self.rec.loss if self.rec is not None else preference.recommended_loss(self.counts)
        self.loss_combo.setItemText(0, self.tr("Recommended for your judgements: {0}").format(loss_name(recommended)))
        refused = self.refusal is not None
        self.refusal_label.setText(exception_text(self.refusal) if refused else "")
        self.refusal_label.setVisible(refused)
        self.form_box.setVisible(not refused)  # nothing to set for a run that cannot start
        self.start_button.setEnabled(not refused)
        few = not refused and "few_pairs" in self.rec.note_codes
        self.where_label.setText(self.tr(
            "Judgements are made on the Evaluate page: rate its answers good or bad and write better ones, compare "
            "two answers side by side, or work through the review queue. At least {0} pairs about two different "
            "questions are needed; tens make a difference, hundreds a reliable one.").format(preference.MIN_PAIRS))
        self.where_label.setVisible(refused or few)
        self._show_values()
        self._fit_height()

    def _fit_height(self) -> None:
        """As tall as the wrapped sentences and the form need at the dialog's width: a window's
        first size ignores a wrapped label's height for its width, and the form was squeezed."""
        lay = self.layout()
        lay.activate()
        need = lay.totalHeightForWidth(self.width())
        if need > self.height():
            self.resize(self.width(), need)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self._fit_height()

    def _show_counts(self) -> None:
        c = self.counts
        if not c.pairs:
            sentences = [self.tr("Your judgements make no pair of a better and a worse answer yet.")]
        else:
            sentences = [self.tr("Your judgements make {0} pairs of a better and a worse answer: {1} from choices "
                                 "between two answers, {2} from rewritten answers, {3} from answers rated good and "
                                 "bad to the same question.").format(c.pairs, c.from_choices, c.from_rewrites,
                                                                      c.from_ratings)]
        if self.refusal is None and c.pairs:
            sentences.append(self.tr("{0} are held out to measure the tuning; {1} train.").format(
                c.heldout, c.pairs - c.heldout))
        if c.unpaired_good:
            sentences.append(self.tr("{0} answers rated good have no answer rated bad to the same question: they "
                                     "make no pair.").format(c.unpaired_good))
        if c.ties:
            sentences.append(self.tr("Ties make no pair: {0}.").format(c.ties))
        self.counts_label.setText(sentence_join(sentences))

    def _show_values(self) -> None:
        job, rec = self.job, self.rec
        if job is None:
            for label in self.values.values():
                label.setText("—")
            self.notes_label.hide()
            return
        self.values["beta"].setText(f"{job.dpo_beta:g}")
        self.values["learning_rate"].setText(f"{job.learning_rate:g}")
        self.values["epochs"].setText(f"{job.epochs:g}")
        self.values["batch_size"].setText(str(job.batch_size))
        self.values["max_length"].setText(str(job.max_length))
        # the range the run's start reports, as the settings column shows an ordinary run's
        span = run_operations.estimate_range(run_operations.with_processor_load(job, self.on, *self._load,
                                                                                measure=False))
        if span is None:
            self.values["estimate"].setText("—")
        else:
            low, high = format_duration(span.low), format_duration(span.high)
            self.values["estimate"].setText(low if low == high else self.tr("{0} to {1}").format(low, high))
        self.values["where"].setText(self.tr("server {0}, where run {1} trained").format(self.on, self.run_id)
                                     if self.on else self.tr("this computer"))
        notes = []
        if "over_budget" in rec.note_codes:
            notes.append(self.tr("All the passes over the pairs would take longer than the time budget: the run "
                                 "ends at the budget."))
        if "few_pairs" in rec.note_codes:
            notes.append(self.tr("Only {0} pairs train: expect the held-out score to move little and by "
                                 "chance.").format(self.counts.pairs - self.counts.heldout))
        self.notes_label.setText("\n".join(notes))
        self.notes_label.setVisible(bool(notes))

    @Slot()
    def _on_setting_changed(self, *_) -> None:
        self.show_plan()

    @Slot()
    def _on_start_clicked(self) -> None:
        self.show_plan()  # judgements made since the dialog opened count too
        if self.job is None:
            return
        job = run_operations.with_processor_load(self.job, self.on, *self._load, measure=False)
        self.start_requested.emit(job, self.on)
        self.accept()
