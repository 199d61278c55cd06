"""JSON and JSONL: arrays of records, one record per line, records wrapped in an object."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import DataError
from .base import _BOM, FileInfo, _frame, _json_kind, _Reporter
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
            if exc.msg != "Extra data" and not _is_json_object(first_line):
                raise _json_error(name, exc) from None
            records, fmt = _parse_jsonl(name, text, report), "jsonl"
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
    bad = next((i for i, r in enumerate(records) if not isinstance(r, dict)), None)
    if bad is not None:
        where = f"line {bad + 1}" if fmt == "jsonl" else f"item {bad + 1} of the list"
        raise DataError(
            f"'{name}': {where} is {_json_kind(records[bad])}, but every record must be an "
            "object with named fields, like {\"text\": \"...\", \"label\": \"...\"}. Fix that record."
        )
    recognised, columns = _normalise_records(name, records, notes)
    df = _frame(columns)
    info = FileInfo(path=str(path), format=recognised or fmt, encoding=encoding)
    return df, info


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


def _records_from_object(doc: dict, notes: list[str]) -> list:
    """A top-level object is one record, unless it just wraps the list of records."""
    if not any(k in doc for k in ("messages", "conversations")):
        lists = [k for k, v in doc.items() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        if len(lists) == 1:
            notes.append(f"records taken from the list under '{lists[0]}'")
            return doc[lists[0]]
    return [doc]
