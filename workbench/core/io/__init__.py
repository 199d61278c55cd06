"""Reading the user's data files into a table of text.

One entry point for every format the Data page accepts: CSV/TSV and any other text table
(encoding and delimiter detected, whatever the file's suffix: .txt, .dat, .data, none), Excel,
JSON, JSONL, Parquet and TFRecord. Fine-tuning formats
(alpaca, ShareGPT, OpenAI-style messages, PaddleNLP src/tgt) are recognised and flattened
into ordinary columns, so that the rest of the program only ever sees a table.

Every cell comes back as text (blank or missing cells as ""), so an ID such as
"000123" or an 18-digit number is never turned into a number. The user's file is only
ever opened for reading. Anything wrong with the file is raised as a ``DataError`` whose
message says what was wrong and what to do.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from ..errors import DataError
from .base import (
    _CSV_SUFFIXES,
    _EXCEL_SUFFIXES,
    _JSON_SUFFIXES,
    _PARQUET_SUFFIXES,
    _TFRECORD_SUFFIXES,
    SUPPORTED_SUFFIXES,
    FileInfo,
    Progress,
    _finish_columns,
    _Reporter,
    coded_notes,
)
from .delimited import _read_delimited
from .encodings import _decode_sample, _detect_encoding, _not_text, _read_sample
from .excel import _read_excel
from .jsonfile import _read_json
from .parquet import _read_parquet
from .profile import profile_columns
from .textsniff import reads_as_json
from .tfrecord import _read_tfrecord, looks_like_tfrecord

__all__ = ["FileInfo", "SUPPORTED_SUFFIXES", "inspect_file", "profile_columns", "read_table"]


def inspect_file(path: str | os.PathLike, sheet: str | None = None, preview_rows: int = 5,
                 header: bool | None = None) -> FileInfo:
    """Describe a file: format, encoding, sheets, columns, exact row count and a preview.

    The whole file is read, so the row count is exact and every problem is found now
    rather than later.
    """
    from ..column_guess import guess_columns

    df, info = _read(path, sheet, None, preview_rows, header)
    info.kinds, info.values = profile_columns(df, info.list_columns)
    info.guesses = {g.role: g.message for g in guess_columns(df, ("text", "label"), list_columns=info.list_columns)}
    return info


def read_table(
    path: str | os.PathLike,
    sheet: str | None = None,
    progress: Progress | None = None,
    header: bool | None = None,
) -> tuple[pd.DataFrame, FileInfo]:
    """Read a file into a DataFrame of text columns (missing cells are "").

    ``progress`` (optional) is called with a fraction between 0 and 1 as the file is read,
    from the calling thread; it ends with 1.0. ``header``: whether the first row of a CSV,
    TSV, TXT or Excel file names the columns (None: tell from the file, see ``io.header``);
    without one the columns are col1 … colN. Other formats name their fields themselves.
    """
    return _read(path, sheet, progress, 5, header)


def _kind(p: Path, suffix: str, size: int) -> str:
    """Which reader reads the file: the one its suffix names (.csv, .tsv, .xlsx, .json, .parquet,
    .tfrecord…); for any other suffix, or none, the one its content says (a workbook, Parquet or
    TFRecord by its first bytes, JSON where its text starts as JSON does, else a table of text).
    A file that is neither text nor one of these is refused, saying what it looks like."""
    if suffix in _CSV_SUFFIXES:
        return "delimited"
    if suffix in _EXCEL_SUFFIXES:
        return "excel"
    if suffix in _JSON_SUFFIXES:
        return "json"
    if suffix in _PARQUET_SUFFIXES:
        return "parquet"
    if suffix in _TFRECORD_SUFFIXES:
        return "tfrecord"
    sample, complete = _read_sample(p, size)
    if sample.startswith(b"PK\x03\x04"):
        if _is_workbook(p):
            return "excel"
        raise _not_text(p.name, sample, "a zip archive that holds no Excel workbook (a Word document or "
                                        "another archive)")
    if sample.startswith(b"\xd0\xcf\x11\xe0"):  # an .xls workbook (or another old Office file)
        return "excel"
    if sample.startswith(b"PAR1"):
        return "parquet"
    if looks_like_tfrecord(sample[:64]):
        return "tfrecord"
    encoding = _detect_encoding(p.name, sample, complete)  # refuses what is not text
    return "json" if reads_as_json(suffix, _decode_sample(sample, encoding)) else "delimited"


def _is_workbook(p: Path) -> bool:
    import zipfile

    try:
        with zipfile.ZipFile(p) as archive:
            return "xl/workbook.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def _read(path, sheet, progress, preview_rows, header=None) -> tuple[pd.DataFrame, FileInfo]:
    p = Path(path)
    name = p.name
    if not p.exists():
        raise DataError(f"The file '{p}' was not found. Check the path, or pick the file again.",
                        code="file_not_found", path=str(p))
    if p.is_dir():
        raise DataError(f"'{p}' is a folder, not a file. Choose one data file inside it.",
                        code="file_is_folder", path=str(p))
    suffix = p.suffix.lower()
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise DataError(f"'{name}' cannot be read ({exc.strerror}). Check that you may open it.",
                        code="file_unreadable", name=name, reason=str(exc.strerror or exc)) from None
    if size == 0:
        raise DataError(f"'{name}' is empty (0 bytes). Choose a file that contains data.", code="file_empty",
                        name=name)

    report = _Reporter(progress)
    notes: list[str] = []
    try:
        kind = _kind(p, suffix, size)
        if kind == "delimited":
            df, info = _read_delimited(p, size, suffix, report, notes, header)
        elif kind == "excel":
            df, info = _read_excel(p, sheet, notes, header)
        elif kind == "json":
            df, info = _read_json(p, size, report, notes)
        elif kind == "parquet":
            df, info = _read_parquet(p, notes)
        else:
            df, info = _read_tfrecord(p, size, report, notes)
    except PermissionError:
        raise DataError(f"'{name}' cannot be opened: permission denied. Check that you may read it.",
                        code="file_no_permission", name=name) from None
    except MemoryError:
        raise DataError(
            f"'{name}' is too large to load into memory on this computer. "
            "Split it into smaller files or close other programs and try again.", code="file_too_large", name=name,
        ) from None
    except OSError as exc:
        raise DataError(f"'{name}' could not be read ({exc.strerror or exc}). Check the file and try again.",
                        code="file_unreadable", name=name, reason=str(exc.strerror or exc)) from None

    df = _finish_columns(df, name, notes)
    if len(df) == 0:
        raise DataError(
            f"'{name}' has no data rows: only a header (column names) was found. "
            "Add at least one row of data below the header.", code="file_without_rows", name=name,
        )
    info.path = str(p)
    info.columns = [str(c) for c in df.columns]
    info.rows = int(len(df))
    info.preview = [
        {str(k): ("" if v is None else str(v)) for k, v in row.items()}
        for row in df.head(max(0, preview_rows)).to_dict("records")
    ]
    info.notes = notes
    info.coded_notes = coded_notes(info, name, len(df.columns))
    report(1.0)
    return df, info
