"""A classification head on a pretrained decoder: one forward pass per row, a linear layer
over the project's labels.

Why not the label-writing route (engine/examples.py) for a pretrained model: it trains the
decoder to write the label's name after the template's system prompt, so most of each row
is prompt, the loss runs through an output layer over the whole vocabulary (Gemma 3:
262,144 rows) for a handful of labels, and evaluation scores every label with its own
forward pass. Here the row is the text alone, the decoder's last hidden state at the text's
last token feeds a linear layer over the labels (softmax, or one sigmoid per label for a
multi-label project), and the vocabulary costs only the input lookup.

Why our own class: PaddleFormers' ``Gemma3TextForSequenceClassification`` has no forward
(a stub) and Llama and ERNIE have none at all; one class over each family's base model
(``base_model_class``: the decoder without its output layer) serves every family alike. It
is a ``PretrainedModel`` with its own config (the decoder's config inside), so the Trainer,
``save_pretrained`` / ``from_pretrained`` and LoRA (the head trains beside the adapters:
``trainable_modules``) work on it as on any model, and a model folder saved from it reloads
as itself (what a full fine-tuning's final/ and an export's merged/ hold).

Pooling: the last real token's hidden state (a causal decoder's only position that has read
the whole text) or the mean over the text's tokens; chosen by the config, the same in the
exported graph (plain elementwise ops and sums, which every runtime computes alike).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.jobs import head_layers
from workbench.engine.families import CPU_SAFE_FLAGS, HEAD_MODEL_TYPE, causal_lm_class

MODEL_TYPE = HEAD_MODEL_TYPE
POOLINGS = ("last", "mean")
LINEAR_BUCKETS = 2 ** 18  # hashed token bigrams and trigrams of the linear part
DEFAULT_POOLING = "last"
# each family's decoder without its output layer, in the module of its causal LM
BASE_MODELS = {"gemma3": "Gemma3TextModel", "llama": "LlamaModel", "qwen2": "Qwen2Model", "qwen3": "Qwen3Model",
               "ernie4_5": "Ernie4_5Model"}
HEAD_PATTERNS = [r"score\.weight", r"score\.bias"]  # what trains beside LoRA's adapters

# The prompt of a head is the text alone (see engine/models/char_classifier.py): the tokenizer renders the
# user's content and nothing else, and encode_prompt puts the model's BOS in front.
CHAT_TEMPLATE = ("{% for message in messages %}{% if message['role'] == 'user' %}{{ message['content'] }}"
                 "{% endif %}{% endfor %}")

_CACHE: tuple | None = None


def is_head_config(config: Any) -> bool:
    model_type = config.get("model_type") if isinstance(config, dict) else getattr(config, "model_type", None)
    return model_type == MODEL_TYPE


def is_head(model) -> bool:
    return is_head_config(getattr(model, "config", None))


def decoder_family(config: Any) -> str | None:
    """The family of the decoder under a head config (a mapping or a config object)."""
    if isinstance(config, dict):
        return config.get("decoder_family")
    return getattr(config, "decoder_family", None)


def _classes():
    """The config and model classes (built lazily: paddle is imported only in engine processes)."""
    global _CACHE
    if _CACHE is not None:
        return _CACHE
    import paddle
    import paddle.nn as nn
    import paddle.nn.functional as F
    from paddleformers.transformers import PretrainedConfig, PretrainedModel
    from paddleformers.transformers.model_outputs import SequenceClassifierOutput

    from workbench.engine.models import char_classifier

    _, _, LinearPart = char_classifier._classes()

    class DecoderClassifierConfig(PretrainedConfig):
        model_type = MODEL_TYPE

        def __init__(self, decoder: dict | None = None, decoder_family: str | None = None,
                     pooling: str = DEFAULT_POOLING, multi_label: bool = False,
                     class_weights: list[float] | None = None, linear_part: bool = False,
                     linear_weight: float = 0.0, ngram_buckets: int = LINEAR_BUCKETS, **kwargs):
            super().__init__(**kwargs)
            # the linear part over the text's token n-grams (char_classifier.LinearPart), mixed
            # into the answer with the share ``linear_weight`` chosen on validation
            self.linear_part = bool(linear_part)
            self.linear_weight = float(linear_weight)
            self.ngram_buckets = int(ngram_buckets)
            self.linear_tf, self.linear_mix = "sublinear", "geometric"
            self.vocab_size = int((decoder or {}).get("vocab_size", 0) or 0)
            self.decoder = dict(decoder or {})  # the decoder's own config.json
            self.decoder_family = decoder_family
            if pooling not in POOLINGS:
                raise ValueError(f"pooling must be one of {POOLINGS}, not {pooling!r}")
            self.pooling = pooling
            self.multi_label = bool(multi_label)
            self.class_weights = class_weights
            self.hidden_size = int(self.decoder.get("hidden_size", 0) or 0)

    class DecoderClassifier(LinearPart, PretrainedModel):
        """``forward(input_ids, attention_mask, labels=None)`` -> loss (with labels) and logits
        ``[batch, num_labels]``, as the built-in classifier's."""

        config_class = DecoderClassifierConfig
        base_model_prefix = "head"

        def __init__(self, config, backbone=None):
            super().__init__(config)
            self.model = backbone if backbone is not None else _backbone_from_config(config)
            self.score = nn.Linear(config.hidden_size, config.num_labels)
            self.multi_label = bool(config.multi_label)
            self.mean_pooling = config.pooling == "mean"  # a plain bool: the traced graph reads no config
            weights = config.class_weights or [1.0] * config.num_labels
            self.register_buffer("class_weight", paddle.to_tensor(weights, dtype="float32"), persistable=False)
            self._init_linear_part(config)

        def _init_weights(self, layer):  # the decoder comes pretrained; the head keeps nn.Linear's start
            pass

        def forward(self, input_ids, attention_mask=None, labels=None, return_dict=None, **kwargs):
            if attention_mask is None:
                attention_mask = paddle.ones_like(input_ids)
            # the answer mixes in the linear part; training and the validation loss are the network's
            # alone, as for the built-in classifier
            answer = self.has_linear and not self.training and labels is None
            if answer and self.linear_weight >= 1.0:
                # validation gave the linear part the whole answer: the decoder's pass, nearly all of
                # the time (CAIL2018's long cases read at about a row a second), would change nothing.
                # The traced graph of such a model holds the linear part alone
                lin = self.linear_logits(input_ids, attention_mask)
                logits = char_classifier.mix_logits(paddle.zeros_like(lin), lin, self.linear_weight, self.multi_label,
                                                    self.geometric)
                return (logits,) if return_dict is False else SequenceClassifierOutput(loss=None, logits=logits)
            logits = self.score(self.pooled(input_ids, attention_mask))
            loss = self._loss(logits, labels) if labels is not None else None
            if answer:
                logits = self.mixed(logits, input_ids, attention_mask)
            if return_dict is False:
                return (loss, logits) if loss is not None else (logits,)
            return SequenceClassifierOutput(loss=loss, logits=logits)

        def part_logits(self, input_ids, attention_mask, linear: bool = True):
            """(network logits, linear-part logits or None), as the built-in classifier's."""
            network = self.score(self.pooled(input_ids, attention_mask))
            return network, self.linear_logits(input_ids, attention_mask) if linear else None

        def pooled(self, input_ids, attention_mask=None):
            """What the score layer reads: one vector per row (the frozen-feature stage fits the
            head on these, engine/training/feature_head.py)."""
            if attention_mask is None:
                attention_mask = paddle.ones_like(input_ids)
            hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False,
                                return_dict=True).last_hidden_state
            mask = attention_mask.astype("float32")
            if self.mean_pooling:
                weight = mask / mask.sum(axis=1, keepdim=True).clip(min=1.0)
            else:  # the last real token of each (right-padded) row, picked by a one-hot weight
                last = mask.sum(axis=1, keepdim=True) - 1.0
                positions = paddle.cumsum(paddle.ones_like(mask), axis=1) - 1.0
                weight = (positions == last).astype("float32")
            pooled = (hidden.astype("float32") * weight.unsqueeze(-1)).sum(axis=1)
            # scaled to unit root mean square: a decoder's last states are large (Gemma 3 270M's about
            # 8, single features over 100), which made the new head's first logits tens wide (a loss
            # of 20 over 11 labels) and each optimizer step move them by whole units
            return pooled / paddle.sqrt((pooled * pooled).mean(axis=-1, keepdim=True) + 1e-6)

        def _loss(self, logits, labels):
            # the labels' weights steer training only: the validation loss, and the probe a saved
            # checkpoint is checked by, are the plain cross entropy, which a model loaded without
            # the weights (they come from the training split) computes alike
            weight = self.class_weight if self.training else None
            if self.multi_label:
                return F.binary_cross_entropy_with_logits(logits, labels.astype("float32"), pos_weight=weight)
            return F.cross_entropy(logits, labels.reshape([-1]).astype("int64"), weight=weight)

    _CACHE = (DecoderClassifierConfig, DecoderClassifier)
    return _CACHE


