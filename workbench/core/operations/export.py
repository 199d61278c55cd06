"""What an export can make of a run, decided from the run's job before any model loads: the
command line refuses what cannot be made, and the Export page does not offer it."""

from __future__ import annotations

import os

from ..errors import WorkbenchError
from ..jobs import read_job

# Why a run gets no int8 model; the Export page words its own translation of each reason, the
# command line prints these. Measured on the built-in classifier with 3 labels: builtin:tiny
# 83,846 weights of which 608 in linear layers (0.7 %), builtin:small 17,838,854 of which 8,576
# (0.05 %); the rest are the n-gram embedding tables, which grow with the number of labels.
NO_INT8 = {
    "builtin_classifier": "The built-in classifier has nothing for int8 to quantise: its weights are tables of "
                          "character n-gram embeddings, and its linear layers hold under 1 % of them, so an 'int8' "
                          "model would be the fp32 model under another name. Export it without int8: its static "
                          "model is the one to ship.",
}


def int8_refusal(base_model: str, task: str) -> str | None:
    """The key of :data:`NO_INT8` that rules out an int8 model for a run of ``base_model``
    trained for ``task``, or None where weight-only int8 has linear layers to quantise (a
    language model)."""
    if str(base_model).startswith("builtin:") and str(task) == "classification":
        return "builtin_classifier"
    return None


def run_int8_refusal(run_dir: str | os.PathLike) -> str | None:
    """:func:`int8_refusal` for the run in ``run_dir``, read from its job (None if unreadable)."""
    try:
        job = read_job(run_dir)
    except WorkbenchError:
        return None
    return int8_refusal(job.base_model, job.task)
