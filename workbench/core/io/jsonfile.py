"""JSON and JSONL as real exports come: arrays of records or of rows without field names,
one record per line, records wrapped in an object or in one-element lists, nested objects
(flattened to dotted column names), list-valued cells (kept as JSON text, their columns
listed in ``FileInfo.list_columns``); pretty-printed or on one line, UTF-8 or GB18030."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..errors import DataError
from .base import _BOM, FileInfo, _frame, _json_kind, _Reporter, _text, documents_note, headless_names, jsonl_note
from .encodings import _ascii_start, _detect_encoding, _mixed_encoding, _read_sample
from .finetune_formats import _normalise_records
from .textsniff import TextFileError, flatten, json_values, unwrap


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
    try:
        records, fmt, docs, by_lines = json_values(text, path.suffix, name, report)
    except TextFileError as exc:
        raise DataError(str(exc), code=exc.code, **exc.fields) from None
    if by_lines and path.suffix.lower() == ".json":
        notes.append(jsonl_note(name))
    if fmt == "json" and isinstance(records, dict):
        records = _records_from_object(records, notes)
    group: str | None = None
    report(0.7)
    if not records:
        raise DataError(f"'{name}' has no data rows: the JSON holds an empty list. Add records and import it again.",
                        code="json_empty_list", name=name)
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
                "named fields, like {\"text\": \"...\", \"label\": \"...\"}. Make every record the same kind.",
                code="jsonl_line_not_object" if fmt == "jsonl" else "json_item_not_object", name=name,
                position=bad + 1,
            )
        recognised, columns = _normalise_records(
            name, records, notes, plain=lambda recs: _flat_columns(recs, list_columns))
        if docs is not None:
            columns, group = _with_doc_column(columns, docs, notes)
    df = _frame(columns)
    info = FileInfo(path=str(path), format=recognised or fmt, encoding=encoding, list_columns=list_columns,
                    group_column=group)
    return df, info


# ----- real shapes: wrapped records, rows without names, nested objects, list cells


def _unwrap(records: list, notes: list[str]) -> list:
    records, depth = unwrap(records)
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
    names = headless_names(width)
    return {n: [_cell(r[i], n, list_columns) if i < len(r) else "" for r in rows] for i, n in enumerate(names)}


def _flat_columns(records: list[dict], list_columns: list[str]) -> dict[str, list[str]]:
    """Nested objects flattened to dotted names (``meta.accusation``), the names
    ``pandas.json_normalize(records, sep=".")`` gives. Written here because json_normalize
    builds typed columns: integers in a column with gaps come back as floats (7 -> 7.0),
    and every cell must stay the text the file holds."""
    flat = []
    keys: dict[str, None] = {}
    for record in records:
        row: dict[str, Any] = {}
        flatten(record, "", row)
        keys.update(dict.fromkeys(row))
        flat.append(row)
    return {k: [_cell(r.get(k), k, list_columns) for r in flat] for k in keys}


def _with_doc_column(columns: dict[str, list[str]], docs: list[int], notes: list[str]
                     ) -> tuple[dict[str, list[str]], str]:
    name = "doc"
    while name in columns:
        name = "_" + name
    notes.append(documents_note(name))
    return {name: [str(d) for d in docs], **columns}, name


def _records_from_object(doc: dict, notes: list[str]) -> list:
    """A top-level object is one record, unless it just wraps the list of records."""
    if not any(k in doc for k in ("messages", "conversations")):
        lists = [k for k, v in doc.items() if isinstance(v, list) and v
                 and (all(isinstance(x, dict) for x in v) or all(isinstance(x, list) for x in v))]
        if len(lists) == 1:
            notes.append(f"records taken from the list under '{lists[0]}'")
            return doc[lists[0]]
    return [doc]
