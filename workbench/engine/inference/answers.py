"""Answers of an instruction model: batched generation within a memory budget, the default answer
length, and how much of each prompt fits beside the answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from workbench.engine import examples

DEFAULT_MAX_NEW_TOKENS = 256


def default_max_new_tokens(tokenizer, references: Sequence[str], cap: int = DEFAULT_MAX_NEW_TOKENS) -> int:
    """Enough new tokens for the longer references (p95 length x 1.25 + 8), within [16, cap]."""
    lengths = sorted(len(tokenizer.encode(r or "", add_special_tokens=False)) for r in references) or [0]
    p95 = lengths[min(len(lengths) - 1, int(0.95 * len(lengths)))]
    return int(min(cap, max(16, p95 * 1.25 + 8)))


# Rows generated together: a step reads every weight once for the whole batch, which is
# what a CPU step waits for; the cap on rows x tokens bounds the cache and the prompt pass.
GENERATION_BATCH = 16


GENERATION_BATCH_TOKENS = 16384


def generation_batches(lengths: Sequence[int], max_new_tokens: int, *, batch_size: int = GENERATION_BATCH,
                       max_tokens: int = GENERATION_BATCH_TOKENS) -> list[list[int]]:
    """Row indices in batches of similar prompt length (shortest first), each within
    ``batch_size`` rows and ``max_tokens`` rows x (longest prompt + new tokens)."""
    batches: list[list[int]] = []
    current: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        longest = lengths[i] + max_new_tokens  # sorted: the newest row is the longest
        if current and (len(current) >= batch_size or (len(current) + 1) * longest > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def generate_answers(model, tokenizer, prompts: Sequence[str], *, max_new_tokens: int,
                     max_length: int, progress: Callable[[int, int], None] | None = None,
                     batch_size: int = GENERATION_BATCH, settings=None) -> list[str]:
    """Greedy answers for prompt texts, in their order: generated in batches of similar
    length with the key/value cache, the same answers as one at a time; ``progress`` is
    called as each answer finishes. ``settings`` (a GenerationSettings) samples instead."""
    from workbench.engine.inference.generate import GenerationSettings, answer_text, eos_ids, generate_batch

    if settings is None:
        settings = GenerationSettings(mode="greedy", max_new_tokens=max_new_tokens)
    stops = eos_ids(tokenizer, model)
    encoded, budgets = prompt_budgets(tokenizer, prompts, max_new_tokens=max_new_tokens, max_length=max_length)
    answers: list[str] = [""] * len(prompts)
    done = 0
    answer = answer_text(tokenizer)

    def written_stop(ids: list[int]) -> bool:  # the last tokens wrote a turn marker (fallback format)
        return bool(answer.stop_texts) and answer.cut(ids[-8:])[1]

    for batch in generation_batches([len(e) for e in encoded], max_new_tokens, batch_size=batch_size):
        def finished(j: int, ids: list[int], batch=batch) -> None:
            nonlocal done
            answers[batch[j]] = answer.cut(ids)[0].strip()
            done += 1
            if progress:
                progress(done, len(prompts))

        generate_batch(model, [encoded[i] for i in batch], settings, stops, on_done=finished, stop_when=written_stop,
                       budgets=[budgets[i] for i in batch])
    return answers


def prompt_budgets(tokenizer, prompts: Sequence[str], *, max_new_tokens: int,
                   max_length: int) -> tuple[list[list[int]], list[int]]:
    """Each prompt's token ids and its answer's budget in new tokens, by the bundle's own rule
    (``bundle_runtime.answer_budget``): the prompt is kept whole while the training length
    leaves the answer a small floor, and the answer shrinks first."""
    from workbench.engine.bundle.bundle_runtime import answer_budget

    encoded, budgets = [], []
    for p in prompts:
        ids = examples.encode_prompt(tokenizer, p)
        keep, n_new = answer_budget(len(ids), max_length, max_new_tokens)
        encoded.append(examples._shrink_prompt(ids, keep))
        budgets.append(n_new)
    return encoded, budgets


def budget_note(tokenizer, prompts: Sequence[str], *, max_new_tokens: int, max_length: int) -> dict[str, Any] | None:
    """What the training length did to the answers' budget, for the user (None: nothing)."""
    from workbench.engine.bundle.bundle_runtime import answer_budget

    lengths = [len(examples.encode_prompt(tokenizer, p)) for p in prompts]
    planned = [answer_budget(n, max_length, max_new_tokens) for n in lengths]
    budgets = [b for _, b in planned]
    short = sum(b < max_new_tokens for b in budgets)
    cut = sum(keep < n for n, (keep, _) in zip(lengths, planned))
    if not short and not cut:
        return None
    text = (f"The model was trained on {max_length} tokens, question and answer together, and answers of up to "
            f"{max_new_tokens} new tokens were asked for: {short} of {len(budgets)} answers were given fewer "
            f"(as few as {min(budgets)}), so that each question is read whole.")
    if cut:
        text += (f" {cut} question(s) left no room for even {min(budgets)} new tokens and were cut from the middle, "
                 "as in training.")
    text += " For longer answers, train again with a larger maximum length."
    return {"max_length": max_length, "asked": max_new_tokens, "shortened": short, "rows": len(budgets),
            "smallest": min(budgets), "prompts_cut": cut, "note": text}
