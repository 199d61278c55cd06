"""Data import: every format and encoding, fine-tuning formats, and every kind of bad input."""

from __future__ import annotations

import gzip
import json
import os
import random
import struct

import crc32c
import pandas as pd
import pytest

from workbench.core.dataio import FileInfo, inspect_file, read_table
from workbench.core.errors import DataError

CHINESE_CSV = "编号,文本,标签\n000123,今天天气很好,正面\n110101199003077777,服务太差了,负面\n"


def cells(df: pd.DataFrame) -> list[list[str]]:
    return [[str(v) for v in row] for row in df.itertuples(index=False)]


def expect_error(path, *words, **kwargs) -> str:
    with pytest.raises(DataError) as caught:
        read_table(path, **kwargs)
    message = str(caught.value)
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
    assert "Traceback" not in message
    return message


# --------------------------------------------------------------------------- CSV / TSV / TXT


@pytest.mark.parametrize(
    "encoding, expected",
    [
        ("utf-8", "utf-8"),
        ("utf-8-sig", "utf-8-sig"),
        ("gbk", "gb18030"),
        ("gb18030", "gb18030"),
        ("utf-16", "utf-16"),  # writes a BOM
    ],
)
def test_csv_encodings(tmp_path, encoding, expected):
    path = tmp_path / "data.csv"
    path.write_bytes(CHINESE_CSV.encode(encoding))
    df, info = read_table(path)
    assert info.format == "csv"
    assert info.encoding == expected
    assert info.delimiter == ","
    assert list(df.columns) == ["编号", "文本", "标签"]  # no BOM left in the first name
    assert cells(df) == [["000123", "今天天气很好", "正面"], ["110101199003077777", "服务太差了", "负面"]]
    assert info.rows == 2


def test_utf16_without_bom_and_longer_gbk_text(tmp_path):
    path = tmp_path / "le.csv"
    path.write_bytes(CHINESE_CSV.encode("utf-16-le"))
    df, info = read_table(path)
    assert info.encoding == "utf-16-le"
    assert df["文本"].tolist() == ["今天天气很好", "服务太差了"]

    path = tmp_path / "gbk.csv"
    body = "".join(f"{i:05d},这是第{i}条评论，内容较长一些,正面\n" for i in range(3000))
    path.write_bytes(("编号,文本,标签\n" + body).encode("gbk"))
    df, info = read_table(path)
    assert info.encoding == "gb18030" and info.rows == 3000
    assert df.iloc[2999].tolist() == ["02999", "这是第2999条评论，内容较长一些", "正面"]


def test_ids_blanks_and_short_rows_stay_text(tmp_path):
    path = tmp_path / "ids.csv"
    path.write_text(
        "id,card,amount,note\n"
        "000123,11010119900307777X,1e5,\n"
        "000000000000000001,440301198801011234,NaN,NA\n"
        "42,,0012.50\n",
        encoding="utf-8",
    )
    df, _ = read_table(path)
    assert cells(df) == [
        ["000123", "11010119900307777X", "1e5", ""],
        ["000000000000000001", "440301198801011234", "NaN", "NA"],
        ["42", "", "0012.50", ""],
    ]
    assert not df.isna().any().any()
    assert all(isinstance(v, str) for v in df["id"])


def test_tsv_and_txt_delimiter_sniffing(tmp_path):
    tsv = tmp_path / "data.tsv"
    tsv.write_text("text\tlabel\n你好, 世界\t1\n再见\t0\n", encoding="utf-8")
    df, info = read_table(tsv)
    assert info.format == "tsv" and info.delimiter == "\t"
    assert cells(df) == [["你好, 世界", "1"], ["再见", "0"]]

    semi = tmp_path / "data.txt"
    semi.write_text("a;b;c\n1;2;3\n4;5;6\n", encoding="utf-8")
    df, info = read_table(semi)
    assert info.delimiter == ";" and list(df.columns) == ["a", "b", "c"] and info.rows == 2
    assert any("semicolon" in n for n in info.notes)

    tabs = tmp_path / "tabs.txt"
    tabs.write_text("问题\t回答\n你是谁\t我是助手\n", encoding="utf-8")
    assert read_table(tabs)[1].format == "tsv"

    lines = tmp_path / "lines.txt"
    lines.write_text('sentence\n"Hello", she said, twice.\n第二行\n', encoding="utf-8")
    df, info = read_table(lines)
    assert info.delimiter is None
    assert df["sentence"].tolist() == ['"Hello", she said, twice.', "第二行"]


