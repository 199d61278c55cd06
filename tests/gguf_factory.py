"""Small GGUF files of each family, written the way llama.cpp's converter writes them.

Random weights drawn directly in GGUF's own layout and values (llama's q/k rows in
llama.cpp's order, Gemma's norms as 1 + w), llama.cpp's tensor names and metadata keys,
a few storage types (F32 norms, F16, BF16, Q8_0, Q5_0, Q4_0 matrices) and a real tokenizer:
- SentencePiece BPE (llama, gemma3): a model trained with the sentencepiece library on the
  repository's sample texts, its pieces, scores and types stored as llama.cpp stores them
  (Gemma's whitespace runs with plain spaces);
- byte-level BPE (qwen2, qwen3): trained with the tokenizers library behind Qwen 2's
  pre-tokenizer regex, its vocabulary and merges stored as tokenizer.ggml.tokens/merges.
``spm_processor`` / ``bpe_tokenizer`` return the tokenizer each file was made from, the
reference its conversion must reproduce.
"""
from __future__ import annotations

import csv
import io
import math
from functools import lru_cache
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
FAMILIES = ("llama", "qwen2", "qwen3", "gemma3")

QWEN_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
_QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")

# Shapes: hidden 64, 4 heads of 16 with 2 KV heads; Gemma 3 gets 6 layers so that one attends
# globally, and a window of 4 tokens so that the sliding layers differ from it on short inputs.
DIMS = dict(hidden=64, inter=128, heads=4, kv_heads=2, head_dim=16)
LAYERS = {"llama": 2, "qwen2": 2, "qwen3": 2, "gemma3": 6}
LLAMA3_BASE = 500000.0


@lru_cache(maxsize=1)
def corpus() -> tuple[str, ...]:
    """Chinese legal Q&A and medical questions from the sample templates, plus English lines."""
    rows: list[str] = []
    for name in ("legal_consult_qa/legal_consult_qa_sample.csv", "medical_qa/medical_qa_sample.csv"):
        with open(REPO / "templates" / name, encoding="utf-8", newline="") as fh:
            for row in csv.reader(fh):
                rows.extend(cell for cell in row if cell)
    rows += ["The quick brown fox jumps over the lazy dog.", "Hello world, this is a test of 123 and 4.5.",
             "  indented  text\twith tabs\nand new lines", "Café, naïve, jalapeño."] * 20
    return tuple(rows)


@lru_cache(maxsize=2)
def _spm_bytes(style: str) -> bytes:
    import sentencepiece as spm

    model = io.BytesIO()
    if style == "gemma3":  # Gemma's layout: pad, eos, bos, unk; turn markers; no dummy prefix
        ids = dict(pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>", eos_piece="<eos>", bos_piece="<bos>",
                   unk_piece="<unk>")
        extra = dict(control_symbols=["<start_of_turn>", "<end_of_turn>"],
                     user_defined_symbols=["\n", "\n\n", "▁▁", "▁▁▁"], add_dummy_prefix=False,
                     remove_extra_whitespaces=False, normalization_rule_name="identity")
    else:  # Llama 2's: unk, bos, eos, a dummy prefix
        ids = dict(unk_id=0, bos_id=1, eos_id=2, pad_id=-1)
        extra = dict(add_dummy_prefix=True, remove_extra_whitespaces=False, normalization_rule_name="identity")
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus()), model_writer=model, model_type="bpe", vocab_size=1500,
        byte_fallback=True, character_coverage=0.99, split_digits=True, num_threads=1,
        minloglevel=2, **ids, **extra)
    return model.getvalue()


def spm_processor(style: str):
    """The sentencepiece model behind the ``style`` ("llama" or "gemma3") test vocabulary."""
    import sentencepiece as spm

    return spm.SentencePieceProcessor(model_proto=_spm_bytes(style))


