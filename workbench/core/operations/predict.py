"""Apply a trained run to a new file: the use case behind ``workbench predict`` and the
Evaluate page's "Apply to a file".

The file is read by the same importer as ``data prepare`` (encodings, sheets, JSON
shapes), its columns are mapped with the project's own mapping (the user's column names;
a file with one column is the main field), and its texts are cleaned with the project's
in-place text steps, so the model sees new rows as it saw the training rows. The engine
runs the model; this module decides everything around it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from ..cleaning.inputs import input_steps
from ..cleaning.steps import Step, apply_step
from ..dataio import read_table
from ..errors import DataError, WorkbenchError
from ..fsutil import atomic_write
from ..io.header import added_column
from ..mapping import mapped_columns, mapped_values, suggest_mapping
from ..project import Project
from ..task import TaskSpec

OUTPUT_SUFFIXES = (".csv", ".xlsx")
PREDICTIONS_DIR = "predictions"
PREDICTION, PROBABILITY = "prediction", "probability"


def predict_args(project_root, run_id: str, input_path, output_path, *, sheet: str | None = None,
                 all_probabilities: bool = False, max_new_tokens: int | None = None) -> list[str]:
    """The ``workbench predict`` argument list (the GUI runs it in a child process)."""
    args = ["predict", "--project", str(project_root), "--run", run_id, "--input", str(input_path),
            "--output", str(output_path), "--json"]
    if sheet:
        args += ["--sheet", sheet]
    if all_probabilities:
        args.append("--all-probabilities")
    if max_new_tokens:
        args += ["--max-new-tokens", str(int(max_new_tokens))]
    return args


def default_output(project: Project, run_id: str, input_path) -> Path:
    """Where a prediction of ``input_path`` by ``run_id`` goes unless the user says otherwise."""
    return project.root / PREDICTIONS_DIR / f"{Path(input_path).stem}-{run_id}.csv"


def check_paths(input_path, output_path) -> None:
    """Refuse what cannot work before a model is loaded."""
    src, dst = Path(input_path), Path(output_path)
    if not src.is_file():
        raise DataError(f"The input file '{src}' was not found. Check the path, or pick the file again.",
                        code="file_not_found", path=str(src))
    if dst.suffix.lower() not in OUTPUT_SUFFIXES:
        raise WorkbenchError(f"The output '{dst.name}' must end in {' or '.join(OUTPUT_SUFFIXES)} "
                             "(CSV or Excel).", code="output_suffix_wrong", name=dst.name)
    if dst.resolve() == src.resolve():
        raise WorkbenchError("The output must be a new file: your input file is never overwritten.",
                             code="output_is_input")
    if dst.is_dir():
        raise WorkbenchError(f"The output '{dst}' is a folder; give a file name ending in .csv or .xlsx.",
                             code="output_is_folder", path=str(dst))


def input_mapping(task: TaskSpec, columns: list[str]) -> dict[str, str]:
    """``{field: column}``: the project's own column where the file has it, else the
    importer's guess; a single column is the main field."""
    fields = task.input_roles
    mapping = task.columns
    guess = suggest_mapping(task, columns)
    out = {}
    for field in fields:
        col = mapping.get(field)
        if mapped_columns(col, columns):  # the project's column, or its joined columns (title+ask)
            out[field] = col
        elif guess.get(field):
            out[field] = guess[field]
    if fields[0] not in out:
        if len(columns) == 1:
            return {fields[0]: columns[0]}
        wanted = " / ".join(dict.fromkeys(c for c in (mapping.get(fields[0]), fields[0]) if c))
        raise DataError(f"The file has no column for the text the model reads ({wanted}); its columns are "
                        f"{', '.join(map(str, columns))}. Rename that column, or keep only the text column.",
                        code="input_text_column_missing", wanted=wanted, columns=[str(c) for c in columns])
    return out


def load_inputs(project: Project, path, *, sheet: str | None = None,
                progress: Callable[[float], None] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(original, records)``: the file as read, and one cleaned column per prompt field."""
    df, _info = read_table(path, sheet=sheet, progress=progress)
    if df.empty:
        raise DataError(f"'{Path(path).name}' has no rows to predict.", code="input_without_rows",
                        name=Path(path).name)
    task = project.task
    mapping = input_mapping(task, [str(c) for c in df.columns])
    records = pd.DataFrame(index=df.index)
    for field in task.input_roles:
        col = mapping.get(field)
        records[field] = mapped_values(df, col).fillna("") if col else pd.Series("", index=df.index, dtype="string")
        for step in input_steps(project.config.recipe, field):
            records, _ = apply_step(records, Step(op=step.op, params={**step.params, "columns": [field]}))
    return df, records


def result_frame(original: pd.DataFrame, task: str, labels: list[str], predictions: list,
                 probabilities: list[list[float]] | None, all_probabilities: bool,
                 multi_label: bool = False) -> pd.DataFrame:
    """The input columns plus the prediction (classification: label and its probability, and
    optionally one column per label; instruction: the answer). Multi-label: the label set in
    one cell and every label's own probability (the largest one alone says little). An input
    column that already has one of these names is kept; the new one is ``prediction_1`` etc."""
    out = original.copy()
    taken = set(map(str, out.columns))
    free = lambda name: added_column(name, taken)  # noqa: E731  (the user's columns are kept)

    if multi_label:
        from ..multilabel import LABEL_SET_JOINER

        out[free(PREDICTION)] = [LABEL_SET_JOINER.join(p) for p in predictions]
        for i, label in enumerate(labels):
            out[free(f"p_{label}")] = [round(p[i], 6) for p in probabilities or []]
        return out
    out[free(PREDICTION)] = predictions
    if task == "classification" and probabilities is not None:
        out[free(PROBABILITY)] = [round(max(p), 6) for p in probabilities]
        if all_probabilities:
            for i, label in enumerate(labels):
                out[free(f"p_{label}")] = [round(p[i], 6) for p in probabilities]
    return out


def write_result(df: pd.DataFrame, path) -> Path:
    """CSV (UTF-8 with BOM, so Excel opens it) or Excel by the suffix; written atomically."""
    path = Path(path)
    if path.suffix.lower() == ".xlsx":
        return atomic_write(path, lambda tmp: df.to_excel(tmp, index=False, engine="openpyxl"))
    return atomic_write(path, lambda tmp: df.to_csv(tmp, index=False, encoding="utf-8-sig"))


def read_result(path) -> pd.DataFrame:
    path = Path(path)
    if path.suffix.lower() == ".xlsx":
        return pd.read_excel(path, dtype=str, keep_default_na=False)
    return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")


def save_result_as(src, dst) -> Path:
    """Save a prediction result under another name, as CSV or Excel by the new suffix."""
    dst = Path(dst)
    if dst.suffix.lower() not in OUTPUT_SUFFIXES:
        raise WorkbenchError(f"'{dst.name}' must end in {' or '.join(OUTPUT_SUFFIXES)} (CSV or Excel).",
                             code="output_suffix_wrong", name=dst.name)
    return write_result(read_result(src), dst)



