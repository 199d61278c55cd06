"""Labels written inside quotes (``["'治疗方法'"]``, ``"“正面”"``): one level of matching
quotes removed, in plain cells and in each item of a list cell.

The step runs before the label set is read from the data (see core.preparing), so the label
table, the label editor and the prepared rows all see the labels without their quotes.
"""

from __future__ import annotations

import json

import pandas as pd
from pydantic import Field

from .steps import Example, MAX_EXAMPLES, Params, _check_columns, _label, _register, _Result

OP = "unquote_labels"
_PAIRS = {"'": "'", '"': '"', "‘": "’", "“": "”", "「": "」", "『": "』", "`": "`"}
QUOTED_SHARE = 0.5  # of the distinct labels: above it, the labels are quoted and the step is proposed


class UnquoteLabelsParams(Params):
    column: str = Field(default="label", description="the name of the label column")


def unquote(text: str) -> str:
    """``text`` without one level of matching quotes around it (white space outside them too)."""
    t = text.strip()
    if len(t) >= 2 and _PAIRS.get(t[0]) == t[-1]:
        return t[1:-1]
    return text


def _unquote_cell(cell: str) -> str:
    if cell.startswith("["):
        try:
            items = json.loads(cell)
        except ValueError:
            return unquote(cell)
        if isinstance(items, list):
            new = [unquote(x) if isinstance(x, str) else x for x in items]
            return cell if new == items else json.dumps(new, ensure_ascii=False)
    return unquote(cell)


@_register(OP, "Remove quotes around labels", "去掉标签外的引号", UnquoteLabelsParams)
def _unquote_labels(df: pd.DataFrame, p: UnquoteLabelsParams, where: str):
    _check_columns(df, [p.column], where)
    col = df[p.column]
    values = col.dropna().unique()  # few distinct labels: each is looked at once
    new = {v: _unquote_cell(str(v)) for v in values}
    changed = {v: n for v, n in new.items() if n != v}
    if not changed:
        return df.copy(deep=False), _Result(0, [], {"unquoted": {}})
    mask = col.isin(list(changed)).fillna(False).to_numpy(dtype=bool)
    out = df.copy(deep=False)
    out[p.column] = col.map(lambda v: changed.get(v, v) if isinstance(v, str) else v).astype(col.dtype)
    rows = [i for i in mask.nonzero()[0][:MAX_EXAMPLES]]
    examples = [Example(row=_label(df.index[i]), column=p.column, before=str(col.iloc[i]),
                        after=changed[col.iloc[i]]) for i in rows]
    counts = col[mask].value_counts()
    return out, _Result(int(mask.sum()), examples, {"unquoted": {changed[k]: int(n) for k, n in counts.items()}})


def labels_look_quoted(cells: pd.Series) -> bool:
    """Whether most distinct label values (or list items) are quoted: the step is worth proposing."""
    items: set[str] = set()
    for cell in cells.head(50_000).dropna().astype(str).unique()[:10_000]:  # a sample tells
        try:
            value = json.loads(cell) if cell.startswith("[") else None
        except ValueError:
            value = None
        items.update(str(x) for x in value) if isinstance(value, list) else items.add(cell)
    items = {x for x in items if x.strip()}
    if not items:
        return False
    return sum(unquote(x) != x for x in items) / len(items) > QUOTED_SHARE


def propose_unquote(recipe, cells: pd.Series):
    """``recipe`` with the step at its start when the labels look quoted and it has none yet
    (a new file's first look: the Data page and a prepare with the template's recipe); else None."""
    from .recipe import Recipe
    from .steps import Step

    if any(s.op == OP for s in recipe.steps) or not labels_look_quoted(cells):
        return None
    return Recipe(version=recipe.version, steps=[Step(op=OP, params={"column": "label"}), *recipe.steps])
