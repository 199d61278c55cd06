"""Preference tuning end to end, as a person does it from the command line: a tiny Qwen2 instruction
run, two sampled answers per question, choices recorded, `train --method dpo --from-run` through
the real worker; the run completes, its weights load back and answer, and the held-out preference
accuracy is reported. Then a DPO run stopped at a checkpoint resumes to the end."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from model_factory import make_model_folder
from trained_factory import INST, trained_project, train_run

pytestmark = pytest.mark.slow  # real runs through the worker: `make test-slow`


def wb(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def qwen_project(tmp_path_factory):
    base = tmp_path_factory.mktemp("pref")
    project = trained_project(INST, base)
    folder = make_model_folder("qwen2", base / "qwen2")
    train_run(project, "sft", base_model=str(folder), method="lora", learning_rate=1e-3, max_length=96, batch_size=4)
    return project


def _judge(project, tmp_path, rows=4):
    res = wb("feedback", "pairs", "--project", project.root, "--run", "sft", "--rows", rows, "--max-new-tokens", 10,
             "--json")
    assert res.returncode == 0, res.stderr[-2000:]
    pairs = json.loads(res.stdout.strip().splitlines()[-1])["pairs"]
    assert len(pairs) == rows and all({"pair_id", "prompt", "a", "b", "reference"} <= set(p) for p in pairs)
    assert all(p["a"] != p["b"] or p.get("identical") for p in pairs)
    choices = tmp_path / "choices.jsonl"
    choices.write_text("".join(json.dumps({"pair_id": p["pair_id"], "choice": "ab"[i % 2]}) + "\n"
                               for i, p in enumerate(pairs)), encoding="utf-8")
    res = wb("feedback", "add", "--project", project.root, "--from", choices)
    assert res.returncode == 0, res.stderr
    return pairs


def test_a_run_tuned_on_choices_completes_loads_back_and_reports_held_out_accuracy(qwen_project, tmp_path):
    project = qwen_project
    _judge(project, tmp_path)
    res = wb("train", "--project", project.root, "--method", "dpo", "--from-run", "sft", "--max-steps", 4,
             "--eval-steps", 2, "--learning-rate", 5e-3, "--time-budget", 5, "--json")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    lines = [json.loads(x) for x in res.stdout.strip().splitlines() if x.startswith("{")]
    rec = lines[0]
    assert rec["event"] == "recommendation" and rec["pairs"]["pairs"] == 4 and rec["beta"] > 0
    run_id = rec["run"]
    assert lines[-1]["event"] == "end" and lines[-1]["status"] == "completed"
    evals = [e for e in lines if e.get("event") == "eval"]
    assert evals and "preference_accuracy" in evals[-1]["metrics"]
    after = [e for e in lines if e.get("code") == "preference_after"]
    assert after and 0.0 <= after[0]["preference_accuracy"] <= 1.0

    from workbench.core.operations.preference import run_report
    from workbench.core.trained import resolve_trained_run
    from workbench.engine import examples
    from workbench.engine.inference.answers import generate_answers
    from workbench.engine.inference.trained import load_trained, system_prompt

    report = run_report(project.root, run_id)
    assert report["heldout_pairs"] >= 1 and report["before"]["preference_accuracy"] == 0.5
    assert report["after"]["preference_accuracy"] == after[0]["preference_accuracy"]
    trained = resolve_trained_run(project, run_id)
    assert trained.method == "dpo" and trained.source == "final"
    model, tokenizer = load_trained(trained)  # refuses weights that do not give their probe again
    prompt = examples.build_prompt(tokenizer, system_prompt(trained.spec), "转账限额是多少？")
    assert isinstance(generate_answers(model, tokenizer, [prompt], max_new_tokens=6, max_length=96)[0], str)
    res = wb("runs", "--project", project.root, "--json")
    runs = {r["id"]: r for r in json.loads(res.stdout.strip().splitlines()[-1])["runs"]}
    assert runs[run_id]["status"] == "completed" and runs[run_id]["from_run"] == "sft"
    steps = [e for e in lines if e.get("event") == "step"]
    assert steps and all({"reward_chosen", "reward_rejected", "reward_margin", "preference_accuracy"} <= set(e)
                         for e in steps)

    # eval judges the held-out pairs with the weights it evaluates and with the run it started from
    res = wb("eval", "--project", project.root, "--run", run_id, "--rows", 2, "--max-new-tokens", 6,
             "--no-compare-base")
    assert res.returncode == 0, res.stderr[-2000:]
    assert f"held-out pairs: {report['heldout_pairs']} (base: run sft)" in res.stdout
    metrics = json.loads((project.runs_dir / run_id / "eval" / "metrics.json").read_text(encoding="utf-8"))
    pref = metrics["preference"]
    assert (pref["from_run"], pref["loss"], pref["heldout_pairs"]) == ("sft", "sigmoid", report["heldout_pairs"])
    for key in ("preference_accuracy", "likelihood_accuracy"):  # the same weights and pairs as the run's own report
        assert pref["tuned"][key] == report["after"][key] and pref["base"][key] == report["before"][key]
    assert metrics["metrics"]["preference_accuracy"] == pref["tuned"]["preference_accuracy"]
    assert metrics["base"] == {"preference_accuracy": 0.5, "likelihood_accuracy": report["before"]["likelihood_accuracy"],
                               "heldout_pairs": report["heldout_pairs"]}
    assert "rouge_l" in metrics["metrics"]  # the answers' figures beside them
    # the export's model card and bundle.json carry the settings and the figures
    out = tmp_path / "bundle"
    res = wb("export", "--project", project.root, "--run", run_id, "--formats", "merged", "--out", out, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "| tuned from run | `sft` |" in card and "| preference loss | sigmoid |" in card
    assert f"| pairs of answers (train / held out) | {report['train_pairs']} / {report['heldout_pairs']} |" in card
    assert "held-out preference accuracy (implicit reward)" in card
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["preference"]["from_run"] == "sft" and bundle["preference"]["beta"] == rec["beta"]
    assert bundle["preference"]["tuned"]["preference_accuracy"] == pref["tuned"]["preference_accuracy"]


def test_a_stopped_preference_run_resumes_to_its_end(qwen_project, tmp_path):
    from workbench.core.operations import preference as preference_operations
    from workbench.core.operations import runs as run_operations
    from workbench.core.runs import read_events

    project = qwen_project
    from workbench.core import feedback

    if not feedback.load(project.root):
        _judge(project, tmp_path)
    job, _, _ = preference_operations.build_dpo_job(project, "sft", max_steps=40, eval_steps=2, save_steps=2,
                                                    learning_rate=1e-3, device="cpu")
    started = run_operations.start_run(project, job, detach=True)
    deadline = time.time() + 240
    while time.time() < deadline and not any(e.get("event") == "checkpoint" for e in read_events(started.run_dir)):
        time.sleep(0.3)
    run_operations.stop_run(started.run_dir)
    while time.time() < deadline and run_operations.is_running(started.run_dir):
        time.sleep(0.3)
    assert run_operations.summarize(started.run_dir).status == "stopped"
    resumed = run_operations.resume_run(project, started.run_id, detach=True)
    while time.time() < deadline and run_operations.is_running(started.run_dir):
        time.sleep(0.5)
    summary = run_operations.summarize(started.run_dir)
    assert summary.status == "completed" and summary.last_step == 40, resumed.log_path.read_text()[-2000:]
    starts = [e for e in read_events(started.run_dir) if e.get("event") == "start"]
    assert starts[-1]["initial_step"] > 0, "the resume went on from the checkpoint"
    report = preference_operations.run_report(project.root, started.run_id)
    assert report["before"]["preference_accuracy"] == 0.5, "the figures before tuning survive the resume"


def test_the_sft_loss_learns_the_chosen_answers_and_needs_no_reference(qwen_project, tmp_path):
    from workbench.core.preference import read_run_pairs
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.training import preference as engine_pref
    from workbench.engine.models import run_weights

    project = qwen_project
    _judge(project, tmp_path)
    res = wb("train", "--project", project.root, "--method", "dpo", "--from-run", "sft", "--dpo-loss", "sft",
             "--max-steps", 6, "--eval-steps", 6, "--learning-rate", 5e-3, "--time-budget", 5, "--json")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    lines = [json.loads(x) for x in res.stdout.strip().splitlines() if x.startswith("{")]
    run_id = lines[0]["run"]
    assert lines[-1]["status"] == "completed"
    trained = resolve_trained_run(project, run_id)
    job = trained.job
    assert job.dpo_loss == "sft"
    cfg = engine_pref.dpo_config(job)
    assert (cfg.pref_loss_ratio, cfg.sft_loss_ratio, cfg.reference_free) == (0.0, 1.0, True)
    model, tokenizer = run_weights.load_run_model(trained, merge=False)
    model.config.dpo_config = cfg
    criterion = engine_pref.make_criterion(model.config)
    system = trained.spec.system_text("zh")
    rows = [engine_pref.pack_pair(tokenizer, system, p, 96) for p in read_run_pairs(trained.run_dir)
            if p.split == "train"]
    before = engine_pref.pair_logps(model, rows, criterion, adapter=False)
    after = engine_pref.pair_logps(model, rows, criterion, adapter=True)
    # the chosen answers, learnt as training rows, are likelier than before the run
    assert sum(after[0]) > sum(before[0]) + 1.0, (sum(before[0]), sum(after[0]))
