"""The Train page against runs whose events a test writes (the worker protocol, no paddle)."""

import os
import subprocess
import sys

import pytest

from workbench.core.jobs import JobSpec, write_job
from workbench.core.runs import EventWriter, write_pid
from workbench.gui.pages.train.settings_panel import OWN_SETTINGS
from workbench.gui.pages.train.page import TrainPage, fmt_secs


def _run(root, run_id, pid=None):
    run_dir = root / "runs" / run_id
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full", learning_rate=1e-3 if "b" in run_id else 2e-3))
    write_pid(run_dir, pid if pid is not None else os.getpid())
    return run_dir


def test_live_curves_append_from_the_events_file(qtbot, session, background, sample_project):
    run_dir = _run(sample_project, "run-a")
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40, device="cpu", trainable_params=10, total_params=10, builtin="tiny")
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert page.current_run == "run-a"
    qtbot.waitUntil(lambda: session.monitor.status("run-a") == "running", timeout=5000)
    for step in range(5, 25, 5):
        ev.emit("step", step=step, epoch=0.1, loss=5.0 - step / 10, lr=1e-3, tokens_per_s=800.0, eta_s=10.0)
        qtbot.waitUntil(lambda s=step: page.loss_plot.point_count("loss") == s // 5, timeout=5000)
    ev.emit("eval", step=20, eval_loss=3.5, metrics={"accuracy": 0.5, "macro_f1": 0.25, "network_macro_f1": 0.2})
    qtbot.waitUntil(lambda: page.loss_plot.point_count("eval_loss") == 1, timeout=5000)
    # the log names metrics as the other pages do, not by their ids
    log = page.log.toPlainText()
    assert "Accuracy 0.5000, Macro F1 0.2500, Macro F1 of the network alone 0.2000" in log
    assert "macro_f1" not in log
    # the worker's log lines with a known code are worded by the page, in the interface language
    ev.emit("log", level="info", code="early_stopping", step=20, metric="network_macro_f1", best=0.25,
            best_step=10, evals=3, message="early stopping at step 20: validation network_macro_f1 ...")
    ev.emit("log", level="info", code="linear_fit", rows=1234, ngrams=56789, seconds=2.5, message="fitted ...")
    ev.emit("log", level="info", code="best_weights", step=10, message="kept the best weights ...")  # no figures
    ev.emit("log", level="warning", message="VisualDL logs disabled: no space left")
    qtbot.waitUntil(lambda: "VisualDL" in page.log.toPlainText(), timeout=5000)
    log = page.log.toPlainText()
    assert ("Stopped early at step 20: validation Macro F1 of the network alone has not improved on 0.2500 "
            "(step 10) for 3 evaluations") in log
    assert "Fitted the word-statistics part on 1,234 rows (56,789 character n-grams) in 2.5 s" in log
    assert "info: kept the best weights ..." in log and "warning: VisualDL logs disabled: no space left" in log
    assert "network_macro_f1" not in log
    assert page.progress.value() == 500
    assert "20" in page.progress_label.text()
    assert page.stop_button.isEnabled() and not page.resume_button.isEnabled()
    ev.emit("end", status="completed", error=None)
    qtbot.waitUntil(lambda: session.monitor.status("run-a") == "completed", timeout=5000)
    ev.close()
    assert not page.stop_button.isEnabled()
    # the curve buffers were appended to, not rebuilt: x is the steps in order
    s = page.loss_plot.series["loss"]
    assert list(s.x[: s.n]) == [5, 10, 15, 20]


def test_crashed_run_offers_resume_and_runs_compare(qtbot, session, background, sample_project):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run_dir = _run(sample_project, "run-b", pid=dead.pid)
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40, device="cpu")
    ev.emit("step", step=5, loss=4.0, lr=1e-3)
    ev.emit("checkpoint", step=5, path="checkpoints/checkpoint-5")
    ev.close()
    (run_dir / "checkpoints" / "checkpoint-5").mkdir(parents=True)
    (run_dir / "checkpoints" / "checkpoint-5" / "trainer_state.json").write_text("{}")
    other = _run(sample_project, "run-c")
    ev2 = EventWriter(other)
    ev2.emit("start", total_steps=10)
    ev2.emit("step", step=5, loss=3.0, lr=2e-3)
    ev2.emit("end", status="completed", error=None)
    ev2.close()
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    qtbot.waitUntil(lambda: session.monitor.status("run-b") == "crashed", timeout=10000)
    page.select_run("run-b")
    assert page.resume_button.isEnabled()
    for row in range(page.runs_table.rowCount()):
        page.runs_table.item(row, 0).setCheckState(page.runs_table.item(row, 0).checkState().Checked)
    assert set(page.compared_runs()) == {"run-b", "run-c"}
    assert page.compare_plot.point_count("run-b") == 1
    assert page.diff_table.rowCount() >= 1  # the learning rates differ


