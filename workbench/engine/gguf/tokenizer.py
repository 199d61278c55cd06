"""The tokenizer a GGUF file carries, as tokenizer.json + tokenizer_config.json.

GGUF files hold the vocabulary itself, of one of two kinds (tokenizer.ggml.model):
- "llama": SentencePiece BPE (Llama 2, Gemma): pieces with scores and types, bytes as
  <0xNN> pieces for byte fallback, no merge list. SentencePiece merges the adjacent pair
  whose joined piece scores highest, so ranking every (left, right) split of a piece by
  that piece's score gives a merge list with which a plain BPE reproduces it.
- "gpt2": byte-level BPE (Qwen, Llama 3, SmolLM2) with its merge list; the text is split by
  the pre-tokenizer regex that tokenizer.ggml.pre names before the merges apply.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.engine.families import ModelLoadError

# tokenizer.ggml.token_type values (llama.cpp's llama_token_type)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6

# Pre-tokenizer regexes by tokenizer.ggml.pre, as the models' own tokenizer.json files split.
_QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
_LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+")
_SPLITS = {"qwen2": _QWEN2_SPLIT, "qwen35": _QWEN2_SPLIT, "deepseek-r1-qwen": _QWEN2_SPLIT,
           "llama-bpe": _LLAMA3_SPLIT, "llama3": _LLAMA3_SPLIT, "smaug-bpe": _LLAMA3_SPLIT}
_DIGIT_SPLIT = {"smollm"}  # GPT-2's split, each digit a token of its own

# The class tokenizer_config.json names, by (family, vocabulary kind); any other pair loads as
# PreTrainedTokenizerFast (PaddleFormers' Llama tokenizer would want a tokenizer.model file).
_TOKENIZER_CLASSES = {("gemma3", "llama"): "GemmaTokenizerFast", ("qwen2", "gpt2"): "Qwen2TokenizerFast",
                      ("qwen3", "gpt2"): "Qwen2TokenizerFast"}


def _token(tokens: list[str], meta: dict[str, Any], key: str) -> str | None:
    value = meta.get(f"tokenizer.ggml.{key}")
    if value is None or not 0 <= int(value) < len(tokens):
        return None
    return tokens[int(value)]


def _space_run(piece: str) -> bool:
    return bool(piece) and not piece.strip(" ")


def _spm_merges(vocab: dict[str, int], pieces: list[str], scores: list[float], types: list[int]) -> list[tuple[str, str]]:
    """Merges for a SentencePiece BPE vocabulary: every split of a normal piece into two normal
    pieces, highest-scoring joined piece first (ties: lower ids first)."""
    normal = {p for p, t in zip(pieces, types, strict=True) if t == NORMAL}
    ranked: list[tuple[float, int, int, str, str]] = []
    for pid, (piece, kind) in enumerate(zip(pieces, types, strict=True)):
        if kind != NORMAL or len(piece) < 2:
            continue
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if left in normal and right in normal:
                ranked.append((-scores[pid], pid, vocab[left], left, right))
    ranked.sort(key=lambda r: r[:3])
    return [(left, right) for *_, left, right in ranked]


def _added_tokens(pieces: list[str], types: list[int]):
    """Control pieces as special tokens; user-defined pieces matched whole before the merges, as
    SentencePiece does (whitespace runs in the normalized text, where spaces are already "▁")."""
    from tokenizers import AddedToken

    added = []
    for piece, kind in zip(pieces, types, strict=True):
        if kind in (CONTROL, UNKNOWN):
            added.append(AddedToken(piece, special=True, normalized=False))
        elif kind == USER_DEFINED:
            added.append(AddedToken(piece, special=False, normalized=bool(piece) and not piece.strip("▁")))
    return added


def build_spm(meta: dict[str, Any]):
    """A tokenizers.Tokenizer for a SentencePiece-BPE GGUF vocabulary (tokenizer.ggml.model "llama")."""
    from tokenizers import Tokenizer, decoders, normalizers
    from tokenizers.models import BPE

    tokens = list(meta["tokenizer.ggml.tokens"])
    scores = [float(s) for s in meta.get("tokenizer.ggml.scores") or [0.0] * len(tokens)]
    types = [int(t) for t in meta.get("tokenizer.ggml.token_type") or [NORMAL] * len(tokens)]
    # llama.cpp writes SentencePiece's whitespace pieces ("▁▁") with plain spaces; the normalized
    # text has "▁" there, so the pieces get it back.
    pieces = ["▁" * len(p) if _space_run(p) else p for p in tokens]
    vocab: dict[str, int] = {}
    for i, piece in enumerate(pieces):
        vocab.setdefault(piece, i)
    unk = _token(pieces, meta, "unknown_token_id")
    model = BPE(vocab, _spm_merges(vocab, pieces, scores, types), unk_token=unk, fuse_unk=True,
                byte_fallback=True)
    tok = Tokenizer(model)
    add_prefix = bool(meta.get("tokenizer.ggml.add_space_prefix", True))
    steps = [normalizers.Prepend("▁")] if add_prefix else []
    tok.normalizer = normalizers.Sequence([*steps, normalizers.Replace(" ", "▁")])
    dec = [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()]
    if add_prefix:
        dec.append(decoders.Strip(" ", 1, 0))
    tok.decoder = decoders.Sequence(dec)
    tok.add_tokens(_added_tokens(pieces, types))
    return tok


def build_bpe(meta: dict[str, Any]):
    """A tokenizers.Tokenizer for a byte-level BPE GGUF vocabulary (tokenizer.ggml.model "gpt2")."""
    from tokenizers import Regex, Tokenizer, decoders, pre_tokenizers
    from tokenizers.models import BPE

    tokens = list(meta["tokenizer.ggml.tokens"])
    types = [int(t) for t in meta.get("tokenizer.ggml.token_type") or [NORMAL] * len(tokens)]
    merges_raw = meta.get("tokenizer.ggml.merges")
    if not merges_raw:
        raise ModelLoadError("The GGUF file's byte-level vocabulary has no merge list (tokenizer.ggml.merges); "
                             "its tokenizer cannot be rebuilt. Use another copy of the file.",
                             code="gguf_without_merges")
    merges = [tuple(m.split(" ", 1)) for m in merges_raw]
    vocab: dict[str, int] = {}
    for i, piece in enumerate(tokens):
        vocab.setdefault(piece, i)
    tok = Tokenizer(BPE(vocab, merges, fuse_unk=False, byte_fallback=False))
    pre = meta.get("tokenizer.ggml.pre", "default")
    if pre in _SPLITS:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(_SPLITS[pre]), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    elif pre in _DIGIT_SPLIT:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
        ])
    else:  # "gpt2", "default" and the pre-tokenizers not listed: GPT-2's own split
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.add_tokens(_added_tokens(tokens, types))
    return tok


def _post_processor(tok, bos: str | None, eos: str | None, add_bos: bool, add_eos: bool):
    from tokenizers import processors

    single = ([f"{bos}:0"] if add_bos and bos else []) + ["$A:0"] + ([f"{eos}:0"] if add_eos and eos else [])
    pair = single + [s.replace(":0", ":1").replace("$A", "$B") for s in single]
    specials = [(t, tok.token_to_id(t)) for t in {bos if add_bos else None, eos if add_eos else None} if t]
    return processors.TemplateProcessing(single=" ".join(single), pair=" ".join(pair), special_tokens=specials)


def build_tokenizer(meta: dict[str, Any], *, model_max_length: int = 2048) -> tuple[Any, dict[str, Any]]:
    """The tokenizers.Tokenizer and the tokenizer_config.json contents for a GGUF file's metadata."""
    from workbench.engine.gguf.names import ARCH_TO_FAMILY

    kind = meta.get("tokenizer.ggml.model")
    if kind == "llama":
        tok = build_spm(meta)
    elif kind == "gpt2":
        tok = build_bpe(meta)
    else:
        raise ModelLoadError(f"The GGUF file's tokenizer is of the '{kind}' kind; Workbench rebuilds SentencePiece "
                             "('llama') and byte-level BPE ('gpt2') tokenizers. Use a model with one of them.",
                             code="gguf_tokenizer_unsupported", kind=str(kind))
    def special(key: str) -> str | None:
        value = meta.get(f"tokenizer.ggml.{key}")
        return tok.id_to_token(int(value)) if value is not None else None

    bos, eos, unk, pad = special("bos_token_id"), special("eos_token_id"), special("unknown_token_id"), \
        special("padding_token_id")
    family = ARCH_TO_FAMILY.get(meta.get("general.architecture"), "")
    add_bos = bool(meta.get("tokenizer.ggml.add_bos_token", kind == "llama"))
    add_eos = bool(meta.get("tokenizer.ggml.add_eos_token", False))
    tok.post_processor = _post_processor(tok, bos, eos, add_bos, add_eos)
    config: dict[str, Any] = {
        "tokenizer_class": _TOKENIZER_CLASSES.get((family, kind), "PreTrainedTokenizerFast"),
        "bos_token": bos, "eos_token": eos, "unk_token": unk, "pad_token": pad,
        "add_bos_token": add_bos, "add_eos_token": add_eos,
        "model_max_length": int(model_max_length),
        "clean_up_tokenization_spaces": False,
    }
    if kind == "llama":
        config["legacy"] = False
        config["add_prefix_space"] = bool(meta.get("tokenizer.ggml.add_space_prefix", True))
    template = meta.get("tokenizer.chat_template")
    if template:
        config["chat_template"] = template
    return tok, {k: v for k, v in config.items() if v is not None}


def write_tokenizer(meta: dict[str, Any], folder: str | Path, *, model_max_length: int = 2048) -> None:
    """Write tokenizer.json, tokenizer_config.json and special_tokens_map.json into ``folder``."""
    folder = Path(folder)
    tok, config = build_tokenizer(meta, model_max_length=model_max_length)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps(config, ensure_ascii=False, indent=2) + "\n",
                                                  encoding="utf-8")
    specials = {k: config[k] for k in ("bos_token", "eos_token", "unk_token", "pad_token") if k in config}
    (folder / "special_tokens_map.json").write_text(json.dumps(specials, ensure_ascii=False, indent=2) + "\n",
                                                    encoding="utf-8")
