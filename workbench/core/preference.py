"""From judgements to preference pairs: what a DPO run trains on, the share it holds out, the
two preference-data formats PaddleFormers reads, and the settings recommended for the pairs.

A pair is (question, chosen answer, rejected answer):

* a choice "a" or "b" between two answers gives one pair; a tie gives none;
* a rewrite is the chosen answer against the answer it rewrote;
* thumbs alone pair the good and the bad answers of the same question (at most
  :data:`MAX_PAIRS_PER_PROMPT` a question). A good answer with no bad one beside it is not a
  contrast DPO can learn from; it is counted and reported, not used. (Training on the good
  answers alone is ordinary instruction tuning, which a run on the rows already does.)

A seeded share of at least :data:`HELDOUT_SHARE` of the pairs is held out, whole questions at
a time (two answers to one question on both sides would tell the held-out score the answer).
A run keeps the pairs it trained on in its folder (:data:`RUN_PAIRS_FILE`), so a resume, a
run on a server and a later look all read the same pairs.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .errors import DataError
from . import feedback
from .feedback import Judgement
from .fsutil import atomic_write_text

RUN_PAIRS_FILE = "preferences.jsonl"
HELDOUT_SHARE = 0.2
MAX_PAIRS_PER_PROMPT = 4
# the fewest pairs a run starts with: one to train and one, about another question, held out
MIN_PAIRS = 2
# under this many training pairs the held-out score moves little and by chance
FEW_PAIRS = 20
FORMATS = ("erniekit", "chatml")
# the losses PaddleFormers' DPO criterion has (paddleformers/nn/criterion/dpo_loss.py); "orpo" is
# its "or" loss without a reference plus the SFT loss on the chosen answer, as its DPO workflow
# (paddleformers/cli/train/dpo/workflow.py) maps it; "sft" is that SFT loss alone (the criterion's
# sft_loss_ratio, its preference term weighted 0): instruction tuning on the chosen answers, what
# thumbs-up answers teach without a contrast
DPO_LOSSES = ("sigmoid", "ipo", "hinge", "kto_pair", "simpo", "orpo", "sft")
REFERENCE_FREE_LOSSES = ("simpo", "orpo", "sft")
# the loss for pairs made of thumbs alone: on 480 such pairs of builtin:small's answers to medical
# questions, kto_pair reached a held-out preference accuracy of 0.650 (120 pairs) with ROUGE-L
# unchanged, sft 0.575 with ROUGE-L 0.010 lower (beyond the noise), sigmoid 0.675, which matches
# kto_pair (docs/training.md#preference-tuning)
THUMBS_LOSS = "kto_pair"


@dataclass
class PreferencePair:
    prompt: str
    chosen: str
    rejected: str
    origin: str  # "choice", "rewrite" or "ratings"
    judgements: list[str] = field(default_factory=list)
    split: str = "train"  # or "heldout"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PairCounts:
    pairs: int = 0
    from_choices: int = 0
    from_rewrites: int = 0
    from_ratings: int = 0
    ties: int = 0
    identical: int = 0  # a choice between two answers that are the same text
    unpaired_good: int = 0  # good answers with no bad answer to the same question
    unpaired_bad: int = 0
    heldout: int = 0  # of ``pairs``, held out (set where the pairs were split: :func:`training_pairs`)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def preference_pairs(items: Sequence[Judgement]) -> tuple[list[PreferencePair], PairCounts]:
    """The pairs the judgements in force make, in the order they were given, without repeats."""
    pairs: list[PreferencePair] = []
    counts = PairCounts()
    seen: set[tuple[str, str, str]] = set()

    def add(prompt: str, chosen: str, rejected: str, origin: str, ids: list[str]) -> bool:
        key = (prompt, chosen.strip(), rejected.strip())
        if key[1] == key[2] or key in seen:
            return False
        seen.add(key)
        pairs.append(PreferencePair(prompt, chosen, rejected, origin, ids))
        return True

    good: dict[str, list[Judgement]] = {}
    bad: dict[str, list[Judgement]] = {}
    for j in items:
        if j.kind == "choice":
            if j.choice == "tie":
                counts.ties += 1
                continue
            chosen, rejected = (j.answers[0], j.answers[1]) if j.choice == "a" else (j.answers[1], j.answers[0])
            if add(j.prompt, chosen, rejected, "choice", [j.id]):
                counts.from_choices += 1
            elif chosen.strip() == rejected.strip():
                counts.identical += 1
        elif j.kind == "rating":
            if j.rewrite is not None and add(j.prompt, j.rewrite, j.answers[0], "rewrite", [j.id]):
                counts.from_rewrites += 1
            (good if j.rating == 1 else bad).setdefault(j.prompt, []).append(j)
    for prompt, goods in good.items():
        bads = bad.get(prompt, [])
        if not bads:
            counts.unpaired_good += len(goods)
            continue
        made = 0
        for g in goods:
            for b in bads:
                if made < MAX_PAIRS_PER_PROMPT and add(prompt, g.answers[0], b.answers[0], "ratings", [g.id, b.id]):
                    made += 1
                    counts.from_ratings += 1
    counts.unpaired_bad = sum(1 for p, b in bad.items() if p not in good for j in b if j.rewrite is None)
    counts.pairs = len(pairs)
    return pairs, counts


def hold_out(pairs: Sequence[PreferencePair], seed: int = 42, share: float = HELDOUT_SHARE) -> list[PreferencePair]:
    """The pairs with ``split`` set: whole questions, in an order drawn from ``seed``, are held
    out until at least ``share`` of the pairs are (at least one question where there are two)."""
    prompts: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        prompts.setdefault(p.prompt, []).append(i)
    order = sorted(prompts, key=lambda q: hashlib.sha256(f"{seed}\0{q}".encode("utf-8")).hexdigest())
    need = math.ceil(share * len(pairs)) if len(prompts) > 1 else 0
    held: set[int] = set()
    for q in order:
        if len(held) >= need:
            break
        if len(held) + len(prompts[q]) < len(pairs):  # some pairs always train
            held.update(prompts[q])
    return [PreferencePair(p.prompt, p.chosen, p.rejected, p.origin, list(p.judgements),
                           "heldout" if i in held else "train") for i, p in enumerate(pairs)]


def write_run_pairs(run_dir: str | os.PathLike, pairs: Sequence[PreferencePair]) -> Path:
    text = "".join(json.dumps(p.to_dict(), ensure_ascii=False) + "\n" for p in pairs)
    return atomic_write_text(Path(run_dir) / RUN_PAIRS_FILE, text)


def read_run_pairs(run_dir: str | os.PathLike) -> list[PreferencePair]:
    path = Path(run_dir) / RUN_PAIRS_FILE
    if not path.is_file():
        raise DataError(f"{path} is missing: the run does not know which judgements it trains on. Start a new "
                        "preference run.", code="dpo_pairs_missing", path=str(path))
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(PreferencePair(d["prompt"], d["chosen"], d["rejected"], d.get("origin", "choice"),
                                      list(d.get("judgements") or []), d.get("split", "train")))
    return out


def training_pairs(root: str | os.PathLike, seed: int) -> tuple[list[PreferencePair], PairCounts]:
    """The judgements in force as pairs with their held-out share; refused when there is nothing to
    learn from."""
    pairs, counts = preference_pairs(feedback.load(root))
    if not pairs:
        why = (f" {counts.unpaired_good} answer(s) rated good have no answer rated bad to the same question;"
               if counts.unpaired_good else "")
        raise DataError(
            f"There are no preference pairs to train on yet.{why} Choose between two answers ('workbench feedback "
            "pairs', then 'feedback add'), rewrite an answer rated bad, or rate good and bad answers to the same "
            "question.", code="dpo_no_pairs", unpaired_good=counts.unpaired_good)
    split = hold_out(pairs, seed=seed)
    if not any(p.split == "heldout" for p in split):
        raise DataError(
            f"All {len(pairs)} preference pair(s) are about one question, so none can be held out to show whether "
            "tuning helped. Judge answers to at least two questions.", code="dpo_too_few_pairs", pairs=len(pairs))
    counts.heldout = sum(1 for p in split if p.split == "heldout")
    return split, counts


def freeze_pairs(root: str | os.PathLike, run_dir: str | os.PathLike, seed: int) -> list[PreferencePair]:
    """Write the pairs a new preference run trains on into its folder, held-out share marked."""
    pairs, _ = training_pairs(root, seed)
    write_run_pairs(run_dir, pairs)
    return pairs


# ----- the two preference-data formats PaddleFormers reads -----------------------------------
# Followed: paddleformers/datasets/reader/convertor.py (1.0.0). "erniekit" is convert_dpo_txt_data:
# "src" the user turns, "tgt" the assistant turns between them (none for one question), two
# "response"s and their "sort" (the higher one is chosen), an optional "system". "chatml" is what
# its "messages" reader passes through to DPODataset._preprocess_dpo_example: the conversation in
# "messages" (system and user turns), "chosen_response" and "rejected_response" as assistant turns.


def to_format(pair: PreferencePair, fmt: str, system: str | None = None) -> dict[str, Any]:
    if fmt == "erniekit":
        out: dict[str, Any] = {"src": [pair.prompt], "tgt": [], "response": [[pair.chosen], [pair.rejected]],
                               "sort": [1, 0]}
        if system:
            out["system"] = system
        return out
    if fmt == "chatml":
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": pair.prompt}]
        return {"messages": messages, "chosen_response": [{"role": "assistant", "content": pair.chosen}],
                "rejected_response": [{"role": "assistant", "content": pair.rejected}]}
    raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")


def from_format(obj: Mapping[str, Any], fmt: str) -> tuple[str, str, str]:
    """``(prompt, chosen, rejected)`` of one line in ``fmt``, as PaddleFormers reads it."""
    if fmt == "erniekit":
        responses = [r[0] if isinstance(r, list) else r for r in obj["response"]]
        first = obj["sort"][0] > obj["sort"][1]
        chosen, rejected = (responses[0], responses[1]) if first else (responses[1], responses[0])
        return obj["src"][-1], chosen, rejected
    if fmt == "chatml":
        user = [m["content"] for m in obj["messages"] if m["role"] == "user"][-1]
        return user, obj["chosen_response"][-1]["content"], obj["rejected_response"][-1]["content"]
    raise ValueError(f"unknown format {fmt!r}; expected one of {FORMATS}")


# ----- settings ------------------------------------------------------------------------------


@dataclass
class PreferenceRecommendation:
    epochs: float
    learning_rate: float
    beta: float
    batch_size: int
    max_length: int
    eval_steps: int
    est_seconds: float | None
    notes: list[str] = field(default_factory=list)
    # what each note is about, for a front end that words them itself: "over_budget", "few_pairs"
    note_codes: list[str] = field(default_factory=list)
    loss: str = "sigmoid"  # for the pairs' kind: see recommended_loss

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# A DPO step reads each pair once without gradients for the reference (the adapter off) and once
# with them for the policy: about 1.5x a LoRA step's work over the same tokens.
DPO_STEP_FACTOR = 1.5
# What a preference run spends besides its steps (the worker's clock): preparing the model it
# starts from (the first run's adapter merged and kept beside the run), judging the held-out pairs
# before the first step and again after the last, saving. On 2 cores: builtin:small (4.7M
# parameters) 13.5 s before its first step and 17 s after its last (40 held-out pairs, the
# processor 63 % busy); Gemma 3 270M 79-93 s before and 135-143 s after (10 pairs, idle). The
# tuning dialog showed seconds for a builtin:small run that took more than a minute.
PREFERENCE_FIXED_S = 14.0
PREFERENCE_S_PER_MPARAM = 0.77


def recommended_loss(counts: PairCounts) -> str:
    """The loss for the pairs the judgements make: :data:`THUMBS_LOSS` where every pair comes from
    thumbs (a good and a bad answer to one question, each judged alone), else the DPO paper's."""
    return THUMBS_LOSS if counts.pairs and counts.from_ratings == counts.pairs else "sigmoid"


