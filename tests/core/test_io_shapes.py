"""Real JSON shapes: nested objects, rows without names, wrapped records, list cells, GB18030."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from data_factory import CHARGES, cail_like, coded_rows
from workbench.core.dataio import inspect_file, read_table
from workbench.core.labels import LabelChoice
from workbench.core.project import prepare
from workbench.core.templates import TemplateCatalog

CATALOG = TemplateCatalog()


def test_nested_jsonl_in_gb18030_is_flattened_with_list_columns(tmp_path):
    for one_line in (True, False):
        df, info = read_table(cail_like(tmp_path / f"cases{one_line}.json", one_line=one_line))
        assert info.encoding == "gb18030"
        assert list(df.columns) == ["fact", "meta.relevant_articles", "meta.accusation", "meta.punish_of_money",
                                    "meta.criminals", "meta.term_of_imprisonment.death_penalty",
                                    "meta.term_of_imprisonment.imprisonment"]
        # the same names pandas.json_normalize gives
        recs = [json.loads(x) for x in (tmp_path / f"cases{one_line}.json").read_bytes().decode("gb18030")
                .split("\n") if x.strip()] if one_line else None
        if recs:
            assert list(pd.json_normalize(recs, sep=".").columns) == list(df.columns)
        assert set(info.list_columns) == {"meta.relevant_articles", "meta.accusation", "meta.criminals"}
        assert json.loads(df.loc[1, "meta.accusation"]) == ["故意伤害"]
        assert df.loc[1, "meta.punish_of_money"] == "100"  # an integer stays its text


def test_inspect_shows_kinds_and_the_values_of_a_label_column(tmp_path):
    info = inspect_file(cail_like(tmp_path / "cases.json"))
    assert info.kinds["fact"] == "text" and info.kinds["meta.accusation"] == "list"
    assert info.kinds["meta.punish_of_money"] == "number"
    assert info.values["meta.accusation"]["盗窃"] == 12 and info.values["meta.accusation"]["寻衅滋事"] == 4
    assert "fact" not in info.values
    r = subprocess.run([sys.executable, "-m", "workbench", "data", "inspect", str(tmp_path / "cases.json")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if "meta.accusation" in x and "list" in x)
    assert "盗窃 12" in line


@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("pretty", [False, True])
def test_array_of_rows_gives_numbered_columns(tmp_path, wrap, pretty):
    df, info = read_table(coded_rows(tmp_path / "rows.json", wrap=wrap, pretty=pretty))
    assert list(df.columns) == ["col1", "col2"] and len(df) == 60
    assert df.loc[0, "col2"] == "0" and df.loc[2, "col2"] == "2"
    assert any("col1" in n for n in info.notes)
    assert any("wrapped" in n for n in info.notes) == wrap


def test_one_element_lists_of_records_are_unwrapped(tmp_path):
    path = tmp_path / "wrapped.json"
    path.write_text(json.dumps([[{"q": "能根治吗", "a": "可以手术"}], [{"q": "要住院吗", "a": "不用"}]],
                               ensure_ascii=False), encoding="utf-8")
    df, _ = read_table(path)
    assert list(df.columns) == ["q", "a"] and df.loc[1, "q"] == "要住院吗"


def test_list_label_cells_one_several_and_text_lists(tmp_path):
    src = cail_like(tmp_path / "cases.json")
    t = CATALOG.get("legal_case_type")
    mapping = {"text": "fact", "label": "meta.accusation"}
    project, summary = prepare(t, src, tmp_path / "p", mapping=mapping, labels=LabelChoice(source="data"))
    assert summary["labels"]["several_labels"] == {"rows": 4, "action": "drop"}
    assert set(project.task.labels) == set(CHARGES)
    assert summary["stats"]["rows_clean"] == 44
    first, summary = prepare(t, src, tmp_path / "q", mapping=mapping,
                             labels=LabelChoice(source="data", several="first"))
    assert summary["stats"]["rows_clean"] == 48 and "寻衅滋事" not in first.task.labels
    # a text role mapped to a list column gets its elements on separate lines
    src2 = tmp_path / "qa.jsonl"
    src2.write_text("\n".join(json.dumps({"q": f"问题{i}：能根治吗", "a": [f"第一句{i}", "第二句"]}, ensure_ascii=False)
                              for i in range(30)), encoding="utf-8")
    qa, _ = prepare(CATALOG.get("medical_qa"), src2, tmp_path / "qa", mapping={"instruction": "q", "output": "a"})
    rec = json.loads(qa.split_path("train").read_text(encoding="utf-8").splitlines()[0])
    assert rec["output"].endswith("\n第二句") and rec["output"].startswith("第一句")
