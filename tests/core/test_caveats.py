"""When a run's answers get a warning: stopped early, few steps, a loss that barely fell,
a classifier no better than guessing; and not for a run that trained as planned."""

from __future__ import annotations

import pytest

from workbench.core.jobs import JobSpec, write_job
from workbench.core.operations.caveats import answers_caveat
from workbench.core.runs import EventWriter, read_events, summarize
from workbench.core.templates import TemplateCatalog
from workbench.core.task import TaskSpec


def _task(template_id: str) -> TaskSpec:
    return TaskSpec.from_template(TemplateCatalog().get(template_id))


def _run(tmp_path, *, planned: int, losses: list[float], status: str, macro_f1: float | None = None,
         task: str = "classification"):
    run_dir = tmp_path / "runs" / f"run-{status}-{len(losses)}"
    write_job(run_dir, JobSpec(project=str(tmp_path), template="finance_sentiment", task=task,
                               base_model="builtin:tiny", method="full"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=planned)
    step = 0
    for i, loss in enumerate(losses):
        step = (i + 1) * max(1, planned // max(1, len(losses))) if status == "completed" else i + 1
        ev.emit("step", step=step, loss=loss, lr=1e-3)
    if macro_f1 is not None:
        ev.emit("eval", step=step, eval_loss=1.0, metrics={"accuracy": macro_f1, "macro_f1": macro_f1})
    ev.emit("end", status=status, error=None)
    ev.close()
    return summarize(run_dir), read_events(run_dir)


def test_a_run_stopped_after_a_few_steps_is_flagged(tmp_path):
    c = answers_caveat(*_run(tmp_path, planned=80, losses=[1.1, 1.09, 1.08, 1.08, 1.07, 1.07], status="stopped",
                             macro_f1=0.17), _task("finance_sentiment"))
    assert c is not None and c.reasons == ["stopped", "few_steps", "guessing"]
    assert (c.steps, c.planned, c.labels) == (6, 80, 3)
    assert "stopped after 6 of 80 training steps" in c.sentence() and "0.17" in c.sentence()


def test_a_run_that_trained_as_planned_is_not_flagged(tmp_path):
    assert answers_caveat(*_run(tmp_path, planned=80, losses=[1.1, 0.9, 0.6, 0.4], status="completed",
                                macro_f1=0.82), _task("finance_sentiment")) is None


def test_a_short_completed_run_and_an_answer_loss_that_barely_fell(tmp_path):
    c = answers_caveat(*_run(tmp_path, planned=4, losses=[2.0, 1.9, 1.9, 1.85], status="completed",
                             task="instruction"), _task("finance_service_qa"))
    assert c is not None and c.reasons == ["few_steps", "loss_high"]
    assert c.first_loss == 2.0 and round(c.last_loss, 3) == round((1.9 + 1.9 + 1.85) / 3, 3)
    # a classifier's training loss is not held against it: its validation figure is
    c = answers_caveat(*_run(tmp_path, planned=40, losses=[1.1, 1.08, 1.07], status="completed", macro_f1=0.9),
                       _task("finance_sentiment"))
    assert c is None


def test_a_run_whose_worker_died_counts_as_stopped(tmp_path):
    run_dir = tmp_path / "runs" / "run-died"
    write_job(run_dir, JobSpec(project=str(tmp_path), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=80)
    ev.emit("step", step=12, loss=1.1)
    ev.close()  # no end line, no worker holding the folder: it crashed
    s = summarize(run_dir)
    assert s.status == "crashed"
    c = answers_caveat(s, read_events(run_dir), _task("finance_sentiment"))
    assert c is not None and c.reasons == ["stopped"]


@pytest.mark.slow
def test_the_command_line_playground_warns_too(tmp_path):
    import subprocess
    import sys

    import pytest

    pytest.importorskip("paddle")
    from trained_factory import CLS, RUN, trained_project

    project = trained_project(CLS, tmp_path)  # 4 steps of the built-in tiny model
    res = subprocess.run([sys.executable, "-m", "workbench", "playground", "--project", str(project.root),
                          "--run", RUN, "--", "公司业绩大增"], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "warning: This run's answers may be poor: it trained for only 4 steps" in res.stderr


def test_a_loss_that_rose_is_called_a_rise(tmp_path):
    c = answers_caveat(*_run(tmp_path, planned=40, losses=[2.24, 2.3, 2.35, 2.34, 2.33], status="completed",
                             task="instruction"), _task("finance_service_qa"))
    assert c is not None and "loss_high" in c.reasons and c.loss_rose
    assert "its loss rose from 2.24 to 2.34" in c.sentence() and "fell" not in c.sentence()
    c = answers_caveat(*_run(tmp_path, planned=40, losses=[2.24, 2.2, 2.1, 2.1, 2.1], status="completed",
                             task="instruction"), _task("finance_service_qa"))
    assert not c.loss_rose and "its loss fell only from 2.24 to 2.10" in c.sentence()
