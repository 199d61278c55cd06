"""What a checkpoint holds, and proof that it loads back as the model that wrote it.

Why this module exists: PaddleFormers' Trainer saves ``model.sharded_state_dict()``, every
parameter, frozen ones included. In a LoRA run over a cut vocabulary (engine/training/vocab_cut.py) the
embedding at save time is the cut one, ``[kept, hidden]``. Paddle's flex loader, asked to fill
the full model's ``[vocab, hidden]`` embedding from it, copied the overlapping block without a
word: every checkpoint of such a run (periodic, best, written at a stop) loaded with the rows
from the reserve onwards (8,192..) replaced by other tokens' rows, so eval, the playground and
export of a stopped Gemma run read gibberish. ``final/`` (an adapter saved after the full
vocabulary was restored) was sound.

So:

* a LoRA run's checkpoints hold the trainable weights alone (the adapter; the frozen weights
  are the base model's, and a Gemma checkpoint shrinks from ~1 GB to a few MB), for saving and
  for resuming alike (:func:`adapter_only_checkpoints`);
* loading takes only the trainable weights from a LoRA checkpoint, whatever else an older one
  holds, and refuses any weight whose saved shape is not the model's (:func:`load_weights`);
* every checkpoint and ``final/`` carries a probe: a few validation rows and what the model in
  the worker's memory gave on them. A model loaded from those weights must give it again
  (:func:`check_probe`), or eval, the playground and export refuse to use it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.core.errors import WorkbenchError

PROBE_ROWS = 2  # validation rows the probe scores: enough to catch a wrong weight, cheap on a CPU
PROBE_TOKENS = 128  # tokens of each, at most
PROBE_LOGITS_FILE = "probe_logits.npz"  # full logits of the probe, written when WORKBENCH_PROBE_LOGITS is set
# a loaded model's probe loss may differ from the saved one by rounding only (merging LoRA into the
# weights reorders fp32 sums: ~1e-6 here); a wrong weight moves it by tenths of a nat or more
PROBE_LOSS_ATOL = 0.02
PROBE_LOSS_RTOL = 0.01
PROBE_DIGEST_RTOL = 1e-3  # the logits' mean and spread, relative to the spread


class CheckpointMismatch(WorkbenchError):
    """The loaded weights do not give what the model that saved them gave."""


# ----- what a checkpoint holds ---------------------------------------------------------------


def _is_lora(model) -> bool:
    from paddleformers.peft import LoRAModel

    return isinstance(model, LoRAModel)


def _trainable(state: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if not v.local_tensor.stop_gradient}


def adapter_only_checkpoints(trainer) -> bool:
    """Make ``trainer`` save and resume a LoRA model's trainable weights only; returns whether
    it applied. The Trainer reads ``model.sharded_state_dict()`` for both, so the instance's
    method is replaced (the Trainer has no switch for it, and a wrapper class would defeat its
    ``isinstance(model, LoRAModel)`` checks); its optimizer then holds the trainable weights
    alone too, or resuming looks for the frozen ones' names in the checkpoint. Adam skipped
    the frozen weights anyway (no gradient), so the steps are the same."""
    model = trainer.model
    if not _is_lora(model):
        return False
    full = model.sharded_state_dict

    def sharded_state_dict(*args, **kwargs):
        return _trainable(full(*args, **kwargs))

    model.sharded_state_dict = sharded_state_dict
    trainer.set_optimizer_grouped_parameters([p for p in model.parameters() if not p.stop_gradient])
    return True


def saved_shapes(state_dir: str | os.PathLike) -> dict[str, tuple[int, ...]]:
    """The weights a flex checkpoint's ``model_state/`` holds, by name, with their shapes."""
    import paddle

    shapes: dict[str, tuple[int, ...]] = {}
    for meta in sorted(Path(state_dir).glob("*.metadata")):
        for key, parts in paddle.load(str(meta)).state_dict_metadata.items():
            shapes[key] = tuple(int(n) for n in parts[0].global_shape)
    return shapes