def _backbone_from_config(config):
    """A freshly built decoder (without output layer) of the head config's family and shape."""
    causal = causal_lm_class(config.decoder_family)
    decoder_config = causal.config_class(**{**config.decoder, **CPU_SAFE_FLAGS})
    module = sys.modules[causal.__module__]
    return getattr(module, BASE_MODELS[config.decoder_family])(decoder_config)


def attach(decoder, labels: Sequence[str], *, family: str, multi_label: bool = False,
           class_weights: list[float] | None = None, pooling: str = DEFAULT_POOLING, depth: float | None = None,
           linear_part: bool = False, seed: int = 0):
    """A head over ``labels`` on a loaded causal LM ``decoder``: its base model is kept, its
    output layer dropped. ``depth``: the share of its layers kept, the first ones (the decoder's
    final norm then follows the last kept layer). The head's start comes from ``seed``."""
    import paddle
    import paddle.nn as nn

    config_cls, model_cls = _classes()
    backbone = getattr(decoder, decoder.base_model_prefix)
    decoder_cfg = decoder.config.to_dict()
    total = int(decoder_cfg.get("num_hidden_layers") or len(backbone.layers))
    n = head_layers(total, depth)
    if n < total:
        # the saved config says n layers, so the model folder reloads as what it is
        backbone.layers = nn.LayerList(list(backbone.layers)[:n])
        decoder_cfg["num_hidden_layers"] = n
        if isinstance(decoder_cfg.get("layer_types"), list):
            decoder_cfg["layer_types"] = decoder_cfg["layer_types"][:n]
        backbone.config.num_hidden_layers = n
        if isinstance(getattr(backbone.config, "layer_types", None), list):
            backbone.config.layer_types = backbone.config.layer_types[:n]
    config = config_cls(
        decoder=decoder_cfg, decoder_family=family, pooling=pooling, multi_label=multi_label,
        class_weights=class_weights, num_labels=len(labels), linear_part=linear_part,
        id2label={i: lab for i, lab in enumerate(labels)}, label2id={lab: i for i, lab in enumerate(labels)},
        pad_token_id=decoder_cfg.get("pad_token_id"), bos_token_id=decoder_cfg.get("bos_token_id"),
        eos_token_id=decoder_cfg.get("eos_token_id"))
    paddle.seed(seed)
    model = model_cls(config, backbone=backbone)
    model.train() if decoder.training else model.eval()
    return model


