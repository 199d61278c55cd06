"""The graphs an export traces, and the batches it feeds them.

What the static model computes:

* Instruction models: ``forward(input_ids) -> logits`` (float32, ``[batch, seq, vocab]``);
  the generation loop is in predict.py.
* Classification: ``forward(input_ids, attention_mask) -> probabilities [batch, labels]``.
  The built-in classifier (engine/builtin.py) has a classification head: the graph is the
  model followed by a softmax over the labels. For language models, decision: the graph scores the whole label sequence (label tokens + end token) after
  the prompt, exactly as the engine's ``classify()`` does, rather than reading the first
  token's distribution. Label sets of real templates share first tokens often enough
  (e.g. byte-level BPE splitting 正面/负面 into a shared lead byte), and whole-sequence
  scoring is what the model was trained and evaluated on, so the exported model returns
  the same label as the evaluation. Inside the graph each right-padded prompt is joined
  with every label (prompt tokens, then label tokens, then padding; causal attention makes
  the right padding harmless), the decoder runs once on the ``batch x labels``
  sequences, the LM head is applied only at the label positions (so memory does not grow
  with the vocabulary times the prompt length), the label-token log-probabilities are
  summed, and a softmax over the labels gives the probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.engine import examples
from workbench.engine.export.static_graph import (
    ExportError,
)
from workbench.engine.models import char_classifier

USER_SENTINEL = "\u27e6WORKBENCH_USER_TEXT\u27e7"

# ----- exportable wrappers ---------------------------------------------------------------------


def _lm_logits_layer(model):
    import paddle.nn as nn

    class CausalLMLogits(nn.Layer):
        """``forward(input_ids) -> logits`` (float32) for the static graph."""

        def __init__(self, lm):
            super().__init__()
            self.lm = lm

        def forward(self, input_ids):
            out = self.lm(input_ids, use_cache=False, return_dict=True)
            return out.logits.astype("float32")

    return CausalLMLogits(model)


def label_table(tokenizer, labels: Sequence[str]) -> tuple[list[list[int]], int]:
    """Each label's token ids (label + end token, as the engine scores them) and the
    longest length."""
    ids = [examples.encode_response(tokenizer, lab) for lab in labels]
    return ids, max(len(x) for x in ids)


def _head_probs_layer(model):
    import paddle.nn as nn

    class HeadProbabilities(nn.Layer):
        """``forward(input_ids, attention_mask) -> probabilities [batch, labels]`` of a
        classification-head model (the built-in classifier)."""

        def __init__(self, classifier):
            super().__init__()
            self.classifier = classifier

        def forward(self, input_ids, attention_mask):
            out = self.classifier(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
            return char_classifier.probabilities_from_logits(self.classifier, out.logits)  # sigmoids for a multi-label head

    return HeadProbabilities(model)


def _label_scorer_layer(model, tokenizer, labels: Sequence[str]):
    import numpy as np
    import paddle
    import paddle.nn as nn
    import paddle.nn.functional as F

    ids, longest = label_table(tokenizer, labels)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    table = np.full((len(ids), longest), pad_id, dtype="int64")
    for i, x in enumerate(ids):
        table[i, : len(x)] = x
    lens = np.array([len(x) for x in ids], dtype="int64")
    n_labels = len(ids)

    class LabelScorer(nn.Layer):
        """``forward(input_ids, attention_mask) -> probabilities [batch, labels]`` (see module doc)."""

        def __init__(self, lm):
            super().__init__()
            self.lm = lm
            self.register_buffer("label_ids", paddle.to_tensor(table))
            self.register_buffer("label_lens", paddle.to_tensor(lens))

        def forward(self, input_ids, attention_mask):
            K, Lmax = n_labels, longest
            B = input_ids.shape[0]
            L = input_ids.shape[1]
            T = L + Lmax
            lengths = attention_mask.astype("int64").sum(axis=1)  # [B]
            t = paddle.arange(T, dtype="int64")
            prompt = paddle.concat([input_ids, paddle.full([B, Lmax], pad_id, dtype="int64")], axis=1)
            rel = t.unsqueeze(0) - lengths.unsqueeze(1)  # [B, T]: position relative to the label start
            table_b = self.label_ids.unsqueeze(0).expand([B, K, Lmax])
            label_tok = paddle.take_along_axis(
                table_b, paddle.clip(rel, 0, Lmax - 1).unsqueeze(1).expand([B, K, T]), axis=2)
            in_prompt = (rel < 0).unsqueeze(1).expand([B, K, T])
            rel_k = rel.unsqueeze(1)
            in_label = paddle.logical_and(rel_k >= 0, rel_k < self.label_lens.reshape([1, K, 1]))
            seq = paddle.where(in_prompt, prompt.unsqueeze(1).expand([B, K, T]),
                               paddle.where(in_label, label_tok, paddle.full_like(label_tok, pad_id)))
            hidden = self.lm.model(seq.reshape([-1, T]), use_cache=False, return_dict=True)[0]  # [B*K, T, H]
            # the logits at position len-1+i predict label token i
            i = paddle.arange(Lmax, dtype="int64")
            pos = (lengths.unsqueeze(1) - 1 + i.unsqueeze(0)).unsqueeze(1).expand([B, K, Lmax]).reshape([-1, Lmax])
            H = hidden.shape[-1]
            h = paddle.take_along_axis(hidden, pos.unsqueeze(-1).expand([B * K, Lmax, H]), axis=1)
            logp = F.log_softmax(self.lm.lm_head(h).astype("float32"), axis=-1)  # [B*K, Lmax, V]
            tgt = table_b.reshape([-1, Lmax, 1])
            lp = paddle.take_along_axis(logp, tgt, axis=2).reshape([B, K, Lmax])
            mask = (i.reshape([1, 1, Lmax]) < self.label_lens.reshape([1, K, 1])).astype("float32")
            return F.softmax((lp * mask).sum(axis=-1), axis=-1)

    return LabelScorer(model)


def _int8_linears(model) -> int:
    """Replace every ``nn.Linear`` by a weight-only int8 layer (per-output-channel
    symmetric scales; weights stored int8, de-quantised to fp32 inside the graph).
    Returns the number of layers replaced."""
    import numpy as np
    import paddle
    import paddle.nn as nn

    class WeightOnlyInt8Linear(nn.Layer):
        def __init__(self, linear):
            super().__init__()
            w = linear.weight.numpy().astype("float32")  # [in, out]
            scale = np.abs(w).max(axis=0) / 127.0
            scale[scale == 0] = 1.0
            q = np.clip(np.round(w / scale), -127, 127).astype("int8")
            self.register_buffer("qweight", paddle.to_tensor(q))
            self.register_buffer("scale", paddle.to_tensor(scale.astype("float32")))
            self.bias = linear.bias

        def forward(self, x):
            y = paddle.matmul(x, self.qweight.astype(x.dtype) * self.scale)
            return y + self.bias if self.bias is not None else y

    count = 0
    for name, layer in list(model.named_sublayers(include_self=True)):  # the model's own children too
        for child_name, child in list(layer.named_children()):
            if type(child) is nn.Linear:
                setattr(layer, child_name, WeightOnlyInt8Linear(child))
                count += 1
    return count


# ----- inputs ----------------------------------------------------------------------------------------


class PromptFormat:
    """The prompt as text around the user's text (``prefix + user + suffix``), derived from
    the tokenizer's chat template once, so predict.py needs no template engine. Verified
    against the engine's prompt on real records before it is used."""

    def __init__(self, tokenizer, system: str):
        full = examples.build_prompt(tokenizer, system, USER_SENTINEL)
        if full.count(USER_SENTINEL) != 1:
            raise ExportError("The tokenizer's chat template changes the user's text, so the prompt cannot be "
                              "written as plain text for predict.py.", code="chat_template_changes_text")
        self.prefix, self.suffix = full.split(USER_SENTINEL)
        self.tokenizer, self.system = tokenizer, system

    def check(self, user_texts: Sequence[str]) -> None:
        for text in user_texts:
            if self.prefix + text + self.suffix != examples.build_prompt(self.tokenizer, self.system, text):
                raise ExportError("The tokenizer's chat template formats some inputs differently from a fixed "
                                  "prefix and suffix, so predict.py could not reproduce the prompt.",
                                  code="chat_template_not_fixed")


