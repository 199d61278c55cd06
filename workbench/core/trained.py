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
    weights: str = "last"  # "best" (by the validation metric) or "last" (the last training step)

    @property
    def run_id(self) -> str:
        return self.run_dir.name

    @property
    def spec(self):
        """The task the run was trained for (its labels in the head's order), not the project's
        current one, which preparing the data again may have changed."""
        from .jobs import run_task

        return run_task(self.run_dir, self.project)

    @property
    def probe(self) -> dict | None:
        """What the model that saved these weights gave on a few validation rows (see
        :func:`weights_probe`)."""
        return weights_probe(self.weights_dir)

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
            "template": self.template, "base_model": self.base_model, "note": self.note, "weights": self.weights,
        }


def _run_info(final: Path) -> dict[str, Any]:
    try:
        data = json.loads((final / RUN_INFO_FILE).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


CHECKPOINT_CHOICES = ("best", "last")


def _best_checkpoint_name(ckpt: Path) -> str | None:
    """The best checkpoint by the validation metric, as the trainer recorded it in ``ckpt``."""
    try:
        state = json.loads((ckpt / "trainer_state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    best = state.get("best_model_checkpoint") if isinstance(state, dict) else None
    return Path(best).name if best else None


def _select_weights(run_dir: Path, status: str, checkpoint: str = "best") -> tuple[str, Path, str] | None:
    """``(source, folder, "best"|"last")`` of the weights to use, or None (see resolve_trained_run)."""
    if status in ("running", "created"):
        return None
    final = run_dir / FINAL_DIR
    ckpts = [c for c in list_checkpoints(run_dir) if (c / "model_state").is_dir()]
    by_name = {c.name: c for c in ckpts}
    if (final / RUN_INFO_FILE).is_file():
        info = _run_info(final)
        last_name = f"checkpoint-{info.get('last_step')}"
        if checkpoint == "last" and info.get("weights") == "best" and info.get("best_step") != info.get("last_step") \
                and last_name in by_name:
            return last_name, by_name[last_name], "last"
        return FINAL_DIR, final, "best" if info.get("weights") == "best" else "last"
    if not ckpts:
        return None
    last = ckpts[-1]
    best = _best_checkpoint_name(last) if checkpoint == "best" else None
    if best in by_name:
        return best, by_name[best], "best"
    return last.name, last, "last"


def weights_probe(weights_dir: str | os.PathLike) -> dict | None:
    """The probe the worker recorded for the weights in ``weights_dir`` (a checkpoint or
    ``final/``): a few validation rows and what the model gave on them when it was saved.
    None for weights saved before probes existed."""
    from .runs import CHECKPOINT_DONE_FILE

    folder = Path(weights_dir)
    if (folder / RUN_INFO_FILE).is_file():
        probe = _run_info(folder).get("probe")
    else:
        try:
            probe = json.loads((folder / CHECKPOINT_DONE_FILE).read_text(encoding="utf-8")).get("probe")
        except (OSError, ValueError, AttributeError):
            probe = None
    return probe if isinstance(probe, dict) and probe.get("rows") else None


def trained_weights(run_dir: str | os.PathLike, status: str, checkpoint: str = "best") -> tuple[str, Path] | None:
    """The weights a run with ``status`` offers (source name, folder), or None.

    ``final/`` once complete (the best weights by the validation metric); else the best
    complete checkpoint the trainer recorded, or the last. ``checkpoint="last"`` asks for
    the last step's weights. A run still training or never started offers none: its
    checkpoints may be mid-write.
    """
    found = _select_weights(Path(run_dir), status, checkpoint)
    return (found[0], found[1]) if found else None


def has_evaluation(run_dir: str | os.PathLike) -> bool:
    return (Path(run_dir) / EVAL_DIR / "metrics.json").is_file()


def eval_files(run_dir: str | os.PathLike) -> dict[str, Path]:
    """The files an evaluation writes into the run folder, by what they hold."""
    d = Path(run_dir) / EVAL_DIR
    return {"metrics": d / "metrics.json", "predictions": d / "predictions.csv", "report": d / "report.html"}


def resolve_trained_run(project: Project | str | os.PathLike, run_id: str, checkpoint: str = "best") -> TrainedRun:
    """The weights of ``run_id`` to use, or a :class:`WorkbenchError` that says why none can be.

    ``checkpoint`` "best" (the default) takes the weights with the best validation metric
    (macro-F1 for classification, the loss for instruction tuning): ``final/`` of a completed
    run holds them; "last" takes the weights of the last training step, which are in the
    last checkpoint when they differ from the best. A run that ended early has no
    ``final/``; "best" then takes the best checkpoint the trainer recorded, "last" the last.

    Refused: an unknown run, a run still training, a run that never started, and a run
    that ended without ``final/`` and without a complete checkpoint.
    """
    if checkpoint not in CHECKPOINT_CHOICES:
        raise WorkbenchError(f"Checkpoint '{checkpoint}' is not a choice; use 'best' or 'last'.",
                             code="checkpoint_choice_unknown", checkpoint=str(checkpoint))
    from .runs import run_dir_of, worker_pid

    if not isinstance(project, Project):
        project = Project.open(project)
    run_dir = run_dir_of(project.root, run_id)
    run_id = run_dir.name
    job = read_job(run_dir)
    project = project.at_version(job.data_version)  # the rows it trained on
    status = summarize(run_dir).status
    if status == "running":
        pid = worker_pid(run_dir)
        who = f" (process {pid})" if pid else ""
        raise WorkbenchError(
            f"Run '{run_id}' is still training{who}. Wait until it ends, or stop it ('workbench stop') and then "
            "evaluate or export its last checkpoint.", code="run_still_training", run=run_id, pid=pid or 0)
    if status == "created":
        raise WorkbenchError(f"Run '{run_id}' has not started training yet, so there is nothing to evaluate or export.",
                             code="run_not_started", run=run_id)
    from .remote import fetch_weights, remote_info

    if remote_info(run_dir) is not None:  # trained on a server: its weights come down on demand
        fetch_weights(run_dir)
    found = _select_weights(run_dir, status, checkpoint)
    if found is None:
        why = {"crashed": "crashed", "failed": "failed", "stopped": "was stopped"}.get(status, "ended")
        raise WorkbenchError(
            f"Run '{run_id}' {why} before saving a checkpoint, so it has no trained weights to evaluate or "
            "export. Train again (save checkpoints more often with --save-steps).", code="run_without_weights",
            run=run_id, status=status)
    source, weights, which = found
    final = run_dir / FINAL_DIR
    info = _run_info(final) if final.is_dir() else {}
    base_model = info.get("base_model_path") or _base_model_of(run_dir, job)
    if source == FINAL_DIR:
        note = None
    elif final.is_dir():
        note = f"Using the last weights ({source}); final/ holds the best ones, of step {info.get('best_step')}."
    else:
        note = (f"Run '{run_id}' {status} before the end of training; using its "
                f"{'best' if which == 'best' else 'last'} checkpoint, {source}.")
    return TrainedRun(project=project, run_dir=run_dir, job=job, status=status, source=source, weights_dir=weights,
                      method=job.method, task=job.task, template=job.template, base_model=str(base_model), note=note,
                      weights=which)


def _base_model_of(run_dir: Path, job: JobSpec) -> str:
    # a built-in model is built into the run, a preference run's start (another run's model) saved there
    if job.base_model.startswith("builtin:") or job.method == "dpo":
        return str(run_dir / "base_model")
    return job.base_model


# Why a run has no base model worth scoring beside it; the GUI words its own translation of
# each reason, the command line prints these.
NO_BASE_COMPARISON = {
    "builtin": "The built-in model starts untrained, so the model it started from answers at random: it is "
               "not worth comparing with. The baseline beside the results is the comparison.",
    "multi_label": "A multi-label model has no base model to compare with (its head is trained from scratch); "
                   "the baseline beside it is the comparison.",
    # The untuned decoder has no head: it could only be scored by writing every label, one pass a
    # label, which on 16 dialogue acts took about 100 minutes for 638 rows where the head took one.
    "head": "A classification head is trained from scratch with the run, so the model it started from has no "
            "head to compare with; the baseline beside the results is the comparison.",
}


def base_comparison_refusal(base_model: str, multi_label: bool, head: bool = False, method: str | None = None
                            ) -> str | None:
    """The key of :data:`NO_BASE_COMPARISON` that rules out comparing a run of ``base_model``
    with the model it started from, or None when that comparison means something (a
    pretrained model fine-tuned to write its answers or its labels, or a preference run, which
    started from the run it tunes, whatever that run's base model was)."""
    if method == "dpo":
        return None
    if base_model.startswith("builtin:"):
        return "builtin"
    if multi_label:
        return "multi_label"
    return "head" if head else None


def no_base_comparison(run_dir: str | os.PathLike) -> str | None:
    """:func:`base_comparison_refusal` for the run in ``run_dir``, read from its files."""
    from .jobs import run_task

    job = read_job(Path(run_dir))
    if job.method == "dpo" or job.base_model.startswith("builtin:"):  # no need to read the task
        return base_comparison_refusal(job.base_model, False, job.head, job.method)
    try:
        multi = bool(run_task(Path(run_dir), Project.open(job.project)).multi_label)
    except WorkbenchError:
        multi = False
    return base_comparison_refusal(job.base_model, multi, job.head, job.method)
