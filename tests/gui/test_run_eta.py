"""The Train page's time left and range never contradict each other or the budget.

Seen: "about 05:06 left · the whole run: 00:26 to 00:53, estimated before it started" in a run
already past that range; after Resume the same range again; a LoRA run with a 10-minute budget
"about 16:00 left" and, eight minutes in, "about 15:06 left"."""

from __future__ import annotations

import os

from workbench.core.jobs import JobSpec, write_job
from workbench.core.runs import EventWriter, write_pid
from workbench.gui.pages.train.page import TrainPage

T0 = 1_800_000_000.0


def _running(root, events: list[tuple[str, dict]]):
    run_dir = root / "runs" / "run-20260101-000000-eta0"
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    write_pid(run_dir, os.getpid())  # alive, no end: running
    ev = EventWriter(run_dir)
    for kind, fields in events:
        ev.emit(kind, **fields)
    ev.close()
    return run_dir


def _text(qtbot, session, background, root) -> str:
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(root)
    assert session.monitor.status(page.current_run) == "running"
    return page.progress_label.text()


def _step(t, step, eta):
    return ("step", {"t": T0 + t, "step": step, "epoch": 0.1, "loss": 1.0, "lr": 1e-3, "tokens_per_s": 800.0,
                     "eta_s": eta})


def _estimate(low, high, budget=None, basis="recommendation", t=0.5):
    return ("estimate", {"t": T0 + t, "seconds": (low + high) / 2, "low": low, "high": high, "basis": basis,
                         "time_budget_s": budget})


def test_a_range_the_run_has_passed_is_not_shown(qtbot, session, background, sample_project):
    _running(sample_project, [("start", {"t": T0, "total_steps": 400}), _estimate(26, 53), _step(208, 120, 306)])
    text = _text(qtbot, session, background, sample_project)
    assert "about 05:06 left" in text and "00:26" not in text and "estimated before" not in text, text


def test_a_range_the_run_keeps_to_is_shown(qtbot, session, background, sample_project):
    _running(sample_project, [("start", {"t": T0, "total_steps": 400}), _estimate(60, 120), _step(10, 40, 50)])
    text = _text(qtbot, session, background, sample_project)
    assert "about 00:50 left" in text and "01:00 to 02:00, estimated before it started" in text, text


def test_a_budget_bounds_the_time_left(qtbot, session, background, sample_project):
    _running(sample_project, [("start", {"t": T0, "total_steps": 900}), _estimate(300, 600, budget=600),
                              _step(480, 300, 906)])
    text = _text(qtbot, session, background, sample_project)
    assert "about 02:00 left" in text, text  # 10 minutes, 8 of them gone


def test_after_resume_the_old_range_is_not_shown_again(qtbot, session, background, sample_project):
    _running(sample_project, [("start", {"t": T0, "total_steps": 400}), _estimate(26, 53), _step(30, 20, 40),
                              ("end", {"t": T0 + 40, "status": "stopped", "error": None}),
                              ("start", {"t": T0 + 100, "total_steps": 400, "initial_step": 20}),
                              _estimate(26, 53, t=100.5), _step(110, 30, 300)])
    text = _text(qtbot, session, background, sample_project)
    assert "about 05:00 left" in text and "00:26" not in text, text


def test_a_range_the_runs_own_count_goes_far_past_is_not_shown(qtbot, session, background, sample_project):
    _running(sample_project, [("start", {"t": T0, "total_steps": 400}), _estimate(26, 53), _step(20, 10, 306)])
    text = _text(qtbot, session, background, sample_project)
    assert "about 05:06 left" in text and "00:26" not in text, text


def test_a_worker_that_ended_is_waited_for(qtbot, session, background, sample_project, monkeypatch):
    """Seen after a run completed: its worker stayed behind as a <defunct> process, which nothing
    waited for while the window was open."""
    import subprocess
    import sys

    from workbench.core.operations import runs as run_operations
    from workbench.gui.pages.train import page as train_page

    monkeypatch.setattr(train_page, "REAP_INTERVAL_MS", 50, raising=False)
    procs = []

    def start_run(project, job, **_kw):
        run_dir = project.root / "runs" / "run-20260101-000000-reap"
        write_job(run_dir, job)
        proc = subprocess.Popen([sys.executable, "-c", "pass"])
        procs.append(proc)
        return run_operations.Started(run_dir, proc)

    monkeypatch.setattr(train_page.run_operations, "start_run", start_run)
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert page.start() == "run-20260101-000000-reap"
    (proc,) = procs
    qtbot.waitUntil(lambda: proc.returncode is not None, timeout=10000)  # waited for: no zombie left
    assert not page._workers and not page._reap_timer.isActive()
