"""Which weights eval and export use: the best by the validation metric unless the last
are asked for (core/trained.py decides, from the run folder alone)."""

import json

import pytest

from workbench.core.errors import WorkbenchError
from workbench.core.jobs import JobSpec, write_job
from workbench.core.project import Project, ProjectConfig
from workbench.core.runs import EventWriter
from workbench.core.trained import resolve_trained_run


def _project(tmp_path) -> Project:
    project = Project(tmp_path / "p", ProjectConfig(name="p", template="finance_sentiment"))
    project.root.mkdir()
    project.save()
    return project


def _run(project: Project, name: str, *, status: str, best: int, steps: list[int], final: bool) -> None:
    run_dir = project.runs_dir / name
    write_job(run_dir, JobSpec(project=str(project.root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    for step in steps:
        ckpt = run_dir / "checkpoints" / f"checkpoint-{step}"
        (ckpt / "model_state").mkdir(parents=True)
        (ckpt / "trainer_state.json").write_text(json.dumps({
            "global_step": step, "best_metric": 0.8,
            "best_model_checkpoint": str(run_dir / "checkpoints" / f"checkpoint-{best}") if step >= best else None}))
    if final:
        (run_dir / "final").mkdir()
        (run_dir / "final" / "workbench_run.json").write_text(json.dumps({
            "base_model": "builtin:tiny", "method": "full", "weights": "best", "metric": "macro_f1",
            "best_step": best, "last_step": steps[-1], "best_checkpoint": f"checkpoint-{best}"}))
    events = EventWriter(run_dir)
    events.emit("start", total_steps=steps[-1])
    events.emit("end", status=status, error=None)
    events.close()


def test_completed_run_best_is_final_and_last_is_the_last_checkpoint(tmp_path):
    project = _project(tmp_path)
    _run(project, "done", status="completed", best=2, steps=[2, 4, 6], final=True)
    best = resolve_trained_run(project, "done")
    assert best.source == "final" and best.weights == "best" and best.note is None
    last = resolve_trained_run(project, "done", "last")
    assert last.source == "checkpoint-6" and last.weights == "last" and last.from_checkpoint
    assert "step 2" in last.note
    # the best was the last step: one set of weights, in final/
    _run(project, "same", status="completed", best=6, steps=[2, 4, 6], final=True)
    assert resolve_trained_run(project, "same", "last").source == "final"


def test_stopped_run_uses_the_best_checkpoint_the_trainer_recorded(tmp_path):
    project = _project(tmp_path)
    _run(project, "stopped", status="stopped", best=4, steps=[2, 4, 6], final=False)
    best = resolve_trained_run(project, "stopped")
    assert best.source == "checkpoint-4" and best.weights == "best" and "best checkpoint" in best.note
    last = resolve_trained_run(project, "stopped", "last")
    assert last.source == "checkpoint-6" and last.weights == "last"
    with pytest.raises(WorkbenchError, match="'best' or 'last'"):
        resolve_trained_run(project, "stopped", "first")


def test_cli_parser_takes_the_checkpoint_choice():
    from workbench.cli import build_parser

    p = build_parser()
    assert p.parse_args(["eval", "--project", "x", "--run", "r"]).checkpoint == "best"
    assert p.parse_args(["export", "--project", "x", "--run", "r", "--checkpoint", "last"]).checkpoint == "last"
    with pytest.raises(SystemExit):
        p.parse_args(["eval", "--project", "x", "--run", "r", "--checkpoint", "first"])
