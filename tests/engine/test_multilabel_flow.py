"""A multi-label project for real: prepare -> a short built-in run -> eval -> export -> predict.py."""

from __future__ import annotations

import csv
import json

import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from data_factory import charges_jsonl, tags_csv  # noqa: E402
from test_own_labels_flow import _isolated, _train  # noqa: E402

from workbench.cli import main as cli_main  # noqa: E402
from workbench.core.project import Project  # noqa: E402
from workbench.engine import scoring  # noqa: E402


def test_multi_label_metrics_and_threshold():
    labels = ["a", "b", "c"]
    truth = [["a"], ["a", "b"], ["c"], ["b"]]
    r = scoring.multi_label_report(truth, [["a"], ["a"], ["c"], ["b", "c"]], labels)
    assert r["subset_accuracy"] == 0.5
    assert r["hamming_loss"] == pytest.approx(2 / 12)
    assert r["per_class"]["b"] == {"precision": 1.0, "recall": 0.5, "f1": pytest.approx(2 / 3), "support": 2}
    assert r["micro_f1"] == pytest.approx(2 * 4 / (2 * 4 + 1 + 1))
    probs = [[0.9, 0.1, 0.1], [0.8, 0.35, 0.1], [0.1, 0.1, 0.7], [0.2, 0.4, 0.3]]
    th, f1 = scoring.tune_threshold(truth, probs, labels)
    assert th <= 0.35 and f1 == 1.0  # 0.5 would miss b on rows 2 and 4
    pairs = scoring.confused_label_pairs([["a", "b"], ["c"], ["a"], ["a"]], [["a", "c"], ["b"], ["c"], ["c"]])
    assert pairs[0] == {"true": "a", "predicted": "c", "kind": "instead", "rows": 2}
    assert {(p["true"], p["predicted"], p["rows"]) for p in pairs if p["kind"] == "instead"} == \
        {("a", "c", 2), ("b", "c", 1), ("c", "b", 1)}
    # row 1 had a right: c came along with it
    assert [p for p in pairs if p["kind"] == "along"] == [{"true": "a", "predicted": "c", "kind": "along", "rows": 1}]
    # a row clearing no threshold keeps its most probable label, unless "no label" is an answer
    assert scoring.label_sets_from_probabilities([[0.2, 0.4, 0.3]], labels, 0.9) == [["b"]]
    assert scoring.label_sets_from_probabilities([[0.2, 0.4, 0.3]], labels, 0.9, allow_empty=True) == [[]]


def test_rows_with_no_label_count_in_micro_f1_and_subset_accuracy():
    labels = ["a", "b"]
    truth = [["a"], [], [], ["b"]]
    right = scoring.multi_label_report(truth, [["a"], [], [], ["b"]], labels)
    assert right["subset_accuracy"] == 1.0 and right["micro_f1"] == 1.0
    # a label given to a row that has none is a false positive and a wrong set
    wrong = scoring.multi_label_report(truth, [["a"], ["a"], [], ["b"]], labels)
    assert wrong["subset_accuracy"] == 0.75 and wrong["micro_f1"] == pytest.approx(2 * 2 / (2 * 2 + 1))
    # tuning with empty answers allowed keeps the threshold that leaves those rows empty
    probs = [[0.9, 0.1], [0.3, 0.2], [0.2, 0.3], [0.1, 0.8]]
    assert scoring.tune_threshold(truth, probs, labels, allow_empty=True) == (0.5, 1.0)
    assert scoring.tune_threshold(truth, probs, labels)[1] < 1.0


