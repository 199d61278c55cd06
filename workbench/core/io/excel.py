"""Excel workbooks (.xlsx/.xlsm/.xls): one sheet into text columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import DataError
from .base import FileInfo, _frame, headless_names, headless_note
from .encodings import _decodes
from .header import SAMPLE_ROWS, sniff_header
from .textsniff import excel_cell


def _excel_rows(path: Path, sheet: str | None) -> tuple[list[str], str, list[list[Any]]]:
    name = path.name
    with open(path, "rb") as fh:
        head = fh.read(8)
    if not head.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):
        text = _looks_like_text(head)
        what = "text (perhaps a CSV file)" if text else "some other kind of file"
        raise DataError(
            f"'{name}' is not a real Excel workbook: its content looks like {what}. "
            "Open it in Excel and save it as .xlsx, or give it the suffix of its real type.",
            code="excel_holds_text" if text else "excel_not_workbook", name=name,
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
        "as .xlsx, and import it again.",
        code="excel_unreadable", name=name, detail=str(exc),
    )


def _choose_sheet(name: str, sheets: list[str], sheet: str | None) -> str:
    if not sheets:
        raise DataError(f"'{name}' contains no worksheets. Add a sheet with data and import it again.",
                        code="excel_without_sheets", name=name)
    if sheet is None:
        return sheets[0]
    if sheet not in sheets:
        listed = ", ".join(f"'{s}'" for s in sheets)
        raise DataError(f"'{name}' has no sheet named '{sheet}'. Its sheets are: {listed}. Choose one of them.",
                        code="excel_sheet_missing", name=name, sheet=sheet, sheets=list(sheets))
    return sheet


def _read_excel(path: Path, sheet: str | None, notes: list[str], header: bool | None = None):
    sheets, chosen, rows = _excel_rows(path, sheet)
    texts = [[excel_cell(v) for v in row] for row in rows]  # the bundles' reader's rule too
    texts = [row for row in texts if any(row)]  # blank rows, as in CSV
    if not texts:
        raise DataError(
            f"Sheet '{chosen}' of '{path.name}' is empty. Choose the sheet that holds the data"
            + (f" (sheets: {', '.join(sheets)})." if len(sheets) > 1 else "."),
            code="excel_sheet_empty", name=path.name, sheet=chosen, sheets=list(sheets),
        )
    width = max(len(r) for r in texts)
    texts = [r + [""] * (width - len(r)) for r in texts]
    sniffed = header is None
    if sniffed:
        header = sniff_header(texts[: SAMPLE_ROWS + 1])
    names, body = (texts[0], texts[1:]) if header else ([""] * width, texts)
    # Columns with neither a name nor a value are formatting left-overs (a sheet's used range).
    keep = [i for i in range(width) if names[i].strip() or any(r[i] for r in body)]
    columns = {i: [r[i] for r in body] for i in keep}
    df = _frame(columns)
    df.columns = [names[i] for i in keep] if header else headless_names(len(keep))
    if not header and sniffed:
        notes.append(headless_note(len(keep)))
    if len(sheets) > 1:
        notes.append(f"read sheet '{chosen}' of {len(sheets)} sheets")
    info = FileInfo(path=str(path), format="excel", sheets=sheets, sheet=chosen, header=bool(header))
    return df, info


def _looks_like_text(head: bytes) -> bool:
    return b"\x00" not in head and _decodes(head, "utf-8", False)
