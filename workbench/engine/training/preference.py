"""Preference tuning: a LoRA adapter trained with PaddleFormers' DPO trainer on top of a run's model.

The run's model (its adapter merged, or its full weights) is saved into the new run's folder as
its base model (``base_model/``, as a built-in model's is), a fresh LoRA adapter goes on it, and
``paddleformers.cli.train.dpo.dpo_trainer.DPOTrainer`` trains it with the criterion of
``paddleformers/nn/criterion/dpo_loss.py``. With ``DPOConfig(lora=True)`` the trainer takes the
reference log-probabilities from the same model with the adapter switched off: no second copy.

A pair is one row, as PaddleFormers' DPO data is: question, chosen answer and rejected answer in
one sequence, the rejected answer's rows masked from the chosen answer's columns and its positions
restarting after the question (:func:`pack_pair`). One change to PaddleFormers' own layout
(datasets/DPODataset.py): the question's last token is repeated before the rejected answer, so
that the rejected answer's first token is scored after the question, as the chosen answer's is
(in theirs, one position carries both answers' first tokens and the sum of their ids). Checked
against separate forward passes for each family (tests/engine/test_preference_packing.py).

Events, the stop file, the time budget, checkpoints (the adapter alone), their probes and resume
are the ordinary run's (engine/training/run_loop.py).
"""

from __future__ import annotations

import json
import math
import os
import contextlib
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.fsutil import atomic_write_text
from workbench.core.jobs import TASK_FILE, JobSpec, run_task, write_run_task
from workbench.core.preference import REFERENCE_FREE_LOSSES, PreferencePair, read_run_pairs
from workbench.core.project import Project
from workbench.core.recommend import vocabulary_cut
from workbench.core.runs import EventWriter
from workbench.core.timing import RunClock, write_timing
from workbench.core.trained import resolve_trained_run
from workbench.engine import examples, families
from workbench.engine.models import adapters, checkpoints, devices, loading, run_weights
from workbench.engine.training.run_loop import (
    DPO_LOG_FIELDS, TrainingAborted, keep_best_weights, make_callback, train_until_done,
)
from workbench.engine.training import vocab_cut
from workbench.engine.training.trainer import _precision_flags

BASE_DIR = "base_model"
BEFORE_FILE = "heldout_before.json"  # the held-out figures of the model the run started from
# ... and its log-probabilities of each held-out pair's answers: the reference, which the adapter
# switched off gives again unchanged, so the judgement after the last step reads it from here
REFERENCE_FILE = "heldout_reference.json"
HELDOUT_BATCH = 8
# what follows the last step against judging the held-out pairs before the first: the same pass
# (the adapter on, the reference kept), the best weights loaded back and the adapter saved (a last
# evaluation of the pairs is the clock's own ending time)
AFTER_JUDGING_FACTOR = 1.2


# ----- the base: the run the preferences tune ------------------------------------------------


def prepare_base(job: JobSpec, run_dir: Path, device: str) -> Path:
    """``base_model/`` of the run: the model of run ``job.from_run`` as one full folder, made once."""
    folder = run_dir / BASE_DIR
    if (folder / "config.json").is_file():
        return folder
    trained = resolve_trained_run(Project.open(job.project), job.from_run)
    model, tokenizer = run_weights.load_run_model(trained, device=device, merge=True)
    tmp = run_dir / f".{BASE_DIR}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    loading.save_model(model, tokenizer, tmp)
    os.replace(tmp, folder)
    return folder


# ----- pairs as rows -------------------------------------------------------------------------


