"""Token-by-token generation for evaluation and the playground.

:func:`stream_ids` runs the decoder with its key/value cache (PaddleFormers 1.0.0 needs
explicit ``position_ids`` and a full-length ``attention_mask`` on each cached step; with
them the cached path gives the same greedy tokens as recomputing the whole sequence,
which a test checks for every family). :func:`stream_text` turns the ids into text
pieces as they come: it decodes the whole answer so far and yields what is new, holding
back a piece that ends in an incomplete UTF-8 character (byte-level BPE splits one
Chinese character over several tokens).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class GenerationSettings:
    """``mode`` "greedy" picks the most likely token; "sample" draws from the
    temperature-scaled distribution cut to the smallest set of tokens whose probability
    reaches ``top_p`` (nucleus sampling)."""

    mode: str = "greedy"
    temperature: float = 0.7
    top_p: float = 0.9
    max_new_tokens: int = 128
    seed: int | None = None
    stop_ids: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.mode not in ("greedy", "sample"):
            raise ValueError("mode must be 'greedy' or 'sample'")
        if self.max_new_tokens < 1:
            raise ValueError("max_new_tokens must be at least 1")
        if self.mode == "sample":
            if not self.temperature > 0:
                raise ValueError("temperature must be above 0")
            if not 0 < self.top_p <= 1:
                raise ValueError("top_p must be in (0, 1]")

    @classmethod
    def from_request(cls, req: dict[str, Any]) -> "GenerationSettings":
        return cls(
            mode=str(req.get("mode", "greedy")),
            temperature=float(req.get("temperature", 0.7)),
            top_p=float(req.get("top_p", 0.9)),
            max_new_tokens=int(req.get("max_new_tokens", 128)),
            seed=req.get("seed"),
        )


def eos_ids(tokenizer, model=None) -> list[int]:
    """Token ids that end an answer: the tokenizer's end token and the model's."""
    ids: list[int] = []
    for value in (getattr(tokenizer, "eos_token_id", None),
                  getattr(getattr(model, "config", None), "eos_token_id", None)):
        for v in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(v, int) and v not in ids:
                ids.append(v)
    return ids


def pick_token(logits, settings: GenerationSettings, rng) -> int:
    """The next token from a 1-D numpy array of logits."""
    import numpy as np

    if settings.mode == "greedy":
        return int(np.argmax(logits))
    x = logits.astype("float64") / settings.temperature
    x -= x.max()
    p = np.exp(x)
    p /= p.sum()
    order = np.argsort(-p)
    cum = np.cumsum(p[order])
    keep = order[: int(np.searchsorted(cum, settings.top_p) + 1)]
    q = p[keep] / p[keep].sum()
    return int(keep[rng.choice(len(keep), p=q)])


def stream_ids(model, prompt_ids: Sequence[int], settings: GenerationSettings,
               stop_ids: Iterable[int] = ()) -> Iterator[int]:
    """Yield generated token ids one by one (the stop token is not yielded)."""
    import numpy as np
    import paddle

    stops = set(stop_ids) | set(settings.stop_ids)
    rng = np.random.default_rng(settings.seed)
    ids = list(prompt_ids)
    if not ids:
        raise ValueError("the prompt is empty")
    max_pos = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    budget = settings.max_new_tokens
    if max_pos:
        budget = min(budget, max(int(max_pos) - len(ids), 0))
    was_training = model.training
    model.eval()
    try:
        with paddle.no_grad():
            n = len(ids)
            out = model(paddle.to_tensor([ids], dtype="int64"), use_cache=True, return_dict=True)
            past = out.past_key_values
            for k in range(budget):
                logits = out.logits[0, -1].astype("float32").numpy()
                token = pick_token(logits, settings, rng)
                if token in stops:
                    return
                yield token
                if k == budget - 1:
                    return
                total = n + k + 1
                out = model(paddle.to_tensor([[token]], dtype="int64"),
                            position_ids=paddle.to_tensor([[total - 1]], dtype="int64"),
                            attention_mask=paddle.ones([1, total], dtype="int64"),
                            past_key_values=past, use_cache=True, return_dict=True)
                past = out.past_key_values
    finally:
        if was_training:
            model.train()


def stream_text(model, tokenizer, prompt_ids: Sequence[int], settings: GenerationSettings) -> Iterator[str]:
    """Yield the answer as text pieces while it is generated."""
    generated: list[int] = []
    shown = ""
    for token in stream_ids(model, prompt_ids, settings, stop_ids=eos_ids(tokenizer, model)):
        generated.append(token)
        text = tokenizer.decode(generated, skip_special_tokens=True)
        if text.endswith("\ufffd"):
            continue  # an incomplete character: wait for its next byte
        if len(text) > len(shown) and text.startswith(shown):
            yield text[len(shown):]
            shown = text
        elif text != shown:  # a decoder that rewrote earlier text (rare); send the rest
            common = 0
            while common < min(len(text), len(shown)) and text[common] == shown[common]:
                common += 1
            if len(text) > common:
                yield text[common:]
            shown = text
    text = tokenizer.decode(generated, skip_special_tokens=True) if generated else ""
    if text != shown and text.startswith(shown) and len(text) > len(shown):
        yield text[len(shown):]


def generate_text(model, tokenizer, prompt_ids: Sequence[int], settings: GenerationSettings) -> str:
    """The whole answer as one string."""
    generated = list(stream_ids(model, prompt_ids, settings, stop_ids=eos_ids(tokenizer, model)))
    return tokenizer.decode(generated, skip_special_tokens=True).strip()
