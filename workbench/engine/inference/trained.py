"""A trained run loaded for use: the model of a checkpoint (LoRA merged or not), the base model
beside it, the system prompt it was trained with, and its stored evaluation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.core.task import TaskSpec
from workbench.core.trained import TrainedRun
from workbench.engine.models import loading, run_weights, sources

# ----- loading the trained weights ---------------------------------------------------------


def system_prompt(template: TaskSpec) -> str:
    """The system text training used (the Chinese one, see engine/training/trainer.py)."""
    return template.system_text("zh")


def load_trained(trained: TrainedRun, *, device: str = "cpu", merge: bool = True):
    """``(model, tokenizer)`` of a run in eval mode (engine/models/run_weights.py)."""
    return run_weights.load_run_model(trained, device=device, merge=merge)


def load_base(trained: TrainedRun, *, device: str = "cpu"):
    """The model the run started from, untouched, in eval mode."""
    base = sources.resolve_model_source(trained.base_model, allow_pickle=trained.job.allow_pickle)
    model, tokenizer = loading.load_model_and_tokenizer(base, for_training=False, device=device,
                                                  allow_pickle=trained.job.allow_pickle)
    model.eval()
    return model, tokenizer


def read_eval(run_dir) -> dict[str, Any] | None:
    """The stored metrics.json of a run, or None."""
    try:
        return json.loads((Path(run_dir) / "eval" / "metrics.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
