"""CSV, TSV and every other text table (.txt, .dat, .data, no suffix): delimiter sniffing, chunked
reading, ragged rows."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError
from .base import _BOM, _CHUNK_BYTES, FileInfo, _ProgressRaw, _Reporter, headless_names, headless_note
from .header import SAMPLE_ROWS, sniff_header
from .textsniff import DELIMITER_NAMES as _DELIMITER_NAMES
from .textsniff import one_value_per_line, preferred_delimiter, sample_rows
from .textsniff import sniff_delimiter as _sniff_delimiter
from .encodings import (
    _ascii_start,
    _decode_sample,
    _detect_encoding,
    _mixed_encoding,
    _read_sample,
)

_RAGGED = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


_EOF_QUOTE = re.compile(r"EOF inside string starting (?:at|with) (?:row|line) (\d+)", re.I)


def _sample_rows(text: str, complete: bool, delimiter: str, one_column: bool) -> list[list[str]]:
    return sample_rows(text, complete, delimiter, one_column, SAMPLE_ROWS + 1)


def _read_delimited(path: Path, size: int, suffix: str, report: _Reporter, notes: list[str],
                    header: bool | None = None):
    """``header``: whether the first line names the columns (None: tell from the file)."""
    name = path.name
    sample, complete = _read_sample(path, size)
    encoding = _detect_encoding(name, sample, complete)
    text = _decode_sample(sample, encoding)
    if not text.strip(_BOM + " \t\r\n"):
        raise DataError(f"'{name}' is empty (it holds only blank lines). Choose a file that contains data.",
                        code="file_blank", name=name)

    preferred = preferred_delimiter(suffix)
    delimiter = _sniff_delimiter(text, complete, preferred)
    by_lines = one_value_per_line(suffix, delimiter)
    if delimiter is None:
        delimiter = preferred
        if by_lines:
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
    if by_lines:
        # One value per line: no delimiter, and quotes are part of the text.
        options.update(sep="\x1f", quoting=csv.QUOTE_NONE)
    sniffed = header is None
    if sniffed:
        header = sniff_header(_sample_rows(text, complete, delimiter, options["sep"] == "\x1f"))
    if not header:
        options["header"] = None

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
        if not header:
            return []
        with open(path, "rb") as fh:
            return pd.read_csv(fh, **{**options, "header": None, "nrows": 1}).iloc[0].tolist()

    def load() -> pd.DataFrame:
        df = read()
        if header and not isinstance(df.index, pd.RangeIndex):
            # The first data row had one field more than the header, so pandas took the
            # first column as an index. Read again with a spare column to see what it holds.
            df = _extra_column_check(read, name, len(df.columns) + 1, names, notes)
        return df

    try:
        names = read_header()
        df = load()
    except pd.errors.EmptyDataError:
        raise DataError(f"'{name}' has no columns: no header line was found. "
                        "The first line should hold the column names.", code="file_without_header",
                        name=name) from None
    except pd.errors.ParserError as exc:
        raise _parser_error(name, str(exc), delimiter) from None
    except UnicodeDecodeError as exc:
        if not _ascii_start(sample, complete, encoding):
            raise _mixed_encoding(name, encoding, exc) from None
        # The first part was plain ASCII, so it could not tell UTF-8 from GBK; the rest can.
        notes.append("encoding recognised from beyond the first part of the file: gb18030")
        encoding = options["encoding"] = "gb18030"
        try:
            names = read_header()
            df = load()
        except UnicodeDecodeError as exc2:
            raise _mixed_encoding(name, encoding, exc2) from None
        except pd.errors.ParserError as exc2:
            raise _parser_error(name, str(exc2), delimiter) from None

    if not header:
        df.columns = headless_names(len(df.columns))
        if sniffed:
            notes.append(headless_note(len(df.columns)))
    elif len(names) == len(df.columns):
        df.columns = ["" if isinstance(h, float) else str(h) for h in names]
    fmt = "tsv" if options["sep"] == "\t" else "csv"
    info = FileInfo(
        path=str(path),
        format=fmt,
        encoding=encoding,
        delimiter=None if options["sep"] == "\x1f" else delimiter,
        header=bool(header),
    )
    return df, info


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
            "or add the missing column name to the header, and import the file again.",
            code="table_extra_fields", name=name, row=row, width=width, header=width - 1,
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
            "quotes, or fix the line, and import the file again.",
            code="table_ragged", name=name, line=int(line), found=int(saw), expected=int(expected),
            delimiter=_DELIMITER_NAMES.get(delimiter, repr(delimiter)),
        )
    match = _EOF_QUOTE.search(message)
    if match:
        return DataError(
            f"'{name}' has a quote (\") that is never closed, starting at row {match.group(1)}. "
            "Close or remove the stray quote and import the file again.",
            code="table_open_quote", name=name, row=int(match.group(1)),
        )
    return DataError(f"'{name}' could not be read as a table ({message.strip()}). "
                     "Check that it is a CSV/TSV file and import it again.", code="table_unreadable", name=name,
                     detail=message.strip())
