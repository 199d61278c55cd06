"""A model folder (config.json, safetensors in the Hugging Face layout, tokenizer files)
written as one GGUF file that llama.cpp and ollama run.

What goes into the file is what llama.cpp's own converter writes for the family: the
tensor names of names.py with their value transforms (Gemma's norms as ``1 + w``, llama's
q/k rows permuted), 1-D tensors and norms in F32 and every matrix in the chosen type
(F32, F16 or Q8_0; a matrix whose rows do not split into Q8_0 blocks of 32 falls back to
F16 as there), the ``{arch}.*`` hyper-parameters, and the tokenizer as ``tokenizer.ggml.*``
(gpt2 byte-level BPE with merges, or llama's SentencePiece-style vocabulary with scores
and token types), its special ids and the chat template.

Tensors are read, converted and written one at a time, so memory stays near the largest
tensor. The file is written beside its final name and renamed into place at the end.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import struct
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.errors import WorkbenchError

from workbench.engine.examples import FALLBACK_CHAT_TEMPLATE

from workbench.engine.gguf import names as gguf_names

Progress = Callable[[str, int, int], None]

DTYPES = ("f16", "q8_0", "f32")
# the Hugging Face model_type of each family's config.json
_MODEL_TYPES = {"llama": "llama", "qwen2": "qwen2", "qwen3": "qwen3", "gemma3_text": "gemma3", "gemma3": "gemma3"}
# llama.cpp's pre-tokenizer names for the split patterns of the byte-level BPE tokenizers it knows
_GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
_PRE_PATTERNS = {
    "qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
             r"|\s+(?!\S)|\s+",
    "llama-bpe": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                 r"|\s*[\r\n]+|\s+(?!\S)|\s+",
}


class GGUFWriteError(WorkbenchError):
    """The model folder cannot be written as a GGUF file; the message says why."""


# ----- reading the folder ----------------------------------------------------------------


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GGUFWriteError(f"{path} could not be read ({type(exc).__name__}: {str(exc)[:200]}); "
                             "export the model folder again.", code="model_file_unreadable", path=str(path),
                             detail=f"{type(exc).__name__}: {str(exc)[:200]}") from None


class _SafetensorsFolder:
    """Every tensor of a folder's ``*.safetensors`` files, read one at a time as float32
    (float32, float16 and bfloat16 files; numpy has no bfloat16, so its bits are widened here)."""

    _DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}

    def __init__(self, folder: Path):
        files = sorted(folder.glob("*.safetensors"))
        if not files:
            raise GGUFWriteError(f"{folder} holds no .safetensors weights; a GGUF file is written from a merged "
                                 "model folder (export with the 'merged' format).", code="gguf_source_without_weights",
                                 path=str(folder))
        self.index: dict[str, tuple[Path, int, str, list[int]]] = {}
        for path in files:
            with open(path, "rb") as fh:
                (n,) = struct.unpack("<Q", fh.read(8))
                header = json.loads(fh.read(n))
            for name, info in header.items():
                if name == "__metadata__":
                    continue
                if info["dtype"] not in self._DTYPES:
                    raise GGUFWriteError(f"The tensor {name} in {path.name} is stored as {info['dtype']}; only "
                                         "float32, float16 and bfloat16 weights can be written to GGUF.",
                                         code="gguf_weight_type_unsupported", tensor=name, file=path.name,
                                         type=str(info["dtype"]))
                self.index[name] = (path, 8 + n + info["data_offsets"][0], info["dtype"], list(info["shape"]))

    def shape(self, name: str) -> list[int]:
        return self.index[name][3]

    def read(self, name: str) -> np.ndarray:
        path, offset, dtype, shape = self.index[name]
        count = int(np.prod(shape)) if shape else 1
        raw = np.fromfile(path, dtype=self._DTYPES[dtype], count=count, offset=offset)
        if dtype == "BF16":
            raw = (raw.astype(np.uint32) << 16).view(np.float32)
        return raw.astype(np.float32, copy=False).reshape(shape)


class StateDictWeights:
    """A live model's weights, read as :class:`_SafetensorsFolder` reads a folder's: one tensor
    at a time as float32. The export writes its GGUF file from the model it holds: saving the
    model as a folder first took a Gemma 3 270M export from 3.4 to 5.4 GB of memory."""

    def __init__(self, state_dict: Mapping[str, Any]):
        self.index = dict(state_dict)

    def shape(self, name: str) -> list[int]:
        return [int(x) for x in self.index[name].shape]

    def read(self, name: str) -> np.ndarray:
        return np.asarray(self.index[name].astype("float32").numpy(), dtype=np.float32)


def family_of_config(config: Mapping[str, Any]) -> str:
    """The GGUF family of a config.json, or GGUFWriteError naming the families that have a GGUF form."""
    model_type = str(config.get("model_type") or "")
    family = _MODEL_TYPES.get(model_type)
    if family is None:
        builtin = bool(config.get("workbench_builtin") and not config.get("num_hidden_layers"))
        what = "the built-in classifier" if builtin else f"a {model_type or 'model of unknown type'}"
        raise GGUFWriteError(f"This model is {what}, which has no GGUF form here; GGUF files are written for "
                             f"{', '.join(gguf_names.FAMILIES)} language models.",
                             code="gguf_builtin_classifier" if builtin else "gguf_model_type_unsupported",
                             model_type=model_type or "?", families=list(gguf_names.FAMILIES))
    return family


def _rope(config: Mapping[str, Any]) -> tuple[float, dict | None]:
    params = config.get("rope_parameters") or {}
    theta = config.get("rope_theta") or params.get("rope_theta") or 10000.0
    scaling = config.get("rope_scaling")
    if scaling is None and params.get("rope_type") not in (None, "default"):
        scaling = params
    return float(theta), scaling


# ----- metadata --------------------------------------------------------------------------


def _hyper_parameters(w, family: str, config: Mapping[str, Any]) -> None:
    """The ``{arch}.*`` keys llama.cpp's converter writes for the family."""
    heads = int(config["num_attention_heads"])
    hidden = int(config["hidden_size"])
    head_dim = int(config.get("head_dim") or hidden // heads)
    theta, scaling = _rope(config)
    w.add_context_length(int(config.get("max_position_embeddings") or 2048))
    w.add_embedding_length(hidden)
    w.add_block_count(int(config["num_hidden_layers"]))
    w.add_feed_forward_length(int(config["intermediate_size"]))
    w.add_head_count(heads)
    w.add_head_count_kv(int(config.get("num_key_value_heads") or heads))
    w.add_rope_freq_base(theta)
    w.add_layer_norm_rms_eps(float(config.get("rms_norm_eps") or 1e-6))
    if family == "gemma3":
        w.add_key_length(head_dim)
        w.add_value_length(head_dim)
        if config.get("sliding_window"):
            w.add_sliding_window(int(config["sliding_window"]))
        _gemma3_extras(w, config, hidden, heads, head_dim)
    else:
        if family == "llama":
            w.add_vocab_size(int(config["vocab_size"]))
            w.add_rope_dimension_count(head_dim)
        if config.get("head_dim"):  # as the converter does whenever config.json names it
            w.add_key_length(head_dim)
            w.add_value_length(head_dim)
    if scaling:
        _rope_scaling(w, scaling)


def _gemma3_extras(w, config: Mapping[str, Any], hidden: int, heads: int, head_dim: int) -> None:
    """Gemma 3's layout beyond the common keys: the sliding layers' rope base, the layer pattern
    when it is not llama.cpp's default (every 6th layer global), and the query scale llama.cpp
    assumes (the head size; hidden / heads for the 62-layer 27B model), refused when it differs."""
    layers = int(config["num_hidden_layers"])
    types = config.get("layer_types")
    if types and list(types) != ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention"
                                 for i in range(layers)]:
        w.add_sliding_window_pattern([t == "sliding_attention" for t in types])
    local = config.get("rope_local_base_freq")
    if local is not None:  # as the converter writes it (llama.cpp's default is 10000)
        w.add_rope_freq_base_swa(float(local))
    scalar = config.get("query_pre_attn_scalar")
    assumed = hidden // heads if layers == 62 else head_dim
    if scalar is not None and int(scalar) != assumed:
        raise GGUFWriteError(f"This Gemma 3 model scales its queries by {scalar}, where llama.cpp uses {assumed} "
                             "for its size, so llama.cpp would not compute it as trained; it has no GGUF form.",
                             code="gguf_gemma_query_scale", scale=str(scalar), assumed=assumed)
    for key, add in (("final_logit_softcapping", w.add_final_logit_softcapping),
                     ("attn_logit_softcapping", w.add_attn_logit_softcapping)):
        if config.get(key):
            add(float(config[key]))


