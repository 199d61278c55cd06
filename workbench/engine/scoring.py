"""Evaluation metrics (no paddle): classification scores from scikit-learn, and text
overlap scores for instruction tuning.

Scales: accuracy, F1, precision, recall, ROUGE-L and exact match are fractions in
[0, 1]; BLEU is sacrebleu's 0-100 score.

ROUGE-L "on characters": Chinese has no spaces, so word-level ROUGE would see a whole
sentence as one word. Text is split by :func:`char_tokens` into one token per CJK
character (and per punctuation mark), while runs of Latin letters and digits stay one
token each (lower-cased), so mixed text such as "APP转账限额5000元" scores sensibly.
ROUGE-L is the F1 (beta = 1) of the longest common subsequence of the two token lists.

BLEU is sacrebleu's corpus BLEU with its Chinese tokenizer (``tokenize="zh"``: each CJK
character a token, other text tokenized as in 13a).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any

_LATIN_RUN = re.compile(r"[A-Za-z0-9]+(?:[.'][A-Za-z0-9]+)*")


def normalize_text(text: str | None) -> str:
    """NFKC, trimmed, inner whitespace collapsed: the form exact match compares."""
    text = unicodedata.normalize("NFKC", "" if text is None else str(text))
    return " ".join(text.split())


def char_tokens(text: str | None) -> list[str]:
    """Tokens for ROUGE-L: CJK characters and punctuation one by one, Latin/digit runs whole."""
    text = normalize_text(text)
    tokens: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        m = _LATIN_RUN.match(text, i)
        if m:
            tokens.append(m.group(0).lower())
            i = m.end()
            continue
        tokens.append(ch)
        i += 1
    return tokens


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (O(len(a) * len(b)) time, O(len(b)) memory)."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            cur[j] = prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1])
        prev = cur
    return prev[-1]


def rouge_l(prediction: str | None, reference: str | None) -> float:
    """ROUGE-L F1 over :func:`char_tokens`; 1.0 when both are empty, 0.0 when one is."""
    p, r = char_tokens(prediction), char_tokens(reference)
    if not p and not r:
        return 1.0
    if not p or not r:
        return 0.0
    lcs = lcs_length(p, r)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(p), lcs / len(r)
    return 2 * precision * recall / (precision + recall)


def exact_match(prediction: str | None, reference: str | None) -> bool:
    return normalize_text(prediction) == normalize_text(reference)


def bleu(predictions: Sequence[str], references: Sequence[str]) -> float:
    """Corpus BLEU (0-100) with sacrebleu's Chinese tokenizer."""
    import sacrebleu

    if len(predictions) != len(references):
        raise ValueError("predictions and references differ in length")
    if not predictions:
        return 0.0
    result = sacrebleu.corpus_bleu([p or "" for p in predictions], [[r or "" for r in references]], tokenize="zh")
    return float(result.score)


def sentence_bleu(prediction: str, reference: str) -> float:
    import sacrebleu

    return float(sacrebleu.sentence_bleu(prediction or "", [reference or ""], tokenize="zh").score)


def generation_metrics(predictions: Sequence[str], references: Sequence[str]) -> dict[str, Any]:
    """ROUGE-L (mean of per-sample F1), corpus BLEU and exact match, plus the per-sample scores."""
    if len(predictions) != len(references):
        raise ValueError("predictions and references differ in length")
    scores = [rouge_l(p, r) for p, r in zip(predictions, references)]
    exact = [exact_match(p, r) for p, r in zip(predictions, references)]
    n = len(scores)
    return {
        "rouge_l": sum(scores) / n if n else 0.0,
        "bleu": bleu(predictions, references),
        "exact_match": sum(exact) / n if n else 0.0,
        "per_sample_rouge_l": scores,
        "per_sample_exact": exact,
    }


def classification_report(y_true: Sequence[str], y_pred: Sequence[str],
                          labels: Sequence[str] | None = None) -> dict[str, Any]:
    """Accuracy, macro-F1, per-class precision/recall/F1/support and the confusion matrix.

    ``confusion[i][j]`` counts samples of true label ``labels[i]`` predicted as
    ``labels[j]``. Classes never predicted get precision 0 (no warning). Macro-F1 is the
    mean over the labels present: see :func:`present_macro_f1`.
    """
    from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support

    if len(y_true) != len(y_pred):
        raise ValueError("y_true and y_pred differ in length")
    labels = list(labels) if labels else sorted(set(y_true) | set(y_pred))
    if not y_true:
        return {"accuracy": 0.0, "macro_f1": 0.0, "labels": labels, "per_class": {},
                "confusion": [[0] * len(labels) for _ in labels], "support": 0}
    p, r, f, s = precision_recall_fscore_support(y_true, y_pred, labels=labels, average=None, zero_division=0)
    given = Counter(y_pred)
    return {
        "accuracy": float(accuracy_score(y_true, y_pred)),
        **present_macro_f1(f, [int(s[i]) + given[lab] for i, lab in enumerate(labels)]),
        "labels": labels,
        "per_class": {
            lab: {"precision": float(p[i]), "recall": float(r[i]), "f1": float(f[i]), "support": int(s[i])}
            for i, lab in enumerate(labels)
        },
        "confusion": confusion_matrix(y_true, y_pred, labels=labels).tolist(),
        "support": len(y_true),
    }


