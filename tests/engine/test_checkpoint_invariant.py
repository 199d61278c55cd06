"""Every checkpoint a run leaves loads back as the model that wrote it.

The worker records, at each save, the full logits of a few validation rows from the model in
its memory (WORKBENCH_PROBE_LOGITS); the model that eval, the playground and export load from
those weights (engine/evaluate.load_trained, LoRA merged) must give the same logits over the
whole vocabulary. Checked for periodic, best, stop, kill -9, resumed and final weights, for LoRA
over a cut vocabulary and over the full one, full fine-tuning and the built-in model, on tiny
models of Gemma 3 and Llama. A lowered cut reserve makes the tiny tokenizer's ids renumber as a
real model's do (before the fix, this is what loaded a stopped Gemma run as gibberish).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from model_factory import make_model_folder
from workbench.core.jobs import JobSpec, new_run_id, read_job, write_job
from workbench.core.project import Project, prepare
from workbench.core.runs import launch_worker, list_checkpoints, read_events, request_stop, summarize
from workbench.core.templates import TemplateCatalog
from workbench.core.trained import FINAL_DIR, resolve_trained_run

pytest.importorskip("paddle")
pytestmark = pytest.mark.slow  # real runs of the worker process

BIG_VOCAB = 40000  # a tied vocabulary above the cut's minimum
TIMEOUT = 300


def _prepared(tmp: Path, template_id: str, rows: int) -> Path:
    """A project from the first rows of a template's sample."""
    import pandas as pd

    t = TemplateCatalog().get(template_id)
    src = tmp / "rows.csv"
    pd.read_csv(t.sample_path, dtype=str, keep_default_na=False).head(rows).to_csv(src, index=False)
    prepare(t, src, tmp / template_id)
    return tmp / template_id


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return _prepared(tmp_path_factory.mktemp("ckpt"), "legal_consult_qa", 120)


@pytest.fixture(scope="module")
def cls_project(tmp_path_factory) -> Path:
    return _prepared(tmp_path_factory.mktemp("ckpt-cls"), "finance_sentiment", 160)


@pytest.fixture(scope="module")
def bases(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("bases")
    return {f: make_model_folder(f, tmp / f, layout="hf", vocab_size=BIG_VOCAB) for f in ("gemma3", "llama")}


@pytest.fixture(autouse=True)
def _probe_env(monkeypatch):
    monkeypatch.setenv("WORKBENCH_PROBE_LOGITS", "1")
    monkeypatch.setenv("WORKBENCH_VOCAB_CUT_RESERVE", "16")


def _job(project: Path, base: str, **kw) -> JobSpec:
    fields = dict(project=str(project), template="legal_consult_qa", task="instruction", base_model=base,
                  method="lora", max_steps=6, batch_size=4, max_length=96, learning_rate=5e-3,
                  logging_steps=1, eval_steps=2, save_steps=2, warmup_ratio=0.0, device="cpu", seed=11,
                  lora_dropout=0.0)
    fields.update(kw)
    return JobSpec(**fields)


def _start(project: Path, job: JobSpec):
    run_dir = project / "runs" / new_run_id()
    write_job(run_dir, job)
    return run_dir, launch_worker(run_dir, detach=False)


def _wait_for(run_dir: Path, proc, pred) -> dict:
    deadline = time.time() + TIMEOUT
    while time.time() < deadline:
        for e in read_events(run_dir):
            if pred(e):
                return e
        assert proc.poll() is None, (run_dir / "worker.log").read_text()[-3000:]
        time.sleep(0.2)
    raise AssertionError("timed out")


def _finish(run_dir: Path, proc, status: str = "completed") -> list[dict]:
    proc.wait(timeout=TIMEOUT)
    events = read_events(run_dir)
    assert events[-1]["event"] == "end" and events[-1]["status"] == status, \
        (run_dir / "worker.log").read_text()[-3000:]
    return events


def _assert_loads_as_written(project: Path, run_dir: Path, folder: Path) -> None:
    """The model loaded from ``folder`` gives the logits the worker recorded there."""
    from workbench.engine.models import checkpoints
    from workbench.engine.inference.trained import load_trained

    saved = checkpoints.saved_logits(folder)
    assert saved, f"no probe logits in {folder}"
    status = summarize(run_dir).status
    trained = resolve_trained_run(Project.open(project), run_dir.name)
    trained = dataclasses.replace(trained, source=folder.name, weights_dir=folder, status=status)
    model, _ = load_trained(trained, device="cpu", merge=True)  # checks the probe's losses too
    for got, want in zip(checkpoints.probe_logits(model, trained.probe), saved):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=str(folder))


