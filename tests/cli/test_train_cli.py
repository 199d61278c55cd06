"""`workbench train` and `workbench runs` as a user runs them, and the recommendation."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from workbench.core.project import prepare
from workbench.core.recommend import planned_steps, recommend
from workbench.core.templates import TemplateCatalog

pytestmark = pytest.mark.slow  # real training runs from the command line: `make test-slow`


CATALOG = TemplateCatalog()
# Gemma 3 270M's shape, for the recommendation's memory and time counts
GEMMA_270M = dict(model_type="gemma3_text", vocab_size=262144, hidden_size=640, intermediate_size=2048,
                  num_hidden_layers=18, num_attention_heads=4, num_key_value_heads=1, head_dim=256,
                  tie_word_embeddings=True)


def _gemma_qa(tmp_path):
    """A model folder of Gemma 3 270M's config, the Q&A template and 500 rows' statistics."""
    model = tmp_path / "gemma"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(GEMMA_270M), encoding="utf-8")
    stats = {"splits": {"train": 500, "val": 60, "test": 60}, "text_chars": {"mean": 60, "p95": 150},
             "output_chars": {"mean": 180, "max": 250}}
    return model, CATALOG.get("legal_consult_qa"), stats


def wb(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    t = CATALOG.get("legal_case_type")
    root = tmp_path_factory.mktemp("p") / "legal"
    prepare(t, t.sample_path, root)
    return root


def test_recommendation_follows_data_and_device(project):
    from workbench.core.project import Project

    t = CATALOG.get("legal_case_type")
    stats = Project.open(project).config.stats
    cpu = recommend(t, stats, "cpu", "builtin:small")
    assert cpu.method == "full" and any("from scratch" in n for n in cpu.notes)
    assert 64 <= cpu.max_length <= 1024 and cpu.max_length % 32 == 0
    assert cpu.total_steps == -(-stats["splits"]["train"] // cpu.batch_size) * int(cpu.epochs)
    gpu = recommend(t, stats, "gpu:0", "builtin:small")
    assert gpu.est_seconds < cpu.est_seconds
    assert cpu.eval_steps == -(-stats["splits"]["train"] // cpu.batch_size // 2) or cpu.eval_steps >= 1
    # the built-in classifier's epochs fit the time budget
    tight = recommend(t, stats, "cpu", "builtin:small", time_budget_min=cpu.est_seconds / 60 / 3)
    assert tight.epochs < cpu.epochs and tight.est_seconds <= tight.time_budget_s
    instr = CATALOG.get("legal_consult_qa")
    assert recommend(instr, stats, "gpu:0", "builtin:small").batch_size > recommend(instr, stats, "cpu",
                                                                                     "builtin:small").batch_size
    bigger = dict(stats, splits={**stats["splits"], "train": stats["splits"]["train"] * 4})
    assert recommend(t, bigger, "cpu", "builtin:small").est_seconds > cpu.est_seconds
    lora = recommend(t, stats, "cpu", "/nonexistent/model", "lora")
    assert lora.method == "lora" and lora.learning_rate > 0 and lora.est_memory_mb > cpu.est_memory_mb


def test_train_command_runs_the_worker_and_runs_lists_it(project):
    res = wb("train", "--project", project, "--base-model", "builtin:tiny", "--max-steps", "4", "--eval-steps", "4",
             "--save-steps", "4", "--logging-steps", "2", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    events = [json.loads(l) for l in res.stdout.splitlines() if l.startswith("{")]
    assert events[0]["v"] == 1 and events[-1] == {**events[-1], "event": "end", "status": "completed"}
    listed = json.loads(wb("runs", "--project", project, "--json").stdout)["runs"]
    assert listed[-1]["status"] == "completed" and listed[-1]["last_step"] == 4
    assert listed[-1]["last_checkpoint"] == "checkpoints/checkpoint-4"
    human = wb("runs", "--project", project).stdout
    assert "completed" in human and "step 4/4" in human
    # a completed run is not resumed; an unknown one is named
    res = wb("train", "--project", project, "--resume", listed[-1]["id"])
    assert res.returncode == 2 and "has completed" in res.stderr
    res = wb("train", "--project", project, "--resume", "no-such-run")
    assert res.returncode == 2 and "does not exist" in res.stderr and "Traceback" not in res.stderr


def test_train_command_progress_bar_and_failure_exit(project):
    res = wb("train", "--project", project, "--base-model", "builtin:tiny", "--max-steps", "2", "--logging-steps", "1",
             "--save-steps", "100", "--eval-steps", "100")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "trained from scratch" in res.stdout and "tok/s" in res.stdout and "ETA" in res.stdout
    # the estimate before the run is a range, the one the Train page shows for the same job
    import re

    assert re.search(r"this run about \d\d:\d\d to \d\d:\d\d and \d+ MB", res.stdout), res.stdout[:600]
    res = wb("train", "--project", project, "--base-model", "/no/such/folder", "--max-steps", "2")
    assert res.returncode == 1
    assert "failed" in res.stdout


def test_train_refuses_an_unprepared_project(tmp_path):
    res = wb("train", "--project", tmp_path)
    assert res.returncode == 2 and "not a Workbench project" in res.stderr


def test_a_checkpoint_that_cannot_be_written_ends_the_run_with_what_to_do(project):
    # the checkpoints folder's name taken by a file: a real failed write, as a full disk would be
    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.project import Project

    task = Project.open(project).task
    run_dir = project / "runs" / "run-unwritable"
    write_job(run_dir, JobSpec(project=str(project), template=task.template, task=task.task.value,
                               base_model="builtin:tiny", method="full", max_steps=2, save_steps=2, eval_steps=2,
                               logging_steps=1, batch_size=8, max_length=64, device="cpu"))
    (run_dir / "checkpoints").write_text("not a folder", encoding="utf-8")
    res = subprocess.run([sys.executable, "-m", "workbench.engine.worker", str(run_dir)], capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 1
    end = json.loads((run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert end["event"] == "end" and end["status"] == "failed"
    assert end["error"].startswith("Training stopped: A file or folder is not where it was expected")
    assert "checkpoints" in end["error"] and "resume the run" in end["error"]


def test_a_run_that_cannot_fit_on_the_disk_is_refused_before_it_starts(project):
    runs_before = sorted(p.name for p in (project / "runs").iterdir()) if (project / "runs").is_dir() else []
    # a hundred million checkpoints of the tiny model: more than any disk holds
    res = wb("train", "--project", project, "--base-model", "builtin:tiny", "--max-steps", "2",
             "--save-total-limit", "100000000")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert "GB of disk for its checkpoints" in res.stderr and "--save-total-limit" in res.stderr
    after = sorted(p.name for p in (project / "runs").iterdir()) if (project / "runs").is_dir() else []
    assert after == runs_before  # no run folder was left behind


def test_the_disk_estimate_follows_the_measured_checkpoints():
    from workbench.core.recommend import run_disk_mb

    # a built-in small classifier's checkpoint measured 209 MB (13 labels) and 259 MB (62 labels)
    one = run_disk_mb("builtin:small", "full", "classification", 13, 2) - run_disk_mb(
        "builtin:small", "full", "classification", 13, 1)
    assert 200 <= one <= 240
    wide = run_disk_mb("builtin:small", "full", "classification", 62, 2) - run_disk_mb(
        "builtin:small", "full", "classification", 62, 1)
    assert 250 <= wide <= 290
    assert run_disk_mb("builtin:small", "full", "classification", 13, 5) > run_disk_mb(
        "builtin:small", "full", "classification", 13, 3)


def test_a_run_is_deleted_only_when_no_worker_writes_it(project):
    from workbench.core.runs import acquire_run_lock

    res = wb("train", "--project", project, "--base-model", "builtin:tiny", "--max-steps", "2", "--save-steps", "2",
             "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    run = json.loads(wb("runs", "--project", project, "--json").stdout)["runs"][-1]["id"]
    run_dir = project / "runs" / run
    lock = acquire_run_lock(run_dir)  # as a worker holds it while it trains
    try:
        res = wb("runs", "--project", project, "--delete", run)
        assert res.returncode == 2 and "Traceback" not in res.stderr and run_dir.is_dir()
    finally:
        lock.release()
    res = wb("runs", "--project", project, "--delete", run, "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.splitlines()[-1])["freed_bytes"] > 0
    assert not run_dir.exists() and not list((project / "runs").glob(".deleting-*"))
    assert run not in [r["id"] for r in json.loads(wb("runs", "--project", project, "--json").stdout)["runs"]]
    res = wb("runs", "--project", project, "--delete", run)
    assert res.returncode == 2 and "does not exist" in res.stderr


def test_a_registered_model_trains_by_its_id_and_runs_name_it(project, tmp_path):
    """`train --base-model ID` of a model in the store: the job names the folder (what the
    worker, evaluation and export load) and the id (what the user chose), the run lists the id."""
    from model_factory import make_model_folder

    env_home = tmp_path / "home"
    folder = make_model_folder("qwen2", tmp_path / "my-qwen", layout="hf")
    import os

    env = {**os.environ, "WORKBENCH_HOME": str(env_home)}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                              timeout=300, env=env)

    assert run("models", "add", folder, "--name", "Legal Qwen").returncode == 0
    res = run("train", "--project", project, "--base-model", "legal-qwen", "--max-steps", "2", "--eval-steps", "2",
              "--save-steps", "2", "--logging-steps", "1", "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    events = [json.loads(l) for l in res.stdout.splitlines() if l.startswith("{")]
    assert events[-1]["event"] == "end" and events[-1]["status"] == "completed"
    runs = json.loads(run("runs", "--project", project, "--json").stdout)["runs"]
    mine = [r for r in runs if r["base_model"] == "legal-qwen"]
    assert len(mine) == 1 and mine[0]["method"] == "lora"
    job = json.loads((project / "runs" / mine[0]["id"] / "job.json").read_text(encoding="utf-8"))
    assert job["base_model"] == str(folder.resolve()) and job["base_model_name"] == "legal-qwen"
    # an id that is not registered is not mistaken for a folder
    res = run("train", "--project", project, "--base-model", "no-such-model", "--max-steps", "1")
    assert res.returncode != 0


def test_the_time_budget_bounds_a_pretrained_instruction_run(tmp_path):
    """An instruction run of a pretrained decoder fits the budget: on part of the data when one
    pass takes longer, and the work it counts is the model's own (its config.json)."""
    model = tmp_path / "gemma"
    model.mkdir()
    (model / "config.json").write_text(json.dumps(dict(
        model_type="gemma3_text", vocab_size=262144, hidden_size=640, intermediate_size=2048, num_hidden_layers=18,
        num_attention_heads=4, num_key_value_heads=1, head_dim=256, tie_word_embeddings=True)), encoding="utf-8")
    qa = CATALOG.get("legal_consult_qa")
    stats = {"splits": {"train": 5000, "val": 600, "test": 600}, "text_chars": {"mean": 60, "p95": 150},
             "output_chars": {"mean": 180, "max": 900}}
    ten = recommend(qa, stats, "cpu", str(model), "lora", time_budget_min=10)
    assert ten.method == "lora" and ten.epochs < 1 and ten.est_seconds <= 600 * 1.001
    assert any("time budget" in n for n in ten.notes)
    assert ten.total_steps == planned_steps(5000, ten.batch_size, ten.epochs) < -(-5000 // ten.batch_size)
    assert 1 <= ten.eval_steps <= ten.total_steps
    hour = recommend(qa, stats, "cpu", str(model), "lora", time_budget_min=60)
    assert hour.epochs > ten.epochs and ten.est_seconds < hour.est_seconds <= 3600 * 1.001
    # a small set that fits trains its full epochs
    small = dict(stats, splits={"train": 40, "val": 10, "test": 10})
    fits = recommend(qa, small, "cpu", str(model), "lora", time_budget_min=600)
    assert fits.epochs == 5.0 and not any("time budget" in n for n in fits.notes)


def test_a_pretrained_decoders_batch_fits_the_computers_memory(tmp_path):
    """The memory a Gemma 3 270M LoRA run takes is counted from its config (a step at 8 x 256
    tokens over the cut vocabulary peaked at 7.6 GB; the full vocabulary's probabilities at the
    answers add more), and the batch is halved until it fits in 60 % of the machine."""
    from workbench.core.recommend import decoder_memory_mb

    cfg = GEMMA_270M
    assert 7000 < decoder_memory_mb(cfg, 8, 256, "lora", 16384) < 8400
    assert decoder_memory_mb(cfg, 8, 256, "lora") > decoder_memory_mb(cfg, 8, 256, "lora", 16384) + 500
    assert decoder_memory_mb(cfg, 2, 448, "lora") < decoder_memory_mb(cfg, 8, 448, "lora") / 2
    model, qa, stats = _gemma_qa(tmp_path)
    big = recommend(qa, stats, "cpu", str(model), "lora", machine_memory_mb=64 * 1024)
    laptop = recommend(qa, stats, "cpu", str(model), "lora", machine_memory_mb=8 * 1024)
    assert big.batch_size == 8 and not any("memory" in n for n in big.notes)
    assert laptop.batch_size < 8 and laptop.est_memory_mb <= 0.6 * 8 * 1024
    assert any("Rows per step lowered" in n for n in laptop.notes)
    assert laptop.est_seconds == pytest.approx(big.est_seconds, rel=0.05)  # a token costs the same


def test_layers_are_recomputed_only_when_one_row_a_step_would_not_fit(tmp_path):
    """Halving the batch costs no throughput on a CPU, recomputing costs about half again: the
    recommendation recomputes only where even one row a step is over 60 % of memory, and the job
    built from it carries the choice to the worker and to the command line."""
    from workbench.core.recommend import RECOMPUTE_TIME_FACTOR, decoder_memory_mb

    cfg = GEMMA_270M
    # measured at 8 x 256 with the cut vocabulary: 2.6 GB with recomputing, 7.5 GB without
    assert decoder_memory_mb(cfg, 8, 256, "lora", 16384, recompute=True) < 4000
    model, qa, stats = _gemma_qa(tmp_path)
    laptop = recommend(qa, stats, "cpu", str(model), "lora", machine_memory_mb=8 * 1024)
    assert not laptop.recompute
    tight = recommend(qa, stats, "cpu", str(model), "lora", machine_memory_mb=3.5 * 1024)
    assert tight.recompute and tight.est_memory_mb <= 0.6 * 3.5 * 1024
    assert any("recomputed" in n for n in tight.notes)
    big = recommend(qa, stats, "cpu", str(model), "lora", machine_memory_mb=64 * 1024, time_budget_min=600)
    slow = recommend(qa, stats, "cpu", str(model), "lora", machine_memory_mb=3.5 * 1024, time_budget_min=600)
    # a pass takes RECOMPUTE_TIME_FACTOR as long; its smaller steps evaluate more often (every 50 steps)
    assert slow.batch_size < big.batch_size
    assert slow.epoch_seconds / big.epoch_seconds == pytest.approx(RECOMPUTE_TIME_FACTOR, rel=0.1)
    assert slow.est_seconds > RECOMPUTE_TIME_FACTOR * big.est_seconds
    # the command line says it the way the parser reads it
    from workbench.cli import build_parser

    args = build_parser().parse_args(["train", "--project", "p", "--recompute"])
    assert args.recompute is True
    assert build_parser().parse_args(["train", "--project", "p"]).recompute is None


def test_the_batch_fits_the_memory_other_programs_leave_free(tmp_path, monkeypatch):
    """A large computer whose memory other programs hold: the run fits what is free now."""
    from workbench.core import recommend

    model, qa, stats = _gemma_qa(tmp_path)
    monkeypatch.setattr(recommend, "_machine_memory_mb", lambda: (64 * 1024.0, 60 * 1024.0))
    assert recommend.recommend(qa, stats, "cpu", str(model), "lora").batch_size == 8
    monkeypatch.setattr(recommend, "_machine_memory_mb", lambda: (64 * 1024.0, 5 * 1024.0))
    busy = recommend.recommend(qa, stats, "cpu", str(model), "lora")
    assert busy.batch_size < 8 and busy.est_memory_mb <= recommend.AVAILABLE_SHARE * 5 * 1024


def test_the_steps_planned_are_the_steps_the_worker_makes(tmp_path):
    """The Train page said "884 steps planned" for a run that made 885: the count is core's, and
    it is the Trainer's (an epoch's batches, the last one short, times the epochs, rounded down)."""
    from trained_factory import train_run

    t = CATALOG.get("finance_sentiment")
    project, _ = prepare(t, t.sample_path, tmp_path / "p")
    rows = project.config.stats["splits"]["train"]
    for epochs, batch, accumulation in ((0.37, 8, 1), (1.0, 7, 2)):
        run = train_run(project, f"run-{batch}", steps=-1, epochs=epochs, batch_size=batch,
                        gradient_accumulation_steps=accumulation, eval_steps=1000, save_steps=1000)
        start = next(json.loads(line) for line in (run / "events.jsonl").read_text(encoding="utf-8").splitlines()
                     if '"start"' in line)
        assert start["total_steps"] == planned_steps(rows, batch, epochs, accumulation=accumulation)
