"""core.operations.runs: one set of job defaults, one writer per run, status across resumes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workbench.core.dataio import read_table
from workbench.core.errors import WorkbenchError
from workbench.core.operations import runs as run_operations
from workbench.core.project import Project, prepare
from workbench.core.runs import (
    RunBusy, acquire_run_lock, event_tail, read_events, summarize, worker_pid, write_pid,
)
from workbench.core.templates import TemplateCatalog
from workbench.core.trained import resolve_trained_run

TIMEOUT = 240


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Project:
    template = TemplateCatalog().get("finance_sentiment")
    df, _ = read_table(template.sample_path)
    tmp = tmp_path_factory.mktemp("ops")
    df.head(160).to_csv(tmp / "rows.csv", index=False)
    prepare(template, tmp / "rows.csv", tmp / "p")
    return Project.open(tmp / "p")


def test_build_job_fills_what_is_not_given_from_one_place(project):
    values, rec = run_operations.recommended_settings(project, "builtin:tiny")
    job = run_operations.build_job(project, "builtin:tiny", eval_steps=7, max_steps=0, learning_rate=None)
    assert job.method == "full"  # a built-in model starts from random weights
    assert job.learning_rate == rec.learning_rate and job.batch_size == rec.batch_size
    assert job.max_steps == -1 and (job.eval_steps, job.save_steps, job.logging_steps) == (7, 7, 5)
    assert run_operations.build_job(project, "some/model-id").method == "lora"
    with pytest.raises(WorkbenchError, match="base model"):
        run_operations.build_job(project, "  ")


def test_the_worker_refuses_a_run_another_process_writes(project, tmp_path):
    job = run_operations.build_job(project, "builtin:tiny", max_steps=2)
    run_dir = project.runs_dir / "run-locked"
    from workbench.core.jobs import write_job

    write_job(run_dir, job)
    lock = acquire_run_lock(run_dir)  # this test process plays the running worker
    # a pid no process has any more (a fixed number may belong to a live process on a busy machine)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    pid = gone.pid
    write_pid(run_dir, pid)
    try:
        with pytest.raises(RunBusy, match=str(pid)):
            acquire_run_lock(run_dir)
        res = subprocess.run([sys.executable, "-m", "workbench.engine.worker", str(run_dir)],
                             capture_output=True, text=True, timeout=120)
        assert res.returncode == 3 and "already running" in res.stderr and str(pid) in res.stderr
        assert read_events(run_dir) == []  # the refused worker wrote nothing
        assert summarize(run_dir).status == "running"
    finally:
        lock.release()
    assert summarize(run_dir).status == "crashed"  # the pid file names no live worker any more


def _wait_step(run_dir: Path, proc, at_least: int) -> None:
    tail = event_tail(run_dir)
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        if any(e["event"] == "step" and e.get("step", 0) >= at_least for e in tail.read_new()):
            return
        assert proc.poll() is None, (run_dir / "worker.log").read_text()[-2000:]
        time.sleep(0.1)
    raise AssertionError("no step event in time")


@pytest.mark.slow
def test_two_resumes_at_once_start_one_worker_and_the_resumed_run_reads_running(project):
    job = run_operations.build_job(project, "builtin:tiny", max_steps=400, batch_size=8, max_length=96, learning_rate=3e-3,
                        eval_steps=400, save_steps=2, logging_steps=2, device="cpu", warmup_ratio=0.0)
    first = run_operations.start_run(project, job, detach=False)
    _wait_step(first.run_dir, first.proc, 4)
    run_operations.stop_run(first.run_dir)
    first.proc.wait(timeout=TIMEOUT)
    assert summarize(first.run_dir).status == "stopped"

    results: list = []
    barrier = threading.Barrier(2)

    def resume():
        barrier.wait()
        try:
            results.append(run_operations.resume_run(project, first.run_id, detach=False))
        except RunBusy as exc:
            results.append(exc)

    threads = [threading.Thread(target=resume) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=TIMEOUT)
    started = [r for r in results if isinstance(r, run_operations.Started)]
    refused = [r for r in results if isinstance(r, RunBusy)]
    assert len(started) == 1 and len(refused) == 1, results
    worker = started[0]
    try:
        assert refused[0].pid == worker.proc.pid and str(worker.proc.pid) in str(refused[0])
        _wait_step(worker.run_dir, worker.proc, 6)
        # the events hold an earlier 'end' (stopped); the latest start decides
        s = summarize(worker.run_dir)
        assert s.status == "running" and worker_pid(worker.run_dir) == worker.proc.pid
        assert run_operations.is_running(worker.run_dir) and not run_operations.can_evaluate(s)
        with pytest.raises(WorkbenchError, match=f"still training \\(process {worker.proc.pid}\\)"):
            resolve_trained_run(project, worker.run_id)
        # the command line says the same, at once, with exit status 2
        res = subprocess.run([sys.executable, "-m", "workbench", "train", "--project", str(project.root),
                              "--resume", worker.run_id], capture_output=True, text=True, timeout=60)
        assert res.returncode == 2 and f"process {worker.proc.pid}" in res.stderr, res.stderr
        assert "Traceback" not in res.stderr
        listed = json.loads(subprocess.run(
            [sys.executable, "-m", "workbench", "runs", "--project", str(project.root), "--json"],
            capture_output=True, text=True, timeout=60).stdout)["runs"]
        assert [r["status"] for r in listed if r["id"] == worker.run_id] == ["running"]
    finally:
        run_operations.stop_run(worker.run_dir)
        worker.proc.wait(timeout=TIMEOUT)
    events = read_events(worker.run_dir)
    assert [e["event"] for e in events].count("start") == 2  # one per worker that ran, no more
    assert [e["status"] for e in events if e["event"] == "end"] == ["stopped", "stopped"]
    assert run_operations.can_resume(summarize(worker.run_dir)) and run_operations.can_evaluate(summarize(worker.run_dir))


def test_the_latest_start_decides_the_status(tmp_path):
    import os

    from workbench.core.runs import EventWriter, run_status

    run_dir = tmp_path / "run-r"
    run_dir.mkdir()
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=10)
    ev.emit("end", status="stopped", error=None)
    ev.emit("start", total_steps=10, initial_step=4)  # resumed
    ev.close()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    write_pid(run_dir, dead.pid)
    assert run_status(run_dir, read_events(run_dir)) == "crashed"  # the resumed worker died: not 'stopped'
    write_pid(run_dir, os.getpid())
    assert summarize(run_dir).status == "running"
    lock = acquire_run_lock(run_dir)
    try:
        write_pid(run_dir, dead.pid)
        assert summarize(run_dir).status == "running"  # the lock says so, whatever the pid file holds
    finally:
        lock.release()
    EventWriter(run_dir).emit("end", status="completed", error=None)
    s = summarize(run_dir)
    assert s.status == "completed" and s.error is None and s.last_step == 4


def test_a_checkpoint_is_complete_only_once_the_worker_marked_it(tmp_path):
    """A worker killed between the trainer's trainer_state.json and its optimizer state left a
    checkpoint that looked whole; resuming from it failed."""
    from workbench.core.runs import list_checkpoints, mark_checkpoint_complete

    ck = tmp_path / "checkpoints"
    for n in (4, 8):
        (ck / f"checkpoint-{n}").mkdir(parents=True)
        (ck / f"checkpoint-{n}" / "trainer_state.json").write_text("{}")
    assert [p.name for p in list_checkpoints(tmp_path)] == ["checkpoint-4", "checkpoint-8"]  # an older run
    mark_checkpoint_complete(ck / "checkpoint-4", 4)
    assert [p.name for p in list_checkpoints(tmp_path)] == ["checkpoint-4"]  # 8 was cut short
    mark_checkpoint_complete(ck / "checkpoint-8", 8)
    assert [p.name for p in list_checkpoints(tmp_path)] == ["checkpoint-4", "checkpoint-8"]


GEMMA_270M_SHAPE = {"model_type": "gemma3_text", "hidden_size": 640, "num_hidden_layers": 18, "vocab_size": 262144,
                    "intermediate_size": 2048, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256}


def _gemma_shaped(tmp_path) -> str:
    folder = tmp_path / "gemma-shape"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(GEMMA_270M_SHAPE), encoding="utf-8")
    return str(folder)


def test_a_server_runs_settings_are_recommended_for_its_devices(project, tmp_path, monkeypatch):
    """Seen on the Train page: a GPU server chosen kept this processor's settings, and with them
    the share of one pass the time budget allows here, so the run there would stop where this
    laptop must."""
    from workbench.core.targets import add_target

    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "home"))
    add_target("lab", "ssh://ana@gpu.example.org", devices="gpu:0,1")
    add_target("box", "ssh://ana@cpu.example.org")
    model = _gemma_shaped(tmp_path)
    assert run_operations.recommendation_device("lab") == "gpu:0"
    assert run_operations.recommendation_device("box") == run_operations.recommendation_device(None) == "cpu"
    here = run_operations.build_job(project, model, time_budget_min=0.5)
    there = run_operations.build_job(project, model, time_budget_min=0.5, on="lab")
    _, gpu = run_operations.recommended_settings(project, model, device="gpu:0", time_budget_min=0.5)
    assert (there.batch_size, there.epochs) == (gpu.batch_size, gpu.epochs)
    assert here.epochs < 1 <= there.epochs and there.batch_size > here.batch_size
    values, _ = run_operations.recommended_settings(project, model, time_budget_min=0.5, on="lab")
    assert (values["batch_size"], values["epochs"]) == (there.batch_size, there.epochs)


def test_the_steps_a_budget_leaves_and_the_rows_they_read_are_one_count(project, tmp_path):
    """Seen on the Train page: "About 126 of the 420 steps planned" became 105 as the processor's
    load changed, beside "training reads about 42 % of them" that stayed. The steps the budget
    leaves and the share of the rows they read come from one count, at every load."""
    import math

    from workbench.core.recommend import planned_steps

    # LoRA alone: a frozen start's first stage takes most of so short a budget (its note says so)
    job = run_operations.build_job(project, _gemma_shaped(tmp_path), time_budget_min=0.5, head_features=False)
    rows = int(project.config.stats["splits"]["train"])
    per_epoch = math.ceil(rows / job.batch_size)
    assert job.epochs < 1  # the budget allows part of one pass
    seen = []
    for busy in (None, 0.7, 0.9):
        loaded = run_operations.with_processor_load(job, busy=busy, cores=2, measure=False)
        reach = run_operations.expected_reach(project, loaded)
        assert reach.planned == planned_steps(rows, job.batch_size, job.epochs) == job.epochs * per_epoch // 1
        assert reach.data_share == pytest.approx(reach.steps / per_epoch)
        seen.append(reach.steps)
    assert seen[0] == reach.planned and seen[0] > seen[1] > seen[2] >= 1  # the load leaves fewer


def test_the_head_is_weighed_against_the_built_in_models_run_at_the_same_load(project, tmp_path):
    job = run_operations.build_job(project, _gemma_shaped(tmp_path))
    _, rec = run_operations.recommended_settings(project, job.base_model, job.method, head=job.head)
    idle = run_operations.compared_times(job, rec)
    _, builtin = run_operations.recommended_settings(project, "builtin:small", time_budget_min=10)
    assert idle == (pytest.approx(job.estimate_s), pytest.approx(builtin.est_seconds))
    busy = run_operations.compared_times(run_operations.with_processor_load(job, busy=0.9, cores=2), rec)
    assert busy[0] > idle[0] and busy[1] > idle[1]  # both at the load the estimate counts on
    _, plain = run_operations.recommended_settings(project, "builtin:small")
    assert run_operations.compared_times(run_operations.build_job(project, "builtin:small"), plain) is None