def test_semicolon_csv_and_quoted_fields(tmp_path):
    path = tmp_path / "excel-export.csv"
    path.write_text('name;comment\nA;"x; y"\nB;"multi\nline"\n', encoding="utf-8")
    df, info = read_table(path)
    assert info.delimiter == ";"
    assert cells(df) == [["A", "x; y"], ["B", "multi\nline"]]


def test_header_cleaning(tmp_path):
    path = tmp_path / "head.csv"
    path.write_text(" text , label,label,,text\n1,2,3,4,5\n", encoding="utf-8-sig")
    df, info = read_table(path)
    assert list(df.columns) == ["text", "label", "label.1", "column_4", "text.1"]
    assert any("duplicate" in n and "label.1" in n for n in info.notes)
    assert any("column_4" in n or "no name" in n for n in info.notes)


def test_trailing_delimiter_is_ignored(tmp_path):
    path = tmp_path / "trailing.csv"
    path.write_text("a,b\n1,2,\n3,4,\n", encoding="utf-8")
    df, info = read_table(path)
    assert list(df.columns) == ["a", "b"]
    assert cells(df) == [["1", "2"], ["3", "4"]]


def test_progress_reports_increasing_fractions_up_to_one(tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("n,t\n" + "".join(f"{i},文本{i}\n" for i in range(200_000)), encoding="utf-8")
    seen: list[float] = []
    df, info = read_table(path, progress=seen.append)
    assert info.rows == 200_000 and df["n"].iloc[-1] == "199999"
    assert seen[-1] == 1.0
    assert seen == sorted(seen) and len(seen) > 2


def test_inspect_file_preview(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("a,b\n" + "".join(f"{i:03d},x{i}\n" for i in range(20)), encoding="utf-8")
    info = inspect_file(path, preview_rows=3)
    assert isinstance(info, FileInfo)
    assert info.rows == 20 and info.columns == ["a", "b"]
    assert info.preview == [{"a": "000", "b": "x0"}, {"a": "001", "b": "x1"}, {"a": "002", "b": "x2"}]
    json.dumps(info.model_dump())  # JSON-safe


# --------------------------------------------------------------------------- Excel


@pytest.fixture
def workbook(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    first = book.active
    first.title = "评论"
    first.append(["编号", "文本", "分数"])
    first.append(["000123", "很好", 5])
    first.append(["110101199003077777", "一般", 3.5])
    second = book.create_sheet("Sheet B")
    second.append(["q", "a"])
    second.append(["你好", "您好"])
    book.create_sheet("Empty")
    path = tmp_path / "book.xlsx"
    book.save(path)
    return path


def test_excel_sheets_and_choice(workbook):
    df, info = read_table(workbook)
    assert info.format == "excel"
    assert info.sheets == ["评论", "Sheet B", "Empty"] and info.sheet == "评论"
    assert cells(df) == [["000123", "很好", "5"], ["110101199003077777", "一般", "3.5"]]

    df, info = read_table(workbook, sheet="Sheet B")
    assert info.sheet == "Sheet B" and cells(df) == [["你好", "您好"]]

    expect_error(workbook, "no sheet named", "'Nope'", "评论", "Sheet B", sheet="Nope")
    expect_error(workbook, "empty", sheet="Empty")


def test_not_really_excel(tmp_path):
    fake = tmp_path / "fake.xlsx"
    fake.write_text("a,b\n1,2\n", encoding="utf-8")
    expect_error(fake, "not a real Excel", "csv")

    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"PK\x03\x04" + bytes(200))
    expect_error(broken, "Excel", "damaged")


# --------------------------------------------------------------------------- JSON / JSONL / Parquet


def test_json_array_and_wrapped_object(tmp_path):
    path = tmp_path / "data.json"
    rows = [{"text": "你好", "id": "007", "n": 3, "ok": True, "tags": ["a", "b"], "x": None}, {"text": "再见"}]
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    df, info = read_table(path)
    assert info.format == "json" and info.encoding == "utf-8"
    assert list(df.columns) == ["text", "id", "n", "ok", "tags", "x"]
    assert cells(df) == [["你好", "007", "3", "true", '["a", "b"]', ""], ["再见", "", "", "", "", ""]]

    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"version": 1, "data": rows}), encoding="utf-16")
    df, info = read_table(wrapped)
    assert info.rows == 2 and info.encoding == "utf-16"
    assert any("'data'" in n for n in info.notes)