def test_settings_from_template_presets_and_tooltips(qtbot, session, background, sample_project):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert "学习率" in page.spins["learning_rate"].toolTip() or "step" in page.spins["learning_rate"].toolTip()
    assert page.preset_combo.count() == 2 + len(session.template.presets)  # and the user's own
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:tiny"))
    assert page.method_combo.currentData() == "full" and not page.method_combo.isEnabled()
    page.preset_combo.setCurrentIndex(1)  # quick try
    assert page.spins["max_length"].value() == 64
    job = page.job_spec()
    assert job.base_model == "builtin:tiny" and job.max_length == 64
    assert "MB" in page.estimate_label.text()


def test_the_estimate_before_a_run_is_the_range_core_makes_for_its_job(qtbot, session, background, sample_project):
    """The time before a run shows as a range, the one `train` prints and the worker reports at its
    start (core: operations.runs.estimate_range), for the settings on the page."""
    from workbench.core.operations import runs as run_operations

    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
    span = run_operations.estimate_range(page.job_spec())
    assert span.low < span.seconds < span.high
    assert f"{fmt_secs(span.low)} to {fmt_secs(span.high)}" in page.estimate_label.text()
    assert "roughly" not in page.estimate_label.text()
    # other settings, another job: its range follows them
    page.spins["epochs"].setValue(2)
    shorter = run_operations.estimate_range(page.job_spec())
    assert shorter.high < span.high
    assert f"{fmt_secs(shorter.low)} to {fmt_secs(shorter.high)}" in page.estimate_label.text()
    # far more steps than the time budget holds: the budget ends the run, and the range there
    page.max_steps.setValue(20000)
    capped = run_operations.estimate_range(page.job_spec())
    assert capped.high == capped.seconds == page.time_budget.value() * 60
    assert f"to {fmt_secs(capped.high)}" in page.estimate_label.text()


def test_lora_settings_only_for_lora(qtbot, session, background, sample_project):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:tiny"))
    assert page.method_combo.currentData() == "full" and not page.method_combo.isEnabled()
    assert not page.spins["lora_r"].isEnabled()
    assert not page.hp_form.isRowVisible(page.spins["lora_r"])
    assert "starts untrained" in page.method_hint.text()
    page.model_combo.setCurrentIndex(page.model_combo.findData("id"))
    page.model_edit.setText("Qwen/Qwen2.5-0.5B")  # the settings are a model's: none until one is named
    page.model_edit.editingFinished.emit()
    page.method_combo.setCurrentIndex(page.method_combo.findData("lora"))
    assert page.spins["lora_r"].isEnabled() and page.hp_form.isRowVisible(page.spins["lora_r"])
    assert page.method_hint.isHidden()
    page.method_combo.setCurrentIndex(page.method_combo.findData("full"))
    assert not page.hp_form.isRowVisible(page.spins["lora_alpha"])


def _sleeper():
    """A live process that plays a worker which ignores stop requests."""
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def test_start_disabled_while_a_run_goes_and_stop_shows_stopping_then_clears_the_eta(
        qtbot, session, background, sample_project):
    proc = _sleeper()
    try:
        run_dir = _run(sample_project, "run-s", pid=proc.pid)
        ev = EventWriter(run_dir)
        ev.emit("start", total_steps=40, device="cpu")
        ev.emit("step", step=10, loss=3.0, lr=1e-3, tokens_per_s=800.0, eta_s=125.0)
        page = TrainPage(session, background)
        qtbot.addWidget(page)
        session.open(sample_project)
        qtbot.waitUntil(lambda: session.monitor.status("run-s") == "running", timeout=5000)
        assert not page.start_button.isEnabled()  # one run at a time
        assert "02:05" in page.progress_label.text()
        page.stop("run-s")
        assert "stopping" in page.run_title.text()
        assert not page.stop_button.isEnabled()
        assert "02:05" not in page.progress_label.text()  # no estimate while it stops
        ev.emit("end", status="stopped", error=None)
        ev.close()
        qtbot.waitUntil(lambda: session.monitor.status("run-s") == "stopped", timeout=5000)
        assert "stopping" not in page.run_title.text() and "02:05" not in page.progress_label.text()
        assert "10" in page.progress_label.text()
        assert page.start_button.isEnabled()
    finally:
        proc.kill()
        proc.wait()


