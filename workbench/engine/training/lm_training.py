"""What makes fine-tuning a pretrained decoder affordable on a CPU: the output layer only
where there is a loss, and batches of similar lengths.

* **Answer-only loss.** A causal LM computes logits for every position, then drops all but
  the answer's in the loss. With a large vocabulary (Gemma 3: 262,144 rows, 60 % of the
  forward cost) that is most of the work and most of the memory (8 x 128 tokens of logits
  are 1.07 GB). PaddleFormers' own switches do it right: ``use_filtered_label_loss`` keeps
  the hidden states at labelled positions only, and ``use_fused_head_and_loss_fn`` with
  ``loss_subbatch_sequence_length`` computes the head and the cross entropy chunk by chunk
  (``FusedHeadAndCrossEntropy``), so the [tokens x vocabulary] logits never exist whole.
  Both are read at call time (the head) or set at build time (the criterion), and both
  change what a plain forward returns (a tuple instead of logits), so they are switched on
  around the loss alone: generation and label scoring see an ordinary model.
* **Length-grouped batches.** The collator pads a batch to its longest row; rows drawn at
  random make the padding a large share of every step. Rows are shuffled, cut into groups of
  :data:`GROUP_BATCHES` batches, sorted by length inside each group and batched, and the
  batches shuffled again, so a batch holds rows of similar length and the order stays random.
  (PaddleFormers' Trainer has no ``group_by_length``.)
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any

LOSS_CHUNK_TOKENS = 128  # rows of logits computed at once by the fused head and loss
GROUP_BATCHES = 50

_FLAGS = ("use_filtered_label_loss", "use_fused_head_and_loss_fn", "use_subbatch", "loss_subbatch_sequence_length")


def causal_lm(model):
    """The causal LM under a LoRA wrapper, or None for a model without a criterion (the
    built-in classifier)."""
    inner = getattr(model, "model", None)
    lm = inner if inner is not None and hasattr(inner, "criterion") and hasattr(inner, "lm_head") else model
    if not (hasattr(lm, "criterion") and hasattr(lm, "lm_head")):
        return None
    return lm


def supports_answer_only_loss(model) -> bool:
    lm = causal_lm(model)
    # softcapping is applied to the logits tensor, which the fused head never builds
    return lm is not None and getattr(lm.config, "final_logit_softcapping", None) is None


@contextlib.contextmanager
def answer_only_loss(model, chunk: int = LOSS_CHUNK_TOKENS):
    """Within the block, a forward with labels computes the head at labelled positions only,
    ``chunk`` rows at a time; the loss is the same mean cross entropy."""
    lm = causal_lm(model)
    if lm is None or not supports_answer_only_loss(model):
        yield
        return
    crit, config = lm.criterion, lm.config
    saved = {k: getattr(crit, k) for k in _FLAGS}
    saved_head = config.get("use_fused_head_and_loss_fn", False)
    crit.use_filtered_label_loss = True
    crit.use_fused_head_and_loss_fn = True
    crit.use_subbatch = True
    crit.loss_subbatch_sequence_length = int(chunk)
    config.use_fused_head_and_loss_fn = True
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(crit, k, v)
        config.use_fused_head_and_loss_fn = saved_head


def length_grouped_batches(lengths: Sequence[int], batch_size: int, seed: int,
                           group_batches: int = GROUP_BATCHES) -> list[list[int]]:
    """Index batches over rows of ``lengths``: random, but of similar lengths within a batch."""
    import numpy as np

    rng = np.random.default_rng(seed)
    order = rng.permutation(len(lengths))
    group = max(1, batch_size * group_batches)
    batches: list[list[int]] = []
    for start in range(0, len(order), group):
        chunk = sorted(order[start:start + group].tolist(), key=lambda i: -lengths[i])
        batches.extend(chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size))
    perm = rng.permutation(len(batches))
    return [batches[i] for i in perm]


def make_trainer(trainer_cls, *, group_by_length: bool, answer_only: bool, seed: int,
                 eval_context=contextlib.nullcontext, **kwargs: Any):
    """A PaddleFormers ``Trainer`` with the answer-only loss and length-grouped batches;
    every evaluation runs within ``eval_context()`` (engine/training/vocab_cut.py: the full vocabulary)."""
    import paddle

    class _Sampler(paddle.io.DistributedBatchSampler):
        # a DistributedBatchSampler so that the Trainer calls set_epoch at each epoch
        def __init__(self, dataset, batch_size):
            super().__init__(dataset, batch_size=batch_size, num_replicas=1, rank=0, shuffle=True)
            self._lengths = [len(f["input_ids"]) for f in dataset]

        def __iter__(self):
            yield from length_grouped_batches(self._lengths, self.batch_size, seed + 1000 * int(self.epoch))

        def __len__(self):
            return math.ceil(len(self._lengths) / self.batch_size)

    class WorkbenchTrainer(trainer_cls):
        def compute_loss(self, model, inputs, return_outputs=False):
            if not answer_only:
                return super().compute_loss(model, inputs, return_outputs=return_outputs)
            with answer_only_loss(model):
                loss = super().compute_loss(model, inputs, return_outputs=False)
            return (loss, {"loss": loss}) if return_outputs else loss

        def evaluate(self, *args, **kwargs):
            with eval_context():
                return super().evaluate(*args, **kwargs)

        def _get_train_sampler(self):
            if group_by_length and self.args.world_size <= 1 and self.train_dataset is not None:
                return _Sampler(self.train_dataset, self.args.per_device_train_batch_size)
            return super()._get_train_sampler()

    return WorkbenchTrainer(**kwargs)


def recompute_layers(model) -> int:
    """Recompute each decoder layer's activations in the backward pass instead of keeping them
    (Paddle's non-reentrant ``recompute``); returns the layers wrapped. PaddleFormers' own
    switch (``recompute_granularity``) fails in backward on the CPU (docs/engine-notes.md).
    Measured on Gemma 3 270M, LoRA, 8 x 256 tokens: the step's peak memory stays at the loading
    peak (2.6 GB against 7.5 GB) for about 1.5x the time; evaluation and generation (not
    training) run the plain forward."""
    from paddle.distributed.fleet.utils import recompute

    layers = [m for m in model.sublayers() if type(m).__name__.endswith("DecoderLayer")]
    for layer in layers:
        plain = layer.forward

        def forward(*args, _layer=layer, _plain=plain, **kwargs):
            if not _layer.training:
                return _plain(*args, **kwargs)
            # no key/value cache while training: the second forward would append to it again
            if kwargs.get("past_key_values") is not None:
                kwargs.update(past_key_values=None, use_cache=False)
            return recompute(_plain, *args, use_reentrant=False, **kwargs)

        layer.forward = forward
    return len(layers)
