"""The loop around PaddleFormers' Trainer that every trainer shares (the instruction and
classification trainer in trainer.py, the preference trainer in preference.py): the callback that
turns its hooks into run events (step, eval, checkpoint, VisualDL scalars) and steers it (the stop
file, NaN, early stopping, the time budget, the compute threads), training to the end or to a stop,
and keeping the best weights."""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

from workbench.core.jobs import JobSpec
from workbench.core.runs import STOP_FILE, EventWriter, list_checkpoints, mark_checkpoint_complete, process_rank
from workbench.core.timing import RunClock
from workbench.engine.models import checkpoints, devices

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
                if process_rank() != 0:
                    raise RuntimeError("written by rank 0")
                from visualdl import LogWriter

                self.vdl = LogWriter(logdir=str(run_dir / "vdl"))
            except Exception as exc:  # VisualDL is optional at run time; the events file is not
                if process_rank() == 0:
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
                measured = probe(kwargs.get("model"), path) if probe is not None and process_rank() == 0 else None
                mark_checkpoint_complete(path, step, measured)
            events.emit("checkpoint", step=step, path=str(path.relative_to(run_dir)))
            if clock is not None:
                clock.checkpoint_done(evaluated=self.last_eval_step == step)
            return control

        def on_train_end(self, args, state, control, **kwargs):
            if self.vdl is not None:
                self.vdl.close()

    return EventCallback()


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
