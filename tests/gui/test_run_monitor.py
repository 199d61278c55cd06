"""The run monitor on the UI thread: what each of its ticks reads."""

from workbench.core import runs
from workbench.core.jobs import JobSpec, write_job
from workbench.core.runs import EventWriter
from workbench.gui.run_monitor import RunMonitor


def _run(root, run_id, steps):
    run_dir = root / "runs" / run_id
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny"))
    ev = EventWriter(run_dir)
    if steps:
        ev.emit("start", total_steps=steps, device="cpu")
        for step in range(1, steps + 1):
            ev.emit("step", step=step, epoch=step / 100, loss=5.0 / step, lr=1e-3, tokens_per_s=700.0, eta_s=1.0)
        ev.emit("end", status="completed", error=None)
    ev.close()
    return run_dir


def test_looking_for_new_runs_reads_no_run_history(qtbot, tmp_path, monkeypatch):
    """The scan for runs started elsewhere (every 2 s) lists folders; it used to summarise every
    run, parsing each whole events file on the UI thread, a stall that grew with the history."""
    root = tmp_path / "p"
    for name in ("run-a", "run-b"):
        _run(root, name, 2000)
    monitor = RunMonitor(root, interval_ms=50)
    try:
        assert monitor.status("run-a") == "completed" and len(monitor.events("run-b")) == 2002
        reads = []
        real = runs.read_events
        monkeypatch.setattr(runs, "read_events", lambda run_dir: reads.append(run_dir) or real(run_dir))
        _run(root, "run-c", 0)  # started by the command line while the window watches
        qtbot.waitUntil(lambda: "run-c" in monitor.runs, timeout=10000)
        qtbot.wait(300)  # a few more ticks
        assert reads == []
        assert monitor.status("run-c") == "created" and monitor.status("run-a") == "completed"
    finally:
        monitor.set_project(None)


def test_the_window_folds_a_growing_run_as_a_fresh_read_does(qtbot, tmp_path):
    """The window folds each batch of new events once instead of summarising the whole history
    on every refresh; what it shows must stay what reading the run afresh gives."""
    root = tmp_path / "p"
    run_dir = _run(root, "run-a", 0)
    monitor = RunMonitor(root, interval_ms=20)
    try:
        ev = EventWriter(run_dir)
        ev.emit("start", total_steps=30, device="cpu")
        for step in range(1, 31):
            ev.emit("step", step=step, epoch=step / 10, loss=3.0 / step, lr=1e-3)
            if step % 10 == 0:
                ev.emit("eval", step=step, eval_loss=2.0 / step, metrics={"accuracy": step / 40})
                qtbot.waitUntil(lambda: len(monitor.events("run-a")) == len(runs.read_events(run_dir)), timeout=5000)
                assert monitor.summary("run-a") == runs.summarize(run_dir)  # mid-run, after a partial fold
        ev.emit("end", status="stopped", error=None)
        ev.close()
        qtbot.waitUntil(lambda: monitor.status("run-a") == "stopped", timeout=5000)
        shown, fresh = monitor.summary("run-a"), runs.summarize(run_dir)
        assert shown == fresh and (shown.last_step, shown.status) == (30, "stopped")
        assert shown.best_eval_loss == fresh.best_eval_loss == 2.0 / 30
        shown.metrics["accuracy"] = -1.0  # a caller changing its copy leaves the monitor's fold alone
        assert monitor.summary("run-a").metrics == fresh.metrics
    finally:
        monitor.set_project(None)
