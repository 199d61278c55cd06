"""From the imported table to the cleaned, labelled rows of a task: the one path that
``prepare`` and the Data page's live preview both take.

    mapped  = the user's columns renamed to roles, list cells resolved
    labels  = the label table (template / data / list, codes, renames, merges, exclusions)
    cleaned = the recipe, its label step told the project's labels
    then    = excluded labels and labels with too few rows removed and counted
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .cleaning import Recipe, StepReport
from .cleaning.steps import Step
from .labels import LabelChoice, LabelTable, default_min_rows
from .mapping import MappingProblem, apply_mapping, check_prepared
from .task import TaskSpec
from .templates import TaskKind


@dataclass
class Cleaned:
    frame: pd.DataFrame  # one column per role, original row labels kept
    reports: list[StepReport]
    task: TaskSpec  # the project's task: labels as decided here
    recipe: Recipe  # the recipe as run (its label step holds the project's labels)
    labels: LabelTable | None  # classification only
    excluded: dict[str, int] = field(default_factory=dict)  # label -> rows removed
    too_few: dict[str, int] = field(default_factory=dict)  # label -> rows, dropped for too few rows
    several_labels: int = 0  # rows whose label cell listed several labels
    several_action: str = "drop"
    label_sets: int = 0  # multi-label: distinct label sets among the kept rows
    problems: list[MappingProblem] = field(default_factory=list)
    no_label: int = 0  # multi-label: rows whose label cell was empty (kept or dropped)
    no_label_action: str = "keep"

    @property
    def errors(self) -> list[MappingProblem]:
        return [p for p in self.problems if p.severity == "error"]

    def label_summary(self) -> dict[str, Any] | None:
        if self.labels is None:
            return None
        return {
            "source": self.labels.choice.source,
            "labels": list(self.task.labels),
            "excluded": dict(self.excluded),
            "too_few_rows": dict(self.too_few),
            "unknown": self.labels.unknown_values,
            "unknown_rows": self.labels.unknown_rows,
            "several_labels": {"rows": self.several_labels, "action": self.several_action},
            "multi_label": self.task.multi_label,
            "label_sets": self.label_sets,
            "no_label": {"rows": self.no_label, "action": self.no_label_action},
        }


# ----- list-valued cells ----------------------------------------------------------------


def _as_list(cell: Any) -> list | None:
    """A JSON list written by the reader for a list-valued cell, else None."""
    if not isinstance(cell, str) or not cell.startswith("["):
        return None
    try:
        value = json.loads(cell)
    except ValueError:
        return None
    return value if isinstance(value, list) else None


def _item_text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def resolve_list_cells(mapped: pd.DataFrame, list_roles: Iterable[str], several: str = "drop"
                       ) -> tuple[pd.DataFrame, int]:
    """Cells of list-valued columns: a label list of one is its element; several labels are
    dropped (``several="drop"``, counted) or cut to the first; text lists are joined by lines."""
    out = mapped.copy()
    several_rows = np.zeros(len(out), dtype=bool)
    for role in list_roles:
        if role not in out.columns:
            continue
        lists = [_as_list(c) for c in out[role].tolist()]
        if role == "label":
            values = []
            for i, (cell, items) in enumerate(zip(out[role].tolist(), lists)):
                if items is None:
                    values.append(cell)
                    continue
                items = [x for x in items if _item_text(x).strip()]
                if len(items) > 1:
                    several_rows[i] = True
                values.append(_item_text(items[0]) if items else "")
        else:
            values = [c if items is None else "\n".join(_item_text(x) for x in items)
                      for c, items in zip(out[role].tolist(), lists)]
        out[role] = pd.Series(values, index=out.index, dtype="string")
    n = int(several_rows.sum())
    if several == "drop" and n:
        out = out[~several_rows]
    return out, n


# ----- the whole path -------------------------------------------------------------------


def _with_label_step(recipe: Recipe, params: dict[str, Any]) -> Recipe:
    """The recipe with its label steps told the project's labels (one is added if none)."""
    steps = []
    found = False
    for s in recipe.steps:
        if s.op == "normalize_labels" and s.params.get("column", "label") == "label":
            found = True
            s = Step(op=s.op, enabled=s.enabled, params={**s.params, "column": "label", **params})
        steps.append(s)
    if not found:
        steps.insert(0, Step(op="normalize_labels", params={"column": "label", "drop_unknown": True, **params}))
    return Recipe(version=recipe.version, steps=steps)


