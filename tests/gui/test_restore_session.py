"""Reopening the app lands where the user left: the last project, page and run, and the time
budget and export formats the user changed."""

from __future__ import annotations

from workbench.core.jobs import JobSpec, write_job
from workbench.core.runs import EventWriter


def _run(root, run_id):
    run_dir = root / "runs" / run_id
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=20, device="cpu")
    ev.emit("step", step=10, loss=1.1, lr=0.001)
    ev.emit("end", status="stopped", error=None)
    ev.close()


def test_the_last_project_page_run_and_changed_settings_come_back(qtbot, sample_project, tmp_path):
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    _run(sample_project, "run-20260101-000000-aaaa")
    _run(sample_project, "run-20260102-000000-bbbb")
    ini = tmp_path / "gui.ini"
    w = MainWindow(Settings(ini))
    qtbot.addWidget(w)
    assert not w.restore_last_session()  # a first start: nothing to restore
    assert w.open_project(sample_project)
    train = w.show_step("train")
    train.select_run("run-20260101-000000-aaaa")  # the older run
    train.time_budget.setValue(25.0)
    export = w.show_step("export")
    export.format_checks["onnx"].click()  # as the user does; the page's own changes are not remembered
    export.format_checks["static"].click()
    export.format_checks["gguf"].setChecked(True)  # a change the page makes itself
    w.show_step("train")
    w.close()

    w2 = MainWindow(Settings(ini))
    qtbot.addWidget(w2)
    assert w2.session.project is None
    assert w2.restore_last_session()
    assert w2.session.root == sample_project.resolve() or w2.session.root == sample_project
    assert w2.nav.currentRow() == 2 and w2.stack.currentWidget() is w2._holders["train"]
    train2 = w2.pages["train"]
    assert train2.current_run == "run-20260101-000000-aaaa"
    assert train2.time_budget.value() == 25.0
    export2 = w2.page("export")
    ticked = {fmt for fmt, c in export2.format_checks.items() if c.isChecked()}
    assert ticked == {"onnx"}
    w2.close()


def test_a_last_project_that_is_gone_opens_nothing(qtbot, sample_project, tmp_path):
    import shutil

    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    ini = tmp_path / "gui.ini"
    w = MainWindow(Settings(ini))
    qtbot.addWidget(w)
    w.open_project(sample_project)
    w.close()
    shutil.rmtree(sample_project)
    w2 = MainWindow(Settings(ini))
    qtbot.addWidget(w2)
    assert not w2.restore_last_session() and w2.session.project is None
