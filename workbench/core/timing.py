"""How long a run takes: the estimate it started with, the estimate its first measured steps
give, the time budget that bounds it, and what it really took.

An estimate from the recommendation (core/recommend.py) is a guide made before anything ran,
shown as a range (start_estimate); on a shared or slower machine it can be several times low. Once a run has timed a share of
its steps (and its first evaluation and checkpoint, which recur), the rest is projected at
the pace measured so far: that is what the worker reports as an ``estimate`` event and the
Train page shows, as a range. The run folder's ``timing.json`` keeps the estimate at the
start, the first measured one and the actual time side by side, so each run shows how far
off each was.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .fsutil import atomic_write_text
from .machine_load import load_factor, logical_cores

TIMING_FILE = "timing.json"
# the first measured estimate once this share of the steps ran (and at least REFINE_MIN_STEPS,
# and the first evaluation when the run evaluates: its cost recurs)
REFINE_SHARE = 0.1
REFINE_MIN_STEPS = 3
# the range around a measured estimate: the pace of the steps left may drift from the pace so
# far (a shared machine's load changes) by at least this much either way
RANGE_SHARE = 0.15
# the range of an estimate made before anything ran, as shares of it: builtin:small's runs of the
# five samples took 0.83-1.38 times their start estimate on 2 idle cores (bench/estimate_bench.py);
# a loaded machine or a model unlike those measured goes past it, which the measured estimate shows
START_LOW = 0.75
START_HIGH = 1.5
# what follows a run's last step, in latest evaluation-plus-checkpoint times (see RunClock)
ENDING_FACTOR = 2.0


@dataclass(frozen=True)
class Estimate:
    seconds: float  # the whole run, from the worker's start
    low: float
    high: float
    basis: str  # "recommendation" (before anything ran) or "measured"
    step: int = 0  # the step it was made at
    elapsed: float = 0.0  # measured: the seconds run when it was made
    pace: float = 0.0  # measured: seconds a step, evaluations and checkpoints included
    # before anything ran: the share of the processor other work kept busy when it was made
    # (core/machine_load.py), which the range counts on; None where not measured
    busy: float | None = None
    cores: int | None = None  # the logical cores that share is of

    @property
    def load_factor(self) -> float:
        """How many times the idle machine's time the range counts on for the processor's load."""
        return load_factor(self.busy, self.cores)

    def to_dict(self) -> dict[str, Any]:
        out = {k: (round(v, 1) if isinstance(v, float) else v) for k, v in asdict(self).items()}
        if self.busy is None:
            out.pop("busy"), out.pop("cores")
        else:
            out["busy"] = round(self.busy, 3)
        return out


def start_estimate(seconds: float | None, budget_s: float | None = None,
                   busy: float | None = None, cores: int | None = None) -> Estimate | None:
    """The recommendation's estimate as a range, the one the Train page and ``train`` show
    before a run and the worker reports when it starts: from START_LOW to START_HIGH times the
    figure (see their measurement). ``busy``: the share of the processor (of ``cores`` logical
    cores) other work keeps busy now; the figure is an idle machine's, so it grows by the load's
    factor (core/machine_load.py). A time budget ends the run, so no part of the range goes past it, unless the idle
    figure itself does (what no step can shorten, a long linear fit, does not fit the budget:
    the recommendation says so)."""
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        return None
    idle = float(seconds)
    cores = cores or (logical_cores() if busy is not None else None)
    mid = idle * load_factor(busy, cores)
    low, high = START_LOW * mid, START_HIGH * mid
    if budget_s and budget_s > 0:
        # a budget the idle figure fits ends the steps a loaded machine no longer fits in it
        cap = float(budget_s) if idle <= budget_s else mid
        mid, low, high = min(mid, cap), min(low, cap), min(high, cap)
    return Estimate(mid, low, high, "recommendation", busy=busy, cores=cores)


def planned_share(e: Estimate, idle_s: float | None) -> float:
    """The share of a run's planned steps a start estimate counts on: below 1 where a busy
    processor makes the time budget end the run first (:func:`start_estimate` stops the range
    there). ``idle_s``: the recommendation's figure for the whole run on an idle processor."""
    full = float(idle_s or 0.0) * e.load_factor
    return 1.0 if full <= 0 or e.seconds >= full * (1 - 1e-6) else e.seconds / full


def busy_note(e: Estimate) -> str:
    """What a start estimate made on a busy processor says of it (the Train page words it the same)."""
    return (f"the processor is {round(100 * (e.busy or 0.0))}% busy with other work: the estimate counts on "
            f"about {e.load_factor:.1f} times as long as on an idle processor")


