"""JSON and JSONL as real exports come: arrays of records or of rows without field names,
one record per line, records wrapped in an object or in one-element lists, nested objects
(flattened to dotted column names), list-valued cells (kept as JSON text, their columns
listed in ``FileInfo.list_columns``); pretty-printed or on one line, UTF-8 or GB18030."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import DataError
from .base import _BOM, FileInfo, _frame, _json_kind, _Reporter, _text
from .encodings import _ascii_start, _detect_encoding, _mixed_encoding, _read_sample
from .finetune_formats import _normalise_records


def _read_json(path: Path, size: int, report: _Reporter, notes: list[str]):
    name = path.name
    sample, complete = _read_sample(path, size)
    encoding = _detect_encoding(name, sample, complete)
    with open(path, "rb") as fh:
        raw = fh.read()
    report(0.3)
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        if not _ascii_start(sample, complete, encoding):
            raise _mixed_encoding(name, encoding, exc) from None
        try:
            text, encoding = raw.decode("gb18030"), "gb18030"
        except UnicodeDecodeError:
            raise _mixed_encoding(name, encoding, exc) from None
    del raw
    text = text.lstrip(_BOM)
    stripped = text.lstrip()
    if not stripped:
        raise DataError(f"'{name}' is empty (it holds only blank space). Choose a file that contains data.")

    records: list
    fmt = "jsonl" if path.suffix.lower() in (".jsonl", ".ndjson") else "json"
    if stripped[0] == "[":
        try:
            records = json.loads(text)
        except json.JSONDecodeError as exc:
            raise _json_error(name, exc) from None
        fmt = "json"
    elif stripped[0] == "{":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            first_line = stripped.split("\n", 1)[0]
            if _is_json_object(first_line):
                records, fmt = _parse_jsonl(name, text, report), "jsonl"
            elif exc.msg == "Extra data":  # pretty-printed objects one after another
                records, fmt = _parse_stream(name, text), "jsonl"
            else:
                raise _json_error(name, exc) from None
        else:
            records = [doc] if fmt == "jsonl" else _records_from_object(doc, notes)
    else:
        raise DataError(
            f"'{name}' is not valid JSON: it should start with '[' (a list of records) or "
            "'{' (one record per line, JSONL). Check that the file really is JSON."
        )
    report(0.7)
    if not records:
        raise DataError(f"'{name}' has no data rows: the JSON holds an empty list. Add records and import it again.")
    records = _unwrap(records, notes)
    list_columns: list[str] = []
    if all(isinstance(r, list) for r in records):
        columns = _rows_to_columns(records, list_columns)
        notes.append(f"the records are lists without field names; their fields are named col1 … col{len(columns)}")
        recognised = None
    else:
        bad = next((i for i, r in enumerate(records) if not isinstance(r, dict)), None)
        if bad is not None:
            where = f"line {bad + 1}" if fmt == "jsonl" else f"item {bad + 1} of the list"
            raise DataError(
                f"'{name}': {where} is {_json_kind(records[bad])}, but the other records are objects with "
                "named fields, like {\"text\": \"...\", \"label\": \"...\"}. Make every record the same kind."
            )
        recognised, columns = _normalise_records(
            name, records, notes, plain=lambda recs: _flat_columns(recs, list_columns))
    df = _frame(columns)
    info = FileInfo(path=str(path), format=recognised or fmt, encoding=encoding, list_columns=list_columns)
    return df, info


# ----- real shapes: wrapped records, rows without names, nested objects, list cells


def _unwrap(records: list, notes: list[str]) -> list:
    """A list of one-element lists (``[[{...}], [{...}]]`` or ``[[[text, code]], ...]``) is
    the list of those elements; the wrapping is removed as many levels deep as it goes."""
    depth = 0
    while records and all(isinstance(r, list) and len(r) == 1 for r in records) \
            and any(isinstance(r[0], (list, dict)) for r in records):
        records = [r[0] for r in records]
        depth += 1
    if depth:
        notes.append(f"every record was wrapped in a list of one ({depth} level(s)); the wrapping was removed")
    return records


def _cell(value: Any, column: str, list_columns: list[str]) -> str:
    if isinstance(value, list):
        if column not in list_columns:
            list_columns.append(column)
        return json.dumps(value, ensure_ascii=False, default=str)
    return _text(value)


def _rows_to_columns(rows: list[list], list_columns: list[str]) -> dict[str, list[str]]:
    """Rows without field names: columns col1 … colN (short rows padded with "")."""
    width = max((len(r) for r in rows), default=0)
    names = [f"col{i}" for i in range(1, width + 1)]
    return {n: [_cell(r[i], n, list_columns) if i < len(r) else "" for r in rows] for i, n in enumerate(names)}


def _flatten(record: dict, prefix: str, out: dict[str, Any]) -> None:
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            _flatten(value, name + ".", out)
        else:
            out[name] = value


def _flat_columns(records: list[dict], list_columns: list[str]) -> dict[str, list[str]]:
    """Nested objects flattened to dotted names (``meta.accusation``), the names
    ``pandas.json_normalize(records, sep=".")`` gives. Written here because json_normalize
    builds typed columns: integers in a column with gaps come back as floats (7 -> 7.0),
    and every cell must stay the text the file holds."""
    flat = []
    keys: dict[str, None] = {}
    for record in records:
        row: dict[str, Any] = {}
        _flatten(record, "", row)
        keys.update(dict.fromkeys(row))
        flat.append(row)
    return {k: [_cell(r.get(k), k, list_columns) for r in flat] for k in keys}


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except json.JSONDecodeError:
        return False


def _json_error(name: str, exc: json.JSONDecodeError) -> DataError:
    return DataError(
        f"'{name}' is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}. "
        "Fix the file there (a missing comma, quote or bracket is the usual cause) and import it again."
    )


def _parse_jsonl(name: str, text: str, report: _Reporter) -> list:
    records = []
    loads = json.loads
    lines = text.splitlines()
    total = max(1, len(lines))
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(loads(line))
        except json.JSONDecodeError as exc:
            raise DataError(
                f"'{name}': line {number} is not valid JSON ({exc.msg}, column {exc.colno}). "
                "In a JSONL file every line must hold one complete JSON object. "
                "Fix that line and import the file again."
            ) from None
        if number % 100_000 == 0:
            report(0.3 + 0.4 * number / total)
    return records


def _parse_stream(name: str, text: str) -> list:
    """JSON values one after another, each over several lines (pretty-printed JSONL)."""
    decoder = json.JSONDecoder()
    records, pos, end = [], 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return records
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _json_error(name, exc) from None
        records.append(value)


def _records_from_object(doc: dict, notes: list[str]) -> list:
    """A top-level object is one record, unless it just wraps the list of records."""
    if not any(k in doc for k in ("messages", "conversations")):
        lists = [k for k, v in doc.items() if isinstance(v, list) and v
                 and (all(isinstance(x, dict) for x in v) or all(isinstance(x, list) for x in v))]
        if len(lists) == 1:
            notes.append(f"records taken from the list under '{lists[0]}'")
            return doc[lists[0]]
    return [doc]
