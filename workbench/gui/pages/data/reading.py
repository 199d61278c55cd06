"""What the Data page finds when it reads a file, off the UI thread: the table, the reader's
account of it, the columns suggested for the template's roles (the same guesses as prepare's:
names first, then the cells for required roles still empty) and, for labels in quotes, the
recipe with the step that removes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from ....core.cleaning import Recipe
from ....core.mapping import mapped_columns


class ReadResult(NamedTuple):
    frame: pd.DataFrame
    info: Any  # core.dataio's account of the file: format, encoding, notes, list columns
    mapping: dict[str, str | None]
    guesses: list  # core.column_guess: columns told from their cells, for roles left empty
    quoted: Recipe | None  # the recipe with the quotes step, when the label column's cells are quoted


def read_for_page(ctx, path: Path, *, template, sheet: str | None, header: bool | None,
                  mapping: dict | None, recipe: Recipe, from_snapshot: bool,
                  known_lists: list[str]) -> ReadResult:
    """Read ``path`` under the background operation ``ctx``. ``mapping`` is the project's, kept
    where its columns are in the file; a project's snapshot (``from_snapshot``) holds list cells as
    text, so ``known_lists`` says which columns hold lists, and no quotes step is proposed."""
    from ....core.cleaning.label_quotes import propose_unquote
    from ....core.column_guess import guess_missing
    from ....core.dataio import read_table
    from ....core.mapping import suggest_mapping

    df, info = read_table(path, sheet=sheet, progress=lambda f: ctx.progress(f * 0.97), header=header)
    ctx.check()
    columns = [str(c) for c in df.columns]
    suggested = suggest_mapping(template, columns)
    if mapping:
        suggested.update({r: c for r, c in mapping.items() if c is None or mapped_columns(c, columns)})
    lists = info.list_columns if not from_snapshot else known_lists
    required = [r for r, req in template.roles.items() if req]
    guesses = guess_missing(df, required, suggested, lists)
    # labels in quotes: the quotes step is proposed for the label column named or guessed
    label = suggested.get("label") or next((g.column for g in guesses if g.role == "label"), None)
    quoted = None if from_snapshot or label not in columns else propose_unquote(recipe, df[label])
    return ReadResult(df, info, suggested, guesses, quoted)
