"""LoRA training over the project's own vocabulary, the full one restored for everything after.

A pretrained decoder's embedding doubles as its output layer; with a large vocabulary
(Gemma 3: 262,144 rows of 640) the output layer is most of a step even at answer positions
only (engine/training/lm_training.py), and a Chinese Q&A project uses a few percent of those rows.
For the length of a LoRA run the embedding is replaced by the rows of the tokens that occur
in the project's tokenized rows, the special tokens and a reserve of the vocabulary's first
(most frequent) pieces, and the rows' ids are renumbered to match. LoRA leaves the embedding
frozen, so the kept rows are the originals: the cut model's logits are the full model's at
those tokens, and the cross entropy is normalised over the kept tokens only. When training
ends :meth:`VocabularyCut.restore` puts the full embedding back, so the adapter that is saved,
evaluated and exported (merged, static, ONNX, GGUF) belongs to the full vocabulary: nothing
downstream sees the cut. Full fine-tuning trains the embedding and is not cut.

Hand-written because PaddleFormers' ``resize_token_embeddings`` only truncates or pads at the
end of the vocabulary; it cannot keep an arbitrary subset of rows.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping, MutableSequence
from dataclasses import dataclass, field
from typing import Any

# MIN_VOCAB: below it the output layer is not the cost. RESERVE: the vocabulary's first pieces
# are its most frequent merges (BPE / SentencePiece order), kept so that the tokens the answers
# are most likely to need still compete in the loss
from workbench.core.recommend import VOCAB_CUT_MIN as MIN_VOCAB
from workbench.core.recommend import VOCAB_CUT_RESERVE as RESERVE
from workbench.engine.training.lm_training import causal_lm  # the LM under a LoRA wrapper


@dataclass
class VocabularyCut:
    lm: Any
    full_weight: Any
    full_vocab: int
    kept: list[int]
    remap: Any  # numpy int64 array, old id -> new id (-1 where cut)
    padding_idx: int | None
    weight: Any = None  # the kept rows
    cut_padding_idx: int = -1
    _full: bool = field(default=False, repr=False)

    @property
    def size(self) -> int:
        return len(self.kept)

    def new_id(self, old: int) -> int:
        return int(self.remap[int(old)])

    def apply_to(self, features: Iterable[MutableSequence | Mapping]) -> None:
        """Renumber ``input_ids`` and ``labels`` (-100 stays) of the feature dicts in place."""
        remap = self.remap
        for f in features:
            f["input_ids"] = [int(remap[i]) for i in f["input_ids"]]
            if "labels" in f and not isinstance(f["labels"], int):
                f["labels"] = [int(remap[i]) if i >= 0 else i for i in f["labels"]]

    def _use(self, weight, padding_idx, vocab) -> None:
        embed = self.lm.get_input_embeddings()
        embed.weight = weight
        if padding_idx is not None:
            embed._padding_idx = padding_idx
        self.lm.lm_head.weight = weight
        self.lm.config.vocab_size = vocab

    def restore(self) -> None:
        """The full embedding and output layer back, as loaded."""
        self._use(self.full_weight, self.padding_idx, self.full_vocab)
        self._full = True

    @contextlib.contextmanager
    def full_vocabulary(self):
        """Within the block the model has its full vocabulary (an evaluation's loss is then the
        same quantity as an uncut run's and the base model's); swapping costs no copy."""
        if self._full:
            yield
            return
        self._use(self.full_weight, self.padding_idx, self.full_vocab)
        try:
            yield
        finally:
            self._use(self.weight, self.cut_padding_idx if self.padding_idx is not None else None, self.size)


def can_cut(model, method: str) -> bool:
    """A LoRA decoder whose embedding is its output layer (tied) and whose vocabulary is large."""
    lm = causal_lm(model)
    if method != "lora" or lm is None:
        return False
    embed = lm.get_input_embeddings()
    head = getattr(lm.lm_head, "weight", None)
    return (head is not None and embed is not None and head is embed.weight
            and getattr(lm.lm_head, "bias", None) is None and int(lm.config.vocab_size) >= MIN_VOCAB)


def special_ids(tokenizer, extra: Iterable[int] = ()) -> set[int]:
    ids = {int(i) for i in (getattr(tokenizer, "all_special_ids", None) or []) if i is not None and i >= 0}
    for name in ("pad_token_id", "eos_token_id", "bos_token_id", "unk_token_id"):
        value = getattr(tokenizer, name, None)
        if isinstance(value, int) and value >= 0:
            ids.add(value)
    ids.update(int(i) for i in extra if i is not None and i >= 0)
    return ids


def reserve_size() -> int:
    """:data:`RESERVE`; tests of tiny models, whose few tokens all lie in the reserve, lower it
    (``WORKBENCH_VOCAB_CUT_RESERVE``) so that their cut renumbers ids as a real model's does."""
    return int(os.environ.get("WORKBENCH_VOCAB_CUT_RESERVE") or RESERVE)


def cut_vocabulary(model, features: Iterable[Iterable[Mapping[str, Any]]], keep: Iterable[int],
                   reserve: int | None = None) -> VocabularyCut:
    """Replace the tied embedding of ``model`` by the rows of the ids in ``features``
    (``input_ids`` and labels), of ``keep`` and of the first ``reserve`` ids. The features are
    not renumbered here: :meth:`VocabularyCut.apply_to` does it."""
    import numpy as np
    import paddle

    reserve = reserve_size() if reserve is None else reserve
    lm = causal_lm(model)
    full_vocab = int(lm.config.vocab_size)
    seen = np.zeros(full_vocab, dtype=bool)
    seen[: min(reserve, full_vocab)] = True
    for rows in features:
        for f in rows:
            seen[np.asarray(f["input_ids"], dtype=np.int64)] = True
            labels = f.get("labels")
            if labels is not None and not isinstance(labels, int):
                arr = np.asarray(labels, dtype=np.int64)
                seen[arr[arr >= 0]] = True
    for i in keep:
        if 0 <= int(i) < full_vocab:
            seen[int(i)] = True
    kept = np.flatnonzero(seen)
    remap = np.full(full_vocab, -1, dtype=np.int64)
    remap[kept] = np.arange(len(kept), dtype=np.int64)

    embed = lm.get_input_embeddings()
    full_weight = embed.weight
    with paddle.no_grad():
        rows = paddle.gather(full_weight, paddle.to_tensor(kept, dtype="int64"), axis=0)
    weight = paddle.create_parameter(rows.shape, rows.dtype,
                                     default_initializer=paddle.nn.initializer.Assign(rows))
    weight.stop_gradient = True  # LoRA: frozen as the full one was
    padding_idx = getattr(embed, "_padding_idx", None)  # paddle's "none" is -1
    cut_padding = int(remap[padding_idx]) if padding_idx is not None and padding_idx >= 0 else -1
    cut = VocabularyCut(lm=lm, full_weight=full_weight, full_vocab=full_vocab, kept=kept.tolist(), remap=remap,
                        padding_idx=padding_idx, weight=weight, cut_padding_idx=cut_padding)
    cut._use(weight, cut_padding if padding_idx is not None else None, len(kept))
    return cut
