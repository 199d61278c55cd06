"""The built-in language model: a byte-level BPE tokenizer trained on the project's own text and a
small Llama decoder built from scratch (the embedded default, so the flow runs offline on a CPU)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path

from workbench.engine.families import BUILTIN_CHAT_TEMPLATE, CPU_SAFE_FLAGS, ModelLoadError, read_config
from workbench.engine.models import char_classifier

BUILTIN_MARKER = "workbench_builtin"


# Special tokens of the built-in tokenizer.
PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"


ROLE_TOKENS = ("<|system|>", "<|user|>", "<|assistant|>")


# Built-in model sizes. "tiny" trains a few steps in well under a second (tests);
# "small" (about 5.9M parameters with a 6000-token vocabulary) learns a ~1000-row
# Chinese classification / Q&A sample in a few minutes on two CPU cores.
BUILTIN_SIZES: dict[str, dict[str, int]] = {
    "tiny": dict(
        vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=512,
    ),
    "small": dict(
        vocab_size=6000, hidden_size=256, intermediate_size=1024, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=1024,
    ),
}


def builtin_size(folder: str | os.PathLike) -> str | None:
    """"tiny"/"small" when the folder holds a built-in model trained from scratch, else None."""
    try:
        return read_config(folder).get(BUILTIN_MARKER)
    except ModelLoadError:
        return None


# ----- the built-in model ------------------------------------------------------------------


def train_builtin_tokenizer(texts: Iterable[str], vocab_size: int, model_max_length: int = 1024):
    """A byte-level BPE tokenizer trained on ``texts``, wrapped as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = [PAD, BOS, EOS, UNK, *ROLE_TOKENS]
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    texts = [t for t in texts if isinstance(t, str) and t]
    if not texts:
        raise ValueError("build_builtin_model needs some training texts for its tokenizer")
    tok.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD, unk_token=UNK,
        additional_special_tokens=list(ROLE_TOKENS), chat_template=BUILTIN_CHAT_TEMPLATE,
        padding_side="right", model_max_length=model_max_length,
    )


def build_builtin_model(size: str, texts: Iterable[str], out_dir: str | os.PathLike, *, seed: int = 0,
                        labels: list[str] | None = None, class_weights: list[float] | None = None,
                        multi_label: bool = False) -> Path:
    """Train a tokenizer on ``texts`` and save a randomly initialised built-in model.

    With ``labels`` (classification) it is the character n-gram classifier of
    :mod:`.builtin` (see there for why, with the measured figures); otherwise the Llama
    decoder described here.

    ``size`` is "tiny" (tests, trains in seconds) or "small" (learns a ~1000-row sample
    in a few minutes on a CPU). The folder is an ordinary model folder (config.json with
    ``"workbench_builtin": size``, tokenizer files, model.safetensors) and loads with
    :func:`load_model_and_tokenizer`. Deterministic for the same texts and seed.

    Llama is the architecture: it loads in PaddleFormers 1.0.0 and 1.2.0 (whose Qwen
    modeling needs an unpublished package), exports through paddle.jit.save, and is the
    layout every other tool reads.
    """
    if size not in BUILTIN_SIZES:
        raise ValueError(f"size must be one of {sorted(BUILTIN_SIZES)}, not {size!r}")
    if labels:
        return char_classifier.build_classifier(size, texts, labels, out_dir, weights=class_weights, seed=seed,
                                  marker=BUILTIN_MARKER, multi_label=multi_label)
    import paddle
    from paddleformers.transformers import LlamaConfig, LlamaForCausalLM

    spec = dict(BUILTIN_SIZES[size])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_builtin_tokenizer(texts, spec["vocab_size"], spec["max_position_embeddings"])
    vocab = len(tokenizer)
    spec["vocab_size"] = int(math.ceil(vocab / 64) * 64)  # pad the embedding for speed
    head_dim = spec["hidden_size"] // spec["num_attention_heads"]
    config = LlamaConfig(
        **spec, head_dim=head_dim, tie_word_embeddings=True, rms_norm_eps=1e-6, rope_theta=10000.0,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, initializer_range=0.02, **CPU_SAFE_FLAGS,
    )
    setattr(config, BUILTIN_MARKER, size)
    paddle.seed(seed)
    model = LlamaForCausalLM(config)
    model.save_pretrained(str(out), save_checkpoint_format="legacy", safe_serialization=True)
    tokenizer.save_pretrained(str(out))
    # Keep the marker (and nothing CPU-only) in the saved config.
    cfg_path = out / "config.json"
    data = json.loads(cfg_path.read_text(encoding="utf-8"))
    data[BUILTIN_MARKER] = size
    for k in CPU_SAFE_FLAGS:
        data.pop(k, None)
    tmp = cfg_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, cfg_path)
    return out
