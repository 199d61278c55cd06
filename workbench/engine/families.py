"""The model families Workbench fine-tunes, told apart from a config, and what every model module
shares: the CPU-safe config flags, the built-in chat template and the load error.

The bottom of the engine: it imports no other engine module (paddle only where a class is
asked for), so the built-in classifier, the decoder head and the loaders can all use it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.core.errors import WorkbenchError

FAMILIES = ("ernie4_5", "qwen2", "qwen3", "llama", "gemma3")


CLASSIFIER_FAMILY = "char_classifier"  # the built-in text classifier (engine/models/char_classifier.py)
# the model_type of the built-in classifier's config and of a head on a pretrained decoder
# (engine/models/decoder_head.py)
CLASSIFIER_MODEL_TYPE = "workbench_char_classifier"
HEAD_MODEL_TYPE = "workbench_decoder_classifier"


# model_type / architecture -> family
MODEL_TYPES = {
    "ernie4_5": "ernie4_5",
    "qwen2": "qwen2",
    "qwen3": "qwen3",
    "llama": "llama",
    "gemma3_text": "gemma3",
}


ARCHITECTURES = {
    "Ernie4_5ForCausalLM": "ernie4_5",
    "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3",
    "LlamaForCausalLM": "llama",
    "Gemma3ForCausalLM": "gemma3",
}


# Fused kernels that are not registered on CPU (or need a GPU build); forced off there.
CPU_SAFE_FLAGS: dict[str, Any] = {
    "fuse_rms_norm": False,
    "use_fused_linear_cross_entropy": False,
    "use_fused_head_and_loss_fn": False,
    "apply_rope_fusion": False,
    "fuse_swiglu": False,
    "use_flash_attention": False,
}


BUILTIN_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] }}"
    "{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}"
    "{{ '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}"
)


class ModelLoadError(WorkbenchError):
    """A model or tokenizer cannot be loaded; the message says why and what to do."""


# ----- families and configs ---------------------------------------------------------


def model_family(config: Any) -> str:
    """The family ("ernie4_5", "qwen2", "qwen3", "llama" or "gemma3") of a config.

    ``config`` is a mapping (config.json contents), a config object, or a model folder.
    """
    if isinstance(config, (str, os.PathLike)):
        config = read_config(config)
    if isinstance(config, Mapping):
        model_type = config.get("model_type")
        architectures = config.get("architectures") or []
    else:
        model_type = getattr(config, "model_type", None)
        architectures = getattr(config, "architectures", None) or []
    if model_type == CLASSIFIER_MODEL_TYPE:
        return CLASSIFIER_FAMILY
    if model_type == HEAD_MODEL_TYPE:  # a head on a pretrained decoder: the decoder's family
        family = (config.get("decoder_family") if isinstance(config, Mapping)
                  else getattr(config, "decoder_family", None))
        if family in FAMILIES:
            return family
    if model_type in MODEL_TYPES:
        return MODEL_TYPES[model_type]
    for arch in architectures:
        if arch in ARCHITECTURES:
            return ARCHITECTURES[arch]
    shown = model_type or (architectures[0] if architectures else "unknown")
    raise ModelLoadError(
        f"Model type '{shown}' is not supported. Workbench fine-tunes ERNIE 4.5, Qwen2, Qwen3, Llama and "
        "Gemma 3 models (dense, text only). Choose a model of one of these families.",
        code="model_type_unsupported", model_type=str(shown),
    )


def read_config(folder: str | os.PathLike) -> dict:
    folder = Path(folder)
    path = folder / "config.json"
    if not path.is_file():
        raise ModelLoadError(
            f"The folder {folder} has no config.json, so it is not a model folder. Choose the folder "
            "that holds config.json, the tokenizer files and the *.safetensors weights.",
            code="model_without_config", path=str(folder),
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path} cannot be read as JSON ({exc}). The model folder looks damaged; "
                             "copy it again.", code="model_damaged", path=str(path)) from None
    if not isinstance(data, dict):
        raise ModelLoadError(f"{path} does not hold a JSON object. The model folder looks damaged; copy it again.",
                             code="model_damaged", path=str(path))
    return data


def causal_lm_class(family: str):
    """PaddleFormers' causal-LM class of a family."""
    from paddleformers.transformers import (
        Ernie4_5ForCausalLM,
        Gemma3ForCausalLM,
        LlamaForCausalLM,
        Qwen2ForCausalLM,
        Qwen3ForCausalLM,
    )

    return {
        "ernie4_5": Ernie4_5ForCausalLM,
        "qwen2": Qwen2ForCausalLM,
        "qwen3": Qwen3ForCausalLM,
        "llama": LlamaForCausalLM,
        "gemma3": Gemma3ForCausalLM,
    }[family]
