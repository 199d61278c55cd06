"""A cleaning recipe: an ordered list of steps, saved as JSON and replayed on the data.

The recipe, not the cleaned data, is the record of what was done: replaying the same
recipe on the same input gives the same output, so a project stores the imported
snapshot plus the recipe, and the CLI re-runs what the analyst clicked.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field, ValidationError

from ..errors import DataError
from ..fsutil import atomic_write_text
from .steps import Step, StepReport, parse_params, run_step

RECIPE_VERSION = 1


class Cancelled(Exception):
    """Raised by :meth:`Recipe.apply` when ``cancelled()`` returned True.

    Checked before every step, so a running step finishes first; the input frame is
    untouched and no partial result is returned.
    """


class Recipe(BaseModel):
    version: int = RECIPE_VERSION
    steps: list[Step] = Field(default_factory=list)

    # ----- running -------------------------------------------------------------------
    def apply(
        self,
        df: pd.DataFrame,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        done: dict[int, StepReport] | None = None,
    ) -> tuple[pd.DataFrame, list[StepReport]]:
        """Run the steps in order on ``df`` (which is not modified).

        ``done``: steps (by position, from 0) already applied to ``df``, with their reports;
        they are not run again (see core.preparing: label steps that run first).

        Returns the cleaned frame (original index labels kept) and one report per step,
        disabled steps included (``skipped=True``), so reports line up with ``steps``.
        ``progress(done, total)`` is called with (0, total) first and after every step.
        ``cancelled()`` is polled before every step; when it returns True, :class:`Cancelled`
        is raised. A bad step (unknown op, bad param, missing column) raises DataError
        naming its number (1-based) and op before any step runs.
        """
        self.check(columns=df.columns)  # fail before a long run, not half-way through it
        total = len(self.steps)
        if progress:
            progress(0, total)
        out = df.copy(deep=False)
        reports: list[StepReport] = []
        for i, step in enumerate(self.steps, 1):
            if cancelled is not None and cancelled():
                raise Cancelled(f"Cleaning was cancelled before step {i} of {total} ({step.op}).")
            if done and i - 1 in done:
                reports.append(done[i - 1])
            else:
                out, report = run_step(out, step, index=i)
                reports.append(report)
            if progress:
                progress(i, total)
        return out, reports

    def check(self, columns: Iterable[str] | None = None) -> None:
        """Validate every step's op and params (and, given ``columns``, the column names
        the steps name) without running anything; raises DataError."""
        if self.version > RECIPE_VERSION:
            raise DataError(
                f"This cleaning recipe has version {self.version}; this version of Workbench "
                f"reads version {RECIPE_VERSION} and older. Update Workbench to use it.",
                code="recipe_too_new", version=self.version, newest=RECIPE_VERSION,
            )
        available = None if columns is None else list(columns)
        for i, step in enumerate(self.steps, 1):
            params = parse_params(step, i)
            if available is None:
                continue
            named = []
            for attr in ("column", "columns"):
                v = getattr(params, attr, None)
                named += [v] if isinstance(v, str) else list(v or [])
            for c in named:
                if c not in available:
                    avail = ", ".join(repr(x) for x in available) or "(none)"
                    raise DataError(
                        f"Cleaning step {i} '{step.op}': column {c!r} does not exist. "
                        f"Available columns: {avail}. Correct the column name in the recipe.",
                        code="step_column_missing", step=i, op=step.op, column=str(c),
                        columns=[str(x) for x in available],
                    )

    # ----- (de)serialising -----------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: Any, source: str = "The cleaning recipe") -> "Recipe":
        if isinstance(data, list):  # a bare list of steps, as in TemplateSpec.default_recipe()
            data = {"steps": data}
        try:
            recipe = cls.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
            raise DataError(
                f"{source} is invalid: field '{loc}': {err['msg']}. Fix the recipe and try again.",
                code="recipe_invalid", entry=loc, detail=str(err["msg"]),
            ) from None
        recipe.check()
        return recipe

    @classmethod
    def from_json(cls, text: str) -> "Recipe":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"The cleaning recipe is not valid JSON: {exc}.", code="recipe_not_json",
                            detail=str(exc)) from None
        return cls.from_dict(data)

    def save(self, path: str | os.PathLike) -> Path:
        return atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Recipe":
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise DataError(f"Cannot read the cleaning recipe {path}: {exc}.", code="recipe_unreadable",
                            path=str(path), detail=str(exc)) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError(f"The cleaning recipe {path} is not valid JSON: {exc}.", code="recipe_file_not_json",
                            path=str(path), detail=str(exc)) from None
        return cls.from_dict(data, source=f"The cleaning recipe {path}")

    @classmethod
    def from_template(cls, template) -> "Recipe":
        """The template's default recipe (label set and sensitive terms filled in)."""
        return cls.from_dict(template.default_recipe(), source=f"The cleaning recipe of template '{template.id}'")
