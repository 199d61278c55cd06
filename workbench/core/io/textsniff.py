"""How a text file is cut into rows: the decisions the importer and every exported bundle's
reader share (whether a text file of any suffix is JSON or a table, which delimiter splits the
lines, the sample the choices are made on, which values a JSON file holds and where a JSON
Lines file is broken, a spreadsheet cell's text).

Standard library only, and no import from the workbench: export copies this file into each
bundle (as ``io_sniff.py``, beside ``header.py`` as ``io_header.py``), so that the bundle's
predict.py reads a file as ``workbench predict`` does, from one source. Errors are raised as
:class:`TextFileError` with the message for the user; the importer turns them into its
``DataError``.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import math
import re

SAMPLE_BYTES = 64 * 1024  # the start of a file the delimiter, the encoding and the header are told from
BOM = "\ufeff"
DELIMITERS = (",", "\t", ";", "|")
DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}


class TextFileError(ValueError):
    """A file that cannot be read as it is; the message says what was wrong and what to do.

    ``code`` and ``fields`` name the problem as the importer's errors do (core.errors), so the
    importer passes them on; a bundle's reader prints the message alone."""

    def __init__(self, message: str, *, code: str | None = None, **fields):
        super().__init__(message)
        self.code = code
        self.fields = fields


# ----- what a text file holds, whatever its name -------------------------------------------------

JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
# Files named as tables. Any other text file (.txt, .dat, .data, .tab, no suffix at all) is read
# by its content: JSON where it starts as JSON does, else a table whose delimiter is sniffed.
TABLE_SUFFIXES = (".csv", ".tsv")
_TAB_SUFFIXES = (".tsv", ".tab")
# an object's first key, or a list of objects, lists or strings: not a table's first line
# ("[公告]某公司…" starts with a bracket too)
_JSON_START = re.compile(r'\s*(?:\{\s*["}]|\[\s*[\[{"\]])')


def reads_as_json(suffix: str, text: str) -> bool:
    """Whether a text file is read as JSON: it is named so, or, not named as a table, its
    text starts as JSON does."""
    suffix = suffix.lower()
    if suffix in JSON_SUFFIXES:
        return True
    return suffix not in TABLE_SUFFIXES and bool(_JSON_START.match(text.lstrip(BOM)))


def preferred_delimiter(suffix: str) -> str:
    """The delimiter that wins a tie between delimiters that cut the lines equally well."""
    return "\t" if suffix.lower() in _TAB_SUFFIXES else ","


def one_value_per_line(suffix: str, delimiter: str | None) -> bool:
    """A text file in which no delimiter was found holds one value a line, quotes and commas
    and all; only a file named .csv or .tsv keeps quotes around a value of its one column."""
    return delimiter is None and suffix.lower() not in TABLE_SUFFIXES


def sniff_delimiter(text: str, complete: bool, preferred: str) -> str | None:
    """The delimiter that splits the sample's lines into the same number of fields as the first
    line, or None when none does (then every line is one value). A first line of one field
    never has a delimiter: a one-column file whose texts hold commas is not cut at them."""
    if not complete and "\n" in text:
        text = text[: text.rindex("\n") + 1]  # drop the cut-off last line
    order = [preferred] + [d for d in DELIMITERS if d != preferred]
    best, best_score = None, 0.0
    for delim in order:
        try:
            rows = [r for r in csv.reader(io.StringIO(text), delimiter=delim) if r]
        except csv.Error:
            continue
        if not rows or len(rows[0]) < 2:
            continue
        width = len(rows[0])
        body = rows[1:] or rows[:1]
        fits = sum(1 for r in body if len(r) == width or (len(r) == width + 1 and r[-1] == ""))
        score = fits / len(body)
        if score > best_score + 1e-9:
            best, best_score = delim, score
    return best if best_score >= 0.5 else None


def sample_rows(text: str, complete: bool, delimiter: str, one_column: bool, limit: int) -> list[list[str]]:
    """The sample's first ``limit`` rows as cells, the way the whole file will be cut
    (``one_column``: each non-blank line is one value); what the header is judged on."""
    if not complete and "\n" in text:
        text = text[: text.rindex("\n") + 1]
    text = text.lstrip(BOM)
    if one_column:
        return [[line] for line in text.splitlines() if line.strip()][:limit]
    try:
        rows = [r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if any(c.strip() for c in r)]
    except csv.Error:
        return []
    return rows[:limit]


# ----- JSON: which values a file holds, and the shapes real exports give them ---------------------


