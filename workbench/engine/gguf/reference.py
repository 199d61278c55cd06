"""A plain numpy forward pass over a GGUF file's own tensors, as llama.cpp computes it.

It reads the GGUF names and values as they are stored (Gemma's norms as 1 + w, llama's
q/k rows in llama.cpp's order with rope over adjacent pairs), so it checks a converted
folder or a written GGUF file independently of the name tables and transforms: a model
loaded from either must give these logits. Slow but simple; meant for tests and checks.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from workbench.engine.gguf.names import ARCH_TO_FAMILY, gemma3_layer_types, gemma3_query_scale


def _rms(x: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def _silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def _rope(x: np.ndarray, base: float, neox: bool, factors: np.ndarray | None = None) -> np.ndarray:
    """Rotate [heads, seq, dim] by position: pairs (i, i + dim/2) for neox, (2i, 2i+1) otherwise;
    ``factors`` (llama.cpp's rope_freqs) divide the frequencies."""
    _, seq, dim = x.shape
    inv = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    if factors is not None:
        inv = inv / factors.reshape(-1).astype(np.float64)
    ang = np.arange(seq, dtype=np.float64)[:, None] * inv[None, :]
    cos, sin = np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)
    if neox:
        a, b = x[..., : dim // 2], x[..., dim // 2:]
        return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2], out[..., 1::2] = a * cos - b * sin, b * cos + a * sin
    return out