def test_a_stop_that_is_ignored_ends_the_worker_after_the_grace_period(qtbot, session, background, sample_project):
    proc = _sleeper()
    try:
        run_dir = _run(sample_project, "run-t", pid=proc.pid)
        EventWriter(run_dir).emit("start", total_steps=40, device="cpu")
        page = TrainPage(session, background)
        qtbot.addWidget(page)
        session.open(sample_project)
        qtbot.waitUntil(lambda: session.monitor.status("run-t") == "running", timeout=5000)
        session.monitor.stops.grace_s = 0.0
        page.stop("run-t")
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=15000)
        qtbot.waitUntil(lambda: session.monitor.status("run-t") == "crashed", timeout=5000)
    finally:
        proc.kill()
        proc.wait()


def test_a_failed_run_shows_its_error_and_log_in_the_page_and_the_list(qtbot, session, background, sample_project):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run_dir = _run(sample_project, "run-f", pid=dead.pid)
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40, device="cpu")
    ev.emit("end", status="failed", error="Training ran out of memory. Lower the batch size.")
    ev.close()
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.select_run("run-f")
    assert page.failure_banner.isVisible() or not page.isVisible()
    assert not page.failure_banner.isHidden()
    text = page.failure_banner.text()
    assert "out of memory" in text and str(run_dir) in text
    row = page._row_of("run-f")
    assert page.runs_table.item(row, 2).text() == "failed"
    assert session.step_states()["train"] == "failed"  # the sidebar says so too


def test_reopening_a_project_restores_the_settings_of_its_last_run(qtbot, session, background, sample_project):
    run_dir = sample_project / "runs" / "run-20260101-000000-abcd"
    write_job(run_dir, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full", learning_rate=0.0042, batch_size=4,
                               max_length=96, epochs=2.0, max_steps=30, eval_steps=10, time_budget_s=1800))
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert page.model_combo.currentData() == "builtin:tiny"
    # seen in the window: a run's settings chosen for 30 minutes came back under the 10-minute default
    assert page.time_budget.value() == 30.0
    assert page.spins["learning_rate"].value() == 0.0042
    assert page.spins["batch_size"].value() == 4 and page.spins["max_length"].value() == 96
    assert page.max_steps.value() == 30 and page.eval_steps.value() == 10
    job = page.job_spec()
    assert (job.learning_rate, job.max_steps, job.eval_steps, job.save_steps) == (0.0042, 30, 10, 10)
    # seen in the window: these came back under "Recommended for this data", which they are not
    assert page.preset_combo.currentData() == OWN_SETTINGS
    page.time_budget.setValue(60)  # and a budget changed then keeps them
    assert page.spins["learning_rate"].value() == 0.0042 and page.max_steps.value() == 30


def test_a_run_with_the_recommended_settings_reopens_as_recommended(qtbot, session, background, sample_project):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:tiny"))
    write_job(sample_project / "runs" / "run-20260101-000000-abcd", page.job_spec())
    again = TrainPage(session, background)
    qtbot.addWidget(again)
    assert again.preset_combo.currentIndex() == 0


def test_a_setting_changed_by_hand_is_the_users_own_and_kept(qtbot, session, background, sample_project):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:tiny"))
    assert page.preset_combo.currentIndex() == 0
    recommended = page.spins["epochs"].value()
    page.spins["epochs"].setValue(recommended + 3)
    assert page.preset_combo.currentData() == OWN_SETTINGS
    assert page.preset_combo.currentText() == "Your own settings"
    page.time_budget.setValue(page.time_budget.value() * 2)  # the recommended values follow it; these not
    assert page.spins["epochs"].value() == recommended + 3
    page.preset_combo.setCurrentIndex(0)  # back to the recommendation
    assert page.spins["epochs"].value() != recommended + 3
    assert page.preset_combo.currentIndex() == 0