CASES = {
    "charges": dict(template="legal_case_type", make=lambda p: charges_jsonl(p / "cases.json", n=100),
                    args=["--mapping", "text=fact", "label=meta.accusation"], column="fact",
                    text="被告人王×于2016年实施了盗窃、寻衅滋事行为"),
    "tags": dict(template="finance_sentiment", make=lambda p: tags_csv(p / "news.csv", n=90),
                 args=["--mapping", "text=新闻", "label=标签"], column="新闻", text="外国、公司相关消息"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", ["charges", "tags"])
def test_multi_label_from_prepare_to_predict(tmp_path, capsys, case):
    c = CASES[case]
    root = tmp_path / "project"
    assert cli_main(["data", "prepare", "--template", c["template"], "--input", str(c["make"](tmp_path)),
                     "--project", str(root), *c["args"], "--labels", "from-data", "--multi-label", "--json"]) == 0
    capsys.readouterr()
    project = Project.open(root)
    labels = project.task.labels
    run = _train(project, steps=12)
    events = [json.loads(x) for x in (project.runs_dir / run / "events.jsonl").read_text("utf-8").splitlines()]
    evals = [e for e in events if e["event"] == "eval"]
    assert evals and {"micro_f1", "macro_f1", "subset_accuracy"} <= set(evals[-1]["metrics"])
    assert "perplexity" not in evals[-1]["metrics"]

    assert cli_main(["eval", "--project", str(root), "--run", run, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    m = result["metrics"]
    assert m["multi_label"] and m["labels"] == labels and set(m["per_class"]) == set(labels)
    assert "confusion" not in m and "perplexity" not in m
    assert m["threshold_tuning"]["tuned_on"] == "val" and m["threshold"] in scoring.THRESHOLD_GRID
    for k in ("micro_f1", "macro_f1", "subset_accuracy", "hamming_loss"):
        assert 0.0 <= m[k] <= 1.0
    assert result["baseline"]["kind"] == "char_tfidf_logreg_ovr" and 0 <= result["baseline"]["micro_f1"] <= 1
    assert result["baseline"]["comparison"]["metric"] == "macro_f1"
    # "beats" only outside the noise: the difference's bootstrap interval over the same rows
    metrics_path = root / "runs" / run / "eval" / "metrics.json"
    stored = json.loads(metrics_path.read_text("utf-8"))
    interval = stored["baseline"]["comparison"].pop("interval")
    assert interval["rows"] == result["rows"] and interval["low"] <= interval["high"]
    assert result["baseline"]["comparison"]["beats"] == (interval["low"] > 0
                                                         and result["baseline"]["comparison"]["difference"] >= 0.0005)
    metrics_path.write_text(json.dumps(stored, ensure_ascii=False), encoding="utf-8")  # as stored before it existed
    assert result["baseline"]["cached"] is True  # fitted by the worker while the network trained
    with open(root / "runs" / run / "eval" / "predictions.csv", encoding="utf-8-sig") as fh:
        pred_rows = list(csv.DictReader(fh))
    assert all(set(r["prediction"].split(" | ")) <= set(labels) for r in pred_rows)
    assert "micro-F1" in (root / "runs" / run / "eval" / "report.html").read_text("utf-8")
    assert all(p["true"] in labels and p["predicted"] in labels for p in m["confused_pairs"])

    out = tmp_path / "bundle"
    assert cli_main(["export", "--project", str(root), "--run", run, "--out", str(out), "--formats", "static",
                     "--json"]) == 0
    res = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert res["predict_script"]["same_as_engine"] == res["predict_script"]["rows"]
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    card = (out / "README.md").read_text(encoding="utf-8")  # the interval found again from predictions.csv
    assert f"bootstrap interval of the difference over the {result['rows']} rows" in card
    assert f"{interval['low']:+.3f} to {interval['high']:+.3f}" in card
    assert bundle["multi_label"] and bundle["threshold"] == m["threshold"] and bundle["labels"] == labels
    assert bundle["checks"]["static"]["engine_label_agreement"] == 1.0

    # predict.py answers with a list of labels and each label's own probability
    r = _isolated(["predict.py", "--json", c["text"]], cwd=out)
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout.strip().splitlines()[-1])
    assert isinstance(answer["labels"], list) and answer["labels"] and set(answer["labels"]) <= set(labels)
    probs = answer["probabilities"]
    assert set(probs) == set(labels)
    # sigmoids, not a softmax: the given labels are those at or above the threshold
    above = [lab for lab in labels if probs[lab] >= bundle["threshold"]]
    assert answer["labels"] == (above or [max(probs, key=probs.get)])
    csv_in, csv_out = tmp_path / "new.csv", tmp_path / "pred.csv"
    with open(csv_in, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([c["column"]])
        w.writerow([c["text"]])
    r = _isolated(["predict.py", "--input", str(csv_in), "--output", str(csv_out)], cwd=out)
    assert r.returncode == 0, r.stderr
    with open(csv_out, encoding="utf-8-sig", newline="") as fh:
        row = list(csv.DictReader(fh))[0]
    assert row["prediction"].split(scoring.LABEL_SET_JOINER) == answer["labels"]
    assert {f"p_{lab}" for lab in labels} <= set(row)

    # workbench predict on the same file: the same label set, every label's probability
    pred_out = tmp_path / "workbench_pred.csv"
    assert cli_main(["predict", "--project", str(root), "--run", run, "--input", str(csv_in), "--output",
                     str(pred_out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    with open(pred_out, encoding="utf-8-sig", newline="") as fh:
        wrow = list(csv.DictReader(fh))[0]
    assert wrow["prediction"] == row["prediction"]
    assert all(abs(float(wrow[f"p_{lab}"]) - probs[lab]) < 1e-4 for lab in labels)
    assert summary["labels"] == {lab: int(lab in answer["labels"]) for lab in labels}

    # serve.py on 127.0.0.1 answers with the same list of labels
    from test_serve import Service

    with Service(out) as svc:
        status, health = svc.json("GET", "/health")
        assert status == 200 and health["multi_label"] is True
        status, body = svc.json("POST", "/predict", {"inputs": [c["text"]]})
        assert status == 200
        got = body["predictions"][0]
        assert got["labels"] == answer["labels"] and "label" not in got
        assert all(abs(got["probabilities"][lab] - probs[lab]) < 1e-5 for lab in labels)


@pytest.mark.slow  # prepare, train, evaluate and export for real: `make test-slow`
def test_a_project_with_no_label_rows_trains_evaluates_and_exports(tmp_path, capsys):
    from data_factory import sentences_jsonl

    root = tmp_path / "project"
    assert cli_main(["data", "prepare", "--template", "legal_case_type_multi", "--input",
                     str(sentences_jsonl(tmp_path / "divorce.jsonl", n=120)), "--project", str(root),
                     "--mapping", "text=sentence", "label=labels", "--labels", "from-data", "--json"]) == 0
    capsys.readouterr()
    project = Project.open(root)
    assert project.task.no_label_rows
    run = _train(project, steps=8)
    assert cli_main(["eval", "--project", str(root), "--run", run, "--json"]) == 0
    result = json.loads(capsys.readouterr().out.splitlines()[-1])
    m = result["metrics"]
    test = [json.loads(x)["labels"] for x in (root / "data" / "test.jsonl").read_text("utf-8").splitlines()]
    with open(root / "runs" / run / "eval" / "predictions.csv", encoding="utf-8-sig") as fh:
        preds = [[x for x in r["prediction"].split(scoring.LABEL_SET_JOINER) if x] for r in csv.DictReader(fh)]
    # the rows with no label are scored: the figures are those of every test row, empty sets included
    assert len(preds) == len(test) and any(not t for t in test)
    again = scoring.multi_label_report(test, preds, project.task.labels)
    assert m["subset_accuracy"] == pytest.approx(again["subset_accuracy"])
    assert m["micro_f1"] == pytest.approx(again["micro_f1"])
    # the bundle knows "no label" is an answer
    out = tmp_path / "bundle"
    assert cli_main(["export", "--project", str(root), "--run", run, "--out", str(out), "--formats", "static",
                     "--json"]) == 0
    res = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert res["predict_script"]["same_as_engine"] == res["predict_script"]["rows"]
    assert json.loads((out / "bundle.json").read_text("utf-8"))["no_label_rows"] is True
