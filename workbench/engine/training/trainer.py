"""Training with PaddleFormers' Trainer; a callback turns its hooks into run events.

The Trainer is used as it is (schedules, accumulation, checkpoints with optimizer and
scheduler state, resume, mixed precision); the callback only reports and steers: step
and eval events, VisualDL scalars, the stop file, NaN detection. The training benchmark
(bench/train_bench.py) measures what the callback costs against a bare loop.
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
from workbench.core.recommend import vocabulary_cut
from workbench.core.runs import STOP_FILE, EventWriter, list_checkpoints, mark_checkpoint_complete
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

EVAL_CLASSIFY_LIMIT = 200  # validation rows scored by label likelihood at each evaluation
EARLY_STOPPING_PATIENCE = 3  # evaluations without a better validation metric before training stops
# what PaddleFormers' DPOTrainer logs over a preference run's training batches -> its step event's
# fields (the held-out evaluation's, with "eval_", go into the eval event's metrics)
DPO_LOG_FIELDS = {"rewards/chosen": "reward_chosen", "rewards/rejected": "reward_rejected",
                  "rewards/margins": "reward_margin", "rewards/accuracies": "preference_accuracy"}
# ... and, where each evaluation reads a sample of the validation rows (a pretrained model on a
# CPU: 64 rows), not before one pass over the training rows: 64 rows decide macro-F1 over 19
# labels by chance, and on CPED's dialogue acts that stopped a Gemma 3 head at 0.39 of an epoch
# (macro-F1 0.07 on the test split) while its validation loss was still falling


class TrainingAborted(Exception):
    """Raised for a run that must end as failed with a user-facing message."""



def train_until_done(trainer, callback, run_dir: Path, resume: str | None, nan_advice: str) -> tuple[str, str | None] | None:
    """Trains from the start, or from the checkpoint ``resume`` names; the outcome of a run
    that ended early (the loss went NaN, or the person stopped it), None when it ran out."""
    if resume:
        resume = str((run_dir / resume) if not Path(resume).is_absolute() else Path(resume))
        if not Path(resume).is_dir():
            raise TrainingAborted(f"Checkpoint {resume} does not exist; choose one listed by 'workbench runs'.")
    trainer.train(resume_from_checkpoint=resume)
    if callback.nan_step is not None:
        ckpts = list_checkpoints(run_dir)
        kept = f" The last good checkpoint, {ckpts[-1].name}, is kept." if ckpts else ""
        return "failed", (f"The loss became NaN or infinite at step {callback.nan_step}, so training stopped.{kept} "
                          f"{nan_advice}")
    if callback.stopped:
        return "stopped", None
    return None


def keep_best_weights(trainer, callback, model, metric: str | None, events: EventWriter) -> dict[str, Any]:
    """Loads the best checkpoint's weights into ``model`` when validation chose one other than
    the last (``metric`` None: the last weights stay); what was kept, for the run's record."""
    best_ckpt = trainer.state.best_model_checkpoint
    last_step = int(trainer.state.global_step)
    if not (metric and best_ckpt and Path(best_ckpt).is_dir()):
        return {"weights": "last", "last_step": last_step}
    best_name = Path(best_ckpt).name
    best_step = int(best_name.rsplit("-", 1)[-1])
    if best_step != last_step:
        checkpoints.load_weights(model, Path(best_ckpt) / "model_state")
        events.emit("log", level="info", code="best_weights", step=best_step, metric=metric,
                    value=trainer.state.best_metric, message=(
            f"kept the best weights: step {best_step}, validation {metric} {trainer.state.best_metric:.4f}"))
    return {"weights": "best", "metric": metric, "best_metric": trainer.state.best_metric, "best_step": best_step,
            "best_checkpoint": best_name, "last_step": last_step, "early_stopped_at": callback.early_stopped_at}

