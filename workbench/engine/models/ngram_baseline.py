"""A classical baseline beside every evaluation, so the user sees whether fine-tuning paid.

* Classification: character 1-3-gram TF-IDF (sublinear term frequency) + logistic
  regression (scikit-learn), trained on the project's train split and scored on the
  same rows the model is evaluated on. Classes are weighted inversely to their
  frequency ("balanced") when the labels are skewed (largest class over 1.5x the
  smallest), which is what macro-F1 rewards. Character n-grams need no word segmenter,
  which matters for Chinese. On published Chinese sets (short medical queries, finance
  forum posts, legal case facts) this scores macro-F1 0.65-0.90 in seconds: a model that
  does not beat it has not earned its training time.
* Instruction tuning: retrieval. The answer given is the training answer of the most
  similar training question (cosine of character 1-3-gram TF-IDF vectors), scored with
  the same ROUGE-L / BLEU / exact match as the model's answers.

No paddle here: the figures come from scikit-learn and :mod:`.metrics` alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from workbench.engine import scoring

SKEW_RATIO = 1.5  # largest / smallest class count above which classes are weighted
NGRAMS = (1, 3)
MAX_FEATURES = 300_000
TIE = 0.0005  # half the last digit shown
CACHE_VERSION = 2  # raise when a baseline's result changes for the same rows
LOGREG_C = 10.0  # measured: C=10 beats the default C=1 by 0.02-0.04 macro-F1 on the real sets
# One multinomial fit over all labels. Newton-CG, not the default L-BFGS: on the real legal
# sets it reaches the same optimum 2.7-2.8x sooner (13 charges 3.8 s against 10.3 s, 62 charges
# 30 s against 83 s on 2 cores) and lands closer to it (largest probability off the optimum,
# found at tolerance 1e-9: 0.002-0.003 against 0.008-0.032), answering the same labels. The
# one-vs-rest fits of a multi-label set keep L-BFGS: Newton-CG was no faster there.
MULTINOMIAL_SOLVER = "newton-cg"

DESCRIPTION = {
    "classification": "character 1-3-gram TF-IDF + logistic regression",
    "instruction": "answer of the most similar training question (character TF-IDF)",
    "multi_label": "character 1-3-gram TF-IDF + one logistic regression per label",
}


def vectorizer():
    """The character 1-3-gram TF-IDF features every baseline (and the label review) reads."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(analyzer="char", ngram_range=NGRAMS, sublinear_tf=True, max_features=MAX_FEATURES,
                           dtype=np.float32)  # the type itself: the string "float32" warns


def is_skewed(labels: Sequence[str]) -> bool:
    counts = Counter(labels)
    return len(counts) > 1 and max(counts.values()) > SKEW_RATIO * min(counts.values())


