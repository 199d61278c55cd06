"""Classification with a trained model: label probabilities for prompts, the prompts a model reads,
and a multi-label head's decision threshold. Evaluation, export, prediction and the playground
share these."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from workbench.core.errors import WorkbenchError
from workbench.core.project import Project
from workbench.core.task import TaskSpec
from workbench.engine import examples, scoring
from workbench.engine.inference.trained import system_prompt
from workbench.engine.models import char_classifier

# ----- scoring -----------------------------------------------------------------------------------


def softmax_rows(scores: Sequence[Sequence[float]]) -> list[list[float]]:
    out = []
    for row in scores:
        m = max(row)
        e = [math.exp(v - m) for v in row]
        s = sum(e)
        out.append([v / s for v in e])
    return out


def classify_with_probs(model, tokenizer, prompts: Sequence[str], labels: Sequence[str], *,
                        max_length: int, batch_size: int = 32,
                        progress: Callable[[int, int], None] | None = None) -> list[list[float]]:
    """Class probabilities per prompt: the classification head's softmax (the built-in
    classifier: one batched pass), else the softmax over the labels' log-likelihoods."""
    if char_classifier.is_classifier(model):
        # batches small enough for some twenty progress reports: one batch of 256 was the whole
        # test split of most projects, so the bar went from 0 to 100 % at once
        rows = min(256, max(32, len(prompts) // 20))
        return examples.head_probabilities(model, tokenizer, prompts, max_length=max_length, batch_size=rows,
                                    progress=progress)
    probs: list[list[float]] = []
    step = max(1, 256 // max(1, len(labels)))  # progress every few hundred scored sequences
    for start in range(0, len(prompts), step):
        scores = examples.label_log_likelihoods(model, tokenizer, prompts[start:start + step], labels,
                                         batch_size=batch_size, max_length=max_length)
        probs.extend(softmax_rows(scores))
        if progress:
            progress(len(probs), len(prompts))
    return probs


def task_prompts(model, tokenizer, spec: TaskSpec, records: Sequence[dict]) -> list[str]:
    """The prompts ``model`` reads for ``records``: the project's prompt for a language model,
    the input fields alone for the built-in classifier. Evaluation and prediction share it."""
    system, user_format = examples.prompt_spec(model, system_prompt(spec), spec.user_format, spec.input_roles)
    return examples.build_prompts(tokenizer, records, system=system, user_format=user_format)


def label_set_probabilities(model, tokenizer, records: Sequence[dict], template: TaskSpec, *, max_length: int,
                            progress: Callable[[int, int], None] | None = None) -> list[list[float]]:
    """Each label's own probability (a multi-label head's sigmoids) for ``records``."""
    if not char_classifier.is_classifier(model) or not char_classifier.is_multi_label(model):
        raise WorkbenchError("This model was not trained for several labels per row. Train the multi-label "
                             "project again with the built-in classifier.", code="model_not_multi_label")
    prompts = task_prompts(model, tokenizer, template, records)
    return examples.head_probabilities(model, tokenizer, prompts, max_length=max_length, progress=progress) if records else []


def tuned_threshold(model, tokenizer, project: Project, template: TaskSpec, *, max_length: int) -> dict[str, Any]:
    """The decision threshold of a multi-label head tuned on the validation split (macro-F1)."""
    val = examples.read_jsonl(project.split_path("val")) if project.split_path("val").is_file() else []
    if not val:
        return {"threshold": 0.5, "tuned_on": None, "val_macro_f1": None}
    probs = label_set_probabilities(model, tokenizer, val, template, max_length=max_length)
    th, f1 = scoring.tune_threshold([list(r.get("labels") or []) for r in val], probs, template.labels,
                               allow_empty=template.no_label_rows)
    return {"threshold": th, "tuned_on": "val", "val_rows": len(val), "val_macro_f1": f1}
