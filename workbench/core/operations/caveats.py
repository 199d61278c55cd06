"""Whether a run's answers deserve a warning before anyone reads them.

A run stopped after a few steps still has a checkpoint, so the playground (and evaluation,
export, prediction) can use it, and its answers are then junk that looks like an answer.
This decides, from the run's events, when to say so and why; the front ends only word it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import mean
from typing import Any

from ..runs import RunSummary
from ..task import TaskSpec

MIN_STEPS = 10  # fewer optimizer steps than this teach a model next to nothing ...
MIN_SHARE = 0.1  # ... and so does a tenth of the steps the recommendation planned
LOSS_KEPT = 0.8  # an answer loss at the end still this share of the first one has barely fallen
ENDED_EARLY = ("stopped", "crashed", "failed")


@dataclass
class Caveat:
    """Why a run's answers may be poor: ``reasons`` among "stopped", "few_steps", "loss_high"
    (an answer loss that barely fell) and "guessing" (a validation macro-F1 no better than
    picking labels at random)."""

    reasons: list[str] = field(default_factory=list)
    steps: int = 0
    planned: int | None = None
    first_loss: float | None = None
    last_loss: float | None = None
    macro_f1: float | None = None
    labels: int | None = None

    @property
    def loss_rose(self) -> bool:
        """The answer loss ended above where it started: a rise, not a small fall."""
        return self.first_loss is not None and self.last_loss is not None and self.last_loss >= self.first_loss

    def loss_phrase(self) -> str:
        """The loss's course in English ("rose from 2.24 to 2.34" or "fell only from 2.24 to 2.10")."""
        verb = "rose" if self.loss_rose else "fell only"
        return f"{verb} from {self.first_loss:.2f} to {self.last_loss:.2f}"

    def sentence(self) -> str:
        """The warning in English, for the command line."""
        parts = []
        if "stopped" in self.reasons:
            parts.append(f"it was stopped after {self.steps} of {self.planned} training steps")
        elif "few_steps" in self.reasons:
            parts.append(f"it trained for only {self.steps} steps")
        if "loss_high" in self.reasons:
            parts.append(f"its loss {self.loss_phrase()}")
        if "guessing" in self.reasons:
            parts.append(f"its validation macro-F1 of {self.macro_f1:.2f} is what picking one of "
                         f"{self.labels} labels at random gives")
        return ("This run's answers may be poor: " + " and ".join(parts)
                + ". Train longer (or resume the run) before relying on them.")


def _step_losses(events: list[dict[str, Any]]) -> list[float]:
    out = []
    for ev in events:
        loss = ev.get("loss") if ev.get("event") == "step" else None
        if isinstance(loss, (int, float)) and not isinstance(loss, bool) and loss == loss:
            out.append(float(loss))
    return out


def answers_caveat(summary: RunSummary, events: list[dict[str, Any]], task: TaskSpec | None = None) -> Caveat | None:
    """A :class:`Caveat` for a finished run whose answers are likely poor, or None.

    Stopped (or crashed) before its planned steps; fewer than :data:`MIN_STEPS` steps, or
    than :data:`MIN_SHARE` of the plan; for instruction tuning, a last loss (the mean of the
    last three logged) above :data:`LOSS_KEPT` of the first; for single-label classification,
    a last validation macro-F1 at or below 1 / the number of labels. (A classifier's training
    loss says little: the built-in one's n-gram part, fitted first, does much of its work.)
    """
    if summary.status in ("running", "created"):
        return None
    planned = summary.total_steps
    c = Caveat(steps=summary.last_step, planned=planned)
    if summary.status in ENDED_EARLY and planned and summary.last_step < planned:
        c.reasons.append("stopped")
    if summary.last_step < MIN_STEPS or (planned and summary.last_step < MIN_SHARE * planned):
        c.reasons.append("few_steps")
    kind = task.task.value if task is not None else None
    losses = _step_losses(events)
    if kind == "instruction" and len(losses) >= 2:
        c.first_loss, c.last_loss = losses[0], mean(losses[-3:])
        if c.first_loss > 0 and c.last_loss > LOSS_KEPT * c.first_loss:
            c.reasons.append("loss_high")
    f1 = summary.metrics.get("macro_f1")
    if kind == "classification" and not task.multi_label and isinstance(f1, (int, float)) and task.labels:
        c.macro_f1, c.labels = float(f1), len(task.labels)
        if c.macro_f1 <= 1 / c.labels:
            c.reasons.append("guessing")
    return c if c.reasons else None
