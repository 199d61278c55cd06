"""Evaluation of a trained run on a held-out split; results go to ``<run>/eval/``.

* ``metrics.json`` — the figures (see :mod:`workbench.engine.metrics` for scales), the
  best and worst samples, and with ``compare_base`` the same figures for the base model.
* ``predictions.csv`` — one row per sample (UTF-8 with BOM, so Excel opens Chinese text):
  input, reference, prediction, correct/score, and the base model's prediction beside it.
* ``report.html`` — a self-contained report with embedded plots (see :mod:`.report`).

Every evaluation also fits the classical baseline of :mod:`.baseline` on the train split
and scores it on the same rows (``baseline`` in metrics.json, with a ``comparison`` whose
sentence says whether the fine-tuned model beats it), so the user sees whether
fine-tuning paid.

Classification reads the label back by log-likelihood over the label set (as training's
evaluation does, :func:`workbench.engine.data.label_log_likelihoods`); the softmax of
those log-likelihoods is reported as the class probabilities. Instruction tuning
generates greedily and scores ROUGE-L (characters), BLEU (sacrebleu, Chinese tokenizer)
and exact match. Both tasks report the teacher-forced loss on the reference answers
(the training loss, over answer tokens only) and its perplexity.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import WorkbenchError
from ..core.fsutil import atomic_write, atomic_write_json
from ..core.project import Project
from ..core.task import TaskSpec
from ..core.trained import NO_BASE_COMPARISON, TrainedRun, base_comparison_refusal, resolve_trained_run
from . import baseline as BL
from . import builtin as B
from . import data as D
from . import decoder_head as H
from . import lm_training as LT
from . import metrics as MX
from . import checkpoints as CK
from . import models as M

Progress = Callable[[str, int, int], None]  # (stage, done, total)

N_BEST_WORST = 5
# an instruction run is evaluated on this many rows of the split unless asked for more: each
# answer is generated token by token, which takes seconds a row with a pretrained model on a CPU
# (the split was shuffled when the data was prepared, so the first rows are a random sample)
DEFAULT_GENERATION_ROWS = 100
DEFAULT_MAX_NEW_TOKENS = 256


# ----- loading the trained weights ---------------------------------------------------------


def system_prompt(template: TaskSpec) -> str:
    """The system text training used (the Chinese one, see engine/train.py)."""
    return template.system_text("zh")


def load_trained(trained: TrainedRun, *, device: str = "cpu", merge: bool = True):
    """``(model, tokenizer)`` of a run in eval mode: final/ or its last checkpoint.

    LoRA runs: the adapter is loaded onto the base model and, with ``merge``, folded into
    it (faster inference, and the form that is exported). A run trained on a quantised
    base is loaded on the full-precision base here.
    """
    M.select_device(device)
    job = trained.job
    base = M.resolve_model_source(trained.base_model, allow_pickle=job.allow_pickle)
    wdir = trained.weights_dir
    if not trained.from_checkpoint and trained.method == "full":
        model, tokenizer = M.load_model_and_tokenizer(wdir, for_training=False, device=device,
                                                      allow_pickle=job.allow_pickle)
    else:
        model = M.load_model(base, for_training=False, device=device, allow_pickle=job.allow_pickle)
        tok_dir = wdir if any((wdir / f).is_file() for f in M.TOKENIZER_FILES) else base
        tokenizer = M.load_tokenizer(tok_dir)
        if job.head and trained.task == "classification":  # the head the run trained, over its labels
            spec = trained.spec
            model = H.attach(model, list(spec.labels), family=M.model_family(model.config),
                             multi_label=bool(spec.multi_label), pooling=job.head_pooling)
        if trained.from_checkpoint:
            if trained.method == "lora":
                model = M.apply_lora(model, M.model_family(model.config), r=job.lora_r, alpha=job.lora_alpha,
                                     dropout=0.0, target_modules=job.lora_target_modules)
            CK.load_weights(model, wdir / "model_state")
        else:
            try:
                model = M.load_lora_adapter(model, wdir)
            except Exception as exc:
                raise WorkbenchError(f"The LoRA adapter in {wdir} cannot be loaded onto {base} "
                                     f"({type(exc).__name__}: {str(exc)[:200]}).") from exc
    if merge:
        model = M.merge_lora(model)
    if H.is_head(model):
        H.use_text_alone(tokenizer)
    model.eval()
    for p in model.parameters():
        p.stop_gradient = True
    # the weights must give what the model that saved them gave, or nothing is answered with them
    CK.check_probe(model, trained.probe, f"run '{trained.run_id}' ({trained.source})")
    return model, tokenizer


def load_base(trained: TrainedRun, *, device: str = "cpu"):
    """The model the run started from, untouched, in eval mode."""
    base = M.resolve_model_source(trained.base_model, allow_pickle=trained.job.allow_pickle)
    model, tokenizer = M.load_model_and_tokenizer(base, for_training=False, device=device,
                                                  allow_pickle=trained.job.allow_pickle)
    model.eval()
    return model, tokenizer


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
    if B.is_classifier(model):
        # batches small enough for some twenty progress reports: one batch of 256 was the whole
        # test split of most projects, so the bar went from 0 to 100 % at once
        rows = min(256, max(32, len(prompts) // 20))
        return D.head_probabilities(model, tokenizer, prompts, max_length=max_length, batch_size=rows,
                                    progress=progress)
    probs: list[list[float]] = []
    step = max(1, 256 // max(1, len(labels)))  # progress every few hundred scored sequences
    for start in range(0, len(prompts), step):
        scores = D.label_log_likelihoods(model, tokenizer, prompts[start:start + step], labels,
                                         batch_size=batch_size, max_length=max_length)
        probs.extend(softmax_rows(scores))
        if progress:
            progress(len(probs), len(prompts))
    return probs


def answer_loss(model, tokenizer, records: Sequence[dict], *, task: str, system: str, user_format: str,
                max_length: int, batch_size: int = 8) -> float | None:
    """Mean cross-entropy per answer token (teacher forcing), as in training's eval_loss: the
    output layer at answer tokens only, as training computes it (engine/lm_training.py; the
    logits of every position of Gemma 3 were 3.7 GB a batch of 8 x 448, three times over)."""
    import numpy as np
    import paddle

    feats = D.build_features(tokenizer, records, task=task, system=system, user_format=user_format,
                             max_length=max_length)
    if not feats:
        return None
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    collator = D.DataCollator(pad)
    fused = LT.supports_answer_only_loss(model)
    total, count = 0.0, 0
    with paddle.no_grad():
        for start in range(0, len(feats), batch_size):
            batch = collator(feats[start:start + batch_size])
            labels = batch["labels"].numpy()
            mask = labels != D.IGNORE_INDEX
            n = int(mask.sum())
            if not n:
                continue
            if fused:  # the mean over the batch's answer tokens, times their number
                with LT.answer_only_loss(model):
                    out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                labels=batch["labels"], use_cache=False, return_dict=True)
                total += float(out.loss) * n
                count += n
                continue
            logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                           use_cache=False, return_dict=True).logits
            logp = D.log_probabilities(logits.astype("float32")).numpy()
            safe = np.where(mask, labels, 0)
            picked = np.take_along_axis(logp, safe[..., None], axis=-1)[..., 0]
            total += float(-(picked * mask).sum())
            count += n
    return total / count if count else None


def _head_loss(probs: Sequence[Sequence[float]], truth: Sequence[str], labels: Sequence[str]) -> float | None:
    index = {lab: i for i, lab in enumerate(labels)}
    picked = [p[index[t]] for p, t in zip(probs, truth) if t in index]
    return sum(-math.log(max(v, 1e-12)) for v in picked) / len(picked) if picked else None


def default_max_new_tokens(tokenizer, references: Sequence[str], cap: int = DEFAULT_MAX_NEW_TOKENS) -> int:
    """Enough new tokens for the longer references (p95 length x 1.25 + 8), within [16, cap]."""
    lengths = sorted(len(tokenizer.encode(r or "", add_special_tokens=False)) for r in references) or [0]
    p95 = lengths[min(len(lengths) - 1, int(0.95 * len(lengths)))]
    return int(min(cap, max(16, p95 * 1.25 + 8)))


# Rows generated together: a step reads every weight once for the whole batch, which is
# what a CPU step waits for; the cap on rows x tokens bounds the cache and the prompt pass.
GENERATION_BATCH = 16
GENERATION_BATCH_TOKENS = 16384


def generation_batches(lengths: Sequence[int], max_new_tokens: int, *, batch_size: int = GENERATION_BATCH,
                       max_tokens: int = GENERATION_BATCH_TOKENS) -> list[list[int]]:
    """Row indices in batches of similar prompt length (shortest first), each within
    ``batch_size`` rows and ``max_tokens`` rows x (longest prompt + new tokens)."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        longest = lengths[i] + max_new_tokens  # sorted: the newest row is the longest
        if current and (len(current) >= batch_size or (len(current) + 1) * longest > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def generate_answers(model, tokenizer, prompts: Sequence[str], *, max_new_tokens: int,
                     max_length: int, progress: Callable[[int, int], None] | None = None,
                     batch_size: int = GENERATION_BATCH) -> list[str]:
    """Greedy answers for prompt texts, in their order: generated in batches of similar
    length with the key/value cache, the same answers as one at a time; ``progress`` is
    called as each answer finishes."""
    from .generate import GenerationSettings, answer_text, eos_ids, generate_batch

    settings = GenerationSettings(mode="greedy", max_new_tokens=max_new_tokens)
    stops = eos_ids(tokenizer, model)
    encoded, budgets = prompt_budgets(tokenizer, prompts, max_new_tokens=max_new_tokens, max_length=max_length)
    answers: list[str] = [""] * len(prompts)
    done = 0
    answer = answer_text(tokenizer)

    def written_stop(ids: list[int]) -> bool:  # the last tokens wrote a turn marker (fallback format)
        return bool(answer.stop_texts) and answer.cut(ids[-8:])[1]

    for batch in generation_batches([len(e) for e in encoded], max_new_tokens, batch_size=batch_size):
        def finished(j: int, ids: list[int], batch=batch) -> None:
            nonlocal done
            answers[batch[j]] = answer.cut(ids)[0].strip()
            done += 1
            if progress:
                progress(done, len(prompts))

        generate_batch(model, [encoded[i] for i in batch], settings, stops, on_done=finished, stop_when=written_stop,
                       budgets=[budgets[i] for i in batch])
    return answers


def prompt_budgets(tokenizer, prompts: Sequence[str], *, max_new_tokens: int,
                   max_length: int) -> tuple[list[list[int]], list[int]]:
    """Each prompt's token ids and its answer's budget in new tokens, by the bundle's own rule
    (``bundle_runtime.answer_budget``): the prompt is kept whole while the training length
    leaves the answer a small floor, and the answer shrinks first."""
    from .bundle.bundle_runtime import answer_budget

    encoded, budgets = [], []
    for p in prompts:
        ids = D.encode_prompt(tokenizer, p)
        keep, n_new = answer_budget(len(ids), max_length, max_new_tokens)
        encoded.append(D._shrink_prompt(ids, keep))
        budgets.append(n_new)
    return encoded, budgets


def budget_note(tokenizer, prompts: Sequence[str], *, max_new_tokens: int, max_length: int) -> dict[str, Any] | None:
    """What the training length did to the answers' budget, for the user (None: nothing)."""
    from .bundle.bundle_runtime import answer_budget

    lengths = [len(D.encode_prompt(tokenizer, p)) for p in prompts]
    planned = [answer_budget(n, max_length, max_new_tokens) for n in lengths]
    budgets = [b for _, b in planned]
    short = sum(b < max_new_tokens for b in budgets)
    cut = sum(keep < n for n, (keep, _) in zip(lengths, planned))
    if not short and not cut:
        return None
    text = (f"The model was trained on {max_length} tokens, question and answer together, and answers of up to "
            f"{max_new_tokens} new tokens were asked for: {short} of {len(budgets)} answers were given fewer "
            f"(as few as {min(budgets)}), so that each question is read whole.")
    if cut:
        text += (f" {cut} question(s) left no room for even {min(budgets)} new tokens and were cut from the middle, "
                 "as in training.")
    text += " For longer answers, train again with a larger maximum length."
    return {"max_length": max_length, "asked": max_new_tokens, "shortened": short, "rows": len(budgets),
            "smallest": min(budgets), "prompts_cut": cut, "note": text}


def task_prompts(model, tokenizer, spec: TaskSpec, records: Sequence[dict]) -> list[str]:
    """The prompts ``model`` reads for ``records``: the project's prompt for a language model,
    the input fields alone for the built-in classifier. Evaluation and prediction share it."""
    system, user_format = D.prompt_spec(model, system_prompt(spec), spec.user_format, spec.input_roles)
    return D.build_prompts(tokenizer, records, system=system, user_format=user_format)


def label_set_probabilities(model, tokenizer, records: Sequence[dict], template: TaskSpec, *, max_length: int,
                            progress: Callable[[int, int], None] | None = None) -> list[list[float]]:
    """Each label's own probability (a multi-label head's sigmoids) for ``records``."""
    if not B.is_classifier(model) or not B.is_multi_label(model):
        raise WorkbenchError("This model was not trained for several labels per row. Train the multi-label "
                             "project again with the built-in classifier.")
    prompts = task_prompts(model, tokenizer, template, records)
    return D.head_probabilities(model, tokenizer, prompts, max_length=max_length, progress=progress) if records else []


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
    probs = label_set_probabilities(model, tokenizer, records, template, max_length=max_length,
                                    progress=lambda d, t: report(stage, d, t))
    truth = [list(r.get("labels") or []) for r in records]
    preds = MX.label_sets_from_probabilities(probs, labels, threshold, template.no_label_rows)
    metrics = MX.multi_label_report(truth, preds, labels)
    metrics["threshold"] = threshold
    metrics["confused_pairs"] = MX.confused_label_pairs(truth, preds)
    rows = []
    for r, ref, pred, p in zip(records, truth, preds, probs):
        rows.append({"input": D.format_user(template.user_format, r), "reference": ref, "prediction": pred,
                     "correct": set(pred) == set(ref),
                     # the certainty of the least certain yes/no decision
                     "confidence": min(max(v, 1 - v) for v in p), "probabilities": dict(zip(labels, p))})
    metrics["eval_loss"] = _set_loss(probs, truth, labels)  # over labels: no perplexity
    report(stage, len(records), len(records))
    return {"metrics": metrics, "rows": rows}


def tuned_threshold(model, tokenizer, project: Project, template: TaskSpec, *, max_length: int) -> dict[str, Any]:
    """The decision threshold of a multi-label head tuned on the validation split (macro-F1)."""
    val = D.read_jsonl(project.split_path("val")) if project.split_path("val").is_file() else []
    if not val:
        return {"threshold": 0.5, "tuned_on": None, "val_macro_f1": None}
    probs = label_set_probabilities(model, tokenizer, val, template, max_length=max_length)
    th, f1 = MX.tune_threshold([list(r.get("labels") or []) for r in val], probs, template.labels,
                               allow_empty=template.no_label_rows)
    return {"threshold": th, "tuned_on": "val", "val_rows": len(val), "val_macro_f1": f1}


def predict_split(model, tokenizer, records: Sequence[dict], template: TaskSpec, *, max_length: int,
                  max_new_tokens: int | None = None, progress: Progress | None = None,
                  stage: str = "predict") -> dict[str, Any]:
    """Predictions and figures of one model on ``records``.

    Returns ``{"metrics": {...}, "rows": [...per-sample dicts...]}``.
    """
    task = template.task.value
    prompts = task_prompts(model, tokenizer, template, records)
    inputs = [D.format_user(template.user_format, r) for r in records]
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
        res = MX.classification_report(truth, preds, labels)
        for inp, ref, pred, p in zip(inputs, truth, preds, probs):
            rows.append({"input": inp, "reference": ref, "prediction": pred, "correct": pred == ref,
                         "confidence": max(p), "probabilities": dict(zip(labels, p))})
        metrics: dict[str, Any] = {k: res[k] for k in ("accuracy", "macro_f1", "macro_f1_labels", "macro_f1_of",
                                                        "per_class", "confusion", "labels")}
    else:
        refs = [str(r.get("output", "")) for r in records]
        n_new = max_new_tokens or default_max_new_tokens(tokenizer, refs)
        answers = generate_answers(model, tokenizer, prompts, max_new_tokens=n_new, max_length=max_length,
                                   progress=lambda d, t: report(stage, d, t))
        res = MX.generation_metrics(answers, refs)
        for inp, ref, pred, score, ex in zip(inputs, refs, answers, res["per_sample_rouge_l"],
                                             res["per_sample_exact"]):
            rows.append({"input": inp, "reference": ref, "prediction": pred, "score": score, "exact": ex})
        metrics = {k: res[k] for k in ("rouge_l", "bleu", "exact_match")}
        metrics["max_new_tokens"] = n_new
        metrics["answer_budget"] = budget_note(tokenizer, prompts, max_new_tokens=n_new, max_length=max_length)
    if B.is_classifier(model):  # cross-entropy of the true labels, as training's eval_loss
        loss = _head_loss(probs, truth, labels)
    else:
        system, user_format = D.prompt_spec(model, system_prompt(template), template.user_format,
                                            template.input_roles)
        loss = answer_loss(model, tokenizer, records, task=task, system=system, user_format=user_format,
                           max_length=max_length)
    metrics["eval_loss"] = loss
    if not B.is_classifier(model):  # a classification head's loss is over labels, not tokens
        metrics["perplexity"] = MX.perplexity(loss)
    report(stage, len(records), len(records))
    return {"metrics": metrics, "rows": rows}


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
            rec["reference"], rec["prediction"] = MX.LABEL_SET_JOINER.join(r["reference"]), MX.LABEL_SET_JOINER.join(r["prediction"])
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


def evaluate_run(project_dir, run_id: str, *, checkpoint: str = "best", compare_base: bool = False,
                 split: str = "test",
                 device: str = "cpu", max_new_tokens: int | None = None, limit: int | None = None,
                 progress: Progress | None = None, write_report: bool = True) -> dict[str, Any]:
    """Evaluate a run on ``split`` and write ``<run>/eval/``; returns the metrics.json content."""
    project = Project.open(project_dir)
    trained = resolve_trained_run(project, run_id, checkpoint)
    template = trained.spec  # the run's own labels and prompt, not the template's
    refusal = base_comparison_refusal(trained.job.base_model, template.multi_label) if compare_base else None
    if refusal:
        raise WorkbenchError(NO_BASE_COMPARISON[refusal])
    path = project.split_path(split)
    if not path.is_file():
        raise WorkbenchError(f"Project {project.root} has no '{split}' split. Prepare the data again.")
    records = D.read_jsonl(path)
    split_rows = len(records)
    if limit is None and template.task.value == "instruction":
        limit = DEFAULT_GENERATION_ROWS
    if limit:  # 0: every row
        records = records[:limit]
    if not records:
        raise WorkbenchError(f"The '{split}' split of {project.root} is empty, so there is nothing to evaluate on. "
                             "Prepare the data again with a test share above zero.")
    M.set_library_log_level("ERROR")
    started = time.time()
    task = template.task.value
    train_path = project.split_path("train")
    train_records = D.read_jsonl(train_path) if train_path.is_file() else []
    # The baseline needs no model, so it is fitted while the model loads and scores:
    # scikit-learn's sparse products and Paddle's kernels both release the GIL.
    baseline_job = BL.fit_in_background(task, train_records, records, template.input_roles, list(template.labels),
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
        interval = BL.difference_interval(task, template.multi_label, [r["reference"] for r in tuned["rows"]],
                                          [r["prediction"] for r in tuned["rows"]], baseline_preds,
                                          list(template.labels))
        baseline["comparison"] = BL.comparison(task, tuned["metrics"], baseline, interval)
    report("baseline", len(records), len(records))
    best, worst = best_and_worst(tuned["rows"], task)
    result: dict[str, Any] = {
        "version": 1,
        "run": trained.run_id,
        "source": trained.source,
        "weights": trained.weights,
        "note": trained.note,
        "task": task,
        "template": template.template,
        "base_model": trained.job.base_model,
        "method": trained.method,
        "split": split,
        "rows": len(records),
        "split_rows": split_rows,
        "metrics": tuned["metrics"],
        "base": base["metrics"] if base else None,
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
    atomic_write(out / "predictions.csv", lambda p: frame.to_csv(p, index=False, encoding="utf-8-sig"))
    atomic_write_json(out / "metrics.json", result)
    if write_report:
        from .report import write_report as _write

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


def read_eval(run_dir) -> dict[str, Any] | None:
    """The stored metrics.json of a run, or None."""
    try:
        return json.loads((Path(run_dir) / "eval" / "metrics.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
