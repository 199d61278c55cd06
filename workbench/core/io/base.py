"""What every reader shares: FileInfo, progress, the text of a cell, the final column clean-up."""

from __future__ import annotations

import base64
import io
import math
import re
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from ..errors import DataError
from .textsniff import JSON_SUFFIXES, SAMPLE_BYTES, TABLE_SUFFIXES, json_cell

Progress = Callable[[float], None]


_CSV_SUFFIXES = TABLE_SUFFIXES  # .csv, .tsv; every other text file is read by its content


_EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls")


_JSON_SUFFIXES = JSON_SUFFIXES


_PARQUET_SUFFIXES = (".parquet",)


_TFRECORD_SUFFIXES = (".tfrecord", ".tfrecords")


# Suffixes text tables often have besides .csv and .tsv
_TEXT_SUFFIXES = (".txt", ".tab", ".dat", ".data")


# The suffixes a file dialog lists as data files. A file of any other suffix, or of none, is read
# all the same: a text file by its content, a workbook, Parquet or TFRecord file by its first bytes.
SUPPORTED_SUFFIXES: tuple[str, ...] = (
    _CSV_SUFFIXES + _TEXT_SUFFIXES + _EXCEL_SUFFIXES + _JSON_SUFFIXES + _PARQUET_SUFFIXES + _TFRECORD_SUFFIXES
)


_SAMPLE_BYTES = SAMPLE_BYTES  # one sample size for the importer and the bundles (textsniff)


_CHUNK_BYTES = 1 << 20  # text per chunk when reading CSV/TSV (see _read_delimited)


_BOM = "\ufeff"


class FileInfo(BaseModel):
    """What was found in a file: its format, how it was decoded, its columns and a preview."""

    path: str
    # csv | tsv | excel | json | jsonl | parquet | alpaca | sharegpt | messages | src_tgt | tfrecord
    format: str
    encoding: str | None = None
    delimiter: str | None = None
    sheets: list[str] | None = None
    sheet: str | None = None
    # CSV/TSV/TXT and Excel: whether the first row was read as the column names
    header: bool | None = None
    columns: list[str] = Field(default_factory=list)
    rows: int = 0
    preview: list[dict] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    # JSON Lines of documents: the column naming each row's document (its line), kept in one split
    group_column: str | None = None
    # columns whose cells hold lists (JSON arrays), written as JSON text; see core.preparing
    list_columns: list[str] = Field(default_factory=list)
    # filled by inspect_file: column -> text | number | list, and the values of columns with few
    kinds: dict[str, str] = Field(default_factory=dict)
    values: dict[str, dict[str, int]] = Field(default_factory=dict)
    # notes a front end says in its own words (see coded_notes): no_header, jsonl, documents
    coded_notes: dict[str, str] = Field(default_factory=dict)
    # filled by inspect_file: role (text, label) -> what the cells say of the column that may hold it
    guesses: dict[str, str] = Field(default_factory=dict)


class _Reporter:
    """Calls the user's progress callback with whole percents, only ever increasing."""

    def __init__(self, callback: Progress | None):
        self._callback = callback
        self._last = -1

    def __call__(self, fraction: float) -> None:
        if self._callback is None:
            return
        percent = int(max(0.0, min(1.0, fraction)) * 100)
        if percent > self._last:
            self._last = percent
            self._callback(percent / 100)


class _ProgressRaw(io.RawIOBase):
    """A read-only view of an open file that reports how far it has been read."""

    def __init__(self, fh, size: int, report: _Reporter):
        self._fh = fh
        self._size = max(1, size)
        self._done = 0
        self._report = report

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = self._fh.readinto(buffer)
        self._done += n or 0
        self._report(self._done / self._size * 0.95)
        return n


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return "a number"


