"""Multi-label data: list cells and separated tags become label sets; labels counted per label."""

from __future__ import annotations

import json

import pytest

from data_factory import charges_jsonl, sentences_jsonl, tags_csv
from workbench.cli import main as cli_main
from workbench.core import multilabel
from workbench.core.project import Project


def test_split_cell_reads_lists_and_separated_text():
    assert multilabel.split_cell('["盗窃", "诈骗", "盗窃"]') == ["盗窃", "诈骗"]
    assert multilabel.split_cell("外国 公司") == ["外国", "公司"]
    assert multilabel.split_cell("外国、公司；宏观,行业， 金融") == ["外国", "公司", "宏观", "行业", "金融"]
    assert multilabel.split_cell("a|b c", "|") == ["a", "b c"]
    assert multilabel.split_cell("") == [] and multilabel.split_cell(None) == []


def test_gb18030_list_labels_prepare_as_label_sets(tmp_path, capsys):
    root = tmp_path / "p"
    assert cli_main(["data", "prepare", "--template", "legal_case_type", "--input",
                     str(charges_jsonl(tmp_path / "cases.json")), "--project", str(root),
                     "--mapping", "text=fact", "label=meta.accusation", "--labels", "from-data",
                     "--multi-label", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    project = Project.open(root)
    assert project.task.multi_label and project.config.labels.multi_label
    assert set(project.task.labels) == {"盗窃", "故意伤害", "诈骗", "寻衅滋事", "抢劫"}
    rows = [json.loads(line) for s in ("train", "val", "test")
            for line in (root / "data" / f"{s}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 80 and all(isinstance(r["labels"], list) and "label" not in r for r in rows)
    # counted per label: the second charge of a row counts for that label too
    assert summary["stats"]["labels"]["寻衅滋事"] == 20 and summary["stats"]["labels"]["抢劫"] == 4
    assert summary["labels"]["several_labels"]["rows"] == sum(len(r["labels"]) > 1 for r in rows) == 24
    assert summary["labels"]["label_sets"] == len({tuple(r["labels"]) for r in rows})
    # labels in the project's order, whatever order the cell had
    order = project.task.labels
    assert all(r["labels"] == sorted(r["labels"], key=order.index) for r in rows)
    # stratified on each row's rarest label: every label keeps about 80 % of its rows in train
    train = [json.loads(x)["labels"] for x in (root / "data" / "train.jsonl").read_text("utf-8").splitlines()]
    for lab, total in summary["stats"]["labels"].items():
        share = sum(lab in s for s in train) / total
        assert 0.7 <= share <= 0.9 or (total < 10 and share > 0), (lab, share)


def test_separated_tags_label_map_and_min_rows_apply_per_label(tmp_path, capsys):
    src = tags_csv(tmp_path / "news.csv", sep="|")
    root = tmp_path / "p"
    assert cli_main(["data", "prepare", "--template", "finance_sentiment", "--input", str(src), "--project",
                     str(root), "--mapping", "text=新闻", "label=标签", "--labels", "from-data", "--multi-label",
                     "--label-sep", "|", "--label-map", "外国=海外", "--min-label-rows", "10", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    labels = Project.open(root).task.labels
    assert "海外" in labels and "外国" not in labels
    assert summary["stats"]["labels"] == {"行业": 25, "公司": 19, "海外": 19, "金融市场": 19, "宏观": 19}
    # a label under the least rows leaves the sets it was in; its rows stay by their other labels
    assert summary["labels"]["too_few_rows"] == {"港股": 7}
    assert summary["stats"]["rows_clean"] == 70


def test_label_sep_without_multi_label_is_refused(tmp_path, capsys):
    src = tags_csv(tmp_path / "news.csv")
    assert cli_main(["data", "prepare", "--template", "finance_sentiment", "--input", str(src), "--project",
                     str(tmp_path / "p"), "--mapping", "text=新闻", "label=标签", "--label-sep", "|"]) == 2
    assert "--multi-label" in capsys.readouterr().err


def test_single_label_prepare_is_unchanged(tmp_path):
    root = tmp_path / "p"
    assert cli_main(["data", "prepare", "--template", "legal_case_type", "--input",
                     str(charges_jsonl(tmp_path / "cases.json")), "--project", str(root), "--mapping",
                     "text=fact", "label=meta.accusation", "--labels", "from-data", "--several-labels", "first"]) == 0
    row = json.loads((root / "data" / "train.jsonl").read_text("utf-8").splitlines()[0])
    assert isinstance(row["label"], str) and not Project.open(root).task.multi_label


@pytest.mark.parametrize("text", ["外国 公司", "外国,公司"])
def test_default_separator(text):
    assert multilabel.split_cell(text) == ["外国", "公司"]


def test_rows_with_no_label_are_kept_by_default_and_can_be_dropped(tmp_path, capsys):
    src = sentences_jsonl(tmp_path / "divorce.jsonl")
    args = ["data", "prepare", "--template", "legal_case_type_multi", "--input", str(src),
            "--mapping", "text=sentence", "label=labels", "--labels", "from-data", "--json"]
    root = tmp_path / "kept"
    assert cli_main([*args, "--project", str(root)]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    rows = [json.loads(line) for s in ("train", "val", "test")
            for line in (root / "data" / f"{s}.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 90 and sum(not r["labels"] for r in rows) == 60
    assert summary["labels"]["no_label"] == {"rows": 60, "action": "keep"} and summary["stats"]["no_label_rows"] == 60
    assert Project.open(root).task.no_label_rows
    # every split gets rows with no label, as it gets rows of each label
    for s in ("train", "val", "test"):
        split = [json.loads(x)["labels"] for x in (root / "data" / f"{s}.jsonl").read_text("utf-8").splitlines()]
        assert any(not x for x in split) and any(x for x in split), s

    dropped = tmp_path / "dropped"
    assert cli_main([*args, "--project", str(dropped), "--no-label-rows", "drop"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["stats"]["rows_clean"] == 30 and summary["labels"]["no_label"] == {"rows": 60, "action": "drop"}
    assert not Project.open(dropped).task.no_label_rows
    # the choice is the project's: prepared again without the flag, the rows stay dropped
    assert cli_main([*args, "--project", str(dropped)]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["stats"]["rows_clean"] == 30
    # the text summary says what happened to them
    assert cli_main([*args[:-1], "--project", str(root)]) == 0
    assert "60 rows have none of the labels: kept" in capsys.readouterr().out


def test_a_row_that_lost_all_its_labels_is_still_dropped(tmp_path, capsys):
    """Kept are the rows the data gave no label; a row whose labels all fall under the least rows leaves."""
    src = sentences_jsonl(tmp_path / "divorce.jsonl")
    sets = [json.loads(x)["labels"] for x in src.read_text("utf-8").splitlines()]
    counts = {lab: sum(lab in s for s in sets) for s in sets for lab in s}
    rare = {lab for lab, n in counts.items() if n < 8}
    assert rare and len(rare) < len(counts)  # the data has both kinds
    lost = sum(bool(s) and set(s) <= rare for s in sets)
    root = tmp_path / "p"
    assert cli_main(["data", "prepare", "--template", "legal_case_type_multi", "--input", str(src), "--project",
                     str(root), "--mapping", "text=sentence", "label=labels", "--labels", "from-data",
                     "--min-label-rows", "8", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert set(summary["labels"]["too_few_rows"]) == rare
    assert lost and summary["stats"]["rows_clean"] == 90 - lost and summary["stats"]["no_label_rows"] == 60