def _rank() -> int:
    return int(os.environ.get("PADDLE_TRAINER_ID", "0") or 0)


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
        if _rank() != 0:  # under the distributed launcher rank 0 builds, the others wait for it
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


def make_callback(job: JobSpec, run_dir: Path, events: EventWriter, *, model_info: dict[str, Any],
                  classify_eval=None, best_metric: tuple[str, bool] | None = None, clock: RunClock | None = None,
                  probe=None, threads: int | None = None):
    from paddleformers.trainer import TrainerCallback

    class EventCallback(TrainerCallback):
        """Writes start/step/eval/checkpoint events; obeys the stop file; stops on NaN."""

        def __init__(self):
            self.tokens = 0
            self.window_tokens = 0
            self.window_start = time.time()
            self.step_times: list[float] = []
            self.last_step_time = time.time()
            self.stopped = False
            self.nan_step: int | None = None
            self.vdl = None
            self.initial_step = 0
            self.last_eval_step = -1
            # early stopping on the validation metric: (name, greater is better)
            self.best_metric = best_metric
            self.best_value: float | None = None
            self.best_step: int | None = None
            self.evals_without_gain = 0
            self.early_stopped_at: int | None = None
            # Fault injection for tests of the NaN path: an absurd learning rate does not
            # reliably give NaN here (RMSNorm and gradient clipping saturate the model instead).
            self.inject_nan_at = int(os.environ.get("WORKBENCH_INJECT_NAN_AT_STEP", "0") or 0) or None
            # a CPU run's compute threads follow the cores other work leaves idle
            every = float(os.environ.get("WORKBENCH_THREADS_EVERY_S", "") or 180.0)
            self.threads = devices.ThreadsFollower(threads, every) if threads else None

        # -- lifecycle --
        def on_train_begin(self, args, state, control, **kwargs):
            self.initial_step = int(state.global_step)
            self.window_start = self.last_step_time = time.time()
            try:
                if _rank() != 0:
                    raise RuntimeError("written by rank 0")
                from visualdl import LogWriter

                self.vdl = LogWriter(logdir=str(run_dir / "vdl"))
            except Exception as exc:  # VisualDL is optional at run time; the events file is not
                if _rank() == 0:
                    events.emit("log", level="warning", message=f"VisualDL logs disabled: {exc}")
            events.emit(
                "start", total_steps=int(state.max_steps), initial_step=self.initial_step,
                num_train_epochs=float(args.num_train_epochs), **model_info)
            if clock is not None:
                clock.loop_started(self.initial_step, int(state.max_steps))
                if clock.start is not None:
                    events.emit("estimate", **clock.start.to_dict(), time_budget_s=clock.budget_s)

        def on_load_data_end(self, args, state, control, inputs=None, **kwargs):
            if inputs is not None and "attention_mask" in inputs:
                mask = inputs["attention_mask"]
                # a preference run's rows carry a 4-D mask (engine/training/preference.py): a token
                # sees itself and the ones before it, a padding slot itself alone
                if mask.ndim == 2:
                    n = int(mask.sum())
                else:
                    n = int((mask[:, 0].sum(axis=-1) > 1).astype("int64").sum()) + int(mask.shape[0])
                self.window_tokens += n
                self.tokens += n

        def on_step_end(self, args, state, control, **kwargs):
            now = time.time()
            self.step_times.append(now - self.last_step_time)
            self.step_times = self.step_times[-50:]
            self.last_step_time = now
            if (run_dir / STOP_FILE).exists() and not self.stopped:
                self.stopped = True
                control.should_save = True
                control.should_training_stop = True
            if self.threads is not None and (change := self.threads.check()) is not None:
                before, after, share = change
                devices.use_threads(after)
                events.emit("log", level="info", code="threads", before=before, threads=after, share=share,
                            message=f"compute threads: {before} -> {after} (other work used "
                                    f"{share:.0%} of the processor over the last minutes)")
            if self.inject_nan_at == state.global_step:
                _poison_weights(kwargs.get("model"))
            if self.stopped or state.global_step >= state.max_steps:
                control.should_log = True  # the curve ends where the run ends
            if clock is not None:
                est = clock.step_done(int(state.global_step), evaluates=self.best_metric is not None)
                if est is not None:
                    events.emit("estimate", **est.to_dict(), time_budget_s=clock.budget_s)
                if not self.stopped and state.global_step < state.max_steps and clock.should_stop():
                    # the time budget bounds the run, whatever the estimate said: end as at the last step
                    control.should_training_stop = True
                    control.should_log = True
                    events.emit("log", level="info", code="time_budget_reached", step=int(state.global_step),
                                total_steps=int(state.max_steps), budget_s=clock.budget_s, message=(
                        f"the time budget of {clock.budget_s / 60:g} minutes is used up: training ends at step "
                        f"{state.global_step} of {state.max_steps}"))
            if state.global_step >= state.max_steps and not self.stopped or (clock and clock.budget_reached):
                # the last weights are evaluated and checkpointed too, so "last" is a checkpoint
                # and the best one is chosen among all evaluations
                control.should_save = True
                control.should_evaluate = self.best_metric is not None
            return control

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not logs or "loss" not in logs:
                return control
            loss = float(logs["loss"])
            step = int(state.global_step)
            # paddle's CPU cross-entropy turns NaN logits into a finite loss of ln(vocab),
            # so the weights are checked too
            if not math.isfinite(loss) or not _weights_finite(kwargs.get("model")):
                # the weights are already poisoned: no eval, no checkpoint of them
                self.nan_step = step
                control.should_training_stop = True
                control.should_save = False
                control.should_evaluate = False
                return control
            now = time.time()
            elapsed = max(now - self.window_start, 1e-9)
            tokens_per_s = self.window_tokens / elapsed
            self.window_tokens, self.window_start = 0, now
            mean_step = sum(self.step_times) / max(len(self.step_times), 1)
            eta = max(int(state.max_steps) - step, 0) * mean_step
            lr = float(logs.get("learning_rate", 0.0))
            extra = {}
            if model_info.get("method") == "dpo":
                extra = {name: round(float(logs[key]), 6) for key, name in DPO_LOG_FIELDS.items()
                         if isinstance(logs.get(key), (int, float)) and math.isfinite(logs[key])}
            events.emit("step", step=step, epoch=round(float(state.epoch or 0.0), 4), loss=loss, lr=lr,
                        tokens_per_s=round(tokens_per_s, 1), eta_s=round(eta, 1), **extra)
            if self.vdl is not None:
                self.vdl.add_scalar(tag="train/loss", step=step, value=loss)
                self.vdl.add_scalar(tag="train/lr", step=step, value=lr)
                self.vdl.add_scalar(tag="train/tokens_per_s", step=step, value=tokens_per_s)
                for name, value in extra.items():
                    self.vdl.add_scalar(tag=f"train/{name}", step=step, value=value)
            return control

        def on_evaluate(self, args, state, control, metrics=None, **kwargs):
            trainer_metrics = metrics if metrics is not None else {}  # the Trainer's own dict, written below
            metrics = dict(trainer_metrics)
            eval_loss = metrics.get("eval_loss")
            task_metrics: dict[str, float] = {}
            # a classification head's loss is over labels, not tokens: it has no perplexity
            # nor has a preference run's (its loss is the DPO loss over pairs)
            if eval_loss is not None and math.isfinite(eval_loss) and not model_info.get("classifier") \
                    and model_info.get("method") != "dpo":
                task_metrics["perplexity"] = float(math.exp(min(eval_loss, 50.0)))
            if classify_eval is not None:
                task_metrics.update(classify_eval(kwargs.get("model")))
            step = int(state.global_step)
            self.last_eval_step = step
            if self.best_metric is not None:
                name, greater = self.best_metric
                value = task_metrics.get(name, eval_loss if name == "eval_loss" else None)
                if value is not None and math.isfinite(value):
                    # the Trainer picks its best checkpoint from this dict (metric_for_best_model)
                    trainer_metrics[name if name.startswith("eval_") else f"eval_{name}"] = float(value)
                    better = self.best_value is None or (value > self.best_value if greater else value < self.best_value)
                    if better:
                        self.best_value, self.best_step, self.evals_without_gain = float(value), step, 0
                    else:
                        self.evals_without_gain += 1
                        settled = not model_info.get("sampled_eval") or float(state.epoch or 0.0) >= 1.0
                        if self.evals_without_gain >= EARLY_STOPPING_PATIENCE and step < state.max_steps \
                                and settled:
                            self.early_stopped_at = step
                            control.should_training_stop = True
                            events.emit("log", level="info", code="early_stopping", step=step, metric=name,
                                        best=self.best_value, best_step=self.best_step,
                                        evals=self.evals_without_gain, message=(
                                f"early stopping at step {step}: validation {name} has not improved on "
                                f"{self.best_value:.4f} (step {self.best_step}) for {self.evals_without_gain} "
                                "evaluations"))
                control.should_save = True  # every evaluated state is a checkpoint the best can be taken from
            events.emit("eval", step=step, eval_loss=eval_loss, metrics=task_metrics)
            if self.vdl is not None:
                if eval_loss is not None:
                    self.vdl.add_scalar(tag="eval/loss", step=step, value=float(eval_loss))
                for k, v in task_metrics.items():
                    self.vdl.add_scalar(tag=f"eval/{k}", step=step, value=float(v))
            return control

        def on_save(self, args, state, control, **kwargs):
            step = int(state.global_step)
            path = Path(args.output_dir) / f"checkpoint-{step}"
            if path.is_dir():
                # what the model in memory gives now, which the checkpoint must give again when loaded
                measured = probe(kwargs.get("model"), path) if probe is not None and _rank() == 0 else None
                mark_checkpoint_complete(path, step, measured)
            events.emit("checkpoint", step=step, path=str(path.relative_to(run_dir)))
            if clock is not None:
                clock.checkpoint_done(evaluated=self.last_eval_step == step)
            return control

        def on_train_end(self, args, state, control, **kwargs):
            if self.vdl is not None:
                self.vdl.close()

    return EventCallback()


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