def recommend_preference(train_pairs: int, mean_chars: float, max_chars: float, *, cfg: dict | None = None,
                         device: str = "cpu", time_budget_min: float | None = None,
                         loss: str = "sigmoid") -> PreferenceRecommendation:
    """Settings for ``train_pairs`` pairs whose question and two answers come to ``mean_chars``
    characters on average (``max_chars`` the longest). Few pairs get more passes and a larger
    beta (the tuned model stays nearer the run it starts from where the evidence is thin)."""
    from .recommend import (AVG_TOKENS_PER_CHAR, CPU_DECODER_FLOP_S, DEFAULT_TIME_BUDGET_MIN, GPU_SPEEDUP,
                            config_params, decoder_flops_per_token)

    notes: list[str] = []
    codes: list[str] = []
    epochs = 3.0 if train_pairs < 200 else 2.0 if train_pairs < 1000 else 1.0
    beta = 0.2 if train_pairs < 200 else 0.1
    # LoRA on a CPU budget: 5e-5 (a usual full-model DPO rate) barely moved the adapter in tens of
    # steps; 5e-4 gave the best held-out figures on builtin:small and Gemma 3 270M, 2e-3 overshot
    # (docs/training.md#preference-tuning)
    lr = 5e-4
    batch = 4
    max_length = int(min(1024, max(128, 32 * math.ceil((max_chars + 64) / 32))))
    steps = max(1, math.ceil(train_pairs / batch) * int(math.ceil(epochs)))
    eval_steps = max(1, math.ceil(steps / 4))
    est = None
    if cfg is not None:
        tok_s = CPU_DECODER_FLOP_S / decoder_flops_per_token(cfg, "lora", 1.0)
        if not device.startswith("cpu"):
            tok_s *= GPU_SPEEDUP
        tokens = train_pairs * epochs * mean_chars * AVG_TOKENS_PER_CHAR
        heldout = max(1, train_pairs // 4) * mean_chars * AVG_TOKENS_PER_CHAR * 4  # four evaluations, two passes
        fixed = PREFERENCE_FIXED_S + PREFERENCE_S_PER_MPARAM * config_params(cfg) / 1e6
        est = (tokens * DPO_STEP_FACTOR + heldout * 0.5) / tok_s + fixed
        budget = max(DEFAULT_TIME_BUDGET_MIN if time_budget_min is None else time_budget_min, 0.1) * 60
        if est > budget:
            fit = max(0.05, budget / est * epochs)
            notes.append(f"{epochs:g} passes over the pairs take about {est / 60:.0f} minutes here, more than the "
                         f"time budget of {budget / 60:g} minutes; the run ends at the budget.")
            codes.append("over_budget")
            est = budget
            epochs = min(epochs, max(round(fit, 2), 0.05))
    if train_pairs < FEW_PAIRS:
        notes.append(f"Only {train_pairs} pairs train: expect the held-out score to move little and by chance. "
                     "Tens of judgements make a difference, hundreds a reliable one.")
        codes.append("few_pairs")
    return PreferenceRecommendation(epochs=epochs, learning_rate=lr, beta=beta, batch_size=batch,
                                    max_length=max_length, eval_steps=eval_steps, est_seconds=est, notes=notes,
                                    note_codes=codes, loss=loss)


def pair_chars(pairs: Sequence[PreferencePair]) -> tuple[float, float]:
    """Mean and longest characters of a pair: the question and both answers."""
    sizes = [len(p.prompt) + len(p.chosen) + len(p.rejected) for p in pairs] or [0]
    return sum(sizes) / len(sizes), float(max(sizes))