def test_jsonl(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text('{"text": "一", "label": 1}\n\n{"text": "二", "label": 0}\n', encoding="utf-8")
    df, info = read_table(path)
    assert info.format == "jsonl"
    assert cells(df) == [["一", "1"], ["二", "0"]]

    # One object per line, named .json
    misnamed = tmp_path / "lines.json"
    misnamed.write_text('{"a": "1"}\n{"a": "2"}\n', encoding="utf-8")
    assert read_table(misnamed)[1].format == "jsonl"


def test_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "data.parquet"
    table = pa.table({
        "id": ["000123", None, "3"],
        "n": pa.array([1, 2, None], pa.int64()),
        "score": [0.5, None, 2.0],
        "tags": [["x"], [], None],
    })
    pq.write_table(table, path)
    df, info = read_table(path)
    assert info.format == "parquet"
    assert cells(df) == [["000123", "1", "0.5", '["x"]'], ["", "2", "", "[]"], ["3", "", "2.0", ""]]

    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    expect_error(bad, "Parquet")


# --------------------------------------------------------------------------- fine-tuning formats


def test_alpaca(tmp_path):
    path = tmp_path / "alpaca.json"
    records = [
        {"instruction": "翻译成英文", "input": "你好", "output": "Hello", "system": "你是翻译"},
        {"instruction": "写一句诗", "output": "床前明月光", "history": [["你好", "你好！"]]},
    ]
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    df, info = read_table(path)
    assert info.format == "alpaca"
    assert list(df.columns)[:3] == ["instruction", "input", "output"]
    assert df["input"].tolist() == ["你好", ""]
    assert df["system"].tolist() == ["你是翻译", ""]
    assert json.loads(df["history"].iloc[1]) == [
        {"role": "user", "content": "你好"}, {"role": "assistant", "content": "你好！"}]
    assert any("alpaca" in n for n in info.notes)


def test_messages_jsonl(tmp_path):
    path = tmp_path / "chat.jsonl"
    conversations = [
        {"messages": [
            {"role": "system", "content": "你是助手"},
            {"role": "user", "content": "一加一"},
            {"role": "assistant", "content": "二"},
            {"role": "user", "content": "再加一"},
            {"role": "assistant", "content": "三"},
        ]},
        {"messages": [
            {"role": "user", "content": [{"type": "text", "text": "你好"}]},
            {"role": "assistant", "content": "您好"},
        ]},
    ]
    path.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in conversations), encoding="utf-8")
    df, info = read_table(path)
    assert info.format == "messages"
    assert list(df.columns) == ["system", "instruction", "input", "output", "history"]
    assert cells(df)[0][:4] == ["你是助手", "再加一", "", "三"]
    assert json.loads(df["history"].iloc[0]) == [
        {"role": "user", "content": "一加一"}, {"role": "assistant", "content": "二"}]
    assert cells(df)[1] == ["", "你好", "", "您好", ""]
    assert any("messages" in n.lower() for n in info.notes)


def test_sharegpt(tmp_path):
    path = tmp_path / "sharegpt.json"
    data = [
        {"id": "a1", "system": "简洁回答", "conversations": [
            {"from": "human", "value": "天空是什么颜色"},
            {"from": "gpt", "value": "蓝色"},
        ]},
        {"id": "a2", "conversations": [
            {"from": "system", "value": "s"},
            {"from": "human", "value": "q1"}, {"from": "gpt", "value": "a1"},
            {"from": "human", "value": "q2"},
        ]},
    ]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    df, info = read_table(path)
    assert info.format == "sharegpt"
    assert cells(df)[0] == ["简洁回答", "天空是什么颜色", "", "蓝色", "", "a1"]
    assert cells(df)[1][:4] == ["s", "q2", "", ""]
    assert len(json.loads(df["history"].iloc[1])) == 2
    assert any("ShareGPT" in n for n in info.notes)
    assert any("do not end with an assistant" in n for n in info.notes)


def test_src_tgt(tmp_path):
    path = tmp_path / "train.json"
    path.write_text(
        '{"src": "你好", "tgt": "你好！"}\n{"src": ["q1", "q2"], "tgt": ["a1", "a2"]}\n', encoding="utf-8")
    df, info = read_table(path)
    assert info.format == "src_tgt"
    assert df["src"].tolist() == ["你好", "q2"] and df["tgt"].tolist() == ["你好！", "a2"]
    assert json.loads(df["history"].iloc[1]) == [
        {"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"}]


