"""A run's time: the estimate it starts with, the one its measured steps give, the budget that
ends it, and the record of each beside the actual time (core/timing.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from workbench.core import timing
from workbench.core.machine_load import load_factor
from workbench.core.project import prepare
from workbench.core.templates import TemplateCatalog


class FakeTime:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


def test_the_measured_estimate_projects_the_steps_left_at_the_pace_so_far():
    # 30 s to build and fit, then 10 steps in 20 s: 90 steps left at 2 s each
    e = timing.measured_estimate(elapsed_s=50.0, loop_s=20.0, done_steps=10, total_steps=100, step=10)
    assert e.seconds == pytest.approx(50 + 90 * 2.0) and e.basis == "measured" and e.step == 10
    assert e.low == pytest.approx(50 + 90 * 2.0 * (1 - timing.RANGE_SHARE))
    assert e.high == pytest.approx(50 + 90 * 2.0 * (1 + timing.RANGE_SHARE))
    # a slower recent pace widens the range up to it
    slow = timing.measured_estimate(50.0, 20.0, 10, 100, recent_pace_s=3.0)
    assert slow.seconds == e.seconds and slow.high == pytest.approx(50 + 90 * 3.0 * (1 + timing.RANGE_SHARE))
    assert timing.start_estimate(None) is None and timing.start_estimate(0) is None


def test_the_start_estimate_is_a_range_the_budget_ends():
    assert timing.start_estimate(60.0).to_dict() == {"seconds": 60.0, "low": 60.0 * timing.START_LOW,
                                                "high": 60.0 * timing.START_HIGH, "basis": "recommendation",
                                                "step": 0, "elapsed": 0.0, "pace": 0.0}
    assert timing.START_LOW < 1.0 < timing.START_HIGH
    # the budget ends the run: the range stops at it
    e = timing.start_estimate(90.0, budget_s=100.0)
    assert (e.low, e.seconds, e.high) == (90.0 * timing.START_LOW, 90.0, 100.0)
    # what no step shortens (a long linear fit) may pass the budget: the figure is kept, not hidden
    over = timing.start_estimate(150.0, budget_s=100.0)
    assert over.seconds == 150.0 and over.low == 150.0 * timing.START_LOW and over.high == 150.0


def test_the_clock_refines_after_a_share_of_the_steps_and_its_first_evaluation():
    now = FakeTime()
    clock = timing.RunClock(estimate_s=100.0, budget_s=None, now=now)
    now.t += 30  # building the model and fitting its linear part
    clock.loop_started(0, 100)
    out = []
    for step in range(1, 41):
        now.t += 2.0
        out.append(clock.step_done(step, evaluates=True))
        if step % 20 == 0:  # an evaluation and a checkpoint after steps 20 and 40, 6 s each
            now.t += 6.0
            clock.checkpoint_done(evaluated=True)
    made = [e for e in out if e is not None]
    # nothing before the first evaluation (its cost recurs), then one each further tenth
    assert made[0].step == 21 and [e.step for e in made] == [21, 31]
    first = made[0]
    # ... and the ending: a last evaluation and checkpoint, then the parts scored and the model saved
    assert first.seconds == pytest.approx(30 + (2 * 21 + 6) + 79 * (2 * 21 + 6) / 21 + timing.ENDING_FACTOR * 6.0)
    assert clock.finish_s == pytest.approx(6.0)
    rec = clock.record()
    assert rec["estimate_at_start"]["seconds"] == 100.0 and rec["first_measured"]["step"] == 21
    assert rec["actual_s"] == pytest.approx(now.t - 1000.0) and rec["steps"] == 40 and not rec["budget_reached"]
    assert rec["first_measured"]["ratio_to_actual"] == pytest.approx(first.seconds / rec["actual_s"], abs=1e-3)
    # the pace alone, on the 40 steps run: what the run took, as the steps went at one pace
    pace = (2 * 21 + 6) / 21
    assert rec["first_measured"]["pace_ratio_to_actual"] == pytest.approx(
        (first.elapsed + 19 * pace + timing.ENDING_FACTOR * 6.0) / rec["actual_s"], abs=1e-3)


def test_the_budget_stops_the_run_leaving_room_for_its_ending():
    now = FakeTime()
    clock = timing.RunClock(estimate_s=None, budget_s=60.0, now=now)
    clock.loop_started(0, 1000)
    stops = []
    for step in range(1, 100):
        now.t += 5.0
        clock.step_done(step, evaluates=False)
        if step == 2:
            now.t += 4.0
            clock.checkpoint_done(evaluated=False)
        stops.append(clock.should_stop())
    # 5 s steps, 4 s to save: after step 10 (54 s) an ending of 4 s still fits, after step 11 (59 s) not
    assert stops.index(True) == 10 and stops.count(True) == 1 and clock.record()["budget_reached"]
    assert not timing.RunClock(None, None).should_stop()


def test_an_ending_the_trainer_knows_of_is_kept_from_the_budget():
    """A preference run judges its held-out pairs again after its last step: the time that took
    before the first step is reserved, so the run ends within its budget."""
    now = FakeTime()
    clock = timing.RunClock(estimate_s=None, budget_s=60.0, now=now)
    clock.reserve_ending(20.0)
    clock.loop_started(0, 1000)
    stops = []
    for step in range(1, 100):
        now.t += 5.0
        clock.step_done(step, evaluates=False)
        stops.append(clock.should_stop())
    # 5 s steps and 20 s kept: after step 8 (40 s) the ending no longer fits
    assert stops.index(True) == 7


def test_a_budget_bound_run_is_measured_by_its_share_of_the_budget_and_capped_by_it():
    now = FakeTime()
    clock = timing.RunClock(estimate_s=90.0, budget_s=100.0, now=now)
    assert clock.start.seconds == 90.0 and clock.start.high == 100.0  # the budget ends it
    clock.loop_started(0, 100000)  # a length no budget allows
    made = []
    for step in range(1, 30):
        now.t += 1.0
        est = clock.step_done(step, evaluates=True)
        if step == 5:
            now.t += 1.0
            clock.checkpoint_done(evaluated=True)
        if est is not None:
            made.append(est)
    # a tenth of the budget gone (10 s) and the first evaluation done: measured, then each tenth
    assert [e.step for e in made] == [9, 19, 29] and all(e.seconds == e.high == 100.0 for e in made)


CATALOG = TemplateCatalog()


def _wb(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    t = CATALOG.get("finance_sentiment")
    root = tmp_path_factory.mktemp("p") / "fin"
    prepare(t, t.sample_path, root)
    return root


@pytest.mark.slow  # a real training run through the worker: `make test-slow`
def test_a_budget_given_ends_a_long_run_and_the_run_records_its_times(project):
    """--max-steps far beyond what fits and a budget of 12 s: the worker ends the run at the budget
    as a completed run, and its run folder records each estimate beside the actual time."""
    # no evaluation before the end: early stopping would end a run on a fast machine before the budget
    res = _wb("train", "--project", project, "--base-model", "builtin:tiny", "--max-steps", "100000",
              "--eval-steps", "100000", "--save-steps", "50", "--time-budget", "0.2", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    rec = lines[0]
    assert rec["event"] == "recommendation" and rec["run_time_budget_s"] == pytest.approx(12.0)
    assert rec["run_estimate_s"] > 0 and {"batch_size", "epochs", "est_seconds", "total_steps"} <= set(rec)
    events = lines[1:]
    end = events[-1]
    assert end["event"] == "end" and end["status"] == "completed"
    reached = [e for e in events if e.get("code") == "time_budget_reached"]
    assert len(reached) == 1 and reached[0]["step"] < 100000
    estimates = [e for e in events if e["event"] == "estimate"]
    assert estimates[0]["basis"] == "recommendation" and estimates[0]["low"] <= estimates[0]["high"]
    # the range printed before the run is the one the worker reports at its start
    assert rec["run_estimate"] == {k: estimates[0][k] for k in rec["run_estimate"]}
    assert rec["run_estimate"]["high"] <= 12.0  # the budget ends the run: the range stops there
    run_dir = project / "runs" / rec["run"]
    saved = timing.read_timing(run_dir)
    assert saved["budget_reached"] and saved["time_budget_s"] == pytest.approx(12.0)
    assert saved["steps"] == reached[0]["step"] and saved["total_steps"] == 100000
    # the idle machine's figure, counted on the processor's load when the run started
    assert saved["estimate_at_start"]["seconds"] == pytest.approx(rec["run_estimate"]["seconds"])
    assert "busy" in saved["estimate_at_start"] and "busy" in estimates[0]
    assert rec["run_estimate"]["seconds"] == pytest.approx(
        min(rec["run_estimate_s"] * load_factor(estimates[0]["busy"], estimates[0]["cores"]), 12.0), abs=0.1)
    # the last weights are a checkpoint, as at the last step of a run that ran its length
    assert any(e["event"] == "checkpoint" and e["step"] == saved["steps"] for e in events)


@pytest.mark.slow  # a real training run through the worker: `make test-slow`
def test_a_run_of_its_full_length_reports_a_measured_estimate(project):
    res = _wb("train", "--project", project, "--base-model", "builtin:tiny", "--max-steps", "30",
              "--eval-steps", "10", "--save-steps", "10", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    lines = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    assert lines[0]["run_time_budget_s"] is None  # a length fixed by the user, no budget given
    measured = [e for e in lines if e["event"] == "estimate" and e["basis"] == "measured"]
    assert measured and measured[0]["step"] >= 10 and all(e["low"] <= e["seconds"] <= e["high"] for e in measured)
    saved = timing.read_timing(project / "runs" / lines[0]["run"])
    assert saved["steps"] == 30 and not saved["budget_reached"]
    assert saved["first_measured"]["step"] == measured[0]["step"] and saved["actual_s"] > 0


# ----- the time budget bounds every recommendation ----------------------------------------------

def test_the_budget_bounds_a_builtin_decoders_instruction_run(tmp_path):
    """--time-budget bounded only the classifier: a 10-minute budget planned an instruction run of
    54 minutes. The built-in decoder's estimate fits any budget, with a note when it trains on part
    of the data."""
    from workbench.core.recommend import recommend

    t = CATALOG.get("legal_consult_qa")
    project, _ = prepare(t, t.sample_path, tmp_path / "qa")
    sample = recommend(t, project.config.stats, "cpu", "builtin:small", time_budget_min=10)
    assert 0 < sample.est_seconds <= 600 and sample.time_budget_s == 600
    big = dict(project.config.stats, splits={"train": 200_000, "val": 2000, "test": 2000})
    for minutes in (10, 1):
        rec = recommend(t, big, "cpu", "builtin:small", time_budget_min=minutes)
        assert rec.est_seconds <= minutes * 60 and rec.total_steps >= 1 and rec.epochs < 1
        assert any("time budget" in n for n in rec.notes)
    assert recommend(t, big, "cpu", "builtin:small", time_budget_min=10).total_steps > rec.total_steps


def _many_labels(rows: int, labels: int = 103) -> dict:
    return {"splits": {"train": rows, "val": rows // 8, "test": rows // 8},
            "text_chars": {"mean": 120.0, "p95": 300.0}, "labels": {f"法条{i}": 10 for i in range(labels)}}


def test_the_linear_fit_of_many_labels_counts_in_the_estimate_within_the_budget():
    """103 law names: the linear part's fit took 300 s of a run estimated at 144 s that took 683.
    The fit (and the baseline waited for after the steps) count in the estimate, and the rest of
    the run shrinks so that the whole stays within the budget."""
    from workbench.core.recommend import classifier_fit_seconds, recommend

    t = CATALOG.get("legal_case_type")
    fit_s, baseline_s = classifier_fit_seconds(10_000, 103)
    assert fit_s > 120 and baseline_s > 300  # a large share of a 10-minute budget
    for minutes in (10, 5):
        rec = recommend(t, _many_labels(10_000), "cpu", "builtin:small", time_budget_min=minutes)
        assert rec.fixed_seconds >= fit_s and rec.est_seconds >= fit_s  # the fit is counted
        assert rec.est_seconds <= minutes * 60  # and the run fits
        assert rec.total_steps >= 1
    # the epochs give way to the fit: a budget the fit takes most of leaves part of one pass
    tight = recommend(t, _many_labels(10_000), "cpu", "builtin:small", time_budget_min=3.5)
    assert tight.epochs < 1 and tight.est_seconds <= 210
    assert any("One pass over the data" in n for n in tight.notes)


def test_a_fit_longer_than_the_budget_is_said_plainly_and_the_run_estimated_as_it_goes():
    from workbench.core.recommend import classifier_fit_seconds, recommend

    t = CATALOG.get("legal_case_type")
    fit_s, _ = classifier_fit_seconds(50_000, 103)
    assert fit_s > 600
    rec = recommend(t, _many_labels(50_000), "cpu", "builtin:small", time_budget_min=10)
    # the run takes the fit whatever its settings (the worker ends it after one step): the estimate
    # says so rather than the budget's figure, and the note says why
    assert rec.total_steps == 1 and rec.est_seconds >= fit_s > 600
    assert any("Fitting the linear part" in n and "alone takes" in n and "10 minutes" in n for n in rec.notes)
    assert not any("One pass over the data" in n for n in rec.notes)
    # the start range keeps the figure: it does not end at the budget the run goes past
    span = timing.start_estimate(rec.est_seconds, rec.time_budget_s)
    assert span.seconds == rec.est_seconds and span.low < span.seconds <= span.high


def test_a_job_of_other_settings_keeps_the_estimate_of_a_fit_past_the_budget(tmp_path):
    """The job's estimate is capped by the budget, except where the recommendation already passes it."""
    from workbench.core.operations import runs as run_operations

    t = CATALOG.get("legal_case_type")
    project, _ = prepare(t, t.sample_path, tmp_path / "legal")
    job = run_operations.build_job(project, "builtin:small", time_budget_min=0.5, epochs=50)
    assert job.estimate_s == pytest.approx(30.0)  # 50 epochs estimated, the budget ends them
    project.config.stats = {**project.config.stats, **_many_labels(50_000)}  # as 103 law names would be
    job = run_operations.build_job(project, "builtin:small", time_budget_min=10)
    _, rec = run_operations.recommended_settings(project, "builtin:small", time_budget_min=10)
    assert job.estimate_s == pytest.approx(rec.est_seconds) and job.estimate_s > 600
    span = run_operations.estimate_range(job)
    assert span.seconds == job.estimate_s and span.high >= span.seconds


