"""A GGUF file (llama.cpp's single-file format) becomes a model folder Workbench loads and trains.

The folder holds a Hugging Face config.json, model.safetensors (float32, HF names and
[out, in] layout), tokenizer.json + tokenizer_config.json, generation_config.json and
workbench_model.json, which says where the weights came from. Tensors are dequantized and
written one at a time, so memory stays near the largest tensor, not the whole model.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import struct
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.errors import Cancelled

from workbench.engine.families import ModelLoadError
from workbench.engine.gguf import names as gguf_names
from workbench.engine.gguf.container import GGUFFile, GGUFFormatError

Progress = Callable[[str, int, int], None]
CancelCheck = Callable[[], bool]

FORMAT_VERSION = 1
MARKER_FILE = "workbench_model.json"
_FAMILY_LIST = ", ".join(gguf_names.FAMILIES)
# Token arrays are large (262k entries for Gemma); read_metadata leaves them out unless asked.
_TOKEN_ARRAYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type",
                 "tokenizer.ggml.merges")


# ----- reading ------------------------------------------------------------------------------


def open_gguf(path: str | os.PathLike) -> GGUFFile:
    """The file's metadata and memory-mapped tensors, or ModelLoadError saying why it is not usable."""
    path = Path(path)
    if not path.is_file():
        raise ModelLoadError(f"The GGUF file {path} does not exist. Choose an existing .gguf file.",
                             code="model_path_missing", path=str(path))
    try:
        gguf_file = GGUFFile(path)
    except (GGUFFormatError, ValueError, OSError, struct.error, UnicodeDecodeError) as exc:
        raise ModelLoadError(
            f"{path.name} is not a readable GGUF file ({exc}). It may be incomplete (a download that stopped "
            "early) or another kind of file; download or copy it again.",
            code="gguf_unreadable", name=path.name, detail=str(exc),
        ) from None
    for t in gguf_file.tensors:
        if t.data is None:
            raise ModelLoadError(
                f"{path.name} is cut short: its tensor {t.name} ends past the end of the file "
                f"({gguf_file.size:,} bytes). Download or copy the file again.",
                code="gguf_cut_short", name=path.name, tensor=t.name, size=f"{gguf_file.size:,}",
            )
    return gguf_file


def read_metadata(gguf_file: GGUFFile, *, with_tokens: bool = False) -> dict[str, Any]:
    """The file's key-value metadata as plain Python values (str, int, float, bool, lists)."""
    return {k: v for k, v in gguf_file.metadata.items() if with_tokens or k not in _TOKEN_ARRAYS}


def file_type_name(meta: dict[str, Any]) -> str | None:
    """general.file_type as llama.cpp names it ("Q4_K_M", "F16", ...), or None when missing."""
    import gguf

    value = meta.get("general.file_type")
    if value is None:
        return None
    try:
        name = gguf.LlamaFileType(int(value)).name
    except ValueError:
        return str(value)
    return name.removeprefix("MOSTLY_").removeprefix("ALL_")


def family_of(meta: dict[str, Any], file_name: str = "The file") -> str:
    arch = meta.get("general.architecture")
    family = gguf_names.ARCH_TO_FAMILY.get(arch)
    if family is None:
        raise ModelLoadError(
            f"{file_name} holds a model of the '{arch or 'unknown'}' architecture, which Workbench cannot "
            f"convert. It converts GGUF files of these families: {_FAMILY_LIST}. Choose a GGUF file of one "
            "of them.",
            code="gguf_architecture_unsupported", name=file_name, arch=str(arch or "?"), families=_FAMILY_LIST,
        )
    return family


