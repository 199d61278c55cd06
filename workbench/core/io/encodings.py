"""Guessing and checking a text file's encoding (UTF-8 with or without BOM, UTF-16, GB18030)."""

from __future__ import annotations

import codecs
from pathlib import Path

from ..errors import DataError
from .base import _SAMPLE_BYTES

_MAGIC = (  # first bytes, what they are, and the format's name the window shows in either language
    (b"\x89PNG\r\n\x1a\n", "a PNG image", "PNG"),
    (b"\xff\xd8\xff", "a JPEG image", "JPEG"),
    (b"GIF8", "a GIF image", "GIF"),
    (b"%PDF", "a PDF document", "PDF"),
    (b"PK\x03\x04", "a zip archive (an .xlsx workbook is one)", "ZIP"),
    (b"\xd0\xcf\x11\xe0", "an old-style Office document (.xls/.doc)", "Office (.xls/.doc)"),
    (b"\x1f\x8b", "a gzip-compressed file", "gzip"),
    (b"PAR1", "a Parquet file", "Parquet"),
    (b"SQLite format 3", "an SQLite database", "SQLite"),
)


# What Workbench reads, for a message about a file it cannot
READS = ("tables of text (CSV, TSV, or any text file with one row a line, whatever its suffix), Excel "
         "workbooks, JSON or JSON Lines, Parquet and TFRecord files")


def _not_text(name: str, head: bytes, what: str | None = None) -> DataError:
    """The refusal of a file that is neither text nor a format Workbench reads (``what``: what
    it looks like, where its first bytes do not say)."""
    found_magic = next(((said, kind) for magic, said, kind in _MAGIC if head.startswith(magic)), (None, None))
    kind = None if what else found_magic[1]
    what = what or found_magic[0]
    if what:
        found = f"it looks like {what}"
    else:
        found = "it holds binary data, or text in an encoding that could not be recognised"
    return DataError(
        f"'{name}' is not a text file Workbench can read: {found}. Workbench reads {READS}. "
        "Check that you picked the right file; or open it in the program that made it, save the data as "
        "CSV UTF-8 (in Excel: 'CSV UTF-8') and import that file.",
        code="file_not_text", name=name, kind=kind,
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
    for head, *_ in _MAGIC[:5]:
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


def _ascii_start(sample: bytes, complete: bool, encoding: str) -> bool:
    return encoding == "utf-8" and not complete and sample.isascii()


def _mixed_encoding(name: str, encoding: str, exc: UnicodeDecodeError) -> DataError:
    return DataError(
        f"'{name}' could not be decoded as {encoding} text (a byte at position {exc.start} "
        "does not fit). The file probably mixes encodings. Save it again as UTF-8 "
        "(in Excel: 'CSV UTF-8') and import it again.",
        code="file_mixed_encoding", name=name, encoding=encoding, position=exc.start,
    )