def test_a_busy_processor_lengthens_the_start_estimate_once_no_whole_core_is_free():
    """A built-in run estimated at 00:26 to 00:53 took 208 s on a machine busy with other work: the
    range counts on the share of a core the run gets when it is made (figures given, not a load made)."""
    from workbench.core import machine_load

    idle = timing.start_estimate(60.0)
    # a whole core free (2 cores, one taken): the run computes on it, as on an idle machine
    assert timing.start_estimate(60.0, busy=0.5, cores=2).to_dict() == {**idle.to_dict(), "busy": 0.5, "cores": 2}
    assert timing.start_estimate(60.0, busy=0.9, cores=16).load_factor == 1.0
    # half a core free: twice as long
    half = timing.start_estimate(60.0, busy=0.75, cores=2)
    assert half.load_factor == pytest.approx(2.0)
    assert (half.seconds, half.low, half.high) == pytest.approx((120.0, 120.0 * timing.START_LOW, 120.0 * timing.START_HIGH))
    # a processor taken whole: the run still gets a share of a core, the floor
    full = timing.start_estimate(60.0, busy=1.0, cores=2)
    assert full.seconds == pytest.approx(60.0 / machine_load.FREE_FLOOR) and full.load_factor == 1 / machine_load.FREE_FLOOR
    assert "75% busy with other work" in timing.busy_note(half) and "2.0 times" in timing.busy_note(half)
    # the budget still ends the run: a loaded machine takes fewer steps in it, not longer
    capped = timing.start_estimate(90.0, budget_s=100.0, busy=0.75, cores=2)
    assert capped.high == capped.seconds == 100.0 and capped.low == 100.0
    # what no step shortens and already passes the budget grows with the load too
    over = timing.start_estimate(150.0, budget_s=100.0, busy=0.75, cores=2)
    assert over.seconds == pytest.approx(300.0) and over.high == pytest.approx(300.0)
    # the worker's clock reports the same range, and drops the load when the run is on a GPU
    clock = timing.RunClock(60.0, None, busy=0.75, cores=2)
    assert clock.start == half
    clock.processor_load(None)
    assert clock.start == idle


