"""Which weights of a run can be evaluated or exported, decided from the run folder alone.

A completed run has ``final/`` (the LoRA adapter + tokenizer, or the full model, and
``workbench_run.json``). A run that was stopped, failed or crashed has no ``final/``
but may have checkpoints; their ``model_state/`` holds the adapter weights (LoRA runs)
or all weights (full runs), which the engine loads onto the base model. This module
only reads files, so the GUI can ask "can this run be evaluated?" without paddle.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import WorkbenchError
from .jobs import JobSpec, read_job
from .project import Project
from .runs import list_checkpoints, summarize

FINAL_DIR = "final"
RUN_INFO_FILE = "workbench_run.json"
EVAL_DIR = "eval"


@dataclass
class TrainedRun:
    """The weights of a run to evaluate or export, and how to load them."""

    project: Project
    run_dir: Path
    job: JobSpec
    status: str
    source: str  # "final" or the checkpoint folder name, e.g. "checkpoint-20"
    weights_dir: Path  # final/ or checkpoints/checkpoint-N
    method: str  # "lora" | "full"
    task: str  # "classification" | "instruction"
    template: str
    base_model: str  # the folder (or model id) the run started from
    note: str | None = None  # shown to the user, e.g. "evaluated from checkpoint-20"

    @property
    def run_id(self) -> str:
        return self.run_dir.name

    @property
    def from_checkpoint(self) -> bool:
        return self.source != FINAL_DIR

    @property
    def eval_dir(self) -> Path:
        return self.run_dir / EVAL_DIR

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": self.run_id, "status": self.status, "source": self.source,
            "weights_dir": str(self.weights_dir), "method": self.method, "task": self.task,
            "template": self.template, "base_model": self.base_model, "note": self.note,
        }


def _run_info(final: Path) -> dict[str, Any]:
    try:
        data = json.loads((final / RUN_INFO_FILE).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def trained_weights(run_dir: str | os.PathLike, status: str) -> tuple[str, Path] | None:
    """The weights a run with ``status`` offers (source name, folder), or None.

    ``final/`` once complete; else the last complete checkpoint that holds weights. A run
    still training or never started offers none: its checkpoints may be mid-write.
    """
    run_dir = Path(run_dir)
    if status in ("running", "created"):
        return None
    final = run_dir / FINAL_DIR
    if (final / RUN_INFO_FILE).is_file():
        return FINAL_DIR, final
    ckpts = [c for c in list_checkpoints(run_dir) if (c / "model_state").is_dir()]
    return (ckpts[-1].name, ckpts[-1]) if ckpts else None


def has_evaluation(run_dir: str | os.PathLike) -> bool:
    return (Path(run_dir) / EVAL_DIR / "metrics.json").is_file()


def eval_files(run_dir: str | os.PathLike) -> dict[str, Path]:
    """The files an evaluation writes into the run folder, by what they hold."""
    d = Path(run_dir) / EVAL_DIR
    return {"metrics": d / "metrics.json", "predictions": d / "predictions.csv", "report": d / "report.html"}


def resolve_trained_run(project: Project | str | os.PathLike, run_id: str) -> TrainedRun:
    """The weights of ``run_id`` to use, or a :class:`WorkbenchError` that says why none can be.

    Refused: an unknown run, a run still training, a run that never started, and a run
    that ended without ``final/`` and without a complete checkpoint.
    """
    from .operations.runs import run_dir_of
    from .runs import worker_pid

    if not isinstance(project, Project):
        project = Project.open(project)
    run_dir = run_dir_of(project, run_id)
    run_id = run_dir.name
    job = read_job(run_dir)
    status = summarize(run_dir).status
    if status == "running":
        pid = worker_pid(run_dir)
        who = f" (process {pid})" if pid else ""
        raise WorkbenchError(
            f"Run '{run_id}' is still training{who}. Wait until it ends, or stop it ('workbench stop') and then "
            "evaluate or export its last checkpoint.")
    if status == "created":
        raise WorkbenchError(f"Run '{run_id}' has not started training yet, so there is nothing to evaluate or export.")
    found = trained_weights(run_dir, status)
    if found is None:
        why = {"crashed": "crashed", "failed": "failed", "stopped": "was stopped"}.get(status, "ended")
        raise WorkbenchError(
            f"Run '{run_id}' {why} before saving a checkpoint, so it has no trained weights to evaluate or "
            "export. Train again (save checkpoints more often with --save-steps).")
    source, weights = found
    final = run_dir / FINAL_DIR
    info = _run_info(final) if source == FINAL_DIR else {}
    base_model = info.get("base_model_path") or _base_model_of(run_dir, job)
    note = None if source == FINAL_DIR else (
        f"Run '{run_id}' {status} before the end of training; using its last checkpoint, {source}.")
    return TrainedRun(project=project, run_dir=run_dir, job=job, status=status, source=source, weights_dir=weights,
                      method=job.method, task=job.task, template=job.template, base_model=str(base_model), note=note)


def _base_model_of(run_dir: Path, job: JobSpec) -> str:
    if job.base_model.startswith("builtin:"):
        return str(run_dir / "base_model")
    return job.base_model