def _label_steps_first(mapped: pd.DataFrame, recipe: Recipe) -> tuple[pd.DataFrame, dict[int, StepReport]]:
    """The label's own clean-up (quotes removed) runs before the label set is read from the
    data, wherever it stands in the recipe; its reports, by the step's identity, for the run."""
    from .cleaning.label_quotes import OP
    from .cleaning.steps import run_step

    done: dict[int, StepReport] = {}
    for i, step in enumerate(recipe.steps, 1):
        if step.op == OP and step.enabled and step.params.get("column", "label") in mapped.columns:
            mapped, done[id(step)] = run_step(mapped, step, index=i)
    return mapped, done


def _positions(run: Recipe, done: dict[int, StepReport]) -> dict[int, StepReport]:
    return {i: done[id(s)] for i, s in enumerate(run.steps) if id(s) in done}


def label_table(mapped: pd.DataFrame, base: TaskSpec, choice: LabelChoice | None, *, several: int = 0) -> LabelTable:
    return LabelTable.from_column(mapped["label"], base.labels, base.label_aliases, choice, several=several)


def clean_for_task(
    df: pd.DataFrame,
    base: TaskSpec,
    mapping: dict[str, str | None],
    recipe: Recipe,
    *,
    choice: LabelChoice | None = None,
    list_columns: Sequence[str] = (),
    ratios: Sequence[float] = (0.8, 0.1, 0.1),
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Cleaned:
    """Map, decide the labels, clean and check. ``base`` holds the template's labels and the
    project's prompt; the result's ``task`` holds the labels decided from ``choice``."""
    choice = choice or LabelChoice()
    mapped = apply_mapping(df, base, mapping)
    list_roles = [r for r, c in mapping.items() if c is not None and c in set(list_columns)]
    if base.task is TaskKind.classification and choice.multi_label:
        mapped, _ = resolve_list_cells(mapped, [r for r in list_roles if r != "label"])
        return _clean_multi_label(mapped, base, mapping, recipe, choice, ratios, progress, cancelled)
    mapped, several = resolve_list_cells(mapped, list_roles, choice.several)
    columns = {r: c for r, c in mapping.items() if c}

    if base.task is not TaskKind.classification:
        cleaned, reports = recipe.apply(mapped, progress=progress, cancelled=cancelled)
        task = base.model_copy(update={"columns": columns})
        return Cleaned(cleaned, reports, task, recipe, None, problems=check_prepared(task, cleaned))

    mapped, done = _label_steps_first(mapped, recipe)
    table = label_table(mapped, base, choice, several=several)
    run = _with_label_step(recipe, table.step_params())
    cleaned, reports = run.apply(mapped, progress=progress, cancelled=cancelled, done=_positions(run, done))

    labels = cleaned["label"].astype("string")
    excluded = {lab: int((labels == lab).sum()) for lab in table.excluded}
    cleaned = cleaned[~labels.isin(table.excluded).to_numpy()]
    min_rows = choice.min_rows or default_min_rows(ratios)
    counts = cleaned["label"].astype("string").value_counts()
    too_few = {lab: int(counts.get(lab, 0)) for lab in table.kept if int(counts.get(lab, 0)) < min_rows}
    # a template's label with no row at all is simply absent from this data, not "dropped"
    dropped = {lab: n for lab, n in too_few.items() if n > 0}
    cleaned = cleaned[~cleaned["label"].astype("string").isin(list(too_few)).to_numpy()]
    kept = [lab for lab in table.kept if lab not in too_few]
    task = base.with_labels(kept, table.aliases).model_copy(update={"columns": columns})

    if table.mismatch:  # the one thing to fix; "fewer than two classes" would only follow from it
        problems = [MappingProblem("label", table.mismatch_message(), code="labels_mismatch",
                                   args=(table.unknown_rows, table.rows, tuple(table.unknown_values)[:8]))]
    else:
        problems = check_prepared(task, cleaned)
        if dropped and any(p.severity == "error" for p in problems):
            listed = ", ".join(f"{lab} ({n})" for lab, n in dropped.items())
            problems.insert(0, MappingProblem("label", (
                f"Labels with fewer than {min_rows} rows after cleaning were dropped: {listed}. "
                "Lower the least rows per label (--min-label-rows) or add rows."),
                code="labels_too_few", args=(min_rows, listed)))
    return Cleaned(cleaned, reports, task, run, table, excluded, dropped, several, choice.several,
                   problems=problems)


def _clean_multi_label(mapped: pd.DataFrame, base: TaskSpec, mapping: dict[str, str | None], recipe: Recipe,
                       choice: LabelChoice, ratios: Sequence[float], progress, cancelled) -> Cleaned:
    """:func:`clean_for_task` for a multi-label project: each label on its own (see :mod:`.multilabel`)."""
    from workbench.core import multilabel

    columns = {r: c for r, c in mapping.items() if c}
    mapped, done = _label_steps_first(mapped, recipe)
    raw = [multilabel.split_cell(c, choice.separator) for c in mapped["label"].tolist()]
    counts, blank = multilabel.value_counts(raw)
    table = LabelTable(counts, base.labels, base.label_aliases, choice, blank=blank, labelled=len(raw) - blank)
    mapped = mapped.copy()
    mapped["label"] = pd.Series([multilabel.encode([s])[0] if s else "" for s in raw], index=mapped.index, dtype="string")
    keep_blank = choice.no_label == "keep"
    # the label step names one label per cell; here the labels are named per item below. Kept,
    # a row with no label is a row like any other: no step drops it for its empty label cell
    run = Recipe(version=recipe.version, steps=[
        _without_label_column(s) if keep_blank else s for s in recipe.steps
        if not (s.op == "normalize_labels" and s.params.get("column", "label") == "label")])
    run = Recipe(version=run.version, steps=[s for s in run.steps if s is not None])
    cleaned, reports = run.apply(mapped, progress=progress, cancelled=cancelled, done=_positions(run, done))
    codes = {k.strip(): v.strip() for k, v in choice.codes.items()}
    found = [multilabel.decode(c) for c in cleaned["label"].tolist()]
    blank_rows = [not s for s in found]
    sets, _ = multilabel.map_sets(found, table.labels, table.aliases, codes)
    excluded = {lab: n for lab, n in multilabel.label_rows(sets, table.excluded).items()}
    sets = [[lab for lab in s if lab not in table.excluded] for s in sets]
    min_rows = choice.min_rows or default_min_rows(ratios)
    rows = multilabel.label_rows(sets, table.kept)
    too_few = {lab: n for lab, n in rows.items() if n < min_rows}
    dropped = {lab: n for lab, n in too_few.items() if n > 0}
    sets = [[lab for lab in s if lab not in too_few] for s in sets]
    # a row that had labels and lost them all (excluded, too few rows, unknown) is dropped; a row
    # that never had one is kept as "no label" when the choice says so
    keep = [bool(s) or (keep_blank and b) for s, b in zip(sets, blank_rows)]
    cleaned = cleaned[keep].copy()
    sets = [s for s, k in zip(sets, keep) if k]
    cleaned["label"] = pd.Series(multilabel.encode(sets), index=cleaned.index, dtype="string")
    no_label = sum(blank_rows) if keep_blank else blank
    kept = [lab for lab in table.kept if lab not in too_few]
    task = base.with_labels(kept, table.aliases).model_copy(update={
        "columns": columns, "multi_label": True, "no_label_rows": any(not s for s in sets)})
    problems: list[MappingProblem] = []
    if table.mismatch:
        problems.append(MappingProblem("label", table.mismatch_message(), code="labels_mismatch",
                                       args=(table.unknown_rows, table.rows, tuple(table.unknown_values)[:8])))
    elif not len(cleaned):
        problems.append(MappingProblem(None, "No rows are left after cleaning. Check the mapping, the label "
                                       "separator (--label-sep) and the cleaning steps.", code="no_rows"))
    elif len(kept) < 2:
        problems.append(MappingProblem("label", (
            f"Fewer than two labels are left after cleaning (found: {', '.join(kept) or 'none'}). "
            f"Multi-label classification needs at least two; lower --min-label-rows (now {min_rows}) "
            "or check the label column and separator."), code="few_classes", args=(kept,)))
    several = sum(len(s) > 1 for s in sets)
    return Cleaned(cleaned, reports, task, run, table, excluded, dropped, several, "keep",
                   len({tuple(s) for s in sets}), problems, no_label, choice.no_label)


def _without_label_column(step: Step) -> Step | None:
    """A drop-empty step that no longer looks at the label column (None: it looked at nothing else)."""
    cols = step.params.get("columns")
    if step.op != "drop_empty" or not cols or "label" not in cols:
        return step
    rest = [c for c in cols if c != "label"]
    return Step(op=step.op, enabled=step.enabled, params={**step.params, "columns": rest}) if rest else None