def test_a_job_carries_the_load_its_estimate_counts_on_here_not_on_a_server(tmp_path, monkeypatch):
    from workbench.core import machine_load
    from workbench.core.operations import runs as run_operations

    t = CATALOG.get("legal_case_type")
    project, _ = prepare(t, t.sample_path, tmp_path / "legal")
    job = run_operations.build_job(project, "builtin:small")
    assert job.cpu_busy is None and run_operations.estimate_range(job) == timing.start_estimate(job.estimate_s, job.time_budget_s)
    busy = run_operations.with_processor_load(job, busy=0.8, cores=2)
    span = run_operations.estimate_range(busy)
    assert (busy.cpu_busy, busy.cpu_cores) == (0.8, 2) and (span.busy, span.cores) == (0.8, 2)
    assert span.seconds == pytest.approx(min(job.estimate_s * 2.5, job.time_budget_s))
    # read now where no figure is given (the same measure as the engine's threads)
    monkeypatch.setattr(machine_load, "busy_share", lambda interval=machine_load.LOAD_WINDOW_S: 0.4)
    monkeypatch.setattr(machine_load, "logical_cores", lambda default=1: 4)
    assert (run_operations.with_processor_load(job).cpu_busy, run_operations.with_processor_load(job).cpu_cores) == (0.4, 4)
    assert run_operations.with_processor_load(job, measure=False).cpu_busy is None
    # a server's run, or one on a GPU, is not bound by this computer's processor
    assert run_operations.with_processor_load(busy, on="gpu-box").cpu_busy is None
    gpu = job.model_copy(update={"device": "gpu:0"})
    assert run_operations.with_processor_load(gpu, busy=0.6).cpu_busy is None