def test_settings_fit_the_window_without_a_sideways_scroll_bar(qtbot, session, background, sample_project):
    """Seen at 1366x768: the time budget beside the preset widened the settings column, which
    then scrolled sideways and cut off the Resume button."""
    from PySide6.QtWidgets import QScrollArea

    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.resize(1176, 708)  # the page's share of a 1366x768 window
    page.show()
    qtbot.waitExposed(page)
    scroll = page.findChild(QScrollArea)
    qtbot.waitUntil(lambda: scroll.widget().width() > 0)
    assert not scroll.horizontalScrollBar().isVisible()
    assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width()


def test_a_run_is_deleted_from_the_list_but_not_while_it_trains(qtbot, session, background, sample_project):
    from PySide6.QtCore import QPoint

    from workbench.core.runs import acquire_run_lock
    from workbench.gui.pages.train import delete_run

    done = _run(sample_project, "run-done")
    ev = EventWriter(done)
    ev.emit("start", total_steps=4)
    ev.emit("end", status="completed", error=None)
    ev.close()
    (done / "checkpoints" / "checkpoint-4").mkdir(parents=True)
    (done / "checkpoints" / "checkpoint-4" / "model_state.pdparams").write_bytes(bytes(3 * 2**20))
    busy = _run(sample_project, "run-busy")
    EventWriter(busy).emit("start", total_steps=40)
    lock = acquire_run_lock(busy)  # a worker writes this one
    try:
        page = TrainPage(session, background)
        qtbot.addWidget(page)
        session.open(sample_project)
        page.show()
        qtbot.waitUntil(lambda: session.monitor.status("run-busy") == "running", timeout=5000)
        rows = {page.runs_table.item(r, 0).data(0x0100): r for r in range(page.runs_table.rowCount())}
        menu = delete_run.show_menu(page, page.runs_table,
                                    QPoint(5, page.runs_table.rowViewportPosition(rows["run-busy"]) + 3))
        assert menu is not None and not menu.actions()[0].isEnabled()  # stop it first
        menu.close()
        menu = delete_run.show_menu(page, page.runs_table,
                                    QPoint(5, page.runs_table.rowViewportPosition(rows["run-done"]) + 3))
        assert menu.actions()[0].isEnabled() and "Delete" in menu.actions()[0].text()
        menu.close()
        page.select_run("run-done")
        assert "run-done" in page.run_title.text()
        op = delete_run.delete_run(page, "run-done", confirm=False)
        with qtbot.waitSignal(op.finished, timeout=10000):
            pass
        assert not done.exists() and busy.is_dir()
        assert "run-done" not in session.monitor.runs and page.runs_table.rowCount() == 1
        assert "run-done deleted: 3 MB freed" in page.progress_label.text()
        assert "run-done" not in page.run_title.text()  # the title no longer names it
    finally:
        lock.release()


def test_a_budget_bound_pretrained_run_shows_its_share_of_an_epoch(qtbot, session, background, sample_project, tmp_path):
    """A pretrained model whose first epoch does not fit the time budget trains on part of it:
    the epochs field shows that share (it showed 1.0, and the estimate 90 times too long)."""
    import json

    model = tmp_path / "gemma-shaped"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(dict(
        model_type="gemma3_text", vocab_size=262144, hidden_size=640, intermediate_size=2048, num_hidden_layers=18,
        num_attention_heads=4, num_key_value_heads=1, head_dim=256, tie_word_embeddings=True)), encoding="utf-8")
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    page.model_edit.setText(str(model))
    page.settings_panel.frozen_check.setChecked(False)  # LoRA alone: a frozen start this squeezed takes no steps
    page.time_budget.setValue(1.0)
    page.apply_recommended()
    rec = page.recommendation()
    assert 0 < rec.epochs < 0.5
    assert page.spins["epochs"].value() == rec.epochs
    assert page.estimate_label.text().startswith(f"About {rec.total_steps} steps")
    job = page.job_spec()
    assert job.epochs == rec.epochs and job.eval_rows == rec.eval_rows