def present_macro_f1(f1: Sequence[float], seen: Sequence[int]) -> dict[str, Any]:
    """Macro-F1 over the labels present: those with a row in the split or given by the model.

    A label absent from a small test split and never given is neither right nor wrong there;
    scikit-learn would count it as F1 0 and pull the mean down for every such label (0.504
    against 0.530 over the labels present, on a 103-label set). ``macro_f1_labels`` says how
    many labels the mean is over, ``macro_f1_of`` out of how many, so a reader sees which."""
    present = [float(v) for v, n in zip(f1, seen) if n > 0]
    return {"macro_f1": sum(present) / len(present) if present else 0.0,
            "macro_f1_labels": len(present), "macro_f1_of": len(list(f1))}


def macro_f1_name(metrics: dict[str, Any]) -> str:
    """"macro-F1" with the labels it averages, when some were left out (report and model card)."""
    n, of = metrics.get("macro_f1_labels"), metrics.get("macro_f1_of")
    if isinstance(n, int) and isinstance(of, int) and n < of:
        return f"macro-F1 (over the {n} of {of} labels in the test rows or predicted)"
    return "macro-F1"


def perplexity(mean_loss: float | None) -> float | None:
    if mean_loss is None or not math.isfinite(mean_loss):
        return None
    return float(math.exp(min(mean_loss, 50.0)))


# ----- multi-label ------------------------------------------------------------------------

from workbench.core.multilabel import LABEL_SET_JOINER  # noqa: E402, F401  (re-exported: one spelling for every CSV)

THRESHOLD_GRID = tuple(round(0.05 * i, 2) for i in range(1, 20))  # 0.05 .. 0.95


def label_sets_from_probabilities(probs: Sequence[Sequence[float]], labels: Sequence[str],
                                  threshold: float, allow_empty: bool = False) -> list[list[str]]:
    """Labels at or above ``threshold``. A row clearing none gets its most probable label,
    unless ``allow_empty`` (the project keeps rows with no label, so "none" is an answer);
    without such rows every prepared row has a label and an empty answer is always wrong."""
    out = []
    for row in probs:
        chosen = [lab for lab, p in zip(labels, row) if p >= threshold]
        if not chosen and len(row) and not allow_empty:
            chosen = [labels[max(range(len(row)), key=row.__getitem__)]]
        out.append(chosen)
    return out


def multi_label_report(y_true: Sequence[Sequence[str]], y_pred: Sequence[Sequence[str]],
                       labels: Sequence[str]) -> dict[str, Any]:
    """Micro-/macro-F1, subset accuracy (the whole set right), Hamming loss and per-label
    precision/recall/F1/support, from scikit-learn over 0/1 indicator matrices."""
    from sklearn.metrics import accuracy_score, f1_score, hamming_loss, precision_recall_fscore_support
    from sklearn.preprocessing import MultiLabelBinarizer

    if len(y_true) != len(y_pred):
        raise ValueError("y_true and y_pred differ in length")
    labels = list(labels)
    if not y_true:
        return {"micro_f1": 0.0, "macro_f1": 0.0, "subset_accuracy": 0.0, "hamming_loss": 0.0,
                "labels": labels, "per_class": {}, "support": 0, "multi_label": True}
    mlb = MultiLabelBinarizer(classes=labels)
    known = set(labels)
    t = mlb.fit_transform([[x for x in s if x in known] for s in y_true])
    p = mlb.transform([[x for x in s if x in known] for s in y_pred])
    pr, rc, f, s = precision_recall_fscore_support(t, p, average=None, zero_division=0)
    return {
        "micro_f1": float(f1_score(t, p, average="micro", zero_division=0)),
        **present_macro_f1(f, (t.sum(axis=0) + p.sum(axis=0)).tolist()),
        "subset_accuracy": float(accuracy_score(t, p)),
        "hamming_loss": float(hamming_loss(t, p)),
        "labels": labels,
        "per_class": {lab: {"precision": float(pr[i]), "recall": float(rc[i]), "f1": float(f[i]),
                            "support": int(s[i])} for i, lab in enumerate(labels)},
        "support": len(y_true),
        "multi_label": True,
    }


def tune_threshold(y_true: Sequence[Sequence[str]], probs: Sequence[Sequence[float]], labels: Sequence[str],
                   grid: Sequence[float] = THRESHOLD_GRID, allow_empty: bool = False) -> tuple[float, float]:
    """The one decision threshold (shared by all labels) with the best macro-F1 on these rows,
    and that macro-F1; ties go to the threshold nearest 0.5. One shared threshold rather than
    one per label: a validation split holds too few rows of a rare label to tune its own."""
    best = (0.5, -1.0)
    for th in sorted(grid, key=lambda x: abs(x - 0.5)):
        f = multi_label_report(y_true, label_sets_from_probabilities(probs, labels, th, allow_empty),
                               labels)["macro_f1"]
        if f > best[1] + 1e-12:
            best = (float(th), f)
    return best


def confused_label_pairs(y_true: Sequence[Sequence[str]], y_pred: Sequence[Sequence[str]],
                         n: int = 10) -> list[dict[str, Any]]:
    """The multi-label stand-in for a confusion matrix, two kinds of pair (true label A, label B
    given wrongly), each counted over rows; the ``n`` most frequent of each kind, most rows first:

    * ``"instead"``: the row missed A and was given B in its place;
    * ``"along"``: the row was given A rightly and B along with it.
    """
    from collections import Counter

    pairs: dict[str, Counter] = {"instead": Counter(), "along": Counter()}
    for true, pred in zip(y_true, y_pred):
        extra = [x for x in pred if x not in true]
        for a in true:
            pairs["along" if a in pred else "instead"].update((a, b) for b in extra)
    out = [{"true": a, "predicted": b, "kind": kind, "rows": k}
           for kind, counts in pairs.items() for (a, b), k in counts.most_common(n)]
    return sorted(out, key=lambda p: -p["rows"])  # stable: on a tie "instead" comes first
