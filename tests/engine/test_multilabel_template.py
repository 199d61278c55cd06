"""The multi-label case-type template: its sample prepares with several charges per case by
default, trains the built-in classifier and evaluates with the label-set figures."""

from __future__ import annotations

import json

import pytest

from workbench.cli import main as cli_main
from workbench.core.project import Project
from workbench.core.templates import TemplateCatalog

TID = "legal_case_type_multi"


def _prepare(tmp_path, capsys, *flags) -> tuple[Project, dict]:
    sample = TemplateCatalog().get(TID).sample_path
    root = tmp_path / "project"
    assert cli_main(["data", "prepare", "--template", TID, "--input", str(sample), "--project", str(root),
                     *flags, "--json"]) == 0
    return Project.open(root), json.loads(capsys.readouterr().out.splitlines()[-1])


def test_the_sample_prepares_multi_label_without_a_flag(tmp_path, capsys):
    project, summary = _prepare(tmp_path, capsys)
    template = TemplateCatalog().get(TID)
    assert project.task.multi_label and project.config.labels.multi_label
    assert project.config.labels.separator == ";"
    assert project.task.labels == template.labels  # every charge has enough rows
    rows = [json.loads(x) for s in ("train", "val", "test")
            for x in project.split_path(s).read_text(encoding="utf-8").splitlines()]
    assert all(isinstance(r["labels"], list) for r in rows)
    # the sample's 12 cases with a blank charge cell are kept as rows with none of the labels
    # (those cleaning keeps: duplicates and near-duplicates go)
    empty = [r for r in rows if not r["labels"]]
    assert 0 < len(empty) <= 12
    several = [r["labels"] for r in rows if len(r["labels"]) > 1]
    assert 0.08 <= len(several) / len(rows) <= 0.15
    # the charge whose name holds 、 stays one label (the template's separator is ";")
    long_name = next(lab for lab in template.labels if "、" in lab)
    assert summary["stats"]["labels"][long_name] >= 30
    assert ["故意伤害罪", "寻衅滋事罪"] in several
    # aliases (盗窃, fraud, 醉驾) are counted under their charge: the charges keep their rows
    assert summary["labels"]["several_labels"]["rows"] == len(several)
    # every charge reaches the test split (the split is stratified by each row's rarest label)
    test_labels = {lab for x in project.split_path("test").read_text("utf-8").splitlines()
                   for lab in json.loads(x)["labels"]}
    assert test_labels == set(template.labels)


def test_the_flags_still_decide(tmp_path, capsys):
    # single-label on request: a cell with several charges is no one label; its rows are counted out
    project, summary = _prepare(tmp_path, capsys, "--no-multi-label")
    assert not project.task.multi_label and summary["stats"]["rows_clean"] < 800
    assert summary["labels"]["unknown"]["故意伤害罪;寻衅滋事罪"] >= 5
    # the template is multi-label, so --label-sep alone is accepted and replaces its separator
    project, _ = _prepare(tmp_path / "b", capsys, "--label-sep", "、")
    assert project.task.multi_label and project.config.labels.separator == "、"
    # cut on 、, the long charge's name falls apart into values outside the label set
    assert "掩饰、隐瞒犯罪所得、犯罪所得收益罪" not in project.task.labels


def test_the_sample_trains_and_evaluates_with_the_label_set_figures(tmp_path, capsys):
    pytest.importorskip("paddle")
    pytest.importorskip("paddleformers")
    from test_own_labels_flow import _train

    project, _ = _prepare(tmp_path, capsys)
    run = _train(project, steps=12)
    events = [json.loads(x) for x in (project.runs_dir / run / "events.jsonl").read_text("utf-8").splitlines()]
    evals = [e for e in events if e["event"] == "eval"]
    assert evals and {"micro_f1", "macro_f1", "subset_accuracy"} <= set(evals[-1]["metrics"])
    assert cli_main(["eval", "--project", str(project.root), "--run", run, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    m = result["metrics"]
    assert m["multi_label"] and "confusion" not in m and set(m["per_class"]) == set(project.task.labels)
    assert sum(d["support"] for d in m["per_class"].values()) > m["support"]  # some rows hold several
    for k in ("micro_f1", "macro_f1", "subset_accuracy", "hamming_loss"):
        assert 0.0 <= m[k] <= 1.0
    assert m["threshold_tuning"]["tuned_on"] == "val"
    assert result["baseline"]["kind"] == "char_tfidf_logreg_ovr"
    # the pairs eval writes are the rows' own: every pair's rows recounted from predictions.csv
    import csv

    from workbench.engine.scoring import LABEL_SET_JOINER

    with open(project.runs_dir / run / "eval" / "predictions.csv", encoding="utf-8-sig") as fh:
        pred = [(r["reference"].split(LABEL_SET_JOINER), r["prediction"].split(LABEL_SET_JOINER))
                for r in csv.DictReader(fh)]
    from collections import Counter

    # every (true, predicted, kind) the rows hold; the model may be good enough to make no mistake
    found = Counter((a, b, "along" if a in g else "instead") for t, g in pred for a in t if a
                    for b in g if b and b not in t)
    assert bool(m["confused_pairs"]) == bool(found)
    assert {(p["true"], p["predicted"], p["kind"]) for p in m["confused_pairs"]} <= set(found)
    for p in m["confused_pairs"]:
        a, b = p["true"], p["predicted"]
        rows = sum(a in t and b in g and b not in t and ((a in g) == (p["kind"] == "along")) for t, g in pred)
        assert rows == p["rows"], p
    report = (project.runs_dir / run / "eval" / "report.html").read_text("utf-8")
    assert "precision, recall and F1 per label" in report and "Most confused labels" in report
    assert "confusion matrix" not in report


def test_a_pretrained_model_writing_label_text_is_refused_before_any_run_starts(tmp_path, capsys):
    project, _ = _prepare(tmp_path, capsys)
    folder = tmp_path / "my-ernie"
    folder.mkdir()
    # a classification head learns several labels per row (tests/engine/test_decoder_head.py); a model
    # writing its label's name does not
    assert cli_main(["train", "--project", str(project.root), "--base-model", str(folder),
                     "--classify-by", "label-text"]) == 2
    err = capsys.readouterr().err
    assert "several labels per row" in err and "classification head" in err and str(folder) in err
    assert "Traceback" not in err
    assert not project.runs_dir.exists() or not any(project.runs_dir.iterdir())  # no run folder left behind