def _spm_metadata(style: str) -> dict:
    from sentencepiece import sentencepiece_model_pb2 as pb

    proto = pb.ModelProto()
    proto.ParseFromString(_spm_bytes(style))
    # llama.cpp's token types: normal 1, unknown 2, control 3, user-defined 4, unused 5, byte 6
    kinds = {pb.ModelProto.SentencePiece.NORMAL: 1, pb.ModelProto.SentencePiece.UNKNOWN: 2,
             pb.ModelProto.SentencePiece.CONTROL: 3, pb.ModelProto.SentencePiece.USER_DEFINED: 4,
             pb.ModelProto.SentencePiece.UNUSED: 5, pb.ModelProto.SentencePiece.BYTE: 6}
    tokens, scores, types = [], [], []
    for piece in proto.pieces:
        text = piece.piece
        if style == "gemma3" and text and not text.strip("▁"):  # llama.cpp writes "▁▁" runs as spaces
            text = text.replace("▁", " ") if len(text) > 1 else text
        tokens.append(text)
        scores.append(piece.score)
        types.append(kinds[piece.type])
    spec = proto.trainer_spec
    meta = {"tokenizer.ggml.model": "llama", "tokenizer.ggml.pre": "default", "tokens": tokens,
            "scores": scores, "types": types, "bos": spec.bos_id, "eos": spec.eos_id, "unk": spec.unk_id,
            "add_space_prefix": style != "gemma3"}
    if spec.pad_id >= 0:
        meta["pad"] = spec.pad_id
    return meta


