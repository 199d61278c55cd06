"""``workbench predict``: a trained run applied to a new file, read by the importer with the
project's own column names and cleaning, for real (short runs of the built-in tiny model)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from workbench.cli import build_parser, main as cli_main
from workbench.cli.evaluate_export import cmd_predict  # noqa: E402
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
    from workbench.engine.inference.trained import load_trained
    from workbench.engine.evaluation.evaluate import predict_split

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


# ----- one reader: the bundle's predict.py reads a file as `workbench predict` does ---------------------

import os  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import sysconfig  # noqa: E402

TOOLS = ("workbench predict", "predict.py")


def _isolated_env() -> dict[str, str]:
    """Python finds paddle, tokenizers and numpy but not the workbench (``python -S``)."""
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "MODEL_API_KEY"}
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


@pytest.fixture(scope="module")
def bundle(projects, tmp_path_factory):
    from workbench.engine.export.bundle import export_run

    out = tmp_path_factory.mktemp("bundle") / "cls"
    export_run(projects[CLS].root, "run-1", out, formats=["static"], evaluate=False, check_script=False,
               parity_rows=4)
    return out


def _predict(tool: str, projects, bundle, src: Path, out: Path, capsys, *extra: str) -> tuple[int, str]:
    """Exit code and error text of one tool run on ``src``."""
    if tool == "workbench predict":
        code = cli_main(["predict", "--project", str(projects[CLS].root), "--run", "run-1", "--input", str(src),
                         "--output", str(out), *extra])
        return code, capsys.readouterr().err
    r = subprocess.run([sys.executable, "-S", "predict.py", "--input", str(src), "--output", str(out),
                        "--device", "cpu", *extra], cwd=bundle, env=_isolated_env(), capture_output=True, text=True,
                       timeout=300)
    return r.returncode, r.stderr


def _read_out(out: Path) -> pd.DataFrame:
    return pd.read_csv(out, dtype=str, keep_default_na=False, encoding="utf-8-sig")


def _news(n: int, comma: bool = False) -> list[str]:
    texts = list(user_frame(CLS)["新闻正文"].head(n))
    if comma:  # ASCII commas in varying numbers, as texts pasted from English sources have
        texts = [t.replace("，", ",", 1 + i % 3) for i, t in enumerate(texts)]
    return texts


def test_the_bundle_carries_the_importers_own_reader(bundle):
    import workbench.core.io.header as header
    import workbench.core.io.textsniff as textsniff

    assert (bundle / "io_sniff.py").read_bytes() == Path(textsniff.__file__).read_bytes()
    assert (bundle / "io_header.py").read_bytes() == Path(header.__file__).read_bytes()


@pytest.mark.parametrize("tool", TOOLS)
def test_a_one_column_txt_keeps_its_commas(tool, projects, bundle, tmp_path, capsys):
    """Seen: predict.py cut each text at its first ASCII comma and wrote the cut text over the
    user's text in the output."""
    texts = _news(8, comma=True)
    assert all("," in t for t in texts)
    src, out = tmp_path / "news.txt", tmp_path / "out.csv"
    src.write_text("新闻正文\n" + "\n".join(texts) + "\n", encoding="utf-8")
    code, err = _predict(tool, projects, bundle, src, out, capsys)
    assert code == 0, err
    got = _read_out(out)
    assert list(got["新闻正文"]) == texts  # whole, as written
    labels, _ = _engine_labels(projects[CLS], texts)
    assert list(got["prediction"]) == labels


