"""The playground's warning about a run's answers says a loss that rose rose (it said "fell
only from 2.24 to 2.34")."""

from __future__ import annotations

from workbench.core.jobs import JobSpec, write_job, write_run_task
from workbench.core.runs import EventWriter
from workbench.core.task import TaskSpec
from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.evaluate.playground import PlaygroundPanel


def _run(project, name, losses):
    run_dir = project / "runs" / name
    write_job(run_dir, JobSpec(project=str(project), template="finance_service_qa", task="instruction",
                               base_model="builtin:tiny", method="full"))
    write_run_task(run_dir, TaskSpec.from_template(TemplateCatalog().get("finance_service_qa")))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40)
    for i, loss in enumerate(losses):
        ev.emit("step", step=(i + 1) * 8, loss=loss, lr=1e-3)
    ev.emit("end", status="completed", error=None)
    ev.close()


def test_a_loss_that_rose_is_called_a_rise_and_a_small_fall_a_fall(qtbot, session, background, sample_project):
    _run(sample_project, "run-rose", [2.24, 2.3, 2.35, 2.34, 2.34])
    _run(sample_project, "run-fell", [2.24, 2.2, 2.1, 2.1, 2.1])
    chosen = ["run-rose"]
    panel = PlaygroundPanel(session, background, lambda: chosen[0])
    qtbot.addWidget(panel)
    session.open(sample_project)
    qtbot.waitUntil(lambda: "run-fell" in session.monitor.runs, timeout=5000)
    text = panel.warning_text()
    assert "Its loss rose from 2.24 to 2.34." in text and "fell" not in text
    chosen[0] = "run-fell"
    assert "Its loss fell only from 2.24 to 2.10." in panel.warning_text()