def classifier(skewed: bool):
    """The multinomial logistic regression of the classification baseline, its classes weighted
    when the labels it is fitted on are skewed (:func:`is_skewed`)."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=LOGREG_C, max_iter=2000, solver=MULTINOMIAL_SOLVER,
                              class_weight="balanced" if skewed else None)


def classification_baseline(train_texts: Sequence[str], train_labels: Sequence[str], test_texts: Sequence[str],
                            test_labels: Sequence[str], labels: Sequence[str]) -> dict[str, Any] | None:
    """Fit the TF-IDF + logistic-regression baseline and score it; None without two classes."""
    pairs = [(t or "", str(y)) for t, y in zip(train_texts, train_labels) if str(y) in set(labels)]
    if len({y for _, y in pairs}) < 2 or not test_texts:
        return None
    started = time.perf_counter()
    skewed = is_skewed([y for _, y in pairs])
    vec = vectorizer()
    x = vec.fit_transform([t for t, _ in pairs])
    model = classifier(skewed)
    model.fit(x, [y for _, y in pairs])
    fit_seconds = time.perf_counter() - started
    preds = [str(p) for p in model.predict(vec.transform([t or "" for t in test_texts]))]
    res = scoring.classification_report([str(y) for y in test_labels], preds, list(labels))
    return {
        "kind": "char_tfidf_logreg", "description": DESCRIPTION["classification"],
        "accuracy": res["accuracy"], "macro_f1": res["macro_f1"],
        "class_weight": "balanced" if skewed else None, "train_rows": len(pairs),
        "fit_seconds": round(fit_seconds, 3), "predictions": preds,
    }


def multi_label_baseline(train_texts: Sequence[str], train_sets: Sequence[Sequence[str]], test_texts: Sequence[str],
                         test_sets: Sequence[Sequence[str]], labels: Sequence[str]) -> dict[str, Any] | None:
    """The same features, one logistic regression per label (one-vs-rest), each weighted
    "balanced" (a label is on a minority of rows); a label is given at probability 0.5 and
    up; a row clearing none gets its most probable label, as the model's rows do, unless the
    training rows include rows with no label (then "none" is an answer and they are negatives)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import MultiLabelBinarizer

    known = set(labels)
    pairs = [(t or "", [x for x in s if x in known]) for t, s in zip(train_texts, train_sets)]
    allow_empty = any(not s for _, s in pairs)
    mlb = MultiLabelBinarizer(classes=list(labels))
    y = mlb.fit_transform([s for _, s in pairs])
    present = y.sum(axis=0)
    if (present > 0).sum() < 2 or not test_texts:
        return None
    started = time.perf_counter()
    vec = vectorizer()
    x = vec.fit_transform([t for t, _ in pairs])
    cols = np.flatnonzero((present > 0) & (present < len(pairs)))  # a label on no row (or on all) is not fitted
    model = OneVsRestClassifier(LogisticRegression(C=LOGREG_C, max_iter=2000, class_weight="balanced"))
    model.fit(x, y[:, cols])
    fit_seconds = time.perf_counter() - started
    probs = np.zeros((len(test_texts), len(labels)))
    probs[:, cols] = model.predict_proba(vec.transform([t or "" for t in test_texts]))
    preds = scoring.label_sets_from_probabilities(probs.tolist(), list(labels), 0.5, allow_empty)
    res = scoring.multi_label_report([list(s) for s in test_sets], preds, list(labels))
    return {
        "kind": "char_tfidf_logreg_ovr", "description": DESCRIPTION["multi_label"],
        "micro_f1": res["micro_f1"], "macro_f1": res["macro_f1"], "subset_accuracy": res["subset_accuracy"],
        "hamming_loss": res["hamming_loss"], "threshold": 0.5, "class_weight": "balanced",
        "train_rows": len(pairs), "fit_seconds": round(fit_seconds, 3),
        "predictions": [scoring.LABEL_SET_JOINER.join(p) for p in preds],
    }


def retrieval_baseline(train_questions: Sequence[str], train_answers: Sequence[str],
                       test_questions: Sequence[str], test_answers: Sequence[str]) -> dict[str, Any] | None:
    """Answer each test question with the answer of its nearest training question."""
    if not train_questions or not test_questions:
        return None
    started = time.perf_counter()
    vec = vectorizer()
    x = vec.fit_transform([q or "" for q in train_questions])
    fit_seconds = time.perf_counter() - started
    q = vec.transform([t or "" for t in test_questions])
    # rows are L2-normalised, so the dot product is the cosine; done in blocks to bound memory
    nearest: list[int] = []
    for start in range(0, q.shape[0], 512):
        sims = q[start:start + 512] @ x.T
        nearest.extend(int(i) for i in sims.toarray().argmax(axis=1))
    answers = [str(train_answers[i] or "") for i in nearest]
    res = scoring.generation_metrics(answers, [str(a or "") for a in test_answers])
    return {
        "kind": "char_tfidf_retrieval", "description": DESCRIPTION["instruction"],
        "rouge_l": res["rouge_l"], "bleu": res["bleu"], "exact_match": res["exact_match"],
        "train_rows": len(train_questions), "fit_seconds": round(fit_seconds, 3), "predictions": answers,
    }


BOOTSTRAP_ROUNDS = 2000
BOOTSTRAP_LEVEL = 0.95