def load_weights(model, state_dir: str | os.PathLike) -> list[str]:
    """Load a Trainer checkpoint's ``model_state/`` into ``model``; returns the names loaded.

    A LoRA model takes its trainable weights only (older checkpoints also hold the frozen ones,
    the embedding possibly cut); any other model takes every weight. A weight missing from the
    checkpoint, or saved with another shape, is refused: Paddle's loader would fill the overlap
    and carry on.
    """
    import paddle.distributed as dist

    from workbench.engine.families import ModelLoadError

    state_dir = Path(state_dir)
    try:
        saved = saved_shapes(state_dir)
    except Exception as exc:
        saved, why = {}, f"{type(exc).__name__}: {str(exc)[:200]}"
    else:
        why = "it lists no weights"
    if not saved:
        raise ModelLoadError(f"The checkpoint weights in {state_dir} cannot be read ({why}). The checkpoint may be "
                             "incomplete; choose an earlier one or train again.", code="checkpoint_unreadable",
                             path=str(state_dir), detail=why)
    state = model.sharded_state_dict()
    wanted = _trainable(state) if _is_lora(model) else dict(state)
    missing = sorted(k for k in wanted if k not in saved)
    wrong = sorted(k for k in wanted if k in saved and saved[k] != tuple(int(n) for n in wanted[k].global_shape))
    if missing or wrong:
        first = (missing or wrong)[0]
        detail = (f"{len(missing)} weights are missing (first: {first})" if missing else
                  f"{len(wrong)} weights have another shape (first: {first}, saved {list(saved[first])}, "
                  f"model {list(wanted[first].global_shape)})")
        raise ModelLoadError(f"The checkpoint in {state_dir.parent} does not fit this model: {detail}. It was saved "
                             "by another model or another version of the run; choose another checkpoint or train again.",
                             code="checkpoint_mismatch", path=str(state_dir.parent), detail=detail)
    try:
        dist.load_state_dict(wanted, str(state_dir))
    except Exception as exc:
        raise ModelLoadError(
            f"The checkpoint weights in {state_dir} cannot be read ({type(exc).__name__}: {str(exc)[:200]}). "
            "The checkpoint may be incomplete; choose an earlier one or train again.", code="checkpoint_unreadable",
            path=str(state_dir), detail=f"{type(exc).__name__}: {str(exc)[:200]}") from exc
    return sorted(wanted)


# ----- the probe: what the model gave when it was saved --------------------------------------