def batches_for_classification(tokenizer, prompts: Sequence[str], max_length: int, label_len: int,
                               batch_size: int = 8):
    """Right-padded ``(input_ids, attention_mask)`` batches, prompts cut as the engine cuts them."""
    import numpy as np

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    encoded = [examples._shrink_prompt(examples.encode_prompt(tokenizer, p), max(1, max_length - label_len)) for p in prompts]
    out = []
    for start in range(0, len(encoded), batch_size):
        chunk = encoded[start:start + batch_size]
        longest = max(len(x) for x in chunk)
        ids = np.full((len(chunk), longest), pad, dtype="int64")
        mask = np.zeros((len(chunk), longest), dtype="int64")
        for i, x in enumerate(chunk):
            ids[i, : len(x)] = x
            mask[i, : len(x)] = 1
        out.append((ids, mask))
    return out


def batches_for_lm(tokenizer, features: Sequence[dict], batch_size: int = 4):
    """Right-padded ``(input_ids,)`` batches of prompt + reference answer."""
    import numpy as np

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    out = []
    for start in range(0, len(features), batch_size):
        chunk = [f["input_ids"] for f in features[start:start + batch_size]]
        longest = max(len(x) for x in chunk)
        ids = np.full((len(chunk), longest), pad, dtype="int64")
        for i, x in enumerate(chunk):
            ids[i, : len(x)] = x
        out.append((ids,))
    return out


def _lm_masks(feats, batch_size: int = 4):
    """Which positions of :func:`batches_for_lm`'s batches are tokens (not padding)."""
    import numpy as np

    out = []
    for start in range(0, len(feats), batch_size):
        chunk = [len(f["input_ids"]) for f in feats[start:start + batch_size]]
        mask = np.zeros((len(chunk), max(chunk)), dtype=bool)
        for i, n in enumerate(chunk):
            mask[i, :n] = True
        out.append(mask)
    return out
