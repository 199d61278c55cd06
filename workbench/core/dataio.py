"""Reading the user's data files into a table of text.

One entry point for every format the Data page accepts: CSV/TSV/TXT (encoding and
delimiter detected), Excel, JSON, JSONL, Parquet and TFRecord. Fine-tuning formats
(alpaca, ShareGPT, OpenAI-style messages, PaddleNLP src/tgt) are recognised and flattened
into ordinary columns, so that the rest of the program only ever sees a table.

Every cell comes back as text (blank or missing cells as ""), so an ID such as
"000123" or an 18-digit number is never turned into a number. The user's file is only
ever opened for reading. Anything wrong with the file is raised as a ``DataError`` whose
message says what was wrong and what to do.
"""

from __future__ import annotations

import base64
import codecs
import csv
import gzip
import io
import json
import math
import os
import re
import struct
import zlib
from collections.abc import Callable, Iterable
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field

from workbench.core.errors import DataError

__all__ = ["FileInfo", "SUPPORTED_SUFFIXES", "inspect_file", "read_table"]

Progress = Callable[[float], None]

_CSV_SUFFIXES = (".csv", ".tsv", ".txt")
_EXCEL_SUFFIXES = (".xlsx", ".xlsm", ".xls")
_JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
_PARQUET_SUFFIXES = (".parquet",)
_TFRECORD_SUFFIXES = (".tfrecord", ".tfrecords")

SUPPORTED_SUFFIXES: tuple[str, ...] = (
    _CSV_SUFFIXES + _EXCEL_SUFFIXES + _JSON_SUFFIXES + _PARQUET_SUFFIXES + _TFRECORD_SUFFIXES
)

_SAMPLE_BYTES = 64 * 1024
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
    columns: list[str] = Field(default_factory=list)
    rows: int = 0
    preview: list[dict] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    # columns whose cells hold lists (JSON arrays), written as JSON text; see core.preparing
    list_columns: list[str] = Field(default_factory=list)


def inspect_file(path: str | os.PathLike, sheet: str | None = None, preview_rows: int = 5) -> FileInfo:
    """Describe a file: format, encoding, sheets, columns, exact row count and a preview.

    The whole file is read, so the row count is exact and every problem is found now
    rather than later.
    """
    _, info = _read(path, sheet, None, preview_rows)
    return info


def read_table(
    path: str | os.PathLike,
    sheet: str | None = None,
    progress: Progress | None = None,
) -> tuple[pd.DataFrame, FileInfo]:
    """Read a file into a DataFrame of text columns (missing cells are "").

    ``progress`` (optional) is called with a fraction between 0 and 1 as the file is read,
    from the calling thread; it ends with 1.0.
    """
    return _read(path, sheet, progress, 5)


# --------------------------------------------------------------------------- dispatch


def _read(path, sheet, progress, preview_rows) -> tuple[pd.DataFrame, FileInfo]:
    p = Path(path)
    name = p.name
    if not p.exists():
        raise DataError(f"The file '{p}' was not found. Check the path, or pick the file again.")
    if p.is_dir():
        raise DataError(f"'{p}' is a folder, not a file. Choose one data file inside it.")
    suffix = p.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DataError(
            f"'{name}' has the suffix '{p.suffix or '(none)'}', which Workbench cannot read. "
            f"Supported file types are: {', '.join(SUPPORTED_SUFFIXES)}. "
            "Save or export the data in one of these formats and import it again."
        )
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise DataError(f"'{name}' cannot be read ({exc.strerror}). Check that you may open it.") from None
    if size == 0:
        raise DataError(f"'{name}' is empty (0 bytes). Choose a file that contains data.")

    report = _Reporter(progress)
    notes: list[str] = []
    try:
        if suffix in _CSV_SUFFIXES:
            df, info = _read_delimited(p, size, suffix, report, notes)
        elif suffix in _EXCEL_SUFFIXES:
            df, info = _read_excel(p, sheet, notes)
        elif suffix in _JSON_SUFFIXES:
            df, info = _read_json(p, size, report, notes)
        elif suffix in _PARQUET_SUFFIXES:
            df, info = _read_parquet(p, notes)
        else:
            df, info = _read_tfrecord(p, size, report, notes)
    except PermissionError:
        raise DataError(f"'{name}' cannot be opened: permission denied. Check that you may read it.") from None
    except MemoryError:
        raise DataError(
            f"'{name}' is too large to load into memory on this computer. "
            "Split it into smaller files or close other programs and try again."
        ) from None
    except OSError as exc:
        raise DataError(f"'{name}' could not be read ({exc.strerror or exc}). Check the file and try again.") from None

    df = _finish_columns(df, name, notes)
    if len(df) == 0:
        raise DataError(
            f"'{name}' has no data rows: only a header (column names) was found. "
            "Add at least one row of data below the header."
        )
    info.path = str(p)
    info.columns = [str(c) for c in df.columns]
    info.rows = int(len(df))
    info.preview = [
        {str(k): ("" if v is None else str(v)) for k, v in row.items()}
        for row in df.head(max(0, preview_rows)).to_dict("records")
    ]
    info.notes = notes
    report(1.0)
    return df, info


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


