"""Feedback and preference tuning as the user works with them: record judgements from a file, take
one back, list and export them, and build the job of a DPO run on top of a run's model. What
``workbench feedback`` and ``workbench train --method dpo`` (and the window) call."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import feedback, preference
from ..errors import WorkbenchError
from ..jobs import JobSpec, read_job
from ..project import Project
from ..runs import run_dir_of

# the settings a user may give a preference run; None means recommended
SETTINGS = ("epochs", "max_steps", "learning_rate", "batch_size", "max_length", "eval_steps", "save_steps",
            "logging_steps", "seed", "device", "lora_r", "lora_alpha", "save_total_limit", "precision")


def check_instruction(project: Project) -> None:
    if project.task.task.value != "instruction":
        raise WorkbenchError("Feedback on answers and preference tuning are for projects that write answers "
                             "(instruction tuning); this project classifies.", code="feedback_not_instruction")


def add_from_file(project_dir: str | os.PathLike, path: str | os.PathLike, source: str = "command line"
                  ) -> list[feedback.Judgement]:
    """Record the judgements of a JSON-lines file, all of them or, if a line is bad, none."""
    project = Project.open(project_dir)
    check_instruction(project)
    items = feedback.read_file(path, feedback.load_pairs(project.root), source=source)
    return feedback.append(project.root, items)


@dataclass
class Listing:
    judgements: list[feedback.Judgement]
    counts: dict[str, dict[str, int]]
    pairs: list[preference.PreferencePair]
    pair_counts: preference.PairCounts

    def to_dict(self) -> dict[str, Any]:
        return {"judgements": [j.model_dump(exclude_none=True) for j in self.judgements], "counts": self.counts,
                "pairs": len(self.pairs), "pair_counts": self.pair_counts.to_dict()}


def listing(project_dir: str | os.PathLike) -> Listing:
    project = Project.open(project_dir)
    items = feedback.load(project.root)
    pairs, counts = preference.preference_pairs(items)
    return Listing(items, feedback.counts(items), pairs, counts)


def export_lines(project_dir: str | os.PathLike, fmt: str) -> list[dict[str, Any]]:
    """The preference pairs of the judgements in force, one object each in ``fmt``, with the
    project's system text."""
    project = Project.open(project_dir)
    pairs, _ = preference.preference_pairs(feedback.load(project.root))
    system = project.task.system_text("zh")
    return [preference.to_format(p, fmt, system=system) for p in pairs]


# ----- a preference run ----------------------------------------------------------------------


def _from_run(project: Project, run_id: str) -> tuple[Path, JobSpec]:
    """The folder and job of the run a preference run starts from, refused unless it writes answers
    and has weights (on its server for a run that trained there: they are not brought down)."""
    from ..runs import summarize
    from .runs import can_evaluate

    run_dir = run_dir_of(project.root, run_id)
    job = read_job(run_dir)
    if job.task != "instruction":
        raise WorkbenchError(f"Run '{run_id}' classifies; preference tuning starts from a run that writes answers.",
                             code="dpo_from_run_classifies", run=run_id)
    summary = summarize(run_dir)
    status = summary.status
    if not can_evaluate(summary):
        raise WorkbenchError(f"Run '{run_id}' has no trained weights to start from ({status}); choose a run that "
                             "completed or saved a checkpoint.", code="dpo_from_run_without_weights", run=run_id,
                             status=status)
    return run_dir, job


def build_dpo_job(project: Project, from_run: str, *, dpo_loss: str | None = None, dpo_beta: float | None = None,
                  time_budget_min: float | None = None, on: str | None = None,
                  **settings: Any) -> tuple[JobSpec, preference.PreferenceRecommendation, preference.PairCounts]:
    """The job of a DPO run on top of ``from_run``'s model, with the settings recommended for the
    pairs where not given (``settings``: :data:`SETTINGS`), the recommendation and the pairs' counts."""
    from ..recommend import read_model_config

    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    check_instruction(project)
    from_dir, from_job = _from_run(project, from_run)
    if on:
        from .runs import where

        there = where(from_dir)
        if there != on:
            raise WorkbenchError(
                f"Run '{from_run}' trained {'on server ' + there if there else 'on this computer'}, so its model is not "
                f"on server '{on}'. Start the preference run {'there' if there else 'here'} (leave out --on or name "
                "that server), or train the first run on the server too.", code="dpo_from_run_elsewhere",
                run=from_run, server=on, where=there or "")
    seed = int(settings.get("seed") or 42)
    pairs, counts = preference.training_pairs(project.root, seed)
    train = [p for p in pairs if p.split == "train"]
    mean_chars, max_chars = preference.pair_chars(pairs)
    # a built-in or preference run's model is its own base_model/ folder (core/trained.py)
    own = from_dir / "base_model"
    cfg = read_model_config(str(own) if (own / "config.json").is_file() else from_job.base_model)
    rec = preference.recommend_preference(len(train), mean_chars, max_chars, cfg=cfg,
                                          time_budget_min=time_budget_min, loss=preference.recommended_loss(counts))
    given = {k: v for k, v in settings.items() if v is not None}
    values: dict[str, Any] = dict(epochs=rec.epochs, learning_rate=rec.learning_rate, batch_size=rec.batch_size,
                                  max_length=rec.max_length, eval_steps=rec.eval_steps, lora_dropout=0.0,
                                  lora_r=from_job.lora_r, lora_alpha=from_job.lora_alpha,
                                  lora_target_modules=from_job.lora_target_modules if from_job.method != "full" else None)
    values.update(given)
    if (values.get("max_steps") or -1) <= 0:
        values["max_steps"] = -1
    values.setdefault("save_steps", values["eval_steps"])
    values.setdefault("logging_steps", max(1, min(5, int(values["eval_steps"]))))
    fixed = given.get("epochs") is not None or (given.get("max_steps") or -1) > 0
    budget = max(time_budget_min, 0.1) * 60 if time_budget_min is not None else (None if fixed else 600.0)
    job = JobSpec(project=str(project.root.resolve()), template=from_job.template, task="instruction",
                  base_model=from_job.base_model, base_model_name=from_job.base_model_name, method="dpo",
                  from_run=from_dir.name, dpo_loss=dpo_loss or rec.loss,
                  dpo_beta=float(dpo_beta if dpo_beta is not None else rec.beta),
                  data_version=from_job.data_version, time_budget_s=budget, estimate_s=rec.est_seconds, **values)
    return job, rec, counts


def run_report(project_dir: str | os.PathLike, run_id: str) -> dict[str, Any] | None:
    """What a preference run measured on its held-out pairs (from its final weights' record)."""
    import json

    run_dir = run_dir_of(Path(project_dir), run_id)
    if read_job(run_dir).method != "dpo":
        return None
    try:
        info = json.loads((run_dir / "final" / "workbench_run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return info.get("preference")