def test_the_whole_runs_time_shows_as_a_range_measured_once_the_worker_has(qtbot, session, background, sample_project):
    from workbench.core.timing import measured_estimate, start_estimate

    proc = _sleeper()
    try:
        run_dir = _run(sample_project, "run-e", pid=proc.pid)
        ev = EventWriter(run_dir)
        ev.emit("start", total_steps=100, device="cpu")
        ev.emit("estimate", **start_estimate(60.0).to_dict(), time_budget_s=600.0)
        ev.emit("step", step=5, loss=3.0, lr=1e-3, tokens_per_s=800.0, eta_s=95.0)
        page = TrainPage(session, background)
        qtbot.addWidget(page)
        session.open(sample_project)
        qtbot.waitUntil(lambda: session.monitor.status("run-e") == "running", timeout=5000)
        start = start_estimate(60.0).to_dict()  # as the event carries it
        assert (f"{fmt_secs(start['low'])} to {fmt_secs(start['high'])}, estimated before it started"
                in page.progress_label.text())
        measured = measured_estimate(elapsed_s=40.0, loop_s=20.0, done_steps=10, total_steps=100, step=10)
        ev.emit("estimate", **measured.to_dict(), time_budget_s=600.0)
        ev.emit("step", step=10, loss=2.0, lr=1e-3, tokens_per_s=800.0, eta_s=180.0)
        qtbot.waitUntil(lambda: "measured from its first 10 steps" in page.progress_label.text(), timeout=5000)
        shown = measured.to_dict()  # as the event carries it
        assert f"{fmt_secs(shown['low'])} to {fmt_secs(shown['high'])}" in page.progress_label.text()
        ev.emit("end", status="stopped", error=None)
        ev.close()
        qtbot.waitUntil(lambda: session.monitor.status("run-e") == "stopped", timeout=5000)
        assert "the whole run" not in page.progress_label.text()  # nothing left to estimate
    finally:
        proc.kill()
        proc.wait()


def test_the_estimate_says_when_the_processor_is_busy_with_other_work(qtbot, session, background, sample_project):
    """The range counts on the processor's load when it is read (a figure given to the page here),
    and says so; a processor with a core free gets no note."""
    from workbench.core.operations import runs as run_operations

    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
    page.time_budget.setValue(60)
    idle = run_operations.estimate_range(page.job_spec())
    assert "busy with other work" not in page.estimate_label.text()
    page.show_processor_load(0.8, cores=2)
    job = page.job_spec()
    span = run_operations.estimate_range(job)
    assert (job.cpu_busy, job.cpu_cores) == (0.8, 2) and span.seconds == pytest.approx(idle.seconds * 2.5)
    text = page.estimate_label.text()
    assert "The processor is 80% busy with other work" in text and "2.5 times" in text
    assert f"{fmt_secs(span.low)} to {fmt_secs(span.high)}" in text
    page.show_processor_load(0.5, cores=2)  # one core of two free: the run computes on it
    assert "busy with other work" not in page.estimate_label.text()
    assert f"{fmt_secs(idle.low)} to {fmt_secs(idle.high)}" in page.estimate_label.text()


def test_the_busy_note_is_chinese_in_a_chinese_window(qtbot, session, background, sample_project):
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n

    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        page = TrainPage(session, background)
        qtbot.addWidget(page)
        session.open(sample_project)
        page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
        page.show_processor_load(0.75, cores=2)
        assert "处理器有 75% 正忙于其他工作" in page.estimate_label.text()
        assert "busy" not in page.estimate_label.text()
    finally:
        i18n.install(app, "en")


def test_the_settings_column_is_a_panel_of_its_own(qtbot, session, background, sample_project):
    """The settings (pages/train/settings_panel.py) make a job without the page around them; the page
    shows that panel, its controls under the page's names as well."""
    from workbench.core.operations import runs as run_operations
    from workbench.gui.pages.train.settings_panel import TrainSettingsPanel

    panel = TrainSettingsPanel(session, background)
    qtbot.addWidget(panel)
    session.open(sample_project)
    panel.show_project()
    panel.model_combo.setCurrentIndex(panel.model_combo.findData("builtin:tiny"))
    job = panel.job_spec()
    assert job.base_model == "builtin:tiny" and job.method == "full"
    span = run_operations.estimate_range(job)
    assert f"{fmt_secs(span.low)} to {fmt_secs(span.high)}" in panel.estimate_label.text()
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    assert page.settings_panel.isAncestorOf(page.estimate_label) and page.model_combo is page.settings_panel.model_combo
    assert not page.settings_panel.isAncestorOf(page.start_button)  # Start is the page's, below the panel


