"""How a run reads on the pages: its status, a setting's value, a metric's name, and the run
picker the Train, Evaluate and Export pages share.

The strings keep the translation contexts of the pages they first appeared on (TrainPage,
EvaluatePage), so the shipped translations still find them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from ...core.runs import format_duration, run_to_show
from ..i18n import join_list


def hyper_label(name: str) -> str:
    """A setting of a job (core/jobs.py) as the Train page names it."""
    return {
        "learning_rate": QCoreApplication.translate("TrainPage", "Learning rate"),
        "epochs": QCoreApplication.translate("TrainPage", "Epochs"),
        "batch_size": QCoreApplication.translate("TrainPage", "Rows per step (batch)"),
        "max_length": QCoreApplication.translate("TrainPage", "Maximum length (tokens)"),
        "lora_r": QCoreApplication.translate("TrainPage", "LoRA rank"),
        "lora_alpha": QCoreApplication.translate("TrainPage", "LoRA scaling"),
        "lora_dropout": QCoreApplication.translate("TrainPage", "LoRA dropout"),
        "warmup_ratio": QCoreApplication.translate("TrainPage", "Warm-up share"),
        "gradient_accumulation_steps": QCoreApplication.translate("TrainPage", "Gradient accumulation"),
        "weight_decay": QCoreApplication.translate("TrainPage", "Weight decay"),
        "base_model": QCoreApplication.translate("TrainPage", "Base model"),
        "method": QCoreApplication.translate("TrainPage", "Method"),
        "max_steps": QCoreApplication.translate("TrainPage", "Stop after steps"),
        "eval_steps": QCoreApplication.translate("TrainPage", "Check every (steps)"),
        "save_steps": QCoreApplication.translate("TrainPage", "Save every (steps)"),
        "logging_steps": QCoreApplication.translate("TrainPage", "Log every (steps)"),
        "save_total_limit": QCoreApplication.translate("TrainPage", "Checkpoints kept"),
        "seed": QCoreApplication.translate("TrainPage", "Random seed"),
        "device": QCoreApplication.translate("TrainPage", "Device"),
        "precision": QCoreApplication.translate("TrainPage", "Precision"),
        "quantization": QCoreApplication.translate("TrainPage", "Quantisation"),
        "lr_scheduler": QCoreApplication.translate("TrainPage", "Learning rate schedule"),
        "lora_target_modules": QCoreApplication.translate("TrainPage", "LoRA layers"),
        "allow_pickle": QCoreApplication.translate("TrainPage", "Pickle weights allowed"),
        "vocabulary": QCoreApplication.translate("TrainPage", "Vocabulary trained over"),
        "recompute": QCoreApplication.translate("TrainPage", "Layers recomputed (less memory)"),
        "data_version": QCoreApplication.translate("TrainPage", "Data version"),
        "time_budget_s": QCoreApplication.translate("TrainPage", "Time budget"),
        "eval_rows": QCoreApplication.translate("TrainPage", "Validation rows per check"),
        "head": QCoreApplication.translate("TrainPage", "Classification head"),
        "head_pooling": QCoreApplication.translate("TrainPage", "Classification head reads"),
        "head_depth": QCoreApplication.translate("TrainPage", "Share of the model's layers read"),
        "head_features": QCoreApplication.translate("TrainPage", "Head fitted on frozen states first"),
        "head_linear": QCoreApplication.translate("TrainPage", "Word statistics mixed into the head"),
        "from_run": QCoreApplication.translate("TrainPage", "Tuned from run"),
        "dpo_loss": QCoreApplication.translate("TrainPage", "Preference loss"),
        "dpo_beta": QCoreApplication.translate("TrainPage", "Beta"),
    }.get(name, name)


def setting_text(name: str, value: Any) -> str:
    """A setting's value as a person reads it (no Python lists, None or internal ids)."""
    if value is None:
        if name == "eval_rows":
            return QCoreApplication.translate("TrainPage", "all")
        return QCoreApplication.translate("TrainPage", "default")
    if isinstance(value, bool):
        return QCoreApplication.translate("TrainPage", "yes") if value else QCoreApplication.translate("TrainPage", "no")
    if isinstance(value, (list, tuple)):
        return join_list(value)
    if name == "max_steps" and value <= 0:
        return QCoreApplication.translate("TrainPage", "by epochs")
    if name == "base_model":
        return {"builtin:tiny": QCoreApplication.translate("TrainPage", "built-in tiny model"),
                "builtin:small": QCoreApplication.translate("TrainPage", "built-in small model")}.get(value, str(value))
    if name == "time_budget_s":
        return format_duration(value)
    if name == "head_pooling":
        return {"last": QCoreApplication.translate("TrainPage", "the last token"),
                "mean": QCoreApplication.translate("TrainPage", "the mean of the tokens")}.get(value, str(value))
    if name == "head_depth":
        return f"{value:.0%}"
    if name == "data_version":  # an id's first characters, as the runs list shows it
        return str(value)[:7]
    if name == "method":
        return {"lora": "LoRA", "full": QCoreApplication.translate("TrainPage", "full fine-tuning"),
                "dpo": QCoreApplication.translate("TrainPage", "DPO preference tuning")}.get(value, value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def status_text(status: str) -> str:
    return {
        "created": QCoreApplication.translate("TrainPage", "created"),
        "running": QCoreApplication.translate("TrainPage", "running"),
        "completed": QCoreApplication.translate("TrainPage", "completed"),
        "stopped": QCoreApplication.translate("TrainPage", "stopped"),
        "failed": QCoreApplication.translate("TrainPage", "failed"),
        "crashed": QCoreApplication.translate("TrainPage", "crashed"),
    }.get(status, status)


def fill_run_combo(combo, runs: dict, keep, empty_text: str, follow: bool = True) -> None:
    """Refill a run picker with the runs ``keep(state)`` accepts; core's run_to_show says which
    one it then shows (a run that has just finished, else the user's choice). ``follow=False``
    keeps the choice while the page works on that run."""
    current = combo.currentData()
    listed = [combo.itemData(i) for i in range(combo.count()) if combo.itemData(i) is not None]
    offered = [run_id for run_id, st in runs.items() if keep(st)]
    shown = run_to_show(listed if follow else [], offered, current)
    combo.blockSignals(True)
    combo.clear()
    for run_id in offered:
        combo.addItem(f"{run_id} ({status_text(runs[run_id].status)})", run_id)
    if combo.count() == 0:
        combo.addItem(empty_text, None)
    combo.setCurrentIndex(max(combo.findData(shown), 0))
    combo.blockSignals(False)


def metric_title(key: str) -> str:
    return {
        "accuracy": QCoreApplication.translate("EvaluatePage", "Accuracy"),
        "macro_f1": QCoreApplication.translate("EvaluatePage", "Macro F1"),
        "network_macro_f1": QCoreApplication.translate("EvaluatePage", "Macro F1 of the network alone"),
        "micro_f1": QCoreApplication.translate("EvaluatePage", "Micro F1"),
        "subset_accuracy": QCoreApplication.translate("EvaluatePage", "Whole label set right"),
        "hamming_loss": QCoreApplication.translate("EvaluatePage", "Hamming loss"),
        "rouge_l": QCoreApplication.translate("EvaluatePage", "ROUGE-L"),
        "bleu": QCoreApplication.translate("EvaluatePage", "BLEU"),
        "exact_match": QCoreApplication.translate("EvaluatePage", "Exact match"),
        "eval_loss": QCoreApplication.translate("EvaluatePage", "Loss on the answers"),
        "perplexity": QCoreApplication.translate("EvaluatePage", "Perplexity"),
        # a preference run's held-out pairs (engine/training/preference.py)
        "preference_accuracy": QCoreApplication.translate("EvaluatePage", "Preference accuracy"),
        "likelihood_accuracy": QCoreApplication.translate("EvaluatePage", "Chosen answer more likely"),
        "reward_margin": QCoreApplication.translate("EvaluatePage", "Reward margin"),
        "reward_chosen": QCoreApplication.translate("EvaluatePage", "Reward of the chosen answers"),
        "reward_rejected": QCoreApplication.translate("EvaluatePage", "Reward of the rejected answers"),
    }.get(key, key)
