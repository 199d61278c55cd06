"""Projects prepared from a user's own export (own column names, GB18030) and trained for a
few steps of the built-in tiny model: what the prediction tests apply and serve."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from workbench.core.jobs import JobSpec, write_job
from workbench.core.project import Project, SplitSettings, prepare
from workbench.core.runs import EventWriter
from workbench.core.templates import TemplateCatalog

CLS, INST = "finance_sentiment", "finance_service_qa"
RUN = "run-1"
# the user's own column names, not the template's
USER_COLUMNS = {CLS: {"text": "新闻正文", "label": "情感倾向"},
                INST: {"instruction": "客户提问", "input": "补充信息", "output": "客服答复"}}


def user_frame(template_id: str) -> pd.DataFrame:
    """The template's sample as a user's export would name its columns."""
    template = TemplateCatalog().get(template_id)
    df = pd.read_csv(template.sample_path, dtype=str, keep_default_na=False)
    return df.rename(columns={template.columns[r]: c for r, c in USER_COLUMNS[template_id].items()})


def trained_project(template_id: str, base: Path) -> Project:
    template = TemplateCatalog().get(template_id)
    src = base / f"{template_id}-export.csv"
    user_frame(template_id).to_csv(src, index=False, encoding="gb18030")
    project, _ = prepare(template, src, base / template_id, mapping=USER_COLUMNS[template_id],
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    train_run(project, RUN, save_steps=4)
    return project


def train_run(project: Project, name: str, *, steps: int = 4, **job) -> Path:
    """A real short run of the project (the built-in tiny model by default) in ``runs/<name>``,
    trained in this process; ``job`` overrides the JobSpec's fields."""
    from workbench.engine.training.trainer import run_training

    task = project.task
    fields = dict(base_model="builtin:tiny", method="full", max_steps=steps, eval_steps=steps, save_steps=2,
                  logging_steps=1, batch_size=8, max_length=128, learning_rate=5e-3, device="cpu", seed=3)
    fields["data_version"] = project.config.data_version  # as a run started from the window records it
    spec = JobSpec(project=str(project.root), template=task.template, task=task.task.value, **{**fields, **job})
    run_dir = project.runs_dir / name
    write_job(run_dir, spec)
    events = EventWriter(run_dir)
    status, error = run_training(spec, run_dir, events)
    events.emit("end", status=status, error=error)
    events.close()
    assert status == "completed", error
    return run_dir


def finished_run(root: Path, run_id: str, base_model: str = "builtin:tiny", task: str = "classification") -> Path:
    """A run folder as a completed worker leaves it (job, start and end events, final/), with no
    training: for pages that only read what a run is."""
    run_dir = Path(root) / "runs" / run_id
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task=task, base_model=base_model,
                               method="full" if base_model.startswith("builtin") else "lora"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=10)
    ev.emit("end", status="completed", error=None)
    ev.close()
    (run_dir / "final").mkdir()
    (run_dir / "final" / "workbench_run.json").write_text("{}", encoding="utf-8")
    return run_dir
