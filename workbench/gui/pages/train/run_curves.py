"""The Train page's live curves of the run in view: its loss and learning rate and, for a
preference run, the DPO trainer's rewards and preference accuracy (engine/training/run_loop.py's
step and eval events)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter

from ...widgets.curves import PALETTE, CurvePlot

# a preference run's step fields (and eval metrics) drawn on the rewards plot
REWARD_SERIES = ("reward_chosen", "reward_rejected", "reward_margin")


class RunCurves(QSplitter):
    """The plots side by side: ``loss_plot`` and ``lr_plot`` for any run; ``reward_plot`` and
    ``accuracy_plot`` in place of the learning rate while a preference run is in view."""

    def __init__(self, parent=None):
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.loss_plot = CurvePlot(self.tr("Loss"), x_label=self.tr("step"))
        self.lr_plot = CurvePlot(self.tr("Learning rate"), x_label=self.tr("step"))
        self.lr_plot.add_series("lr", self.tr("learning rate"), PALETTE[2])
        self.reward_plot = CurvePlot(self.tr("Rewards"), x_label=self.tr("step"))
        self.reward_plot.add_series("reward_chosen", self.tr("chosen answers"), PALETTE[2])
        self.reward_plot.add_series("reward_rejected", self.tr("rejected answers"), PALETTE[1])
        self.reward_plot.add_series("reward_margin", self.tr("margin"), PALETTE[0])
        self.reward_plot.setToolTip(self.tr(
            "The implicit reward of an answer: beta times how much more likely the tuned model makes it than the "
            "run it started from. Tuning raises the chosen answers' reward above the rejected ones'; the margin "
            "is the difference."))
        self.accuracy_plot = CurvePlot(self.tr("Preference accuracy"), x_label=self.tr("step"))
        self.accuracy_plot.add_series("preference_accuracy", self.tr("training pairs"), PALETTE[3])
        self.accuracy_plot.add_series("eval_preference_accuracy", self.tr("held-out pairs"), PALETTE[4], symbol="o")
        self.accuracy_plot.setToolTip(self.tr(
            "The share of pairs whose chosen answer gets the higher reward; 0.5 is a coin toss. The held-out pairs "
            "were never trained on."))
        for plot in self.plots():
            self.addWidget(plot)
        self.preference = True  # so that the first show_kind lays the plots out
        self.show_kind(False)

    def plots(self) -> tuple[CurvePlot, ...]:
        return self.loss_plot, self.lr_plot, self.reward_plot, self.accuracy_plot

    def show_kind(self, preference: bool) -> None:
        """The plots and the loss curves' names for a preference run (its loss, whichever was
        chosen: a preference loss, or the instruction loss of "sft") or another."""
        if preference == self.preference:
            return
        self.preference = preference
        for key in ("loss", "eval_loss"):
            self.loss_plot.remove_series(key)
        if preference:
            self.loss_plot.add_series("loss", self.tr("tuning loss"), PALETTE[0])
            self.loss_plot.add_series("eval_loss", self.tr("tuning loss on held-out pairs"), PALETTE[1], symbol="o")
        else:
            self.loss_plot.add_series("loss", self.tr("training loss"), PALETTE[0])
            self.loss_plot.add_series("eval_loss", self.tr("validation loss"), PALETTE[1], symbol="o")
        self.lr_plot.setVisible(not preference)
        self.reward_plot.setVisible(preference)
        self.accuracy_plot.setVisible(preference)
        self.setSizes([460, 360, 0, 0] if not preference else [340, 0, 300, 280])

    def clear(self) -> None:
        for plot in self.plots():
            for series in plot.series.values():
                series.clear()
            plot.reset_view()  # nothing of the last run's (or project's) axes

    def set_x_extent(self, total_steps) -> None:
        for plot in self.plots():
            plot.set_x_extent(total_steps if isinstance(total_steps, int) else None)

    def add_step(self, ev: dict) -> None:
        step = ev.get("step", 0)
        self.loss_plot.append("loss", step, ev.get("loss"))
        self.lr_plot.append("lr", step, ev.get("lr"))
        for key in (*REWARD_SERIES, "preference_accuracy"):
            if key in ev:
                (self.reward_plot if key in REWARD_SERIES else self.accuracy_plot).append(key, step, ev[key])

    def add_eval(self, ev: dict) -> None:
        step = ev.get("step", 0)
        self.loss_plot.append("eval_loss", step, ev.get("eval_loss"))
        metrics = ev.get("metrics") or {}
        if isinstance(metrics.get("preference_accuracy"), (int, float)):
            self.accuracy_plot.append("eval_preference_accuracy", step, metrics["preference_accuracy"])
