"""LoRA adapters (PaddleFormers peft): the target modules of each family, attaching, merging,
saving and loading them."""

from __future__ import annotations

import os
from pathlib import Path

from workbench.engine.families import CLASSIFIER_FAMILY, FAMILIES
from workbench.engine.models import decoder_head


def lora_target_modules(family: str) -> list[str]:
    """Default LoRA targets for a family: the attention projections q/k/v/o.

    PaddleFormers matches each entry as a regular expression against the full sub-layer
    name (``re.fullmatch``), so the entries are patterns. All five families use separate
    ``q_proj``/``k_proj``/``v_proj``/``o_proj`` linears in PaddleFormers 1.0.0 (also
    ERNIE 4.5, unless a config sets ``fuse_attention_qkv``, in which case
    :func:`apply_lora` targets ``qkv_proj`` instead).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; expected one of {FAMILIES}")
    return [r".*\.q_proj", r".*\.k_proj", r".*\.v_proj", r".*\.o_proj"]


# ----- LoRA -----------------------------------------------------------------------------------


def _linear_names(model) -> list[str]:
    import paddle.nn as nn

    return [name for name, layer in model.named_sublayers() if isinstance(layer, nn.Linear)]


def apply_lora(model, family: str, r: int = 8, alpha: float = 16, dropout: float = 0.05,
               target_modules: list[str] | None = None):
    """Wrap ``model`` with LoRA adapters (PaddleFormers peft); only the adapters train.

    ``target_modules`` are regular expressions over sub-layer names (``re.fullmatch``);
    by default :func:`lora_target_modules`. Raises ``ValueError`` if a pattern matches no
    linear layer.
    """
    import re

    from paddleformers.peft import LoRAConfig, LoRAModel

    if family == CLASSIFIER_FAMILY:
        raise ValueError("the built-in classifier is trained in full, not with LoRA")
    names = _linear_names(model)
    targets = list(target_modules) if target_modules else lora_target_modules(family)
    if target_modules is None and any(n.endswith(".qkv_proj") for n in names):
        targets = [r".*\.qkv_proj", r".*\.o_proj"]
    unmatched = [t for t in targets if not any(re.fullmatch(t, n) for n in names)]
    if unmatched:
        raise ValueError(f"LoRA target(s) {unmatched} match no linear layer of this model")
    config = LoRAConfig(
        target_modules=targets, r=int(r), lora_alpha=alpha, lora_dropout=float(dropout),
        # a classification head on the decoder trains in full beside the adapters, and is saved with them
        trainable_modules=list(decoder_head.HEAD_PATTERNS) if decoder_head.is_head(model) else None,
        dtype=param_dtype(model),
        base_model_name_or_path=getattr(model.config, "_name_or_path", None),
    )
    lora_model = LoRAModel(model, config)
    lora_model.mark_only_lora_as_trainable()
    return lora_model


def is_lora(model) -> bool:
    from paddleformers.peft import LoRAModel

    return isinstance(model, LoRAModel)


def merge_lora(model):
    """Fold the LoRA adapters into the base weights; returns the plain base model."""
    if not is_lora(model):
        return model
    model.merge()
    base = model.restore_original_model()
    for p in base.parameters():
        p.stop_gradient = False
    return base


def save_lora_adapter(model, out_dir: str | os.PathLike) -> Path:
    """Save only the LoRA adapter (lora_config.json + safetensors) to ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    return out


def load_lora_adapter(model, adapter_dir: str | os.PathLike):
    """Wrap ``model`` with a LoRA adapter saved by :func:`save_lora_adapter`."""
    from paddleformers.peft import LoRAModel

    return LoRAModel.from_pretrained(model, str(adapter_dir))


def param_dtype(model) -> str:
    for p in model.parameters():
        if p.dtype.name.lower() not in ("int8", "uint8"):  # quantised weights are int8
            return str(p.dtype).replace("paddle.", "")
    return "float32"
