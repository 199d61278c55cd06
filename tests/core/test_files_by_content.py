"""A file is read by what it holds, not by its name: a TSV called .data, a text file without a
suffix, a workbook or a Parquet file under another name. Only a file that is neither text nor a
format Workbench reads is refused, and the refusal says what it looks like and what to do."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile

import pandas as pd
import pytest

from data_factory import bank_question_pairs
from workbench.core.dataio import inspect_file, read_table
from workbench.core.errors import DataError
from workbench.core.operations.predict import check_paths


def wb(*args):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          encoding="utf-8", timeout=300)


@pytest.mark.parametrize("name", ["pairs.dat", "pairs.data", "pairs.txt", "pairs.tab", "pairs"])
def test_a_headerless_tsv_is_read_whatever_its_suffix(tmp_path, name):
    path = bank_question_pairs(tmp_path / name, n=40)
    df, info = read_table(path)
    assert list(df.columns) == ["col1", "col2", "col3"] and len(df) == 40
    assert info.format == "tsv" and info.header is False and info.encoding == "utf-8"
    assert df["col1"][0].startswith("\x08") and set(df["col3"]) == {"0", "1"}


def test_a_text_file_without_a_delimiter_is_one_value_a_line(tmp_path):
    lines = ["标题", '某公司"利好"公告，股价上涨', "[快讯]央行降准0.5个百分点", "银行, 券商与保险板块齐涨"]
    path = tmp_path / "headlines.data"
    path.write_text("\n".join(lines) + "\n", encoding="gb18030")
    df, info = read_table(path)
    assert df["标题"].tolist() == lines[1:] and info.encoding == "gb18030"
    assert any("each line was read as one text value" in n for n in info.notes)


def test_a_text_file_that_starts_as_json_does_is_json(tmp_path):
    records = [{"text": f"第{i}条", "label": i % 2} for i in range(4)]
    path = tmp_path / "records.data"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    df, info = read_table(path)
    assert info.format == "jsonl" and df["text"].tolist() == ["第0条", "第1条", "第2条", "第3条"]
    array = tmp_path / "array"
    array.write_text(json.dumps(records, ensure_ascii=False, indent=2), encoding="utf-8")
    assert read_table(array)[1].format == "json"


def test_a_workbook_or_parquet_file_under_another_name(tmp_path):
    frame = pd.DataFrame({"text": ["好消息", "坏消息"], "label": ["正面", "负面"]})
    book = tmp_path / "export.data"
    frame.to_excel(book, index=False)
    df, info = read_table(book)
    assert info.format == "excel" and df.to_dict("list") == frame.to_dict("list")
    table = tmp_path / "export"
    frame.to_parquet(table, index=False)
    df, info = read_table(table)
    assert info.format == "parquet" and df.to_dict("list") == frame.to_dict("list")


def test_what_is_neither_text_nor_a_known_format_is_refused_in_words(tmp_path):
    picture = tmp_path / "scan.data"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    document = tmp_path / "notes.docx"
    with zipfile.ZipFile(document, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    noise = tmp_path / "noise"
    noise.write_bytes(bytes(range(256)) * 16)
    for path, what in ((picture, "a PNG image"), (document, "Word document"), (noise, "binary data")):
        with pytest.raises(DataError) as caught:
            read_table(path)
        message = str(caught.value)
        # what was wrong, what Workbench reads (any text file, whatever its suffix), what to do
        assert f"'{path.name}' is not a text file Workbench can read" in message and what in message, message
        assert "whatever its suffix" in message and "CSV UTF-8" in message and "suffix '" not in message


def test_prediction_takes_a_file_of_any_suffix(tmp_path):
    path = bank_question_pairs(tmp_path / "new.data", n=4)
    check_paths(path, tmp_path / "out.csv")  # refused for its suffix before


def test_data_inspect_and_prepare_read_a_data_file(tmp_path):
    path = bank_question_pairs(tmp_path / "bank.data", n=60)
    out = wb("data", "inspect", path, "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout.strip().splitlines()[-1])
    assert info["format"] == "tsv" and info["rows"] == 60 and info["columns"] == ["col1", "col2", "col3"]
    project = tmp_path / "p"
    out = wb("data", "prepare", "--template", "finance_sentiment", "--input", path, "--project", project,
             "--mapping", "text=col1", "label=col3", "--labels", "from-data")
    assert out.returncode == 0, out.stderr
    first = json.loads(io.StringIO((project / "data" / "train.jsonl").read_text(encoding="utf-8")).readline())
    assert first["label"] in ("0", "1")
    assert inspect_file(path).rows == 60
