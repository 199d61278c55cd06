"""Token-by-token generation for evaluation and the playground.

:func:`stream_ids` runs the decoder with its key/value cache (PaddleFormers 1.0.0 needs
explicit ``position_ids`` and a full-length ``attention_mask`` on each cached step; with
them the cached path gives the same greedy tokens as recomputing the whole sequence,
which a test checks for every family). :func:`stream_text` turns the ids into text
pieces as they come: it decodes the whole answer so far and yields what is new, holding
back a piece that ends in an incomplete UTF-8 character (byte-level BPE splits one
Chinese character over several tokens).

A pretrained model answering greedily repeats itself; the repetition guards
(:data:`DEFAULT_REPETITION_PENALTY`, :data:`DEFAULT_NO_REPEAT_NGRAM`, applied by the same
code an exported bundle runs, ``bundle_runtime.pick_next``) are on by default, in
evaluation, the playground and the bundle alike. An answer ends at the end-of-sequence
token and at the chat template's end-of-turn token (Gemma's ``<end_of_turn>``, ChatML's
``<|im_end|>``), see :func:`eos_ids`, and where the prompt is in the fallback format (no
chat template) at its turn markers written as text (``<user>``), see :func:`answer_text`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# Checked on Gemma 3 270M (base): greedy continuations without a guard fell into loops
# within 40 tokens; with these they stayed fluent (see tests/engine/test_gemma3.py).
DEFAULT_REPETITION_PENALTY = 1.15
DEFAULT_NO_REPEAT_NGRAM = 4

# An export's answers are this many new tokens at most unless its evaluation chose a length
DEFAULT_EXPORT_NEW_TOKENS = 128


def export_generation(*, max_new_tokens: int | None, context: int) -> dict[str, Any]:
    """The one set of generation settings an export writes: bundle.json's ``generation``
    (predict.py and serve.py read it) and the ollama Modelfile's PARAMETER lines
    (:func:`workbench.engine.gguf.modelfile.parameters`) come from this dict alone.

    Greedy, as the evaluation decodes; the repetition guards the evaluation used; at most
    ``max_new_tokens`` new tokens (the evaluation's length); ``context`` is the training
    length, prompt and answer together (what serve.py allows and the Modelfile's num_ctx)."""
    return {"mode": "greedy", "repetition_penalty": float(DEFAULT_REPETITION_PENALTY),
            "no_repeat_ngram": int(DEFAULT_NO_REPEAT_NGRAM),
            "max_new_tokens": int(max_new_tokens or DEFAULT_EXPORT_NEW_TOKENS), "context": int(context)}


# End-of-turn tokens of common chat formats, used when the chat template cannot be probed.
END_OF_TURN_TOKENS = ("<end_of_turn>", "<|im_end|>", "<|eot_id|>", "<|end|>")


@dataclass
class GenerationSettings:
    """``mode`` "greedy" picks the most likely token; "sample" draws from the
    temperature-scaled distribution cut to the smallest set of tokens whose probability
    reaches ``top_p`` (nucleus sampling). Before either, ``repetition_penalty`` (1 = none)
    lowers the logits of tokens already generated and ``no_repeat_ngram`` (0 = none) bans
    a token that would repeat an n-gram of the answer."""

    mode: str = "greedy"
    temperature: float = 0.7
    top_p: float = 0.9
    max_new_tokens: int = 128
    seed: int | None = None
    stop_ids: list[int] = field(default_factory=list)
    repetition_penalty: float = DEFAULT_REPETITION_PENALTY
    no_repeat_ngram: int = DEFAULT_NO_REPEAT_NGRAM

    def __post_init__(self) -> None:
        if self.mode not in ("greedy", "sample"):
            raise ValueError("mode must be 'greedy' or 'sample'")
        if self.max_new_tokens < 1:
            raise ValueError("max_new_tokens must be at least 1")
        if not self.repetition_penalty > 0:
            raise ValueError("repetition_penalty must be above 0 (1 means none)")
        if self.no_repeat_ngram < 0:
            raise ValueError("no_repeat_ngram must be 0 (none) or more")
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
            repetition_penalty=float(req.get("repetition_penalty", DEFAULT_REPETITION_PENALTY)),
            no_repeat_ngram=int(req.get("no_repeat_ngram", DEFAULT_NO_REPEAT_NGRAM)),
        )

    @classmethod
    def plain_greedy(cls, max_new_tokens: int) -> "GenerationSettings":
        """The model's own most likely tokens, no guard: for checking one model against another."""
        return cls(mode="greedy", max_new_tokens=max_new_tokens, repetition_penalty=1.0, no_repeat_ngram=0)

    def guard(self) -> dict[str, Any]:
        """The repetition guards, as an exported bundle carries them ("generation" in bundle.json)."""
        return {"repetition_penalty": float(self.repetition_penalty), "no_repeat_ngram": int(self.no_repeat_ngram)}


def _add(ids: list[int], value) -> None:
    for v in value if isinstance(value, (list, tuple)) else [value]:
        if isinstance(v, int) and not isinstance(v, bool) and v >= 0 and v not in ids:
            ids.append(v)


def end_of_turn_ids(tokenizer) -> list[int]:
    """The special token(s) the chat template writes right after an assistant's answer
    (Gemma ``<end_of_turn>``, ChatML ``<|im_end|>``), and the common end-of-turn tokens the
    vocabulary holds as special tokens."""
    ids: list[int] = []
    special = set(getattr(tokenizer, "all_special_ids", None) or [])
    try:
        special |= {int(i) for i in (tokenizer.get_added_vocab() or {}).values()}
    except Exception:
        pass
    if getattr(tokenizer, "chat_template", None):
        marker = "ANSWER_ENDS_HERE"
        try:
            text = tokenizer.apply_chat_template(
                [{"role": "user", "content": "hi"}, {"role": "assistant", "content": marker}],
                tokenize=False, add_generation_prompt=False)
            after = text[text.index(marker) + len(marker):]
            first = list(tokenizer.encode(after, add_special_tokens=False))[:1] if after else []
            if first and first[0] in special:
                _add(ids, first[0])
        except Exception:  # a template that refuses this conversation: the names below still work
            pass
    vocab = tokenizer.get_vocab() if hasattr(tokenizer, "get_vocab") else {}
    for name in END_OF_TURN_TOKENS:
        if name in vocab and vocab[name] in special:
            _add(ids, vocab[name])
    return ids


def eos_ids(tokenizer, model=None) -> list[int]:
    """Token ids that end an answer: the tokenizer's end token, the model's (config and
    generation config, one id or a list) and the chat format's end-of-turn token."""
    ids: list[int] = []
    _add(ids, getattr(tokenizer, "eos_token_id", None))
    _add(ids, getattr(getattr(model, "config", None), "eos_token_id", None))
    _add(ids, getattr(getattr(model, "generation_config", None), "eos_token_id", None))
    for i in end_of_turn_ids(tokenizer):
        _add(ids, i)
    return ids


def pick_token(logits, settings: GenerationSettings, rng, generated: Sequence[int] = ()) -> int:
    """The next token from a 1-D numpy array of logits, after the repetition guards for
    the tokens ``generated`` so far (the bundle's own code, so both choose alike)."""
    from workbench.engine.bundle.bundle_runtime import pick_next

    return pick_next(logits, list(generated), rng, settings.mode, settings.temperature, settings.top_p,
                     settings.repetition_penalty, settings.no_repeat_ngram)


class _LastPosition:
    """The output layer on the last position only: a generation step needs one row of
    logits, and Gemma's 262k x 640 layer over a whole prompt costs more than the decoder
    (a forward pre-hook, so each family's own forward still runs as written, softcapping
    included). Registered around one call, never left on the model."""

    def __init__(self, model):
        self.head = getattr(model, "lm_head", None)
        self.handle = None

    def __enter__(self):
        if self.head is not None:
            self.handle = self.head.register_forward_pre_hook(
                lambda layer, inputs: (inputs[0][:, -1:], *inputs[1:]))
        return self

    def __exit__(self, *exc):
        if self.handle is not None:
            self.handle.remove()


def _step(model, ids, mask, positions, past):
    """One forward with the cache: ``(float32 logits [batch, vocab] as numpy, cache)``."""
    import paddle

    kw = {"position_ids": paddle.to_tensor(positions, dtype="int64")}
    if past is not None:
        kw["past_key_values"] = past
    with _LastPosition(model):
        out = model(paddle.to_tensor(ids, dtype="int64"), attention_mask=paddle.to_tensor(mask, dtype="int64"),
                    use_cache=True, return_dict=True, **kw)
    return out.logits[:, -1].astype("float32").numpy(), out.past_key_values


def _budget(model, n_prompt: int, settings: GenerationSettings, asked: int | None = None) -> int:
    max_pos = getattr(getattr(model, "config", None), "max_position_embeddings", None)
    budget = settings.max_new_tokens if asked is None else int(asked)
    if max_pos:
        budget = min(budget, max(int(max_pos) - n_prompt, 0))
    return budget


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
    budget = _budget(model, len(ids), settings)
    was_training = model.training
    model.eval()
    try:
        with paddle.no_grad():
            n = len(ids)
            logits, past = _step(model, [ids], np.ones([1, n], dtype="int64"), [list(range(n))], None)
            generated: list[int] = []
            for k in range(budget):
                token = pick_token(logits[0], settings, rng, generated)
                if token in stops:
                    return
                generated.append(token)
                yield token
                if k == budget - 1:
                    return
                total = n + k + 1
                logits, past = _step(model, [[token]], np.ones([1, total], dtype="int64"), [[total - 1]], past)
    finally:
        if was_training:
            model.train()


def generate_batch(model, prompts: Sequence[Sequence[int]], settings: GenerationSettings,
                   stop_ids: Iterable[int] = (),
                   on_done: Callable[[int, list[int]], None] | None = None,
                   stop_when: Callable[[list[int]], bool] | None = None,
                   budgets: Sequence[int] | None = None) -> list[list[int]]:
    """The generated ids of several prompts at once, the same as :func:`stream_ids` gives
    each alone (a row's own guards, stops, budget and random stream seeded alike).

    The prompts go in left-padded, each row with its own positions and attention mask;
    the cache is one batch. Weights are read once per step for the whole batch, which is
    what a step on a CPU waits for. A finished row leaves the batch (its cache rows are
    dropped) and ``on_done(index, ids)`` is called; ``stop_when(ids)`` (optional) ends a row
    whose answer so far it finds complete (a turn marker written as text); ``budgets`` (optional)
    gives each row its own number of new tokens in place of ``settings.max_new_tokens``. Left padding keeps each row's
    positions contiguous at the end, so distances between cache slots are distances in
    the text, which Gemma's sliding-window mask relies on."""
    import numpy as np
    import paddle

    stops = set(stop_ids) | set(settings.stop_ids)
    rows = [list(p) for p in prompts]
    if any(not r for r in rows):
        raise ValueError("a prompt is empty")
    results: list[list[int]] = [[] for _ in rows]
    if not rows:
        return results
    lengths = np.array([len(r) for r in rows], dtype="int64")
    budgets = [_budget(model, len(r), settings, None if budgets is None else budgets[i]) for i, r in enumerate(rows)]
    rngs = [np.random.default_rng(settings.seed) for _ in rows]
    width = int(lengths.max())
    pad = 0  # any id: padded slots are masked out
    ids = np.full([len(rows), width], pad, dtype="int64")
    mask = np.zeros([len(rows), width], dtype="int64")
    for b, r in enumerate(rows):
        ids[b, width - len(r):] = r
        mask[b, width - len(r):] = 1
    positions = np.maximum(np.cumsum(mask, axis=1) - 1, 0)
    active = list(range(len(rows)))  # original index of each batch row
    was_training = model.training
    model.eval()
    try:
        with paddle.no_grad():
            logits, past = _step(model, ids, mask, positions, None)
            while active:
                keep, tokens = [], []
                for j, b in enumerate(active):
                    done = budgets[b] == 0
                    if not done:
                        token = pick_token(logits[j], settings, rngs[b], results[b])
                        done = token in stops
                        if not done:
                            results[b].append(token)
                            done = len(results[b]) >= budgets[b] or (stop_when is not None and stop_when(results[b]))
                    if done:
                        if on_done is not None:
                            on_done(b, results[b])
                    else:
                        keep.append(j)
                        tokens.append(results[b][-1])
                if not keep:
                    break
                if len(keep) < len(active):
                    past.batch_select_indices(paddle.to_tensor(keep, dtype="int64"))
                    mask = mask[keep]
                    active = [active[j] for j in keep]
                mask = np.concatenate([mask, np.ones([len(active), 1], dtype="int64")], axis=1)
                pos = np.array([[lengths[b] + len(results[b]) - 1] for b in active], dtype="int64")
                logits, past = _step(model, np.array(tokens, dtype="int64")[:, None], mask, pos, past)
    finally:
        if was_training:
            model.train()
    return results


def answer_text(tokenizer):
    """The answer's text as its tokens come: decoded, ended at the fallback format's turn markers."""
    from workbench.engine.bundle.bundle_runtime import AnswerText
    from workbench.engine.examples import stop_texts

    return AnswerText(lambda ids: tokenizer.decode(ids, skip_special_tokens=True), stop_texts(tokenizer))


def stream_text(model, tokenizer, prompt_ids: Sequence[int], settings: GenerationSettings) -> Iterator[str]:
    """Yield the answer as text pieces while it is generated."""
    answer = answer_text(tokenizer)
    for token in stream_ids(model, prompt_ids, settings, stop_ids=eos_ids(tokenizer, model)):
        piece = answer.add(token)
        if piece:
            yield piece
        if answer.stopped:
            return
    piece = answer.finish()
    if piece:
        yield piece


def generate_text(model, tokenizer, prompt_ids: Sequence[int], settings: GenerationSettings) -> str:
    """The whole answer as one string."""
    return "".join(stream_text(model, tokenizer, prompt_ids, settings)).strip()
