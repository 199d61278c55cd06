"""The training worker, run for real as a process: events, stop, resume, crash, NaN, seeds."""

from __future__ import annotations

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.core.dataio import read_table
from workbench.core.jobs import JobSpec, new_run_id, read_job, write_job
from workbench.core.project import prepare
from workbench.core.runs import EventTail, launch_worker, list_checkpoints, read_events, request_stop, summarize
from workbench.core.templates import TemplateCatalog

pytestmark = pytest.mark.slow  # real training runs in the worker process: `make test-slow`


TIMEOUT = 240


def _small_project(tmp: Path, template_id: str, rows: int = 160) -> Path:
    """A project from the first rows of a template's sample: real data, quick evaluations."""
    template = TemplateCatalog().get(template_id)
    df, _ = read_table(template.sample_path)
    src = tmp / f"{template_id}.csv"
    df.head(rows).to_csv(src, index=False)
    prepare(template, src, tmp / template_id)
    return tmp / template_id


@pytest.fixture(scope="module")
def cls_project(tmp_path_factory) -> Path:
    return _small_project(tmp_path_factory.mktemp("cls"), "finance_sentiment")


@pytest.fixture(scope="module")
def ins_project(tmp_path_factory) -> Path:
    return _small_project(tmp_path_factory.mktemp("ins"), "finance_service_qa", rows=120)


def _job(project: Path, **kw) -> JobSpec:
    template = TemplateCatalog().get(__import__("json").loads((project / "project.json").read_text())["template"])
    base = dict(project=str(project), template=template.id, task=template.task.value, base_model="builtin:tiny",
                method="full", max_steps=12, batch_size=8, max_length=96, learning_rate=3e-3,
                logging_steps=2, eval_steps=6, save_steps=6, warmup_ratio=0.0, device="cpu", seed=7)
    base.update(kw)
    return JobSpec(**base)


def _start(project: Path, job: JobSpec) -> tuple[Path, subprocess.Popen]:
    run_dir = project / "runs" / new_run_id()
    write_job(run_dir, job)
    return run_dir, launch_worker(run_dir, detach=False)


def _run(project: Path, job: JobSpec) -> Path:
    run_dir, proc = _start(project, job)
    proc.wait(timeout=TIMEOUT)
    return run_dir


def _wait_for(run_dir: Path, proc, predicate, timeout=TIMEOUT):
    tail = EventTail(run_dir / "events.jsonl")
    deadline = time.time() + timeout
    while time.time() < deadline:
        for ev in tail.read_new():
            if predicate(ev):
                return ev
        if proc.poll() is not None:
            raise AssertionError(f"worker exited early: {(run_dir / 'worker.log').read_text()[-2000:]}")
        time.sleep(0.1)
    raise AssertionError("timed out waiting for an event")


def _losses(events):
    return [(e["step"], e["loss"]) for e in events if e["event"] == "step"]


def _log(run_dir: Path) -> str:
    return (run_dir / "worker.log").read_text(errors="replace")[-3000:]


def test_classification_run_streams_the_v1_protocol(cls_project):
    run_dir = _run(cls_project, _job(cls_project))
    events = read_events(run_dir)
    kinds = [e["event"] for e in events]
    assert all(e["v"] == 1 for e in events)
    assert kinds[-1] == "end" and events[-1]["status"] == "completed", _log(run_dir)
    start = next(e for e in events if e["event"] == "start")
    assert start["total_steps"] == 12 and start["device"] == "cpu" and start["builtin"] == "tiny"
    # the network trains; the linear part (tables of labels x n-grams) is fitted before, never trained
    assert 0 < start["trainable_params"] < start["total_params"]
    steps = _losses(events)
    assert [s for s, _ in steps] == [2, 4, 6, 8, 10, 12]
    assert steps[-1][1] < steps[0][1], steps
    step_ev = next(e for e in events if e["event"] == "step")
    assert step_ev["tokens_per_s"] > 0 and step_ev["lr"] > 0 and "eta_s" in step_ev
    evals = [e for e in events if e["event"] == "eval"]
    assert [e["step"] for e in evals] == [6, 12]
    for e in evals:
        assert 0.0 <= e["metrics"]["accuracy"] <= 1.0 and 0.0 <= e["metrics"]["macro_f1"] <= 1.0
        assert math.isfinite(e["eval_loss"])
    assert [e["path"] for e in events if e["event"] == "checkpoint"] == [
        "checkpoints/checkpoint-6", "checkpoints/checkpoint-12"]
    assert (run_dir / "final" / "config.json").is_file()
    assert any((run_dir / "vdl").iterdir()), "VisualDL logs are written beside the events"
    s = summarize(run_dir)
    assert s.status == "completed" and s.last_step == 12 and s.last_checkpoint == "checkpoints/checkpoint-12"


