"""The text normalisation of a recipe, applied to new inputs at prediction time.

A model trained on cleaned text must see new text cleaned the same way, or it meets
characters it never saw (full-width digits, ASCII for Chinese punctuation, doubled
spaces, a control character). Only the steps that rewrite a text in place carry over; steps that drop rows or
mask data are for the training set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from .recipe import Recipe
from .steps import Step, apply_step

TEXT_STEPS = ("remove_invisible", "trim_whitespace", "normalize_unicode")


def _as_recipe(recipe: Recipe | Mapping | None) -> Recipe:
    if recipe is None:
        return Recipe()
    return recipe if isinstance(recipe, Recipe) else Recipe.from_dict(dict(recipe))


def _applies(step: Step, field: str) -> bool:
    cols = step.params.get("columns")
    if cols is None:
        return True
    return field in ([cols] if isinstance(cols, str) else cols)


def input_steps(recipe: Recipe | Mapping | None, field: str) -> list[Step]:
    return [s for s in _as_recipe(recipe).steps
            if s.enabled and s.op in TEXT_STEPS and _applies(s, field)]


def input_normalization(recipe: Recipe | Mapping | None, fields: list[str]) -> dict[str, dict[str, Any]]:
    """Per field, what prediction must do to a text: ``{"remove_invisible": bool, "trim": bool,
    "unicode_form": str|None, "keep_cjk_punctuation": bool}`` (written into an exported bundle
    for its predict.py, which does them in this order)."""
    out = {}
    for field in fields:
        spec: dict[str, Any] = {"remove_invisible": False, "trim": False, "unicode_form": None,
                                "keep_cjk_punctuation": True}
        for step in input_steps(recipe, field):
            if step.op == "remove_invisible":
                spec["remove_invisible"] = True
            elif step.op == "trim_whitespace":
                spec["trim"] = True
            else:
                spec["unicode_form"] = step.params.get("form", "NFKC")
                spec["keep_cjk_punctuation"] = bool(step.params.get("keep_cjk_punctuation", True))
        out[field] = spec
    return out


def normalize_record(record: Mapping[str, Any], recipe: Recipe | Mapping | None) -> dict[str, Any]:
    """``record`` with each text field cleaned by the recipe's in-place text steps."""
    out = dict(record)
    for field, value in record.items():
        if not isinstance(value, str) or not value:
            continue
        frame = pd.DataFrame({field: pd.Series([value], dtype="string")})
        for step in input_steps(recipe, field):
            frame, _ = apply_step(frame, Step(op=step.op, params={**step.params, "columns": [field]}))
        out[field] = str(frame[field].iloc[0])
    return out
