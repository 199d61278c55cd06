"""Step 3: choose a base model and settings, train in a worker process, watch it live.

The settings column is a panel of its own (pages/train/settings_panel.py); this page starts,
stops and resumes runs and shows them.

The worker is a separate process (started by ``core.runs.launch_worker``) that keeps
training if the window closes; this page reads its events through the session's
:class:`~workbench.gui.run_monitor.RunMonitor` and appends them to the curves.
"""

from __future__ import annotations

import time

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout, QLabel, QPlainTextEdit, QProgressBar, QPushButton, QSplitter, QTabWidget, QVBoxLayout, QWidget,
)

from ....core.errors import WorkbenchError
from ....core.jobs import JobSpec, read_job
from ....core.operations import runs as run_operations
from ....core.runs import RunBusy, format_duration
from ...resources import icon
from ...session import ProjectSession
from ...background import BackgroundWork
from ...error_texts import error_text
from ...i18n import join_list
from ..run_text import hyper_label, metric_title, status_text
from . import delete_run
from .data_version import DataVersionBox
from .preference import PreferenceBox, PreferenceDialog
from .run_curves import RunCurves
from .run_log import log_text
from .runs_list import CompareView, RunsTable
from .settings_panel import TrainSettingsPanel

fmt_secs = format_duration
REAP_INTERVAL_MS = 2000
WHERE_CHOSEN = object()  # start_job's default: where the settings column says
# the settings panel's controls, under the page's names as well
SETTINGS_WIDGETS = (
    "model_combo", "model_edit", "browse_button", "method_combo", "method_hint", "models_panel", "preset_combo",
    "time_budget", "hp_form", "spins", "max_steps", "eval_steps", "estimate_label", "settings_scroll",
    "target_combo", "servers_button",
)