def measured_estimate(elapsed_s: float, loop_s: float, done_steps: int, total_steps: int,
                      recent_pace_s: float | None = None, step: int = 0, ending_s: float = 0.0) -> Estimate:
    """The whole run's time projected from what was measured.

    ``elapsed_s``: since the worker started (building the model, fitting the linear part and
    the steps so far); ``loop_s``: the part of it spent in the training loop over ``done_steps``
    steps, evaluations and checkpoints included, so their share carries over to the steps left.
    ``recent_pace_s``: seconds a step over the latest steps alone (evaluations included); the
    range spans both paces, widened by RANGE_SHARE. ``ending_s``: what follows the last step
    (a last evaluation and checkpoint, scoring the parts and saving the model)."""
    left = max(total_steps - done_steps, 0)
    pace = loop_s / max(done_steps, 1)
    paces = [pace] + ([recent_pace_s] if recent_pace_s and recent_pace_s > 0 else [])
    mid = elapsed_s + left * pace + ending_s
    low = elapsed_s + left * min(paces) * (1 - RANGE_SHARE) + ending_s
    high = elapsed_s + left * max(paces) * (1 + RANGE_SHARE) + ending_s
    return Estimate(mid, min(low, mid), max(high, mid), "measured", step, elapsed_s, pace)


def ready_to_refine(done_steps: int, total_steps: int, evaluated: bool, evaluates: bool) -> bool:
    """Whether enough of the run was measured for a measured estimate."""
    if done_steps < REFINE_MIN_STEPS or total_steps <= 0:
        return False
    if evaluates and not evaluated:
        return done_steps >= total_steps  # a run that never evaluates before its end
    return done_steps >= REFINE_SHARE * total_steps


def over_budget(elapsed_s: float, budget_s: float | None, finish_s: float = 0.0) -> bool:
    """Whether a run must stop now to end within its time budget; ``finish_s`` is what ending
    still takes (a last evaluation and checkpoint, as long as the latest ones took)."""
    return budget_s is not None and budget_s > 0 and elapsed_s + finish_s >= budget_s


def write_timing(run_dir: Path, record: dict[str, Any]) -> None:
    atomic_write_text(Path(run_dir) / TIMING_FILE, json.dumps(record, ensure_ascii=False, indent=1))