def macro_f1_difference_interval(references: Sequence[str], ours: Sequence[str], theirs: Sequence[str],
                                 labels: Sequence[str], rounds: int = BOOTSTRAP_ROUNDS,
                                 level: float = BOOTSTRAP_LEVEL, seed: int = 0) -> dict[str, Any] | None:
    """A paired bootstrap interval of macro-F1(ours) - macro-F1(theirs) on the same rows: the
    rows are drawn with replacement ``rounds`` times and both scored on each draw (percentile
    interval). None for fewer than two rows or a label outside ``labels``.

    Macro-F1 as :func:`metrics.classification_report` computes it (the mean over the labels
    present in the draw: with a row there, or given by the model), from per-label counts in
    numpy: scoring each of thousands of draws with scikit-learn would take seconds where this
    takes milliseconds (tests check both agree)."""
    import numpy as np

    index = {lab: i for i, lab in enumerate(labels)}
    try:
        t, a, b = (np.array([index[str(v)] for v in col], dtype=np.int64) for col in (references, ours, theirs))
    except KeyError:
        return None
    n, k = len(t), len(labels)
    if n < 2 or not (len(a) == len(b) == n):
        return None
    rng = np.random.default_rng(seed)
    diffs = []
    step = max(1, min(rounds, 2_000_000 // n))  # draws per block: memory stays bounded on big splits
    for start in range(0, rounds, step):
        draws = rng.integers(0, n, size=(min(step, rounds - start), n))
        diffs.append(_macro_f1_per_row(t[draws], a[draws], k) - _macro_f1_per_row(t[draws], b[draws], k))
    diffs = np.concatenate(diffs)
    lo, hi = np.quantile(diffs, [(1 - level) / 2, 1 - (1 - level) / 2])
    return {"low": round(float(lo), 6), "high": round(float(hi), 6), "level": level, "rounds": rounds, "rows": n}


def rouge_l_difference_interval(references: Sequence[str], ours: Sequence[str], theirs: Sequence[str],
                                rounds: int = BOOTSTRAP_ROUNDS, level: float = BOOTSTRAP_LEVEL,
                                seed: int = 0) -> dict[str, Any] | None:
    """The paired bootstrap interval of ROUGE-L(ours) - ROUGE-L(theirs) on the same rows.
    ROUGE-L is the mean of the rows' own scores, so each draw's difference is the mean of the
    drawn rows' differences."""
    import numpy as np

    n = len(references)
    if n < 2 or not (len(ours) == len(theirs) == n):
        return None
    d = np.array([scoring.rouge_l(a, r) - scoring.rouge_l(b, r) for a, b, r in zip(ours, theirs, references)])
    rng = np.random.default_rng(seed)
    step = max(1, min(rounds, 2_000_000 // n))
    diffs = np.concatenate([d[rng.integers(0, n, size=(min(step, rounds - s), n))].mean(axis=1)
                            for s in range(0, rounds, step)])
    lo, hi = np.quantile(diffs, [(1 - level) / 2, 1 - (1 - level) / 2])
    return {"low": round(float(lo), 6), "high": round(float(hi), 6), "level": level, "rounds": rounds, "rows": n}


def _label_set(cell: Any) -> list[str]:
    """A row's label set: a list, or one CSV cell of labels joined by ``LABEL_SET_JOINER``."""
    if isinstance(cell, (list, tuple, set)):
        return [str(x) for x in cell]
    return [x.strip() for x in str(cell or "").split(scoring.LABEL_SET_JOINER) if x.strip()]


def multi_label_macro_f1_difference_interval(references: Sequence[Any], ours: Sequence[Any], theirs: Sequence[Any],
                                             labels: Sequence[str], rounds: int = BOOTSTRAP_ROUNDS,
                                             level: float = BOOTSTRAP_LEVEL, seed: int = 0) -> dict[str, Any] | None:
    """:func:`macro_f1_difference_interval` for label sets: the paired bootstrap interval of
    macro-F1(ours) - macro-F1(theirs) as :func:`metrics.multi_label_report` computes it (each
    label's F1 from its counts over the rows, the mean over the labels present; labels outside
    ``labels`` are not counted, as there). A row is a list of labels or a CSV cell of them.
    Each draw's per-label counts are the draw's row counts times the rows' 0/1 indicators (a
    product of matrices, so thousands of draws take well under a second). None for fewer than
    two rows."""
    import numpy as np

    n, k = len(references), len(labels)
    if n < 2 or not (len(ours) == len(theirs) == n) or not k:
        return None
    index = {lab: i for i, lab in enumerate(labels)}

    def indicators(col):
        m = np.zeros((n, k))
        for row, cell in enumerate(col):
            m[row, [index[x] for x in _label_set(cell) if x in index]] = 1.0
        return m

    t, a, b = indicators(references), indicators(ours), indicators(theirs)
    # per row and label: true positives, and 2 tp + fp + fn (the label in the truth plus in the answer)
    parts = np.concatenate([t * a, t + a, t * b, t + b], axis=1)  # [n, 4k]
    rng = np.random.default_rng(seed)
    diffs = []
    step = max(1, min(rounds, 2_000_000 // n))  # the same draws as the single-label interval's
    for start in range(0, rounds, step):
        m = min(step, rounds - start)
        draws = rng.integers(0, n, size=(m, n))
        weights = np.bincount((draws + (np.arange(m) * n)[:, None]).ravel(), minlength=m * n).reshape(m, n)
        tp_a, seen_a, tp_b, seen_b = np.split(weights @ parts, 4, axis=1)
        diffs.append(_present_mean_f1(tp_a, seen_a) - _present_mean_f1(tp_b, seen_b))
    diffs = np.concatenate(diffs)
    lo, hi = np.quantile(diffs, [(1 - level) / 2, 1 - (1 - level) / 2])
    return {"low": round(float(lo), 6), "high": round(float(hi), 6), "level": level, "rounds": rounds, "rows": n}


def _present_mean_f1(tp, seen):
    """Per draw, the mean F1 (2 tp / seen) over the labels with ``seen`` > 0 (metrics.present_macro_f1)."""
    import numpy as np

    present = seen > 0
    f1 = np.where(present, 2 * tp / np.maximum(seen, 1), 0.0)
    return f1.sum(axis=1) / np.maximum(present.sum(axis=1), 1)


def difference_interval(task: str, multi_label: bool, references: Sequence[Any], ours: Sequence[Any],
                        theirs: Sequence[Any], labels: Sequence[str]) -> dict[str, Any] | None:
    """The bootstrap interval of the main metric's difference (macro-F1 or ROUGE-L) between the
    model's and the baseline's answers on the same rows (label sets, for a multi-label task:
    lists, or CSV cells as predictions.csv holds them)."""
    if multi_label:
        return multi_label_macro_f1_difference_interval(references, ours, theirs, labels)
    if task == "classification":
        return macro_f1_difference_interval(references, ours, theirs, labels)
    return rouge_l_difference_interval(references, ours, theirs)


def _macro_f1_per_row(truth, guess, k: int):
    """Macro-F1 over the labels present (of 0..k-1) in each row of two ``[draws, n]`` label-id arrays."""
    import numpy as np

    m = truth.shape[0]
    offset = (np.arange(m) * k)[:, None]

    def counts(x):  # per draw and label
        return np.bincount(x.ravel(), minlength=m * k).reshape(m, k)

    tp = counts((offset + truth)[truth == guess])
    denom = counts(offset + truth) + counts(offset + guess)  # 2 tp + fp + fn: rows + given
    present = denom > 0  # the labels the mean is over (metrics.present_macro_f1)
    f1 = np.where(present, 2 * tp / np.maximum(denom, 1), 0.0)
    return f1.sum(axis=1) / np.maximum(present.sum(axis=1), 1)


def comparison(task: str, model_metrics: dict[str, Any], baseline: dict[str, Any] | None,
               interval: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """How the fine-tuned model compares with the baseline on the task's main metric.

    ``{"metric", "model", "baseline", "difference", "beats", "verdict", "sentence"}`` and,
    given ``interval`` (:func:`difference_interval`), ``"interval"``: a difference
    whose interval includes 0 is within the noise of the rows, so the model "matches" the
    baseline. The sentence is the plain statement report.html and the model card print (the
    GUI words its own translation from the same fields).
    """
    if not baseline:
        return None
    key = "macro_f1" if task == "classification" else "rouge_l"
    ours, theirs = model_metrics.get(key), baseline.get(key)
    if not isinstance(ours, (int, float)) or not isinstance(theirs, (int, float)):
        return None
    diff = float(ours) - float(theirs)
    name = "macro-F1" if key == "macro_f1" else "ROUGE-L"
    what = "a simple word-statistics baseline" if task == "classification" else "a simple retrieval baseline"
    # equal at the precision shown (3 decimals) is a tie, not "does not beat ... 0.000 lower"
    verdict = "beats" if diff >= TIE else "ties" if diff > -TIE else "below"
    noise = ""
    if interval:  # a difference whose interval holds 0 is within the noise of these rows
        if interval["low"] <= 0 <= interval["high"]:
            verdict = "ties"
        noise = (f" ({interval['level']:.0%} bootstrap interval of the difference over the {interval['rows']} "
                 f"rows: {interval['low']:+.3f} to {interval['high']:+.3f})")
    if verdict == "beats":
        sentence = (f"The fine-tuned model beats {what} ({baseline['description']}) by {diff:.3f} {name} "
                    f"({ours:.3f} vs {theirs:.3f}){noise}.")
    elif verdict == "ties":
        sentence = (f"The fine-tuned model matches {what} ({baseline['description']}): {name} "
                    f"{ours:.3f} vs {theirs:.3f}"
                    + (f", a difference of {diff:+.3f} within the noise{noise}." if interval else "."))
    else:
        sentence = (f"The fine-tuned model does not beat {what} ({baseline['description']}): {name} "
                    f"{ours:.3f} vs {theirs:.3f}, {-diff:.3f} lower{noise}.")
    out = {"metric": key, "model": float(ours), "baseline": float(theirs), "difference": round(diff, 6),
           "beats": verdict == "beats", "verdict": verdict, "sentence": sentence}
    if interval:
        out["interval"] = interval
    return out


def input_text(record: dict[str, Any], roles: Sequence[str]) -> str:
    """The record's input fields (not the label or answer) joined by newlines."""
    return "\n".join(str(record.get(r) or "") for r in roles if record.get(r) not in (None, ""))


def evaluate_baseline(task: str, train_records: Sequence[dict], records: Sequence[dict], input_roles: Sequence[str],
                      labels: Sequence[str], multi_label: bool = False,
                      cache_dir: str | os.PathLike | None = None) -> dict[str, Any] | None:
    """The task's baseline fitted on ``train_records`` and scored on ``records``. With
    ``cache_dir`` the result is kept there under a digest of everything it depends on (the
    rows, the labels, the baseline's settings): evaluating another run, or the same run again,
    on the same split does not fit it again (a fit over tens of labels takes minutes)."""
    key = None
    if cache_dir is not None:
        key = hashlib.sha256(json.dumps(
            [CACHE_VERSION, task, list(input_roles), list(labels), multi_label, NGRAMS, MAX_FEATURES, LOGREG_C,
             MULTINOMIAL_SOLVER,
             [[input_text(r, input_roles), r.get("label"), r.get("labels"), r.get("output")] for r in train_records],
             [[input_text(r, input_roles), r.get("label"), r.get("labels"), r.get("output")] for r in records]],
            ensure_ascii=False, default=str).encode("utf-8")).hexdigest()[:32]
        path = Path(cache_dir) / f"baseline-{key}.json"
        try:
            cached = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(cached, dict):
                return {**cached, "cached": True}
        except (OSError, ValueError):
            pass
    result = _evaluate_baseline(task, train_records, records, input_roles, labels, multi_label)
    if key is not None and result is not None:
        from workbench.core.fsutil import atomic_write_text

        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        atomic_write_text(Path(cache_dir) / f"baseline-{key}.json", json.dumps(result, ensure_ascii=False))
    return result


def fit_in_background(task: str, train_records: Sequence[dict], records: Sequence[dict], input_roles: Sequence[str],
                      labels: Sequence[str], multi_label: bool, cache_dir: str | os.PathLike) -> Future:
    """:func:`evaluate_baseline` on a thread of its own; its result, or its exception, is the
    future's. The training worker starts it while the network trains (that keeps one core
    busy: train CPU time is 0.99 of its wall time on 2 cores), so the fit, up to half a minute
    over tens of labels, runs on the other core and the run's first evaluation finds it ready;
    the evaluation starts it while its model loads and scores. A daemon thread: a process that
    ends early (a stopped run, a failed evaluation) does not wait for it."""
    future: Future = Future()

    def fit() -> None:
        from threadpoolctl import threadpool_limits

        if not future.set_running_or_notify_cancel():
            return
        try:
            # one BLAS thread: more of them spin on the core the model works on (on 62 charges
            # the training worker's CPU time doubled and its wall time grew by a quarter)
            with threadpool_limits(limits=1, user_api="blas"):
                future.set_result(evaluate_baseline(task, train_records, records, input_roles, labels,
                                                    multi_label=multi_label, cache_dir=cache_dir))
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the result
            future.set_exception(exc)

    threading.Thread(target=fit, name="baseline", daemon=True).start()
    return future


def _evaluate_baseline(task: str, train_records: Sequence[dict], records: Sequence[dict], input_roles: Sequence[str],
                       labels: Sequence[str], multi_label: bool) -> dict[str, Any] | None:
    train_x = [input_text(r, input_roles) for r in train_records]
    test_x = [input_text(r, input_roles) for r in records]
    if multi_label:
        return multi_label_baseline(train_x, [r.get("labels") or [] for r in train_records], test_x,
                                    [r.get("labels") or [] for r in records], labels)
    if task == "classification":
        return classification_baseline(train_x, [str(r.get("label", "")) for r in train_records], test_x,
                                       [str(r.get("label", "")) for r in records], labels)
    return retrieval_baseline(train_x, [str(r.get("output", "")) for r in train_records], test_x,
                              [str(r.get("output", "")) for r in records])