def _hparams(meta: dict[str, Any]) -> dict[str, Any]:
    arch = meta["general.architecture"]
    family = ARCH_TO_FAMILY.get(arch)
    if family is None:
        raise ValueError(f"no reference forward pass for the {arch!r} architecture")

    def get(key, default=None):
        return meta.get(f"{arch}.{key}", default)

    hidden, heads = int(get("embedding_length")), int(get("attention.head_count"))
    layers = int(get("block_count"))
    head_dim = int(get("attention.key_length", hidden // heads))
    hp = dict(family=family, hidden=hidden, heads=heads, kv_heads=int(get("attention.head_count_kv", heads)),
              head_dim=head_dim, layers=layers, eps=float(get("attention.layer_norm_rms_epsilon", 1e-6)),
              base=float(get("rope.freq_base", 10000.0)), scale=1.0 / math.sqrt(head_dim),
              final_cap=get("final_logit_softcapping"), attn_cap=get("attn_logit_softcapping"),
              window=None, local_base=None, sliding=[False] * layers)
    if family == "gemma3":
        hp["scale"] = 1.0 / math.sqrt(gemma3_query_scale(hidden, heads, head_dim, layers))
        hp["window"] = int(get("attention.sliding_window", 4096))
        hp["local_base"] = float(get("rope.freq_base_swa", 10000.0))
        hp["sliding"] = [t == "sliding_attention" for t in gemma3_layer_types(meta, layers)]
    return hp


def _attention(x: np.ndarray, t: dict[str, np.ndarray], p: str, hp: dict, layer: int) -> np.ndarray:
    seq = x.shape[0]
    nh, nkv, hd = hp["heads"], hp["kv_heads"], hp["head_dim"]

    def proj(name: str) -> np.ndarray:
        y = x @ t[f"{p}.{name}.weight"].T
        bias = t.get(f"{p}.{name}.bias")
        return y + bias if bias is not None else y

    q = proj("attn_q").reshape(seq, nh, hd).transpose(1, 0, 2)
    k = proj("attn_k").reshape(seq, nkv, hd).transpose(1, 0, 2)
    v = proj("attn_v").reshape(seq, nkv, hd).transpose(1, 0, 2)
    if f"{p}.attn_q_norm.weight" in t:  # qwen3, gemma3: per-head norms before rope
        q = _rms(q, t[f"{p}.attn_q_norm.weight"], hp["eps"])
        k = _rms(k, t[f"{p}.attn_k_norm.weight"], hp["eps"])
    sliding = hp["sliding"][layer]
    base = hp["local_base"] if sliding else hp["base"]
    neox = hp["family"] != "llama"
    factors = None if sliding else t.get("rope_freqs.weight")
    q, k = _rope(q, base, neox, factors), _rope(k, base, neox, factors)
    k = np.repeat(k, nh // nkv, axis=0)
    v = np.repeat(v, nh // nkv, axis=0)
    scores = (q @ k.transpose(0, 2, 1)) * hp["scale"]
    if hp["attn_cap"]:
        scores = np.tanh(scores / hp["attn_cap"]) * hp["attn_cap"]
    i, j = np.arange(seq)[:, None], np.arange(seq)[None, :]
    allowed = j <= i
    if sliding:
        allowed &= (i - j) < hp["window"]
    scores = np.where(allowed, scores, -np.inf)
    scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
    scores /= scores.sum(axis=-1, keepdims=True)
    out = (scores @ v).transpose(1, 0, 2).reshape(seq, nh * hd)
    return out @ t[f"{p}.attn_output.weight"].T


def _hidden(tensors: dict[str, np.ndarray], hp: dict, ids: list[int]) -> np.ndarray:
    t, eps = tensors, hp["eps"]
    x = t["token_embd.weight"][np.asarray(ids)].astype(np.float32)
    gemma = hp["family"] == "gemma3"
    if gemma:
        x = x * np.float32(math.sqrt(hp["hidden"]))
    for layer in range(hp["layers"]):
        p = f"blk.{layer}"
        a = _attention(_rms(x, t[f"{p}.attn_norm.weight"], eps), t, p, hp, layer)
        if gemma:
            a = _rms(a, t[f"{p}.post_attention_norm.weight"], eps)
        x = x + a
        h = _rms(x, t[f"{p}.ffn_norm.weight"], eps)
        act = _gelu_tanh if gemma else _silu
        m = (act(h @ t[f"{p}.ffn_gate.weight"].T) * (h @ t[f"{p}.ffn_up.weight"].T)) @ t[f"{p}.ffn_down.weight"].T
        if gemma:
            m = _rms(m, t[f"{p}.post_ffw_norm.weight"], eps)
        x = x + m
    return _rms(x, t["output_norm.weight"], eps)


def _logits(tensors: dict[str, np.ndarray], hp: dict, h: np.ndarray) -> np.ndarray:
    out = tensors.get("output.weight", tensors["token_embd.weight"])  # no output: tied to the embedding
    logits = out.times_transposed(h) if hasattr(out, "times_transposed") else h @ out.T
    if hp["final_cap"]:
        logits = np.tanh(logits / hp["final_cap"]) * hp["final_cap"]
    return logits


def forward_logits(tensors: dict[str, np.ndarray], meta: dict[str, Any], ids: list[int]) -> np.ndarray:
    """Logits [len(ids), vocab] (float32) of a GGUF model, from its dequantized tensors (GGUF
    names) and its metadata (general.architecture and the {arch}.* keys)."""
    hp = _hparams(meta)
    return _logits(tensors, hp, _hidden(tensors, hp, list(ids))).astype(np.float32)


def greedy_continue(tensors: dict[str, np.ndarray], meta: dict[str, Any], ids: list[int], steps: int) -> list[int]:
    """The ``steps`` tokens greedy decoding appends to ``ids`` (recomputing the whole prefix each step)."""
    hp = _hparams(meta)
    seq = list(ids)
    for _ in range(steps):
        h = _hidden(tensors, hp, seq)
        seq.append(int(np.argmax(_logits(tensors, hp, h[-1:])[0])))
    return seq[len(ids):]


def sentencepiece_reference(meta: dict[str, Any]):
    """The ids SentencePiece itself gives, as a function of the text, over a GGUF file's own pieces,
    scores and types (metadata read with its token arrays); None for byte-level vocabularies.

    The reference for the rebuilt tokenizer.json: llama.cpp's tokenizer for these files is a
    re-implementation of SentencePiece's BPE. Needs the sentencepiece package."""
    if meta.get("tokenizer.ggml.model") != "llama":
        return None
    import sentencepiece as spm
    from sentencepiece import sentencepiece_model_pb2 as pb

    kinds = {1: pb.ModelProto.SentencePiece.NORMAL, 2: pb.ModelProto.SentencePiece.UNKNOWN,
             3: pb.ModelProto.SentencePiece.CONTROL, 4: pb.ModelProto.SentencePiece.USER_DEFINED,
             5: pb.ModelProto.SentencePiece.UNUSED, 6: pb.ModelProto.SentencePiece.BYTE}
    proto = pb.ModelProto()
    spec = proto.trainer_spec
    spec.model_type, spec.byte_fallback = pb.TrainerSpec.BPE, True
    spec.vocab_size = len(meta["tokenizer.ggml.tokens"])
    for key, attr in (("unknown_token_id", "unk_id"), ("bos_token_id", "bos_id"), ("eos_token_id", "eos_id"),
                      ("padding_token_id", "pad_id")):
        setattr(spec, attr, int(meta.get(f"tokenizer.ggml.{key}", -1)))
    norm = proto.normalizer_spec
    norm.name, norm.remove_extra_whitespaces, norm.escape_whitespaces = "identity", False, True
    norm.add_dummy_prefix = bool(meta.get("tokenizer.ggml.add_space_prefix", True))
    for piece, score, kind in zip(meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.scores"],
                                  meta["tokenizer.ggml.token_type"], strict=True):
        entry = proto.pieces.add()
        entry.piece = "▁" * len(piece) if piece and not piece.strip(" ") else piece
        entry.score, entry.type = score, kinds[kind]
    processor = spm.SentencePieceProcessor(model_proto=proto.SerializeToString())
    bos = [int(meta["tokenizer.ggml.bos_token_id"])] if meta.get("tokenizer.ggml.add_bos_token", True) else []
    return lambda text: bos + processor.encode(text)