def _big_model(tmp_path):
    """A model folder whose config has a 7B decoder's shape (the recommendation reads the shape alone)."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from model_factory import make_model_folder

    folder = make_model_folder("llama", tmp_path / "big-model")
    config = json.loads((folder / "config.json").read_text())
    config.update(hidden_size=4096, num_hidden_layers=32, intermediate_size=11008, num_attention_heads=32,
                  num_key_value_heads=32, head_dim=128)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _page_on_big_model(qtbot, session, background, sample_project, tmp_path) -> TrainPage:
    """The Train page on the sample project with the 7B-shaped model chosen by its folder (the
    frozen start's box, ticked by default, cleared: LoRA's own notes)."""
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    page.model_edit.setText(str(_big_model(tmp_path)))
    page.model_edit.editingFinished.emit()  # as Enter in the field does
    assert page.settings_panel.frozen_check.isChecked()  # the default
    page.settings_panel.frozen_check.setChecked(False)
    return page


def _read_share(text: str) -> int:
    import re

    found = re.findall(r"read about (\d+)% of the training rows", text)
    assert len(found) == 1, text  # one figure for the rows read, said once
    return int(found[0])


def test_the_page_says_plainly_whether_the_head_pays_and_its_steps_agree_with_the_rows_read(
        qtbot, session, background, sample_project, tmp_path):
    """A pretrained model too slow on this processor to take its head through the training rows
    once within the budget. Seen in the window: the head note named "builtin:small" and no time
    of this run, and "Head" appeared nowhere in the method list; "About 126 of the 420 steps"
    became 105 as the load changed beside "reads about 42 % of them". The note says in one
    sentence whether the head pays and at what time, in minutes, naming the models and the
    method as the lists do; the steps and the rows they read are one count."""
    import math
    import re

    from workbench.core.operations import runs as run_operations
    from workbench.core.recommend import minutes

    page = _page_on_big_model(qtbot, session, background, sample_project, tmp_path)
    text = page.estimate_label.text()
    # the method list says what the run trains, in the note's words
    assert page.method_combo.currentText() == "LoRA + classification head (small add-on, fast)"
    assert page.method_combo.itemText(page.method_combo.findData("full")).startswith(
        "Full fine-tuning + classification head")
    job = page.job_spec()
    rec = page.recommendation()
    mine, builtin = run_operations.compared_times(job, rec)
    note = (f"big-model with LoRA + classification head is unlikely to pay off on this data: on four public Chinese "
            f"sets it beat the Built-in small model only on question pairs, and this run takes about {minutes(mine)} "
            f"min against about {minutes(builtin)} min for the Built-in small model.")
    assert note in text.splitlines()
    assert minutes(builtin) < minutes(mine)
    assert "builtin:small" not in text and "One pass" not in text
    rows = int(session.project.config.stats["splits"]["train"])
    per_epoch = math.ceil(rows / job.batch_size)
    steps = int(re.search(r"About (\d+) steps", text).group(1))
    assert _read_share(text) == round(100 * steps / per_epoch)

    # a busy processor: fewer steps before the budget ends the run, and the rows they read with them
    for busy in (0.7, 0.8, 0.9):
        page.show_processor_load(busy, cores=2)
        text = page.estimate_label.text()
        reached, planned = map(int, re.search(r"About (\d+) of the (\d+) steps planned", text).groups())
        assert planned == steps and reached < planned
        assert _read_share(text) == round(100 * reached / per_epoch)
        mine, builtin = run_operations.compared_times(page.job_spec(), rec)
        assert f"this run takes about {minutes(mine)} min against about {minutes(builtin)} min" in text
    page.show_processor_load(0.0, cores=2)

    # full fine-tuning: the note names it as the list does
    page.method_combo.setCurrentIndex(page.method_combo.findData("full"))
    assert "big-model with Full fine-tuning + classification head is unlikely to pay off" in page.estimate_label.text()
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
    assert "classification head" not in page.estimate_label.text()
    assert "read about" not in page.estimate_label.text()
    assert page.method_combo.currentText() == "Full fine-tuning (all weights)"


def test_the_head_note_is_chinese_in_a_chinese_window(qtbot, session, background, sample_project, tmp_path):
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n

    folder = _big_model(tmp_path)
    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        page = TrainPage(session, background)
        qtbot.addWidget(page)
        session.open(sample_project)
        page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
        page.model_edit.setText(str(folder))
        page.model_edit.editingFinished.emit()
        text = page.estimate_label.text()
        assert page.method_combo.currentText().startswith("LoRA + 分类头")
        note = next(line for line in text.splitlines() if "问句对" in line)
        # the frozen start's note (the default), in the method list's words
        assert note.startswith("big-model（LoRA + 分类头，从冻结的模型起步）") and "内置小模型" in note and "分钟" in note
        assert "builtin" not in text and "of the training rows" not in text
    finally:
        i18n.install(app, "en")


def test_a_budget_the_load_makes_the_run_reach_is_said_with_the_steps_it_leaves(qtbot, session, background,
                                                                              sample_project):
    """Seen in the window at 1366 x 768 on a busy processor: "About 884 steps, 10:00 to 10:00". The
    load made the time budget end the run before its planned steps; the page says how many it
    reaches and where the budget ends it, not a range pinned at the budget."""
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
    page.max_steps.setValue(400)
    job = page.job_spec()
    page.time_budget.setValue(job.estimate_s / 60 * 1.2)  # the idle run fits the budget, a loaded one not
    page.show_processor_load(0.9, cores=2)  # 5 times as long
    text = page.estimate_label.text()
    budget = fmt_secs(page.job_spec().time_budget_s)
    assert f"{budget} to {budget}" not in text
    assert "of the 400 steps planned" in text and f"the time budget, {budget}, ends the run there" in text
    reached = int(text.split("About ", 1)[1].split(" of", 1)[0])
    assert 400 * 0.2 < reached < 400 * 0.3  # 1.2 / 5 of them
    page.show_processor_load(0.0, cores=2)
    assert "steps planned" not in page.estimate_label.text()


def test_a_frozen_start_the_budget_squeezes_is_told_once(qtbot, session, background, sample_project, tmp_path):
    """Seen in the window: with the frozen start (the default) and a budget its first stage fills,
    the page said "These steps read about 0% of the training rows; a larger time budget ..." under
    "About 1 steps", beside the stage note that says what LoRA gets, and the stage note said "a
    larger budget" twice. The stage note alone says it."""
    from workbench.core.recommend import STAGES_NOTE_START

    page = _page_on_big_model(qtbot, session, background, sample_project, tmp_path)
    page.settings_panel.frozen_check.setChecked(True)
    page.settings_panel.time_budget.setValue(2.0)
    page.settings_panel._update_estimate()
    text = page.estimate_label.text()
    [stages] = [line for line in text.splitlines() if line.startswith(STAGES_NOTE_START)]
    assert "the run keeps the head it fits" in stages and stages.count("larger budget") == 1
    assert "These steps read" not in text
    # whether the head pays is said from the frozen start's own figures, not LoRA alone's
    assert "from the frozen model, beat the Built-in small model on four of eight public Chinese sets" in text
    assert "unlikely to pay off" not in text