@pytest.mark.parametrize("task", ["instruction", "classification"])
@pytest.mark.parametrize("family", ["llama", "qwen2", "qwen3", "ernie4_5", "gemma3"])
def test_lora_on_each_family_folder_and_task(ins_project, cls_project, tmp_path, family, task):
    from model_factory import make_model_folder

    project = ins_project if task == "instruction" else cls_project
    folder = make_model_folder(family, tmp_path / family)
    run_dir = _run(project, _job(project, base_model=str(folder), method="lora", max_steps=10,
                                  learning_rate=2e-2, eval_steps=10, save_steps=10, lora_r=8))
    events = read_events(run_dir)
    assert events[-1]["status"] == "completed", _log(run_dir)
    start = next(e for e in events if e["event"] == "start")
    assert start["family"] == family and start["method"] == "lora"
    assert 0 < start["trainable_params"] < start["total_params"]
    losses = [l for _, l in _losses(events)]
    assert losses[-1] < losses[0], losses
    assert (run_dir / "final" / "lora_config.json").is_file()
    metrics = [e for e in events if e["event"] == "eval"][-1]["metrics"]
    assert ("accuracy" in metrics and "macro_f1" in metrics) == (task == "classification")


def test_builtin_instruction_full_training(ins_project):
    run_dir = _run(ins_project, _job(ins_project, max_steps=12, eval_steps=12, save_steps=12))
    events = read_events(run_dir)
    assert events[-1]["status"] == "completed", _log(run_dir)
    losses = [l for _, l in _losses(events)]
    assert losses[-1] < losses[0], losses
    assert math.isfinite([e for e in events if e["event"] == "eval"][-1]["metrics"]["perplexity"])


def test_stop_then_resume_continues_the_step_count(cls_project):
    job = _job(cls_project, max_steps=400, save_steps=200, eval_steps=200, logging_steps=2)
    run_dir, proc = _start(cls_project, job)
    _wait_for(run_dir, proc, lambda e: e["event"] == "step" and e["step"] >= 4)
    request_stop(run_dir)
    proc.wait(timeout=TIMEOUT)
    events = read_events(run_dir)
    assert events[-1]["event"] == "end" and events[-1]["status"] == "stopped", _log(run_dir)
    stop_step = max(e["step"] for e in events if e["event"] == "step")
    ckpt = [e for e in events if e["event"] == "checkpoint"][-1]
    assert 4 <= int(ckpt["step"]) < 400
    s = summarize(run_dir)
    assert s.status == "stopped" and s.last_checkpoint == ckpt["path"]

    # resume: same run folder, from the last checkpoint, a few more steps
    write_job(run_dir, read_job(run_dir).model_copy(update={"resume_from": ckpt["path"], "max_steps": int(ckpt["step"]) + 6}))
    proc = launch_worker(run_dir, detach=False)
    proc.wait(timeout=TIMEOUT)
    events = read_events(run_dir)
    assert events[-1]["status"] == "completed", _log(run_dir)
    second_start = [e for e in events if e["event"] == "start"][-1]
    assert second_start["initial_step"] == int(ckpt["step"])
    later = [e["step"] for e in events[events.index(second_start):] if e["event"] == "step"]
    assert later and min(later) > int(ckpt["step"]) >= stop_step - 2
    assert max(later) == int(ckpt["step"]) + 6


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_leaves_a_crashed_run_that_resumes(cls_project):
    job = _job(cls_project, max_steps=400, save_steps=4, eval_steps=400, logging_steps=2)
    run_dir, proc = _start(cls_project, job)
    _wait_for(run_dir, proc, lambda e: e["event"] == "checkpoint")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    s = summarize(run_dir)
    assert s.status == "crashed"
    assert s.last_checkpoint is not None and (run_dir / s.last_checkpoint / "trainer_state.json").is_file()
    resumed_from = int(s.last_checkpoint.rsplit("-", 1)[1])
    write_job(run_dir, read_job(run_dir).model_copy(update={"resume_from": s.last_checkpoint, "max_steps": resumed_from + 4}))
    proc = launch_worker(run_dir, detach=False)
    proc.wait(timeout=TIMEOUT)
    assert summarize(run_dir).status == "completed", _log(run_dir)
    start = [e for e in read_events(run_dir) if e["event"] == "start"][-1]
    assert start["initial_step"] == resumed_from


