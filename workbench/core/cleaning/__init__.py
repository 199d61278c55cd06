"""The cleaning engine: replayable recipes of pure DataFrame steps.

    recipe = Recipe.from_template(template)
    cleaned, reports = recipe.apply(df, progress=..., cancelled=...)

Every step is a pure function of a DataFrame returning a new frame and a
:class:`StepReport`; original row index labels are kept throughout. ``STEPS`` lists the
operations with their titles and parameter schemas.
"""

from . import label_quotes  # noqa: F401  (registers its step)
from .inputs import input_normalization, normalize_record
from .pii import DEFAULT_TOKENS as PII_DEFAULT_TOKENS
from .pii import KINDS as PII_KINDS
from .pii import id_checksum_ok, is_id_number, luhn_ok
from .recipe import RECIPE_VERSION, Cancelled, Recipe
from .steps import MAX_EXAMPLES, STEPS, Example, Step, StepInfo, StepReport, apply_step, near_duplicate_key

__all__ = [
    "Cancelled",
    "Example",
    "MAX_EXAMPLES",
    "PII_DEFAULT_TOKENS",
    "PII_KINDS",
    "RECIPE_VERSION",
    "Recipe",
    "STEPS",
    "Step",
    "StepInfo",
    "StepReport",
    "apply_step",
    "id_checksum_ok",
    "input_normalization",
    "is_id_number",
    "luhn_ok",
    "near_duplicate_key",
    "normalize_record",
]