def probe_rows(features: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The first validation rows, cut to :data:`PROBE_TOKENS` (ids of the full vocabulary)."""
    rows = []
    for f in features[:PROBE_ROWS]:
        ids = [int(i) for i in f["input_ids"][:PROBE_TOKENS]]
        labels = f.get("labels")
        if labels is None:
            continue
        labels = int(labels) if isinstance(labels, int) else [int(i) for i in labels[:PROBE_TOKENS]]
        if isinstance(labels, list) and not any(i >= 0 for i in labels[1:]):
            continue  # nothing left to score after the cut
        rows.append({"input_ids": ids, "labels": labels})
    return rows


def _is_classifier(model) -> bool:
    from workbench.engine.models.char_classifier import is_classifier

    return is_classifier(model)


def _forward(model, rows: Sequence[Mapping[str, Any]]):
    """``(losses, logits)`` of ``model`` on each row alone (no padding), in eval mode."""
    import paddle

    was_training = model.training
    model.eval()
    losses, logits = [], []
    try:
        with paddle.no_grad():
            for row in rows:
                ids = paddle.to_tensor([row["input_ids"]], dtype="int64")
                labels = row["labels"]
                labels = paddle.to_tensor([labels] if isinstance(labels, int) else [labels], dtype="int64")
                out = model(input_ids=ids, labels=labels, return_dict=True)
                losses.append(float(out.loss))
                if _is_classifier(model):  # with labels it answers by its network alone
                    out = model(input_ids=ids, return_dict=True)
                logits.append(out.logits.astype("float32").numpy()[0])
    finally:
        if was_training:
            model.train()
    return losses, logits


def measure(model, rows: Sequence[Mapping[str, Any]], folder: str | os.PathLike | None = None) -> dict | None:
    """The probe of ``model`` on ``rows``: the rows, the loss on each and a digest of the logits.
    With ``WORKBENCH_PROBE_LOGITS`` set, the full logits go to ``folder`` too (for the tests
    that compare them over the whole vocabulary)."""
    import numpy as np

    if not rows:
        return None
    losses, logits = _forward(model, rows)
    if folder is not None and os.environ.get("WORKBENCH_PROBE_LOGITS"):
        np.savez(Path(folder) / PROBE_LOGITS_FILE, *logits)
    return {"rows": [dict(r) for r in rows], "loss": losses,
            "logits_mean": [_digest(x)[0] for x in logits], "logits_std": [_digest(x)[1] for x in logits]}


def _digest(logits) -> tuple[float, float]:
    """The logits' mean and spread, in float64: what a probe keeps of them."""
    import numpy as np

    return float(np.mean(logits, dtype=np.float64)), float(np.std(logits, dtype=np.float64))


def saved_logits(folder: str | os.PathLike) -> list | None:
    """The full logits :func:`measure` wrote into ``folder``, or None."""
    import numpy as np

    path = Path(folder) / PROBE_LOGITS_FILE
    if not path.is_file():
        return None
    with np.load(path) as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


def probe_logits(model, probe: Mapping[str, Any]) -> list:
    """The logits of ``model`` on the probe's rows, as :func:`measure` computes them."""
    return _forward(model, probe["rows"])[1]


def check_probe(model, probe: Mapping[str, Any] | None, source: str) -> dict | None:
    """Refuse ``model`` (a :class:`CheckpointMismatch`) when it does not give the probe's losses
    and logits again; returns ``{"saved": ..., "loaded": ...}`` mean losses, or None without a
    probe. The loss says how wrong a trained model's answers are; the logits' mean and spread
    catch a wrong weight in a model that has learnt little, whose loss barely depends on it."""

    if not probe:
        return None
    losses, logits = _forward(model, probe["rows"])
    saved = [float(x) for x in probe["loss"]]
    mean_saved, mean_now = sum(saved) / len(saved), sum(losses) / len(losses)
    loss_off = any(not math.isfinite(a) or abs(a - b) > PROBE_LOSS_ATOL + PROBE_LOSS_RTOL * abs(b)
                   for a, b in zip(losses, saved))
    digest_off = False
    for x, mean, std in zip(logits, probe.get("logits_mean", []), probe.get("logits_std", [])):
        # fp32 rounding moves these by ~1e-6 of the spread; a wrong weight by far more
        tol = PROBE_DIGEST_RTOL * abs(std) + 1e-6
        got_mean, got_std = _digest(x)
        digest_off |= abs(got_mean - mean) > tol or abs(got_std - std) > tol
    if loss_off or digest_off:
        raise CheckpointMismatch(
            f"The weights of {source} do not load back as the model that saved them: on {len(saved)} validation "
            f"rows their loss is {mean_now:.3f} where the run measured {mean_saved:.3f} when it saved them"
            f"{'' if loss_off else ', and their scores over the vocabulary differ'}. Their answers would be wrong, "
            "so they are not used. Choose another checkpoint (--checkpoint last or best) or resume the run; if "
            "every checkpoint is refused, train again.", code="checkpoint_weights_wrong", source=str(source),
            rows=len(saved), loss=f"{mean_now:.3f}", measured=f"{mean_saved:.3f}")
    return {"saved": mean_saved, "loaded": mean_now}