def _weights_finite(model) -> bool:
    import paddle

    if model is None:
        return True
    for p in model.parameters():
        if not p.stop_gradient and not bool(paddle.isfinite(p).all()):
            return False
    return True


def _poison_weights(model) -> None:
    import paddle

    for p in model.parameters():
        if not p.stop_gradient:
            p.set_value(paddle.full_like(p, float("nan")))
            return


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
        report = feature_head.fit_feature_head(head, feats["train"], all_val, list(template.labels), pad_id=pad_id,
                                               multi_label=multi_label, events=events, seed=job.seed,
                                               cache_dir=project.cache_dir / "features")
        if job.method == "lora":  # kept only where LoRA's steps answer better (below)
            frozen = feature_head.FrozenStart(head, report, all_val, list(template.labels), multi_label)
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
    if task == "classification" and _rank() == 0 and test_path.is_file():
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

    has_eval = bool(feats["val"])
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
        max_steps=job.max_steps,
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
    if _rank() != 0:
        return "completed", None
    # final/ holds the best weights by the validation metric; the last ones stay in their checkpoint
    weights_info = keep_best_weights(trainer, callback, model, best_metric[0] if best_metric else None, events)
    if frozen is not None and trainer.state.global_step > 0:
        compared = frozen.keep_better(model, head, pad_id, events)
        if compared:
            weights_info["frozen_start"] = compared
    if classifier and char_classifier.has_linear_part(model) and feats["val"]:
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
