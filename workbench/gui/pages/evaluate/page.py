"""Step 4: evaluate a run on the held-out rows; look at the samples; try the model.

Evaluation runs ``workbench eval`` in a child process; the page shows what it wrote into
``<run>/eval/`` (metrics.json, predictions.csv), so results of earlier evaluations, also
ones run from the command line, appear as soon as a run is chosen.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from PySide6.QtCore import Qt, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QGridLayout, QHBoxLayout, QHeaderView, QLabel, QPushButton,
    QTableView, QTabWidget, QVBoxLayout, QWidget,
)

from ...commands import stage_text
from ...table_model import DataFrameTableModel
from ...session import ProjectSession
from ...background import OpProgress, BackgroundWork
from ....core.operations import runs as run_operations
from ....core.runs import train_step_state
from ....core.errors import WorkbenchError
from ....core.jobs import run_task
from ....core.samples import input_fields
from ....core.trained import eval_files, no_base_comparison
from ....core.versions import ROW_ID
from ..apply_file import ApplyFileWidget
from .compare import CompareTab
from .corrections import SampleCorrections
from .feedback_tab import FeedbackTab
from .judging import JudgementRecorder, writes_answers
from .playground import PlaygroundPanel
from .ratings import RATING_COLUMN, PlaygroundRating, SampleRatings
from .results import ResultsPanel
from .words import (
    fmt_metric,
    metric_note,
)
from ..role_names import role_name
from ..run_text import fill_run_combo, metric_title
from ...widgets.cards import MetricCard
from ...widgets.copy_button import CopyButton

CARD_METRICS = ("accuracy", "micro_f1", "macro_f1", "subset_accuracy", "hamming_loss", "rouge_l", "bleu", "exact_match", "eval_loss", "perplexity")


def wrong_positions(df: pd.DataFrame, scored: dict[int, bool] | None = None) -> np.ndarray:
    """Row positions of wrong predictions: ``correct`` false, else prediction != reference;
    ``scored``: rows scored otherwise (against a person's correction), position -> correct."""
    if "correct" in df.columns:
        ok = df["correct"].astype(str).str.lower().isin(["true", "1", "1.0"])
        for pos, right in (scored or {}).items():
            ok.iloc[pos] = right
    elif "exact" in df.columns:
        ok = df["exact"].astype(str).str.lower().isin(["true", "1", "1.0"])
    elif {"prediction", "reference"} <= set(df.columns):
        ok = df["prediction"].astype(str).str.strip() == df["reference"].astype(str).str.strip()
    else:
        return np.arange(len(df))
    return np.flatnonzero(~ok.to_numpy(dtype=bool))


class EvaluatePage(QWidget):
    results_shown = Signal(str)  # run id
    evaluation_finished = Signal()  # the eval command ended (succeeded, failed or cancelled)
    playground_finished = Signal(str)  # the full answer

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
        self.metrics: dict | None = None
        self.predictions = pd.DataFrame()
        self.eval_op = None  # the running 'workbench eval' child, if any
        self._build()
        self._show_judging()
        session.project_changed.connect(self._on_session_project_changed)
        session.monitor.status_changed.connect(lambda *_: self.refresh_runs())
        self.refresh_runs()

    def _build(self) -> None:
        top = QHBoxLayout()
        self.run_combo = QComboBox()
        self.run_combo.currentIndexChanged.connect(self._on_run_combo_changed)
        self.split_combo = QComboBox()
        self.split_combo.addItem(self.tr("test rows"), "test")
        self.split_combo.addItem(self.tr("validation rows"), "val")
        self.base_check = QCheckBox(self.tr("Compare with the base model"))
        self.base_check.setChecked(True)
        self.eval_button = QPushButton(self.tr("Evaluate"))
        self.eval_button.setObjectName("primary")
        self.eval_button.clicked.connect(self._on_eval_button_clicked)
        self.report_button = QPushButton(self.tr("Open the report"))
        self.report_button.setToolTip(self.tr("The evaluation's HTML report (figures, best and worst samples), "
                                              "in your web browser"))
        self.report_button.setEnabled(False)
        self.report_button.clicked.connect(self._on_report_button_clicked)
        self.status_label = QLabel()
        self.status_label.setObjectName("hint")
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # the report's path, where no program opened it
        self.report_copy = CopyButton()
        self.report_copy.setToolTip(self.tr("Copy the report's path"))
        self.report_copy.hide()
        top.addWidget(QLabel(self.tr("Run")))
        top.addWidget(self.run_combo, 1)
        top.addWidget(QLabel(self.tr("on")))
        top.addWidget(self.split_combo)
        top.addWidget(self.base_check)
        top.addWidget(self.eval_button)
        top.addWidget(self.report_button)

        self.cards_row = QGridLayout()
        self.cards: dict[str, MetricCard] = {}
        # rows the samples score against a person's correction, where the figures do not
        self.rescored_note = QLabel()
        self.rescored_note.setObjectName("hint")
        self.rescored_note.setWordWrap(True)
        self.rescored_note.hide()

        # results: confusion matrix or bars per label, the summary beside (pages/evaluate/results.py)
        self.results = ResultsPanel()
        r = self.results  # its parts, by the names the page's users know
        self.heatmap, self.heat_title, self.summary_text = r.heatmap, r.heat_title, r.summary_text
        self.note_text = r.note_text
        self.class_table, self.bars_title, self.label_bars = r.class_table, r.bars_title, r.label_bars
        self.pairs_title, self.pairs_table, self.pairs_empty = r.pairs_title, r.pairs_table, r.pairs_empty

        # samples
        samples = QWidget()
        sv = QVBoxLayout(samples)
        srow = QHBoxLayout()
        self.wrong_only = QCheckBox(self.tr("Wrong only"))
        self.wrong_only.toggled.connect(self._apply_sample_filter)
        self.sample_count = QLabel()
        srow.addWidget(self.wrong_only)
        srow.addStretch(1)
        srow.addWidget(self.sample_count)
        sv.addLayout(srow)
        # what a person's corrections of the rows' labels wait for (pages/evaluate/corrections.py)
        self.corrections_note = QLabel()
        self.corrections_note.setObjectName("hint")
        self.corrections_note.setWordWrap(True)
        sv.addWidget(self.corrections_note)
        self.samples_model = DataFrameTableModel()
        self.samples_view = QTableView()
        self.samples_view.setModel(self.samples_model)
        self.samples_view.setAlternatingRowColors(True)
        self.samples_view.setWordWrap(True)
        self.samples_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.samples_view.horizontalHeader().setDefaultSectionSize(150)
        sv.addWidget(self.samples_view, 1)
        self.corrections = SampleCorrections(self.session, self.background, self.samples_view, self.samples_model,
                                             self.corrections_note, self)
        # the person's judgements of the answers (pages/evaluate/judging.py, ratings.py, compare.py)
        self.judging = JudgementRecorder(self.session, self.background, self)
        self.ratings = SampleRatings(self.session, self.judging, self.samples_view, self.samples_model, self)
        self.ratings.connect_selection()
        self.corrections.more_actions = self.ratings.add_to_menu
        srow.insertWidget(1, self.ratings.bar)
        self.session.data_prepared.connect(self.corrections.refresh)  # the corrections went into a version
        self.corrections.changed.connect(self._on_corrections_changed)

        # playground (pages/evaluate/playground.py); its widgets keep their names on the page
        self.playground = PlaygroundPanel(self.session, self.background, lambda: self.run_combo.currentData())
        self.playground.answered.connect(self.playground_finished)
        self.prompt_edit, self.answer = self.playground.prompt_edit, self.playground.answer
        self.generate_button, self.play_warning = self.playground.generate_button, self.playground.warning
        self.play_progress = self.playground.progress
        self.playground_rating = PlaygroundRating(self.session, self.judging, self.playground)
        self.playground_rating.compare.connect(self._on_compare_question)
        self.compare = CompareTab(self.session, self.background, self.judging, lambda: self.run_combo.currentData())
        self.feedback = FeedbackTab(self.session, self.judging)

        self.tabs = QTabWidget()
        self.tabs.addTab(self.results, self.tr("Results"))
        self.tabs.addTab(samples, self.tr("Samples (the answers side by side)"))
        self.tabs.addTab(self.playground, self.tr("Playground"))
        self.tabs.addTab(self.compare, self.tr("Compare answers"))
        self.tabs.addTab(self.feedback, self.tr("Feedback"))
        self.apply = ApplyFileWidget(self.session, self.background, lambda: self.run_combo.currentData())
        self.tabs.addTab(self.apply, self.tr("Apply to a file"))

        self.eval_progress = OpProgress(label=False)  # the status line below says the stage
        self.eval_progress.cancel_button.clicked.connect(lambda: self.status_label.setText(self.tr("Cancelling…")))

        lay = QVBoxLayout(self)
        lay.addLayout(top)
        lay.addWidget(self.eval_progress)
        status_row = QHBoxLayout()
        status_row.addWidget(self.status_label, 1)
        status_row.addWidget(self.report_copy, 0, Qt.AlignmentFlag.AlignTop)
        lay.addLayout(status_row)
        lay.addLayout(self.cards_row)
        lay.addWidget(self.rescored_note)
        lay.addWidget(self.tabs, 1)

    # ------------------------------------------------------------------ runs
    @Slot()
    def _on_session_project_changed(self) -> None:
        # nothing of the previous project stays: its question and answer, its predicted file
        self.playground.reset()
        self.compare.reset()
        self.apply.reset()
        self._show_judging()
        self._clear_status()  # "No program opened the report …" named a file of that project
        self.refresh_runs()

    def _clear_status(self) -> None:
        self.status_label.clear()
        self.report_copy.hide()
        self.report_copy.set_value("")

    def on_shown(self) -> None:
        self.refresh_runs()

    @Slot()
    def refresh_runs(self) -> None:
        fill_run_combo(
            self.run_combo, self.session.monitor.runs,
            lambda st: run_operations.evaluation_shown(self.session.monitor.summary(st.run_id)),
            self.tr("(no finished run yet: train one on the Train page)"), follow=not self.evaluating)
        self.eval_button.setEnabled(self.run_combo.currentData() is not None)
        self.playground.set_available(self.run_combo.currentData() is not None)
        self.playground_rating.set_available(self.run_combo.currentData() is not None)
        self.compare.set_available(self.run_combo.currentData() is not None)
        self._update_base_check()
        self.load_results()

    def run_dir(self) -> Path | None:
        run_id = self.run_combo.currentData()
        st = self.session.monitor.runs.get(run_id) if run_id else None
        return st.path if st else None

    @Slot(int)
    def _on_run_combo_changed(self, _i: int) -> None:
        if self.report_copy.value():
            self._clear_status()  # the path shown was another run's report
        self.eval_button.setEnabled(self.run_combo.currentData() is not None)
        self._update_base_check()
        self.apply.refresh()
        self.load_results()

    # ------------------------------------------------------------------ evaluate
    @Slot()
    def _on_eval_button_clicked(self) -> None:
        self.evaluate()

    @property
    def evaluating(self) -> bool:
        return self.eval_op is not None

    def _update_base_check(self) -> None:
        """The base-model comparison is offered where core says it means something."""
        path = self.run_dir()
        try:
            why = no_base_comparison(path) if path is not None else None
        except WorkbenchError:
            why = None
        self.base_check.setEnabled(why is None)
        self.base_check.setChecked(why is None)
        self.base_check.setToolTip({
            "builtin": self.tr("The built-in model starts untrained, so the model it started from answers at "
                               "random: the baseline beside the results is the comparison."),
            "multi_label": self.tr("A multi-label model's head is trained from scratch, so there is no base model "
                                   "to compare with: the baseline beside the results is the comparison."),
            "head": self.tr("A classification head is trained from scratch with the run, so the model it started "
                            "from has no head to compare with: the baseline beside the results is the comparison."),
        }.get(why, self.tr("Also score the model the run started from on the same rows.")))

    def eval_args(self, run_id: str) -> list[str]:
        """The 'workbench eval' command line for ``run_id`` with the page's choices."""
        args = ["eval", "--project", str(self.session.project.root), "--run", run_id,
                "--split", self.split_combo.currentData(), "--json"]
        args.append("--compare-base" if self.base_check.isChecked() else "--no-compare-base")
        return args

    def evaluate(self) -> bool:
        run_id = self.run_combo.currentData()
        if run_id is None or self.evaluating or self.session.project is None:
            return False
        self.eval_button.setEnabled(False)
        self.report_copy.hide()
        self.status_label.setText(self.tr("Evaluating {0} in a separate process…").format(run_id))
        op = self.background.command(self.eval_args(run_id), self.tr("Evaluating {0}").format(run_id))
        op.stage_progress.connect(self._on_eval_stage)
        op.succeeded.connect(self._on_eval_succeeded)
        op.failed.connect(self._on_eval_failed)
        op.cancelled.connect(lambda: self.status_label.setText(self.tr("Evaluation cancelled.")))
        op.finished.connect(self._on_eval_finished)
        self.eval_op = op
        self.eval_progress.follow(op)
        op.run()
        return True

    @Slot(str, float, float)
    def _on_eval_stage(self, stage: str, done: float, total: float) -> None:
        if total > 1:
            text = self.tr("Evaluating: {0}, {1} of {2} rows").format(stage_text(stage), int(done), int(total))
        else:  # a stage of unknown length (loading the model, writing the report)
            text = self.tr("Evaluating: {0}…").format(stage_text(stage))
        self.status_label.setText(text)

    @Slot(object)
    def _on_eval_succeeded(self, _result) -> None:
        self.status_label.setText(self.tr("Evaluation finished."))
        self.load_results()
        self.session.state_changed.emit()

    @Slot(str)
    def _on_eval_failed(self, message: str) -> None:
        self.status_label.setText(message)

    @Slot()
    def _on_eval_finished(self) -> None:
        self.eval_op = None
        self.eval_button.setEnabled(self.run_combo.currentData() is not None)
        self.evaluation_finished.emit()

    # ------------------------------------------------------------------ results
    def load_results(self) -> None:
        self._update_play_warning()
        run_dir = self.run_dir()
        self.metrics = None
        self.predictions = pd.DataFrame()
        files = eval_files(run_dir) if run_dir else {}
        self.report_button.setEnabled(bool(files) and files["report"].is_file())
        path = files.get("metrics")
        if path is None or not path.is_file():
            self._show_metrics({})
            self.samples_model.set_frame(pd.DataFrame())
            self.corrections.show(pd.DataFrame(), None, -1)
            self.ratings.show(pd.DataFrame(), None, -1)
            self.results.show_nothing(self._nothing_shown_text(run_dir))
            self.sample_count.setText("")
            return
        try:
            self.metrics = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            self.status_label.setText(self.tr("The evaluation results could not be read: {0}").format(exc))
            return
        try:
            self.predictions = pd.read_csv(files["predictions"], encoding="utf-8-sig", dtype=str,
                                           keep_default_na=False)
        except (OSError, ValueError):
            self.predictions = pd.DataFrame()
        self._show_metrics(self.metrics)
        shown, roles = self._samples_frame(run_dir, self.predictions)
        shown = shown.drop(columns=[ROW_ID], errors="ignore")  # the rows' ids are for corrections, not to read
        shown = self.ratings.shown_frame(shown, self.metrics)
        self.samples_model.set_frame(shown)
        yes_no = {"True": self.tr("yes"), "False": self.tr("no")}
        self.samples_model.set_titles(self._sample_titles(shown.columns, roles),
                                      {c: yes_no for c in ("correct", "base_correct", "exact") if c in shown.columns})
        for c, name in enumerate(shown.columns):  # the rows' own text gets the room to be read
            wide = (name not in self.predictions.columns and name != RATING_COLUMN) or name == "input"
            self.samples_view.setColumnWidth(c, 420 if wide else self.samples_view.horizontalHeader().defaultSectionSize())
        columns = list(shown.columns)
        self.corrections.show(self.predictions, self.metrics,
                              columns.index("reference") if "reference" in columns else -1,
                              {c: columns.index(c) for c in ("correct", "base_correct") if c in columns})
        self.ratings.show(self.predictions, self.metrics,
                          columns.index(RATING_COLUMN) if RATING_COLUMN in columns else -1)
        self._apply_sample_filter()
        self.results_shown.emit(run_dir.name)

    def _nothing_shown_text(self, run_dir: Path | None) -> str:
        if run_dir is not None:
            return self.tr("This run has not been evaluated yet. Click Evaluate: the model answers "
                           "every test row it never saw during training, and the results appear here.")
        train = train_step_state([st.status for st in self.session.monitor.runs.values()])
        if train == "todo":
            return self.tr("There is no run yet. Train one on the Train page; once it has finished, evaluate it "
                           "here: the model answers every test row it never saw during training.")
        if train == "running":
            return self.tr("A run is training on the Train page. Once it has finished, it appears here to be "
                           "evaluated.")
        return self.tr("No run has finished with a model to evaluate. Train one on the Train page (a stopped run "
                       "can be resumed there); once it has finished, evaluate it here.")

    def report_path(self) -> Path | None:
        run_dir = self.run_dir()
        path = eval_files(run_dir)["report"] if run_dir else None
        return path if path is not None and path.is_file() else None

    @Slot()
    def _on_report_button_clicked(self) -> bool:
        path = self.report_path()
        if path is None:
            return False
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
            self.status_label.setText(self.tr("No program opened the report. It is the file {0}; open it in a "
                                              "web browser.").format(path))
            self.report_copy.set_value(str(path))
            self.report_copy.show()
            return False
        return True

    def _samples_frame(self, run_dir: Path, df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
        """The predictions with the rows' own text in place of the prompt each was asked in,
        and the columns that hold those fields (column -> role)."""
        if "input" not in df.columns or self.session.project is None:
            return df, {}
        try:
            fields = input_fields(run_task(run_dir, self.session.project), df["input"].tolist(),
                                  self._inputs_hold())
        except (WorkbenchError, OSError, ValueError):
            fields = None
        if not fields:
            return df, {}
        at = list(df.columns).index("input")
        shown, roles = df.drop(columns=["input"]), {}
        for i, (role, values) in enumerate(fields.items()):
            column = role if role not in shown.columns else f"{role} "
            shown.insert(at + i, column, values)
            roles[column] = role
        return shown, roles

    def _inputs_hold(self) -> str:
        """What the evaluation's inputs hold: "prompt" (the template's, filled) or "fields"."""
        return (self.metrics or {}).get("input", "prompt")

    def _sample_titles(self, columns, roles: dict[str, str]) -> dict[str, str]:
        """The column names of a run's predictions (engine/evaluation/ writes them), and the rows' own
        fields (column -> role), as the page's language names them."""
        prompted = self._inputs_hold() == "prompt"
        titles = {"input": self.tr("template's prompt + text") if prompted else self.tr("input"), "reference": self.tr("expected"), "prediction": self.tr("model's answer"),
                  "correct": self.tr("correct"), "confidence": self.tr("confidence"), "score": self.tr("ROUGE-L"),
                  "exact": self.tr("exact match"), "base_prediction": self.tr("answer before tuning"),
                  "base_correct": self.tr("correct before tuning"), "base_score": self.tr("ROUGE-L before tuning"),
                  "baseline_prediction": self.tr("baseline's answer"), RATING_COLUMN: self.tr("your rating")}
        for name in map(str, columns):
            if name.startswith("p_") and name not in roles:
                titles[name] = self.tr("P({0})").format(name[2:])  # a label's probability
        return {**titles, **{column: role_name(role) for column, role in roles.items()}}

    def _macro_f1_scope(self, m: dict, title: str) -> tuple[str, str]:
        """The macro-F1 card's title and tooltip: which labels its mean is over."""
        n, of = m.get("macro_f1_labels"), m.get("macro_f1_of")
        if not isinstance(n, int) or not isinstance(of, int):
            return title, self.tr("The mean of each label's F1.")
        tip = self.tr("The mean of each label's F1 over the {0} of {1} labels that have a test row or were "
                      "given by the model. A label absent from the test rows and never given is left out, "
                      "not counted as 0.").format(n, of)
        if n < of:
            title = self.tr("{0} ({1} of {2} labels)").format(title, n, of)
        return title, tip

    def _show_metrics(self, result: dict) -> None:
        for card in self.cards.values():
            card.deleteLater()
        self.cards.clear()
        m = result.get("metrics") or {}
        base = result.get("base") or {}
        baseline = result.get("baseline") or {}
        col = 0
        for key in CARD_METRICS:
            v = m.get(key)
            if not isinstance(v, (int, float)):
                continue
            note = metric_note(key)
            b = base.get(key)
            if isinstance(b, (int, float)):
                note = self.tr("base model {0}; {1}").format(fmt_metric(key, b), note)
            c = baseline.get(key)
            if isinstance(c, (int, float)):
                note = self.tr("baseline {0}; {1}").format(fmt_metric(key, c), note)
            title = metric_title(key)
            if key == "macro_f1":
                title, tip = self._macro_f1_scope(m, title)
            card = MetricCard(title, fmt_metric(key, v), note)
            if key == "macro_f1":
                card.setToolTip(tip)
            self.cards[key] = card
            self.cards_row.addWidget(card, 0, col)
            col += 1
        self.results.show_result(result)

    @Slot()
    def _on_corrections_changed(self) -> None:
        """A correction changes the rows scored against one: the filter and the line say so."""
        n = sum(self.corrections.scored(p) is not None for p in self.corrections.truths)
        self.rescored_note.setText(self.tr(
            "Rows scored against your corrected label in the samples: {0} (marked). The figures above keep the "
            "labels this evaluation used; they count your corrections once a run trained with them is "
            "evaluated.").format(n) if n else "")
        self.rescored_note.setVisible(bool(n))
        if self.wrong_only.isChecked():
            self._apply_sample_filter()

    @Slot()
    def _apply_sample_filter(self, *_):
        df = self.predictions
        if self.wrong_only.isChecked() and len(df):
            scored = {p: self.corrections.scored(p) for p in self.corrections.truths}
            self.samples_model.set_view(wrong_positions(df, {p: v for p, v in scored.items() if v is not None}))
        else:
            self.samples_model.set_view(None)
        self.sample_count.setText(self.tr("{0} of {1} rows").format(self.samples_model.rowCount(), len(df)))

    # ------------------------------------------------------------------ judgements
    def _show_judging(self) -> None:
        """Rating and comparing are for projects that write answers (core decides)."""
        judging = writes_answers(self.session.project)
        for tab in (self.compare, self.feedback):
            self.tabs.setTabVisible(self.tabs.indexOf(tab), judging)
        self.playground_rating.setVisible(judging)

    @Slot(str)
    def _on_compare_question(self, question: str) -> None:
        if self.compare.compare_question(question) is not None:
            self.tabs.setCurrentWidget(self.compare)

    # ------------------------------------------------------------------ playground
    @property
    def play_op(self):
        return self.playground.op

    def answers_warning(self) -> str:
        return self.playground.warning_text()

    def _update_play_warning(self) -> None:
        self.playground.update_warning()

    def playground_args(self, run_id: str, prompt: str) -> list[str]:
        return self.playground.args(run_id, prompt)

    @Slot()
    def _on_generate_clicked(self) -> None:
        self.playground.ask()

    def shutdown(self) -> None:
        if self.eval_op is not None:
            self.eval_op.cancel()
        self.playground.shutdown()
        self.compare.shutdown()
        self.apply.shutdown()