@pytest.mark.parametrize("tool", TOOLS)
def test_a_headerless_txt_keeps_its_first_line(tool, projects, bundle, tmp_path, capsys):
    """Seen in both tools: the first text of a one-text-per-line file was taken for a column name."""
    texts = _news(6)
    src, out = tmp_path / "lines.txt", tmp_path / "out.csv"
    src.write_text("\n".join(texts) + "\n", encoding="gb18030")
    code, err = _predict(tool, projects, bundle, src, out, capsys)
    assert code == 0, err
    got = _read_out(out)
    assert list(got.columns)[0] == "col1" and list(got["col1"]) == texts
    labels, _ = _engine_labels(projects[CLS], texts)
    assert list(got["prediction"]) == labels


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("name,content,message", [
    ("empty.csv", b"", "is empty"),
    ("blank.txt", b"\n  \n\n", "is empty"),
    ("header.csv", "新闻正文\n".encode("utf-8"), "has no data rows"),
    ("empty.json", b"[]", "has no data rows"),
])
def test_a_file_without_rows_exits_2_and_writes_nothing(tool, name, content, message, projects, bundle, tmp_path,
                                                        capsys):
    """Seen: predict.py exited 0 with a 0-byte output for an empty or header-only file."""
    src, out = tmp_path / name, tmp_path / "out.csv"
    src.write_bytes(content)
    code, err = _predict(tool, projects, bundle, src, out, capsys)
    assert code == 2 and message in err and "Traceback" not in err, err
    assert not out.exists() and src.read_bytes() == content


@pytest.mark.parametrize("tool", TOOLS)
def test_a_broken_jsonl_line_is_named_by_its_line(tool, projects, bundle, tmp_path, capsys):
    """Seen: predict.py said line 1 for a broken second line."""
    texts = _news(3)
    src, out = tmp_path / "news.jsonl", tmp_path / "out.csv"
    src.write_text(json.dumps({"新闻正文": texts[0]}, ensure_ascii=False) + "\n"
                   + '{"新闻正文": "' + texts[1] + '"\n'  # the closing brace is missing
                   + json.dumps({"新闻正文": texts[2]}, ensure_ascii=False) + "\n", encoding="utf-8")
    code, err = _predict(tool, projects, bundle, src, out, capsys)
    assert code == 2 and re.search(r"\bline 2\b", err) and "line 1" not in err, err
    assert not out.exists()


@pytest.mark.parametrize("tool", TOOLS)
def test_the_users_own_prediction_columns_are_kept(tool, projects, bundle, tmp_path, capsys):
    """Seen: predict.py wrote its prediction over the user's own column named 'prediction'.
    Both tools keep the file's columns and name theirs apart, alike."""
    texts = _news(4)
    mine = {"prediction": ["人工：正面"] * 4, "prediction_1": ["复核"] * 4, "confidence": ["高"] * 4,
            "probability": ["中"] * 4, "p_正面": ["是"] * 4}
    src, out = tmp_path / "checked.csv", tmp_path / "out.csv"
    pd.DataFrame({"新闻正文": texts, **mine}).to_csv(src, index=False, encoding="utf-8")
    extra = ["--all-probabilities"] if tool == "workbench predict" else []
    code, err = _predict(tool, projects, bundle, src, out, capsys, *extra)
    assert code == 0, err
    got = _read_out(out)
    assert list(got.columns[:6]) == ["新闻正文", *mine]
    assert all(list(got[col]) == values for col, values in mine.items())  # as they were
    score = "probability_1" if tool == "workbench predict" else "confidence_1"  # each tool's own name
    assert list(got.columns[6:]) == ["prediction_2", score, "p_正面_1", "p_中性", "p_负面"]
    labels, probs = _engine_labels(projects[CLS], texts)
    assert list(got["prediction_2"]) == labels
    assert [float(v) for v in got["p_正面_1"]] == pytest.approx([p[0] for p in probs], abs=1e-5)


