"""Labels from the data: the label table, its operations, and `data prepare --labels ...`."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from data_factory import DEPARTMENTS, hospital_export
from workbench.core.errors import DataError
from workbench.core.labels import LabelChoice, LabelTable, default_min_rows, parse_code_map, parse_label_list
from workbench.core.mapping import parse_mapping_args
from workbench.core.project import Project, prepare
from workbench.core.templates import TemplateCatalog

CATALOG = TemplateCatalog()
TRIAGE = CATALOG.get("medical_triage")


def test_label_table_from_data_groups_spellings_and_operations_edit_the_choice():
    counts = {"肝病科": 10, "消化科": 6, "消化科 ": 2, "ＸＨ": 1, "心血管科": 5, "0": 3}
    table = LabelTable(counts, TRIAGE.labels, TRIAGE.label_aliases)
    assert table.mismatch and table.unknown_rows == table.rows == 27
    assert "--labels from-data" in table.mismatch_message()
    table.use_found()
    assert not table.mismatch and table.unknown_rows == 0
    # "消化科 " is the same label under the loose comparison, not a second one
    assert table.labels == ["肝病科", "消化科", "心血管科", "0", "XH"]
    assert table.label_rows["消化科"] == 8
    # codes get names, a rename keeps the old spelling as an alias, a merge too
    table.name_codes({"0": "肝病科"})
    assert "0" not in table.labels and table.label_rows["肝病科"] == 13
    table.rename("心血管科", "心内科")
    assert "心内科" in table.labels and "心血管科" in table.aliases["心内科"]
    kinds = {v.value: (v.label, v.kind) for v in table.values}
    assert kinds["心血管科"] == ("心内科", "alias") and kinds["肝病科"] == ("肝病科", "label")
    table.merge(["XH"], into="消化科")
    assert "XH" not in table.labels and "XH" in table.aliases["消化科"] and table.label_rows["消化科"] == 9
    table.exclude("心内科")
    assert table.kept == ["肝病科", "消化科"] and table.excluded == ["心内科"]
    assert table.below(10) == ["消化科"]
    table.exclude("心内科", False)
    assert table.kept == ["肝病科", "消化科", "心内科"]
    # the choice is small and round-trips through project.json
    again = LabelTable(counts, TRIAGE.labels, TRIAGE.label_aliases, LabelChoice.model_validate_json(
        table.choice.model_dump_json()))
    assert again.labels == table.labels and again.aliases == table.aliases
    with pytest.raises(DataError, match="not a label"):
        table.rename("外科", "x")


def test_flag_parsers():
    assert parse_label_list("正面, 负面，中性") == ["正面", "负面", "中性"]
    with pytest.raises(DataError, match="fewer than two"):
        parse_label_list("正面")
    assert parse_code_map(["0=负面,1=中性", "2=正面"]) == {"0": "负面", "1": "中性", "2": "正面"}
    with pytest.raises(DataError, match="CODE=NAME"):
        parse_code_map(["0负面"])
    # docs/cli.md's form: the flag repeated, and several pairs in one
    assert parse_mapping_args(["instruction=ask", "output=answer"]) == {"instruction": "ask", "output": "answer"}
    assert parse_mapping_args(["instruction=ask,output=answer"]) == {"instruction": "ask", "output": "answer"}
    assert parse_mapping_args(["text=a,b"]) == {"text": "a,b"}  # a comma inside a column name
    assert default_min_rows((0.8, 0.1, 0.1)) == 3 and default_min_rows((0.9, 0.1, 0.0)) == 2


def test_prepare_an_export_whose_labels_share_none_with_the_template(tmp_path):
    src = hospital_export(tmp_path / "export.csv")
    mapping = {"text": "主诉内容", "label": "科别"}
    with pytest.raises(DataError, match="--labels from-data") as err:
        prepare(TRIAGE, src, tmp_path / "p", mapping=mapping)
    assert "肝病科" in str(err.value)
    assert not (tmp_path / "p" / "project.json").exists()

    project, summary = prepare(TRIAGE, src, tmp_path / "p", mapping={"text": "主诉内容", "label": "科别"},
                               labels=LabelChoice(source="data"))
    task = project.task
    assert set(task.labels) == set(DEPARTMENTS) and len(task.labels) == 11
    assert "消化 科" in task.label_aliases["消化科"]  # three spellings, one label
    assert summary["labels"]["source"] == "data" and summary["stats"]["labels"]["消化科"] > 0
    assert "（" + "/".join(task.labels) + "）" in task.user_format  # {labels} is the project's
    records = [json.loads(x) for x in project.split_path("train").read_text(encoding="utf-8").splitlines()]
    assert {r["label"] for r in records} <= set(DEPARTMENTS)
    # 3 rows reach every split by default; asking for 4 drops that label and says so
    again, summary = prepare(TRIAGE, src, tmp_path / "p", labels=project.config.labels.model_copy(
        update={"min_rows": 4}))
    assert "老年病科" not in again.task.labels and summary["labels"]["too_few_rows"] == {"老年病科": 3}
    # a re-prepare without a label choice keeps the project's own
    third, _ = prepare(TRIAGE, src, tmp_path / "p")
    assert third.config.labels.min_rows == 4 and "老年病科" not in third.task.labels


def test_prepare_merges_three_spellings_and_excludes_a_label(tmp_path):
    src = hospital_export(tmp_path / "export.csv", spellings=("消化科", "消化内科", "胃肠科"))
    choice = LabelChoice(source="data", merges={"消化内科": "消化科", "胃肠科": "消化科"}, excluded=["感染科"])
    project, summary = prepare(TRIAGE, src, tmp_path / "p", labels=choice, mapping={"text": "主诉内容", "label": "科别"})
    assert "消化内科" not in project.task.labels and "胃肠科" not in project.task.labels
    assert set(project.task.label_aliases["消化科"]) >= {"消化内科", "胃肠科"}
    assert summary["labels"]["excluded"] == {"感染科": 14}
    assert "感染科" not in project.task.labels
    text = "".join(project.split_path(s).read_text(encoding="utf-8") for s in ("train", "val", "test"))
    assert "消化内科" not in text and "感染科\"" not in text and text.count('"label":"消化科"') == 14


def wb(*args):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_cli_labels_from_data_and_codes(tmp_path):
    src = hospital_export(tmp_path / "export.csv")
    r = wb("data", "prepare", "--template", "medical_triage", "--input", src, "--project", tmp_path / "p",
           "--mapping", "text=主诉内容", "--mapping", "label=科别")
    assert r.returncode == 2 and "--labels from-data" in r.stderr and "Traceback" not in r.stderr
    r = wb("data", "prepare", "--template", "medical_triage", "--input", src, "--project", tmp_path / "p",
           "--mapping", "text=主诉内容", "label=科别", "--labels", "from-data", "--min-label-rows", "4", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["labels"]["source"] == "data" and len(out["labels"]["labels"]) == 10
    assert out["labels"]["too_few_rows"] == {"老年病科": 3}
    r = wb("data", "prepare", "--template", "medical_triage", "--input", src, "--project", tmp_path / "p",
           "--labels", "肝病科,心血管科")
    assert r.returncode == 0, r.stderr
    assert "label set  2 labels, listed" in r.stdout and "rows outside the label set" in r.stdout
    assert Project.open(tmp_path / "p").task.labels == ["肝病科", "心血管科"]

    codes = tmp_path / "codes.csv"
    pd.DataFrame({"text": [f"这只股票今天{'大涨' if i % 2 else '大跌'}了第{i}次" for i in range(40)],
                  "label": [i % 2 for i in range(40)]}).to_csv(codes, index=False)
    r = wb("data", "prepare", "--template", "finance_sentiment", "--input", codes, "--project", tmp_path / "c",
           "--labels", "from-data", "--label-map", "0=负面,1=正面", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["labels"]["labels"] == ["负面", "正面"]
    rec = json.loads((tmp_path / "c" / "data" / "train.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert rec["label"] in ("负面", "正面")


def test_a_project_from_before_keeps_the_labels_typed_into_its_label_step(tmp_path):
    """Before projects owned their labels, users typed their own into the label step."""
    src = hospital_export(tmp_path / "export.csv")
    mapping = {"text": "主诉内容", "label": "科别"}
    project, _ = prepare(TRIAGE, src, tmp_path / "p", mapping=mapping, labels=LabelChoice(source="data"))
    raw = json.loads((project.root / "project.json").read_text(encoding="utf-8"))
    del raw["task"], raw["labels"]
    step = next(s for s in raw["recipe"]["steps"] if s["op"] == "normalize_labels")
    step["params"] = {"column": "label", "labels": ["肝病科", "心血管科", "消化科"],
                      "aliases": {"消化科": ["消化 科"]}, "drop_unknown": True}
    (project.root / "project.json").write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    again, summary = prepare(TRIAGE, src, tmp_path / "p")
    assert again.task.labels == ["肝病科", "心血管科", "消化科"]
    assert again.config.labels.source == "list" and "消化 科" in again.task.label_aliases["消化科"]