def dequantized(tensor, *, chunk_rows: int = 8192) -> np.ndarray:
    """One tensor as float32 in Hugging Face's axis order (ggml lists axes innermost first).

    Large tensors are dequantized in row blocks into one float32 array: dequantizing Gemma's
    262k-row embedding at once holds several float copies of it (2.8 GB peak, not 1 GB).
    """
    from gguf.quants import dequantize

    shape = tuple(int(d) for d in reversed(tensor.shape))
    data = tensor.data  # memory-mapped; one row per leading index for every storage type
    try:
        if data.ndim >= 2 and data.shape[0] > chunk_rows:
            out = np.empty(shape, dtype=np.float32)
            for start in range(0, data.shape[0], chunk_rows):
                block = dequantize(data[start:start + chunk_rows], tensor.tensor_type)
                out[start:start + chunk_rows] = block.reshape((-1, *shape[1:]))
            return out
        array = dequantize(data, tensor.tensor_type)
    except NotImplementedError:
        raise ModelLoadError(
            f"The tensor {tensor.name} is stored as {tensor.tensor_type.name}, which Workbench cannot read "
            "yet. Use a GGUF file of another quantisation (for example Q4_K_M, Q8_0 or F16).",
            code="gguf_tensor_type_unsupported", tensor=tensor.name, type=tensor.tensor_type.name,
        ) from None
    if array.size != int(np.prod(shape)):
        raise ModelLoadError(f"The tensor {tensor.name} holds {array.size} values where its header says {shape}.",
                             code="gguf_tensor_size_wrong", tensor=tensor.name, values=int(array.size),
                             shape=str(list(shape)))
    return np.ascontiguousarray(array.reshape(shape), dtype=np.float32)


class StoredRows:
    """A 2-D tensor left as the file stores it (memory-mapped), dequantized a block of rows at a
    time: the rows a lookup asks for, or all of them in turn for a product with its transpose.
    Gemma 3's 262k-row embedding is 671 MB as float32 and 335 MB as f16; the export's GGUF
    check reads it this way beside the trained model."""

    def __init__(self, tensor, chunk_rows: int = 16384):
        self.tensor = tensor
        self.shape = tuple(int(d) for d in reversed(tensor.shape))
        self.chunk_rows = chunk_rows

    def _rows(self, data) -> np.ndarray:
        from gguf.quants import dequantize

        return dequantize(data, self.tensor.tensor_type).reshape((-1, *self.shape[1:])).astype(np.float32, copy=False)

    def __getitem__(self, rows) -> np.ndarray:
        return self._rows(self.tensor.data[np.asarray(rows)])

    def times_transposed(self, x: np.ndarray) -> np.ndarray:
        """``x @ self.T`` as float32."""
        out = np.empty((x.shape[0], self.shape[0]), dtype=np.float32)
        for start in range(0, self.shape[0], self.chunk_rows):
            block = self._rows(self.tensor.data[start:start + self.chunk_rows])
            out[:, start:start + block.shape[0]] = x @ block.T
        return out


