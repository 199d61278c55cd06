"""The exported generation model of an instruction task: one decoding step with the
key/value cache, so that each new token costs one position, not the whole sequence.

    forward(input_ids [B, T], attention_mask [B, P+T], position_ids [B, T],
            past_keys [L, B, H, P, D], past_values [L, B, H, P, D])
        -> (logits of the last position [B, V] float32, keys [L, B, H, P+T, D], values [...])

The prompt goes in as one step with an empty cache (P = 0), then one token per step. The
cache travels as two stacked tensors (layers first) so the graph has a fixed number of
inputs whatever the depth. Inside, PaddleFormers' own ``DynamicCache`` holds them; its
length is read as a tensor (``paddle.shape``), because a traced graph does not know P as
a number. Checked at export on real prompts: along the engine's own greedy answer, the
predictor's logits at every step against the eager model's, and its free-running greedy
tokens against the engine's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

INPUTS = ("input_ids", "attention_mask", "position_ids", "past_keys", "past_values")
CHECK_NEW_TOKENS = 16


class GenerationExportError(RuntimeError):
    pass


def cache_shape(config) -> dict[str, int]:
    """Layers, key/value heads and head size of the model's cache."""
    heads = int(config.num_attention_heads)
    kv_heads = int(getattr(config, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // heads)
    return {"layers": int(config.num_hidden_layers), "kv_heads": kv_heads, "head_dim": head_dim}


def cached_step_layer(model):
    import paddle
    import paddle.nn as nn
    from paddleformers.transformers.cache_utils import DynamicCache, DynamicLayer

    n_layers = cache_shape(model.config)["layers"]

    class TensorCache(DynamicCache):
        """A DynamicCache filled from the graph's input tensors."""

        def __init__(self, keys, values):
            super().__init__()
            self.layers = []
            for k, v in zip(keys, values):
                layer = DynamicLayer()
                layer.keys, layer.values, layer.is_initialized = k, v, True
                layer.dtype, layer.place = k.dtype, None
                self.layers.append(layer)
            self._length = paddle.shape(keys[0])[2]

        def get_seq_length(self, layer_idx=0):
            return self._length

    class CachedStep(nn.Layer):
        def __init__(self, lm):
            super().__init__()
            self.lm = lm

        def forward(self, input_ids, attention_mask, position_ids, past_keys, past_values):
            cache = TensorCache([past_keys[i] for i in range(n_layers)], [past_values[i] for i in range(n_layers)])
            out = self.lm(input_ids, attention_mask=attention_mask, position_ids=position_ids,
                          past_key_values=cache, use_cache=True, return_dict=True)
            layers = out.past_key_values.layers
            return (out.logits[:, -1].astype("float32"), paddle.stack([x.keys for x in layers]),
                    paddle.stack([x.values for x in layers]))

    return CachedStep(model)


def save_generation_model(model, prefix: Path) -> Path:
    import paddle
    from paddle.static import InputSpec

    from workbench.engine.export.static_graph import ExportFriendlyOps, ignore_config_module

    shape = cache_shape(model.config)
    cache = [shape["layers"], None, shape["kv_heads"], None, shape["head_dim"]]
    spec = [InputSpec([None, None], "int64", n) for n in INPUTS[:3]] + \
        [InputSpec(cache, "float32", n) for n in INPUTS[3:]]
    ignore_config_module()
    layer = cached_step_layer(model)
    layer.eval()
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with ExportFriendlyOps():
        paddle.jit.save(paddle.jit.to_static(layer, input_spec=spec, full_graph=True), str(prefix))
    if not (prefix.with_suffix(".json").is_file() and prefix.with_suffix(".pdiparams").is_file()):
        raise GenerationExportError(f"paddle.jit.save did not write {prefix}.json and {prefix}.pdiparams.")
    return prefix


def run_outputs(predictor, arrays) -> list:
    for name, array in zip(predictor.get_input_names(), arrays):
        handle = predictor.get_input_handle(name)
        handle.reshape(list(array.shape))
        handle.copy_from_cpu(np.ascontiguousarray(array))
    predictor.run()
    return [predictor.get_output_handle(n).copy_to_cpu() for n in predictor.get_output_names()]


def step_inputs(new_ids: Sequence[int], total: int, keys, values) -> tuple:
    """The five inputs of one step for a single sequence: ``new_ids`` after ``total - len(new_ids)``
    cached positions."""
    n = len(new_ids)
    return (np.asarray([new_ids], dtype="int64"), np.ones([1, total], dtype="int64"),
            np.arange(total - n, total, dtype="int64")[None], keys, values)


def empty_cache(shape: dict[str, int]):
    z = np.zeros([shape["layers"], 1, shape["kv_heads"], 0, shape["head_dim"]], dtype="float32")
    return z, z.copy()


def greedy(run, prompt_ids: Sequence[int], n_new: int, shape: dict[str, int], stops=()) -> list[int]:
    """Greedy tokens from a step function ``run(arrays) -> (logits, keys, values)``."""
    keys, values = empty_cache(shape)
    ids, new, out = list(prompt_ids), list(prompt_ids), []
    for _ in range(n_new):
        logits, keys, values = run(step_inputs(new, len(ids), keys, values))
        token = int(np.argmax(logits[0]))
        if token in stops:
            break
        out.append(token)
        ids.append(token)
        new = [token]
    return out


def check_generation(prefix: Path, model, prompt_ids: Sequence[Sequence[int]], bound: float,
                     n_new: int = CHECK_NEW_TOKENS) -> dict[str, Any]:
    """Along the engine's greedy answer to each prompt, the predictor's logits against the eager
    step's (engine/export/parity.py: relative to the logits' scale, within ``bound``, the greedy token
    the same wherever the choice is clear); then the predictor's own greedy tokens against the
    engine's, where a first difference must be a near tie of the trained model's. Raises on a
    mismatch, with a message that tells a conversion error from rounding."""
    import paddle

    from workbench.engine.export import parity
    from workbench.engine.export.static_graph import create_predictor
    from workbench.engine.inference.generate import GenerationSettings, stream_ids
    from workbench.engine.models.devices import release_freed_memory

    shape = cache_shape(model.config)
    eager = cached_step_layer(model)
    eager.eval()

    def run_eager(arrays):
        with paddle.no_grad():
            return [t.numpy() for t in eager(*[paddle.to_tensor(a) for a in arrays])]

    predictor = create_predictor(prefix, onednn=False)
    expected, got_steps, along, answers, steps = [], [], [], [], 0
    for ids in prompt_ids:
        want = list(stream_ids(model, ids, GenerationSettings.plain_greedy(n_new)))  # the graphs, not the guard
        ke, ve = kp, vp = empty_cache(shape)
        seq, new, rows = list(ids), list(ids), []
        for token in want:
            a = run_eager(step_inputs(new, len(seq), ke, ve))
            b = run_outputs(predictor, step_inputs(new, len(seq), kp, vp))
            expected.append(a[0])
            got_steps.append(b[0])
            rows.append(a[0][0])
            ke, ve, kp, vp = a[1], a[2], b[1], b[2]
            seq.append(token)
            new = [token]
            steps += 1
        along.append(rows)
        answers.append(want)
    figures = parity.compare(expected, got_steps, bound)
    if not figures["ok"]:
        raise GenerationExportError(parity.explain("The cached generation model", figures))
    same = ties = 0
    for ids, want, rows in zip(prompt_ids, answers, along):
        got = greedy(lambda x, p=predictor: run_outputs(p, x), ids, len(want), shape)
        if got == want:
            same += 1
            continue
        i = next(j for j, (x, y) in enumerate(zip(got, want)) if x != y)
        lead = float(rows[i][want[i]] - rows[i][got[i]])  # the trained model's preference at the fork
        if lead > 2 * figures["allowed_abs_diff"]:
            raise GenerationExportError(
                f"The cached generation model's own greedy answer leaves the trained model's at token {i + 1}, "
                f"where the trained model prefers its token by {lead:.3g} (more than rounding moves the logits: "
                f"{figures['allowed_abs_diff']:.3g}). This is not rounding: the cache is carried wrongly.")
        ties += 1  # a near tie that rounding may tip either way
    # each predictor holds its own copy of the weights (1.07 GB for Gemma 3 270M): one at a time
    del predictor
    release_freed_memory()
    fast = None
    try:  # the same answers with oneDNN, or predict.py runs this graph on the plain CPU kernels
        fast = create_predictor(prefix, onednn=True)
        onednn = all(greedy(lambda x, p=fast: run_outputs(p, x), ids, len(want), shape) == want
                     for ids, want in zip(prompt_ids, answers))
    except Exception:  # Gemma 3's step fails there (see docs/engine-notes.md)
        onednn = False
    finally:
        fast = None  # a failed run kept it, and its weights, alive until the check returned
    release_freed_memory()
    threads = step_threads(prefix, prompt_ids, answers, shape, onednn=onednn)
    return {"status": "ok", **parity.summary(figures), "prompts": len(prompt_ids), "steps": steps,
            "greedy_identical": same, "greedy_near_ties": ties, "new_tokens": n_new, "cache": shape,
            "onednn_ok": onednn, **threads,
            "files": [f"static/{prefix.name}.json", f"static/{prefix.name}.pdiparams"]}


# all the cores only where they generate clearly faster than one thread: threads cost the rest
# of the machine (other requests, serve.py's other workers), and a tie is noise
CORES_MUST_WIN_BY = 0.8


def step_threads(prefix: Path, prompt_ids, answers, shape: dict[str, int], *, onednn: bool,
                 rounds: int = 3) -> dict[str, Any]:
    """``{"threads": None}`` (all cores) when all the cores generate the check answers in under
    ``CORES_MUST_WIN_BY`` of one thread's time, else ``{"threads": 1}``; with both timings (ms,
    each prompt's best of ``rounds``, summed; the two alternate round by round).

    A decoding step is one position: its matrix products are vector products, so a small
    model spends the step in per-operator overhead, which every extra thread's start and
    join adds to (builtin:small, 2 cores, interleaved: 16 new tokens in 87 ms best on one
    thread, 137 on two); a large one (a 262k-word output layer) gains from the cores."""
    import os
    import time

    from workbench.engine.export.static_graph import create_predictor
    from workbench.engine.models.devices import release_freed_memory

    cores = os.cpu_count() or 1
    if cores <= 1 or not prompt_ids:
        return {"threads": None}
    best = {n: [float("inf")] * len(prompt_ids) for n in (1, cores)}
    # one predictor alive at a time: each holds a copy of the weights, and two at once took a
    # Gemma 3 270M export from 3.4 to 5.8 GB; a new predictor each round keeps the two settings
    # alternating, so that a busy machine slows both alike
    for _ in range(rounds):
        for n in best:
            p = create_predictor(prefix, onednn=onednn, threads=n)
            greedy(lambda x, p=p: run_outputs(p, x), prompt_ids[0], 2, shape)  # the first run prepares kernels
            for i, (ids, want) in enumerate(zip(prompt_ids, answers)):
                t = time.perf_counter()
                greedy(lambda x, p=p: run_outputs(p, x), ids, len(want), shape)
                best[n][i] = min(best[n][i], time.perf_counter() - t)
            del p
            release_freed_memory()
    one, every = sum(best[1]), sum(best[cores])
    return {"threads": None if every < CORES_MUST_WIN_BY * one else 1, "ms_one_thread": round(one * 1000, 1),
            f"ms_{cores}_threads": round(every * 1000, 1)}


def onnx_check_inputs(model, prompt_ids: Sequence[int]):
    """One prompt step and one decoding step (with a cache) and the eager logits of each."""
    import paddle

    shape = cache_shape(model.config)
    eager = cached_step_layer(model)
    eager.eval()
    with paddle.no_grad():
        keys, values = empty_cache(shape)
        first = step_inputs(list(prompt_ids), len(prompt_ids), keys, values)
        a = [t.numpy() for t in eager(*[paddle.to_tensor(x) for x in first])]
        token = int(np.argmax(a[0][0]))
        second = step_inputs([token], len(prompt_ids) + 1, a[1], a[2])
        b = [t.numpy() for t in eager(*[paddle.to_tensor(x) for x in second])]
    return [second, first], [b[0], a[0]]
