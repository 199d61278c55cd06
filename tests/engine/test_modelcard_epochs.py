"""The model card's epochs are those the exported weights were trained for, from the run's
events (up to the checkpoint's step), not the figure the job planned."""

from __future__ import annotations

import json
from types import SimpleNamespace

from workbench.core.runs import EventWriter
from workbench.engine.export.modelcard import epochs_trained


def _run(tmp_path, epochs):
    run_dir = tmp_path / "runs" / "run-1"
    run_dir.mkdir(parents=True)
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=len(epochs))
    for step, epoch in enumerate(epochs, 1):
        ev.emit("step", step=step, epoch=epoch, loss=2.0, lr=1e-4)
    ev.emit("end", status="stopped", error=None)
    ev.close()
    return run_dir


def test_the_epochs_the_run_covered_not_the_plan(tmp_path):
    run_dir = _run(tmp_path, [0.001, 0.002, 0.004, 0.006, 0.008])  # planned 0.064, stopped at 0.008
    final = SimpleNamespace(source="final", run_dir=run_dir, weights_dir=run_dir / "final")
    assert epochs_trained(final) == 0.008
    ckpt = SimpleNamespace(source="checkpoint-3", run_dir=run_dir, weights_dir=run_dir / "checkpoints" / "checkpoint-3")
    assert epochs_trained(ckpt) == 0.004


def test_without_events_the_trainer_state_says_it(tmp_path):
    weights = tmp_path / "runs" / "run-2" / "checkpoints" / "checkpoint-7"
    weights.mkdir(parents=True)
    (weights / "trainer_state.json").write_text(json.dumps({"epoch": 0.5, "global_step": 7}), encoding="utf-8")
    trained = SimpleNamespace(source="checkpoint-7", run_dir=tmp_path / "runs" / "run-2", weights_dir=weights)
    assert epochs_trained(trained) == 0.5
    assert epochs_trained(SimpleNamespace(source="final", run_dir=tmp_path / "none", weights_dir=tmp_path)) is None
