"""``workbench predict``: a trained run applied to a new file, read by the importer with the
project's own column names and cleaning, for real (short runs of the built-in tiny model)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from workbench.cli import build_parser, cmd_predict, main as cli_main  # noqa: E402
from workbench.core.operations.predict import predict_args  # noqa: E402
from workbench.core.project import Project  # noqa: E402

from trained_factory import CLS, INST, USER_COLUMNS, trained_project, user_frame  # noqa: E402


@pytest.fixture(scope="module")
def projects(tmp_path_factory):
    base = tmp_path_factory.mktemp("predict")
    return {CLS: trained_project(CLS, base), INST: trained_project(INST, base)}


def _engine_labels(project: Project, texts: list[str]) -> tuple[list[str], list[list[float]]]:
    from workbench.core.cleaning import normalize_record
    from workbench.core.trained import resolve_trained_run
    from workbench.engine.evaluate import load_trained, predict_split

    # the evaluation's own path (its prompt for this kind of model): predict must agree with it
    trained = resolve_trained_run(project, "run-1")
    spec = project.task
    model, tok = load_trained(trained)
    records = [{**normalize_record({"text": t}, project.config.recipe), "label": spec.labels[0]} for t in texts]
    rows = predict_split(model, tok, records, spec, max_length=trained.job.max_length)["rows"]
    probs = [[r["probabilities"][lab] for lab in spec.labels] for r in rows]
    return [r["prediction"] for r in rows], probs


def test_predict_a_gb18030_file_with_the_users_columns(projects, tmp_path, capfd):
    project = projects[CLS]
    new = user_frame(CLS).head(20).drop(columns=[USER_COLUMNS[CLS]["label"]])
    new.iloc[0, new.columns.get_loc("新闻正文")] = "  ＡＢＣ公司一季度净利润增长１２％，超出预期  "  # cleaned as in training
    src = tmp_path / "next-month.csv"
    new.to_csv(src, index=False, encoding="gb18030")
    before = src.read_bytes()
    out = tmp_path / "result.csv"
    args = predict_args(project.root, "run-1", src, out, all_probabilities=True)
    assert build_parser().parse_args(args).func is cmd_predict
    assert cli_main(args) == 0
    lines = capfd.readouterr().out.strip().splitlines()  # progress goes to file descriptor 1
    events = [json.loads(line) for line in lines]
    assert all(e["event"] == "progress" for e in events[:-1]) and "event" not in events[-1]
    stages = [e["stage"] for e in events[:-1]]
    assert stages[0] == "read" and stages[-1] == "write" and "predict" in stages and "load" in stages
    assert [e for e in events[:-1] if e["stage"] == "predict"][-1]["done"] == 20
    result = events[-1]
    assert result["rows"] == 20 and Path(result["output"]) == out
    assert src.read_bytes() == before  # the user's file is untouched
    got = pd.read_csv(out, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    assert list(got.columns) == list(new.columns) + ["prediction", "probability", "p_正面", "p_中性", "p_负面"]
    assert list(got["新闻正文"]) == list(new["新闻正文"])  # the input as it was, beside the prediction
    labels, probs = _engine_labels(project, list(new["新闻正文"]))
    assert list(got["prediction"]) == labels
    for row, p in zip(got.itertuples(index=False), probs):
        assert float(row.probability) == pytest.approx(max(p), abs=1e-5)
        assert float(getattr(row, "p_中性")) == pytest.approx(p[1], abs=1e-5)


def test_predict_excel_and_json_inputs_and_a_single_column(projects, tmp_path, capsys):
    project = projects[CLS]
    texts = list(user_frame(CLS)["新闻正文"].head(6))
    xlsx = tmp_path / "in.xlsx"
    with pd.ExcelWriter(xlsx) as w:
        pd.DataFrame({"说明": ["x"]}).to_excel(w, sheet_name="readme", index=False)
        pd.DataFrame({"编号": range(6), "新闻正文": texts}).to_excel(w, sheet_name="data", index=False)
    out = tmp_path / "out.xlsx"
    assert cli_main(["predict", "--project", str(project.root), "--run", "run-1", "--input", str(xlsx),
                     "--sheet", "data", "--output", str(out)]) == 0
    got = pd.read_excel(out, dtype=str)
    assert list(got.columns) == ["编号", "新闻正文", "prediction", "probability"]
    labels, _ = _engine_labels(project, texts)
    assert list(got["prediction"]) == labels
    # JSON with one field of a name the project never saw: the single column is the main field
    js = tmp_path / "in.json"
    js.write_text(json.dumps([{"摘要": t} for t in texts], ensure_ascii=False), encoding="utf-8")
    out2 = tmp_path / "out2.csv"
    assert cli_main(["predict", "--project", str(project.root), "--run", "run-1", "--input", str(js),
                     "--output", str(out2)]) == 0
    assert list(pd.read_csv(out2, encoding="utf-8-sig")["prediction"]) == labels
    capsys.readouterr()


def test_predict_instruction_answers(projects, tmp_path, capfd):
    project = projects[INST]
    cols = USER_COLUMNS[INST]
    new = user_frame(INST).head(3)[[cols["instruction"], cols["input"]]]
    src = tmp_path / "questions.csv"
    new.to_csv(src, index=False, encoding="utf-16")
    out = tmp_path / "answers.csv"
    assert cli_main(["predict", "--project", str(project.root), "--run", "run-1", "--input", str(src),
                     "--output", str(out), "--max-new-tokens", "8", "--json"]) == 0
    result = json.loads(capfd.readouterr().out.strip().splitlines()[-1])
    assert result["task"] == "instruction" and result["rows"] == 3
    got = pd.read_csv(out, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    assert list(got.columns) == [cols["instruction"], cols["input"], "prediction"]


def test_bad_predict_inputs_exit_2_with_a_message(projects, tmp_path, capsys):
    root = str(projects[CLS].root)
    two = tmp_path / "two.csv"
    two.write_text("编号,日期\n1,2024\n", encoding="utf-8")
    cases = [
        (["--input", str(tmp_path / "missing.csv"), "--output", str(tmp_path / "o.csv")], "was not found"),
        (["--input", str(two), "--output", str(tmp_path / "o.txt")], "must end in .csv or .xlsx"),
        (["--input", str(two), "--output", str(two)], "never overwritten"),
        (["--input", str(two), "--output", str(tmp_path / "o.csv")], "no column for the text"),
    ]
    for extra, message in cases:
        assert cli_main(["predict", "--project", root, "--run", "run-1", *extra]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    assert not (tmp_path / "o.csv").exists()
    assert cli_main(["predict", "--project", root, "--run", "nope", "--input", str(two),
                     "--output", str(tmp_path / "o.csv")]) == 2
