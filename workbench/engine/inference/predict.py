"""Run a trained model over a new file (``workbench predict``); the decisions about the file
(reading, column mapping, cleaning, the result's columns, writing) are core's
(core/operations/predict.py), the model work is here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.core.operations import predict as predict_operations
from workbench.core.project import Project
from workbench.core.trained import resolve_trained_run
from workbench.engine.models import loading

Progress = Callable[[str, int, int], None]
CHUNK = 32  # rows per progress report (and per classification batch)


def predict_file(project_dir, run_id: str, input_path, output_path, *, sheet: str | None = None,
                 all_probabilities: bool = False, max_new_tokens: int | None = None, device: str = "cpu",
                 progress: Progress | None = None) -> dict[str, Any]:
    from workbench.engine.inference.answers import generate_answers
    from workbench.engine.inference.classify import classify_with_probs, task_prompts
    from workbench.engine.inference.trained import load_trained, read_eval

    report = progress or (lambda s, d, t: None)
    predict_operations.check_paths(input_path, output_path)
    project = Project.open(project_dir)
    trained = resolve_trained_run(project, run_id)
    spec = trained.spec  # the run's own labels and prompt
    report("read", 0, 1)
    original, records = predict_operations.load_inputs(project, input_path, sheet=sheet)
    report("load", 0, 1)
    loading.set_library_log_level("ERROR")
    model, tokenizer = load_trained(trained, device=device)
    rows = records.to_dict("records")
    prompts = task_prompts(model, tokenizer, spec, rows)
    n = len(prompts)
    labels = list(spec.labels)
    probabilities = None
    report("predict", 0, n)
    if trained.task == "classification":
        probabilities = []
        for start in range(0, n, CHUNK):
            probabilities += classify_with_probs(model, tokenizer, prompts[start:start + CHUNK], labels,
                                                 max_length=trained.job.max_length)
            report("predict", min(n, start + CHUNK), n)
        if spec.multi_label:
            from workbench.engine.scoring import label_sets_from_probabilities

            predictions = label_sets_from_probabilities(probabilities, labels, _threshold(trained, spec, model,
                                                                                         tokenizer),
                                                        spec.no_label_rows)
        else:
            predictions = [labels[max(range(len(p)), key=p.__getitem__)] for p in probabilities]
    else:
        if not max_new_tokens:
            max_new_tokens = ((read_eval(trained.run_dir) or {}).get("metrics") or {}).get("max_new_tokens") or 128
        predictions = generate_answers(model, tokenizer, prompts, max_new_tokens=int(max_new_tokens),
                                       max_length=trained.job.max_length,
                                       progress=lambda done, total: report("predict", done, total))
    report("write", 0, 1)
    result = predict_operations.result_frame(original, trained.task, labels, predictions, probabilities, all_probabilities,
                            multi_label=spec.multi_label)
    out = predict_operations.write_result(result, output_path)
    summary: dict[str, Any] = {"run": trained.run_id, "source": trained.source, "task": trained.task,
                               "rows": n, "input": str(Path(input_path)), "output": str(out),
                               "columns": [str(c) for c in result.columns]}
    if spec.multi_label:
        summary["labels"] = {lab: sum(lab in p for p in predictions) for lab in labels}
    elif trained.task == "classification":
        summary["labels"] = {lab: predictions.count(lab) for lab in labels}
    if trained.note:
        summary["note"] = trained.note
    return summary


def _threshold(trained, spec, model, tokenizer) -> float:
    """A multi-label run's decision threshold: the evaluation's, else tuned on validation now."""
    from workbench.engine.inference.classify import tuned_threshold
    from workbench.engine.inference.trained import read_eval

    stored = read_eval(trained.run_dir) or {}
    if stored.get("source") == trained.source and "threshold" in (stored.get("metrics") or {}):
        return float(stored["metrics"]["threshold"])
    return tuned_threshold(model, tokenizer, trained.project, spec, max_length=trained.job.max_length)["threshold"]
