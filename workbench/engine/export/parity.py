"""Does an exported model compute what the trained model computes? A check that holds on any
CPU and still catches an operator that converts wrongly.

Two fp32 implementations of the same network (eager Paddle on MKL, Paddle Inference on its
own or oneDNN's kernels, onnxruntime) add the same numbers in other orders, on other SIMD
widths, with other exp/rsqrt approximations. Their outputs differ by rounding, and that
difference grows with the size of the numbers: Gemma 3's logits are tens, a tiny test
model's about one. An absolute bound (1e-4) therefore refused sound Gemma exports on a CPU
without AVX-512 (0.000164 and 0.000401 on logits of about 30) while it would pass a wrong
operator on a model whose logits are small. So the check is relative to the logits' scale,
with a bound derived from the model's shape.

The bound (relative to ``max |logits|`` of the trained model on the check inputs):

    bound = SAFETY * sqrt(2) * u * sqrt(k) * sqrt(depth)

* ``u = 2**-24``: fp32's unit roundoff.
* ``k``: the model's widest product (the larger of hidden and intermediate size). A dot
  product of length k summed in fp32 has a worst-case error of ``k * u * sum |x_i w_i|``
  (Higham's gamma_k). That bound is reached only when every rounding goes the same way; the
  roundings of two kernels are independent and of random sign, so their errors add like a
  random walk, ``sqrt(k) * u`` relative to the result (and blocked or pairwise summation, as
  MKL and oneDNN do, is smaller still). The worst case would allow 2048 * 6e-8 = 1.2e-4 per
  product for Gemma 3 270M, and over its 109 products in series about 1e-2: loose enough to
  pass a wrong rotary base. The realistic one is what two correct kernels show, so it is
  the one used.
* ``depth = 6 * layers + 1``: the products the signal passes in series (per layer q/k/v,
  the attention's two, the output projection, gate/up and down; then the output layer).
  Each adds an independent error to the residual stream: ``sqrt(depth)``.
* ``sqrt(2)``: both sides round, the difference carries both errors.
* ``SAFETY = 8``: what the estimate leaves out: RMS norms that divide by a small root mean
  square, a softmax that sharpens, approximate exp and rsqrt in vectorised kernels
  (a few ulp each), and the logits' largest row being larger than the one that differs.

For Gemma 3 270M (k = 2048, 18 layers): 3.2e-4, that is 0.0096 on logits of 30, against
the 0.000164 and 0.000401 measured; for the tiny test models (k = 160, 2-3 layers) 3.1e-5 to
3.5e-5. A wrong operator moves the logits by a share of their scale, 1e-2 to 1, so two or
more orders of magnitude above the bound: a transposed projection or a dropped norm in a
tiny model's static graph is refused (tests).

What the check reports and requires, so that its verdict explains itself:

* the largest absolute difference, the logits' scale, their ratio (``relative_diff``) and
  the bound: ``relative_diff <= bound``;
* the largest difference of the softmax probabilities (at most half the largest logit
  difference; what a user of sampled text would notice);
* the greedy token (argmax) at every position: it must agree wherever the trained model's
  choice is clear, that is its top token leads the exported model's choice by more than
  twice the allowed difference (a near tie may flip by rounding alone).

A difference over the bound is not rounding: the message says so and says by how much.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

U = 2.0 ** -24  # fp32 unit roundoff
SAFETY = 8.0
PRODUCTS_PER_LAYER = 6
# outputs that are probabilities (classification): the scores behind them are sums of up to
# this many label-token log-probabilities, each carrying the logits' error
PROBABILITY_FLOOR_SCALE = 1.0


def model_shape(config) -> dict[str, int]:
    """The widest product ``k`` and the products in series ``depth`` of a decoder config (a
    config without these fields, such as the built-in classifier's, counts as one product of
    its hidden size)."""
    hidden = int(getattr(config, "hidden_size", 0) or 0)
    inter = int(getattr(config, "intermediate_size", 0) or 0)
    layers = int(getattr(config, "num_hidden_layers", 0) or 0)
    k = max(hidden, inter, 1)
    return {"k": k, "layers": layers, "depth": PRODUCTS_PER_LAYER * layers + 1}


def fp32_bound(config) -> float:
    """The largest difference, relative to the logits' scale, that fp32 rounding explains for
    a model of this shape (see the module's doc for the derivation)."""
    s = model_shape(config)
    return SAFETY * math.sqrt(2.0) * U * math.sqrt(s["k"]) * math.sqrt(s["depth"])


def _softmax(x: np.ndarray) -> np.ndarray:
    z = x - x.max(-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(-1, keepdims=True)


def compare(expected: Sequence[np.ndarray], got: Sequence[np.ndarray], bound: float, *,
            scale: float | None = None, masks: Sequence[np.ndarray] | None = None,
            probabilities: bool = False) -> dict[str, Any]:
    """Compare the exported model's outputs ``got`` with the trained model's ``expected``
    (batches of ``[..., vocab]`` logits, or ``[batch, labels]`` probabilities when
    ``probabilities``). ``scale`` overrides ``max |expected|``; ``masks`` (one per batch,
    shaped like the outputs without their last axis) say which positions count (padding
    does not). Returns the figures and ``ok``; never raises on a mismatch of values."""
    diff = 0.0
    top = 0.0
    prob_diff = 0.0
    positions = agree = clear = clear_misses = 0
    finite = True
    for i, (a, b) in enumerate(zip(expected, got)):
        if a.shape != b.shape:
            return {"ok": False, "shape_mismatch": [list(a.shape), list(b.shape)], "max_abs_diff": float("inf"),
                    "relative_diff": float("inf"), "bound": bound}
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        if a.size == 0:
            continue
        m = None if masks is None else np.asarray(masks[i], dtype=bool)
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            finite = False
            continue
        d = np.abs(a - b).max(-1)
        mx = np.abs(a).max(-1)
        if m is not None:
            d, mx = d[m], mx[m]
        if d.size:
            diff = max(diff, float(d.max()))
            top = max(top, float(mx.max()))
    scale = float(scale) if scale is not None else (1.0 if probabilities else top)
    scale = max(scale, 1e-30)
    allowed = bound * scale
    for i, (a, b) in enumerate(zip(expected, got)):
        a = np.asarray(a, dtype=np.float64).reshape(-1, a.shape[-1]) if a.size else None
        if a is None or not finite:
            continue
        b = np.asarray(b, dtype=np.float64).reshape(-1, a.shape[-1])
        keep = np.ones(a.shape[0], bool) if masks is None else np.asarray(masks[i], dtype=bool).reshape(-1)
        a, b = a[keep], b[keep]
        if not len(a):
            continue
        pa, pb = (a, b) if probabilities else (_softmax(a), _softmax(b))
        prob_diff = max(prob_diff, float(np.abs(pa - pb).max()))
        ta, tb = a.argmax(-1), b.argmax(-1)
        rows = np.arange(len(a))
        lead = a[rows, ta] - a[rows, tb]  # how far the trained model prefers its token to the export's choice
        is_clear = (ta == tb) | (lead > 2 * allowed)
        positions += len(a)
        agree += int((ta == tb).sum())
        clear += int(is_clear.sum())
        clear_misses += int(((ta != tb) & (lead > 2 * allowed)).sum())
    relative = diff / scale if finite else float("inf")
    ok = bool(finite and relative <= bound and clear_misses == 0)
    return {"ok": ok, "max_abs_diff": diff if finite else float("inf"), "scale": scale,
            "relative_diff": relative, "bound": bound, "allowed_abs_diff": allowed,
            "prob_max_diff": prob_diff, "positions": positions,
            "greedy_agreement": (agree / positions) if positions else None,
            "greedy_clear_disagreements": clear_misses, "finite": finite}


def explain(what: str, figures: dict[str, Any]) -> str:
    """Why ``what`` (e.g. "The Paddle Inference model") failed the check, in words that tell a
    conversion error from rounding."""
    if "shape_mismatch" in figures:
        want, got = figures["shape_mismatch"]
        return (f"{what} returns outputs of shape {got} where the trained model returns {want}: the graph was "
                "traced wrongly.")
    if not figures.get("finite", True):
        return (f"{what} returns NaN or infinite values where the trained model's are finite: an operator "
                "converts incorrectly.")
    rel, bound = figures["relative_diff"], figures["bound"]
    parts = [f"{what} differs from the trained model by up to {figures['max_abs_diff']:.3g} on outputs of scale "
             f"{figures['scale']:.3g}, a relative difference of {rel:.2g}"]
    if rel > bound:
        parts.append(f"{rel / bound:.0f} times the {bound:.2g} that fp32 rounding explains for this model's size")
    if figures.get("greedy_clear_disagreements"):
        parts.append(f"and it picks another most likely token at {figures['greedy_clear_disagreements']} of "
                     f"{figures['positions']} positions where the trained model's choice is clear")
    return (", ".join(parts) + ". This is not rounding: an operator of the exported graph computes something "
            "else than the trained model (report it with the model family and the Paddle version).")


def error_figures(figures: dict[str, Any]) -> dict[str, Any]:
    """What :func:`explain` says, as the figures of the error's fields (the window words them
    itself): the shapes, a value that is not finite, or the differences, rounded as there."""
    if "shape_mismatch" in figures:
        want, got = figures["shape_mismatch"]
        return {"want": str(list(want)), "got": str(list(got))}
    if not figures.get("finite", True):
        return {"finite": False}
    rel, bound = figures["relative_diff"], figures["bound"]
    out: dict[str, Any] = {"difference": f"{figures['max_abs_diff']:.3g}", "scale": f"{figures['scale']:.3g}",
                           "relative": f"{rel:.2g}"}
    if rel > bound:
        out.update(times=f"{rel / bound:.0f}", rounding=f"{bound:.2g}")
    if figures.get("greedy_clear_disagreements"):
        out.update(tokens=int(figures["greedy_clear_disagreements"]), positions=int(figures["positions"]))
    return out


def summary(figures: dict[str, Any]) -> dict[str, Any]:
    """The figures as bundle.json keeps them (rounded, JSON-safe)."""
    out = {}
    for k, v in figures.items():
        if isinstance(v, float):
            out[k] = v if not math.isfinite(v) or v == 0 else float(f"{v:.4g}")
        else:
            out[k] = v
    return out
