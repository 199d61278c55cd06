"""Two answers to each question from a run's model, for the person to choose between.

Both answers are sampled (temperature and nucleus, the repetition guards on), with different
seeds; a question whose two answers come out the same text is sampled again with new seeds for
its second answer, a few times, and flagged ``identical`` if they stay the same (a model sure
of one answer gives a person nothing to choose).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from workbench.core.cleaning import normalize_record
from workbench.core.feedback import AnswerPair
from workbench.core.project import Project
from workbench.core.trained import resolve_trained_run
from workbench.engine import examples
from workbench.engine.inference.answers import default_max_new_tokens, generate_answers

TEMPERATURE = 0.9
TOP_P = 0.95
RESAMPLE_TRIES = 3


def pick_rows(records: Sequence[Mapping[str, Any]], rows: int, seed: int) -> list[Mapping[str, Any]]:
    """``rows`` records drawn with ``seed`` (all of them if there are fewer), in file order."""
    if rows >= len(records):
        return list(records)
    keep = sorted(random.Random(seed).sample(range(len(records)), rows))
    return [records[i] for i in keep]


def sample_pairs(project_dir, run_id: str, records: Sequence[Mapping[str, Any]], *, seed: int = 0,
                 temperature: float = TEMPERATURE, top_p: float = TOP_P, max_new_tokens: int | None = None,
                 device: str = "cpu", progress: Callable[[str, int, int], None] | None = None) -> list[AnswerPair]:
    """A pair of sampled answers for each record (a prepared row, or any object with the
    template's input fields; ``output`` is kept as the reference)."""
    from workbench.engine.inference.generate import GenerationSettings
    from workbench.engine.inference.trained import load_trained, system_prompt
    from workbench.engine.models import loading

    loading.set_library_log_level("ERROR")
    project = Project.open(project_dir)
    trained = resolve_trained_run(project, run_id)
    spec = trained.spec
    model, tokenizer = load_trained(trained, device=device)
    system, user_format = examples.prompt_spec(model, system_prompt(spec), spec.user_format, spec.input_roles)
    recipe = project.config.recipe
    users = [examples.format_user(user_format, normalize_record(dict(r), recipe)) for r in records]
    prompts = [examples.build_prompt(tokenizer, system, u) for u in users]
    references = [str(r["output"]) if r.get("output") not in (None, "") else None for r in records]
    if max_new_tokens is None:
        max_new_tokens = default_max_new_tokens(tokenizer, [r for r in references if r]) if any(references) else 128
    max_length = trained.job.max_length

    def sampled(seed_: int, idx: list[int], stage: str) -> list[str]:
        settings = GenerationSettings(mode="sample", temperature=temperature, top_p=top_p,
                                      max_new_tokens=max_new_tokens, seed=seed_)
        report = (lambda done, total: progress(stage, done, total)) if progress else None
        return generate_answers(model, tokenizer, [prompts[i] for i in idx], max_new_tokens=max_new_tokens,
                                max_length=max_length, progress=report, settings=settings)

    every = list(range(len(prompts)))
    a = sampled(seed, every, "answers a")
    b = sampled(seed + 1, every, "answers b")
    seeds_b = [seed + 1] * len(prompts)
    for attempt in range(RESAMPLE_TRIES):
        same = [i for i in every if a[i].strip() == b[i].strip()]
        if not same:
            break
        new_seed = seed + 2 + attempt
        for i, text in zip(same, sampled(new_seed, same, "sampling again")):
            b[i], seeds_b[i] = text, new_seed
    generation = {"mode": "sample", "temperature": temperature, "top_p": top_p, "max_new_tokens": max_new_tokens,
                  "repetition_penalty": GenerationSettings().repetition_penalty,
                  "no_repeat_ngram": GenerationSettings().no_repeat_ngram}
    return [AnswerPair(prompt=users[i], a=a[i], b=b[i], reference=references[i], identical=a[i].strip() == b[i].strip(),
                       run=trained.run_id, checkpoint=trained.source, row_id=records[i].get("row_id"),
                       generation={**generation, "seed_a": seed, "seed_b": seeds_b[i]})
            for i in every]