CASES = {
    "gemma3-lora-cut": dict(family="gemma3"),
    "gemma3-lora-full-vocabulary": dict(family="gemma3", vocabulary="full"),
    "gemma3-full": dict(family="gemma3", method="full", learning_rate=1e-3),
    "llama-lora-cut": dict(family="llama"),
    "builtin-tiny": dict(family=None, base_model="builtin:tiny", method="full", lora_dropout=0.05),
    "builtin-classifier": dict(family=None, base_model="builtin:tiny", method="full", classifier=True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_periodic_best_and_final_weights_load_as_written(project, cls_project, bases, case):
    kw = dict(CASES[case])
    family = kw.pop("family")
    base = kw.pop("base_model", None) or str(bases[family])
    if kw.pop("classifier", False):  # the built-in classifier, on a classification project
        project = cls_project
        kw.update(template="finance_sentiment", task="classification", learning_rate=3e-3)
    run_dir, proc = _start(project, _job(project, base, **kw))
    events = _finish(run_dir, proc)
    cut = [e for e in events if e.get("code") == "vocabulary_cut"]
    assert bool(cut) == case.endswith("-cut"), cut
    ckpts = list_checkpoints(run_dir)
    assert [c.name for c in ckpts] == ["checkpoint-2", "checkpoint-4", "checkpoint-6"]
    for folder in [*ckpts, run_dir / FINAL_DIR]:  # the best is one of them, and final/ holds it
        _assert_loads_as_written(project, run_dir, folder)
    if kw.get("method", "lora") == "lora":  # the adapter alone: the frozen weights are the base model's
        from workbench.engine.models.checkpoints import saved_shapes

        assert all("lora" in k for k in saved_shapes(ckpts[-1] / "model_state"))


def test_stopped_killed_and_resumed_weights_load_as_written_and_the_curve_continues(project, bases, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # both runs sum in the same order
    base = str(bases["gemma3"])
    # the uninterrupted run, for its curve
    ref_dir, proc = _start(project, _job(project, base, max_steps=40, save_steps=100, eval_steps=100))
    ref = {e["step"]: e["loss"] for e in _finish(ref_dir, proc) if e["event"] == "step"}

    run_dir, proc = _start(project, _job(project, base, max_steps=40, save_steps=100, eval_steps=100))
    _wait_for(run_dir, proc, lambda e: e["event"] == "step" and e["step"] >= 3)
    request_stop(run_dir)
    events = _finish(run_dir, proc, "stopped")
    stop_ckpt = run_dir / [e for e in events if e["event"] == "checkpoint"][-1]["path"]
    _assert_loads_as_written(project, run_dir, stop_ckpt)
    stopped_at = int(stop_ckpt.name.rsplit("-", 1)[1])
    assert 3 <= stopped_at < 40

    # resumed with the same job: its next logged loss is the uninterrupted run's at that step
    write_job(run_dir, read_job(run_dir).model_copy(update={"resume_from": str(stop_ckpt.relative_to(run_dir)),
                                                            "save_steps": 2}))
    proc = launch_worker(run_dir, detach=False)
    first = _wait_for(run_dir, proc, lambda e: e["event"] == "step" and e["step"] > stopped_at)
    step = first["step"]
    # one job, one seed, one thread: the same run to rounding, before the stop and after the resume
    # (the adapters' random start once came from no seed, and two runs parted after the first step)
    before = {e["step"]: e["loss"] for e in read_events(run_dir) if e["event"] == "step" and e["step"] <= stopped_at}
    assert before == pytest.approx({s: ref[s] for s in before}, rel=1e-6)
    assert first["loss"] == pytest.approx(ref[step], rel=1e-5), (first, ref)
    ckpt = _wait_for(run_dir, proc, lambda e: e["event"] == "checkpoint" and int(e["step"]) > stopped_at)
    _wait_for(run_dir, proc, lambda e: e["event"] == "step" and e["step"] > int(ckpt["step"]) + 1)
    if sys.platform != "win32":  # the last checkpoint before a crash
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert summarize(run_dir).status == "crashed"
    else:
        request_stop(run_dir)
        proc.wait(timeout=TIMEOUT)
    last = list_checkpoints(run_dir)[-1]
    assert int(last.name.rsplit("-", 1)[1]) > stopped_at
    _assert_loads_as_written(project, run_dir, last)


def test_weights_that_do_not_give_what_the_run_measured_are_refused(project, bases, monkeypatch):
    """A checkpoint whose adapter was damaged after saving (as the cut embedding was misread
    before) is not served: loading it says so instead of answering."""
    import paddle

    from workbench.core.errors import WorkbenchError
    from workbench.engine.inference.trained import load_trained

    run_dir, proc = _start(project, _job(project, str(bases["gemma3"]), max_steps=2, eval_steps=2))
    _finish(run_dir, proc)
    ckpt = list_checkpoints(run_dir)[-1]
    trained = resolve_trained_run(Project.open(project), run_dir.name, checkpoint="last")
    trained = dataclasses.replace(trained, source=ckpt.name, weights_dir=ckpt)
    load_trained(trained)  # sound
    # the same checkpoint with every adapter weight scaled: what the probe must catch
    from workbench.engine.models import checkpoints

    real = checkpoints.load_weights

    def damaged(model, state_dir):
        names = real(model, state_dir)
        with paddle.no_grad():
            for name, p in model.named_parameters():
                if "lora_B" in name:
                    p.set_value(p * 0 + 0.5)
        return names

    monkeypatch.setattr(checkpoints, "load_weights", damaged)
    with pytest.raises(WorkbenchError, match="do not load back as the model that saved them"):
        load_trained(trained)


def test_a_stopped_runs_exports_carry_its_checkpoint(project, bases, tmp_path):
    """Merged and GGUF files of a stopped LoRA run over a cut vocabulary give the logits of the
    model the worker held when it saved the checkpoint; the static model passes its parity check
    against the same loaded weights."""
    import paddle

    from workbench.engine.models import checkpoints
    from workbench.engine.models import loading
    from workbench.engine.export.bundle import export_run
    from workbench.engine.gguf.reader import load_tensors
    from workbench.engine.gguf.reference import forward_logits

    run_dir, proc = _start(project, _job(project, str(bases["gemma3"]), max_steps=40, save_steps=100,
                                         eval_steps=100))
    _wait_for(run_dir, proc, lambda e: e["event"] == "step" and e["step"] >= 3)
    request_stop(run_dir)
    _finish(run_dir, proc, "stopped")
    ckpt = list_checkpoints(run_dir)[-1]
    want = checkpoints.saved_logits(ckpt)
    probe = resolve_trained_run(Project.open(project), run_dir.name).probe
    assert want and probe

    out = tmp_path / "bundle"
    res = export_run(project, run_dir.name, out, formats=["static", "merged", "gguf"], gguf_type="f32",
                     evaluate=False, check_script=False, parity_rows=2)
    assert res["checks"]["gguf"]["ok"], res["checks"]
    merged = loading.load_model(out / "merged", for_training=False, device="cpu")
    merged.eval()
    tensors, meta = load_tensors(out / res["checks"]["gguf"]["files"][0])
    for row, logits in zip(probe["rows"], want):
        with paddle.no_grad():
            got = merged(input_ids=paddle.to_tensor([row["input_ids"]], dtype="int64"), return_dict=True)
        np.testing.assert_allclose(got.logits.numpy()[0], logits, rtol=1e-5, atol=1e-5)
        scale = float(np.abs(logits).max())
        assert float(np.abs(forward_logits(tensors, meta, row["input_ids"]) - logits).max()) <= 1e-4 * max(1, scale)


def test_checkpoints_of_earlier_versions_load_their_adapter_over_the_full_vocabulary(project, bases, monkeypatch):
    """Earlier versions saved every weight, the cut embedding included; loading takes the adapter
    from them and the embedding from the base model, so their stopped runs answer as trained."""
    from trained_factory import train_run

    from workbench.engine.models import checkpoints

    monkeypatch.setattr(checkpoints, "adapter_only_checkpoints", lambda trainer: False)  # as those versions saved
    run_dir = train_run(Project.open(project), "run-earlier", steps=4, base_model=str(bases["gemma3"]),
                        method="lora", learning_rate=5e-3, save_steps=2, lora_dropout=0.0, max_length=96)
    ckpt = list_checkpoints(run_dir)[-1]
    shapes = checkpoints.saved_shapes(ckpt / "model_state")
    assert shapes["model.embed_tokens.weight"][0] < BIG_VOCAB  # the cut embedding is in the file
    _assert_loads_as_written(project, run_dir, ckpt)