def _rope_scaling(w, scaling: Mapping[str, Any]) -> None:
    import gguf

    kind = scaling.get("rope_type") or scaling.get("type")
    if kind == "linear":
        w.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        w.add_rope_scaling_factor(float(scaling["factor"]))
    elif kind == "yarn":
        w.add_rope_scaling_type(gguf.RopeScalingType.YARN)
        w.add_rope_scaling_factor(float(scaling["factor"]))
        if scaling.get("original_max_position_embeddings"):
            w.add_rope_scaling_orig_ctx_len(int(scaling["original_max_position_embeddings"]))
    elif kind != "llama3":  # Llama 3.1's scaling is a tensor of its own (see _extra_tensors)
        raise GGUFWriteError(f"The model's rope scaling ({kind}) has no GGUF form here; linear, yarn and "
                             "Llama 3.1's scaling are written.", code="gguf_rope_without_form", kind=str(kind))


def _extra_tensors(family: str, config: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Tensors the converter makes from the config: Llama 3.1's rope divisors as rope_freqs."""
    _, scaling = _rope(config)
    kind = (scaling or {}).get("rope_type") or (scaling or {}).get("type")
    if family != "llama" or kind != "llama3":
        return {}
    from workbench.engine.gguf.reader import llama3_rope_factors

    theta, _ = _rope(config)
    head_dim = int(config.get("head_dim") or int(config["hidden_size"]) // int(config["num_attention_heads"]))
    factors = llama3_rope_factors(theta, head_dim, float(scaling.get("factor", 8.0)),
                                  int(scaling.get("original_max_position_embeddings", 8192)),
                                  float(scaling.get("low_freq_factor", 1.0)), float(scaling.get("high_freq_factor", 4.0)))
    return {"rope_freqs.weight": factors.astype(np.float32)}


def _token_content(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return value.get("content")
    return value if isinstance(value, str) else None


def _chat_template(folder: Path, tok_config: Mapping[str, Any]) -> str | None:
    jinja = folder / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(encoding="utf-8")
    template = tok_config.get("chat_template")
    if isinstance(template, list):  # named templates: llama.cpp takes the default one
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, Mapping)}
        template = named.get("default") or next(iter(named.values()), None)
    return template if isinstance(template, str) and template else None


def _pre_tokenizer_name(pre: Mapping[str, Any] | None) -> str:
    """llama.cpp's name for a byte-level tokenizer's pre-tokenizer ("gpt-2", "qwen2", ...)."""
    parts = (pre or {}).get("pretokenizers") if (pre or {}).get("type") == "Sequence" else [pre or {}]
    kinds = [p.get("type") for p in parts]
    splits = [p for p in parts if p.get("type") == "Split"]
    if splits:
        pattern = (splits[0].get("pattern") or {}).get("Regex")
        for name, known in _PRE_PATTERNS.items():
            if pattern == known:
                return name
        if pattern == _GPT2_PATTERN + r"|\s+":
            return "gpt-2"
        return "default"
    byte_level = next((p for p in parts if p.get("type") == "ByteLevel"), None)
    if byte_level is not None and byte_level.get("use_regex", True):
        if "Digits" in kinds and any(p.get("individual_digits") for p in parts if p.get("type") == "Digits"):
            return "smollm"  # digits one by one, then GPT-2's split (SmolLM's tokenizer)
        return "gpt-2"
    return "default"


def vocabulary(folder: str | os.PathLike, vocab_size: int | None = None) -> dict[str, Any]:
    """The ``tokenizer.ggml.*`` values of a folder's tokenizer.json: model, pre, tokens,
    token types, scores (SentencePiece style) or merges (byte-level BPE), special ids,
    add_bos/add_eos/add_space_prefix and the chat template. ``vocab_size`` (the embedding's
    rows) pads the token list with unused ``[PADn]`` tokens as llama.cpp's converter does."""
    import gguf

    folder = Path(folder)
    path = folder / "tokenizer.json"
    if not path.is_file():
        raise GGUFWriteError(f"{folder} has no tokenizer.json, which the GGUF file needs for its vocabulary; "
                             "export the model folder again.", code="gguf_source_without_tokenizer",
                             path=str(folder))
    tj = _read_json(path)
    tok_config = _read_json(folder / "tokenizer_config.json") if (folder / "tokenizer_config.json").is_file() else {}
    model = tj.get("model") or {}
    if model.get("type") != "BPE":
        raise GGUFWriteError(f"The model's tokenizer is of type {model.get('type')}; GGUF files are written for "
                             "BPE tokenizers (byte-level or SentencePiece-style).", code="gguf_tokenizer_not_bpe",
                             type=str(model.get("type")))
    ids: dict[str, int] = dict(model.get("vocab") or {})
    added = {int(a["id"]): a for a in tj.get("added_tokens") or []}
    for i, a in added.items():
        ids[a["content"]] = i
    size = max(max(ids.values()) + 1, int(vocab_size or 0))
    by_id: dict[int, str] = {i: t for t, i in ids.items()}
    T = gguf.TokenType
    byte_level = "ByteLevel" in json.dumps(tj.get("pre_tokenizer")) or \
        (tj.get("decoder") or {}).get("type") == "ByteLevel"
    tokens: list[str] = []
    types: list[int] = []
    for i in range(size):
        text = by_id.get(i)
        if text is None:
            tokens.append(f"[PAD{i}]")
            types.append(T.UNUSED)
        elif i in added:
            special_token = bool(added[i].get("special"))
            if not byte_level and not special_token and len(text) > 1 and not text.strip("\u2581"):
                text = " " * len(text)  # SentencePiece's whitespace runs: llama.cpp keeps them as spaces
            tokens.append(text)
            types.append(T.CONTROL if special_token else T.USER_DEFINED)
        elif not byte_level and model.get("byte_fallback") and re.fullmatch(r"<0x[0-9A-F]{2}>", text):
            tokens.append(text)
            types.append(T.BYTE)
        else:
            tokens.append(text)
            types.append(T.NORMAL)
    out: dict[str, Any] = {"tokens": tokens, "token_type": types}

    def special(key: str) -> int | None:
        content = _token_content(tok_config.get(key))
        return ids.get(content) if content is not None else None

    out["bos"] = special("bos_token")
    out["eos"] = special("eos_token")
    out["unk"] = special("unk_token")
    out["pad"] = special("pad_token")
    # the engine puts the BOS token before every prompt whenever the tokenizer has one (data.encode_prompt),
    # so that is what the fine-tuned model saw, and what llama.cpp is told to do
    out["add_bos"] = out["bos"] is not None
    out["add_eos"] = bool(tok_config.get("add_eos_token", False))
    if byte_level:
        out["model"] = "gpt2"
        out["pre"] = _pre_tokenizer_name(tj.get("pre_tokenizer"))
        out["merges"] = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges") or []]
        out["add_space_prefix"] = False
    else:
        out["model"] = "llama"
        out["pre"] = "default"
        # llama.cpp merges the pair whose joined token scores highest: rank the ordinary tokens by id,
        # which is SentencePiece's own order (its vocabularies are sorted by score)
        scores, rank = [], 0
        for t in types:
            if t == T.NORMAL:
                scores.append(-float(rank))
                rank += 1
            else:
                scores.append(0.0 if t == T.BYTE else -1000.0)
        out["scores"] = scores
        text = json.dumps([tj.get("normalizer"), tj.get("pre_tokenizer")])
        out["add_space_prefix"] = '"Prepend"' in text or ('"Metaspace"' in text and '"never"' not in text
                                                          and '"prepend_scheme"' in text)
    # a tokenizer without a template was trained in the engine's plain format: the file says so
    template = _chat_template(folder, tok_config) or FALLBACK_CHAT_TEMPLATE
    if out["add_bos"] and not _writes_first(template, tokens[out["bos"]]):
        # the engine's prompts start with the BOS token, so the template writes it: llama.cpp's server drops a
        # rendered BOS where it adds one itself, while llama-cpp-python's chat completion adds none of its own
        template = "{{ bos_token }}" + template
    out["chat_template"] = template
    return out


def _writes_first(template: str, bos: str) -> bool:
    """Whether a chat template's prompt starts with the BOS token's text (rendered as Hugging Face
    renders it; a template this cannot render counts if it names ``bos_token`` at all)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def refuse(message):
        raise ValueError(message)

    try:
        text = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(template).render(
            messages=[{"role": "user", "content": "x"}], add_generation_prompt=True, bos_token=bos,
            eos_token="", raise_exception=refuse)
    except Exception:
        return "bos_token" in template
    return text.startswith(bos)


def _add_vocabulary(w, vocab: Mapping[str, Any]) -> None:
    w.add_tokenizer_model(vocab["model"])
    w.add_tokenizer_pre(vocab["pre"])
    w.add_token_list(vocab["tokens"])
    if "scores" in vocab:
        w.add_token_scores(vocab["scores"])
    w.add_token_types(vocab["token_type"])
    if vocab.get("merges"):
        w.add_token_merges(vocab["merges"])
    for key, add in (("bos", w.add_bos_token_id), ("eos", w.add_eos_token_id), ("unk", w.add_unk_token_id),
                     ("pad", w.add_pad_token_id)):
        if vocab.get(key) is not None:
            add(int(vocab[key]))
    w.add_add_bos_token(bool(vocab["add_bos"]))
    w.add_add_eos_token(bool(vocab["add_eos"]))
    if vocab["model"] == "llama":
        w.add_add_sep_token(False)
    w.add_add_space_prefix(bool(vocab["add_space_prefix"]))
    if vocab.get("chat_template"):
        w.add_chat_template(vocab["chat_template"])


# ----- tensors ---------------------------------------------------------------------------


def tensor_type(hf_name: str, shape: list[int], dtype: str):
    """The GGML type llama.cpp's converter gives a tensor for the output type ``dtype``."""
    from gguf import GGMLQuantizationType as Q

    if len(shape) <= 1 or gguf_names.is_norm(hf_name) or dtype == "f32":
        return Q.F32
    if dtype == "q8_0":
        return Q.Q8_0 if shape[-1] % 32 == 0 else Q.F16
    return Q.F16


def _plan(st: _SafetensorsFolder | StateDictWeights, family: str, config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(HF name, GGUF name) of every tensor to write, in llama.cpp's order (globals, then blocks)."""
    tied = bool(config.get("tie_word_embeddings", family == "gemma3"))
    plan = []
    for hf in st.index:
        if hf.endswith("rotary_emb.inv_freq") or (hf == "lm_head.weight" and tied):
            continue  # rope tables are computed at run time; a tied head is the embedding
        try:
            plan.append((hf, gguf_names.hf_to_gguf(family, hf)))
        except KeyError:
            if hf.endswith(".bias") and not np.any(st.read(hf)):
                continue  # a zero bias a merged LoRA layer brought along: no term, nothing lost
            raise GGUFWriteError(f"The weights hold a tensor {hf} that a plain {family} model does not have, so "
                                 "the model has no GGUF form here.", code="gguf_weights_unexpected", tensor=hf,
                                 family=family) from None
    if not any(g == "token_embd.weight" for _, g in plan):
        raise GGUFWriteError("The weights have no token embedding (model.embed_tokens.weight); export the model "
                             "folder again.", code="gguf_weights_without_embedding")

    def order(item):
        m = re.match(r"blk\.(\d+)\.", item[1])
        return (1, int(m.group(1)), item[1]) if m else (0, 0 if item[1].startswith("token_embd") else 1, item[1])

    return sorted(plan, key=order)


def _layout_is_paddle(st: _SafetensorsFolder | StateDictWeights, config: Mapping[str, Any]) -> bool:
    """Older Paddle folders keep linear weights [in, out]; GGUF wants Hugging Face's [out, in]."""
    hidden, inter = config.get("hidden_size"), config.get("intermediate_size")
    for name in st.index:
        if name.endswith("mlp.up_proj.weight") and hidden and inter and hidden != inter:
            return st.shape(name) == [hidden, inter]
    return False


def _file_type(dtype: str) -> int:
    from gguf import LlamaFileType as F

    return {"f32": F.ALL_F32, "f16": F.MOSTLY_F16, "q8_0": F.MOSTLY_Q8_0}[dtype]


def write_gguf(model_folder: str | os.PathLike, out_path: str | os.PathLike, *, dtype: str = "f16",
               progress: Progress | None = None, name: str | None = None,
               base_model: str | None = None, licence: str | None = None,
               weights: StateDictWeights | None = None) -> dict[str, Any]:
    """Write the model folder as a GGUF file at ``out_path`` (which must not exist); with
    ``weights``, the folder gives the config and tokenizer and ``weights`` the tensors.

    ``dtype`` is the type of the matrices: "f16" (default), "q8_0" or "f32"; norms and other
    1-D tensors stay F32. ``progress("gguf", done, total)`` is called once per tensor.
    ``name``, ``base_model`` and ``licence`` fill general.name, general.base_model.0.name and
    general.license. Returns what was written: file, size, types, tensor and token counts.
    """
    import gguf
    from gguf.quants import quant_shape_to_byte_shape, quantize
    from gguf.utility import size_label

    if dtype not in DTYPES:
        raise GGUFWriteError(f"GGUF type {dtype!r} is not one of {', '.join(DTYPES)}.", code="gguf_type_unknown",
                             type=str(dtype))
    folder = Path(model_folder)
    out = Path(out_path)
    if out.exists():
        raise GGUFWriteError(f"{out} already exists; a GGUF file is never overwritten. Choose another name.",
                             code="gguf_file_exists", path=str(out))
    if not out.parent.is_dir():
        raise GGUFWriteError(f"The folder {out.parent} does not exist. Create it first or choose another place.",
                             code="parent_folder_missing", path=str(out.parent))
    config = _read_json(folder / "config.json")
    family = family_of_config(config)
    report = progress or (lambda stage, done, total: None)
    st = weights if weights is not None else _SafetensorsFolder(folder)
    plan = _plan(st, family, config)
    paddle_layout = _layout_is_paddle(st, config)
    embed_rows = st.shape("model.embed_tokens.weight")[0]
    vocab = vocabulary(folder, embed_rows)
    if len(vocab["tokens"]) != embed_rows:
        raise GGUFWriteError(f"The tokenizer has {len(vocab['tokens'])} tokens but the embedding has {embed_rows} "
                             "rows; the folder's tokenizer does not belong to its weights.",
                             code="gguf_tokenizer_mismatch", tokens=len(vocab["tokens"]), rows=embed_rows)
    marker = folder / "workbench_model.json"
    info = _read_json(marker) if marker.is_file() else {}

    w = gguf.GGUFWriter(path=None, arch=gguf.MODEL_ARCH_NAMES[getattr(gguf.MODEL_ARCH, family.upper())])
    w.add_type(gguf.GGUFType.MODEL)
    w.add_name(name or info.get("name") or folder.name)
    lic = licence or (info.get("licence") or {}).get("name")
    if lic:
        w.add_license(str(lic))
    if base_model:
        w.add_base_model_count(1)
        w.add_base_model_name(0, base_model)
    w.add_size_label(size_label(sum(int(np.prod(st.shape(hf))) for hf, _ in plan), 0, 0, 0))  # before extras
    _hyper_parameters(w, family, config)
    w.add_file_type(_file_type(dtype))
    _add_vocabulary(w, vocab)
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)

    extra = _extra_tensors(family, config)
    plan = [(None, g) for g in extra] + plan  # the converter writes them first

    def transposed(hf: str | None, shape: list[int]) -> bool:
        """Whether a matrix is stored [in, out] and GGUF wants it [out, in]."""
        # a live model's linear layers are Paddle's [in, out] but its untied head is already
        # [vocabulary, hidden], as a saved folder's (PaddleFormers' LM head multiplies by its transpose)
        if hf == "lm_head.weight":
            return shape[0] != embed_rows
        return paddle_layout and hf not in (None, "model.embed_tokens.weight")

    def converted(hf: str | None, g: str) -> np.ndarray:
        if hf is None:
            return extra[g]
        array = st.read(hf)
        if array.ndim == 2 and transposed(hf, list(array.shape)):
            array = np.ascontiguousarray(array.T)
        return np.ascontiguousarray(gguf_names.to_gguf_tensor(family, hf, array, config), dtype=np.float32)

    types = {}
    for hf, g in plan:
        shape = list(extra[g].shape) if hf is None else st.shape(hf)
        if len(shape) == 2 and transposed(hf, shape):
            shape = shape[::-1]
        qtype = tensor_type(hf or g, shape, dtype)
        types[g] = qtype
        if qtype in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
            np_dtype = np.dtype(np.float32 if qtype == gguf.GGMLQuantizationType.F32 else np.float16)
            w.add_tensor_info(g, shape, np_dtype, int(np.prod(shape)) * np_dtype.itemsize, raw_dtype=qtype)
        else:
            byte_shape = quant_shape_to_byte_shape(shape, qtype)
            w.add_tensor_info(g, byte_shape, np.dtype(np.uint8), int(np.prod(byte_shape)), raw_dtype=qtype)

    tmp = out.with_name(f".{out.name}.{secrets.token_hex(3)}.partial")
    try:
        w.write_header_to_file(path=tmp)
        w.write_kv_data_to_file()
        w.write_ti_data_to_file()
        report("gguf", 0, len(plan))
        for i, (hf, g) in enumerate(plan):
            w.write_tensor_data(quantize(converted(hf, g), types[g]))
            report("gguf", i + 1, len(plan))
        w.close()
        os.replace(tmp, out)
    except BaseException:
        w.close()
        tmp.unlink(missing_ok=True)
        raise
    counts: dict[str, int] = {}
    for t in types.values():
        counts[t.name] = counts.get(t.name, 0) + 1
    return {"file": out.name, "dtype": dtype, "architecture": family, "size_bytes": out.stat().st_size,
            "tensors": len(plan), "tensor_types": counts, "tokens": len(vocab["tokens"]),
            "tokenizer": vocab["model"], "pre_tokenizer": vocab["pre"],
            "chat_template": bool(vocab.get("chat_template"))}