@lru_cache(maxsize=1)
def _bpe_json() -> str:
    from tokenizers import Regex, Tokenizer, decoders, pre_tokenizers, trainers
    from tokenizers.models import BPE

    tok = Tokenizer(BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(_QWEN2_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=700, special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(corpus(), trainer)
    return tok.to_str()


def bpe_tokenizer():
    """The byte-level BPE tokenizer behind the qwen2/qwen3 test vocabulary."""
    from tokenizers import Tokenizer

    return Tokenizer.from_str(_bpe_json())


def _bpe_metadata() -> dict:
    import json

    data = json.loads(_bpe_json())
    vocab = data["model"]["vocab"]
    tokens = [None] * len(vocab)
    for piece, i in vocab.items():
        tokens[i] = piece
    specials = {t["content"] for t in data["added_tokens"]}
    merges = [m if isinstance(m, str) else " ".join(m) for m in data["model"]["merges"]]
    eos = vocab["<|endoftext|>"]
    return {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2", "tokens": tokens,
            "types": [3 if t in specials else 1 for t in tokens], "merges": merges, "eos": eos, "pad": eos,
            "chat_template": QWEN_TEMPLATE, "add_bos_token": False}


def _tensor_plan(family: str, vocab: int, tied: bool) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, HF shape [out, in], kind) in llama.cpp's order; kind picks value range and storage."""
    d = DIMS
    q, kv = d["heads"] * d["head_dim"], d["kv_heads"] * d["head_dim"]
    plan = [("token_embd.weight", (vocab, d["hidden"]), "embed")]
    for i in range(LAYERS[family]):
        p = f"blk.{i}"
        plan.append((f"{p}.attn_norm.weight", (d["hidden"],), "norm"))
        plan += [(f"{p}.attn_q.weight", (q, d["hidden"]), "q8"), (f"{p}.attn_k.weight", (kv, d["hidden"]), "q5"),
                 (f"{p}.attn_v.weight", (kv, d["hidden"]), "f16"), (f"{p}.attn_output.weight", (d["hidden"], q), "q4")]
        if family == "qwen2":
            plan += [(f"{p}.attn_q.bias", (q,), "bias"), (f"{p}.attn_k.bias", (kv,), "bias"),
                     (f"{p}.attn_v.bias", (kv,), "bias")]
        if family in ("qwen3", "gemma3"):
            plan += [(f"{p}.attn_q_norm.weight", (d["head_dim"],), "norm"),
                     (f"{p}.attn_k_norm.weight", (d["head_dim"],), "norm")]
        if family == "gemma3":
            plan.append((f"{p}.post_attention_norm.weight", (d["hidden"],), "norm"))
        plan.append((f"{p}.ffn_norm.weight", (d["hidden"],), "norm"))
        plan += [(f"{p}.ffn_gate.weight", (d["inter"], d["hidden"]), "bf16"),
                 (f"{p}.ffn_up.weight", (d["inter"], d["hidden"]), "q8"),
                 (f"{p}.ffn_down.weight", (d["hidden"], d["inter"]), "f32")]
        if family == "gemma3":
            plan.append((f"{p}.post_ffw_norm.weight", (d["hidden"],), "norm"))
    plan.append(("output_norm.weight", (d["hidden"],), "norm"))
    if not tied:
        plan.append(("output.weight", (vocab, d["hidden"]), "q8"))
    return plan


def llama3_rope_freqs(base: float, dim: int, factor: float = 8.0, original: int = 8192, low: float = 1.0,
                      high: float = 4.0) -> np.ndarray:
    """The rope_freqs tensor llama.cpp's converter writes for Llama 3.1's rope scaling."""
    out = []
    for i in range(0, dim, 2):
        wavelen = 2 * math.pi * base ** (i / dim)
        if wavelen < original / high:
            out.append(1.0)
        elif wavelen > original / low:
            out.append(factor)
        else:
            smooth = (original / wavelen - low) / (high - low)
            out.append(1 / ((1 - smooth) / factor + smooth))
    return np.asarray(out, dtype=np.float32)


def write_gguf(path: str | Path, family: str, *, seed: int = 0, tied: bool | None = None,
               arch: str | None = None, name: str | None = None, rope_freqs: np.ndarray | None = None) -> Path:
    """A small GGUF file of ``family`` at ``path``; ``arch`` overrides general.architecture
    (a family Workbench does not convert). Gemma 3 and Qwen ties its output to the embedding
    by default, Llama has its own output matrix. ``rope_freqs`` (llama): Llama 3.1's scaled
    rope, stored as llama.cpp stores it, with Llama 3's rope base."""
    import gguf
    from gguf import GGMLQuantizationType as Q

    path = Path(path)
    tied = family in ("gemma3", "qwen2", "qwen3") if tied is None else tied
    tk = _bpe_metadata() if family in ("qwen2", "qwen3") else _spm_metadata(family if family == "gemma3" else "llama")
    vocab = len(tk["tokens"])
    rng = np.random.default_rng(seed)
    d = DIMS
    writer = gguf.GGUFWriter(str(path), arch or family)
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name(name or f"Tiny {family}")
    writer.add_license("apache-2.0")
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0)
    writer.add_context_length(256)
    writer.add_embedding_length(d["hidden"])
    writer.add_feed_forward_length(d["inter"])
    writer.add_block_count(LAYERS[family])
    writer.add_head_count(d["heads"])
    writer.add_head_count_kv(d["kv_heads"])
    writer.add_key_length(d["head_dim"])
    writer.add_value_length(d["head_dim"])
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_freq_base(LLAMA3_BASE if rope_freqs is not None else {"gemma3": 1e6, "llama": 1e4}.get(family, 1e6))
    if family == "gemma3":
        writer.add_sliding_window(4)
    writer.add_tokenizer_model(tk["tokenizer.ggml.model"])
    writer.add_tokenizer_pre(tk["tokenizer.ggml.pre"])
    writer.add_token_list(tk["tokens"])
    if "scores" in tk:
        writer.add_token_scores(tk["scores"])
    writer.add_token_types(tk["types"])
    if "merges" in tk:
        writer.add_token_merges(tk["merges"])
    for key, add in (("bos", writer.add_bos_token_id), ("eos", writer.add_eos_token_id),
                     ("unk", writer.add_unk_token_id), ("pad", writer.add_pad_token_id)):
        if tk.get(key) is not None:
            add(int(tk[key]))
    writer.add_add_bos_token(tk.get("add_bos_token", True))
    writer.add_add_eos_token(False)
    if "add_space_prefix" in tk:
        writer.add_add_space_prefix(tk["add_space_prefix"])
    if "chat_template" in tk:
        writer.add_chat_template(tk["chat_template"])

    storage = {"q8": Q.Q8_0, "q5": Q.Q5_0, "q4": Q.Q4_0, "f16": Q.F16, "bf16": Q.BF16}
    gemma = family == "gemma3"
    for tname, shape, kind in _tensor_plan(family, vocab, tied):
        if kind == "norm":  # Gemma stores 1 + w; either way the stored scale is near 1
            values = (1.0 + rng.normal(0, 0.2, shape)) if not gemma else (1.0 + rng.normal(0, 0.3, shape))
        elif kind == "bias":
            values = rng.normal(0, 0.1, shape)
        else:
            values = rng.normal(0, 0.5 if kind == "embed" else 1.0 / np.sqrt(shape[-1]), shape)
        values = values.astype(np.float32)
        qtype = storage.get(kind)
        if qtype is None:
            writer.add_tensor(tname, values)
        elif qtype == Q.F16:
            writer.add_tensor(tname, values.astype(np.float16))
        else:
            writer.add_tensor(tname, gguf.quants.quantize(values, qtype), raw_dtype=qtype)
    if rope_freqs is not None:
        writer.add_tensor("rope_freqs.weight", np.asarray(rope_freqs, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
