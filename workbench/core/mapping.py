"""Column mapping: which column of the user's file plays which role of the template."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .errors import DataError
from .templates import TemplateSpec, TaskKind

# Common header names per role, so that most files map themselves. Lower-case, no spaces.
ROLE_SYNONYMS: dict[str, tuple[str, ...]] = {
    "text": ("text", "content", "sentence", "document", "内容", "文本", "正文", "描述", "新闻", "主诉", "案情"),
    "label": ("label", "labels", "class", "category", "target", "标签", "类别", "分类", "科室", "案由", "情感"),
    "instruction": ("instruction", "question", "query", "prompt", "src", "问题", "提问", "咨询", "指令"),
    "input": ("input", "context", "补充", "补充说明", "上下文", "输入"),
    "output": ("output", "answer", "response", "tgt", "target_text", "回答", "答案", "回复", "输出"),
}


@dataclass(frozen=True)
class MappingProblem:
    role: str | None
    message: str
    severity: str = "error"  # error | warning
    # what the problem is, for front ends that say it in the user's language: ``code`` names
    # it, ``args`` holds its particulars (columns, counts, labels)
    code: str = ""
    args: tuple = ()


# A role may read several columns joined (the text as title + question): "title+ask".
JOIN = "+"
JOINED_BY = "\n"  # between the joined columns' texts
NOT_JOINED = ("label",)  # roles whose cells are one value each


def mapped_columns(value: str | None, columns: Sequence[str]) -> list[str] | None:
    """The columns of the file a mapping value names: one column, or several joined by
    ``+`` (a column whose own name has a ``+`` is taken whole); None if the file lacks one."""
    if not value:
        return None
    columns = [str(c) for c in columns]
    if value in columns:
        return [value]
    parts = [p.strip() for p in value.split(JOIN)]
    if len(parts) > 1 and all(parts) and all(p in columns for p in parts):
        return parts
    return None


def joined_parts(value: str | None) -> list[str]:
    """The columns a mapping value reads joined ("title+ask" -> title, ask), told without the
    file (a prepared task's columns); [] for a value of one column."""
    parts = [p.strip() for p in (value or "").split(JOIN)]
    return parts if len(parts) > 1 and all(parts) else []


def join_columns(columns: Sequence[str]) -> str:
    """The mapping value for ``columns`` read together (see :func:`mapped_columns`)."""
    return JOIN.join(columns)


def joinable_columns(mapping: dict[str, str | None], role: str, columns: Sequence[str]) -> list[str]:
    """The columns ``role`` may read after its first one: not that one, and none another role reads
    (a column holds one thing only, see :func:`check_mapping`)."""
    columns = [str(c) for c in columns]
    first = (mapped_columns(mapping.get(role), columns) or [None])[0]
    others = {c for r, v in mapping.items() if r != role and v for c in (mapped_columns(v, columns) or [])}
    return [c for c in columns if c != first and c not in others]


def mapped_values(df: pd.DataFrame, value: str) -> pd.Series:
    """A role's cells: the column's, or the joined columns' non-blank texts, one per line."""
    cols = mapped_columns(value, list(df.columns))
    if cols is None:
        raise DataError(f"The file has no column '{value}'; its columns are {', '.join(map(str, df.columns))}.",
                        code="column_not_in_file", column=str(value), columns=[str(c) for c in df.columns])
    if len(cols) == 1:
        return df[cols[0]].astype("string")
    out = df[cols[0]].astype("string").fillna("").to_numpy(dtype=object)
    for col in cols[1:]:
        part = df[col].astype("string").fillna("").to_numpy(dtype=object)
        both = (out != "") & (part != "")
        out = np.where(both, out + JOINED_BY + part, out + part)
    return pd.Series(out, index=df.index, dtype="string")


def _norm(name: str) -> str:
    return re.sub(r"\s+", "", str(name)).lower()


def suggest_mapping(template: TemplateSpec, columns: list[str]) -> dict[str, str | None]:
    """Best guess of role -> column: the template's own header, then exact synonyms, then substrings."""
    normed = {_norm(c): c for c in columns}
    taken: set[str] = set()
    out: dict[str, str | None] = {}
    for role in template.roles:
        choice = None
        joined = mapped_columns(template.columns.get(role), columns)
        if joined and len(joined) > 1 and not taken & set(joined):  # the template reads two columns joined
            out[role] = join_columns(joined)
            taken.update(joined)
            continue
        candidates = [template.columns.get(role, role), role, *ROLE_SYNONYMS.get(role, ())]
        for cand in candidates:
            col = normed.get(_norm(cand))
            if col is not None and col not in taken:
                choice = col
                break
        if choice is None:
            for cand in candidates[2:]:
                hits = [c for n, c in normed.items() if _norm(cand) in n and c not in taken]
                if hits:
                    choice = hits[0]
                    break
        if choice is not None:
            taken.add(choice)
        out[role] = choice
    return out


def parse_mapping_args(items: list[str]) -> dict[str, str]:
    """Parse ``role=column`` command-line items."""
    out: dict[str, str] = {}
    pairs: list[str] = []
    for item in items:
        parts = item.split(",")
        # "a=x,b=y" carries two pairs; a column name with a comma in it stays whole
        pairs += parts if len(parts) > 1 and all("=" in p for p in parts) else [item]
    for item in pairs:
        role, sep, col = item.partition("=")
        if not sep or not role.strip() or not col.strip():
            raise DataError(f"Mapping '{item}' is not of the form role=column, e.g. text=内容.")
        out[role.strip()] = col.strip()
    return out


def check_mapping(template: TemplateSpec, columns: list[str], mapping: dict[str, str | None]) -> list[MappingProblem]:
    """Problems a mapping has against the file's columns, before any data is looked at."""
    problems: list[MappingProblem] = []
    roles = template.roles
    for role, col in mapping.items():
        if role not in roles:
            problems.append(MappingProblem(role, f"'{role}' is not a role of template {template.id}; roles are: "
                                                 f"{', '.join(roles)}.", code="unknown_role"))
        elif col is not None and mapped_columns(col, columns) is None:
            problems.append(MappingProblem(
                role, f"Role '{role}' is mapped to column '{col}', which is not in the file. Columns are: "
                f"{', '.join(map(str, columns))}.", code="column_missing", args=(col,)))
        elif col is not None and role in NOT_JOINED and col not in columns:
            problems.append(MappingProblem(
                role, f"Role '{role}' takes one column, not several joined ('{col}'); map one of them.",
                code="not_joined", args=(col,)))
    for role, required in roles.items():
        if required and not mapping.get(role):
            problems.append(MappingProblem(
                role, f"Role '{role}' is required by template {template.id} but no column is mapped to it. "
                f"Map one with {role}=<column>; columns are: {', '.join(map(str, columns))}.", code="required"))
    used: dict[str, str] = {}
    for role, value in mapping.items():
        for col in mapped_columns(value, columns) or ([value] if value else []):
            if col in used and used[col] != role:
                problems.append(MappingProblem(role, f"Column '{col}' is mapped to both '{used[col]}' and '{role}'; map "
                                                     "each role to its own column.", code="column_twice",
                                               args=(col, used[col])))
            used[col] = role
    return problems


def apply_mapping(df: pd.DataFrame, template: TemplateSpec, mapping: dict[str, str | None]) -> pd.DataFrame:
    """A frame with one column per role (renamed to the role), index kept. Unmapped optional roles are empty."""
    problems = [p for p in check_mapping(template, list(df.columns), mapping) if p.severity == "error"]
    if problems:
        raise DataError(" ".join(p.message for p in problems))
    out = pd.DataFrame(index=df.index)
    for role in template.roles:
        col = mapping.get(role)
        out[role] = mapped_values(df, col) if col else pd.Series("", index=df.index, dtype="string")
    return out


def check_prepared(template: TemplateSpec, df: pd.DataFrame) -> list[MappingProblem]:
    """Problems of the cleaned, mapped data that would make training pointless."""
    problems: list[MappingProblem] = []
    if len(df) == 0:
        return [MappingProblem(None, "No rows are left after cleaning. Check the mapping and loosen the cleaning steps.",
                               code="no_rows")]
    if template.task is TaskKind.classification:
        labels = df["label"].fillna("").astype(str).str.strip()
        classes = labels[labels != ""].value_counts()
        if len(classes) < 2:
            found = ", ".join(classes.index) or "none"
            problems.append(MappingProblem(
                "label", f"The label column has fewer than two classes after cleaning (found: {found}). "
                "Classification needs at least two; check that the right column is mapped to 'label'.",
                code="few_classes", args=(list(classes.index),)))
        outside = sorted(set(classes.index) - set(template.labels))
        if outside:
            problems.append(MappingProblem(
                "label", f"{int(classes[outside].sum())} rows have labels outside the template's set: {', '.join(outside[:10])}. "
                "Add them as aliases in the label step or drop unknown labels.", "warning",
                code="labels_outside", args=(int(classes[outside].sum()), outside[:10])))
    else:
        out = df["output"].fillna("").astype(str).str.strip()
        empty = int((out == "").sum())
        if empty == len(df):
            problems.append(MappingProblem(
                "output", "Every output is empty. Map the column that holds the answers to 'output'.",
                code="all_empty"))
        elif empty:
            problems.append(MappingProblem(
                "output", f"{empty} rows have an empty output; add a 'drop_empty' step on 'output' to remove them.",
                "warning", code="some_empty", args=(empty,)))
        ins = df["instruction"].fillna("").astype(str).str.strip()
        if (ins == "").all():
            problems.append(MappingProblem(
                "instruction", "Every instruction is empty. Map the column that holds the questions to 'instruction'.",
                code="all_empty"))
    return problems
