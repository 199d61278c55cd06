"""A worker's log line as the Train page's Log tab shows it: in the interface language where its
code is known (the engine's own English text otherwise, as for messages from the libraries)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ....core.runs import format_duration
from ..run_text import metric_title


def log_text(ev: dict) -> str:
    code = ev.get("code")
    try:
        if code == "preparing_base":
            return QCoreApplication.translate("TrainPage", "Preparing the base model")
        if code == "linear_fit":
            return QCoreApplication.translate(
                "TrainPage", "Fitted the word-statistics part on {0:,} rows ({1:,} character n-grams) in {2:.1f} s").format(
                int(ev["rows"]), int(ev["ngrams"]), float(ev["seconds"]))
        if code == "feature_pass":  # a pretrained head's first stage (engine/training/feature_head.py)
            return QCoreApplication.translate("TrainPage", "Reading the rows with the frozen model: {0:,} of {1:,}").format(
                int(ev["done"]), int(ev["total"]))
        if code == "feature_pass_partial":
            return QCoreApplication.translate(
                "TrainPage", "The time budget's first stage read {0:,} of the {1:,} training rows: the head is fitted "
                             "on them, the word statistics on all of them").format(int(ev["read"]), int(ev["rows"]))
        if code == "feature_cache":
            return QCoreApplication.translate(
                "TrainPage", "Read the frozen model's states of {0:,} rows from the project's cache").format(int(ev["rows"]))
        if code == "feature_head":
            return QCoreApplication.translate(
                "TrainPage", "Fitted the classification head on the frozen model's states of {0:,} rows in {1:.0f} s; "
                             "validation Macro F1 {2:.4f}").format(int(ev["rows"]), float(ev["seconds"]),
                                                                   float(ev["macro_f1"]))
        if code == "frozen_start_compared":
            if ev["kept"] == "lora":
                return QCoreApplication.translate(
                    "TrainPage", "Validation Macro F1 after LoRA {0:.4f}, from the frozen start {1:.4f}: the LoRA "
                                 "model is kept").format(float(ev["lora_macro_f1"]), float(ev["frozen_macro_f1"]))
            return QCoreApplication.translate(
                "TrainPage", "Validation Macro F1 after LoRA {0:.4f}, no better than the frozen start's {1:.4f}: the "
                             "frozen start is kept").format(float(ev["lora_macro_f1"]), float(ev["frozen_macro_f1"]))
        if code == "frozen_start_only":
            return QCoreApplication.translate(
                "TrainPage", "The first stage left {0:.0f} s of the time budget, under the {1:.0f} s that LoRA's steps "
                             "and the comparison after them take: the frozen start is the run's model").format(
                float(ev["left_s"]), float(ev["need_s"]))
        if code == "early_stopping":
            return QCoreApplication.translate(
                "TrainPage", "Stopped early at step {0}: validation {1} has not improved on {2:.4f} (step {3}) "
                             "for {4} evaluations").format(int(ev["step"]), metric_title(str(ev["metric"])),
                                                           float(ev["best"]), int(ev["best_step"]), int(ev["evals"]))
        if code == "best_weights":
            return QCoreApplication.translate("TrainPage", "Kept the best weights: step {0}, validation {1} {2:.4f}").format(
                int(ev["step"]), metric_title(str(ev["metric"])), float(ev["value"]))
        if code == "part_scores":
            return QCoreApplication.translate(
                "TrainPage", "Validation Macro F1 {0:.4f} (network alone {1:.4f}, word-statistics part alone {2:.4f}, "
                             "its share {3:g})").format(float(ev["macro_f1"]), float(ev["network"]),
                                                        float(ev["linear"]), float(ev["share"]))
        if code == "saved_final":
            return QCoreApplication.translate("TrainPage", "Saved the trained model")
        if code == "time_budget_reached":
            return QCoreApplication.translate(
                "TrainPage", "The time budget of {0} is used up: training ends at step {1} of {2}").format(
                format_duration(float(ev["budget_s"])), int(ev["step"]), int(ev["total_steps"]))
        if code == "threads":
            return QCoreApplication.translate(
                "TrainPage", "Compute threads {0} → {1}: other work used {2:.0%} of the processor over the last "
                             "minutes").format(int(ev["before"]), int(ev["threads"]), float(ev["share"]))
        if code == "baseline_pending":
            return QCoreApplication.translate(
                "TrainPage", "The simple baseline was still being fitted when the time budget ran out; the "
                             "evaluation fits it")
        # a preference run's held-out pairs (engine/training/preference.py), before and after tuning
        if code == "preference_before":
            return QCoreApplication.translate(
                "TrainPage", "Before tuning, on {0} held-out pairs: the model's likelihood prefers the chosen answer "
                             "in {1:.0%}").format(int(ev["pairs"]), float(ev["likelihood_accuracy"]))
        if code == "preference_after":
            return QCoreApplication.translate(
                "TrainPage", "After tuning, on {0} held-out pairs: the implicit reward prefers the chosen answer in "
                             "{1:.0%} (0.5 is a coin toss); the model's likelihood in {2:.0%}").format(
                int(ev["pairs"]), float(ev["preference_accuracy"]), float(ev["likelihood_accuracy"]))
    except (KeyError, TypeError, ValueError):
        pass  # a line without its figures: the engine's own words below
    return f"{ev.get('level', 'info')}: {ev.get('message')}"
