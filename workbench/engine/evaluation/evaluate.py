"""Evaluation of a trained run on a held-out split; results go to ``<run>/eval/``.

* ``metrics.json`` — the figures (see :mod:`workbench.engine.scoring` for scales), the
  best and worst samples, and with ``compare_base`` the same figures for the base model.
* ``predictions.csv`` — one row per sample (UTF-8 with BOM, so Excel opens Chinese text):
  input, reference, prediction, correct/score, and the base model's prediction beside it.
* ``report.html`` — a self-contained report with embedded plots (see :mod:`.report`).

Every evaluation also fits the classical baseline of :mod:`.baseline` on the train split
and scores it on the same rows (``baseline`` in metrics.json, with a ``comparison`` whose
sentence says whether the fine-tuned model beats it), so the user sees whether
fine-tuning paid.

Classification reads the label back by log-likelihood over the label set (as training's
evaluation does, :func:`workbench.engine.examples.label_log_likelihoods`); the softmax of
those log-likelihoods is reported as the class probabilities. Instruction tuning
generates greedily and scores ROUGE-L (characters), BLEU (sacrebleu, Chinese tokenizer)
and exact match. Both tasks report the teacher-forced loss on the reference answers
(the training loss, over answer tokens only) and its perplexity.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from workbench.core.errors import WorkbenchError
from workbench.core.fsutil import atomic_write, atomic_write_json
from workbench.core.project import Project
from workbench.core.task import TaskSpec
from workbench.core.trained import NO_BASE_COMPARISON, base_comparison_refusal, resolve_trained_run
from workbench.engine import examples, scoring
from workbench.engine.inference.answers import budget_note, default_max_new_tokens, generate_answers
from workbench.engine.inference.classify import (
    classify_with_probs,
    label_set_probabilities,
    task_prompts,
    tuned_threshold,
)
from workbench.engine.inference.trained import load_base, load_trained, system_prompt
from workbench.engine.models import char_classifier, loading, ngram_baseline
from workbench.engine.training import lm_training

Progress = Callable[[str, int, int], None]  # (stage, done, total)


N_BEST_WORST = 5


# an instruction run is evaluated on this many rows of the split unless asked for more: each
# answer is generated token by token, which takes seconds a row with a pretrained model on a CPU
# (the split was shuffled when the data was prepared, so the first rows are a random sample)
DEFAULT_GENERATION_ROWS = 100


def answer_loss(model, tokenizer, records: Sequence[dict], *, task: str, system: str, user_format: str,
                max_length: int, batch_size: int = 8) -> float | None:
    """Mean cross-entropy per answer token (teacher forcing), as in training's eval_loss: the
    output layer at answer tokens only, as training computes it (engine/training/lm_training.py; the
    logits of every position of Gemma 3 were 3.7 GB a batch of 8 x 448, three times over)."""
    import numpy as np
    import paddle

    feats = examples.build_features(tokenizer, records, task=task, system=system, user_format=user_format,
                             max_length=max_length)
    if not feats:
        return None
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    collator = examples.DataCollator(pad)
    fused = lm_training.supports_answer_only_loss(model)
    total, count = 0.0, 0
    with paddle.no_grad():
        for start in range(0, len(feats), batch_size):
            batch = collator(feats[start:start + batch_size])
            labels = batch["labels"].numpy()
            mask = labels != examples.IGNORE_INDEX
            n = int(mask.sum())
            if not n:
                continue
            if fused:  # the mean over the batch's answer tokens, times their number
                with lm_training.answer_only_loss(model):
                    out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                labels=batch["labels"], use_cache=False, return_dict=True)
                total += float(out.loss) * n
                count += n
                continue
            logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                           use_cache=False, return_dict=True).logits
            logp = examples.log_probabilities(logits.astype("float32")).numpy()
            safe = np.where(mask, labels, 0)
            picked = np.take_along_axis(logp, safe[..., None], axis=-1)[..., 0]
            total += float(-(picked * mask).sum())
            count += n
    return total / count if count else None


def _head_loss(probs: Sequence[Sequence[float]], truth: Sequence[str], labels: Sequence[str]) -> float | None:
    index = {lab: i for i, lab in enumerate(labels)}
    picked = [p[index[t]] for p, t in zip(probs, truth) if t in index]
    return sum(-math.log(max(v, 1e-12)) for v in picked) / len(picked) if picked else None


def _set_loss(probs: Sequence[Sequence[float]], truth: Sequence[Sequence[str]], labels: Sequence[str]) -> float | None:
    """Mean binary cross-entropy per label and row (training's eval_loss without the label weights)."""
    total, n = 0.0, 0
    for row, true in zip(probs, truth):
        for lab, p in zip(labels, row):
            p = min(max(p, 1e-12), 1 - 1e-12)
            total -= math.log(p) if lab in true else math.log(1 - p)
            n += 1
    return total / n if n else None


def predict_label_sets(model, tokenizer, records: Sequence[dict], template: TaskSpec, *, max_length: int,
                       threshold: float, progress: Progress | None = None, stage: str = "predict") -> dict[str, Any]:
    """:func:`predict_split` for a multi-label project: labels at or above ``threshold``."""
    labels = list(template.labels)
    report = progress or (lambda s, d, t: None)
    report(stage, 0, len(records))
    user_format = examples.prompt_spec(model, system_prompt(template), template.user_format, template.input_roles)[1]
    probs = label_set_probabilities(model, tokenizer, records, template, max_length=max_length,
                                    progress=lambda d, t: report(stage, d, t))
    truth = [list(r.get("labels") or []) for r in records]
    preds = scoring.label_sets_from_probabilities(probs, labels, threshold, template.no_label_rows)
    metrics = scoring.multi_label_report(truth, preds, labels)
    metrics["threshold"] = threshold
    metrics["confused_pairs"] = scoring.confused_label_pairs(truth, preds)
    rows = []
    for r, ref, pred, p in zip(records, truth, preds, probs):
        rows.append({"input": examples.format_user(user_format, r), "reference": ref, "prediction": pred,
                     "correct": set(pred) == set(ref),
                     # the certainty of the least certain yes/no decision
                     "confidence": min(max(v, 1 - v) for v in p), "probabilities": dict(zip(labels, p))})
    metrics["eval_loss"] = _set_loss(probs, truth, labels)  # over labels: no perplexity
    report(stage, len(records), len(records))
    return {"metrics": metrics, "rows": rows, "input": input_kind(model)}


def input_kind(model) -> str:
    """What a sample's ``input`` holds: "prompt", the template's prompt filled with the row's
    fields, or "fields", the fields alone, one a line: what ``model`` read (examples.reads_prompt)."""
    return "prompt" if examples.reads_prompt(model) else "fields"


def predict_split(model, tokenizer, records: Sequence[dict], template: TaskSpec, *, max_length: int,
                  max_new_tokens: int | None = None, progress: Progress | None = None,
                  stage: str = "predict") -> dict[str, Any]:
    """Predictions and figures of one model on ``records``.

    Returns ``{"metrics": {...}, "rows": [...per-sample dicts...], "input": ...}``: each row's
    ``input`` is what the model read (:func:`input_kind`).
    """
    task = template.task.value
    prompts = task_prompts(model, tokenizer, template, records)
    user_format = examples.prompt_spec(model, system_prompt(template), template.user_format, template.input_roles)[1]
    inputs = [examples.format_user(user_format, r) for r in records]
    report = progress or (lambda s, d, t: None)
    report(stage, 0, len(records))
    rows: list[dict[str, Any]] = []
    if task == "classification":
        labels = list(template.labels)
        truth = [str(r.get("label", "")) for r in records]
        probs = classify_with_probs(model, tokenizer, prompts, labels, max_length=max_length,
                                    progress=lambda d, t: report(stage, d, t)) if records else []
        preds = [labels[max(range(len(labels)), key=p.__getitem__)] for p in probs]
        report(stage, len(records), len(records))
        res = scoring.classification_report(truth, preds, labels)
        for inp, ref, pred, p in zip(inputs, truth, preds, probs):
            rows.append({"input": inp, "reference": ref, "prediction": pred, "correct": pred == ref,
                         "confidence": max(p), "probabilities": dict(zip(labels, p))})
        metrics: dict[str, Any] = {k: res[k] for k in ("accuracy", "macro_f1", "macro_f1_labels", "macro_f1_of",
                                                        "per_class", "confusion", "labels")}
        parts = _part_scores(model, tokenizer, prompts, probs, truth, labels, max_length) if records else None
        if parts:
            metrics["parts"] = parts
    else:
        refs = [str(r.get("output", "")) for r in records]
        n_new = max_new_tokens or default_max_new_tokens(tokenizer, refs)
        answers = generate_answers(model, tokenizer, prompts, max_new_tokens=n_new, max_length=max_length,
                                   progress=lambda d, t: report(stage, d, t))
        res = scoring.generation_metrics(answers, refs)
        for inp, ref, pred, score, ex in zip(inputs, refs, answers, res["per_sample_rouge_l"],
                                             res["per_sample_exact"]):
            rows.append({"input": inp, "reference": ref, "prediction": pred, "score": score, "exact": ex})
        metrics = {k: res[k] for k in ("rouge_l", "bleu", "exact_match")}
        metrics["max_new_tokens"] = n_new
        metrics["answer_budget"] = budget_note(tokenizer, prompts, max_new_tokens=n_new, max_length=max_length)
        # how the answers were written, for a judgement of one (core/feedback.py)
        from workbench.engine.inference.generate import GenerationSettings

        generation = {"mode": "greedy", "max_new_tokens": n_new, **GenerationSettings().guard()}
    if char_classifier.is_classifier(model):  # cross-entropy of the true labels, as training's eval_loss
        loss = _head_loss(probs, truth, labels)
    else:
        system, user_format = examples.prompt_spec(model, system_prompt(template), template.user_format,
                                            template.input_roles)
        loss = answer_loss(model, tokenizer, records, task=task, system=system, user_format=user_format,
                           max_length=max_length)
    metrics["eval_loss"] = loss
    if not char_classifier.is_classifier(model):  # a classification head's loss is over labels, not tokens
        metrics["perplexity"] = scoring.perplexity(loss)
    report(stage, len(records), len(records))
    out = {"metrics": metrics, "rows": rows, "input": input_kind(model)}
    if task != "classification":
        out["generation"] = generation
    return out


def best_and_worst(rows: Sequence[dict], task: str, n: int = N_BEST_WORST) -> tuple[list[dict], list[dict]]:
    """Best and worst samples with their row index.

    Classification: best = correct with the highest confidence; worst = wrong with the
    highest confidence (confidently wrong is what a reviewer must see), topped up with
    the least confident correct ones. Instruction: by ROUGE-L.
    """
    indexed = [dict(r, index=i) for i, r in enumerate(rows)]
    for r in indexed:
        r.pop("probabilities", None)
    if task == "classification":
        right = sorted((r for r in indexed if r["correct"]), key=lambda r: -r["confidence"])
        wrong = sorted((r for r in indexed if not r["correct"]), key=lambda r: -r["confidence"])
        worst = wrong[:n]
        if len(worst) < n:
            worst += list(reversed(right))[: n - len(worst)]
        return right[:n], worst
    ordered = sorted(indexed, key=lambda r: -r["score"])
    return ordered[:n], list(reversed(ordered))[:n]


# ----- the whole evaluation ------------------------------------------------------------------


def predictions_frame(rows: Sequence[dict], task: str, labels: Sequence[str], base_rows: Sequence[dict] | None):
    import pandas as pd

    records = []
    for i, r in enumerate(rows):
        rec: dict[str, Any] = {"input": r["input"], "reference": r["reference"], "prediction": r["prediction"]}
        if isinstance(r["reference"], list):  # a multi-label row
            rec["reference"], rec["prediction"] = scoring.LABEL_SET_JOINER.join(r["reference"]), scoring.LABEL_SET_JOINER.join(r["prediction"])
        if task == "classification":
            rec["correct"] = r["correct"]
            rec["confidence"] = round(r["confidence"], 6)
            for lab in labels:
                rec[f"p_{lab}"] = round(r["probabilities"][lab], 6)
        else:
            rec["score"] = round(r["score"], 6)
            rec["exact"] = r["exact"]
        if base_rows is not None:
            b = base_rows[i]
            rec["base_prediction"] = b["prediction"]
            if task == "classification":
                rec["base_correct"] = b["correct"]
            else:
                rec["base_score"] = round(b["score"], 6)
        records.append(rec)
    return pd.DataFrame.from_records(records)


def _part_scores(model, tokenizer, prompts, probs, truth, labels, max_length) -> dict[str, Any] | None:
    """A classifier with a linear part: each part's macro-F1 beside the mixture's, on the same
    rows. The linear part is lookups; the network's answer is recovered from the mixture's, so
    the decoder is not run twice."""
    import numpy as np

    if not char_classifier.has_linear_part(model) or char_classifier.is_multi_label(model):
        return None
    ids = examples.head_input_ids(tokenizer, prompts, max_length)
    z = char_classifier.linear_logits(model, ids, tokenizer.pad_token_id or 0)
    lin = np.exp(z - z.max(axis=1, keepdims=True))
    lin /= lin.sum(axis=1, keepdims=True)
    network = char_classifier.network_from_mixture(model, np.asarray(probs), lin)

    def f1(p):
        return scoring.classification_report(truth, [labels[int(i)] for i in np.asarray(p).argmax(axis=1)],
                                             labels)["macro_f1"]

    return {"linear_share": float(model.linear_weight), "linear_macro_f1": f1(lin),
            "network_macro_f1": f1(network) if network is not None else None}


def _preference_metrics(judged: dict[str, Any]) -> dict[str, Any]:
    return {"preference_accuracy": judged["preference_accuracy"], "likelihood_accuracy": judged["likelihood_accuracy"],
            "heldout_pairs": judged["pairs"]}


def evaluate_run(project_dir, run_id: str, *, checkpoint: str = "best", compare_base: bool = False,
                 split: str = "test",
                 device: str = "cpu", max_new_tokens: int | None = None, limit: int | None = None,
                 progress: Progress | None = None, write_report: bool = True) -> dict[str, Any]:
    """Evaluate a run on ``split`` and write ``<run>/eval/``; returns the metrics.json content."""
    project = Project.open(project_dir)
    trained = resolve_trained_run(project, run_id, checkpoint)
    project = trained.project  # at the data version the run trained on
    template = trained.spec  # the run's own labels and prompt, not the template's
    refusal = (base_comparison_refusal(trained.job.base_model, template.multi_label, trained.job.head, trained.method)
               if compare_base else None)
    if refusal:
        raise WorkbenchError(NO_BASE_COMPARISON[refusal], code="no_base_comparison", why=refusal)
    path = project.split_path(split)
    if not path.is_file():
        raise WorkbenchError(f"Project {project.root} has no '{split}' split. Prepare the data again.",
                             code="split_missing", split=split)
    records = examples.read_jsonl(path)
    split_rows = len(records)
    if limit is None and template.task.value == "instruction":
        limit = DEFAULT_GENERATION_ROWS
    if limit:  # 0: every row
        records = records[:limit]
    if not records:
        raise WorkbenchError(f"The '{split}' split of {project.root} is empty, so there is nothing to evaluate on. "
                             "Prepare the data again with a test share above zero.", code="split_empty", split=split)
    loading.set_library_log_level("ERROR")
    started = time.time()
    task = template.task.value
    train_path = project.split_path("train")
    train_records = examples.read_jsonl(train_path) if train_path.is_file() else []
    # The baseline needs no model, so it is fitted while the model loads and scores:
    # scikit-learn's sparse products and Paddle's kernels both release the GIL.
    baseline_job = ngram_baseline.fit_in_background(task, train_records, records, template.input_roles, list(template.labels),
                                        template.multi_label, project.cache_dir)
    max_length = trained.job.max_length
    report = progress or (lambda s, d, t: None)
    report("load", 0, 1)  # a stage of unknown length: the front end shows it by name
    model, tokenizer = load_trained(trained, device=device)
    if template.multi_label:
        decision = tuned_threshold(model, tokenizer, project, template, max_length=max_length)
        tuned = predict_label_sets(model, tokenizer, records, template, max_length=max_length,
                                   threshold=decision["threshold"], progress=progress, stage="fine-tuned")
        tuned["metrics"]["threshold_tuning"] = decision
    else:
        tuned = predict_split(model, tokenizer, records, template, max_length=max_length,
                              max_new_tokens=max_new_tokens, progress=progress, stage="fine-tuned")
    del model
    preference = None
    if trained.method == "dpo":  # the held-out judgements, by the tuned model and the run it started from
        from workbench.engine.training.preference import evaluate_heldout

        report("preference", 0, 1)
        preference = evaluate_heldout(trained, device=device)
        report("preference", 1, 1)
    base = None
    if compare_base:
        report("load", 0, 1)
        bmodel, btok = load_base(trained, device=device)
        n_new = tuned["metrics"].get("max_new_tokens", max_new_tokens)
        base = predict_split(bmodel, btok, records, template, max_length=max_length, max_new_tokens=n_new,
                             progress=progress, stage="base")
        del bmodel
    report("baseline", 0, len(records))
    baseline = wait_reporting(baseline_job, lambda: report("baseline", 0, len(records)))
    baseline_preds = baseline.pop("predictions") if baseline else None
    if baseline:
        interval = ngram_baseline.difference_interval(task, template.multi_label, [r["reference"] for r in tuned["rows"]],
                                          [r["prediction"] for r in tuned["rows"]], baseline_preds,
                                          list(template.labels))
        baseline["comparison"] = ngram_baseline.comparison(task, tuned["metrics"], baseline, interval)
    report("baseline", len(records), len(records))
    if preference is not None:  # beside the answers' figures, so that a gain costing answer quality shows
        tuned["metrics"].update(_preference_metrics(preference["tuned"]))
        base = base or {"metrics": {}, "rows": None}
        base["metrics"] = {**base["metrics"], **_preference_metrics(preference["base"])}
    best, worst = best_and_worst(tuned["rows"], task)
    result: dict[str, Any] = {
        "version": 1,
        "run": trained.run_id,
        "source": trained.source,
        "weights": trained.weights,
        "note": trained.note,
        "task": task,
        "template": template.template,
        "base_model": trained.job.base_model, "base_model_name": trained.job.base_model_name,
        "method": trained.method,
        "split": split,
        "data_version": trained.job.data_version,  # whose labels scored it
        "rows": len(records),
        "split_rows": split_rows,
        # what each sample's input holds: the template's prompt and the row's fields ("prompt"),
        # or the fields alone ("fields"), as the model read them; a result without it: "prompt"
        "input": tuned["input"],
        "generation": tuned.get("generation"),  # an instruction model's decoding settings
        "metrics": tuned["metrics"],
        "base": base["metrics"] if base else None,
        "preference": preference,
        "baseline": baseline,
        "best": best,
        "worst": worst,
        "scales": {"bleu": "0-100", "other": "0-1"},
        "created": round(time.time(), 3),
        "seconds": round(time.time() - started, 2),
    }
    out = trained.eval_dir
    out.mkdir(parents=True, exist_ok=True)
    frame = predictions_frame(tuned["rows"], task, template.labels, base["rows"] if base else None)
    if baseline_preds is not None:
        frame["baseline_prediction"] = baseline_preds
    if records and all("row_id" in r for r in records):  # a test row can be corrected from its prediction
        frame.insert(0, "row_id", [r["row_id"] for r in records])
    atomic_write(out / "predictions.csv", lambda p: frame.to_csv(p, index=False, encoding="utf-8-sig"))
    atomic_write_json(out / "metrics.json", result)
    if write_report:
        from workbench.engine.evaluation.report import write_report as _write

        report("report", 0, 1)  # its figures take a second or two
        _write(out / "report.html", result, tuned["rows"], base["rows"] if base else None,
               run_dir=trained.run_dir, task_spec=template)
        report("report", 1, 1)
    return result


HEARTBEAT_S = 5.0


def wait_reporting(future, heartbeat: Callable[[], None], every: float = HEARTBEAT_S):
    """``future``'s result, calling ``heartbeat`` every ``every`` seconds while it is not there:
    a baseline fitted over many labels takes minutes, and no front end should see silence."""
    while True:
        try:
            return future.result(timeout=every)
        except TimeoutError:
            heartbeat()
