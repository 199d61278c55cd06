"""Tiny random models of each supported family, saved as model folders for tests.

Three folder layouts:

* ``"paddleformers"``: what ``save_pretrained`` of PaddleFormers 1.0.0 writes by default
  (HF key names and weight orientation, ``model-00001-of-00001.safetensors`` + index).
* ``"hf"``: what a hub download looks like: config.json written by ``transformers``'
  own config class, one ``model.safetensors`` with torch naming, linear weights
  ``[out, in]``, metadata ``{"format": "pt"}``, no ``lm_head`` when embeddings are tied,
  optionally bfloat16.
* ``"paddle"``: the older PaddleNLP layout, linear weights ``[in, out]``, metadata
  ``{"format": "np"}``.

Each folder gets a byte-level BPE tokenizer styled after the family: ChatML (Qwen),
a ``User:/Assistant:`` template with a BOS token (ERNIE), no chat template (Llama, so
the plain fallback prompt is exercised), Gemma's ``<start_of_turn>``/``<end_of_turn>``
turns with ``<bos>``/``<eos>`` (Gemma 3; three layers, two of them sliding-window with a
window of 4 tokens, random norm weights, local and global rope bases apart, so that what
PaddleFormers gets wrong about Gemma 3 shows). In the ``"hf"`` layout tokenizer_config.json
names the family's own class (Qwen2Tokenizer, LlamaTokenizer) and ERNIE 4.5 gets a
sentencepiece ``tokenizer.model`` read by ``Ernie4_5Tokenizer``, as published.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

FAMILIES = ("ernie4_5", "qwen2", "qwen3", "llama", "gemma3")

CORPUS = [
    "请判断以下财经新闻的情感倾向：公司一季度利润大幅增长，股价上涨。",
    "市场持续下跌，投资者信心不足，成交量萎缩。",
    "把下面的颜色翻译成英文：红色 red 绿色 green 蓝色 blue",
    "The quick brown fox jumps over the lazy dog. 0123456789",
    "问题：什么是贷款利率？回答：贷款利率是借款的价格。",
    "正面 负面 中性 positive negative neutral",
] * 8

QWEN_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
ERNIE_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if message['role'] == 'system' %}{{ message['content'] + '\n' }}"
    "{% elif message['role'] == 'user' %}{{ 'User: ' + message['content'] + '\n' }}"
    "{% else %}{{ 'Assistant: ' + message['content'] + eos_token }}{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}{{ 'Assistant: ' }}{% endif %}"
)
GEMMA_TEMPLATE = (
    "{{ bos_token }}{% for message in messages %}"
    "{% set role = 'model' if message['role'] == 'assistant' else 'user' %}"
    "{{ '<start_of_turn>' + role + '\n' + message['content'] + '<end_of_turn>\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<start_of_turn>model\n' }}{% endif %}"
)

MODEL_TYPES = {"gemma3": "gemma3_text"}  # config.json's model_type where it is not the family's name
VOCAB = 512  # above every test tokenizer's size
TINY = dict(hidden_size=64, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=512)
GEMMA3_TINY = dict(num_hidden_layers=3, layer_types=["sliding_attention", "sliding_attention", "full_attention"],
                   sliding_window=4, rope_theta=1e6, rope_local_base_freq=1e4, query_pre_attn_scalar=16,
                   hidden_activation="gelu_pytorch_tanh")


@lru_cache(maxsize=None)
def _bpe(specials: tuple[str, ...]):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=400, special_tokens=list(specials), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer=trainer)
    return tok.to_str()


def make_tokenizer(family: str):
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    if family in ("qwen2", "qwen3"):
        specials = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
        kw = dict(eos_token="<|im_end|>", pad_token="<|endoftext|>", chat_template=QWEN_TEMPLATE)
    elif family == "gemma3":
        specials = ("<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>")
        kw = dict(bos_token="<bos>", eos_token="<eos>", pad_token="<pad>", unk_token="<unk>",
                  additional_special_tokens=["<start_of_turn>", "<end_of_turn>"], chat_template=GEMMA_TEMPLATE)
    elif family == "ernie4_5":
        specials = ("<unk>", "<s>", "</s>", "<pad>")
        kw = dict(bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>",
                  chat_template=ERNIE_TEMPLATE)
    else:
        specials = ("<unk>", "<s>", "</s>")
        kw = dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>")  # no pad, no chat template
    tok = Tokenizer.from_str(_bpe(specials))
    return PreTrainedTokenizerFast(tokenizer_object=tok, **kw)


# What hub downloads name in tokenizer_config.json.
HUB_TOKENIZER_CLASS = {"qwen2": "Qwen2Tokenizer", "qwen3": "Qwen2Tokenizer", "llama": "LlamaTokenizer",
                       "gemma3": "GemmaTokenizer"}


def save_tokenizer(family: str, out: Path, *, hub_style: bool = False) -> None:
    """Write the family's tokenizer files. ``hub_style`` names the family's own tokenizer
    class, and for ERNIE 4.5 writes a sentencepiece ``tokenizer.model`` with
    ``"tokenizer_class": "Ernie4_5Tokenizer"``, as the published ERNIE 4.5 folders do."""
    if hub_style and family == "ernie4_5":
        import io

        import sentencepiece as spm

        buf = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(CORPUS), model_writer=buf, vocab_size=420, model_type="bpe",
            character_coverage=1.0, byte_fallback=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1, minloglevel=2,
        )
        (out / "tokenizer.model").write_bytes(buf.getvalue())
        (out / "tokenizer_config.json").write_text(json.dumps({
            "tokenizer_class": "Ernie4_5Tokenizer", "bos_token": "<s>", "eos_token": "</s>",
            "unk_token": "<unk>", "pad_token": "<unk>", "add_bos_token": False, "add_eos_token": False,
            "legacy": True, "chat_template": ERNIE_TEMPLATE,
        }))
        return
    make_tokenizer(family).save_pretrained(str(out))
    if hub_style:
        path = out / "tokenizer_config.json"
        data = json.loads(path.read_text())
        data["tokenizer_class"] = HUB_TOKENIZER_CLASS[family]
        path.write_text(json.dumps(data, ensure_ascii=False, indent=2))


def _paddle_classes(family: str):
    from paddleformers.transformers import (
        Ernie4_5Config, Ernie4_5ForCausalLM, Gemma3ForCausalLM, Gemma3TextConfig, LlamaConfig,
        LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM, Qwen3Config, Qwen3ForCausalLM,
    )

    return {
        "ernie4_5": (Ernie4_5Config, Ernie4_5ForCausalLM),
        "qwen2": (Qwen2Config, Qwen2ForCausalLM),
        "qwen3": (Qwen3Config, Qwen3ForCausalLM),
        "llama": (LlamaConfig, LlamaForCausalLM),
        "gemma3": (Gemma3TextConfig, Gemma3ForCausalLM),
    }[family]


def _hf_config_class(family: str):
    import transformers

    return {
        "ernie4_5": transformers.Ernie4_5Config,
        "qwen2": transformers.Qwen2Config,
        "qwen3": transformers.Qwen3Config,
        "llama": transformers.LlamaConfig,
        "gemma3": transformers.Gemma3TextConfig,
    }[family]


def _config_kwargs(family: str, tokenizer, vocab_size: int = VOCAB) -> dict:
    kw = dict(TINY, vocab_size=vocab_size, head_dim=TINY["hidden_size"] // TINY["num_attention_heads"],
              eos_token_id=tokenizer.eos_token_id, rms_norm_eps=1e-6, rope_theta=10000.0)
    if tokenizer.bos_token_id is not None:
        kw["bos_token_id"] = tokenizer.bos_token_id
    if tokenizer.pad_token_id is not None:
        kw["pad_token_id"] = tokenizer.pad_token_id
    kw["tie_word_embeddings"] = family in ("ernie4_5", "llama", "gemma3")
    if family == "gemma3":
        kw.update(GEMMA3_TINY)
    return kw


def make_model_folder(family: str, out_dir, *, layout: str = "paddleformers", seed: int = 0,
                      bf16: bool = False, vocab_size: int = VOCAB) -> Path:
    """Save a tiny random model of ``family`` with its tokenizer to ``out_dir``."""
    import numpy as np
    from safetensors.numpy import save_file

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = make_tokenizer(family)
    cfg_kw = _config_kwargs(family, tokenizer, vocab_size)
    _, model_cls = _paddle_classes(family)
    model = make_model(family, seed=seed, vocab_size=vocab_size)
    save_tokenizer(family, out, hub_style=layout == "hf")

    if layout == "paddleformers":
        model.save_pretrained(str(out))
        return out

    state = {k: v.numpy() for k, v in model.state_dict().items()}
    if cfg_kw["tie_word_embeddings"]:
        state.pop("lm_head.weight", None)
    if layout == "hf":
        keys = tuple(f".{name}.weight" for name in model_cls.transpose_weight_keys)
        state = {k: np.ascontiguousarray(v.T) if k.endswith(keys) and v.ndim == 2 else v for k, v in state.items()}
        if bf16:
            import ml_dtypes

            state = {k: v.astype(ml_dtypes.bfloat16) for k, v in state.items()}
        save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
        hf_cfg = _hf_config_class(family)(**cfg_kw, torch_dtype="bfloat16" if bf16 else "float32")
        hf_cfg.architectures = [model_cls.__name__]
        hf_cfg.save_pretrained(str(out))
        data = json.loads((out / "config.json").read_text())
        assert "paddleformers_version" not in data and data["model_type"] == MODEL_TYPES.get(family, family)
    elif layout == "paddle":
        save_file(state, str(out / "model.safetensors"), metadata={"format": "np"})
        model.config.save_pretrained(str(out))
    else:
        raise ValueError(layout)
    return out


def make_model(family: str, *, seed: int = 0, vocab_size: int = VOCAB):
    """The in-memory random model that ``make_model_folder(family, seed=seed)`` saves; a
    ``vocab_size`` above the tokenizer's leaves rows that no text uses, as large vocabularies do."""
    import paddle

    config_cls, model_cls = _paddle_classes(family)
    paddle.seed(seed)
    model = model_cls(config_cls(**_config_kwargs(family, make_tokenizer(family), vocab_size), fuse_rms_norm=False))
    if family == "gemma3":  # Gemma's norms start at 0 (the layer scales by 1 + w): make them count
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.set_value(paddle.normal(0.0, 0.3, p.shape).astype(p.dtype))
    return model