def pack_pair(tokenizer, system: str | None, pair: PreferencePair, max_length: int) -> dict[str, Any]:
    """One pair as one row of at most ``max_length`` tokens: question P, chosen answer A (end token
    included) and rejected answer B become ``P + A[:-1] + [P[-1]] + B[:-1]``; position i of the
    chosen part predicts A's next token, of the rejected part B's. Too long, the question is cut
    from its middle first (to half the length at most), then both answers at their ends."""
    prompt = examples.encode_prompt(tokenizer, examples.build_prompt(tokenizer, system, pair.prompt))
    a = examples.encode_response(tokenizer, pair.chosen)
    b = examples.encode_response(tokenizer, pair.rejected)
    if len(prompt) + len(a) + len(b) - 1 > max_length:
        prompt = examples._shrink_prompt(prompt, max(max_length + 1 - len(a) - len(b), min(len(prompt), max_length // 2)))
        room = max_length + 1 - len(prompt)
        if len(a) + len(b) > room:
            half = room // 2
            if len(a) > half and len(b) > half:
                a, b = a[:half], b[:room - half]
            elif len(a) > half:
                a = a[:room - len(b)]
            else:
                b = b[:room - len(a)]
    p, na, nb = len(prompt), len(a), len(b)
    ids = prompt + a[:-1] + [prompt[-1]] + b[:-1]
    positions = list(range(p)) + list(range(p, p + na - 1)) + [p - 1] + list(range(p, p + nb - 1))
    start = p + na - 1  # the first row of the rejected part
    chosen = [0] * len(ids)
    rejected = [0] * len(ids)
    chosen[p - 1:start] = a
    rejected[start:start + nb] = b
    return {"input_ids": ids, "position_ids": positions, "chosen_labels": chosen, "rejected_labels": rejected,
            "spans": [p - 1, start, start + nb], "prompt_len": p}


class PairCollator:
    """Rows of packed pairs as the DPO trainer reads them (the keys of PaddleFormers'
    ``dpo_collate_fn``), with a 4-D attention mask: causal, the rejected rows blind to the chosen
    columns (and to the question's last token, which they repeat). A padding row sees itself only,
    so no row of the mask is empty."""

    def __call__(self, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        import numpy as np

        width = max(len(r["input_ids"]) for r in rows)
        out: dict[str, list] = {k: [] for k in ("input_ids", "position_ids", "chosen_labels", "rejected_labels")}
        masks, spans = [], []
        for i, r in enumerate(rows):
            n = len(r["input_ids"])
            for k in out:
                out[k].append(list(r[k]) + [0] * (width - n))
            mask = np.eye(width, dtype=bool)
            mask[:n, :n] = np.tril(np.ones((n, n), dtype=bool))
            start = r["spans"][1]
            mask[start:n, r["prompt_len"] - 1:start] = False
            masks.append(mask[None])
            spans.append([i, *r["spans"]])
        batch = {k: np.array(v, dtype="int64") for k, v in out.items()}
        batch["response_indexs"] = np.array(spans, dtype="int64")
        batch["attention_mask"] = np.array(masks, dtype="float32")
        return batch


# ----- PaddleFormers' DPO trainer ------------------------------------------------------------


def dpo_config(job: JobSpec):
    """PaddleFormers' DPOConfig for the job; "orpo" as its DPO workflow sets it up."""
    from paddleformers.cli.train.dpo.dpo_argument import DPOConfig

    loss = job.dpo_loss
    cfg = DPOConfig(beta=job.dpo_beta, loss_type=loss, lora=True, reference_free=loss in REFERENCE_FREE_LOSSES)
    if loss == "orpo":
        cfg.loss_type, cfg.sft_loss_ratio = "or", 1.0
    elif loss == "sft":
        cfg.loss_type, cfg.pref_loss_ratio, cfg.sft_loss_ratio = "sigmoid", 0.0, 1.0
    return cfg


def make_criterion(config):
    """PaddleFormers' DPO criterion (``config.dpo_config`` set), taking a model output's logits
    whatever form they come in: it unpacks tuples and ``CausalLMOutputWithPast``, while ERNIE 4.5's
    causal LM returns ``CausalLMOutputWithCrossAttentions`` (AttributeError: ... has no attribute
    'dim')."""
    from paddleformers.nn.criterion import CriterionLayer

    class Criterion(CriterionLayer):
        def forward(self, logits, labels, loss_mask=None, **kwargs):
            if not isinstance(logits, tuple) and hasattr(logits, "logits"):
                logits = logits.logits
            return super().forward(logits, labels, loss_mask, **kwargs)

    return Criterion(config)


def make_trainer(**kwargs):
    from paddleformers.cli.train.dpo.dpo_trainer import DPOTrainer

    class WorkbenchDPOTrainer(DPOTrainer):
        """PaddleFormers' DPOTrainer with two narrow changes for a run of one process."""

        last_eval: dict[str, float] = {}

        def _wrap_ref_model(self, model):
            # DPOTrainer.evaluate wraps the model in fleet.distributed_model, which needs fleet.init:
            # in one process (a CPU here) that failed with AttributeError: 'Fleet' object has no
            # attribute '_user_defined_strategy'. One process needs no wrapping.
            if self.args.world_size > 1:
                return super()._wrap_ref_model(model)
            return model

        def log(self, logs, **kwargs):
            # DPOTrainer.log multiplies state.epoch by the epochs (its streaming datasets count
            # progress in [0, 1]); this dataset's epochs are epochs already
            if self.state.epoch is not None and "loss" in logs:
                self.state.epoch /= self.args.num_train_epochs
            out = super().log(logs, **kwargs)
            if "eval_loss" in logs:
                self.last_eval = {k: float(v) for k, v in logs.items() if isinstance(v, (int, float))}
            return out

    return WorkbenchDPOTrainer(**kwargs)


# ----- held-out pairs ------------------------------------------------------------------------


def _set_lora(model, on: bool) -> None:
    from paddleformers.peft.lora.lora_model import AVAILABLE_LAYERS

    for _, layer in model.named_sublayers():
        if isinstance(layer, tuple(AVAILABLE_LAYERS)):
            layer.disable_lora = not on


def pair_logps(model, rows: Sequence[dict[str, Any]], criterion, *, adapter: bool) -> tuple[list[float], list[float]]:
    """Log-probabilities of the chosen and the rejected answers under ``model`` (its adapter on
    or off), as the DPO criterion sums them (or averages them, for ipo, simpo and orpo)."""
    import paddle

    collate = PairCollator()
    chosen: list[float] = []
    rejected: list[float] = []
    was_training = model.training
    model.eval()
    _set_lora(model, adapter)
    try:
        with paddle.no_grad():
            for i in range(0, len(rows), HELDOUT_BATCH):
                batch = {k: paddle.to_tensor(v) for k, v in collate(rows[i:i + HELDOUT_BATCH]).items()}
                logits = model(input_ids=batch["input_ids"], position_ids=batch["position_ids"],
                               attention_mask=batch["attention_mask"])
                c, r = criterion(logits, (batch["chosen_labels"], batch["rejected_labels"],
                                          batch["response_indexs"], None, None))
                chosen += [float(x) for x in c.numpy()]
                rejected += [float(x) for x in r.numpy()]
    finally:
        _set_lora(model, True)
        if was_training:
            model.train()
    return chosen, rejected


def _share(wins: Sequence[float]) -> float | None:
    return round(sum(wins) / len(wins), 4) if wins else None


def heldout_report(model, rows, criterion, beta: float, reference: tuple[list[float], list[float]] | None = None
                   ) -> dict[str, Any]:
    """How the held-out pairs are judged. ``likelihood_accuracy``: the share where the model gives
    the chosen answer the higher log-probability. ``preference_accuracy``: the share where the
    implicit reward, beta x (log-probability of the tuned model - of the reference), prefers the
    chosen answer; a tie counts half, so before any training (the adapter at zero, every reward
    0) it is 0.5."""
    ref = reference or pair_logps(model, rows, criterion, adapter=False)
    return judged(pair_logps(model, rows, criterion, adapter=True), ref, beta)


def judged(pol: tuple[list[float], list[float]], ref: tuple[list[float], list[float]], beta: float) -> dict[str, Any]:
    """:func:`heldout_report`'s figures from the log-probabilities of the chosen and rejected
    answers under the model judged (``pol``) and under the reference (``ref``)."""
    rows = pol[0]
    margins = [beta * ((pc - rc) - (pr - rr)) for pc, pr, rc, rr in zip(pol[0], pol[1], ref[0], ref[1])]
    wins = [1.0 if m > 1e-9 else 0.5 if abs(m) <= 1e-9 else 0.0 for m in margins]
    return {"pairs": len(rows),
            "preference_accuracy": _share(wins),
            "reward_margin": round(sum(margins) / len(margins), 4) if margins else None,
            "likelihood_accuracy": _share([1.0 if c > r else 0.0 for c, r in zip(*pol)]),
            "reference_likelihood_accuracy": _share([1.0 if c > r else 0.0 for c, r in zip(*ref)])}


def evaluate_heldout(trained, device: str = "cpu") -> dict[str, Any] | None:
    """What ``eval`` reports of a preference run: its held-out pairs judged by the weights
    evaluated (``tuned``: the adapter on) and by the model the run started from (``base``: the
    adapter off, whose implicit reward is a tie, 0.5). None for a run without held-out pairs."""
    job = trained.job
    pairs = read_run_pairs(trained.run_dir)
    heldout = [p for p in pairs if p.split == "heldout"]
    if not heldout:
        return None
    model, tokenizer = run_weights.load_run_model(trained, device=device, merge=False)
    model.config.dpo_config = dpo_config(job)
    criterion = make_criterion(model.config)
    system = trained.spec.system_text("zh")
    max_length = _max_length(model, job)
    rows = [pack_pair(tokenizer, system, p, max_length) for p in heldout]
    ref = pair_logps(model, rows, criterion, adapter=False)
    tuned = judged(pair_logps(model, rows, criterion, adapter=True), ref, job.dpo_beta)
    del model
    return {"from_run": job.from_run, "loss": job.dpo_loss, "beta": job.dpo_beta,
            "train_pairs": len(pairs) - len(heldout), "heldout_pairs": len(heldout),
            "tuned": tuned, "base": judged(ref, ref, job.dpo_beta)}


# ----- the run -------------------------------------------------------------------------------


def run_preference_training(job: JobSpec, run_dir: Path, events: EventWriter) -> tuple[str, str | None]:
    clock = RunClock(job.estimate_s, job.time_budget_s, busy=job.cpu_busy, cores=job.cpu_cores)
    try:
        return _train(job, run_dir, events, clock)
    finally:
        write_timing(run_dir, clock.record())


def _renumbered(cut, row: dict[str, Any]) -> dict[str, Any]:
    """A packed pair's ids in the cut vocabulary (a label 0 marks no answer token and stays 0: the
    cut keeps id 0 first, so no kept token becomes 0)."""
    remap = cut.remap
    out = dict(row)
    out["input_ids"] = [int(remap[i]) for i in row["input_ids"]]
    for key in ("chosen_labels", "rejected_labels"):
        out[key] = [int(remap[i]) if i else 0 for i in row[key]]
    return out


def _kept_reference(run_dir: Path, pairs: int) -> tuple[list[float], list[float]] | None:
    """The held-out pairs' reference log-probabilities measured before the first step, if kept
    for these pairs (None: measured again)."""
    try:
        kept = json.loads((run_dir / REFERENCE_FILE).read_text(encoding="utf-8"))
        ref = ([float(x) for x in kept["chosen"]], [float(x) for x in kept["rejected"]])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return ref if len(ref[0]) == len(ref[1]) == pairs else None


def _max_length(model, job: JobSpec) -> int:
    # A sliding-window layer (Gemma 3) masks by distance in the row, not by position: a packed row
    # longer than the window would hide the question from the rejected answer's end
    window = getattr(model.config, "sliding_window", None)
    layers = getattr(model.config, "layer_types", None) or []
    if window and "sliding_attention" in layers:
        return min(job.max_length, int(window))
    return job.max_length


def _train(job: JobSpec, run_dir: Path, events: EventWriter, clock: RunClock) -> tuple[str, str | None]:
    import paddle
    from paddleformers.trainer import TrainingArguments

    loading.set_library_log_level("WARNING")
    project = Project.open(job.project).at_version(job.data_version)
    template = run_task(run_dir, project)
    if not (run_dir / TASK_FILE).is_file():
        write_run_task(run_dir, template)
    pairs = read_run_pairs(run_dir)
    device = devices.select_device(job.device)
    threads = devices.chosen_threads() if device.startswith("cpu") else None
    if threads is None and job.cpu_busy is not None:
        clock.processor_load(None)
    events.emit("log", level="info", code="preparing_base", message=f"preparing the model of run {job.from_run}")
    base = prepare_base(job, run_dir, device)
    model, tokenizer = loading.load_model_and_tokenizer(base, device=device)
    family = families.model_family(model.config)
    if family == families.CLASSIFIER_FAMILY:
        raise TrainingAborted("Preference tuning needs a model that writes answers; this run's model classifies.")
    cfg = dpo_config(job)
    model.config.dpo_config = cfg  # the criterion the trainer builds reads it from the model's config
    paddle.seed(job.seed)
    model = adapters.apply_lora(model, family, r=job.lora_r, alpha=job.lora_alpha, dropout=job.lora_dropout,
                                target_modules=job.lora_target_modules)
    trainable, total = loading.count_parameters(model)

    system = template.system_text("zh")
    max_length = _max_length(model, job)
    rows = {"train": [], "heldout": []}
    for pair in pairs:
        rows[pair.split].append(pack_pair(tokenizer, system, pair, max_length))
    if not rows["train"]:
        raise TrainingAborted("No preference pairs to train on. Record choices between answers, or rate answers "
                              "good and bad, then start again.")
    heldout = rows["heldout"]
    cut, trained = None, rows
    if vocabulary_cut(model.config.to_dict(), "lora", "instruction", job.vocabulary) and \
            vocab_cut.can_cut(model, "lora"):
        # the output layer over the pairs' own tokens while the adapter trains, as an instruction
        # run's (engine/training/vocab_cut.py): a Gemma 3 DPO step spent most of its time on the
        # 262,144 rows of its full output layer. The held-out pairs are judged before and after with
        # the full vocabulary, as `workbench eval` judges them.
        cut = vocab_cut.cut_vocabulary(
            model, ([{"input_ids": r["input_ids"], "labels": r["chosen_labels"] + r["rejected_labels"]}
                     for r in rows["train"] + heldout],), vocab_cut.special_ids(tokenizer, extra=[0]))
        trained = {k: [_renumbered(cut, r) for r in v] for k, v in rows.items()}
        events.emit("log", level="info", code="vocabulary_cut", kept=cut.size, full=cut.full_vocab, message=(
            f"training over the {cut.size:,} tokens of the pairs (of {cut.full_vocab:,}); the tuned model keeps "
            "the full vocabulary"))
    full_vocabulary = cut.full_vocabulary if cut is not None else contextlib.nullcontext
    probe_rows = checkpoints.probe_rows([examples.encode_example(tokenizer, examples.build_prompt(tokenizer, system, p.prompt),
                                                                 p.chosen, max_length)
                                         for p in (pairs if not heldout else [q for q in pairs if q.split == "heldout"])])

    args = TrainingArguments(
        output_dir=str(run_dir / "checkpoints"), device=device.split(":")[0] if device.startswith(("cpu", "gpu")) else device,
        per_device_train_batch_size=job.batch_size, per_device_eval_batch_size=job.batch_size,
        gradient_accumulation_steps=job.gradient_accumulation_steps, learning_rate=job.learning_rate,
        lr_scheduler_type=job.lr_scheduler, warmup_ratio=job.warmup_ratio, weight_decay=job.weight_decay,
        num_train_epochs=job.epochs, max_steps=job.max_steps,
        logging_steps=math.gcd(math.gcd(job.logging_steps, job.save_steps), job.eval_steps if heldout else job.save_steps),
        evaluation_strategy="steps" if heldout else "no", eval_steps=job.eval_steps, save_strategy="steps",
        save_steps=job.save_steps, save_total_limit=job.save_total_limit,
        metric_for_best_model="eval_loss" if heldout else None, greater_is_better=False if heldout else None,
        seed=job.seed, report_to=[], disable_tqdm=True, logging_dir=str(run_dir / "trainer_logs"),
        sharding="", split_param=False, **_precision_flags(job, device))
    model_info = {
        "device": device, "family": family, "base_model": job.base_model, "builtin": None, "threads": threads,
        "fast_blas": devices.fast_blas() if threads else None, "method": "dpo", "from_run": job.from_run,
        "dpo_loss": job.dpo_loss, "dpo_beta": job.dpo_beta, "trainable_params": trainable, "total_params": total,
        "classifier": False, "train_rows": len(rows["train"]), "val_rows": len(heldout), "sampled_eval": False,
    }
    trainer_box: list = []

    def eval_metrics(_model) -> dict[str, float]:
        last = trainer_box[0].last_eval if trainer_box else {}
        out = {name: last.get(f"eval_{key}") for key, name in DPO_LOG_FIELDS.items()}
        return {k: v for k, v in out.items() if v is not None}

    def probe(m, folder):
        with full_vocabulary():
            return checkpoints.measure(m if m is not None else model, probe_rows, folder)

    callback = make_callback(job, run_dir, events, model_info=model_info, classify_eval=eval_metrics if heldout else None,
                             best_metric=("eval_loss", False) if heldout else None, clock=clock, probe=probe,
                             threads=threads)
    trainer = make_trainer(model=model, data_collator=PairCollator(), dpo_config=cfg, args=args,
                           dpo_criterion=make_criterion(model.config),
                           train_dataset=trained["train"], eval_dataset=trained["heldout"] or None, tokenizer=tokenizer,
                           callbacks=[callback])
    trainer_box.append(trainer)
    checkpoints.adapter_only_checkpoints(trainer)

    before = None
    resume = job.resume_from
    before_file = run_dir / BEFORE_FILE  # measured once, at the first start; a resume reads it
    if heldout and not resume:
        # the model the run starts from: the adapter is zero, so the reference is the policy
        judging = time.monotonic()
        with full_vocabulary():
            ref = pair_logps(model, heldout, trainer.dpo_criterion, adapter=False)
        before = judged(ref, ref, job.dpo_beta)  # the adapter starts at zero: the policy is the reference
        # after the last step the pairs are judged again: a Gemma 3 run with a 12-minute budget
        # ended 135 s past it before this was kept (docs/training.md)
        clock.reserve_ending(AFTER_JUDGING_FACTOR * (time.monotonic() - judging))
        atomic_write_text(run_dir / REFERENCE_FILE, json.dumps({"chosen": ref[0], "rejected": ref[1]}))
        atomic_write_text(before_file, json.dumps(before))
        events.emit("log", level="info", code="preference_before", **before, message=(
            f"before tuning, on {len(heldout)} held-out pairs: the model prefers the chosen answer by likelihood in "
            f"{before['likelihood_accuracy']:.0%}"))
    elif heldout and before_file.is_file():
        before = json.loads(before_file.read_text(encoding="utf-8"))
    ended = train_until_done(trainer, callback, run_dir, resume,
                             "Lower the learning rate (for example by 10x) or raise beta, and start again.")
    if ended is not None:
        return ended
    if heldout and callback.last_eval_step != trainer.state.global_step:
        trainer.evaluate()
    if cut is not None:
        cut.restore()
    weights_info = keep_best_weights(trainer, callback, model, "eval_loss" if heldout else None, events)
    report: dict[str, Any] = {"loss": job.dpo_loss, "beta": job.dpo_beta, "train_pairs": len(rows["train"]),
                              "heldout_pairs": len(heldout)}
    if heldout:
        after = heldout_report(model, heldout, trainer.dpo_criterion, job.dpo_beta,
                               reference=_kept_reference(run_dir, len(heldout)))
        report.update(before=before, after=after)
        was = f"{before['likelihood_accuracy']:.0%} before, " if before else ""
        events.emit("log", level="info", code="preference_after", **after, message=(
            f"on {len(heldout)} held-out pairs the tuned model's implicit reward prefers the chosen answer in "
            f"{after['preference_accuracy']:.0%}; by likelihood {was}{after['likelihood_accuracy']:.0%} after"))
    final, tmp = run_dir / "final", run_dir / ".final.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    adapters.save_lora_adapter(model, tmp)
    tokenizer.save_pretrained(str(tmp))
    (tmp / "workbench_run.json").write_text(json.dumps({
        "base_model_path": str(base), "base_model": job.base_model, "method": "dpo", "from_run": job.from_run,
        "family": family, "template": template.template, "task": template.task.value, **weights_info,
        "preference": report, "probe": checkpoints.measure(model, probe_rows, tmp),
    }, ensure_ascii=False, indent=2), encoding="utf-8")
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    events.emit("log", level="info", code="saved_final", message="saved the trained adapter to final/")
    return "completed", None

