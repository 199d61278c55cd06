"""A training length shorter than the answer asked for: the question is read whole and the
answer's budget shrinks (never below a floor), the same in the evaluation, the bundle's
predict.py and the served /predict; the user is told in metrics.json and the model card."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.engine.bundle.bundle_runtime import ANSWER_FLOOR, answer_budget


def test_the_answer_shrinks_before_the_question_is_cut():
    # the case: trained on 192 tokens, 256 new tokens asked for
    assert answer_budget(60, 192, 256) == (60, 132)
    assert answer_budget(150, 192, 256) == (150, ANSWER_FLOOR + 10)
    assert answer_budget(160, 192, 256) == (160, ANSWER_FLOOR)
    # only a question that leaves less than the floor is cut (from its middle, as training does)
    assert answer_budget(300, 192, 256) == (192 - ANSWER_FLOOR, ANSWER_FLOOR)
    # what fits is not touched, and never more than asked
    assert answer_budget(40, 512, 64) == (40, 64)
    assert answer_budget(180, 192, 24) == (168, 24)
    # a tiny training length still leaves the question half of it
    assert answer_budget(100, 40, 256) == (20, 20)


@pytest.mark.slow
def test_short_training_length_evaluation_predict_py_and_service_agree(tmp_path, capsys):
    pytest.importorskip("paddle")
    from test_serve import Service, isolated_env
    from trained_factory import INST, USER_COLUMNS, train_run

    from workbench.core.project import SplitSettings, prepare
    from workbench.core.templates import TemplateCatalog
    from workbench.engine.evaluation.evaluate import evaluate_run
    from workbench.engine.inference.answers import prompt_budgets
    from workbench.engine.export.bundle import export_run
    from trained_factory import user_frame

    template = TemplateCatalog().get(INST)
    src = tmp_path / "export.csv"
    user_frame(INST).to_csv(src, index=False, encoding="utf-8")
    project, _ = prepare(template, src, tmp_path / "p", mapping=USER_COLUMNS[INST],
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    max_length, asked = 64, 96  # the answer asked for is longer than the whole training length
    train_run(project, "short", steps=24, max_length=max_length)

    from workbench.cli import main as cli_main

    assert cli_main(["eval", "--project", str(project.root), "--run", "short", "--max-new-tokens", str(asked),
                     "--rows", "4", "--no-compare-base"]) == 0
    assert "note: The model was trained on 64 tokens, question and answer together" in capsys.readouterr().out
    result = evaluate_run(project.root, "short", max_new_tokens=asked, limit=4, write_report=False)
    note = result["metrics"]["answer_budget"]
    assert note["asked"] == asked and note["max_length"] == max_length and note["shortened"] == 4
    assert note["smallest"] >= min(ANSWER_FLOOR, max_length // 2)
    assert "trained on 64 tokens" in note["note"] and "train again with a larger maximum length" in note["note"]

    # the prompts are those the evaluation read: whole, not cut to 8 tokens as before
    from workbench.engine.inference.trained import load_trained
    from workbench.engine.inference.classify import task_prompts
    from workbench.core.trained import resolve_trained_run
    from workbench.engine import examples

    trained = resolve_trained_run(project, "short", "best")
    model, tok = load_trained(trained)
    records = examples.read_jsonl(project.split_path("test"))[:4]
    prompts = task_prompts(model, tok, trained.spec, records)
    encoded, budgets = prompt_budgets(tok, prompts, max_new_tokens=asked, max_length=max_length)
    whole = [examples.encode_prompt(tok, p) for p in prompts]
    assert all(e == w for e, w in zip(encoded, whole) if len(w) <= max_length - ANSWER_FLOOR)
    assert all(len(e) + b <= max_length for e, b in zip(encoded, budgets))
    assert min(len(e) for e in encoded) > 8

    out = tmp_path / "bundle"
    res = export_run(project.root, "short", out, formats=["static"], check_script=True, parity_rows=4)
    assert res["predict_script"]["status"] == "ok", res["predict_script"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "**Answer length:** The model was trained on 64 tokens" in card

    rows = [{USER_COLUMNS[INST][f]: r.get(f, "") for f in ("instruction", "input")} for r in records]
    with open(tmp_path / "in.csv", "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    r = subprocess.run([sys.executable, "-S", "predict.py", "--input", str(tmp_path / "in.csv"), "--output",
                        str(tmp_path / "out.csv"), "--max-new-tokens", str(asked)], cwd=out, env=isolated_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "out.csv", encoding="utf-8-sig", newline="") as fh:
        by_script = [row["prediction"] for row in csv.DictReader(fh)]
    by_eval = [row["prediction"] for row in _eval_rows(trained.eval_dir / "predictions.csv")]
    assert any(a.strip() for a in by_eval), "the model answered nothing: the comparison would prove nothing"
    assert by_script == by_eval
    with Service(out) as svc:
        status, body = svc.json("POST", "/predict", {"inputs": rows, "max_new_tokens": asked})
    assert status == 200, body
    assert [p["answer"] for p in body["predictions"]] == by_eval


def _eval_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))
