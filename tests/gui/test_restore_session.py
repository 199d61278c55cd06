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


def test_a_project_reopens_with_its_last_runs_budget_not_the_one_set_in_another(qtbot, sample_project, tmp_path):
    """Seen in the window: a budget typed in one project (60 minutes) showed in another whose
    last run had 30, and the recommendation for 60 replaced that run's settings. The budget the
    user set last is the one for a project without a run's budget."""
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    template = TemplateCatalog().get("finance_sentiment")
    fresh, _ = prepare(template, template.sample_path, tmp_path / "fresh")
    write_job(sample_project / "runs" / "run-20260101-000000-aaaa",
              JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                      base_model="builtin:tiny", method="full", learning_rate=0.0042, epochs=2.0,
                      time_budget_s=1800))
    ini = tmp_path / "gui.ini"
    w = MainWindow(Settings(ini))
    qtbot.addWidget(w)
    assert w.open_project(fresh.root)
    w.show_step("train").time_budget.setValue(60.0)  # typed in the project without runs
    assert w.open_project(sample_project)
    train = w.pages["train"]
    assert train.time_budget.value() == 30.0 and train.spins["learning_rate"].value() == 0.0042
    w.close()

    w2 = MainWindow(Settings(ini))  # and after a restart
    qtbot.addWidget(w2)
    assert w2.restore_last_session()
    train2 = w2.pages["train"]
    assert train2.time_budget.value() == 30.0 and train2.spins["learning_rate"].value() == 0.0042
    assert w2.open_project(fresh.root)
    assert train2.time_budget.value() == 60.0  # the user's own for a project without a run
    w2.close()
