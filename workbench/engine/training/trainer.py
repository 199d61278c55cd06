"""Instruction and classification runs with PaddleFormers' Trainer: the model (built-in,
pretrained with LoRA or in full, or a classification head), its data, its evaluation, and what
the run keeps at the end.

The Trainer is used as it is (schedules, accumulation, checkpoints with optimizer and
scheduler state, resume, mixed precision); the callback in run_loop.py only reports and steers.
The training benchmark (bench/train_bench.py) measures what the callback costs against a bare loop.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from pathlib import Path
from typing import Any

from workbench.core.jobs import TASK_FILE, JobSpec, run_task, write_run_task
from workbench.core.project import Project
from workbench.core.recommend import (FIRST_STAGE_SHARE, comparison_seconds, feature_fit_seconds,
                                      second_stage_fits, vocabulary_cut)
from workbench.core.runs import EventWriter, process_rank
from workbench.core.task import TaskSpec
from workbench.core.timing import RunClock, write_timing
from workbench.engine import examples, families, scoring
from workbench.engine.models import (
    adapters,
    builtin_lm,
    char_classifier,
    checkpoints,
    decoder_head,
    devices,
    loading,
    ngram_baseline,
    sources,
)
from workbench.engine.training import feature_head, lm_training, vocab_cut
from workbench.engine.training.run_loop import (
    TrainingAborted, keep_best_weights, make_callback, train_until_done,
)

EVAL_CLASSIFY_LIMIT = 200  # validation rows scored by label likelihood at each evaluation


def _lang_system(task: TaskSpec) -> str:
    return task.system_text("zh")


def best_metric_name(task: str) -> tuple[str, bool]:
    """The validation metric early stopping and the best checkpoint follow, and whether
    greater is better: macro-F1 for classification, the loss for instruction tuning."""
    return ("macro_f1", True) if task == "classification" else ("eval_loss", False)


def prepare_base_model(job: JobSpec, run_dir: Path, project: Project, template: TaskSpec) -> Path:
    """The base model folder: a built-in model is built once per run, from the train split."""
    if job.base_model.startswith("builtin:"):
        size = job.base_model.split(":", 1)[1]
        folder = run_dir / "base_model"
        if (folder / "config.json").is_file():
            return folder
        if process_rank() != 0:  # under the distributed launcher rank 0 builds, the others wait for it
            deadline = time.time() + 600
            while not (folder / "config.json").is_file():
                if time.time() > deadline:
                    raise TrainingAborted("Rank 0 did not build the built-in model within 10 minutes.")
                time.sleep(0.5)
            return folder
        records = examples.read_jsonl(project.split_path("train"))
        tmp = run_dir / ".base_model.tmp"
        if template.task.value == "classification":
            # the character n-gram classifier of engine/models/char_classifier.py, over the input fields alone
            user_format = char_classifier.input_format(template.input_roles)
            texts = [examples.format_user(user_format, r) for r in records]
            labels = list(template.labels)
            if template.multi_label:
                weights = char_classifier.multi_label_weights([r.get("labels") or [] for r in records], labels)
            else:
                weights = char_classifier.class_weights([str(r.get("label", "")) for r in records], labels)
            builtin_lm.build_builtin_model(size, texts, tmp, seed=job.seed, labels=labels, class_weights=weights,
                                  multi_label=template.multi_label)
        else:
            texts = []
            for r in records:
                user, response = examples.record_prompt_response(r, template.task.value, template.user_format)
                texts.append(f"{_lang_system(template)}\n{user}\n{response}")
            builtin_lm.build_builtin_model(size, texts, tmp, seed=job.seed)
        os.replace(tmp, folder)
        return folder
    return Path(sources.resolve_model_source(job.base_model, allow_pickle=job.allow_pickle))


def attach_head(decoder, tokenizer, job: JobSpec, template: TaskSpec, family: str, project: Project):
    """The classification head of ``job`` on a loaded pretrained ``decoder``, weighted for skewed
    labels as the built-in classifier is; ``tokenizer`` then renders the text alone."""
    records = examples.read_jsonl(project.split_path("train"))
    labels = list(template.labels)
    if template.multi_label:
        weights = char_classifier.multi_label_weights([r.get("labels") or [] for r in records], labels)
    else:
        weights = char_classifier.class_weights([str(r.get("label", "")) for r in records], labels)
    decoder_head.use_text_alone(tokenizer)
    return decoder_head.attach(decoder, labels, family=family, multi_label=bool(template.multi_label), class_weights=weights,
                    pooling=job.head_pooling, depth=job.head_depth, linear_part=job.head_linear, seed=job.seed)


def _precision_flags(job: JobSpec, device: str) -> dict[str, Any]:
    if device.startswith("cpu") or job.precision == "fp32":
        return {}
    if job.precision == "fp16":
        return {"fp16": True, "fp16_opt_level": "O2"}
    if job.precision == "bf16":
        return {"bf16": True, "fp16_opt_level": "O2"}
    import paddle  # auto: bf16 where the GPU has it, else fp16

    try:
        bf16 = paddle.amp.is_bfloat16_supported()
    except Exception:
        bf16 = False
    return {"bf16": True, "fp16_opt_level": "O2"} if bf16 else {"fp16": True, "fp16_opt_level": "O2"}


EVAL_CHUNK_ROWS = 8  # rows scored between checks of the clock
EVAL_REPORT_S = 10.0  # at most one progress line this often


def _classify_until(model, tokenizer, prompts, labels, max_length: int, deadline: float | None,
                    events: EventWriter) -> list[str]:
    """A decoder's labels for ``prompts`` by label likelihood (a forward pass per label), in
    chunks, with a progress line every few seconds, ending early with the rows scored so far
    when the next chunk would pass ``deadline`` (the time budget's end): on a CPU this scoring
    of a pretrained model once ran more than twice a 15-minute budget, silently."""
    preds: list[str] = []
    t0 = last_report = time.time()
    for i in range(0, len(prompts), EVAL_CHUNK_ROWS):
        preds += examples.classify(model, tokenizer, prompts[i:i + EVAL_CHUNK_ROWS], labels, max_length=max_length)
        now = time.time()
        per_row = (now - t0) / len(preds)
        if now - last_report >= EVAL_REPORT_S and len(preds) < len(prompts):
            last_report = now
            events.emit("log", level="info", code="eval_progress", done=len(preds), total=len(prompts),
                        message=f"validation: {len(preds):,} of {len(prompts):,} rows scored")
        left = len(prompts) - len(preds)
        if left and deadline is not None and now + per_row * min(left, EVAL_CHUNK_ROWS) > deadline:
            events.emit("log", level="warning", code="eval_sampled", done=len(preds), total=len(prompts),
                        message=(f"the time budget ends: the validation score is of the first {len(preds):,} of "
                                 f"{len(prompts):,} rows"))
            break
    return preds


def _baseline_exception(baseline, clock: RunClock, events: EventWriter) -> BaseException | None:
    """The background baseline's failure, if any, waited for within the time budget only: past
    it, the evaluation fits the baseline itself rather than the run waiting on."""
    if baseline is None:
        return None
    left = None if clock.budget_s is None else max(0.0, clock.budget_s - clock.elapsed())
    try:
        return baseline.exception(timeout=left)
    except TimeoutError:
        events.emit("log", level="info", code="baseline_pending", message=(
            "the baseline is still being fitted at the end of the time budget; the evaluation fits it instead"))
        return None


def run_training(job: JobSpec, run_dir: Path, events: EventWriter) -> tuple[str, str | None]:
    """Train the job in ``run_dir``; returns ``(status, error)`` for the end event. The run's
    estimates beside its actual time go to its timing record (core/timing.py), whatever the end."""
    clock = RunClock(job.estimate_s, job.time_budget_s, busy=job.cpu_busy, cores=job.cpu_cores)
    try:
        return _train(job, run_dir, events, clock)
    finally:
        write_timing(run_dir, clock.record())


def _train(job: JobSpec, run_dir: Path, events: EventWriter, clock: RunClock) -> tuple[str, str | None]:
    from paddleformers.trainer import Trainer, TrainingArguments

    loading.set_library_log_level("WARNING")
    project = Project.open(job.project).at_version(job.data_version)  # the rows it started on
    template = run_task(run_dir, project)  # the labels and prompt the run started with
    if not (run_dir / TASK_FILE).is_file():  # a run folder written by hand keeps its task all the same
        write_run_task(run_dir, template)
    device = devices.select_device(job.device)
    threads = devices.chosen_threads() if device.startswith("cpu") else None  # set by select_device
    if threads is None and job.cpu_busy is not None:  # a GPU found: the processor's load does not bound it
        clock.processor_load(None)
    if job.quantization != "none":
        ok, why = devices.quantization_support(device)
        if not ok:
            raise TrainingAborted(f"Quantised LoRA is not available here: {why}")

    events.emit("log", level="info", code="preparing_base", message="preparing the base model")
    base = prepare_base_model(job, run_dir, project, template)
    builtin = builtin_lm.builtin_size(base)
    quant = None if job.quantization == "none" else f"weight_only_{job.quantization}"
    model, tokenizer = loading.load_model_and_tokenizer(
        base, device=device, allow_pickle=job.allow_pickle, quantization=quant)
    family = families.model_family(model.config)
    multi_label = bool(template.multi_label)
    if job.head and template.task.value == "classification" and not char_classifier.is_classifier(model):
        model = attach_head(model, tokenizer, job, template, family, project)
    classifier = char_classifier.is_classifier(model)  # a classification head: the built-in classifier's or the one above
    builtin_classifier = classifier and not decoder_head.is_head(model)
    if multi_label and not (classifier and char_classifier.is_multi_label(model)):
        # a pretrained decoder would generate the label set in the labels' order; not offered yet
        raise TrainingAborted("A multi-label project trains the built-in classifier (base model builtin:small "
                              "or builtin:tiny); a pretrained language model cannot learn several labels per "
                              "row here yet.")
    if job.method == "lora":
        if builtin_classifier:
            raise TrainingAborted("The built-in classifier is trained in full; choose the method 'full'.")
        import paddle

        # the adapters' random start comes from the job's seed: two runs of one job are one run
        # (the Trainer seeds only later, after they exist)
        paddle.seed(job.seed)
        model = adapters.apply_lora(model, family, r=job.lora_r, alpha=job.lora_alpha, dropout=job.lora_dropout,
                             target_modules=job.lora_target_modules)
    trainable, total = loading.count_parameters(model)
    if job.recompute and not builtin_classifier:
        layers = lm_training.recompute_layers(model)
        events.emit("log", level="info", code="recompute", layers=layers, message=(
            f"recomputing the activations of {layers} layers in the backward pass: less memory, slower steps"))

    task = template.task.value
    system, user_format = examples.prompt_spec(model, _lang_system(template), template.user_format, template.input_roles)
    feats = {}
    records = {}
    for split in ("train", "val"):
        records[split] = examples.read_jsonl(project.split_path(split))
        if classifier:
            feats[split] = examples.build_classifier_features(tokenizer, records[split], template.labels,
                                                       user_format=user_format, max_length=job.max_length)
        else:
            feats[split] = examples.build_features(tokenizer, records[split], task=task, system=system,
                                            user_format=user_format, max_length=job.max_length)
    if not feats["train"]:
        raise TrainingAborted("The training split is empty. Prepare the data again with more rows.")
    all_val = feats["val"]  # the head's first stage chooses its regularisation on every validation row
    sampled_eval = bool(not builtin_classifier and job.eval_rows and len(feats["val"]) > job.eval_rows)
    if sampled_eval:
        # a pretrained decoder's validation loss over a sample: every row would cost more than the
        # training on a CPU (core/recommend.py sizes it to the time budget). A head's sample takes
        # each label in turn (what macro-F1 weighs), a language model's the first rows
        keep = list(range(job.eval_rows))
        if classifier and not template.multi_label and len(records["val"]) == len(feats["val"]):
            keep = examples.spread_over_labels([f["labels"] for f in feats["val"]], job.eval_rows)
        feats["val"] = [feats["val"][i] for i in keep]
        records["val"] = [records["val"][i] for i in keep]
    val_ids, val_targets = [f["input_ids"] for f in feats["val"]], [f["labels"] for f in feats["val"]]
    # a few rows (full-vocabulary ids) that every checkpoint's model is measured on when it is saved
    probe_rows = checkpoints.probe_rows(feats["val"] or feats["train"])
    cut = None
    if vocabulary_cut(model.config.to_dict(), job.method, task, job.vocabulary) and vocab_cut.can_cut(model, job.method):
        # the output layer over the project's own tokens while LoRA trains; restored below
        # evaluations swap the full vocabulary back in: their loss is the uncut runs' and the base's
        cut = vocab_cut.cut_vocabulary(model, (feats["train"],), vocab_cut.special_ids(tokenizer))
        cut.apply_to(feats["train"])
        events.emit("log", level="info", code="vocabulary_cut", kept=cut.size, full=cut.full_vocab, message=(
            f"training over the {cut.size:,} tokens of this project's rows (of {cut.full_vocab:,}); "
            "the trained model keeps the full vocabulary"))
    # (evaluation batches get the same pad id: padding is masked and carries no label)
    pad_id = cut.new_id(tokenizer.pad_token_id) if cut is not None else tokenizer.pad_token_id
    if classifier and char_classifier.has_linear_part(model) and not job.resume_from:
        # a resumed run reads its fitted linear part from the checkpoint
        fit = char_classifier.fit_linear_part(model, [f["input_ids"] for f in feats["train"]],
                                [f["labels"] for f in feats["train"]], seed=job.seed)
        events.emit("log", level="info", code="linear_fit", rows=fit["rows"], ngrams=fit["features_seen"],
                    seconds=fit["seconds"], message=(
            f"fitted the linear part on {fit['rows']} rows ({fit['features_seen']} n-grams) in {fit['seconds']} s"))

    head = model.model if adapters.is_lora(model) else model
    linear_file = run_dir / decoder_head.LINEAR_FILE
    frozen = None
    if job.head_features and not job.resume_from and decoder_head.is_head(head):
        # LoRA's adapters start at zero: the wrapped head computes what the plain one does
        def read_on(row_s: float, read: int) -> float | None:
            # where LoRA's steps will not fit after the fit anyway (second_stage_fits, as below), the
            # first stage reads on to the budget's end less the fit and as long again for the run's
            # one step: a 10-minute run over 10,800 ATEC rows had ended 2 minutes early with rows unread
            left = clock.left()
            if left is None or job.method != "lora":
                return None
            fit = feature_fit_seconds(min(len(feats["train"]), read + int(left / max(row_s, 1e-9))) + len(all_val),
                                      len(template.labels))
            if second_stage_fits(left - fit, comparison_seconds(row_s, len(all_val))):
                return None
            end = clock.deadline() - 2 * fit
            return end if end > time.time() else None

        report = feature_head.fit_feature_head(head, feats["train"], all_val, list(template.labels), pad_id=pad_id,
                                               multi_label=multi_label, events=events, seed=job.seed,
                                               cache_dir=project.cache_dir / "features",
                                               deadline=clock.share_deadline(FIRST_STAGE_SHARE), read_on=read_on)
        if job.method == "lora":  # kept only where LoRA's steps answer better (below)
            frozen = feature_head.FrozenStart(head, report, all_val, list(template.labels), multi_label)
            left = clock.left()
            if left is not None and not second_stage_fits(left, frozen.compare_seconds()):
                frozen.skip(left, events)  # one step, for a checkpoint; the frozen start is the model
                clock.end_at_next_step()
            else:
                # LoRA's steps leave time for the comparison that follows them: a read of every
                # validation row (a 10-minute run over 11,312 TNEWS rows had ended 52 s past its budget)
                clock.reserve_ending(frozen.compare_seconds())
        if char_classifier.has_linear_part(head) and job.method == "lora":  # the adapters hold only what trains
            decoder_head.save_linear_part(head, linear_file)
    elif job.resume_from and decoder_head.is_head(head) and char_classifier.has_linear_part(head) \
            and job.method == "lora":
        # fitted once, by the run that wrote the checkpoint (checkpoints/checkpoint-N of its folder)
        written = Path(job.resume_from if Path(job.resume_from).is_absolute() else run_dir / job.resume_from)
        decoder_head.load_linear_part(head, written.parents[1] / decoder_head.LINEAR_FILE)
        if not linear_file.is_file():
            decoder_head.save_linear_part(head, linear_file)

    baseline = None
    test_path = project.split_path("test")
    if task == "classification" and process_rank() == 0 and test_path.is_file():
        # the evaluation's baseline for the test split, fitted on the core training leaves idle
        # (after the linear part's own fit, which would compete for it)
        baseline = ngram_baseline.fit_in_background(task, records["train"], examples.read_jsonl(test_path), template.input_roles,
                                        list(template.labels), multi_label, project.cache_dir)

    classify_eval = None
    linear_probs: list = []  # the fitted linear part's validation answers, the same at every evaluation
    if task == "classification" and records["val"]:
        # a classification head reads every validation row in one batched pass; label scoring is slower
        val = records["val"] if classifier else records["val"][:EVAL_CLASSIFY_LIMIT]
        prompts = examples.build_prompts(tokenizer, val, system=system, user_format=user_format)
        truth = [str(r.get("label", "")) for r in val]
        sets = [list(r.get("labels") or []) for r in val]

        def classify_eval(m):
            m = m if m is not None else model
            if char_classifier.has_linear_part(m):
                scores = char_classifier.part_scores(m, val_ids, val_targets, list(template.labels),
                                       linear=linear_probs[0] if linear_probs else None,
                                       allow_empty=template.no_label_rows)
                linear_probs[:] = [scores.pop("linear_probabilities")]
                keep = ("micro_f1", "macro_f1", "subset_accuracy") if multi_label else ("accuracy", "macro_f1")
                return {**{k: scores[k] for k in keep}, "network_macro_f1": scores["network_alone"]}
            if multi_label:  # at 0.5 while training; evaluation tunes the threshold on this split
                probs = examples.head_probabilities(m, tokenizer, prompts, max_length=job.max_length)
                res = scoring.multi_label_report(sets, scoring.label_sets_from_probabilities(
                    probs, template.labels, 0.5, template.no_label_rows), template.labels)
                out = {"micro_f1": res["micro_f1"], "macro_f1": res["macro_f1"],
                       "subset_accuracy": res["subset_accuracy"]}
            else:
                preds = _classify_until(m, tokenizer, prompts, template.labels, job.max_length,
                                        clock.deadline(), events)
                res = examples.classification_metrics(truth[:len(preds)], preds, template.labels)
                out = {"accuracy": res["accuracy"], "macro_f1": res["macro_f1"]}
            return out

    # a frozen start that leaves LoRA no room is scored already: its one step needs no evaluation
    skipped = frozen is not None and frozen.skipped
    has_eval = bool(feats["val"]) and not skipped
    best_metric = best_metric_name(task) if has_eval else None
    if best_metric and best_metric[0] == "macro_f1" and classify_eval is None:
        best_metric = ("eval_loss", False)
    elif best_metric and classifier and char_classifier.has_linear_part(model):
        # the network is what trains: its own score picks its best weights and stops it. The
        # mixture's score, dominated by the fitted linear part from the first step, stayed flat
        # and stopped training after one or two epochs with the network half learnt
        best_metric = ("network_macro_f1", True)
    # NaN is caught at log steps; logging on every save step (and every evaluation, which also
    # saves) keeps a poisoned state out of checkpoints
    # a share of an epoch under one step (a budget's): the Trainer counts 0 steps and takes one
    steps_per_epoch = len(feats["train"]) / max(job.batch_size * job.gradient_accumulation_steps, 1)
    logging_steps = math.gcd(math.gcd(job.logging_steps, job.save_steps), job.eval_steps if has_eval else job.save_steps)
    args = TrainingArguments(
        output_dir=str(run_dir / "checkpoints"),
        device=device.split(":")[0] if device.startswith(("cpu", "gpu")) else device,
        per_device_train_batch_size=job.batch_size,
        per_device_eval_batch_size=job.batch_size,
        gradient_accumulation_steps=job.gradient_accumulation_steps,
        learning_rate=job.learning_rate,
        lr_scheduler_type=job.lr_scheduler,
        warmup_ratio=job.warmup_ratio,
        weight_decay=job.weight_decay,
        num_train_epochs=job.epochs,
        max_steps=job.max_steps if job.max_steps > 0 or job.epochs * steps_per_epoch >= 1 else 1,
        logging_steps=logging_steps,
        evaluation_strategy="steps" if has_eval else "no",
        eval_steps=job.eval_steps,
        save_strategy="steps",
        save_steps=job.save_steps,
        save_total_limit=job.save_total_limit,
        # the Trainer tracks the best checkpoint (and never rotates it away) by this metric,
        # which the callback puts into its evaluation results
        metric_for_best_model=(f"eval_{best_metric[0]}" if best_metric[0] != "eval_loss" else "eval_loss")
        if best_metric else None,
        greater_is_better=best_metric[1] if best_metric else None,
        seed=job.seed,
        report_to=[],
        disable_tqdm=True,
        logging_dir=str(run_dir / "trainer_logs"),
        # several processes (paddle.distributed.launch) train data-parallel: plain replicas,
        # not PaddleFormers' default ZeRO-style sharding, which needs master-grad AMP
        sharding="",
        split_param=False,
        **_precision_flags(job, device),
    )
    model_info = {
        "device": device, "family": family, "base_model": job.base_model, "builtin": builtin,
        "threads": threads, "fast_blas": devices.fast_blas() if threads else None,
        "method": job.method, "trainable_params": trainable, "total_params": total, "classifier": classifier,
        "train_rows": len(feats["train"]), "val_rows": len(feats["val"]), "sampled_eval": sampled_eval,
    }

    def probe(m, folder):
        with cut.full_vocabulary() if cut is not None else contextlib.nullcontext():
            return checkpoints.measure(m if m is not None else model, probe_rows, folder)

    callback = make_callback(job, run_dir, events, model_info=model_info, classify_eval=classify_eval,
                             best_metric=best_metric, clock=clock, probe=probe, threads=threads)
    # a decoder computes its output layer at answer positions only, over batches of similar lengths
    # (engine/training/lm_training.py); a classification head has no output layer, and the built-in
    # classifier's rows cost the same whatever their length
    trainer = lm_training.make_trainer(
        Trainer, group_by_length=not builtin_classifier, answer_only=not classifier, seed=job.seed,
        eval_context=cut.full_vocabulary if cut is not None else contextlib.nullcontext,
        model=model, args=args, train_dataset=feats["train"], eval_dataset=feats["val"] or None,
        data_collator=examples.DataCollator(pad_id, multi_hot=multi_label), callbacks=[callback])
    checkpoints.adapter_only_checkpoints(trainer)  # LoRA: the frozen weights are the base model's

    ended = train_until_done(trainer, callback, run_dir, job.resume_from,
                             "Lower the learning rate (for example by 10x) and resume or start again.")
    if ended is not None:
        return ended

    # final evaluation and the trained model (adapter for LoRA, full weights otherwise)
    if has_eval and callback.last_eval_step != trainer.state.global_step:
        trainer.evaluate()
    if cut is not None:
        cut.restore()
    if process_rank() != 0:
        return "completed", None
    # final/ holds the best weights by the validation metric; the last ones stay in their checkpoint
    weights_info = keep_best_weights(trainer, callback, model, best_metric[0] if best_metric else None, events)
    if frozen is not None and trainer.state.global_step > 0:
        compared = frozen.keep_better(model, head, pad_id, events)
        if compared:
            weights_info["frozen_start"] = compared
    if skipped and frozen.linear_part:  # the first stage's scores, on every validation row
        weights_info["linear_part"] = {k: frozen.linear_part[k]
                                       for k in ("linear_weight", "macro_f1", "network_alone", "linear_alone")}
    elif classifier and char_classifier.has_linear_part(model) and feats["val"]:
        mix = char_classifier.part_scores(model, val_ids, val_targets, list(template.labels),
                            linear=linear_probs[0] if linear_probs else None, allow_empty=template.no_label_rows)
        mix = {k: mix[k] for k in ("linear_weight", "macro_f1", "network_alone", "linear_alone")}
        weights_info["linear_part"] = mix
        events.emit("log", level="info", code="part_scores", macro_f1=mix["macro_f1"],
                    network=mix["network_alone"], linear=mix["linear_alone"], share=mix["linear_weight"], message=(
            f"validation macro-F1 {mix['macro_f1']:.4f} (network alone {mix['network_alone']:.4f}, linear part "
            f"alone {mix['linear_alone']:.4f}, linear share {mix['linear_weight']:g})"))
    final = run_dir / "final"
    tmp = run_dir / ".final.tmp"
    if job.method == "lora":
        adapters.save_lora_adapter(model, tmp)
        tokenizer.save_pretrained(str(tmp))
    else:
        loading.save_model(model, tokenizer, tmp)
    import json

    (tmp / "workbench_run.json").write_text(json.dumps({
        "base_model_path": str(base), "base_model": job.base_model, "method": job.method,
        "family": family, "template": template.template, "task": template.task.value, **weights_info,
        "probe": checkpoints.measure(model, probe_rows, tmp),
    }, ensure_ascii=False, indent=2), encoding="utf-8")
    if final.exists():
        import shutil

        shutil.rmtree(final)
    os.replace(tmp, final)
    events.emit("log", level="info", code="saved_final", message="saved the trained model to final/")
    # done long before on real data (it takes a fraction of the training time); a failure only
    # means the evaluation fits the baseline itself
    exc = _baseline_exception(baseline, clock, events)
    if exc is not None:
        events.emit("log", level="warning", code="baseline_failed",
                    message=f"the baseline was not fitted ahead of the evaluation: {type(exc).__name__}: {exc}")
    return "completed", None