# --------------------------------------------------------------------------- encodings

_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a zip archive (an .xlsx workbook is one)"),
    (b"\xd0\xcf\x11\xe0", "an old-style Office document (.xls/.doc)"),
    (b"\x1f\x8b", "a gzip-compressed file"),
    (b"PAR1", "a Parquet file"),
    (b"SQLite format 3", "an SQLite database"),
)


def _not_text(name: str, head: bytes) -> DataError:
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return DataError(
                f"'{name}' is not a text file: it looks like {what}. "
                "Check that you picked the right file, or give it the suffix that matches its real type."
            )
    return DataError(
        f"'{name}' does not contain readable text (it looks like binary data, or uses an "
        "encoding that could not be recognised). Save it again as UTF-8 text "
        "(in Excel: 'CSV UTF-8') and import it again."
    )


def _decodes(sample: bytes, encoding: str, final: bool) -> bool:
    try:
        codecs.getincrementaldecoder(encoding)("strict").decode(sample, final)
    except (UnicodeDecodeError, LookupError):
        return False
    return True


def _detect_encoding(name: str, sample: bytes, complete: bool) -> str:
    """Cheap exact checks first (BOM, strict UTF-8, GB18030), charset-normalizer last."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in sample:
        # Text without a BOM has no NUL bytes, except UTF-16 whose every other byte is
        # NUL for ASCII characters.
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) > 0.3 * len(odd) and even.count(0) == 0 and _decodes(sample, "utf-16-le", complete):
            return "utf-16-le"
        if even.count(0) > 0.3 * len(even) and odd.count(0) == 0 and _decodes(sample, "utf-16-be", complete):
            return "utf-16-be"
        raise _not_text(name, sample)
    for head, _ in _MAGIC[:5]:
        if sample.startswith(head):
            raise _not_text(name, sample)
    if _decodes(sample, "utf-8", complete):
        return "utf-8"
    if _decodes(sample, "gb18030", complete):
        return "gb18030"
    from charset_normalizer import from_bytes

    best = from_bytes(sample).best()
    if best is None or best.encoding is None:
        raise _not_text(name, sample)
    return best.encoding


def _read_sample(path: Path, size: int) -> tuple[bytes, bool]:
    with open(path, "rb") as fh:
        sample = fh.read(_SAMPLE_BYTES)
    return sample, len(sample) >= size


def _decode_sample(sample: bytes, encoding: str) -> str:
    return codecs.getincrementaldecoder(encoding)("replace").decode(sample, False)


# --------------------------------------------------------------------------- CSV / TSV / TXT

_DELIMITERS = (",", "\t", ";", "|")
_DELIMITER_NAMES = {",": "comma", "\t": "tab", ";": "semicolon", "|": "vertical bar"}


def _sniff_delimiter(text: str, complete: bool, preferred: str) -> str | None:
    """The delimiter that splits the sample's lines into the same number of fields as the header."""
    if not complete and "\n" in text:
        text = text[: text.rindex("\n") + 1]  # drop the cut-off last line
    order = [preferred] + [d for d in _DELIMITERS if d != preferred]
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