def read_timing(run_dir: Path) -> dict[str, Any] | None:
    try:
        value = json.loads((Path(run_dir) / TIMING_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def timing_record(start: Estimate | None, first_measured: Estimate | None, last_measured: Estimate | None,
                  actual_s: float, steps: int, total_steps: int, budget_s: float | None,
                  budget_reached: bool) -> dict[str, Any]:
    """What timing.json holds: each estimate beside the actual time, and their ratios."""
    def entry(e: Estimate | None) -> dict[str, Any] | None:
        if e is None:
            return None
        out = {**e.to_dict(), "ratio_to_actual": round(e.seconds / actual_s, 3) if actual_s > 0 else None}
        if e.basis == "measured" and actual_s > 0:
            # the pace alone, on the steps the run really took: early stopping or the budget may end
            # a run sooner than any projection of its length can know
            ending = e.seconds - e.elapsed - max(total_steps - e.step, 0) * e.pace
            out["pace_ratio_to_actual"] = round((e.elapsed + max(steps - e.step, 0) * e.pace + max(ending, 0.0))
                                                / actual_s, 3)
        return out

    return {"actual_s": round(actual_s, 1), "steps": steps, "total_steps": total_steps,
            "estimate_at_start": entry(start), "first_measured": entry(first_measured),
            "last_measured": entry(last_measured), "time_budget_s": budget_s, "budget_reached": budget_reached}


class RunClock:
    """A run's clock, fed by the training loop's callbacks (no paddle here: the arithmetic is
    tested on its own): when to report a measured estimate, when the budget says stop, and
    the record written at the end."""

    def __init__(self, estimate_s: float | None, budget_s: float | None, now=None, busy: float | None = None,
                 cores: int | None = None):
        import time

        self._now = now or time.time
        self.t0 = self._now()
        self.estimate_s = estimate_s
        # the budget ends the run: the range stops there; ``busy``: the processor's load it was made at
        self.start = start_estimate(estimate_s, budget_s, busy, cores)
        self.budget_s = budget_s if budget_s and budget_s > 0 else None
        self.loop_t0: float | None = None
        self.initial_step = 0
        self.recent: list[tuple[float, int]] = []  # (time, step) of the latest steps
        self.first: Estimate | None = None
        self.last: Estimate | None = None
        self.next_share = REFINE_SHARE
        self.evaluated = False
        self.finish_s = 0.0  # the latest evaluation plus checkpoint: what ending still takes
        # what ending takes besides that, known to the trainer (a preference run judges its
        # held-out pairs again after its last step): see reserve_ending
        self.ending_extra_s = 0.0
        self.budget_reached = False
        self.end_early = False  # see end_at_next_step
        self.step = 0
        self.total_steps = 0

    def elapsed(self) -> float:
        return self._now() - self.t0

    def processor_load(self, busy: float | None, cores: int | None = None) -> None:
        """Count the start estimate on this share of the processor busy (None: an idle one; a
        run on a GPU is not bound by the processor)."""
        self.start = start_estimate(self.estimate_s, self.budget_s, busy, cores)

    def deadline(self) -> float | None:
        """The moment the time budget ends (the clock's time), or None without a budget."""
        return self.t0 + self.budget_s if self.budget_s else None

    def share_deadline(self, share: float) -> float | None:
        """The moment ``share`` of the time budget has passed (the clock's time), or None without a budget."""
        return self.t0 + share * self.budget_s if self.budget_s else None

    def loop_started(self, step: int, total_steps: int) -> None:
        self.loop_t0, self.initial_step, self.step, self.total_steps = self._now(), step, step, total_steps
        self.recent = [(self.loop_t0, step)]

    def step_done(self, step: int, evaluates: bool) -> Estimate | None:
        """After each step: a measured estimate when one is due (the first once enough ran, then
        one each further REFINE_SHARE of the run), else None. With a time budget the run's share
        is the larger of its steps' and its budget's, and no estimate goes past the budget."""
        now = self._now()
        self.step = step
        self.recent = (self.recent + [(now, step)])[-21:]
        if self.loop_t0 is None:
            return None
        done = step - self.initial_step
        left_total = self.total_steps - self.initial_step
        share = done / max(left_total, 1)
        if self.budget_s:
            share = max(share, (now - self.t0) / self.budget_s)
        # the steps a budget-bound run can take count as its length for readiness
        if not ready_to_refine(done, max(1, round(done / share)) if share > 0 else left_total, self.evaluated,
                               evaluates) or share < self.next_share - 1e-9:
            return None
        self.next_share = share + REFINE_SHARE
        (t_a, s_a), (t_b, s_b) = self.recent[0], self.recent[-1]
        recent = (t_b - t_a) / (s_b - s_a) if s_b > s_a else None
        # after the last step: its evaluation and checkpoint, then the parts scored and the model
        # saved, about as long again (on the samples the pace alone came 10-30 % short)
        est = measured_estimate(now - self.t0, now - self.loop_t0, done, left_total, recent, step,
                                ending_s=ENDING_FACTOR * self.finish_s + self.ending_extra_s)
        if self.budget_s:
            cap = max(self.budget_s, now - self.t0)
            est = Estimate(min(est.seconds, cap), min(est.low, cap), min(est.high, cap), est.basis, est.step,
                           est.elapsed, est.pace)
        self.first = self.first or est
        self.last = est
        return est

    def checkpoint_done(self, evaluated: bool) -> None:
        """After a checkpoint (and the evaluation before it): the time since the step before them
        is what ending takes again, a last evaluation and checkpoint."""
        if self.recent:
            self.finish_s = max(self.finish_s if not evaluated else 0.0, self._now() - self.recent[-1][0])
        self.evaluated = self.evaluated or evaluated

    def reserve_ending(self, seconds: float) -> None:
        """Keep ``seconds`` of the budget for work after the last step that the evaluations and
        checkpoints do not show (their own time is measured as the run goes)."""
        self.ending_extra_s = max(0.0, float(seconds))

    def left(self) -> float | None:
        """The seconds of the time budget still left (None without a budget)."""
        return self.budget_s - self.elapsed() if self.budget_s else None

    def end_at_next_step(self) -> None:
        """End the run after its next step, as at a used-up budget: the work before the steps
        took the time they had (a frozen start that leaves LoRA no room)."""
        self.end_early = True

    def should_stop(self) -> bool:
        """True once, when the time budget leaves no room for another step and the ending."""
        if self.budget_reached or not (self.end_early or over_budget(self.elapsed(), self.budget_s,
                                                                     self.finish_s + self.ending_extra_s)):
            return False
        self.budget_reached = True
        return True

    def record(self) -> dict[str, Any]:
        return timing_record(self.start, self.first, self.last, self.elapsed(), self.step, self.total_steps,
                             self.budget_s, self.budget_reached)
