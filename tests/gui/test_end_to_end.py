"""Sample template → cleaning → a few real training steps through the worker → evaluate → export."""

import pytest

from workbench.cli import build_parser

pytestmark = pytest.mark.slow  # the whole flow through the window: `make test-slow`


def _has_command(name: str) -> bool:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return name in sub.choices


def test_sample_project_to_export(qtbot, tmp_path):
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    w = MainWindow(Settings(tmp_path / "gui.ini"))
    qtbot.addWidget(w)
    w.background.show_dialogs = False
    errors = []
    w.background.error_shown.connect(lambda t, m: errors.append(m))
    with qtbot.waitSignal(w.session.project_changed, timeout=60000):
        w.open_sample_project()

    data = w.show_step("data")
    qtbot.waitUntil(lambda: data.cleaned_df is not None, timeout=60000)
    assert len(data.cleaned_df) < len(data.raw)
    with qtbot.waitSignal(data.prepared, timeout=60000):
        data.prepare()

    train = w.show_step("train")
    train.model_combo.setCurrentIndex(train.model_combo.findData("builtin:tiny"))
    train.max_steps.setValue(10)
    train.eval_steps.setValue(5)
    run_id = train.start()
    assert run_id
    # curve points arrive from the worker's events file while it trains
    qtbot.waitUntil(lambda: train.loss_plot.point_count("loss") >= 1, timeout=180000)
    qtbot.waitUntil(lambda: w.session.monitor.status(run_id) != "running", timeout=180000)
    assert w.session.monitor.status(run_id) == "completed", train.log.toPlainText()
    assert train.loss_plot.point_count("eval_loss") >= 1
    assert w.session.step_states()["train"] == "done"

    ev = w.show_step("evaluate")
    assert ev.run_combo.currentData() == run_id
    ev.base_check.setChecked(False)
    with qtbot.waitSignal(ev.evaluation_finished, timeout=300000):
        assert ev.evaluate()
        assert ev.eval_progress.isVisibleTo(ev) and ev.eval_progress.cancel_button.isEnabled()
    if _has_command("eval"):
        assert ev.metrics is not None, ev.status_label.text()
        assert ev.cards
    else:
        assert "no 'eval' command" in ev.status_label.text()

    # the playground runs the real command: a question that starts like an option included
    ev.prompt_edit.setText("-5% 的跌幅意味着什么？")
    with qtbot.waitSignal(ev.playground_finished, timeout=300000) as answered:
        ev._on_generate_clicked()
    assert answered.args[0].strip() and "error" not in answered.args[0].lower(), answered.args[0]
    # worded by the window from the command's JSON events, not the terminal's "label: ... (…)" line
    first = answered.args[0].splitlines()[0]
    assert first.startswith("Label: ") and first[len("Label: "):] in w.session.project.task.labels, answered.args[0]
    assert "label:" not in answered.args[0] and "Most likely: " in answered.args[0]

    ex = w.show_step("export")
    with qtbot.waitSignal(ex.export_finished, timeout=300000):
        assert ex.export()
    if _has_command("export"):
        assert ex.result is not None, ex.status_label.text()
        assert ex.table.rowCount() >= 1
        log = ex.log.toPlainText()
        assert "▶" in log and log.count("\n") >= 3, log  # the stages and the command's own messages
        from workbench.gui.pages.export.page import bundle_entries

        unexplained = [name for name, _, what in bundle_entries(ex.bundle_dir) if not what]
        assert not unexplained, unexplained  # every file of the bundle is named in the contents list
    else:
        assert "no 'export' command" in ex.status_label.text()
