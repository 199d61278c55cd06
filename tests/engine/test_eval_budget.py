"""A pretrained decoder's validation scoring keeps within the run's time budget: it reports its
progress and, when the budget ends, scores the rows it reached and says so (it once ran a
15-minute run of Gemma to 35 minutes, silently)."""

from __future__ import annotations

import json
import time

import pytest

from model_factory import make_model_folder
from trained_factory import train_run
from workbench.core.project import prepare
from workbench.core.runs import read_events
from workbench.core.templates import TemplateCatalog

pytest.importorskip("paddle")
pytestmark = pytest.mark.slow


def test_label_scoring_ends_with_the_budget_and_says_how_many_rows_it_scored(tmp_path, monkeypatch):
    from workbench.engine import examples

    t = TemplateCatalog().get("finance_sentiment")
    project, _ = prepare(t, t.sample_path, tmp_path / "news")
    base = make_model_folder("llama", tmp_path / "llama")
    real = examples.classify

    def slow(model, tokenizer, prompts, *args, **kwargs):  # a large model on a CPU: a fraction of a second a row
        time.sleep(0.25 * len(prompts))
        return real(model, tokenizer, prompts, *args, **kwargs)

    monkeypatch.setattr(examples, "classify", slow)
    budget = 40.0
    run_dir = train_run(project, "run-budget", steps=100000, base_model=str(base), method="lora",
                        learning_rate=1e-3, eval_steps=100000, save_steps=100000, time_budget_s=budget)
    events = read_events(run_dir)
    sampled = [e for e in events if e.get("code") == "eval_sampled"]
    assert sampled and 0 < sampled[0]["done"] < sampled[0]["total"], [e.get("code") for e in events]
    assert any(e.get("code") == "eval_progress" for e in events) or sampled[0]["done"] <= 8
    took = json.loads((run_dir / "timing.json").read_text())["actual_s"]
    assert took <= 1.1 * budget + 2, took  # the budget, its 10 %, and the final save
