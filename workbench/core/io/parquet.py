"""Parquet files into text columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import DataError
from .base import FileInfo, _frame, _text
from .finetune_formats import _normalise_records


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
            "really Parquet. Export it again and import it again.",
            code="parquet_unreadable", name=name, detail=str(exc),
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
    list_columns = []
    for col_name, column in zip(names, table.columns):
        t = column.type
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            list_columns.append(col_name)  # cells become JSON text, as in a JSON file
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
    return df, FileInfo(path=str(path), format="parquet", list_columns=list_columns)
