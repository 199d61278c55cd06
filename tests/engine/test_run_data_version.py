"""A run reads the data version it trained on: corrections and prepares made after it change
what the next run trains on, not what this one is evaluated or exported with."""

from __future__ import annotations

import json

import pandas as pd

from trained_factory import CLS, USER_COLUMNS, train_run, user_frame
from workbench.core.operations.corrections import correct
from workbench.core.project import Project, SplitSettings, prepare
from workbench.core.templates import TemplateCatalog


def test_evaluation_reads_the_runs_version_after_a_correction_and_a_prepare(tmp_path):
    template = TemplateCatalog().get(CLS)
    src = tmp_path / "export.csv"
    user_frame(CLS).to_csv(src, index=False, encoding="gb18030")
    project, _ = prepare(template, src, tmp_path / "p", mapping=USER_COLUMNS[CLS],
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    run_dir = train_run(project, "run-1", steps=2)
    version = project.config.data_version
    test = [json.loads(line) for line in project.split_path("test").read_text(encoding="utf-8").splitlines()]
    row = test[0]
    other = next(lab for lab in project.task.labels if lab != row["label"])
    applied = correct(project.root, [(row["row_id"], other)], source="predictions")
    assert applied.version != version
    # a prepare with other splits while the run's files stay: the run still reads its own rows
    prepare(template, src, project.root, split=SplitSettings(train=0.7, val=0.15, test=0.15, seed=5))

    from workbench.engine.evaluation.evaluate import evaluate_run

    result = evaluate_run(project.root, "run-1", write_report=False)
    assert result["data_version"] == version and result["rows"] == len(test)
    predictions = pd.read_csv(run_dir / "eval" / "predictions.csv", dtype=str, keep_default_na=False)
    assert predictions["row_id"].tolist() == [r["row_id"] for r in test]
    assert predictions.loc[0, "reference"] == row["label"], "scored with the labels the run trained with"
    now = Project.open(project.root)
    assert now.config.data_version not in (version, applied.version)
    current = {r["row_id"]: r for r in map(json.loads, now.split_path("test").read_text(encoding="utf-8").splitlines())}
    if row["row_id"] in current:  # the correction was replayed on the new split too
        assert current[row["row_id"]]["label"] == other


def test_a_run_trains_and_is_evaluated_on_a_corrections_version_stored_as_its_changes(tmp_path):
    """The trainer and the evaluation open the version's splits through Project.split_path,
    which makes them from the prepared version's the first time (core/versions.py)."""
    import shutil

    from workbench.core.versions import materialised_dir, version_dir
    from workbench.engine.evaluation.evaluate import evaluate_run

    template = TemplateCatalog().get(CLS)
    src = tmp_path / "export.csv"
    user_frame(CLS).to_csv(src, index=False, encoding="gb18030")
    project, _ = prepare(template, src, tmp_path / "p", mapping=USER_COLUMNS[CLS])
    test = [json.loads(line) for line in project.split_path("test").read_text(encoding="utf-8").splitlines()]
    train = [json.loads(line) for line in project.split_path("train").read_text(encoding="utf-8").splitlines()]
    other = next(lab for lab in project.task.labels if lab != test[0]["label"])
    applied = correct(project.root, [(test[0]["row_id"], other), (train[0]["row_id"], None)])
    assert not (version_dir(project.data_dir, applied.version) / "train.jsonl").exists()
    shutil.rmtree(materialised_dir(project.data_dir, applied.version), ignore_errors=True)
    run_dir = train_run(Project.open(project.root), "run-1", steps=2)
    assert materialised_dir(project.data_dir, applied.version).is_dir(), "made for the trainer"
    prepare(template, src, project.root, split=SplitSettings(train=0.7, val=0.15, test=0.15, seed=5))
    result = evaluate_run(project.root, "run-1", write_report=False)
    assert result["data_version"] == applied.version and result["rows"] == len(test)
    predictions = pd.read_csv(run_dir / "eval" / "predictions.csv", dtype=str, keep_default_na=False)
    assert predictions.loc[0, "reference"] == other, "scored with the corrected label the run trained with"
