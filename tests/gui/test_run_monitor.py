"""The run monitor on the UI thread: what each of its ticks reads."""

from workbench.core import runs as R
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
        real = R.read_events
        monkeypatch.setattr(R, "read_events", lambda run_dir: reads.append(run_dir) or real(run_dir))
        _run(root, "run-c", 0)  # started by the command line while the window watches
        qtbot.waitUntil(lambda: "run-c" in monitor.runs, timeout=10000)
        qtbot.wait(300)  # a few more ticks
        assert reads == []
        assert monitor.status("run-c") == "created" and monitor.status("run-a") == "completed"
    finally:
        monitor.set_project(None)