def test_nan_loss_stops_cleanly_and_keeps_the_good_checkpoint(cls_project, monkeypatch):
    # NaN weights after step 5: checkpoints at 2 and 4 are good, the loss logged at 6 is NaN
    monkeypatch.setenv("WORKBENCH_INJECT_NAN_AT_STEP", "5")
    run_dir = _run(cls_project, _job(cls_project, max_steps=40, save_steps=2, logging_steps=2, eval_steps=100))
    events = read_events(run_dir)
    end = events[-1]
    assert end["event"] == "end" and end["status"] == "failed", _log(run_dir)
    assert "NaN" in end["error"] and "learning rate" in end["error"]
    nan_step = int(re.search(r"at step (\d+)", end["error"]).group(1))
    assert nan_step < 40
    assert nan_step == 6
    ckpts = [int(p.name.rsplit("-", 1)[1]) for p in list_checkpoints(run_dir)]
    assert ckpts == [2, 4], ckpts
    from workbench.core.runs import CHECKPOINT_DONE_FILE

    assert all((p / CHECKPOINT_DONE_FILE).is_file() for p in list_checkpoints(run_dir))  # marked by the worker
    assert summarize(run_dir).last_checkpoint == "checkpoints/checkpoint-4"
    assert not (run_dir / "final").exists()


def test_same_seed_gives_the_same_losses(cls_project):
    a = _losses(read_events(_run(cls_project, _job(cls_project, max_steps=6, eval_steps=100, save_steps=100))))
    b = _losses(read_events(_run(cls_project, _job(cls_project, max_steps=6, eval_steps=100, save_steps=100))))
    assert a == b and len(a) == 3
    c = _losses(read_events(_run(cls_project, _job(cls_project, max_steps=6, eval_steps=100, save_steps=100, seed=8))))
    assert c != a


def test_absurd_learning_rate_ends_failed_with_advice(ins_project):
    # the decoder (instruction tuning) overflows; the built-in classifier's Adam steps stay finite
    run_dir = _run(ins_project, _job(ins_project, learning_rate=1e30, lr_scheduler="constant", max_steps=20,
                                      save_steps=100, logging_steps=2, eval_steps=100))
    end = read_events(run_dir)[-1]
    assert end["status"] == "failed", _log(run_dir)
    assert "NaN" in end["error"] and "learning rate" in end["error"]
    assert summarize(run_dir).status == "failed"


def test_the_worker_runs_data_parallel_under_paddles_launcher(cls_project, tmp_path):
    """Two CPU processes (what this machine allows): each step sees two batches."""
    import workbench.engine.worker as worker

    job = _job(cls_project, max_steps=4, batch_size=4, logging_steps=1, save_steps=2, eval_steps=100)
    run_dir = cls_project / "runs" / new_run_id("dist")
    write_job(run_dir, job)
    res = subprocess.run(
        [sys.executable, "-m", "paddle.distributed.launch", "--nproc_per_node", "2", "--log_dir", str(tmp_path / "log"),
         worker.__file__, str(run_dir)], cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    events = read_events(run_dir)
    assert events[-1]["status"] == "completed"
    assert len([e for e in events if e["event"] == "start"]) == 1, "only rank 0 reports"
    first = next(e for e in events if e["event"] == "step")
    train_rows = next(e for e in events if e["event"] == "start")["train_rows"]
    # one step takes a batch of 4 on each of the 2 processes; an epoch is ceil(rows / 8) such steps
    assert first["epoch"] == pytest.approx(1 / -(-train_rows // (2 * 4)), abs=1e-6)
    assert (run_dir / "final" / "config.json").is_file()