_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")
_EOF_QUOTE = re.compile(r"EOF inside string starting (?:at|with) (?:row|line) (\d+)", re.I)


def _read_delimited(path: Path, size: int, suffix: str, report: _Reporter, notes: list[str]):
    name = path.name
    sample, complete = _read_sample(path, size)
    encoding = _detect_encoding(name, sample, complete)
    text = _decode_sample(sample, encoding)
    if not text.strip(_BOM + " \t\r\n"):
        raise DataError(f"'{name}' is empty (it holds only blank lines). Choose a file that contains data.")

    preferred = "\t" if suffix == ".tsv" else ","
    delimiter = _sniff_delimiter(text, complete, preferred)
    single_column = delimiter is None
    if single_column:
        delimiter = preferred
        if suffix == ".txt":
            notes.append("no delimiter found: each line was read as one text value")
    elif delimiter != preferred:
        notes.append(f"columns are separated by {_DELIMITER_NAMES[delimiter]}s")

    options: dict[str, Any] = dict(
        sep=delimiter,
        encoding=encoding,
        dtype=str,
        na_filter=False,  # keep every cell as written; blanks stay ""
        engine="c",
        skip_blank_lines=True,
    )
    if single_column and suffix == ".txt":
        # One value per line: no delimiter, and quotes are part of the text.
        options.update(sep="\x1f", quoting=csv.QUOTE_NONE)

    # Read in chunks of about a megabyte of text: turning the parsed cells into strings
    # holds the interpreter lock, and in one piece a million rows would hold it for
    # hundreds of milliseconds at a time, freezing a window that reads on a background
    # thread. Chunks let other threads run in between (and are not slower).
    line_bytes = max(16, len(sample) // max(1, sample.count(b"\n")))
    chunk_rows = int(min(100_000, max(1_000, _CHUNK_BYTES // line_bytes)))

    def read(**extra):
        with open(path, "rb") as fh:
            source = io.BufferedReader(_ProgressRaw(fh, size, report), 1 << 20)
            with pd.read_csv(source, chunksize=chunk_rows, **{**options, **extra}) as reader:
                chunks = list(reader)
        if not chunks:  # only a header: read again (small) for the columns
            with open(path, "rb") as fh:
                return pd.read_csv(fh, **{**options, **extra})
        if len(chunks) == 1:
            return chunks[0]
        # every chunk keeps the row numbering of the whole file, so a RangeIndex stays one
        return pd.concat(chunks, ignore_index=isinstance(chunks[0].index, pd.RangeIndex))

    def read_header() -> list:
        # The header as written (pandas would already have renamed duplicates and blanks).
        with open(path, "rb") as fh:
            return pd.read_csv(fh, **{**options, "header": None, "nrows": 1}).iloc[0].tolist()

    def load() -> pd.DataFrame:
        df = read()
        if not isinstance(df.index, pd.RangeIndex):
            # The first data row had one field more than the header, so pandas took the
            # first column as an index. Read again with a spare column to see what it holds.
            df = _extra_column_check(read, name, len(df.columns) + 1, header, notes)
        return df

    try:
        header = read_header()
        df = load()
    except pd.errors.EmptyDataError:
        raise DataError(f"'{name}' has no columns: no header line was found. "
                        "The first line should hold the column names.") from None
    except pd.errors.ParserError as exc:
        raise _parser_error(name, str(exc), delimiter) from None
    except UnicodeDecodeError as exc:
        if not _ascii_start(sample, complete, encoding):
            raise _mixed_encoding(name, encoding, exc) from None
        # The first part was plain ASCII, so it could not tell UTF-8 from GBK; the rest can.
        notes.append("encoding recognised from beyond the first part of the file: gb18030")
        encoding = options["encoding"] = "gb18030"
        try:
            header = read_header()
            df = load()
        except UnicodeDecodeError as exc2:
            raise _mixed_encoding(name, encoding, exc2) from None
        except pd.errors.ParserError as exc2:
            raise _parser_error(name, str(exc2), delimiter) from None

    if len(header) == len(df.columns):
        df.columns = ["" if isinstance(h, float) else str(h) for h in header]
    fmt = "tsv" if options["sep"] == "\t" else "csv"
    info = FileInfo(
        path=str(path),
        format=fmt,
        encoding=encoding,
        delimiter=None if options["sep"] == "\x1f" else delimiter,
    )
    return df, info


def _ascii_start(sample: bytes, complete: bool, encoding: str) -> bool:
    return encoding == "utf-8" and not complete and sample.isascii()


def _mixed_encoding(name: str, encoding: str, exc: UnicodeDecodeError) -> DataError:
    return DataError(
        f"'{name}' could not be decoded as {encoding} text (a byte at position {exc.start} "
        "does not fit). The file probably mixes encodings. Save it again as UTF-8 "
        "(in Excel: 'CSV UTF-8') and import it again."
    )


def _extra_column_check(read, name: str, width: int, header: list, notes: list[str]) -> pd.DataFrame:
    df = read(header=None, names=list(range(width)), skiprows=1, index_col=False)
    last = df[width - 1]
    filled = last.fillna("").astype(str) != ""
    if filled.any():
        row = int(filled.to_numpy().argmax()) + 1
        raise DataError(
            f"'{name}' has rows with more fields than the header has column names "
            f"(the first is data row {row}, counting from the line after the header: "
            f"{width} fields, header {width - 1}). "
            "A value probably contains the delimiter without quotes. Quote that value, "
            "or add the missing column name to the header, and import the file again."
        )
    notes.append("each line ends with a delimiter: the empty last field was ignored")
    df = df.drop(columns=[width - 1])
    df.columns = [str(h) for h in header[: width - 1]]
    return df


def _parser_error(name: str, message: str, delimiter: str) -> DataError:
    match = _RAGGED.search(message)
    if match:
        expected, line, saw = match.groups()
        return DataError(
            f"'{name}' is not a regular table: line {line} has {saw} fields but the header has "
            f"{expected} (fields are separated by {_DELIMITER_NAMES.get(delimiter, repr(delimiter))}s). "
            "A value probably contains the delimiter without quotes. Put that value in double "
            "quotes, or fix the line, and import the file again."
        )
    match = _EOF_QUOTE.search(message)
    if match:
        return DataError(
            f"'{name}' has a quote (\") that is never closed, starting at row {match.group(1)}. "
            "Close or remove the stray quote and import the file again."
        )
    return DataError(f"'{name}' could not be read as a table ({message.strip()}). "
                     "Check that it is a CSV/TSV file and import it again.")


# --------------------------------------------------------------------------- Excel


def _excel_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**53:
            return str(int(value))  # Excel stores every number as a float
        return repr(value)
    if isinstance(value, datetime):
        if value.time() == time(0):
            return value.date().isoformat()
        return value.isoformat(sep=" ")
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return str(value)
    return str(value)


def _excel_rows(path: Path, sheet: str | None) -> tuple[list[str], str, list[list[Any]]]:
    name = path.name
    with open(path, "rb") as fh:
        head = fh.read(8)
    if not head.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        what = "text (perhaps a CSV file)" if _looks_like_text(head) else "some other kind of file"
        raise DataError(
            f"'{name}' is not a real Excel workbook: its content looks like {what}. "
            "Open it in Excel and save it as .xlsx, or give it the suffix of its real type."
        )
    try:
        import python_calamine
    except ImportError:  # pragma: no cover - calamine is a declared dependency
        python_calamine = None
    if python_calamine is None:
        return _excel_rows_openpyxl(path, sheet)
    try:
        with open(path, "rb") as fh:
            book = python_calamine.CalamineWorkbook.from_filelike(fh)
            sheets = list(book.sheet_names)
            chosen = _choose_sheet(name, sheets, sheet)
            rows = book.get_sheet_by_name(chosen).to_python(skip_empty_area=True)
    except DataError:
        raise
    except Exception as exc:  # calamine raises its own error types, zip and xml errors
        raise _bad_excel(name, exc) from None
    return sheets, chosen, rows


def _excel_rows_openpyxl(path: Path, sheet: str | None):  # pragma: no cover - fallback
    import openpyxl

    try:
        with open(path, "rb") as fh:
            book = openpyxl.load_workbook(fh, read_only=True, data_only=True)
            sheets = list(book.sheetnames)
            chosen = _choose_sheet(path.name, sheets, sheet)
            rows = [list(r) for r in book[chosen].iter_rows(values_only=True)]
            book.close()
    except DataError:
        raise
    except Exception as exc:
        raise _bad_excel(path.name, exc) from None
    return sheets, chosen, rows


def _bad_excel(name: str, exc: Exception) -> DataError:
    return DataError(
        f"'{name}' could not be opened as an Excel workbook ({exc}). It may be damaged, "
        "password-protected or not really an Excel file. Open it in Excel, save it again "
        "as .xlsx, and import it again."
    )


def _choose_sheet(name: str, sheets: list[str], sheet: str | None) -> str:
    if not sheets:
        raise DataError(f"'{name}' contains no worksheets. Add a sheet with data and import it again.")
    if sheet is None:
        return sheets[0]
    if sheet not in sheets:
        listed = ", ".join(f"'{s}'" for s in sheets)
        raise DataError(f"'{name}' has no sheet named '{sheet}'. Its sheets are: {listed}. Choose one of them.")
    return sheet


def _read_excel(path: Path, sheet: str | None, notes: list[str]):
    sheets, chosen, rows = _excel_rows(path, sheet)
    texts = [[_excel_cell(v) for v in row] for row in rows]
    texts = [row for row in texts if any(row)]  # blank rows, as in CSV
    if not texts:
        raise DataError(
            f"Sheet '{chosen}' of '{path.name}' is empty. Choose the sheet that holds the data"
            + (f" (sheets: {', '.join(sheets)})." if len(sheets) > 1 else ".")
        )
    width = max(len(r) for r in texts)
    texts = [r + [""] * (width - len(r)) for r in texts]
    header, body = texts[0], texts[1:]
    # Columns with neither a name nor a value are formatting left-overs (a sheet's used range).
    keep = [i for i in range(width) if header[i].strip() or any(r[i] for r in body)]
    header = [header[i] for i in keep]
    columns = {i: [r[i] for r in body] for i in keep}
    df = _frame(columns)
    df.columns = header
    if len(sheets) > 1:
        notes.append(f"read sheet '{chosen}' of {len(sheets)} sheets")
    info = FileInfo(path=str(path), format="excel", sheets=sheets, sheet=chosen)
    return df, info


def _looks_like_text(head: bytes) -> bool:
    return b"\x00" not in head and _decodes(head, "utf-8", False)


# --------------------------------------------------------------------------- JSON / JSONL


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
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=str)
    if hasattr(value, "tolist"):  # numpy values and arrays
        return _text(value.tolist())
    return str(value)


def _records_to_columns(records: list[dict], skip: Iterable[str] = ()) -> dict[str, list[str]]:
    skip = set(skip)
    keys: dict[str, None] = {}
    for record in records:
        keys.update(dict.fromkeys(record))
    return {k: [_text(r.get(k)) for r in records] for k in keys if k not in skip}


# --------------------------------------------------------------------------- fine-tuning formats

_ROLE_ALIASES = {
    "human": "user", "user": "user",
    "gpt": "assistant", "assistant": "assistant", "model": "assistant", "bot": "assistant",
    "chatgpt": "assistant", "bing": "assistant", "bard": "assistant",
    "system": "system",
}


def _content_text(content: Any) -> str:
    """Message content: a string, or OpenAI-style parts [{"type": "text", "text": ...}]."""
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "".join(parts)
    return _text(content)


def _normalise_records(name: str, records: list[dict], notes: list[str]) -> tuple[str | None, dict[str, list[str]]]:
    first = records[0]
    if isinstance(first.get("messages"), list):
        return "messages", _conversations(name, records, "messages", notes)
    if isinstance(first.get("conversations"), list):
        return "sharegpt", _conversations(name, records, "conversations", notes)
    if "instruction" in first and "output" in first:
        return "alpaca", _alpaca(records, notes)
    if "src" in first and "tgt" in first:
        return "src_tgt", _src_tgt(records, notes)
    return None, _records_to_columns(records)


def _conversations(name: str, records: list[dict], key: str, notes: list[str]) -> dict[str, list[str]]:
    columns: dict[str, list[str]] = {c: [] for c in ("system", "instruction", "input", "output", "history")}
    unanswered = 0
    for number, record in enumerate(records, 1):
        turns = record.get(key)
        if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
            raise DataError(
                f"'{name}': record {number} has no '{key}' list of turns like the other records. "
                "Fix or remove that record and import the file again."
            )
        system_parts: list[str] = []
        rest: list[dict[str, str]] = []
        for turn in turns:
            raw_role = turn.get("role", turn.get("from"))
            role = _ROLE_ALIASES.get(str(raw_role).lower(), str(raw_role))
            content = _content_text(turn.get("content", turn.get("value")))
            if role == "system":
                system_parts.append(content)
            else:
                rest.append({"role": role, "content": content})
        if not system_parts and record.get("system"):
            system_parts.append(_text(record["system"]))
        output = ""
        if rest and rest[-1]["role"] == "assistant":
            output = rest.pop()["content"]
        else:
            unanswered += 1
        last_user = max((i for i, t in enumerate(rest) if t["role"] == "user"), default=None)
        if last_user is None:
            instruction, history = "", rest
        else:
            # Turns after the last user turn (tool calls and results) stay in the history.
            instruction = rest[last_user]["content"]
            history = rest[:last_user] + rest[last_user + 1:]
        columns["system"].append("\n".join(system_parts))
        columns["instruction"].append(instruction)
        columns["input"].append("")
        columns["output"].append(output)
        columns["history"].append(json.dumps(history, ensure_ascii=False) if history else "")
    extra = _records_to_columns(records, skip=(key, "system", *columns))
    columns.update(extra)
    label = "OpenAI messages" if key == "messages" else "ShareGPT"
    notes.append(
        f"recognised {label} format: one row per conversation, mapped to "
        "system/instruction/input/output/history (the last user turn is the instruction, "
        "the final assistant turn the output, earlier turns are kept as JSON in history)"
    )
    if unanswered:
        notes.append(f"{unanswered} conversation(s) do not end with an assistant turn: their output is empty")
    return columns


def _pairs_to_history(pairs: Any) -> str:
    """LLaMA-Factory alpaca history [[question, answer], ...] as role/content JSON."""
    if not isinstance(pairs, list) or not pairs:
        return "" if not pairs else _text(pairs)
    turns = []
    for pair in pairs:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            turns.append({"role": "user", "content": _text(pair[0])})
            turns.append({"role": "assistant", "content": _text(pair[1])})
        else:
            return _text(pairs)
    return json.dumps(turns, ensure_ascii=False)


def _alpaca(records: list[dict], notes: list[str]) -> dict[str, list[str]]:
    columns = {c: [_text(r.get(c)) for r in records] for c in ("instruction", "input", "output")}
    if any(r.get("system") for r in records):
        columns["system"] = [_text(r.get("system")) for r in records]
    if any(r.get("history") for r in records):
        columns["history"] = [_pairs_to_history(r.get("history")) for r in records]
    columns.update(_records_to_columns(records, skip=("instruction", "input", "output", "system", "history")))
    notes.append("recognised alpaca format: mapped to instruction/input/output"
                 + ("/system" if "system" in columns else "") + ("/history" if "history" in columns else ""))
    return columns


def _src_tgt(records: list[dict], notes: list[str]) -> dict[str, list[str]]:
    src, tgt, history = [], [], []
    for record in records:
        s, t = record.get("src"), record.get("tgt")
        if isinstance(s, list) and isinstance(t, list) and s and len(s) == len(t):
            # Multi-turn: the last pair is the sample, earlier pairs its history.
            history.append(_pairs_to_history([[a, b] for a, b in zip(s[:-1], t[:-1])]))
            s, t = s[-1], t[-1]
        else:
            history.append("")
        src.append(_text(s))
        tgt.append(_text(t))
    columns = {"src": src, "tgt": tgt}
    if any(history):
        columns["history"] = history
    columns.update(_records_to_columns(records, skip=("src", "tgt", "history")))
    notes.append("recognised PaddleNLP src/tgt format: mapped to src/tgt"
                 + ("/history (multi-turn records)" if "history" in columns else ""))
    return columns


# --------------------------------------------------------------------------- Parquet


def _read_parquet(path: Path, notes: list[str]):
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    name = path.name
    try:
        with open(path, "rb") as fh:
            table = pq.read_table(fh)
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DataError(
            f"'{name}' could not be read as a Parquet file ({exc}). It may be damaged or not "
            "really Parquet. Export it again and import it again."
        ) from None
    names = table.column_names
    if "messages" in names or "conversations" in names or {"instruction", "output"} <= set(names) \
            or {"src", "tgt"} <= set(names):
        records = table.to_pylist()
        if not records:
            return _frame({n: [] for n in names}), FileInfo(path=str(path), format="parquet")
        fmt, columns = _normalise_records(name, records, notes)
        return _frame(columns), FileInfo(path=str(path), format=fmt or "parquet")
    columns: dict[str, Any] = {}
    for col_name, column in zip(names, table.columns):
        t = column.type
        if pa.types.is_string(t) or pa.types.is_large_string(t):
            arr = column
        elif pa.types.is_nested(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t) \
                or pa.types.is_dictionary(t) or pa.types.is_floating(t):
            arr = pa.array([_text(v) for v in column.to_pylist()], pa.string())
        else:
            try:
                arr = pc.cast(column, pa.string())
            except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
                arr = pa.array([_text(v) for v in column.to_pylist()], pa.string())
        columns[col_name] = pc.fill_null(arr, "")
    df = pa.table(columns).to_pandas() if columns else pd.DataFrame()
    df = df.astype(str) if len(df.columns) else df
    return df, FileInfo(path=str(path), format="parquet")


# --------------------------------------------------------------------------- TFRecord
#
# The `tfrecord` package on PyPI reads these files without TensorFlow, but it neither checks
# the records' CRCs nor bounds a record's length before allocating a buffer for it (a damaged
# or mislabelled file can make it allocate gigabytes), fails on a feature with no value, and
# imports torch whenever torch is installed. The framing is 16 bytes per record and
# tf.train.Example is six small messages, so we read both here with the protobuf runtime
# (message classes built from a descriptor at run time), and every failure becomes a DataError.

_EXAMPLE_CLASS = None


def _example_class():
    global _EXAMPLE_CLASS
    if _EXAMPLE_CLASS is not None:
        return _EXAMPLE_CLASS
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="workbench_tf_example.proto", package="tensorflow", syntax="proto3")

    def message(name, fields, parent=None):
        msg = (parent.nested_type if parent is not None else proto.message_type).add(name=name)
        for number, (field_name, ftype, label, type_name, oneof) in enumerate(fields, 1):
            field = msg.field.add(name=field_name, number=number, type=ftype, label=label)
            if type_name:
                field.type_name = type_name
            if oneof is not None:
                field.oneof_index = oneof
        return msg

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    message("BytesList", [("value", F.TYPE_BYTES, rep, None, None)])
    message("FloatList", [("value", F.TYPE_FLOAT, rep, None, None)])
    message("Int64List", [("value", F.TYPE_INT64, rep, None, None)])
    feature = message("Feature", [
        ("bytes_list", F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", 0),
        ("float_list", F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", 0),
        ("int64_list", F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", 0),
    ])
    feature.oneof_decl.add(name="kind")
    # map<string, Feature> is, on the wire, a repeated (key=1, value=2) entry message.
    features = message("Features", [("feature", F.TYPE_MESSAGE, rep, ".tensorflow.Features.Entry", None)])
    message("Entry", [("key", F.TYPE_STRING, opt, None, None),
                      ("value", F.TYPE_MESSAGE, opt, ".tensorflow.Feature", None)], parent=features)
    message("Example", [("features", F.TYPE_MESSAGE, opt, ".tensorflow.Features", None)])

    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    _EXAMPLE_CLASS = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))
    return _EXAMPLE_CLASS


def _masked_crc(data: bytes) -> int:
    import crc32c

    crc = crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _feature_value(feature, key: str, binary: set[str]) -> str:
    kind = feature.WhichOneof("kind")
    if kind is None:
        return ""
    values = list(getattr(feature, kind).value)
    if kind == "bytes_list":
        out = []
        for v in values:
            try:
                out.append(v.decode("utf-8"))
            except UnicodeDecodeError:
                binary.add(key)
                out.append(base64.b64encode(v).decode("ascii"))
        values = out
    elif kind == "float_list":
        import numpy as np

        values = [float(str(np.float32(v))) for v in values]  # shortest text of the float32
    if len(values) == 1:
        return _text(values[0])
    return json.dumps(values, ensure_ascii=False) if values else ""


def _read_tfrecord(path: Path, size: int, report: _Reporter, notes: list[str]):
    name = path.name
    from google.protobuf.message import DecodeError

    Example = _example_class()
    with open(path, "rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if compressed else open
    records: list[dict[str, str]] = []
    binary: set[str] = set()

    def damaged(why: str) -> DataError:
        if not records:
            return DataError(
                f"'{name}' is not a TFRecord file of tf.train.Example records ({why}). "
                "Check that you picked the right file, and that it was written with "
                "tf.io.TFRecordWriter."
            )
        return DataError(
            f"'{name}' is damaged at record {len(records) + 1} ({why}); the {len(records)} records "
            "before it are fine. Write or copy the file again and import it again."
        )

    with opener(path, "rb") as fh:
        try:
            while True:
                header = fh.read(12)
                if not header:
                    break
                if len(header) < 12:
                    raise damaged("the file ends in the middle of a record")
                length, length_crc = struct.unpack("<QI", header)
                if _masked_crc(header[:8]) != length_crc:
                    raise damaged("record length checksum mismatch")
                if not compressed and length > size:
                    raise damaged("record length larger than the file")
                data = fh.read(length)
                footer = fh.read(4)
                if len(data) < length or len(footer) < 4:
                    raise damaged("the file ends in the middle of a record")
                if _masked_crc(data) != struct.unpack("<I", footer)[0]:
                    raise damaged("record data checksum mismatch")
                example = Example()
                try:
                    example.ParseFromString(data)
                except DecodeError:
                    raise damaged("the record is not a tf.train.Example") from None
                records.append({
                    entry.key: _feature_value(entry.value, entry.key, binary)
                    for entry in example.features.feature
                })
                if not compressed and len(records) % 1000 == 0:
                    report(0.9 * fh.tell() / size)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise damaged(f"compressed data is damaged: {exc}") from None
    if not records:
        raise DataError(f"'{name}' has no data rows: it holds no records. Choose a file with data.")
    if binary:
        notes.append("features holding non-text bytes were kept as base64: " + ", ".join(sorted(binary)))
    columns = _records_to_columns(records)
    if not columns:
        raise DataError(f"'{name}' has no columns: its records hold no features.")
    if compressed:
        notes.append("file is gzip-compressed")
    return _frame(columns), FileInfo(path=str(path), format="tfrecord")


# --------------------------------------------------------------------------- shared


def _frame(columns: dict[Any, list[str]]) -> pd.DataFrame:
    """A DataFrame of text columns with the installed pandas' default string dtype."""
    if not columns:
        return pd.DataFrame()
    return pd.DataFrame(columns, dtype=str)


def _finish_columns(df: pd.DataFrame, name: str, notes: list[str]) -> pd.DataFrame:
    """Strip header names, name blank ones, make duplicates unique; never NaN cells."""
    if len(df.columns) == 0:
        raise DataError(f"'{name}' has no columns. The first line or record should name the columns.")
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