def json_values(text: str, suffix: str, name: str, report=None) -> tuple[list, str, list[int] | None, bool]:
    """``(values, fmt, docs, by_lines)`` of a JSON or JSON Lines text (without its BOM):
    one JSON document (``fmt`` "json"), or one value a line, or pretty-printed objects one
    after another (``fmt`` "jsonl"). Lines that are arrays of records are one document
    each: ``values`` are then the records and ``docs`` the number of each one's line.
    ``by_lines``: a file not named as JSON Lines was read line by line. ``report`` (optional)
    is called with a fraction between 0.3 and 0.7 every 100,000 lines."""
    stripped = text.lstrip()
    if not stripped:
        raise TextFileError(f"'{name}' is empty (it holds only blank space). Choose a file that contains data.",
                            code="file_blank", name=name)
    named_lines = suffix.lower() in (".jsonl", ".ndjson")
    first_line = stripped.split("\n", 1)[0]
    if stripped[0] == "[":
        try:
            return json.loads(text), "json", None, False
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data" or not _is_json(first_line, list):
                raise _json_error(name, exc) from None
        # one array per line: JSON Lines whose lines are rows, or documents of records
        values, docs = documents(_parse_lines(name, text, list, report))
        return values, "jsonl", docs, not named_lines
    if stripped[0] == "{":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            if _is_json(first_line, dict):
                return _parse_lines(name, text, dict, report), "jsonl", None, not named_lines
            if exc.msg == "Extra data":  # pretty-printed objects one after another
                return _parse_stream(name, text), "jsonl", None, False
            raise _json_error(name, exc) from None
        return ([doc], "jsonl", None, False) if named_lines else (doc, "json", None, False)
    raise TextFileError(f"'{name}' is not valid JSON: it should start with '[' (a list of records) or "
                        "'{' (one record per line, JSONL). Check that the file really is JSON.",
                        code="json_bad_start", name=name)


def documents(lines: list) -> tuple[list, list[int] | None]:
    """Lines that are arrays of records (``[{"labels": …, "sentence": …}, …]``, one document
    a line) become one row per record, each with the number of its line; other arrays are rows."""
    if not lines or not all(isinstance(x, dict) for line in lines for x in line) \
            or not any(line for line in lines):
        return lines, None
    records, docs = [], []
    for number, line in enumerate(lines, 1):
        records += line
        docs += [number] * len(line)
    return records, docs


def unwrap(records: list) -> tuple[list, int]:
    """A list of one-element lists (``[[{...}], [{...}]]`` or ``[[[text, code]], ...]``) is
    the list of those elements, unwrapped as many levels deep as it goes; and that depth."""
    depth = 0
    while records and all(isinstance(r, list) and len(r) == 1 for r in records) \
            and any(isinstance(r[0], (list, dict)) for r in records):
        records = [r[0] for r in records]
        depth += 1
    return records, depth


def flatten(record: dict, prefix: str = "", out: dict | None = None) -> dict:
    """Nested objects as dotted names (``meta.accusation``); an empty object stays a value."""
    out = {} if out is None else out
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            flatten(value, name + ".", out)
        else:
            out[name] = value
    return out


def _is_json(line: str, kind: type) -> bool:
    try:
        return isinstance(json.loads(line), kind)
    except json.JSONDecodeError:
        return False


def _json_error(name: str, exc: json.JSONDecodeError) -> TextFileError:
    return TextFileError(f"'{name}' is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}. "
                         "Fix the file there (a missing comma, quote or bracket is the usual cause) and try again.",
                         code="json_invalid", name=name, detail=exc.msg, line=exc.lineno, column=exc.colno)


def _parse_lines(name: str, text: str, kind: type, report=None) -> list:
    """The values of a JSON Lines text, one per non-blank line; a broken line is named by its
    number in the file (not by json's line within that line, which is always 1)."""
    values, loads = [], json.loads
    lines = text.splitlines()
    total = max(1, len(lines))
    what = "object" if kind is dict else "array"
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = loads(line)
        except json.JSONDecodeError as exc:
            raise TextFileError(
                f"'{name}': line {number} is not valid JSON ({exc.msg}, column {exc.colno}). "
                f"In a JSONL file every line must hold one complete JSON {what}. Fix that line and try again.",
                code="jsonl_line_invalid", name=name, line=number, detail=exc.msg, column=exc.colno,
            ) from None
        if kind is list and not isinstance(value, list):
            kind_of = "an object" if isinstance(value, dict) else "a single value"
            raise TextFileError(f"'{name}': line {number} is {kind_of}, but the lines before it are arrays "
                                "([…]). Make every line the same kind and try again.",
                                code="jsonl_line_not_array", name=name, line=number)
        values.append(value)
        if report is not None and number % 100_000 == 0:
            report(0.3 + 0.4 * number / total)
    return values


def _parse_stream(name: str, text: str) -> list:
    """JSON values one after another, each over several lines (pretty-printed JSONL)."""
    decoder = json.JSONDecoder()
    values, pos, end = [], 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return values
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _json_error(name, exc) from None
        values.append(value)


def json_cell(value) -> str:
    """A JSON value as a cell's text: null as "", true/false, numbers as written (1.0 stays
    "1.0"), lists and objects as JSON text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return str(value)


# ----- a spreadsheet's cells as the text a user sees in them -----------------------------------


def excel_cell(value) -> str:
    """What openpyxl gives for a cell, as text: whole numbers without ".0" (Excel stores every
    number as a float), dates without a midnight time, TRUE/FALSE."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))
        return repr(value)
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)  # timedelta, int, ...
