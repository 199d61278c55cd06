"""The Train page's notes under its estimate, in the interface language: core's English notes
(core/recommend.py) worded again from the same figures. The strings keep the settings panel's
translation context, whose they were."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication

from ....core.jobs import JobSpec
from ....core.operations import runs as run_operations
from ....core.recommend import HEAD_NOTE_START, STAGES_NOTE_START, StagePlan, minutes, stage_plan


def notes_text(rec, job: JobSpec | None, stages: StagePlan | None, *, model_name: str, head_method: str,
               full: bool) -> list[str]:
    """The recommendation's notes in the interface language (the built-in model's note is
    the method hint's; how much of the data a run reads is the estimate's own line)."""
    out = []
    for n in rec.notes:
        if n.startswith("The built-in model is trained from scratch"):
            continue
        if n.startswith("One pass over the training rows"):
            continue  # said by the estimate, from the same count as its steps
        if n.startswith(STAGES_NOTE_START):  # at the load and with the steps the estimate counts on
            n = stages_text(stages or stage_plan(rec), full)
        lowered = re.match(r"Rows per step lowered to (\d+) so that training fits in this computer's (\d+) GB", n)
        if lowered:
            n = QCoreApplication.translate(
                "TrainSettingsPanel",
                "Rows per step lowered to {0} so that training fits in this computer's {1} GB of memory.",
            ).format(*lowered.groups())
        recomputed = re.match(r"Layers are recomputed in the backward pass, (\d+) rows a step, so that training "
                              r"fits in this computer's (\d+) GB of memory; each step takes about ([\d.]+)x", n)
        if recomputed:
            n = QCoreApplication.translate(
                "TrainSettingsPanel",
                "Layers are recomputed in the backward pass, {0} rows a step, so that training fits in this "
                "computer's {1} GB of memory; each step takes about {2}x as long.",
            ).format(*recomputed.groups())
        if n.startswith(HEAD_NOTE_START):  # whether the head pays here, and at what time
            times = run_operations.compared_times(job, rec) if job is not None else None
            if times is None:
                continue
            builtin = QCoreApplication.translate("TrainSettingsPanel", "Built-in small model")
            if job.head_features:  # core.recommend.head_note's, from the frozen model
                out.append(QCoreApplication.translate(
                    "TrainSettingsPanel",
                    "{0} with {1}, from the frozen model, beat the {2} on four of eight public Chinese sets with a "
                    "10-minute budget (news headlines, question pairs, stock-forum posts) and matched it on the other "
                    "four; this run takes about {3} min against about {4} min for the {2}.",
                ).format(model_name, head_method, builtin, minutes(times[0]), minutes(times[1])))
                continue
            n = QCoreApplication.translate(
                "TrainSettingsPanel",
                "{0} with {1} is unlikely to pay off on this data: on four public Chinese sets it beat the {2} only "
                "on question pairs, and this run takes about {3} min against about {4} min for the {2}.",
            ).format(model_name, head_method, builtin, minutes(times[0]), minutes(times[1]))
        if n.startswith("This would take hours on the CPU"):
            n = QCoreApplication.translate(
                "TrainSettingsPanel",
                "This would take hours on the processor: a GPU, a smaller model or fewer epochs help.")
        out.append(n)
    return out


def stages_text(plan: StagePlan, full: bool) -> str:
    """core.recommend.stages_note in the interface language, from the same plan."""
    how = (QCoreApplication.translate("TrainSettingsPanel", "Full fine-tuning") if full
           else QCoreApplication.translate("TrainSettingsPanel", "LoRA"))
    if plan.read_rows >= plan.rows:
        first = QCoreApplication.translate(
            "TrainSettingsPanel",
            "In two stages: the head is first fitted on the model's states of the {0} training and validation rows, "
            "about {1} min of reading them",
        ).format(f"{plan.rows:,}", minutes(plan.first_s))
    else:
        first = QCoreApplication.translate(
            "TrainSettingsPanel",
            "In two stages: the head is first fitted on the model's states of about {0} of the {1} training and "
            "validation rows, as many as about {2} min of reading reach",
        ).format(f"{plan.read_rows:,}", f"{plan.rows:,}", minutes(plan.first_s))
    if plan.squeezed:
        return QCoreApplication.translate(
            "TrainSettingsPanel",
            "{0}, about all of the time budget, so the run keeps the head it fits; {1} from it needs a larger budget.",
        ).format(first, how)
    if plan.passes < 0.005:
        reads = QCoreApplication.translate("TrainSettingsPanel", "under 1% of the training rows")
    elif plan.passes < 1:
        reads = QCoreApplication.translate("TrainSettingsPanel", "about {0}% of the training rows").format(
            round(plan.passes * 100))
    else:
        reads = QCoreApplication.translate("TrainSettingsPanel", "{0} passes over them").format(
            f"{round(plan.passes, 1):g}")
    return QCoreApplication.translate(
        "TrainSettingsPanel",
        "{0}; {1} then trains from it within the {2} min left, about {3} steps over {4}, and is kept only if it "
        "scores better on validation.",
    ).format(first, how, minutes(plan.left_s), plan.steps, reads)
