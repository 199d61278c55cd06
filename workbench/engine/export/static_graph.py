"""Paddle's static graph, as the exports use it: trace a layer and save it, load it into the
Paddle Inference predictor, run it, and compare its outputs with the eager model's.

Shared by the bundle export (export.py) and the cached generation model
(export_generation.py), which both build on it; neither imports the other's internals.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.errors import WorkbenchError


class ExportError(WorkbenchError):
    """The export cannot produce a verified bundle; the message says which check failed."""


def ignore_config_module() -> None:
    """dy2static recurses into the config class's ``__getattribute__``; keep it out."""
    import paddle

    paddle.jit.ignore_module([importlib.import_module("paddleformers.transformers.configuration_utils")])


class ExportFriendlyOps:
    """While tracing, ``x.repeat_interleave(n, axis=-1)`` with a constant ``n`` (ERNIE 4.5's
    interleaved rotary embedding) is written as unsqueeze + expand + reshape, which is the
    same data movement: paddle2onnx 2.1.0 cannot convert ``pd_op.repeat_interleave`` with
    these shapes. The parity checks compare the result with the eager model anyway."""

    def __enter__(self):
        import paddle

        self.saved = []
        owners = [paddle.Tensor]
        value_cls = getattr(getattr(paddle, "pir", None), "Value", None)
        if value_cls is not None:
            owners.append(value_cls)
        for owner in owners:
            original = getattr(owner, "repeat_interleave", None)
            if original is None:
                continue
            self.saved.append((owner, original))
            setattr(owner, "repeat_interleave", self._wrap(original))
        return self

    @staticmethod
    def _wrap(original):
        import paddle

        def repeat_interleave(x, repeats, axis=None, name=None, *args, **kwargs):
            ndim = len(x.shape)
            if isinstance(repeats, int) and axis is not None and not args and not kwargs and ndim >= 1 \
                    and axis % ndim == ndim - 1:
                shape = [-1] * (ndim + 1)
                shape[-1] = repeats
                y = paddle.expand(x.unsqueeze(-1), shape)
                return paddle.reshape(y, [0] * (ndim - 1) + [-1])
            return original(x, repeats, axis, name, *args, **kwargs)

        return repeat_interleave

    def __exit__(self, *exc):
        for owner, original in self.saved:
            setattr(owner, "repeat_interleave", original)
        return False


def save_static(layer, prefix: Path, input_names: Sequence[str]) -> Path:
    import paddle
    from paddle.static import InputSpec

    ignore_config_module()
    layer.eval()
    spec = [InputSpec([None, None], "int64", name) for name in input_names]
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with ExportFriendlyOps():
        static = paddle.jit.to_static(layer, input_spec=spec, full_graph=True)
        paddle.jit.save(static, str(prefix))
    if not (prefix.with_suffix(".json").is_file() and prefix.with_suffix(".pdiparams").is_file()):
        raise ExportError(f"paddle.jit.save did not write {prefix}.json and {prefix}.pdiparams.",
                          code="static_model_not_written", path=str(prefix))
    return prefix


def create_predictor(prefix: Path, *, onednn: bool, threads: int | None = None):
    from paddle import inference

    config = inference.Config(str(prefix) + ".json", str(prefix) + ".pdiparams")
    config.disable_gpu()
    if onednn:
        config.enable_onednn()
    else:
        config.disable_onednn()
    config.set_cpu_math_library_num_threads(int(threads or os.cpu_count() or 1))
    config.disable_glog_info()
    return inference.create_predictor(config)


def run_predictor(predictor, arrays: Sequence[Any]):
    import numpy as np

    for name, array in zip(predictor.get_input_names(), arrays):
        handle = predictor.get_input_handle(name)
        handle.reshape(list(array.shape))
        handle.copy_from_cpu(np.ascontiguousarray(array))
    predictor.run()
    return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()


def run_eager(layer, arrays: Sequence[Any]):
    import paddle

    with paddle.no_grad():
        return layer(*[paddle.to_tensor(a) for a in arrays]).numpy()


def max_abs_diff(a_batches, b_batches) -> float:
    import numpy as np

    worst = 0.0
    for a, b in zip(a_batches, b_batches):
        if a.shape != b.shape:
            raise ExportError(f"The exported model returned shape {list(b.shape)} where the trained model "
                              f"returns {list(a.shape)}.", code="export_shape_differs", got=str(list(b.shape)),
                              want=str(list(a.shape)))
        d = float(np.max(np.abs(a.astype("float64") - b.astype("float64")))) if a.size else 0.0
        if not math.isfinite(d):
            return float("inf")
        worst = max(worst, d)
    return worst
