"""The job spec a worker process runs: written to runs/<id>/job.json by the GUI or CLI."""

from __future__ import annotations

import json
import os
import secrets
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import ProjectError, WorkbenchError
from .fsutil import atomic_write_text

BUILTIN_MODELS = ("builtin:tiny", "builtin:small")


class JobSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    project: str
    template: str
    task: Literal["classification", "instruction"]
    base_model: str = "builtin:small"
    # the registered model's id (core/models_store.py) when base_model is its folder: shown to the
    # user, and how a run names the model it started from
    base_model_name: str | None = None
    # "dpo": preference tuning, a LoRA adapter on top of the model of run ``from_run``, trained on the
    # person's judgements with PaddleFormers' DPO trainer (engine/training/preference.py)
    method: Literal["lora", "full", "dpo"] = "lora"
    from_run: str | None = None
    dpo_loss: Literal["sigmoid", "ipo", "hinge", "kto_pair", "simpo", "orpo", "sft"] = "sigmoid"
    dpo_beta: float = Field(0.1, gt=0)
    # weight-only quantised base under LoRA (QLoRA-style); the engine refuses it early
    # where the device does not support it
    quantization: Literal["none", "int8", "int4"] = "none"
    allow_pickle: bool = False

    epochs: float = Field(3.0, gt=0)
    max_steps: int = -1  # > 0 overrides epochs
    learning_rate: float = Field(2e-4, gt=0)
    lr_scheduler: Literal["cosine", "linear", "constant"] = "cosine"
    warmup_ratio: float = Field(0.05, ge=0, lt=1)
    weight_decay: float = Field(0.0, ge=0)
    batch_size: int = Field(8, ge=1)
    gradient_accumulation_steps: int = Field(1, ge=1)
    max_length: int = Field(256, ge=16)
    lora_r: int = Field(8, ge=1)
    lora_alpha: float = Field(16, gt=0)
    lora_dropout: float = Field(0.05, ge=0, lt=1)
    lora_target_modules: list[str] | None = None
    # LoRA on a large vocabulary trains over the project's own tokens (engine/training/vocab_cut.py);
    # "full" keeps every row of the output layer in the loss
    vocabulary: Literal["project", "full"] = "project"
    # classification with a pretrained decoder: a linear head over the labels on its last hidden
    # state, one forward pass per row (engine/models/decoder_head.py); False: the decoder writes the
    # label's name after the template's prompt (every run saved before the head)
    head: bool = False
    head_pooling: Literal["last", "mean"] = "last"  # the head reads the last token's state, or the mean
    # the share of the decoder's layers the head reads (the first ones; the rest are dropped, which
    # also makes every step and answer that much cheaper); None: all of them
    head_depth: float | None = Field(None, gt=0, le=1)
    # a first stage fits the head on the frozen decoder's pooled states (one pass over the training
    # and validation rows, then a logistic regression in seconds): a complete model before any
    # LoRA step, which LoRA then starts from (engine/training/feature_head.py)
    head_features: bool = False
    # with head_features: the head's answer mixes in a linear part over the text's token n-grams
    # (the n-gram baseline's kind of model, inside the exported graph), its share chosen on validation
    head_linear: bool = False
    # a decoder's layers recompute their activations in the backward pass instead of keeping
    # them: the memory of one layer for about 1.5x the time (engine/training/lm_training.py)
    recompute: bool = False

    logging_steps: int = Field(5, ge=1)
    eval_rows: int | None = Field(None, ge=1)  # validation rows each evaluation reads; None: all
    eval_steps: int = Field(50, ge=1)
    save_steps: int = Field(50, ge=1)
    save_total_limit: int = Field(3, ge=1)
    seed: int = 42
    device: str = "auto"  # auto | cpu | gpu | gpu:N | <custom device type>[:N]
    precision: Literal["auto", "fp32", "bf16", "fp16"] = "auto"

    # the time budget that bounds the run (the worker ends it at the budget, core/timing.py) and
    # the recommendation's estimate of its time, both in seconds; None: no bound, no estimate
    time_budget_s: float | None = Field(None, gt=0)
    estimate_s: float | None = Field(None, ge=0)
    # the share of the processor other work kept busy when the run was started (core/machine_load.py):
    # the estimate above is an idle machine's, the range shown counts on this load; None: not measured
    cpu_busy: float | None = Field(None, ge=0, le=1)
    cpu_cores: int | None = Field(None, ge=1)  # the logical cores that share was of

    resume_from: str | None = None  # a checkpoint folder of this run or another one
    parent_run: str | None = None  # the run this one resumes, for the curves
    # the data version it trains on (core/versions.py); its evaluation, resume and export read it
    data_version: str | None = None

    @model_validator(mode="after")
    def _check(self) -> "JobSpec":
        if self.method == "full" and self.quantization != "none":
            raise ValueError("quantization applies to LoRA only; use method lora or quantization none")
        if (self.method == "dpo") != bool(self.from_run):
            raise ValueError("method dpo trains on top of a run: it needs from_run, and only it takes one")
        if self.method == "dpo" and (self.task != "instruction" or self.quantization != "none"):
            raise ValueError("method dpo is for instruction projects, without quantization")
        if self.head_linear and not self.head_features:
            raise ValueError("head_linear needs head_features: the linear part's share is chosen against the fitted head")
        return self


def head_layers(total: int, depth: float | None) -> int:
    """How many of a decoder's ``total`` layers a head of ``depth`` (a share; None: all) reads."""
    return total if depth is None else max(1, min(total, round(total * depth)))


def new_run_id(prefix: str = "run") -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}"


def write_job(run_dir: str | os.PathLike, job: JobSpec) -> Path:
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(run_dir / "job.json", job.model_dump_json(indent=2) + "\n")


def read_job(run_dir: str | os.PathLike) -> JobSpec:
    path = Path(run_dir) / "job.json"
    if not path.is_file():
        raise ProjectError(f"{run_dir} is not a run folder (no job.json).", code="not_a_run", path=str(run_dir))
    try:
        return JobSpec.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValidationError, ValueError) as exc:
        raise WorkbenchError(f"{path} is invalid: {str(exc).splitlines()[0]}", code="run_file_damaged",
                             path=str(path), detail=str(exc).splitlines()[0]) from None


TASK_FILE = "task.json"


def write_run_task(run_dir: str | os.PathLike, spec) -> Path:
    """Keep the task a run was started with (labels in the head's order, prompt, columns):
    preparing the project again later must not change how its old runs are read."""
    return atomic_write_text(Path(run_dir) / TASK_FILE, spec.model_dump_json(indent=2) + "\n")


def run_task(run_dir: str | os.PathLike, project):
    """The run's own task, or the project's for a run started before runs kept theirs."""
    from .task import TaskSpec

    path = Path(run_dir) / TASK_FILE
    if path.is_file():
        try:
            return TaskSpec.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (ValidationError, ValueError) as exc:
            raise ProjectError(f"{path} is damaged ({exc.__class__.__name__}); the run's labels cannot be read.",
                               code="run_file_damaged", path=str(path), detail=exc.__class__.__name__) from exc
    return project.task