def _text(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return base64.b64encode(bytes(value)).decode("ascii")
    if hasattr(value, "tolist") and not isinstance(value, (int, float)):  # numpy values and arrays
        return _text(value.tolist())
    return json_cell(value)  # the bundles' reader's rule too


def headless_names(width: int) -> list[str]:
    """Names of columns a file does not name: col1 … colN (as for JSON rows without field names)."""
    return [f"col{i}" for i in range(1, width + 1)]


def jsonl_note(name: str) -> str:
    return (f"'{name}' is JSON Lines (one JSON value per line), not one JSON document: "
            "it was read line by line")


def documents_note(column: str) -> str:
    return (f"each line holds a document's records: one row per record, and the column '{column}' "
            "says which line (document) it came from; the split keeps each document in one part")


def coded_notes(info: "FileInfo", name: str, width: int) -> dict[str, str]:
    """The notes a front end may say in its own words: code -> the note as in ``info.notes``."""
    found = {"no_header": headless_note(width) if info.header is False else None, "jsonl": jsonl_note(name),
             "documents": documents_note(info.group_column) if info.group_column else None}
    return {code: note for code, note in found.items() if note is not None and note in info.notes}


# The readers' other notes, each with a code and the figures and names a front end needs to say
# it in its own words (the window in Chinese): code -> the pattern of the note as the readers
# write it. A note that no pattern matches is shown as it is.
NOTE_PATTERNS = {
    "finetune_alpaca": r"recognised alpaca format: mapped to (?P<columns>[\w/]+)",
    "finetune_src_tgt": r"recognised PaddleNLP src/tgt format: mapped to (?P<columns>[\w/]+)",
    "finetune_chat": r"recognised (?:OpenAI messages|ShareGPT) format: one row per conversation, mapped to "
                     r"(?P<columns>[\w/]+) \(",
    "unanswered": r"(?P<count>\d+) conversation\(s\) do not end with an assistant turn",
    "unnamed_columns": r"(?P<count>\d+) column\(s\) had no name in the header",
    "renamed_columns": r"duplicate column names were made unique: (?P<names>.+)",
    "no_delimiter": r"no delimiter found: each line was read as one text value",
    "delimiter": r"columns are separated by (?P<name>comma|tab|semicolon|vertical bar)s",
    "late_encoding": r"encoding recognised from beyond the first part of the file: (?P<encoding>\S+)",
    "trailing_delimiter": r"each line ends with a delimiter",
    "sheet": r"read sheet '(?P<sheet>.*)' of (?P<count>\d+) sheets",
    "nameless_fields": r"the records are lists without field names; their fields are named col1 … col(?P<count>\d+)",
    "unwrapped": r"every record was wrapped in a list of one \((?P<depth>\d+) level\(s\)\)",
    "records_key": r"records taken from the list under '(?P<key>.*)'",
    "base64": r"features holding non-text bytes were kept as base64: (?P<names>.+)",
    "gzip": r"file is gzip-compressed",
}
_NOTE_RES = {code: re.compile(pattern, re.DOTALL) for code, pattern in NOTE_PATTERNS.items()}


def note_code(note: str) -> tuple[str, dict[str, str]] | None:
    """(code, its figures and names) of a reader's note (see :data:`NOTE_PATTERNS`), or None."""
    for code, pattern in _NOTE_RES.items():
        m = pattern.match(note)
        if m:
            return code, m.groupdict()
    return None


def headless_note(width: int) -> str:
    return (f"the first line holds data, not column names: it was read as a row, and the columns "
            f"are named col1 … col{width}")


def _records_to_columns(records: list[dict], skip: Iterable[str] = ()) -> dict[str, list[str]]:
    skip = set(skip)
    keys: dict[str, None] = {}
    for record in records:
        keys.update(dict.fromkeys(record))
    return {k: [_text(r.get(k)) for r in records] for k in keys if k not in skip}


def _frame(columns: dict[Any, list[str]]) -> pd.DataFrame:
    """A DataFrame of text columns with the installed pandas' default string dtype."""
    if not columns:
        return pd.DataFrame()
    return pd.DataFrame(columns, dtype=str)


def _finish_columns(df: pd.DataFrame, name: str, notes: list[str]) -> pd.DataFrame:
    """Strip header names, name blank ones, make duplicates unique; never NaN cells."""
    if len(df.columns) == 0:
        raise DataError(f"'{name}' has no columns. The first line or record should name the columns.",
                        code="file_without_columns", name=name)
    cleaned = []
    blank = 0
    for i, column in enumerate(df.columns, 1):
        text = "" if column is None or (isinstance(column, float) and math.isnan(column)) else str(column)
        text = text.replace(_BOM, "").strip()
        if not text or re.fullmatch(r"Unnamed: \d+", text):
            text = f"column_{i}"
            blank += 1
        cleaned.append(text)
    if blank:
        notes.append(f"{blank} column(s) had no name in the header and were named column_<position>")
    seen: set[str] = set()
    unique, renamed = [], []
    for column in cleaned:
        if column in seen:
            k = 1
            while f"{column}.{k}" in seen or f"{column}.{k}" in cleaned:
                k += 1
            renamed.append(f"{column} -> {column}.{k}")
            column = f"{column}.{k}"
        seen.add(column)
        unique.append(column)
    if renamed:
        notes.append("duplicate column names were made unique: " + ", ".join(renamed))
    if [str(c) for c in df.columns] != unique:
        df.columns = unique
    # Cells are never missing: short CSV rows and null values come back as "".
    for column in df.columns:
        series = df[column]
        if series.hasnans:
            df[column] = series.fillna("")
    return df