def load_tensors(path: str | os.PathLike, *, stored: Sequence[str] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
    """All tensors of a GGUF file (GGUF names, dequantized, float32) and its metadata; those
    named in ``stored`` as :class:`StoredRows`."""
    reader = open_gguf(path)
    return ({t.name: StoredRows(t) if t.name in stored else dequantized(t) for t in reader.tensors},
            read_metadata(reader))


# ----- config -------------------------------------------------------------------------------


def _get(meta: dict[str, Any], arch: str, key: str, default: Any = None) -> Any:
    return meta.get(f"{arch}.{key}", default)


def _require(meta: dict[str, Any], arch: str, key: str) -> Any:
    value = _get(meta, arch, key)
    if value is None:
        raise ModelLoadError(f"The GGUF file lacks {arch}.{key}, which describes the model. The file may be "
                             "damaged or written by an unusual tool; use another copy.", code="gguf_key_missing",
                             key=f"{arch}.{key}")
    return value


def _rope_scaling(meta: dict[str, Any], arch: str) -> dict | None:
    kind = _get(meta, arch, "rope.scaling.type")
    if kind in (None, "none"):
        return None
    factor = float(_get(meta, arch, "rope.scaling.factor", 1.0))
    if kind == "linear":
        return {"rope_type": "linear", "factor": factor}
    if kind == "yarn":
        return {"rope_type": "yarn", "factor": factor,
                "original_max_position_embeddings": int(_get(meta, arch, "rope.scaling.original_context_length"))}
    raise ModelLoadError(f"The model uses '{kind}' rope scaling, which Workbench cannot carry over yet.",
                         code="gguf_rope_unsupported", kind=str(kind))


# Llama 3.1's rope scaling as its published configs set it: (original context, low, high factor).
_LLAMA3_ROPE_CANDIDATES = ((8192, 1.0, 4.0),)


def llama3_rope_factors(base: float, head_dim: int, factor: float, original: int, low: float,
                        high: float) -> np.ndarray:
    """The per-frequency divisors Llama 3.1's rope scaling applies (what llama.cpp stores as rope_freqs)."""
    inv = 1.0 / base ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    wavelen = 2 * np.pi / inv
    smooth = (original / wavelen - low) / (high - low)
    mid = 1.0 / ((1 - smooth) / factor + smooth)
    return np.where(wavelen < original / high, 1.0, np.where(wavelen > original / low, factor, mid))


def llama3_rope_scaling(freqs: np.ndarray, meta: dict[str, Any], head_dim: int) -> dict:
    """Hugging Face's rope_scaling for a llama GGUF's rope_freqs tensor, found by checking which
    Llama 3.1 settings give exactly those divisors; ModelLoadError when none does."""
    base = float(meta.get("llama.rope.freq_base", 10000.0))
    factor = float(np.max(freqs))
    original = meta.get("llama.rope.scaling.original_context_length")
    candidates = [(int(original), low, high) for _, low, high in _LLAMA3_ROPE_CANDIDATES] if original else []
    for orig, low, high in [*candidates, *_LLAMA3_ROPE_CANDIDATES]:
        expected = llama3_rope_factors(base, head_dim, factor, orig, low, high)
        if expected.shape == freqs.shape and np.allclose(expected, freqs, rtol=1e-4):
            return {"rope_type": "llama3", "factor": factor, "low_freq_factor": low, "high_freq_factor": high,
                    "original_max_position_embeddings": orig}
    raise ModelLoadError("The model scales its rope frequencies in a way Workbench does not recognise "
                         "(its rope_freqs tensor is not Llama 3.1's scaling); it cannot be converted yet.",
                         code="gguf_rope_freqs_unknown")


def hf_config(meta: dict[str, Any], *, vocab_size: int, tied: bool) -> dict[str, Any]:
    """A PaddleFormers-loadable config.json for the GGUF file's model."""
    family = family_of(meta)
    arch = gguf_names.FAMILY_TO_ARCH[family]
    hidden = int(_require(meta, arch, "embedding_length"))
    heads = int(_require(meta, arch, "attention.head_count"))
    kv_heads = int(_get(meta, arch, "attention.head_count_kv", heads))
    head_dim = int(_get(meta, arch, "attention.key_length", hidden // heads))
    rotary = _get(meta, arch, "rope.dimension_count")
    if rotary is not None and int(rotary) != head_dim:  # partial rotary: not a plain model of the family
        raise ModelLoadError(f"The model rotates {rotary} of its {head_dim} head dimensions, which a plain "
                             f"{family} model does not; Workbench cannot convert this variant.",
                             code="gguf_partial_rotary", rotary=int(rotary), head_dim=head_dim, family=family)
    config: dict[str, Any] = {
        "architectures": [gguf_names.ARCHITECTURES[family]],
        "model_type": gguf_names.MODEL_TYPES[family],
        "vocab_size": vocab_size,
        "hidden_size": hidden,
        "intermediate_size": int(_require(meta, arch, "feed_forward_length")),
        "num_hidden_layers": int(_require(meta, arch, "block_count")),
        "num_attention_heads": heads,
        "num_key_value_heads": kv_heads,
        "head_dim": head_dim,
        "max_position_embeddings": int(_get(meta, arch, "context_length", 2048)),
        "rms_norm_eps": float(_get(meta, arch, "attention.layer_norm_rms_epsilon", 1e-6)),
        "rope_theta": float(_get(meta, arch, "rope.freq_base", 10000.0)),
        "rope_scaling": _rope_scaling(meta, arch),
        "tie_word_embeddings": tied,
        "attention_dropout": 0.0,
        "initializer_range": 0.02,
        "dtype": "float32",
    }
    for key, gguf_key in (("bos_token_id", "bos_token_id"), ("eos_token_id", "eos_token_id"),
                          ("pad_token_id", "padding_token_id")):
        value = meta.get(f"tokenizer.ggml.{gguf_key}")
        if value is not None:
            config[key] = int(value)
    if family in ("llama", "qwen2", "qwen3"):
        config["hidden_act"] = "silu"
        config["attention_bias"] = family == "qwen2"
    if family == "qwen2":
        config.update(use_sliding_window=False, sliding_window=None,
                      max_window_layers=config["num_hidden_layers"])
    if family == "gemma3":
        layers = config["num_hidden_layers"]
        config.update(
            hidden_activation="gelu_pytorch_tanh",
            query_pre_attn_scalar=gguf_names.gemma3_query_scale(hidden, heads, head_dim, layers),
            sliding_window=int(_get(meta, arch, "attention.sliding_window", 4096)),
            layer_types=gguf_names.gemma3_layer_types(meta, layers),
            rope_local_base_freq=float(_get(meta, arch, "rope.freq_base_swa", 10000.0)),
            final_logit_softcapping=_get(meta, arch, "final_logit_softcapping"),
            attn_logit_softcapping=_get(meta, arch, "attn_logit_softcapping"),
            attention_bias=False,
            use_bidirectional_attention=False,
        )
    return config


def generation_config(meta: dict[str, Any], tokens: list[str]) -> dict[str, Any]:
    """Token ids generation stops on: end of sequence and, where the vocabulary has one, end of turn."""
    stop = []
    for key in ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id"):
        if meta.get(key) is not None and int(meta[key]) not in stop:
            stop.append(int(meta[key]))
    for name in ("<end_of_turn>", "<|im_end|>", "<|eot_id|>"):
        if name in tokens and tokens.index(name) not in stop:
            stop.append(tokens.index(name))
    out: dict[str, Any] = {"eos_token_id": stop[0] if len(stop) == 1 else stop}
    for key, gguf_key in (("bos_token_id", "bos_token_id"), ("pad_token_id", "padding_token_id")):
        if meta.get(f"tokenizer.ggml.{gguf_key}") is not None:
            out[key] = int(meta[f"tokenizer.ggml.{gguf_key}"])
    return out


# ----- writing ------------------------------------------------------------------------------


def _write_safetensors(path: Path, entries: list[tuple[str, tuple[int, ...]]],
                       arrays: Iterator[np.ndarray]) -> None:
    """Write float32 tensors in the safetensors format one by one as ``arrays`` yields them.

    The safetensors library wants every tensor in memory at once; the format is a JSON
    header of names, shapes and byte ranges followed by the raw data, so knowing the shapes
    up front lets each tensor be written and dropped in turn.
    """
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape in entries:
        size = int(np.prod(shape)) * 4
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(blob)))
        fh.write(blob)
        for (name, shape), array in zip(entries, arrays, strict=True):
            if tuple(array.shape) != tuple(shape):
                raise ModelLoadError(f"The tensor {name} has the shape {array.shape}, not {shape}.",
                                     code="gguf_tensor_shape_wrong", tensor=name, shape=str(list(array.shape)),
                                     want=str(list(shape)))
            fh.write(np.ascontiguousarray(array, dtype="<f4").data)  # the buffer itself, not a copy


def _sha256(path: Path, progress: Progress, cancel: CancelCheck) -> str:
    digest = hashlib.sha256()
    total = path.stat().st_size
    done = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(8 << 20):
            digest.update(chunk)
            done += len(chunk)
            progress("read", done, total)
            if cancel():
                raise Cancelled("The conversion was cancelled; nothing was written.", code="cancelled")
    return digest.hexdigest()


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def convert_gguf(path: str | os.PathLike, out_dir: str | os.PathLike, *, name: str | None = None,
                 progress: Progress | None = None, cancel: CancelCheck | None = None) -> dict:
    """Convert one GGUF file into a model folder at ``out_dir`` (which must not exist yet).

    The folder is built in a temporary sibling and renamed at the end; on an error or a
    cancel nothing is left behind. ``progress(stage, done, total)`` is called with the stages
    "read", "tensors", "tokenizer" and "write"; ``cancel()`` returning True stops the work with
    :class:`Cancelled`. Returns the folder's workbench_model.json contents.
    """
    from workbench.engine.gguf import tokenizer as gguf_tokenizer

    src = Path(path)
    out = Path(out_dir)
    report: Progress = progress or (lambda stage, done, total: None)
    stop: CancelCheck = cancel or (lambda: False)
    if out.exists():
        raise ModelLoadError(f"The folder {out} already exists. Choose a new folder name for the converted model.",
                             code="convert_folder_exists", path=str(out))
    if not out.parent.is_dir():
        raise ModelLoadError(f"The folder {out.parent} does not exist. Create it first or choose another place.",
                             code="parent_folder_missing", path=str(out.parent))

    reader = open_gguf(src)
    meta = read_metadata(reader, with_tokens=True)
    family = family_of(meta, src.name)
    tokens = meta.get("tokenizer.ggml.tokens")
    if not tokens:
        raise ModelLoadError(f"{src.name} holds no tokenizer vocabulary (tokenizer.ggml.tokens), which the "
                             "model needs. Use a GGUF file converted with its tokenizer.",
                             code="gguf_without_vocabulary", name=src.name)

    plan: list[tuple[Any, str]] = []  # (GGUF tensor, HF name)
    rope_freqs = None
    for t in reader.tensors:
        if t.name == "rope_freqs.weight" and family == "llama":
            rope_freqs = dequantized(t)  # Llama 3.1's rope scaling: carried in config.json instead
            continue
        try:
            plan.append((t, gguf_names.gguf_to_hf(family, t.name)))
        except KeyError:
            raise ModelLoadError(
                f"{src.name} holds a tensor {t.name} that a plain {family} model does not have; it may be a "
                "variant (mixture of experts, vision) Workbench cannot convert.", code="gguf_tensor_unexpected",
                name=src.name, tensor=t.name, family=family) from None
    hf_names = {hf for _, hf in plan}
    tied = "lm_head.weight" not in hf_names
    embed = next((t for t, hf in plan if hf == "model.embed_tokens.weight"), None)
    if embed is None:
        raise ModelLoadError(f"{src.name} has no token embedding (token_embd.weight); the file is incomplete.",
                             code="gguf_without_embedding", name=src.name)
    vocab_size = int(embed.shape[1])
    if vocab_size != len(tokens):
        raise ModelLoadError(f"{src.name} has {len(tokens)} tokens in its vocabulary but {vocab_size} rows in "
                             "its embedding; the file is inconsistent.", code="gguf_vocabulary_mismatch",
                             name=src.name, tokens=len(tokens), rows=vocab_size)
    config = hf_config(meta, vocab_size=vocab_size, tied=tied)
    if rope_freqs is not None:
        config["rope_scaling"] = llama3_rope_scaling(rope_freqs.reshape(-1), meta, config["head_dim"])

    digest = _sha256(src, report, stop)
    tmp = out.parent / f".{out.name}.{secrets.token_hex(4)}.converting"
    tmp.mkdir()  # not mkdtemp: the folder gets the user's usual permissions
    try:
        entries = [(hf, tuple(int(d) for d in reversed(t.shape))) for t, hf in plan]

        def arrays() -> Iterator[np.ndarray]:
            for i, (t, hf) in enumerate(plan):
                if stop():
                    raise Cancelled("The conversion was cancelled; nothing was written.", code="cancelled")
                yield gguf_names.to_hf_tensor(family, hf, dequantized(t), config)
                report("tensors", i + 1, len(plan))

        report("tensors", 0, len(plan))
        _write_safetensors(tmp / "model.safetensors", entries, arrays())
        parameters = sum(int(np.prod(shape)) for _, shape in entries)

        report("tokenizer", 0, 1)
        gguf_tokenizer.write_tokenizer(meta, tmp, model_max_length=config["max_position_embeddings"])
        report("tokenizer", 1, 1)
        if stop():
            raise Cancelled("The conversion was cancelled; nothing was written.", code="cancelled")

        report("write", 0, 1)
        _write_json(tmp / "config.json", config)
        _write_json(tmp / "generation_config.json", generation_config(meta, tokens))
        info = {
            "format": FORMAT_VERSION,
            "family": family,
            "model_type": config["model_type"],
            "name": name or meta.get("general.name") or src.stem,
            "parameters": parameters,
            "source": {"kind": "gguf", "file": src.name, "sha256": digest, "file_type": file_type_name(meta)},
            "licence": {"name": meta.get("general.license"), "file": None},
        }
        _write_json(tmp / MARKER_FILE, info)
        if out.exists():
            raise ModelLoadError(f"The folder {out} appeared while converting. Choose a new folder name.",
                                 code="convert_folder_exists", path=str(out))
        os.replace(tmp, out)
        report("write", 1, 1)
        return info
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
