"""How a run's end shows: a stopped run is not "done" in the sidebar, and the Evaluate page
moves to a run that has just finished, as the Export page does; with no run, Evaluate says to train one."""

from __future__ import annotations

import pytest

from workbench.core.jobs import JobSpec, write_job
from workbench.core.runs import EventWriter, train_step_state


def _ended(root, run_id, status):
    run_dir = root / "runs" / run_id
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40, device="cpu")
    ev.emit("step", step=10, loss=1.2, lr=0.001)
    ev.emit("end", status=status, error=None)
    ev.close()
    return run_dir


def test_the_train_step_shows_how_the_latest_run_ended():
    assert train_step_state([]) == "todo"
    assert train_step_state(["completed"]) == "done"
    assert train_step_state(["completed", "stopped"]) == "stopped"
    assert train_step_state(["stopped", "completed"]) == "done"
    assert train_step_state(["completed", "crashed"]) == "failed"
    assert train_step_state(["stopped", "running"]) == "running"
    assert train_step_state(["created"]) == "todo"


def test_a_stopped_run_is_not_called_done_in_the_sidebar(qtbot, sample_project, tmp_path):
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    _ended(sample_project, "run-20260101-000000-aaaa", "stopped")
    w = MainWindow(Settings(tmp_path / "gui.ini"))
    qtbot.addWidget(w)
    w.open_project(sample_project)
    assert w.session.step_states()["train"] == "stopped"
    text = w.nav.item(2).text()
    assert "stopped" in text and "done" not in text


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    pytest.importorskip("paddle")
    pytest.importorskip("paddleformers")
    from trained_factory import CLS, trained_project

    return trained_project(CLS, tmp_path_factory.mktemp("runs"))


def test_the_evaluate_page_shows_the_run_that_just_finished(qtbot, session, background, trained):
    from trained_factory import RUN, train_run

    from workbench.gui.pages.evaluate.page import EvaluatePage

    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(trained.root)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == RUN, timeout=10000)
    train_run(trained, "run-2")  # a second run trains and ends while the page is open
    qtbot.waitUntil(lambda: page.run_combo.findData("run-2") >= 0, timeout=10000)
    assert page.run_combo.currentData() == "run-2"
    # the user picks the older one again: a refresh without a new run keeps that choice
    page.run_combo.setCurrentIndex(page.run_combo.findData(RUN))
    page.refresh_runs()
    assert page.run_combo.currentData() == RUN


def test_every_step_state_fits_the_sidebar_without_a_sideways_scroll_bar(qtbot, styled_app, sample_project,
                                                                         laptop_window):
    """Seen at 1366x768: a longer state text under "3 Train" was cut off and gave the sidebar a
    horizontal scroll bar."""
    _ended(sample_project, "run-20260101-000000-aaaa", "stopped")
    w = laptop_window(sample_project)
    for state in ("done", "running", "blocked", "failed", "stopped"):
        text = w._state_text(state)
        w.nav.item(2).setText(f"{w._step_title('train')}\n     {text}")
        qtbot.wait(10)
        assert w.nav.horizontalScrollBar().maximum() == 0, state
