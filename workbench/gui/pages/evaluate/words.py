"""How the Evaluate page words a run's results: the split, the method, the metrics' notes,
the baseline comparison and the figures' formats (under the page's translation context)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ..run_text import metric_title


def split_name(split: str | None) -> str:
    """A data split as the summary line names it."""
    return {
        "test": QCoreApplication.translate("EvaluatePage", "test"),
        "val": QCoreApplication.translate("EvaluatePage", "validation"),
        "train": QCoreApplication.translate("EvaluatePage", "training"),
    }.get(split or "", split or "")


def method_name(method: str | None) -> str:
    """A fine-tuning method as the summary line names it."""
    return {
        "full": QCoreApplication.translate("EvaluatePage", "full fine-tuning"),
        "lora": QCoreApplication.translate("EvaluatePage", "LoRA"),
    }.get(method or "", method or "")


def metric_note(key: str) -> str:
    return {
        "accuracy": QCoreApplication.translate("EvaluatePage", "share of test rows labelled right"),
        "macro_f1": QCoreApplication.translate("EvaluatePage", "balance of precision and recall, averaged over labels"),
        "micro_f1": QCoreApplication.translate("EvaluatePage", "F1 over every label given or missed"),
        "subset_accuracy": QCoreApplication.translate("EvaluatePage", "rows whose labels are exactly right"),
        "hamming_loss": QCoreApplication.translate("EvaluatePage", "share of wrong yes/no label decisions; lower is better"),
        "rouge_l": QCoreApplication.translate("EvaluatePage", "overlap with the reference answers (0–1)"),
        "bleu": QCoreApplication.translate("EvaluatePage", "n-gram match with the references (0–100)"),
        "exact_match": QCoreApplication.translate("EvaluatePage", "answers identical to the reference"),
        "eval_loss": QCoreApplication.translate("EvaluatePage", "lower is better"),
        "perplexity": QCoreApplication.translate("EvaluatePage", "lower is better"),
    }.get(key, "")


def baseline_sentence(comparison: dict | None) -> str:
    """The eval result's baseline comparison (metrics.json ``baseline.comparison``) in words."""
    if not comparison:
        return ""
    key = comparison.get("metric", "")
    ours, theirs, diff = comparison.get("model"), comparison.get("baseline"), comparison.get("difference")
    if not all(isinstance(v, (int, float)) for v in (ours, theirs, diff)):
        return ""
    args = (fmt_metric(key, abs(diff)), metric_title(key), fmt_metric(key, ours), fmt_metric(key, theirs))
    verdict = comparison.get("verdict") or ("beats" if comparison.get("beats") else "below")
    if key == "macro_f1":
        texts = {
            "beats": QCoreApplication.translate(
                "EvaluatePage", "The fine-tuned model beats a simple word-statistics baseline by {0} {1} "
                                       "({2} vs {3})."),
            "ties": QCoreApplication.translate(
                "EvaluatePage", "The fine-tuned model matches a simple word-statistics baseline: {1} {2} "
                                      "vs {3}."),
            "below": QCoreApplication.translate(
                "EvaluatePage", "The fine-tuned model does not beat a simple word-statistics baseline: "
                                       "{1} {2} vs {3}, {0} lower."),
        }
    else:
        texts = {
            "beats": QCoreApplication.translate(
                "EvaluatePage", "The fine-tuned model beats a simple retrieval baseline by {0} {1} "
                                       "({2} vs {3})."),
            "ties": QCoreApplication.translate(
                "EvaluatePage", "The fine-tuned model matches a simple retrieval baseline: {1} {2} vs {3}."),
            "below": QCoreApplication.translate(
                "EvaluatePage", "The fine-tuned model does not beat a simple retrieval baseline: "
                                       "{1} {2} vs {3}, {0} lower."),
        }
    text = texts[verdict]
    return text.format(*args)


def fmt_metric(key: str, v: float) -> str:
    """A metric's value as the cards and sentences show it."""
    if key in ("accuracy", "macro_f1", "micro_f1", "subset_accuracy", "exact_match"):
        return f"{v:.1%}"
    if key == "bleu":
        return f"{v:.1f}"
    return f"{v:.3f}"