def load(folder: str | os.PathLike, *, for_training: bool = True):
    """The head model saved in ``folder`` (a full fine-tuning's weights or an export's merged/)."""
    from workbench.engine.models.family_fixes import apply_family_fixes

    _, model_cls = _classes()
    model = model_cls.from_pretrained(str(folder), load_checkpoint_format="legacy", use_safetensors=True,
                                      convert_from_hf=False, dtype="float32")
    if isinstance(model, tuple):
        model = model[0]
    apply_family_fixes(model, model.config.decoder_family)
    model.train() if for_training else model.eval()
    return model


def use_text_alone(tokenizer):
    """``tokenizer`` rendering a prompt as the user's text alone (what the head reads); returns it."""
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def read_head_config(folder: str | os.PathLike) -> dict | None:
    path = Path(folder) / "config.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if is_head_config(data) else None


LINEAR_FILE = "linear_part.npz"


def save_linear_part(head, path) -> None:
    """The fitted linear part and its share, beside a LoRA run's adapters (which hold only what
    trains): the run's model is rebuilt with them (load_linear_part)."""
    import numpy as np

    from workbench.core.fsutil import atomic_write

    arrays = {f"p{i}": p.numpy() for i, p in enumerate(head.linear_parameters())}

    def write(tmp) -> None:
        with open(tmp, "wb") as fh:  # a file object: np.savez would add ".npz" to a path's name
            np.savez(fh, weight=np.float32(head.linear_weight), **arrays)

    atomic_write(path, write)


def load_linear_part(head, path) -> None:
    import numpy as np

    with np.load(path) as data:
        for i, p in enumerate(head.linear_parameters()):
            p.set_value(data[f"p{i}"])
        head.linear_weight = float(data["weight"])
        head.config.linear_weight = head.linear_weight
