"""Tensor names and value transforms between GGUF files and Hugging Face model folders.

One table per family, read both ways, with exactly the names llama.cpp's converter writes.
Values differ in two places: Gemma stores every RMSNorm weight as ``1 + w`` (its norms
multiply by ``1 + weight``), and llama.cpp permutes llama's q/k rows from Hugging Face's
rotate-half rope layout to interleaved pairs. Qwen2, Qwen3 and Gemma 3 use the same rope
layout on both sides, so their q/k rows are left as they are.

A name here is a full tensor name with its ``.weight``/``.bias`` suffix, for example
``blk.3.attn_q.weight`` <-> ``model.layers.3.self_attn.q_proj.weight``.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

FAMILIES = ("llama", "qwen2", "qwen3", "gemma3")

# GGUF general.architecture -> family; the families are named after the architectures.
ARCH_TO_FAMILY = {"llama": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "gemma3": "gemma3"}
FAMILY_TO_ARCH = {family: arch for arch, family in ARCH_TO_FAMILY.items()}

# Hugging Face model_type and architecture class for each family's config.json.
MODEL_TYPES = {"llama": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "gemma3": "gemma3_text"}
ARCHITECTURES = {
    "llama": "LlamaForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "gemma3": "Gemma3ForCausalLM",
}

_GLOBAL = {
    "token_embd": "model.embed_tokens",
    "output_norm": "model.norm",
    "output": "lm_head",
}

_BLOCK_COMMON = {
    "attn_norm": "input_layernorm",
    "attn_q": "self_attn.q_proj",
    "attn_k": "self_attn.k_proj",
    "attn_v": "self_attn.v_proj",
    "attn_output": "self_attn.o_proj",
    "ffn_gate": "mlp.gate_proj",
    "ffn_up": "mlp.up_proj",
    "ffn_down": "mlp.down_proj",
}

# Per family: block tensor stem -> HF module path, and which suffixes each may carry.
_BLOCK: dict[str, dict[str, str]] = {
    "llama": {**_BLOCK_COMMON, "ffn_norm": "post_attention_layernorm"},
    "qwen2": {**_BLOCK_COMMON, "ffn_norm": "post_attention_layernorm"},
    "qwen3": {
        **_BLOCK_COMMON,
        "ffn_norm": "post_attention_layernorm",
        "attn_q_norm": "self_attn.q_norm",
        "attn_k_norm": "self_attn.k_norm",
    },
    "gemma3": {
        **_BLOCK_COMMON,
        "attn_q_norm": "self_attn.q_norm",
        "attn_k_norm": "self_attn.k_norm",
        # Gemma 3 has four norms per block: around attention and around the MLP.
        "post_attention_norm": "post_attention_layernorm",
        "ffn_norm": "pre_feedforward_layernorm",
        "post_ffw_norm": "post_feedforward_layernorm",
    },
}

# Qwen2 is the one family whose q/k/v projections have biases.
_BIASED = {"qwen2": {"attn_q", "attn_k", "attn_v"}}

_GGUF_BLOCK = re.compile(r"^blk\.(\d+)\.(\w+)\.(weight|bias)$")
_GGUF_GLOBAL = re.compile(r"^(\w+)\.(weight|bias)$")
_HF_BLOCK = re.compile(r"^model\.layers\.(\d+)\.([\w.]+)\.(weight|bias)$")
_HF_GLOBAL = re.compile(r"^([\w.]+)\.(weight|bias)$")


def _check_family(family: str) -> None:
    if family not in _BLOCK:
        raise ValueError(f"unknown GGUF family {family!r}; expected one of {FAMILIES}")


def _suffix_allowed(family: str, stem: str, suffix: str) -> bool:
    return suffix == "weight" or stem in _BIASED.get(family, ())


def gguf_to_hf(family: str, gguf_name: str) -> str:
    """The Hugging Face name of a GGUF tensor; KeyError for a tensor the family does not have."""
    _check_family(family)
    m = _GGUF_BLOCK.match(gguf_name)
    if m:
        layer, stem, suffix = m.groups()
        hf = _BLOCK[family].get(stem)
        if hf is not None and _suffix_allowed(family, stem, suffix):
            return f"model.layers.{layer}.{hf}.{suffix}"
    else:
        m = _GGUF_GLOBAL.match(gguf_name)
        if m and m.group(1) in _GLOBAL and m.group(2) == "weight":
            return f"{_GLOBAL[m.group(1)]}.weight"
    raise KeyError(f"{family} has no tensor named {gguf_name!r}")


_HF_TO_GGUF_BLOCK = {family: {hf: stem for stem, hf in table.items()} for family, table in _BLOCK.items()}
_HF_TO_GGUF_GLOBAL = {hf: stem for stem, hf in _GLOBAL.items()}


def hf_to_gguf(family: str, hf_name: str) -> str:
    """The GGUF name of a Hugging Face tensor; KeyError for a tensor the family does not have."""
    _check_family(family)
    m = _HF_BLOCK.match(hf_name)
    if m:
        layer, module, suffix = m.groups()
        stem = _HF_TO_GGUF_BLOCK[family].get(module)
        if stem is not None and _suffix_allowed(family, stem, suffix):
            return f"blk.{layer}.{stem}.{suffix}"
    else:
        m = _HF_GLOBAL.match(hf_name)
        if m and m.group(1) in _HF_TO_GGUF_GLOBAL and m.group(2) == "weight":
            return f"{_HF_TO_GGUF_GLOBAL[m.group(1)]}.weight"
    raise KeyError(f"{family} has no tensor named {hf_name!r}")


def is_norm(hf_name: str) -> bool:
    """Whether an HF tensor is an RMSNorm weight (every norm of these families ends in 'norm')."""
    return hf_name.endswith("norm.weight")


# ----- value transforms -----------------------------------------------------------------


def _heads(config: Mapping[str, Any] | Any, key: str) -> int:
    value = config.get(key) if isinstance(config, Mapping) else getattr(config, key, None)
    if not value:
        raise ValueError(f"the config needs {key} to reorder llama's q/k weights")
    return int(value)


def _rope_rows(hf_name: str, config: Mapping[str, Any] | Any) -> int | None:
    """Number of heads whose rows llama.cpp permutes in this tensor (None: not permuted)."""
    if hf_name.endswith("self_attn.q_proj.weight") or hf_name.endswith("self_attn.q_proj.bias"):
        return _heads(config, "num_attention_heads")
    if hf_name.endswith("self_attn.k_proj.weight") or hf_name.endswith("self_attn.k_proj.bias"):
        if isinstance(config, Mapping):
            kv = config.get("num_key_value_heads")
        else:
            kv = getattr(config, "num_key_value_heads", None)
        return int(kv) if kv else _heads(config, "num_attention_heads")
    return None


def _permute(w: np.ndarray, n_head: int) -> np.ndarray:
    # Rotate-half (HF) -> interleaved pairs (GGUF), per head: row order [0, h, 1, h+1, ...].
    rows = w.shape[0]
    return w.reshape(n_head, 2, rows // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _unpermute(w: np.ndarray, n_head: int) -> np.ndarray:
    rows = w.shape[0]
    return w.reshape(n_head, rows // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def to_hf_tensor(family: str, hf_name: str, array: np.ndarray, config: Mapping[str, Any] | Any) -> np.ndarray:
    """A GGUF tensor's values (dequantized, already named ``hf_name``) as the HF model holds them.

    ``config`` is the HF config (dict or object) with num_attention_heads/num_key_value_heads.
    """
    _check_family(family)
    if family == "gemma3" and is_norm(hf_name):
        return array - np.asarray(1.0, dtype=array.dtype)
    if family == "llama":
        n_head = _rope_rows(hf_name, config)
        if n_head is not None:
            return _unpermute(array, n_head)
    return array


def to_gguf_tensor(family: str, hf_name: str, array: np.ndarray, config: Mapping[str, Any] | Any) -> np.ndarray:
    """An HF tensor's values as llama.cpp stores them in a GGUF file (inverse of to_hf_tensor)."""
    _check_family(family)
    if family == "gemma3" and is_norm(hf_name):
        return array + np.asarray(1.0, dtype=array.dtype)
    if family == "llama":
        n_head = _rope_rows(hf_name, config)
        if n_head is not None:
            return _permute(array, n_head)
    return array


# Gemma 3 facts that GGUF metadata leaves implicit; the reader (config.json) and the
# reference forward pass both read them here.
def gemma3_query_scale(hidden: int, heads: int, head_dim: int, layers: int) -> float:
    """Gemma 3's query_pre_attn_scalar: the head size, except the 27B model's hidden / heads
    (which GGUF does not store; llama.cpp knows the 27B model by its 62 layers)."""
    return float(hidden // heads) if layers == 62 else float(head_dim)


def gemma3_layer_types(meta: dict[str, Any], layers: int) -> list[str]:
    """Which Gemma 3 layers attend globally: every 6th unless the file says otherwise."""
    pattern = meta.get("gemma3.attention.sliding_window_pattern")
    if isinstance(pattern, list) and len(pattern) == layers:  # one bool per layer: sliding or not
        return ["sliding_attention" if p else "full_attention" for p in pattern]
    period = int(pattern) if isinstance(pattern, int) and pattern > 0 else 6
    return ["full_attention" if (i + 1) % period == 0 else "sliding_attention" for i in range(layers)]