class TrainPage(QWidget):
    run_started = Signal(str)
    curve_updated = Signal(str, int)  # run id, loss points so far

    def __init__(self, session: ProjectSession, background: BackgroundWork, parent=None):
        super().__init__(parent)
        self.session = session
        self.background = background
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
        self.total_steps: int | None = None
        self._row_updated: dict[str, float] = {}
        self._build()
        session.project_changed.connect(self._on_session_project_changed)
        session.data_prepared.connect(self._on_session_project_changed)
        session.monitor.events_arrived.connect(self._on_monitor_events_arrived)
        session.monitor.status_changed.connect(self._on_monitor_status_changed)
        session.monitor.runs_changed.connect(self._refresh_runs_table)
        session.corrections_changed.connect(self._update_buttons)
        self._on_session_project_changed()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        # the settings column (pages/train/settings_panel.py), the Start, Stop and Resume buttons below it:
        # always in view, on any screen
        self.settings_panel = TrainSettingsPanel(self.session, self.background)
        for name in SETTINGS_WIDGETS:  # the page's own names for the panel's controls
            setattr(self, name, getattr(self.settings_panel, name))
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
        # the data version a new run trains on; training again once labels were corrected
        self.data_box = DataVersionBox()
        self.data_note, self.train_again_button = self.data_box.note, self.data_box.button
        self.data_box.train_again.connect(self._on_train_again_clicked)
        # a finished run that writes answers, tuned on the person's judgements (pages/train/preference.py)
        self.preference_box = PreferenceBox()
        self.preference_box.tune.connect(self._on_tune_clicked)
        self.preference_dialog: PreferenceDialog | None = None
        column = QWidget()
        cv = QVBoxLayout(column)
        cv.setContentsMargins(0, 0, 0, 0)
        cv.addWidget(self.settings_panel, 1)
        cv.addWidget(self.data_box)
        cv.addWidget(self.preference_box)
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
        # the loss and learning rate; a preference run's rewards and accuracy (pages/train/run_curves.py)
        self.curves = RunCurves()
        self.loss_plot, self.lr_plot = self.curves.loss_plot, self.curves.lr_plot
        lv.addWidget(self.curves, 3)
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

    def on_language_changed(self) -> None:
        self.settings_panel.on_language_changed()
        self._update_buttons()  # the data version's note is drawn from the project

    def on_shown(self) -> None:
        self._update_buttons()  # corrections made on the Evaluate page

    # ------------------------------------------------------------------ settings (the panel's)
    def job_spec(self) -> JobSpec:
        return self.settings_panel.job_spec()

    def base_model(self) -> str:
        return self.settings_panel.base_model()

    def recommendation(self):
        return self.settings_panel.recommendation()

    def apply_recommended(self) -> None:
        self.settings_panel.apply_recommended()

    def restore_settings(self, job: JobSpec) -> None:
        self.settings_panel.restore_settings(job)

    def show_processor_load(self, share: float | None, cores: int | None = None) -> None:
        self.settings_panel.show_processor_load(share, cores)

    def _update_estimate(self) -> None:
        self.settings_panel._update_estimate()

    def _notes(self, rec, job: JobSpec | None = None) -> list[str]:
        return self.settings_panel._notes(rec, job)

    @Slot()
    def _on_session_project_changed(self) -> None:
        self.settings_panel.show_project()
        self._refresh_runs_table()
        runs = list(self.session.monitor.runs)
        self.select_run(runs[-1] if runs else None)
        self._update_buttons()


    # ------------------------------------------------------------------ start / stop / resume
    @Slot()
    def _on_start_button_clicked(self) -> None:
        self.start()

    def start(self) -> str | None:
        if not self.session.is_prepared:
            self.background.show_error(self.tr("The data is not prepared"),
                                  self.tr("Prepare the data on the Data page first (Save and prepare the data)."))
            return None
        try:
            job = self.job_spec()
        except (WorkbenchError, OSError, ValueError) as exc:
            self.background.show_error(self.tr("Training could not start"), exc)
            return None
        return self.start_job(job)

    def start_job(self, job: JobSpec, on: str | None | object = WHERE_CHOSEN):
        """Start a run of ``job`` on server ``on`` (None: here; by default where the settings say);
        the run's id once started here, the operation that starts it on a server, None where it
        could not start."""
        if on is WHERE_CHOSEN:
            on = self.target_combo.currentData()
        try:
            if on:  # the upload and the start over SSH run off the UI thread
                return self._start_on(job, on)
            started = run_operations.start_run(self.session.project, job)
        except (WorkbenchError, OSError, ValueError) as exc:
            self.background.show_error(self.tr("Training could not start"), exc)
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
            self.background.show_error(self.tr("Training could not start"), exc)

        self.start_button.setEnabled(False)
        op = self.background.op(lambda ctx: run_operations.start_run(project, job, on=on),
                           self.tr("Starting the run on server {0}").format(on))
        op.on_success(done).on_failure(failed)
        op.run()
        return op


    @Slot()
    def _on_tune_clicked(self) -> None:
        self.tune_on_judgements()

    def tune_on_judgements(self, run_id: str | None = None) -> PreferenceDialog | None:
        """Open "Tune on your judgements" for ``run_id`` (the run in view by default)."""
        run_id = run_id or self.preference_box.run_id
        if run_id is None or self.session.project is None:
            return None
        panel = self.settings_panel
        dialog = PreferenceDialog(self.session.project, run_id, self.time_budget.value(), panel._cpu_busy,
                                  panel._cpu_cores, self)
        dialog.start_requested.connect(self.start_job)
        self.preference_dialog = dialog
        dialog.open()
        return dialog

    @Slot()
    def _on_train_again_clicked(self) -> None:
        self.train_again()

    def again_from(self) -> str | None:
        """The run whose settings "Train again with the corrections" takes: the one selected, else the last."""
        runs = list(self.session.monitor.runs)
        return self.current_run if self.current_run in runs else (runs[-1] if runs else None)

    def train_again(self):
        """Write the data version the corrections make (off the UI thread), then start a run with
        the settings of :meth:`again_from`'s run on it. The operation, or None where nothing starts."""
        run_id, project = self.again_from(), self.session.project
        if run_id is None or project is None or self.session.monitor.running_ids():
            return None
        try:
            job = read_job(self.session.monitor.runs[run_id].path)
        except WorkbenchError as exc:
            self.background.show_error(self.tr("Training could not start"), exc)
            return None
        pending = self.data_box.pending

        def work(_ctx):
            from ....core.operations.corrections import rebuild
            from ....core.project import Project

            opened = Project.open(project.root)
            return rebuild(opened).version if pending else opened.config.data_version

        def done(version):
            self.session.reload()  # the project's current version is the new one
            # a new run, not a resume: the previous run's settings on the newest data
            self.start_job(job.model_copy(update={"data_version": version, "resume_from": None, "parent_run": None,
                                                  "cpu_busy": None, "cpu_cores": None}))

        def failed(exc):
            self.background.show_error(self.tr("The corrections could not be written"), exc)
            self._update_buttons()

        self.train_again_button.setEnabled(False)
        op = self.background.op(work, self.tr("Writing the corrected data"))
        return op.on_success(done).on_failure(failed).run()

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
            started = run_operations.resume_run(self.session.project, run_id)
        except RunBusy as exc:
            self.background.show_error(self.tr("Training could not resume"), self.tr(
                "Run {0} is already running (process {1} is training it).").format(run_id, exc.pid or "?"))
            return False
        except (WorkbenchError, OSError) as exc:
            self.background.show_error(self.tr("Training could not resume"), exc)
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
        self.resume_button.setEnabled(summary is not None and run_operations.can_resume(summary)
                                      and not monitor.running_ids())
        again = self.again_from()
        trained = monitor.summary(again) if again is not None else None
        self.data_box.show_state(self.session.project, again, trained.data_version if trained else None,
                                 bool(monitor.running_ids()))
        self.preference_box.show_state(summary, bool(monitor.running_ids()))

    # ------------------------------------------------------------------ runs list
    @Slot()
    def _refresh_runs_table(self) -> None:
        self.runs_table.show_runs(self.session.monitor, self.current_run, self.session.project)

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
        project = self.session.project
        self.compare_view.show_runs(self.session.monitor, self.compared_runs(),
                                    project.data_dir if project is not None else None)

    # ------------------------------------------------------------------ live view
    def select_run(self, run_id: str | None) -> None:
        if run_id == self.current_run and run_id is not None:
            return
        self.current_run = run_id
        summary = self.session.monitor.summary(run_id) if run_id is not None else None
        self.curves.show_kind(summary is not None and summary.method == "dpo")
        self.curves.clear()
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
            what = (error_text(summary.error_code, summary.error_fields, summary.error) if summary.error
                    else self.tr("The worker process ended without reporting why."))
            self.failure_banner.setText(self.tr("This run {0}: {1}\nIts log: {2}").format(
                status_text(status), what, run_operations.log_path(summary.path)))
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

    @Slot(str, object)
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
                                             run_operations.log_path(self.session.monitor.runs[run_id].path)))
        self._update_buttons()

    def _apply_events(self, run_id: str, events: list[dict]) -> None:
        last_step = None
        completed = False
        for ev in events:
            kind = ev.get("event")
            if kind == "step":
                self.curves.add_step(ev)
                last_step = ev
            elif kind == "eval":
                self.curves.add_eval(ev)
                m = join_list(f"{metric_title(k)} {v:.4f}" for k, v in (ev.get("metrics") or {}).items()
                              if isinstance(v, (int, float)))
                line = (self.tr("step {0}: tuning loss on the held-out pairs {1:.4f} {2}") if self.curves.preference
                        else self.tr("step {0}: validation loss {1:.4f} {2}"))
                self._append_log(line.format(ev.get("step"), ev.get("eval_loss") or float("nan"), m))
            elif kind == "start":
                self._run_t0 = ev.get("t") if isinstance(ev.get("t"), (int, float)) else None
                self._starts += 1
                self.total_steps = ev.get("total_steps")
                self.curves.set_x_extent(self.total_steps)
                what = (self.tr("the built-in model (trained from scratch on this data)") if ev.get("builtin")
                        else str(ev.get("base_model")))
                line = self.tr("Training {0} on {1}: {2:,} of {3:,} parameters trainable, {4} steps.")
                if ev.get("method") == "dpo":  # an add-on on another run's model
                    what = ev.get("from_run")
                    line = self.tr("Tuning the model of run {0} on {1}: {2:,} of {3:,} parameters trainable, {4} steps.")
                self._append_log(line.format(what, ev.get("device"), ev.get("trainable_params") or 0,
                                             ev.get("total_params") or 0, self.total_steps))
            elif kind == "checkpoint":
                self._append_log(self.tr("Saved checkpoint {0}").format(ev.get("path")))
            elif kind == "estimate":
                budget = ev.get("time_budget_s")
                self._budget_s = float(budget) if isinstance(budget, (int, float)) and budget > 0 else None
                # after a resume the recommendation's range again is the one the run already
                # proved wrong: only what the resumed steps measure is shown
                self._estimate = ev if ev.get("basis") == "measured" or self._starts <= 1 else None
            elif kind == "log":
                self._append_log(log_text(ev))
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
        return log_text(ev)

    def _append_log(self, text: str) -> None:
        self.log.appendPlainText(text)

    def shutdown(self) -> None:
        pass