@pytest.mark.parametrize("tool", TOOLS)
def test_an_excel_sheet_chosen_by_name(tool, projects, bundle, tmp_path, capsys):
    texts = _news(5)
    src, out = tmp_path / "in.xlsx", tmp_path / "out.csv"
    with pd.ExcelWriter(src) as w:
        pd.DataFrame({"说明": ["本表为导出说明"]}).to_excel(w, sheet_name="readme", index=False)
        pd.DataFrame({"编号": range(5), "新闻正文": texts}).to_excel(w, sheet_name="data", index=False)
    code, err = _predict(tool, projects, bundle, src, out, capsys, "--sheet", "data")
    assert code == 0, err
    got = _read_out(out)
    assert list(got["编号"]) == [str(i) for i in range(5)] and list(got["新闻正文"]) == texts
    assert list(got["prediction"]) == _engine_labels(projects[CLS], texts)[0]
    code, err = _predict(tool, projects, bundle, src, out, capsys, "--sheet", "数据")
    assert code == 2 and "no sheet named '数据'" in err and "'readme', 'data'" in err, err


@pytest.mark.slow
def test_the_service_answers_texts_with_commas_as_predict_py_reads_them(bundle, tmp_path, capsys, projects):
    """serve.py has no file to read: the texts it is sent are the texts, commas and all."""
    import http.client

    texts = _news(5, comma=True)
    src, out = tmp_path / "news.txt", tmp_path / "out.csv"
    src.write_text("新闻正文\n" + "\n".join(texts) + "\n", encoding="utf-8")
    assert _predict("predict.py", projects, bundle, src, out, capsys)[0] == 0
    proc = subprocess.Popen([sys.executable, "-S", "serve.py", "--port", "0", "--quiet"], cwd=bundle,
                            env=_isolated_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    try:
        first = proc.stderr.readline()
        port = re.search(r"http://127\.0\.0\.1:(\d+)", first)
        assert port, first
        conn = http.client.HTTPConnection("127.0.0.1", int(port.group(1)), timeout=120)
        conn.request("POST", "/predict", body=json.dumps({"inputs": texts}, ensure_ascii=False).encode(),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        body = json.loads(resp.read())
        assert resp.status == 200, body
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert [p["label"] for p in body["predictions"]] == list(_read_out(out)["prediction"])


def _both_readers(path: Path):
    """``(core, bundle)``: the importer's table and the bundle reader's, as (columns, rows of cells),
    or the error message each gave."""
    from workbench.core.dataio import read_table as core_read
    from workbench.core.errors import DataError
    from workbench.engine.bundle import bundle_runtime

    try:
        df, _ = core_read(path)
        core = ([str(c) for c in df.columns], [list(map(str, r)) for r in df.itertuples(index=False)])
    except DataError as exc:
        core = str(exc)
    try:
        header, rows = bundle_runtime.read_table(str(path))
        bundle = (list(header), [[r[h] for h in header] for r in rows])
    except bundle_runtime.InputError as exc:
        bundle = str(exc)
    return core, bundle


NEWS = ["某公司一季度净利润大幅增长，超出市场预期", "某银行不良贷款率上升, 拨备覆盖率下降, 股价承压",
        "某地产公司债务违约后进入破产重整程序", "某科技公司发布新品, 订单饱满"]
FILES = {
    "one-column.txt": ("新闻正文\n" + "\n".join(NEWS) + "\n", "utf-8"),
    "headerless.txt": ("\n".join(NEWS) + "\n", "gb18030"),
    "quoted.txt": ('text\n"引号里的话",后面还有\n' + "\n".join(NEWS) + "\n", "utf-8"),
    "two-columns.csv": ("编号,新闻正文\n" + "".join(f'{i},"{t}"\n' for i, t in enumerate(NEWS)), "utf-8-sig"),
    "headerless.csv": ("".join(f'{i},"{t}"\n' for i, t in enumerate(NEWS)), "utf-8"),
    "trailing-delimiter.csv": ("编号,新闻正文\n" + "".join(f'{i},"{t}",\n' for i, t in enumerate(NEWS)), "utf-8"),
    "tabs.tsv": ("编号\t新闻正文\n" + "".join(f"{i}\t{t}\n" for i, t in enumerate(NEWS)), "utf-16"),
    "semicolons.csv": ("编号;新闻正文\n" + "".join(f"{i};{t}\n" for i, t in enumerate(NEWS)), "gb18030"),
    "nested.json": (json.dumps({"data": [{"新闻正文": t, "meta": {"来源": "网站", "标签": ["a", "b"]}} for t in NEWS]},
                               ensure_ascii=False), "utf-8"),
    "records.jsonl": ("".join(json.dumps({"新闻正文": t}, ensure_ascii=False) + "\n" for t in NEWS), "utf-8"),
    # lines that are arrays of a document's records: one row per record, numbered by its line
    "documents.jsonl": ("".join(json.dumps([{"sentence": t, "labels": ["'违约'"] if i % 2 else []},
                                            {"sentence": t[:6], "labels": []}], ensure_ascii=False) + "\n"
                                for i, t in enumerate(NEWS)), "utf-8"),
    "documents-named.json": ("".join(json.dumps([{"sentence": t}], ensure_ascii=False) + "\n" for t in NEWS),
                             "utf-8"),
    "rows.json": (json.dumps([[t, i, i * 1.5, i % 2 == 0, None] for i, t in enumerate(NEWS)], ensure_ascii=False),
                  "utf-8"),
    "wrapped.json": (json.dumps([[{"新闻正文": t, "分数": 1.0}] for t in NEWS], ensure_ascii=False), "utf-8"),
    "pretty.jsonl": ("".join(json.dumps({"新闻正文": t, "ok": True}, ensure_ascii=False, indent=2) + "\n"
                             for t in NEWS), "utf-8"),
    "mixed-lines.jsonl": (json.dumps([{"sentence": NEWS[0]}], ensure_ascii=False) + "\n\"一句话\"\n", "utf-8"),
    # read by their content, whatever the suffix: a headerless TSV, a text a line, JSON Lines
    "pairs.data": ("".join(f"\x08{t}\t{t[:8]}\t{i % 2}\n" for i, t in enumerate(NEWS)), "utf-8"),
    "quoted-lines.dat": ('"引号里的话",后面还有\n' + "\n".join(NEWS) + "\n", "gb18030"),
    "no-suffix": ("".join(json.dumps({"新闻正文": t}, ensure_ascii=False) + "\n" for t in NEWS), "utf-8"),
    "brackets.txt": ("新闻正文\n" + "".join(f"[快讯]{t}\n" for t in NEWS), "utf-8"),
    "header-only.txt": ("新闻正文\n", "utf-8"),
    "blank.csv": ("\n\n", "utf-8"),
    "broken.jsonl": (json.dumps({"新闻正文": NEWS[0]}, ensure_ascii=False) + "\n{\"新闻正文\": 1\n", "utf-8"),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_importer_and_the_bundle_read_a_file_alike(name, tmp_path):
    text, encoding = FILES[name]
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    core, bundle = _both_readers(path)
    if isinstance(core, str):  # refused by both, for the same reason
        assert isinstance(bundle, str), bundle
        key = re.search(r"is empty|has no data rows|line \d+", core).group(0)
        assert key in bundle, (core, bundle)
    else:
        assert bundle == core


def test_the_importer_and_the_bundle_read_excel_cells_alike(tmp_path):
    """Dates (with and without a time), whole and fractional numbers, TRUE/FALSE and blanks:
    each cell the text both readers give it."""
    import datetime

    path = tmp_path / "cells.xlsx"
    pd.DataFrame({"发布日期": [datetime.datetime(2023, 12, 29), datetime.datetime(2024, 1, 2, 13, 5)],
                  "日": [datetime.date(2023, 1, 1), None], "新闻正文": NEWS[:2], "金额": [1.0, 2.5],
                  "是否": [True, False], "编号": [3, 4]}).to_excel(path, index=False)
    core, bundle = _both_readers(path)
    assert bundle == core
    assert core[1][0][:2] == ["2023-12-29", "2023-01-01"] and core[1][1][0] == "2024-01-02 13:05:00"
