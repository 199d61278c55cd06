"""Files as they come: no header line, JSON Lines of documents, quoted labels, columns whose
names say nothing, and the text read from two columns."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import openpyxl
import pandas as pd
import pytest

from workbench.core.column_guess import guess_columns, guess_missing
from workbench.core.dataio import inspect_file, read_table
from workbench.core.errors import DataError
from workbench.core.io.header import sniff_header
from workbench.core.mapping import check_mapping, mapped_columns, mapped_values
from workbench.core.operations.predict import input_mapping
from workbench.core.project import Project, prepare
from workbench.core.templates import TemplateCatalog

CATALOG = TemplateCatalog()

EVENTS = [
    ("1", "某公司因资金链断裂向法院申请破产清算", "破产清算"),
    ("2", "某化工厂发生爆炸事故造成三人死亡多人受伤", "重大安全事故"),
    ("3", "某上市公司董事长因涉嫌内幕交易被立案调查", "高层被调查"),
    ("4", "某银行副行长涉嫌受贿被纪委带走调查", "高层被调查"),
    ("5", "某地产公司债务违约后进入破产重整程序", "破产清算"),
    ("6", "某煤矿发生透水事故十余名矿工被困井下", "重大安全事故"),
    ("7", "某集团总裁被警方带走协助调查", "高层被调查"),
    ("8", "某钢铁厂高炉发生泄漏造成人员伤亡", "重大安全事故"),
    ("9", "某科技公司资不抵债宣告破产", "破产清算"),
]


def wb(*args):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def write_csv(path, rows, header=None):
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        if header:
            w.writerow(header)
        w.writerows(rows)
    return path


# ----- no header line ---------------------------------------------------------------------


def test_a_csv_without_a_header_keeps_its_first_row_and_names_columns_col1_to_colN(tmp_path):
    path = write_csv(tmp_path / "events.csv", EVENTS)
    df, info = read_table(path)
    assert list(df.columns) == ["col1", "col2", "col3"]
    assert len(df) == len(EVENTS) and df.iloc[0].tolist() == list(EVENTS[0])
    assert info.header is False
    assert any("col1 … col3" in n for n in info.notes) and set(info.coded_notes) == {"no_header"}


def test_a_header_above_free_text_and_labels_of_varying_length_stays_a_header(tmp_path):
    # csv.Sniffer.has_header votes only on numeric and fixed-length columns: it takes this
    # header for data, which is why the reader has its own sniffer
    rows = [r[1:] for r in EVENTS]
    path = write_csv(tmp_path / "with_header.csv", rows, header=["text", "event_type"])
    sample = path.read_text(encoding="utf-8")
    assert csv.Sniffer().has_header(sample) is False
    df, info = read_table(path)
    assert list(df.columns) == ["text", "event_type"] and len(df) == len(rows) and info.header is True
    assert sniff_header([["标题", "正/负面"], ["股价大涨创历史新高", "正面"], ["公司亏损扩大", "负面"],
                         ["业绩大幅超出预期", "正面"], ["董事长被调查", "负面"]])


@pytest.mark.parametrize("template_id", [t.id for t in CATALOG])
def test_every_sample_file_with_and_without_its_header_line(tmp_path, template_id):
    sample = CATALOG.get(template_id).sample_path
    lines = sample.read_bytes().splitlines(keepends=True)  # some are GB18030
    df, info = read_table(sample)
    assert info.header is True
    headless = tmp_path / "headless.csv"
    headless.write_bytes(b"".join(lines[1:]))
    df2, info2 = read_table(headless)
    assert info2.header is False and list(df2.columns) == [f"col{i}" for i in range(1, df.shape[1] + 1)]
    assert df2.to_numpy().tolist() == df.to_numpy().tolist()


def test_the_header_choice_overrides_the_sniffer_in_csv_and_excel(tmp_path):
    path = write_csv(tmp_path / "events.csv", EVENTS)
    df, info = read_table(path, header=True)
    assert list(df.columns) == list(EVENTS[0]) and len(df) == len(EVENTS) - 1 and info.header is True
    header_path = write_csv(tmp_path / "named.csv", EVENTS, header=["id", "text", "event_type"])
    df, _ = read_table(header_path, header=False)
    assert df.iloc[0].tolist() == ["id", "text", "event_type"] and list(df.columns) == ["col1", "col2", "col3"]
    book = openpyxl.Workbook()
    for row in EVENTS:
        book.active.append([int(row[0]), row[1], row[2]])
    book.save(tmp_path / "events.xlsx")
    df, info = read_table(tmp_path / "events.xlsx")
    assert list(df.columns) == ["col1", "col2", "col3"] and len(df) == len(EVENTS) and info.header is False
    df, info = read_table(tmp_path / "events.xlsx", header=True)
    assert len(df) == len(EVENTS) - 1 and info.header is True


def test_cli_inspect_and_prepare_a_headerless_file(tmp_path):
    path = write_csv(tmp_path / "events.csv", EVENTS)
    out = wb("data", "inspect", path)
    assert out.returncode == 0, out.stderr
    assert "col2" in out.stdout and "--header" in out.stdout
    out = wb("data", "inspect", path, "--header", "--json")
    assert json.loads(out.stdout)["columns"] == list(EVENTS[0])
    project = tmp_path / "p"
    out = wb("data", "prepare", "--template", "finance_sentiment", "--input", path, "--project", project,
             "--no-header", "--mapping", "text=col2", "label=col3", "--labels", "from-data", "--min-label-rows", "1")
    assert out.returncode == 0, out.stderr
    cfg = Project.open(project).config
    assert cfg.source.header is False and cfg.source.rows == len(EVENTS) and cfg.mapping["text"] == "col2"
    # a prepare again from the same file reads it the same way without the flag
    out = wb("data", "prepare", "--template", "finance_sentiment", "--input", path, "--project", project)
    assert out.returncode == 0, out.stderr
    assert Project.open(project).config.source.rows == len(EVENTS)


# ----- JSON Lines whose lines are documents -------------------------------------------------

DOCS = [
    [{"labels": [], "sentence": "原告与被告于2010年经人介绍相识，2012年登记结婚。"},
     {"labels": ["婚后有子女"], "sentence": "婚后生育一子，现随原告生活。"}],
    [{"labels": ["存在家庭暴力", "感情不和分居满二年"], "sentence": "被告经常殴打原告，双方已分居三年。"}],
    [],
    [{"labels": ["婚后有子女"], "sentence": "双方育有一女，现年八岁。"},
     {"labels": [], "sentence": "原告诉至法院请求判决离婚。"}],
]


def write_docs(path):
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in DOCS), encoding="utf-8")
    return path


def test_jsonl_lines_of_records_give_a_row_per_record_and_the_document(tmp_path):
    for name in ("divorce.jsonl", "divorce.json"):
        df, info = read_table(write_docs(tmp_path / name))
        assert list(df.columns) == ["doc", "labels", "sentence"]
        assert df["doc"].tolist() == ["1", "1", "2", "4", "4"]
        assert df["sentence"].tolist()[2] == DOCS[1][0]["sentence"]
        assert info.format == "jsonl" and info.list_columns == ["labels"]
        says_jsonl = any("is JSON Lines" in n for n in info.notes)
        assert says_jsonl == (name == "divorce.json")
        assert set(info.coded_notes) == ({"jsonl", "documents"} if says_jsonl else {"documents"})


def test_a_json_file_of_one_object_per_line_is_said_to_be_jsonl(tmp_path):
    path = tmp_path / "records.json"
    path.write_text('{"text": "甲", "label": "a"}\n{"text": "乙", "label": "b"}\n', encoding="utf-8")
    df, info = read_table(path)
    assert len(df) == 2 and any("'records.json' is JSON Lines" in n for n in info.notes)


def test_jsonl_of_arrays_with_a_bad_line_names_that_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('[{"sentence": "a"}]\n[{"sentence": "b"}\n', encoding="utf-8")
    with pytest.raises(DataError, match="line 2 is not valid JSON"):
        read_table(path)
    path.write_text('[{"sentence": "a"}]\n{"sentence": "b"}\n', encoding="utf-8")
    with pytest.raises(DataError, match="line 2 is an object"):
        read_table(path)


def test_prepare_a_multi_label_file_of_documents(tmp_path):
    project, summary = prepare(CATALOG.get("legal_case_type_multi"), write_docs(tmp_path / "divorce.json"),
                               tmp_path / "p", labels=_from_data(min_rows=1))
    assert summary["mapping"]["text"] == "sentence" and summary["mapping"]["label"] == "labels"
    assert summary["source"]["rows"] == 5


def _from_data(**kw):
    from workbench.core.labels import LabelChoice

    return LabelChoice(source="data", multi_label=True, **kw)


# ----- quoted labels ---------------------------------------------------------------------------

QUOTED = [
    ("头疼发烧怎么办吃什么药", "'治疗方法'"), ("高血压的病因是什么呢", "'病因'"), ("糖尿病应该如何治疗", "'治疗方法'"),
    ("感冒了应该吃什么药", "'治疗方法'"), ("肺炎是由什么引起的", "'病因'"), ("胃痛的原因有哪些呢", "'病因'"),
]


def test_quoted_labels_lose_one_level_of_quotes_in_a_step_of_the_recipe(tmp_path):
    from workbench.core.labels import LabelChoice

    path = write_csv(tmp_path / "intents.csv", QUOTED, header=["问题", "类别"])
    project, summary = prepare(CATALOG.get("medical_triage"), path, tmp_path / "p",
                               mapping={"text": "问题", "label": "类别"}, labels=LabelChoice(source="data", min_rows=1))
    assert summary["steps"][0]["op"] == "unquote_labels" and summary["steps"][0]["cells_changed"] == 6
    assert set(project.task.labels) == {"治疗方法", "病因"}
    rows = [json.loads(x) for x in (tmp_path / "p" / "data" / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["label"] for r in rows} <= {"治疗方法", "病因"}


def test_quotes_come_off_each_label_of_a_list_and_only_one_level(tmp_path):
    from workbench.core.cleaning import Recipe, Step
    from workbench.core.cleaning.label_quotes import labels_look_quoted, propose_unquote, unquote

    assert unquote("'治疗方法'") == "治疗方法" and unquote("“正面”") == "正面" and unquote("''a''") == "'a'"
    assert unquote("'a\"") == "'a\"" and unquote("'") == "'"
    cells = pd.Series(['["\'治疗方法\'", "\'病因\'"]', '["\'病因\'"]', "[]"], dtype="string")
    assert labels_look_quoted(cells) and not labels_look_quoted(pd.Series(["治疗方法", "'病因'", "其他"]))
    recipe = propose_unquote(Recipe(), cells)
    assert [s.op for s in recipe.steps] == ["unquote_labels"] and propose_unquote(recipe, cells) is None
    out, reports = recipe.apply(pd.DataFrame({"label": cells}))
    assert out["label"].tolist() == ['["治疗方法", "病因"]', '["病因"]', "[]"] and reports[0].cells_changed == 2
    # disabled, it changes nothing
    off = Recipe(steps=[Step(op="unquote_labels", enabled=False)])
    assert off.apply(pd.DataFrame({"label": cells}))[0]["label"].tolist() == cells.tolist()


# ----- columns whose names say nothing ---------------------------------------------------------


def _headline_frame(n=40):
    texts = [f"第{i}家公司发布公告称本季度营业收入同比增长{i}%，净利润{'上升' if i % 2 else '下降'}" for i in range(n)]
    return pd.DataFrame({"序号": [str(i) for i in range(n)], "标题": texts,
                         "正/负面": ["正面" if i % 2 else "负面" for i in range(n)]}, dtype="string")


def test_content_tells_the_text_and_the_label_when_names_do_not():
    df = _headline_frame()
    guesses = {g.role: g.column for g in guess_columns(df, ("text", "label"))}
    assert guesses == {"text": "标题", "label": "正/负面"}
    intents = pd.DataFrame({"originalText": [f"请问{i}岁孩子发烧到三十九度应该怎么处理" for i in range(60)],
                            "label_36class": [["治疗方法", "病因", "症状", "注意事项"][i % 4] for i in range(60)],
                            "id": [str(1000 + i) for i in range(60)]}, dtype="string")
    assert {g.role: g.column for g in guess_columns(intents, ("text", "label"))} == {
        "text": "originalText", "label": "label_36class"}
    # a role the names already mapped keeps its column; only the rest is guessed
    assert [(g.role, g.column) for g in guess_missing(df, ["label"], {"text": "标题", "label": None})] == [
        ("label", "正/负面")]
    qa = pd.DataFrame({"col1": [f"问题{i}：高血压患者可以吃什么水果？" for i in range(20)],
                       "col2": [f"回答{i}：高血压患者可以适量吃苹果、香蕉等低糖水果，注意控制总量，并定期监测血压。"
                                for i in range(20)]}, dtype="string")
    assert {g.role: g.column for g in guess_columns(qa, ("instruction", "output"))} == {
        "output": "col2", "instruction": "col1"}


def test_prepare_names_the_mapping_the_contents_suggest(tmp_path):
    path = tmp_path / "headlines.csv"
    _headline_frame().to_csv(path, index=False)
    with pytest.raises(DataError) as err:
        prepare(CATALOG.get("finance_sentiment"), path, tmp_path / "p")
    assert "--mapping text=标题 label=正/负面" in str(err.value)
    assert not (tmp_path / "p").exists()
    out = wb("data", "inspect", path)
    assert "'标题' looks like the text" in out.stdout and "'正/负面' looks like the label" in out.stdout


# ----- the text read from two columns ----------------------------------------------------------


def test_the_text_read_from_two_columns_joined(tmp_path):
    df = pd.DataFrame({"title": ["高血压", "感冒", "", "胃痛"], "ask": ["能吃苹果吗", "", "发烧怎么办", "吃什么药"],
                       "department": ["心内科", "呼吸科", "儿科", "消化科"]}, dtype="string")
    assert mapped_columns("title+ask", df.columns) == ["title", "ask"]
    assert mapped_columns("title+nothing", df.columns) is None
    assert mapped_values(df, "title+ask").tolist() == ["高血压\n能吃苹果吗", "感冒", "发烧怎么办", "胃痛\n吃什么药"]
    t = CATALOG.get("medical_triage")
    assert check_mapping(t, list(df.columns), {"text": "title+ask", "label": "department"}) == []
    codes = {p.code for p in check_mapping(t, list(df.columns), {"text": "title+ask", "label": "ask+department"})}
    assert codes == {"not_joined", "column_twice"}
    # a column whose own name has a plus sign is that column
    plus = df.rename(columns={"title": "a+b"})
    assert mapped_columns("a+b", plus.columns) == ["a+b"]


def test_cli_prepare_with_text_from_title_and_question_and_predict_reads_the_same(tmp_path):
    rows = [(f"标题{i}", f"第{i}个问题：头痛发热怎么办", ["内科", "外科", "儿科"][i % 3]) for i in range(30)]
    path = write_csv(tmp_path / "ask.csv", rows, header=["title", "ask", "department"])
    project = tmp_path / "p"
    out = wb("data", "prepare", "--template", "medical_triage", "--input", path, "--project", project,
             "--mapping", "text=title+ask", "label=department", "--labels", "from-data")
    assert out.returncode == 0, out.stderr
    first = json.loads((project / "data" / "train.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert "\n" in first["text"] and first["text"].split("\n")[0].startswith("标题")
    task = Project.open(project).task
    assert task.columns["text"] == "title+ask"
    assert input_mapping(task, ["title", "ask"]) == {"text": "title+ask"}
    # a template saved from this project maps a new file's title and ask the same way
    from workbench.core.mapping import suggest_mapping

    assert suggest_mapping(task, ["ask", "department", "title"])["text"] == "title+ask"


def test_two_short_texts_beside_a_yes_no_label_are_offered_as_a_pair(tmp_path):
    from data_factory import bank_question_pairs

    path = bank_question_pairs(tmp_path / "bank.data", n=80)
    df, _ = read_table(path)
    assert {g.role: g.column for g in guess_columns(df, ("text", "label"))} == {"text": "col1+col2", "label": "col3"}
    # the label already mapped by its name: the pair is still seen
    named = df.rename(columns={"col3": "label"})
    assert [(g.role, g.column) for g in guess_missing(named, ["text"], {"text": None, "label": "label"})] == [
        ("text", "col1+col2")]
    # the CLI names the pair in its hint, and prepare with it reads both questions, one a line
    with pytest.raises(DataError) as err:
        prepare(CATALOG.get("finance_sentiment"), path, tmp_path / "p")
    assert "--mapping text=col1+col2 label=col3" in str(err.value) and "a pair of texts" in str(err.value)
    assert "a pair of texts" in inspect_file(path).guesses["text"]
    # three labels, or a long text, are no pair: the longest text is the text as before
    three = df.assign(col3=[str(i % 3) for i in range(len(df))])
    assert {g.role: g.column for g in guess_columns(three, ("text", "label"))}["text"] == "col2"
    long = df.assign(col2=df["col2"] + "。" + "详细情况如下所述" * 12)
    assert {g.role: g.column for g in guess_columns(long, ("text", "label"))}["text"] == "col2"


def test_inspect_json_lists_the_guesses(tmp_path):
    path = tmp_path / "h.csv"
    _headline_frame().to_csv(path, index=False)
    info = inspect_file(path)
    assert set(info.guesses) == {"text", "label"}


# ----- a document stays in one split ----------------------------------------------------------


def test_the_split_keeps_each_group_in_one_part():
    from workbench.core.split import split_frame

    docs = [f"d{i // 5}" for i in range(200)]  # 40 documents of 5 sentences
    df = pd.DataFrame({"label": [["a", "b", "c", "d"][(i // 5) % 4] if i % 5 else "e" for i in range(200)],
                       "doc": docs})
    parts = split_frame(df, (0.8, 0.1, 0.1), 7, "label", df["doc"])
    seen = {name: set(part["doc"]) for name, part in parts.items()}
    assert not (seen["train"] & seen["val"]) and not (seen["train"] & seen["test"]) and not (seen["val"] & seen["test"])
    assert [len(seen[k]) for k in ("train", "val", "test")] == [32, 4, 4]
    assert sum(len(p) for p in parts.values()) == 200
    with pytest.raises(DataError, match="only 2 document"):
        split_frame(df.head(10), (0.8, 0.1, 0.1), 7, "label", df["doc"].head(10))


def test_prepare_keeps_a_document_of_a_jsonl_file_in_one_split(tmp_path):
    docs = [[{"labels": [["DV1"], ["DV2"], ["DV3"]][d % 3] if s % 2 else [], "sentence": f"案件{d}第{s}句：双方因家庭琐事发生争吵。"}
             for s in range(4)] for d in range(30)]
    path = tmp_path / "cases.json"
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    project, summary = prepare(CATALOG.get("legal_case_type_multi"), path, tmp_path / "p", labels=_from_data())
    groups = summary["stats"]["split_groups"]
    assert groups["column"] == "doc" and groups["train"] + groups["val"] + groups["test"] == 30
    assert project.config.source.group_column == "doc"
    doc_of = {f"案件{d}第{s}句：双方因家庭琐事发生争吵。": d for d in range(30) for s in range(4)}
    where: dict[int, set] = {}
    for part in ("train", "val", "test"):
        for line in (tmp_path / "p" / "data" / f"{part}.jsonl").read_text(encoding="utf-8").splitlines():
            where.setdefault(doc_of[json.loads(line)["text"]], set()).add(part)
    assert all(len(parts) == 1 for parts in where.values()) and len(where) == 30


def test_a_bundle_reads_the_joined_columns_as_the_project_did(tmp_path):
    from workbench.engine.bundle.bundle_runtime import map_columns, read_records

    path = write_csv(tmp_path / "new.csv", [("高血压", "能吃苹果吗"), ("", "发烧怎么办")], header=["title", "ask"])
    bundle = {"fields": ["text"], "columns": {"text": "title+ask"}}
    assert map_columns(bundle, ["title", "ask"]) == {"text": "title+ask"}
    _, records = read_records(str(path), bundle)
    assert [r["text"] for r in records] == ["高血压\n能吃苹果吗", "发烧怎么办"]
    assert mapped_values(pd.read_csv(path, dtype=str).fillna(""), "title+ask").tolist() == [
        r["text"] for r in records]
