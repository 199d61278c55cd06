"""Propose training settings and estimate time and memory from the data, model and device.

The throughput figures are measurements from this project's benchmarks (CPU: about 900
tokens/s for the 4.7M-parameter built-in small model on 2 cores); they scale with the
parameter count, so an estimate is a guide, not a promise, and the UI says so.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .jobs import head_layers
from .templates import TemplateSpec, TaskKind

CPU_TOKENS_PER_S_AT_7M = 600.0
GPU_SPEEDUP = 60.0
TOKENS_PER_CHAR = 1.0  # for the maximum length: room for text a tokenizer compresses badly
AVG_TOKENS_PER_CHAR = 0.7  # for time: measured on the sample templates (repeated prompts compress)
# tiny models are bound by per-step overhead, not by FLOPs: builtin:tiny's instruction steps ran
# at 5,700 tokens/s (legal_consult_qa sample, 2 idle cores)
CPU_TOKENS_PER_S_CAP = 6_000.0
# The built-in models' tokenizer is built from the project's own rows, so it compresses them: a
# legal_consult_qa sample row (prompt, system text and answer, 126 characters) is 35 tokens. Against
# the characters counted below (the answer at 0.7 of the longest) that is this many tokens a character.
BUILTIN_TOKENS_PER_CHAR = 0.25
# What a built-in model's run spends besides its steps, from the worker's clock (bench/estimate_bench.py
# on 2 idle cores): importing the training library and reading the project (1.7 s), building the
# model from the train split (the classifier's n-gram tables 1.1-1.9 s, a decoder 0.6 s), and after
# the last evaluation saving the model (0.2-0.3 s); an instruction run's evaluation reads every
# validation row forward, then writes its checkpoint (0.1 s beside that reading).
BUILTIN_START_S = 1.7
BUILTIN_BUILD_S = {"builtin:tiny": 0.6, "builtin:small": 0.6}
CLASSIFIER_BUILD_S = {"builtin:tiny": 1.1, "builtin:small": 1.9}
BUILTIN_END_S = 0.3
BUILTIN_EVAL_OVERHEAD_S = 0.1
BUILTIN_EVAL_STEPS = 50  # a built-in decoder's evaluation interval

BUILTIN_PARAMS = {"builtin:tiny": 0.15e6, "builtin:small": 4.7e6}

# A pretrained decoder on the CPU is bound by arithmetic: its time is the floating-point work
# of a step (see decoder_flops_per_token) at the rate the training loop reaches. Measured on an
# idle 2-core machine with the worker's CPU settings (engine/models/devices.py: MKL's AVX2 kernels, both
# cores; squaring norms), Gemma 3 270M LoRA on 5,786 medical Q&A rows, batch 8 x 448, with the
# evaluations: `--max-steps 10` took 202 s, the recommended run for the default 10-minute
# budget 28 steps in 462 s. At this rate their start estimates are 0.94 and 1.21 of those times.
CPU_DECODER_FLOP_S = 44e9
# the most validation rows whose loss each evaluation of a pretrained decoder reads (all of
# them would take longer than the training on a CPU)
DECODER_EVAL_ROWS = 64
DECODER_EVALS = 4  # evaluations in a pretrained decoder's run (and checkpoints to pick the best from)
DECODER_EVAL_INTERVAL = 50  # ... at least, and one every this many steps in a longer run
# A classification head's evaluation (engine/models/decoder_head.py) costs more than reading its rows:
# its batches and the checkpoint it is saved with. Gemma 3 270M (18 layers) on CPED's dialogue acts,
# 2 idle cores: 4.2 s an evaluation, of which reading the 64 rows 1.9; its steps took 0.475 s
# against 0.477 counted by their arithmetic at CPU_DECODER_FLOP_S. (Runs of other sets that shared
# the processor with other work took up to twice as long a step: CPED itself 0.67 s then.)
HEAD_EVAL_S_PER_LAYER = 0.13
DECODER_EVAL_SHARE = 0.15

DEFAULT_TIME_BUDGET_MIN = 10.0
# the feature head's logistic regressions after the pass over the rows (engine/training/feature_head.py),
# in seconds per row read and label: on 7,985 KUAKE-QIC rows, 640 features, 11 labels, the fit took 92 s
# on a shared 2-core machine (1.05e-3) and 36 s on an idle one (4.1e-4); 4 s for 9,456 ATEC rows x 2
# labels; 0.7 s for 599 CAIL2018 rows x 20. The slowest counts, from FEATURE_FIT_MIN_S to FEATURE_FIT_S.
FEATURE_FIT_S_PER_ROW_LABEL = 1.05e-3
FEATURE_FIT_MIN_S = 10.0
FEATURE_FIT_S = 60.0
# of a time budget, the most a head's first stage spends reading rows with the frozen model: the
# pass stops there and the head is fitted on the training rows read, a random share of them (the
# word statistics on all). On 2 cores Gemma 3 270M reads 5 to 40 rows a second, so 10,000 rows
# may take half an hour; LoRA after it has never beaten it in the benches' 10 and 20 minutes
# (docs/models.md), so the first stage gets most of the budget.
FIRST_STAGE_SHARE = 0.75
# LoRA after the first stage is kept only where it answers every validation row better: that read
# takes this many times the first stage's per row (LoRA's adapters run too; see FrozenStart)
COMPARE_FACTOR = 1.2


def comparison_seconds(row_s: float, val_rows: int) -> float:
    """The read of every validation row that compares LoRA with the frozen start, at the first
    stage's ``row_s`` a row: the plan, the worker's reading and its decision count it alike."""
    return COMPARE_FACTOR * row_s * val_rows
# The built-in classifier (engine/models/char_classifier.py), measured through the worker on 2 CPU cores:
# seconds per optimizer step (dense Adam over the n-gram table dominates) and per character
# of a batch, and per character of a validation pass (re-measured on five real sets once the
# validation passes scored the fitted linear part once per run: 0.96-1.15 of the CPU time).
# Re-measured on the four classification samples (2 idle cores): builtin:small's steps took
# 0.094-0.1 s at 64 rows of 34-65 characters, builtin:tiny's 0.007-0.013 s.
CLASSIFIER_STEP_S = {"builtin:tiny": 0.01, "builtin:small": 0.085}
CLASSIFIER_CHAR_S = {"builtin:tiny": 1e-6, "builtin:small": 4e-6}
CLASSIFIER_EVAL_CHAR_S = 5e-6
# each evaluation's own cost beside reading the rows: scoring the parts and writing the
# checkpoint it is saved with (builtin:small's is about 200 MB: 0.78-0.98 s on the samples)
CLASSIFIER_EVAL_S = {"builtin:tiny": 0.035, "builtin:small": 0.85}
# Early stopping ends most runs before their last epoch: the samples' runs of 8 epochs ended after
# 2.5-5.5 (builtin:small) and 3.5-6 (builtin:tiny), real sets' after 2.5-7; the estimate counts at
# most this many, which put each sample's start estimate within 30 % of its run (the epochs, and so
# the time budget, still bound the whole length).
CLASSIFIER_EXPECTED_EPOCHS = 3.2
CLASSIFIER_BATCH = 64
CLASSIFIER_LR = {"builtin:tiny": 2e-2, "builtin:small": 1e-2}
# The network carries a fifth of the answer beside the fitted linear part. Early stopping on its
# validation macro-F1 ended 8-epoch runs on the real sets after 250-450 steps (2.5-7 epochs), a
# third to a half of the estimate; so the epochs are those that make about CLASSIFIER_STEPS steps,
# two at least (runs then end where estimated; fewer steps left the network half learnt).
CLASSIFIER_MAX_EPOCHS = 8
CLASSIFIER_STEPS = 250
# The linear part's logistic regression, in CPU seconds per training row and label: one
# multinomial fit took 1.9e-4 (26.6 s for 1,141 rows x 120 case types of a public legal set) and
# 2.0e-4 (652 x 8, a sample), bench/linear_fit_bench.py on a shared machine; earlier runs on an
# idle one took 5-23 s for 28k-78k rows x labels. A multi-label set's one yes/no fit per label
# took 7 s for 85k-94k.
LINEAR_FIT_S_PER_ROW_LABEL = 1.9e-4
LINEAR_FIT_S_PER_ROW_LABEL_MULTI = 8e-5
# The baseline the evaluation compares with is fitted on the worker's other thread while the
# network trains (engine/models/ngram_baseline.py: 300,000 n-grams, the same multinomial fit): 4.1e-4 CPU
# seconds per row and label in the same bench, twice the linear part. A run whose steps end
# sooner waits for it (within its time budget), so it counts where it is the longer of the two.
BASELINE_FIT_S_PER_ROW_LABEL = 4.1e-4
# The worker's peak memory, measured on eleven runs of five real sets on 2 CPU cores (1.1-2.1
# GB): the runtime (Python, Paddle, PaddleFormers, scikit-learn: about 780 MB), the network's
# weights with their gradients and Adam moments (16 bytes a parameter) and activations, and
# the logistic-regression fits (the linear part's and the baseline's), whose coefficient and
# search arrays hold about six float64 copies of features x labels; the baseline keeps its
# 300,000 most frequent n-grams. The estimate came within -10 % to +14 % of every run (it
# had been half of the peak).
CLASSIFIER_RUNTIME_MB = 780
CLASSIFIER_FIT_FEATURES = 300_000
CLASSIFIER_FIT_BYTES = 48
CLASSIFIER_MIN_EPOCHS = 1.0
EVALS_PER_EPOCH = 2


@dataclass
class Recommendation:
    batch_size: int
    max_length: int
    epochs: float
    learning_rate: float
    method: str
    total_steps: int
    est_seconds: float
    est_memory_mb: float
    notes: list[str] = field(default_factory=list)
    eval_steps: int = 50  # also the checkpoint interval: the best checkpoint is picked among these
    time_budget_s: float | None = None
    eval_rows: int | None = None  # validation rows each evaluation reads; None: all of them
    # a share of one epoch when the time budget allows no more, and what one epoch would take
    data_share: float | None = None
    epoch_seconds: float | None = None
    # of est_seconds, what does not grow with the steps (the built-in classifier's linear fit, a
    # pretrained head's pass over the rows)
    fixed_seconds: float = 0.0
    # recompute a decoder's layers in the backward pass: when even one row a step would not fit
    recompute: bool = False
    # a classification head's run on the processor: what builtin:small's run of the same data and
    # budget is estimated to take, which the head note weighs it against (None: no such note)
    builtin_seconds: float | None = None
    # a head started from the frozen model: the training and validation rows its first stage would
    # read with time enough, and the seconds a row takes (fixed_seconds is that stage's time, its
    # reading bounded by FIRST_STAGE_SHARE of the budget; see stage_plan)
    first_stage_rows: int | None = None
    first_stage_row_s: float = 0.0
    first_stage_val_rows: int = 0  # of first_stage_rows: read again to compare LoRA with the first stage
    first_stage_labels: int | None = None  # what the fit after the pass takes depends on (feature_fit_seconds)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StagePlan:
    """How a head started from the frozen model spends the time budget: the first stage (reading
    the rows' states once, fitting the head on them), then LoRA (or full fine-tuning) from it for
    the time left, kept only where it beats the first stage on validation."""

    rows: int
    read_rows: int  # of ``rows``, those the first stage's share of the budget reads (all, or fewer)
    first_s: float
    left_s: float  # for the second stage's steps
    compare_s: float  # after them: the validation rows read again, to compare with the first stage
    steps: int  # the second stage's
    passes: float  # over the training rows, in those steps (under 1: a share of them)
    squeezed: bool  # the first stage takes about all of the budget: the run keeps it, no second stage


def feature_fit_seconds(rows: int, labels: int) -> float:
    """The first stage's fit after its pass, on the states of ``rows`` rows: what a plan counts
    and what the worker leaves for it when it reads on to the budget's end."""
    return min(max(rows * max(labels, 2) * FEATURE_FIT_S_PER_ROW_LABEL, FEATURE_FIT_MIN_S), FEATURE_FIT_S)


def first_stage(rows: int, row_s: float, budget_s: float | None, load_factor: float = 1.0,
                labels: int | None = None) -> tuple[float, int]:
    """A frozen start's first stage: its seconds (reading ``rows`` at ``row_s`` each, for at most
    FIRST_STAGE_SHARE of the budget, then the fit; never past the budget) and the rows it reads.
    Without ``labels`` the fit counts FEATURE_FIT_S, its most."""
    row_s *= load_factor
    reading, read = rows * row_s, rows
    if budget_s and reading > FIRST_STAGE_SHARE * budget_s:
        reading = FIRST_STAGE_SHARE * budget_s
        read = min(rows, int(reading / max(row_s, 1e-9)))
    fit = FEATURE_FIT_S if labels is None else feature_fit_seconds(read, labels)
    return min(reading + fit * load_factor, budget_s or math.inf), read


def stage_plan(rec: Recommendation, *, load_factor: float = 1.0, steps: int | None = None,
               passes: float | None = None) -> StagePlan | None:
    """``rec``'s stages; ``load_factor``, ``steps`` and ``passes``: what the job actually started
    counts on (the processor's load, the person's own settings: operations.runs.expected_reach),
    where not the recommendation's."""
    if rec.first_stage_rows is None:
        return None
    rows = rec.first_stage_rows
    first, read = first_stage(rows, rec.first_stage_row_s, rec.time_budget_s, load_factor, rec.first_stage_labels)
    first = round(first, 1)
    compare = comparison_seconds(rec.first_stage_row_s * load_factor, rec.first_stage_val_rows)
    left = max((rec.time_budget_s or rec.est_seconds * load_factor) - first, 0.0)
    return StagePlan(rows=rows, read_rows=read, first_s=first, left_s=max(left - compare, 0.0), compare_s=compare,
                     steps=rec.total_steps if steps is None else steps,
                     passes=rec.epochs if passes is None else passes, squeezed=not second_stage_fits(left, compare))


STAGES_NOTE_START = "In two stages: "
# under this many seconds left after the first stage, the second would be a token one
STAGE_MIN_SECOND_S = 120.0


def second_stage_fits(left_s: float, compare_s: float = 0.0) -> bool:
    """Whether LoRA after a frozen start is worth starting with ``left_s`` of the budget left:
    STAGE_MIN_SECOND_S for its steps once the comparison after them (``compare_s``, reading the
    validation rows again) is set aside. The plan says so before the run, the worker decides by
    it after the first stage (a 10-minute run over long legal texts, whose first stage left 108 s,
    had spent 7 more minutes on one step and its comparison)."""
    return left_s - compare_s >= STAGE_MIN_SECOND_S


def stages_note(plan: StagePlan, method: str) -> str:
    how = "LoRA" if method == "lora" else "full fine-tuning"
    first = (f"{STAGES_NOTE_START}the head is first fitted on the model's states of the {plan.rows:,} training and "
             f"validation rows, about {minutes(plan.first_s)} min of reading them" if plan.read_rows >= plan.rows else
             f"{STAGES_NOTE_START}the head is first fitted on the model's states of about {plan.read_rows:,} of the "
             f"{plan.rows:,} training and validation rows, as many as about {minutes(plan.first_s)} min of reading "
             "reach")
    if plan.squeezed:
        return (f"{first}, about all of the time budget, so the run keeps the head it fits; {how} from it needs a "
                "larger budget.")
    reads = ("under 1% of the training rows" if plan.passes < 0.005 else
             f"about {plan.passes:.0%} of the training rows" if plan.passes < 1
             else f"{round(plan.passes, 1):g} passes over them")
    return (f"{first}; {how} then trains from it within the {minutes(plan.left_s)} min left, about {plan.steps} "
            f"steps over {reads}, and is kept only if it scores better on validation.")


def estimate_params(base_model: str) -> float:
    """Parameter count from the model's config.json, or the built-in sizes."""
    if base_model in BUILTIN_PARAMS:
        return BUILTIN_PARAMS[base_model]
    cfg_path = Path(base_model) / "config.json"
    try:
        cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 500e6  # an unknown hub model: assume a small production model
    return config_params(cfg)


def config_params(cfg: dict) -> float:
    """Parameter count of a decoder from its config.json."""
    h = cfg.get("hidden_size", 1024)
    n = cfg.get("num_hidden_layers", 24)
    v = cfg.get("vocab_size", 32000)
    inter = cfg.get("intermediate_size", 4 * h)
    per_layer = 4 * h * h + 3 * h * inter
    tied = cfg.get("tie_word_embeddings", False)
    return float(n * per_layer + v * h * (1 if tied else 2))


def read_model_config(base_model: str) -> dict | None:
    try:
        cfg = json.loads((Path(base_model) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return cfg if isinstance(cfg, dict) else None


def _decoder_shape(cfg: dict) -> tuple[int, int, int, int, int, int, int]:
    """hidden, layers, vocabulary, intermediate, heads, KV heads, head width of a config.json."""
    h = int(cfg.get("hidden_size", 1024))
    n = int(cfg.get("num_hidden_layers", 24))
    v = int(cfg.get("vocab_size", 32000))
    inter = int(cfg.get("intermediate_size", 4 * h))
    heads = int(cfg.get("num_attention_heads", max(1, h // 64)))
    kv = int(cfg.get("num_key_value_heads") or heads)
    head_dim = int(cfg.get("head_dim") or h // heads)
    return h, n, v, inter, heads, kv, head_dim


# LoRA on a tied vocabulary of at least VOCAB_CUT_MIN rows trains over the project's own tokens
# plus the first VOCAB_CUT_RESERVE (engine/training/vocab_cut.py); 5,786 Chinese medical Q&A rows kept
# 15,270 of Gemma 3's 262,144 (10,416 after 100 rows), so a cut vocabulary counts as this many
VOCAB_CUT_MIN = 32768
VOCAB_CUT_RESERVE = 8192
VOCAB_CUT_ESTIMATE = 16384


# bench/quality_bench.py on four public Chinese sets (docs/models.md, "Does the pretrained head pay?"),
# 2 cores: Gemma 3 270M's head, trained with LoRA, against builtin:small on the same test rows beat
# it on question pairs (ATEC, 27 minutes against 0.7) and matched it on the others (6 to 19 minutes)
HEAD_NOTE_START = "The classification head ("


def minutes(seconds: float) -> int:
    """Whole minutes, one at least: how the notes count a run's time."""
    return max(1, round(float(seconds) / 60))


def head_note(method: str, head_s: float, builtin_s: float, frozen: bool = False) -> str:
    """Whether a pretrained model's classification head is likely to pay on a project's data, and
    at what time against the built-in small model (both runs' estimates, in minutes): from the
    frozen model (``frozen``, the default) as bench/quality_bench.py measured it with a 10-minute
    budget (docs/models.md), else trained by its method alone, with a 30-minute one."""
    how = "LoRA" if method == "lora" else "full fine-tuning"
    if frozen:
        return (f"{HEAD_NOTE_START}{how}) from the frozen model beat builtin:small on four of eight public Chinese "
                "sets with a 10-minute budget (news headlines, question pairs, stock-forum posts) and matched it on "
                f"the other four; this run takes about {minutes(head_s)} min against about {minutes(builtin_s)} "
                "min for builtin:small.")
    return (f"{HEAD_NOTE_START}{how}) is unlikely to pay off here: on four public Chinese sets it beat "
            f"builtin:small only on question pairs, and this run takes about {minutes(head_s)} min against "
            f"about {minutes(builtin_s)} min for builtin:small.")


def vocabulary_cut(cfg: dict, method: str, task: str = "instruction", vocabulary: str = "project") -> bool:
    """Whether a run of this decoder trains over a cut vocabulary (the engine decides the same
    from the loaded model: tied output layer, LoRA, a generation task)."""
    tied = bool(cfg.get("tie_word_embeddings", cfg.get("model_type") in ("gemma3_text", "gemma3")))
    return (method == "lora" and task != "classification" and vocabulary == "project" and tied
            and int(cfg.get("vocab_size", 0)) >= VOCAB_CUT_MIN)


def decoder_evals(total_steps: int) -> int:
    """How many times a pretrained decoder's run of ``total_steps`` evaluates (see eval_steps)."""
    return max(DECODER_EVALS, math.ceil(total_steps / DECODER_EVAL_INTERVAL))


def decoder_flops_per_token(cfg: dict, method: str, answer_share: float, vocab: int | None = None) -> float:
    """Floating-point operations a training step spends on one token of a decoder: the
    projections and the MLP at every position, the output layer (``vocab`` rows, default the
    config's) only at answer positions (``answer_share`` of the tokens: engine/training/lm_training.py),
    a backward pass that costs one forward for LoRA (input gradients only) and two for full
    fine-tuning."""
    h, n, v, inter, heads, kv, head_dim = _decoder_shape(cfg)
    v = min(v, vocab) if vocab else v
    body = n * (2 * h * heads * head_dim + 2 * h * kv * head_dim + 3 * h * inter)
    forward = 2.0 * (body + v * h * min(max(answer_share, 0.0), 1.0))
    return forward * (2.0 if method == "lora" else 3.0)


MEMORY_SHARE = 0.6
AVAILABLE_SHARE = 0.8
DECODER_RUNTIME_MB = 800  # Python, Paddle and PaddleFormers before the model loads
# what the saved activations come to against the count below, measured: a Gemma 3 270M LoRA
# step at 8 x 256 tokens (every row full, half of each answered) with the cut vocabulary peaked
# at 7.6 GB where the count without this factor gives 4.9 (Paddle keeps more per op than the
# count: fp32 copies around the norms, rope, LoRA's dropout of each projection's input)
DECODER_ACTIVATION_FACTOR = 1.9
# the fused head and loss keeps each answer token's probabilities over the output layer for the
# backward pass: without the cut vocabulary that was 1.7 GB more at the same batch
MEMORY_ANSWER_SHARE = 0.5
# recomputing each layer in the backward pass: measured on Gemma 3 270M, LoRA, cut vocabulary,
# 8 x 256 tokens, the step's peak stayed at the loading peak (2.6 GB against 7.5 GB) and a step
# took about 1.5x the time (docs/engine-notes.md)
RECOMPUTE_TIME_FACTOR = 1.5


def decoder_memory_mb(cfg: dict, batch: int, max_length: int, method: str, vocab: int | None = None,
                      recompute: bool = False) -> float:
    """Peak memory of training a decoder on a CPU in fp32: the runtime, the weights (with
    gradients and Adam moments of what trains), the activations autograd keeps for the
    backward pass (per token and layer the norms and residuals, q/k/v and the attention
    output, the MLP's four intermediate rows, and the attention scores over the sequence) and
    the output layer's probabilities at answer tokens (``vocab`` rows: a cut vocabulary's)."""
    h, n, v, inter, heads, kv, head_dim = _decoder_shape(cfg)
    params = n * (2 * h * heads * head_dim + 2 * h * kv * head_dim + 3 * h * inter) + v * h
    trainable = params * (0.005 if method == "lora" else 1.0)
    per_token = n * (8 * h + 2 * (heads + 2 * kv) * head_dim + 5 * inter + 3 * heads * max_length)
    activations = batch * max_length * per_token * 4 * DECODER_ACTIVATION_FACTOR
    if recompute:  # one layer's activations at a time, and every layer's input
        activations = activations / n + batch * max_length * n * h * 4
    head = batch * max_length * MEMORY_ANSWER_SHARE * min(v, vocab or v) * 4
    return (DECODER_RUNTIME_MB * 2**20 + params * 4 + trainable * 12 + activations + head) / 2**20


def _machine_memory_mb() -> tuple[float, float]:
    """This computer's memory and what is available now (free and reclaimable), in MB."""
    try:
        import psutil

        mem = psutil.virtual_memory()
        return mem.total / 2**20, mem.available / 2**20
    except Exception:
        return 8 * 1024.0, 8 * 1024.0


# the built-in classifier's tables: (embedding width, n-gram buckets, vocabulary); its linear
# part stores (vocabulary + buckets) x labels coefficients beside them
CLASSIFIER_SIZES = {"builtin:tiny": (16, 4096, 2000), "builtin:small": (64, 2 ** 18, 20000)}


def run_disk_mb(base_model: str, method: str, task: str, labels: int, save_total_limit: int) -> float:
    """The disk a run takes at most: its kept checkpoints and one more while the next is written
    (weights, and two Adam moments of what trains), ``final/``, and for a built-in model the
    copy of the untrained model it starts from. Measured: a built-in small classifier's
    checkpoint of 13 labels is 209 MB, of 62 labels 259 MB; this gives 222 and 273."""
    if task == "classification" and base_model in CLASSIFIER_SIZES:
        d, buckets, vocab = CLASSIFIER_SIZES[base_model]
        trainable = (buckets + vocab) * d
        weights = trainable + (buckets + vocab) * (max(labels, 2) + 2)
    else:
        weights = estimate_params(base_model)
        trainable = weights * (0.01 if method in ("lora", "dpo") else 1.0)
    # a LoRA checkpoint holds the adapter alone (a preference run's too)
    saved = trainable if method in ("lora", "dpo") else weights
    checkpoint = (saved * 4 + trainable * 8) / 2**20
    final = saved * 4 / 2**20
    # a preference run keeps the model it starts from (another run's, merged) as a built-in run does
    base_copy = weights * 4 / 2**20 if base_model.startswith("builtin:") or method == "dpo" else 0.0
    return checkpoint * (max(1, save_total_limit) + 1) + final + base_copy


def recommend(
    template: TemplateSpec,
    stats: dict[str, Any],
    device: str = "cpu",
    base_model: str = "builtin:small",
    method: str = "lora",
    time_budget_min: float | None = None,
    machine_memory_mb: float | None = None,
    head: bool = False,
    head_depth: float | None = None,
    head_features: bool = False,
) -> Recommendation:
    """Settings for this data, model and device. ``time_budget_min`` (default 10 minutes)
    bounds the built-in classifier's training: as many epochs as fit, at most
    :data:`CLASSIFIER_STEPS` steps in two epochs or more (early stopping may end sooner)."""
    if template.task is TaskKind.classification and base_model in CLASSIFIER_STEP_S:
        return _recommend_classifier(stats, device, base_model,
                                     DEFAULT_TIME_BUDGET_MIN if time_budget_min is None else time_budget_min)
    notes: list[str] = []
    on_gpu = not device.startswith("cpu")
    rows = int(stats.get("splits", {}).get("train", stats.get("rows_clean", 0)))
    p95_chars = float(stats.get("text_chars", {}).get("p95", 200.0))
    out_chars = float(stats.get("output_chars", {}).get("max", 8 if template.task is TaskKind.classification else 200))
    prompt_chars = len(template.prompt.user) + len(template.prompt.system.zh)
    if head:  # a classification head reads the text alone and writes nothing (engine/models/decoder_head.py)
        prompt_chars, out_chars = 0, 0.0
    need = (p95_chars + min(out_chars, 256) + prompt_chars) * TOKENS_PER_CHAR + 8
    max_length = int(min(2048, max(64, 32 * math.ceil(need / 32))))

    builtin = base_model.startswith("builtin:")
    if builtin:
        method = "full"
        notes.append("The built-in model is trained from scratch on this project's data, so all of its weights are trained.")
    params = estimate_params(base_model)

    batch = 16 if on_gpu else 8
    if max_length > 512:
        batch = max(1, batch // (max_length // 512))
    cfg = None if builtin else read_model_config(base_model)
    if cfg is not None and head and head_depth is not None:  # the layers after the head's are dropped
        cfg = {**cfg, "num_hidden_layers": head_layers(_decoder_shape(cfg)[1], head_depth)}
    cut_vocab = VOCAB_CUT_ESTIMATE if cfg is not None and vocabulary_cut(cfg, method, template.task.value) else None
    if head:  # no output layer over the vocabulary: one row of logits per label, nothing to count
        cut_vocab = 1
    memory_notes: list[str] = []
    recompute = False
    if cfg is not None and not on_gpu:
        # a pretrained decoder's activations dominate its memory: halve the batch until the run
        # takes at most MEMORY_SHARE of this computer's memory (the time a token takes stays)
        total, available = (machine_memory_mb, machine_memory_mb) if machine_memory_mb is not None \
            else _machine_memory_mb()
        # MEMORY_SHARE of the machine, and no more than most of what other programs leave free
        limit = min(MEMORY_SHARE * total, AVAILABLE_SHARE * available)
        first = batch
        while batch > 1 and decoder_memory_mb(cfg, batch, max_length, method, cut_vocab) > limit:
            batch //= 2
        if decoder_memory_mb(cfg, batch, max_length, method, cut_vocab) > limit:
            # a smaller batch costs no throughput on a CPU; recomputing does, so it comes last
            recompute, batch = True, first
            while batch > 1 and decoder_memory_mb(cfg, batch, max_length, method, cut_vocab,
                                                  recompute=True) > limit:
                batch //= 2
            memory_notes.append(f"Layers are recomputed in the backward pass, {batch} rows a step, so that "
                                f"training fits in this computer's {total / 1024:.0f} GB of memory; each step "
                                f"takes about {RECOMPUTE_TIME_FACTOR:g}x as long.")
        elif batch < first:
            memory_notes.append(f"Rows per step lowered to {batch} so that training fits in this computer's "
                                f"{total / 1024:.0f} GB of memory.")
    if builtin:
        # measured on the sample templates: three epochs take the small model to its best
        # validation accuracy; more only overfit
        epochs = 3.0 if rows < 2000 else 2.0
        lr = 3e-3 if base_model == "builtin:tiny" else 1e-3  # the tiny model wants bigger steps
    else:
        epochs = 5.0 if rows < 500 else 3.0 if rows < 5000 else 2.0
        lr = 2e-4 if method == "lora" else 2e-5
    hp = template.hyperparameters
    if "learning_rate" in hp and not builtin:
        lr = float(hp["learning_rate"].default) if method == "lora" else lr

    steps_per_epoch = max(1, math.ceil(rows / batch))
    mean_chars = float(stats.get("text_chars", {}).get("mean", p95_chars * 0.7))
    mean_out = 0.0 if head else float(stats.get("output_chars", {}).get("mean", min(out_chars, 256) * 0.7))
    per_char = BUILTIN_TOKENS_PER_CHAR if builtin else AVG_TOKENS_PER_CHAR
    avg_tokens = min(max_length, (mean_chars + prompt_chars + min(out_chars, 256) * 0.7) * per_char)
    if cfg is not None:
        # a head computes no output layer over the vocabulary: its answer is a few labels
        answer_share = 0.0 if head else min(1.0, (mean_out + 1) * AVG_TOKENS_PER_CHAR / max(avg_tokens, 1.0))
        tok_s = CPU_DECODER_FLOP_S / decoder_flops_per_token(cfg, method, answer_share, cut_vocab)
        tok_s /= RECOMPUTE_TIME_FACTOR if recompute else 1.0
        # an evaluation reads its rows forward only (half of a LoRA step's work); on a CPU that is
        # dear, so the evaluations take at most DECODER_EVAL_SHARE of the budget, on 8 rows or more
        row_s = avg_tokens / (tok_s * (2.0 if method == "lora" else 3.0)) / (GPU_SPEEDUP if on_gpu else 1.0)
        budget_s = max(DEFAULT_TIME_BUDGET_MIN if time_budget_min is None else time_budget_min, 0.1) * 60
        fit_rows = int(DECODER_EVAL_SHARE * budget_s / (DECODER_EVALS * row_s))
        eval_rows = min(int(stats.get("splits", {}).get("val", 0)), DECODER_EVAL_ROWS, max(8, fit_rows))
        layers = _decoder_shape(cfg)[1]
        eval_s = eval_rows * row_s * (GPU_SPEEDUP if on_gpu else 1.0) + (
            HEAD_EVAL_S_PER_LAYER * layers if head and not on_gpu else 0.0)
    else:
        # lora skips weight gradients of the frozen base: about a third less work per token
        work = params * (0.7 if method == "lora" else 1.0)
        tok_s = min(CPU_TOKENS_PER_S_AT_7M * 7e6 / max(work, 1e5), CPU_TOKENS_PER_S_CAP)
        eval_s, eval_rows = 0.0, None
        if builtin:  # every validation row read forward (a third of a step's work), and a checkpoint
            val = int(stats.get("splits", {}).get("val", 0))
            eval_s = val * avg_tokens / (tok_s * 3.0) + BUILTIN_EVAL_OVERHEAD_S
    if on_gpu:
        tok_s *= GPU_SPEEDUP
        eval_s /= GPU_SPEEDUP
    epoch_s = rows * avg_tokens / tok_s
    # a pretrained decoder evaluates DECODER_EVALS times a run, or every DECODER_EVAL_INTERVAL
    # steps in a longer one; the built-in one every BUILTIN_EVAL_STEPS steps (a share of each
    # epoch) and at its end, beside its start and end
    evals_s = decoder_evals(math.ceil(steps_per_epoch * epochs)) * eval_s
    if builtin:
        epoch_s += steps_per_epoch / BUILTIN_EVAL_STEPS * eval_s
        evals_s = eval_s + BUILTIN_START_S + BUILTIN_BUILD_S.get(base_model, 0.6) + BUILTIN_END_S
    budget_s = max(DEFAULT_TIME_BUDGET_MIN if time_budget_min is None else time_budget_min, 0.1) * 60
    features_s = 0.0
    if head and head_features and cfg is not None:
        # the head's first stage reads every training and validation row once, forward only
        # (engine/training/feature_head.py), before the first LoRA step: out of the same budget
        val_rows = int(stats.get("splits", {}).get("val", 0))
        n_labels = len(stats.get("labels") or {}) or 2
        features_s = first_stage(rows + val_rows, row_s, budget_s, labels=n_labels)[0]
    train_budget_s = max(budget_s - features_s, 0.1 * 60)
    if epochs * epoch_s + evals_s > train_budget_s:
        # the time budget bounds every run: train on as much of the data as fits
        if cfg is not None:  # the steps that fit with the evaluations they bring
            step_s = epoch_s / steps_per_epoch
            steps = (train_budget_s - DECODER_EVALS * eval_s) / step_s
            if steps > DECODER_EVALS * DECODER_EVAL_INTERVAL:
                # one evaluation every DECODER_EVAL_INTERVAL steps, and one more for the count's rounding up
                steps = (train_budget_s - eval_s) / (step_s + eval_s / DECODER_EVAL_INTERVAL)
            fit = max(steps / steps_per_epoch, 1.0 / steps_per_epoch)
        else:
            fit = max((train_budget_s - evals_s) / max(epoch_s, 1e-9), 1.0 / steps_per_epoch)
        if fit < 1.0:
            notes.append(f"One pass over the training rows takes about {epoch_s / 60:.0f} minutes here, more than the "
                         f"time budget of {budget_s / 60:g} minutes, so training reads about {fit:.0%} of them; a "
                         "larger budget or a GPU trains on all of them.")
        epochs = math.floor(fit * 1000) / 1000 if fit < 1.0 else float(max(1, math.floor(fit)))
    total_steps = planned_steps(rows, batch, epochs)
    if cfg is not None:
        evals_s = decoder_evals(total_steps) * eval_s
    seconds = epochs * epoch_s + evals_s + features_s
    if features_s:  # a frozen start's every stage ends within the budget: its share, LoRA's clock, or no LoRA
        seconds = min(seconds, budget_s)
    eval_steps = max(1, min(DECODER_EVAL_INTERVAL, math.ceil(total_steps / DECODER_EVALS))) if cfg is not None \
        else BUILTIN_EVAL_STEPS

    trainable = params * (0.01 if method == "lora" else 1.0)
    weights_mb = params * 4 / 2**20
    optimizer_mb = trainable * 12 / 2**20  # fp32 grads + two Adam moments
    hidden = 256 if builtin else int(math.sqrt(params / 12 / 24)) or 1024
    activations_mb = batch * max_length * hidden * 34 * 4 / 2**20
    memory = weights_mb + optimizer_mb + activations_mb + 300  # + framework overhead
    if cfg is not None:
        memory = decoder_memory_mb(cfg, batch, max_length, method, cut_vocab, recompute)
    notes.extend(memory_notes)
    if not on_gpu and seconds > 3 * 3600:
        notes.append("This would take hours on the CPU: a GPU, a smaller model or fewer epochs help.")
    builtin_seconds = None
    if head and not on_gpu:  # measured on a processor: weighed against the built-in model's run
        builtin_seconds = _recommend_classifier(stats, device, "builtin:small", budget_s / 60).est_seconds
        notes.append(head_note(method, seconds, builtin_seconds, frozen=head_features))
    rec = Recommendation(
        batch_size=batch, max_length=max_length, epochs=epochs, learning_rate=lr, method=method,
        total_steps=total_steps, est_seconds=round(seconds, 1), est_memory_mb=round(memory, 1), notes=notes,
        eval_steps=eval_steps, time_budget_s=budget_s, eval_rows=eval_rows,
        data_share=epochs if epochs < 1 else None, epoch_seconds=round(epoch_s, 1),
        fixed_seconds=round(evals_s, 1) if builtin else round(features_s, 1), recompute=recompute,
        builtin_seconds=builtin_seconds, first_stage_rows=rows + val_rows if features_s else None,
        first_stage_row_s=row_s if features_s else 0.0, first_stage_val_rows=val_rows if features_s else 0,
        first_stage_labels=n_labels if features_s else None)
    plan = stage_plan(rec)
    if plan is not None:  # which stages fit the budget, said before the run starts
        rec.notes.insert(0, stages_note(plan, method))
    return rec


def classifier_seconds(base_model: str, rows: int, val_rows: int, mean_chars: float, epochs: float,
                       batch: int = CLASSIFIER_BATCH, device: str = "cpu", labels: int = 2,
                       multi_label: bool = False, budget_s: float | None = None) -> float:
    """Estimated time of a built-in classifier's run from the worker's start: building the model
    and fitting its linear part (on the CPU wherever the network trains), then the network's
    steps with their evaluations and checkpoints over the epochs early stopping is expected to
    leave (at most :data:`CLASSIFIER_EXPECTED_EPOCHS`) and saving the model; the baseline is
    fitted beside the steps, and a run whose steps end sooner waits for it up to its time budget."""
    fit_s, baseline_s = classifier_fit_seconds(rows, labels, multi_label)
    start_s = classifier_start_seconds(base_model)
    loop_s = _classifier_loop_seconds(base_model, rows, val_rows, mean_chars,
                                      min(epochs, CLASSIFIER_EXPECTED_EPOCHS), batch, device)
    if budget_s is not None:
        baseline_s = min(baseline_s, max(budget_s - start_s - fit_s, 0.0))
    return start_s + fit_s + max(loop_s + BUILTIN_END_S, baseline_s)


def classifier_start_seconds(base_model: str) -> float:
    """From the worker's start to the linear part's fit: the training library, the model built."""
    return BUILTIN_START_S + CLASSIFIER_BUILD_S.get(base_model, CLASSIFIER_BUILD_S["builtin:small"])


def classifier_fit_seconds(rows: int, labels: int, multi_label: bool = False) -> tuple[float, float]:
    """(the linear part's fit, the baseline's fit beside the training) in seconds."""
    per = LINEAR_FIT_S_PER_ROW_LABEL_MULTI if multi_label else LINEAR_FIT_S_PER_ROW_LABEL
    baseline = 0.0 if multi_label else rows * max(labels, 2) * BASELINE_FIT_S_PER_ROW_LABEL
    return rows * max(labels, 2) * per, baseline


def _classifier_loop_seconds(base_model: str, rows: int, val_rows: int, mean_chars: float, epochs: float,
                             batch: int, device: str) -> float:
    """The network's steps over ``epochs`` and the evaluations among them (in proportion)."""
    steps = math.ceil(rows / batch) * epochs
    step_s = CLASSIFIER_STEP_S[base_model] + batch * (mean_chars + 1) * CLASSIFIER_CHAR_S[base_model]
    evals = EVALS_PER_EPOCH * epochs
    eval_s = CLASSIFIER_EVAL_S[base_model] + val_rows * (mean_chars + 1) * CLASSIFIER_EVAL_CHAR_S
    seconds = steps * step_s + evals * eval_s
    return seconds / (GPU_SPEEDUP / 10 if not device.startswith("cpu") else 1.0)


def _recommend_classifier(stats: dict[str, Any], device: str, base_model: str, budget_min: float) -> Recommendation:
    notes = ["The built-in model is trained from scratch on this project's data, so all of its weights are trained."]
    splits = stats.get("splits", {})
    rows = int(splits.get("train", stats.get("rows_clean", 0)))
    val_rows = int(splits.get("val", 0))
    chars = stats.get("text_chars", {})
    p95 = float(chars.get("p95", 200.0))
    mean = float(chars.get("mean", p95 * 0.6))
    # one token per character: the whole text up to its 95th percentile length
    max_length = int(min(1024, max(32, 32 * math.ceil((p95 + 8) / 32))))
    mean_eff = min(mean, max_length)
    budget_s = max(budget_min, 0.1) * 60
    n_labels = len(stats.get("labels") or {}) or 2
    multi = bool((stats.get("label_set") or {}).get("multi_label"))
    fit_s, _ = classifier_fit_seconds(rows, n_labels, multi)
    # what no step shortens: the model built, the linear part fitted, the model saved at the end
    fixed_s = classifier_start_seconds(base_model) + fit_s + BUILTIN_END_S
    per_epoch = _classifier_loop_seconds(base_model, rows, val_rows, mean_eff, 1.0, CLASSIFIER_BATCH, device)
    batch = CLASSIFIER_BATCH
    steps_per_epoch = max(1, math.ceil(rows / batch))
    # the whole length fits the budget (early stopping may end sooner; the estimate counts that)
    left_s = budget_s - fixed_s
    wanted = min(CLASSIFIER_MAX_EPOCHS, max(2, math.ceil(CLASSIFIER_STEPS / steps_per_epoch)))
    epochs = float(min(wanted, math.floor(left_s / max(per_epoch, 1e-9))))
    if epochs < CLASSIFIER_MIN_EPOCHS:
        one_step = 1.0 / steps_per_epoch
        share = left_s / max(per_epoch, 1e-9)
        if share >= one_step:
            # part of one pass, no step past the budget
            epochs = max(one_step, math.floor(share * 1000) / 1000)
            notes.append(f"One pass over the data takes about {per_epoch / 60:.1f} minutes, more than the time budget "
                         f"of {budget_min:g} minutes, so training stops after part of it; a larger budget trains "
                         "better.")
        else:
            # even the fit does not fit: one step, and the run takes what the fit takes
            epochs = one_step
            notes.append(f"Fitting the linear part to {rows:,} rows and {n_labels} labels alone takes about "
                         f"{fit_s / 60:.1f} minutes here, more than the time budget of {budget_min:g} minutes: the "
                         f"run takes about {(fixed_s + per_epoch * one_step) / 60:.1f} minutes whatever its "
                         "settings, and the network trains for one step only. A larger time budget trains it; fewer "
                         "rows or labels fit sooner.")
    total_steps = planned_steps(rows, batch, epochs)
    eval_steps = max(1, math.ceil(steps_per_epoch / EVALS_PER_EPOCH))
    d, buckets, vocab = CLASSIFIER_SIZES[base_model]
    params = (buckets + vocab) * d
    features = min(CLASSIFIER_FIT_FEATURES, 1.5 * rows * mean_eff)  # distinct n-grams, about
    memory = (CLASSIFIER_RUNTIME_MB + params * 4 * 4 / 2**20 + batch * max_length * d * 3 * 4 * 4 / 2**20
              + features * max(n_labels, 2) * CLASSIFIER_FIT_BYTES / 2**20)
    return Recommendation(
        batch_size=batch, max_length=max_length, epochs=epochs, learning_rate=CLASSIFIER_LR[base_model],
        method="full", total_steps=total_steps,
        est_seconds=round(classifier_seconds(base_model, rows, val_rows, mean_eff, epochs, device=device,
                                             labels=n_labels, multi_label=multi, budget_s=budget_s), 1),
        est_memory_mb=round(memory, 1), notes=notes, eval_steps=eval_steps, time_budget_s=budget_s,
        fixed_seconds=round(fixed_s, 1))


def planned_steps(rows: int, batch_size: int, epochs: float, max_steps: int = 0, accumulation: int = 1) -> int:
    """The steps a run of these settings makes, counted as the worker's Trainer counts them: an
    epoch's batches (the last one short) over the accumulation, times the epochs, rounded down."""
    if max_steps and max_steps > 0:
        return int(max_steps)
    per_epoch = max(1, math.ceil(max(rows, 1) / max(batch_size, 1)) // max(accumulation, 1))
    return max(1, int(per_epoch * epochs))


def job_estimate(rec: Recommendation, rows: int, batch_size: int, epochs: float, max_steps: int = -1,
                 max_length: int | None = None) -> float:
    """The estimate of a run whose settings differ from ``rec``'s: its fixed part, and the rest
    scaled by the rows its steps read and their length (the mean row is taken as the
    recommendation's, so a longer ``max_length`` counts in proportion)."""
    steps = max_steps if max_steps and max_steps > 0 else math.ceil(max(rows, 1) / max(batch_size, 1)) * epochs
    work, rec_work = steps * batch_size, max(rec.total_steps * rec.batch_size, 1)
    length = (max_length or rec.max_length) / max(rec.max_length, 1)
    return round(rec.fixed_seconds + max(rec.est_seconds - rec.fixed_seconds, 0.0) * work / rec_work * length, 1)