def test_conversation_record_without_turns(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "x"}]}\n{"text": "oops"}\n', encoding="utf-8")
    expect_error(path, "record 2", "messages")


# --------------------------------------------------------------------------- TFRecord


def _tf_example_class():
    """tf.train.Example as TensorFlow declares it (map<string, Feature>), built here."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    fd = descriptor_pb2.FileDescriptorProto(name="test_example.proto", package="tensorflow", syntax="proto3")
    for name, ftype in (("BytesList", F.TYPE_BYTES), ("FloatList", F.TYPE_FLOAT), ("Int64List", F.TYPE_INT64)):
        fd.message_type.add(name=name).field.add(name="value", number=1, type=ftype, label=F.LABEL_REPEATED)
    feature = fd.message_type.add(name="Feature")
    feature.oneof_decl.add(name="kind")
    for number, (name, type_name) in enumerate(
            (("bytes_list", "BytesList"), ("float_list", "FloatList"), ("int64_list", "Int64List")), 1):
        feature.field.add(name=name, number=number, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                          type_name=f".tensorflow.{type_name}", oneof_index=0)
    features = fd.message_type.add(name="Features")
    features.field.add(name="feature", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_REPEATED,
                       type_name=".tensorflow.Features.FeatureEntry")
    entry = features.nested_type.add(name="FeatureEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=".tensorflow.Feature")
    fd.message_type.add(name="Example").field.add(
        name="features", number=1, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL, type_name=".tensorflow.Features")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))


def _masked(data: bytes) -> int:
    crc = crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _frame_record(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", _masked(length)) + data + struct.pack("<I", _masked(data))


def _tf_examples() -> list[bytes]:
    Example = _tf_example_class()
    out = []
    for text, label, score, ids in (("今天很好", 1, 0.1, "000123"), ("很差", 0, 0.9, "000456")):
        ex = Example()
        ex.features.feature["text"].bytes_list.value.append(text.encode("utf-8"))
        ex.features.feature["id"].bytes_list.value.append(ids.encode("utf-8"))
        ex.features.feature["label"].int64_list.value.append(label)
        ex.features.feature["score"].float_list.value.append(score)
        ex.features.feature["tokens"].int64_list.value.extend([1, 2, 3])
        out.append(ex.SerializeToString())
    return out


def test_tfrecord(tmp_path):
    path = tmp_path / "train.tfrecord"
    path.write_bytes(b"".join(_frame_record(e) for e in _tf_examples()))
    df, info = read_table(path)
    assert info.format == "tfrecord" and info.rows == 2
    assert set(df.columns) == {"text", "id", "label", "score", "tokens"}
    assert df["text"].tolist() == ["今天很好", "很差"]
    assert df["id"].tolist() == ["000123", "000456"]
    assert df["label"].tolist() == ["1", "0"]
    assert df["score"].tolist() == ["0.1", "0.9"]
    assert json.loads(df["tokens"].iloc[0]) == [1, 2, 3]

    zipped = tmp_path / "train.tfrecords"
    zipped.write_bytes(gzip.compress(path.read_bytes()))
    assert read_table(zipped)[0]["text"].tolist() == ["今天很好", "很差"]


def test_tfrecord_damaged_or_fake(tmp_path):
    good = b"".join(_frame_record(e) for e in _tf_examples())
    damaged = bytearray(good)
    damaged[-6] ^= 0xFF  # inside the second record's data
    path = tmp_path / "damaged.tfrecord"
    path.write_bytes(bytes(damaged))
    expect_error(path, "damaged", "record 2")

    truncated = tmp_path / "truncated.tfrecord"
    truncated.write_bytes(good[:-3])
    expect_error(truncated, "record 2", "ends in the middle")

    fake = tmp_path / "fake.tfrecord"
    fake.write_bytes(b"\xff" * 8 + b"this is not a tfrecord file at all")  # huge length, bad crc
    expect_error(fake, "not a TFRecord")


# --------------------------------------------------------------------------- bad input


def test_missing_directory_empty_and_header_only(tmp_path):
    expect_error(tmp_path / "nope.csv", "not found")
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    expect_error(folder, "folder")
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    expect_error(empty, "empty")
    blank = tmp_path / "blank.csv"
    blank.write_text("\n  \n\n", encoding="utf-8")
    expect_error(blank, "empty")
    header_only = tmp_path / "header.csv"
    header_only.write_text("text,label\n", encoding="utf-8")
    expect_error(header_only, "no data rows")
    header_only_xlsx = tmp_path / "header.xlsx"
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.append(["text", "label"])
    book.save(header_only_xlsx)
    expect_error(header_only_xlsx, "no data rows")


def test_binary_garbage(tmp_path):
    png = tmp_path / "picture.csv"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    expect_error(png, "not a text file", "PNG")
    noise = tmp_path / "noise.csv"
    noise.write_bytes(random.Random(0).randbytes(4096))
    expect_error(noise, "text")
    xlsx_as_csv = tmp_path / "renamed.csv"
    xlsx_as_csv.write_bytes(b"PK\x03\x04" + bytes(100))
    expect_error(xlsx_as_csv, "zip", "xlsx")


def test_ragged_csv_names_the_line(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("text,label\n好,1\n坏,0\n有逗号, 没引号,1\n", encoding="utf-8")
    message = expect_error(path, "line 4", "3 fields", "header has 2", "quote")
    assert "ragged.csv" in message

    first = tmp_path / "first.csv"
    first.write_text("text,label\n有逗号, 没引号,1\n坏,0\n", encoding="utf-8")
    expect_error(first, "more fields than the header", "row 1")


def test_unclosed_quote(tmp_path):
    path = tmp_path / "quote.csv"
    path.write_text('a,b\n1,"open\n2,3\n', encoding="utf-8")
    expect_error(path, "quote")


def test_invalid_json(tmp_path):
    doc = tmp_path / "bad.json"
    doc.write_text('[\n  {"a": 1},\n  {"a": 2,,}\n]\n', encoding="utf-8")
    expect_error(doc, "not valid JSON", "line 3")

    pretty = tmp_path / "pretty.json"
    pretty.write_text('{\n  "a": 1\n  "b": 2\n}\n', encoding="utf-8")
    expect_error(pretty, "not valid JSON", "line 3")

    lines = tmp_path / "bad.jsonl"
    lines.write_text('{"a": 1}\n{"a": 2}\n{"a": 3\n{"a": 4}\n', encoding="utf-8")
    expect_error(lines, "line 3", "JSON")

    not_json = tmp_path / "text.json"
    not_json.write_text("hello", encoding="utf-8")
    expect_error(not_json, "not valid JSON")

    scalars = tmp_path / "scalars.json"
    scalars.write_text("[1, 2]", encoding="utf-8")
    expect_error(scalars, "item 1", "object")

    empty_list = tmp_path / "empty.json"
    empty_list.write_text("[]", encoding="utf-8")
    expect_error(empty_list, "no data rows")

    no_columns = tmp_path / "nocols.jsonl"
    no_columns.write_text("{}\n{}\n", encoding="utf-8")
    expect_error(no_columns, "no columns")


# --------------------------------------------------------------------------- the source is left alone


def test_source_files_are_not_modified(tmp_path, workbook):
    csv_path = tmp_path / "keep.csv"
    csv_path.write_bytes(CHINESE_CSV.encode("gbk"))
    json_path = tmp_path / "keep.jsonl"
    json_path.write_text('{"src": "a", "tgt": "b"}\n', encoding="utf-8")
    past = 1_600_000_000
    for path in (csv_path, json_path, workbook):
        os.utime(path, (past, past))
        before = (path.read_bytes(), path.stat().st_mtime_ns)
        read_table(path)
        inspect_file(path)
        assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_gbk_text_after_a_long_ascii_start(tmp_path):
    path = tmp_path / "late.csv"
    ascii_rows = "".join(f"{i:06d},plain ascii text\n" for i in range(8000))  # > the detection sample
    path.write_bytes(("id,text\n" + ascii_rows + "999999,中文在后面\n").encode("gbk"))
    df, info = read_table(path)
    assert info.encoding == "gb18030" and info.rows == 8001
    assert df["text"].iloc[-1] == "中文在后面" and df["id"].iloc[0] == "000000"

    path = tmp_path / "late.jsonl"
    lines = "".join(json.dumps({"t": f"row {i}"}) + "\n" for i in range(6000))
    path.write_bytes((lines + '{"t": "中文"}\n').encode("gbk"))
    df, info = read_table(path)
    assert info.encoding == "gb18030" and df["t"].iloc[-1] == "中文"
