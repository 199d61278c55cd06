"""What an evaluation shows as each sample's input: what the model read. A classification head
reads the row's text alone, so the template's prompt ("请判断以下财经新闻的情感倾向…") is not put in
front of a bank's question pairs; a language model reads the prompt, and the report says so."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from data_factory import bank_question_pairs  # noqa: E402
from trained_factory import train_run  # noqa: E402

from workbench.core.labels import LabelChoice  # noqa: E402
from workbench.core.project import SplitSettings, prepare  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402

PROMPT = "请判断以下财经新闻的情感倾向"


@pytest.fixture(scope="module")
def pair_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("pairs")
    project, _ = prepare(TemplateCatalog().get("finance_sentiment"), bank_question_pairs(base / "bank.data", n=120),
                         base / "bank", mapping={"text": "col1+col2", "label": "col3"},
                         labels=LabelChoice(source="data"), split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    return project, train_run(project, "pairs")


def test_a_classifiers_samples_are_the_question_pairs_without_the_prompt(pair_run):
    from workbench.engine.evaluation.evaluate import evaluate_run

    project, run_dir = pair_run
    result = evaluate_run(project.root, run_dir.name)
    assert result["input"] == "fields"
    samples = result["best"] + result["worst"]
    assert samples and all(PROMPT not in s["input"] and s["input"].count("\n") == 1 for s in samples)
    assert json.loads((run_dir / "eval" / "metrics.json").read_text(encoding="utf-8"))["input"] == "fields"
    report = (run_dir / "eval" / "report.html").read_text(encoding="utf-8")
    assert PROMPT not in report
    assert "the template&#x27;s prompt takes no part in it" in report and "<th>text</th>" in report
    first = samples[0]["input"].split("\n")
    assert f"{first[0]}<br>{first[1]}" in report  # the two questions, one a line


def test_a_language_models_samples_say_they_hold_the_templates_prompt(tmp_path):
    from workbench.engine.evaluation.evaluate import evaluate_run

    template = TemplateCatalog().get("finance_service_qa")
    project, _ = prepare(template, template.sample_path, tmp_path / "qa",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    run_dir = train_run(project, "qa", steps=2)
    result = evaluate_run(project.root, run_dir.name, limit=3, max_new_tokens=4)
    assert result["input"] == "prompt"
    report = (run_dir / "eval" / "report.html").read_text(encoding="utf-8")
    assert "template&#x27;s prompt filled with the row&#x27;s fields" in report
    assert "<th>input (template&#x27;s prompt + text)</th>" in report