def test_a_frozen_start_on_a_busy_processor_is_not_estimated_past_its_budget(
        qtbot, session, background, sample_project, tmp_path):
    """Seen in the window on 4,073 long legal texts, the processor 90 % busy with an evaluation:
    "About 1 steps, 30:25 to 40:34" and "this run takes about 41 min" for a 10-minute budget. Every
    stage of a frozen start ends within the budget (the first stage's share, LoRA's clock, or no
    LoRA at all), so its estimate does too, however busy the processor."""
    from workbench.core.operations import runs as run_operations

    page = _page_on_big_model(qtbot, session, background, sample_project, tmp_path)
    page.settings_panel.frozen_check.setChecked(True)
    page.settings_panel.time_budget.setValue(2.0)
    page.show_processor_load(0.9, cores=2)
    page.settings_panel._update_estimate()
    job = page.settings_panel.job_spec()
    span = run_operations.estimate_range(job)
    assert span.high <= 120.0 and span.seconds <= 120.0
    times = run_operations.compared_times(job, page.settings_panel.recommendation())
    assert times[0] <= 120.0
    text = page.estimate_label.text()
    assert text.startswith("About 02:00 and ") and "steps" not in text.splitlines()[0]  # the stage note says what runs
    assert "this run takes about 2 min against" in text
