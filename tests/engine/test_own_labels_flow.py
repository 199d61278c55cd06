"""A user's own file and own labels through every step, for real: prepare (labels from the
data), a short built-in run, evaluation, export, and the bundle's predict.py."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import sysconfig

import pytest

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from data_factory import cail_like, coded_rows  # noqa: E402
from data_factory import DEPARTMENTS, hospital_export  # noqa: E402

from workbench.cli import main as cli_main  # noqa: E402
from trained_factory import train_run  # noqa: E402
from workbench.core.project import Project  # noqa: E402


def _train(project: Project, steps: int = 4) -> str:
    return train_run(project, "run-own", steps=steps, save_steps=steps, max_length=96).name


def _isolated(args, cwd) -> subprocess.CompletedProcess:
    """predict.py in a Python that finds paddle and tokenizers but not the workbench."""
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return subprocess.run([sys.executable, "-S", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


CASES = {
    # an export whose 11 departments share none with the template; one has 3 rows, one is spelled three ways
    "hospital": dict(template="medical_triage", make=lambda p: hospital_export(p / "export.csv"),
                     args=["--mapping", "text=主诉内容", "label=科别", "--labels", "from-data"],
                     labels=set(DEPARTMENTS), column="主诉内容", text="反复肝病不适3天，伴乏力"),
    # rows without field names, integer codes named on the command line
    "codes": dict(template="finance_sentiment", make=lambda p: coded_rows(p / "rows.json", n=90, wrap=True),
                  args=["--mapping", "text=col1,label=col2", "--labels", "from-data",
                        "--label-map", "0=利空,1=观望,2=利好"],
                  labels={"利空", "观望", "利好"}, column="col1", text="今天这只股票大涨"),
    # GB18030 JSONL, the charge a list inside meta
    "charges": dict(template="legal_case_type", make=lambda p: cail_like(p / "cases.json", n=60),
                    args=["--mapping", "text=fact", "--mapping", "label=meta.accusation", "--labels", "from-data"],
                    labels={"盗窃", "故意伤害", "[走私、贩卖、运输、制造]毒品", "诈骗"}, column="fact",
                    text="被告人李×于2017年实施了盗窃行为"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", ["hospital", "codes", "charges"])
def test_own_labels_from_prepare_to_predict(tmp_path, capsys, case):
    c = CASES[case]
    src = c["make"](tmp_path)
    root = tmp_path / "project"
    assert cli_main(["data", "prepare", "--template", c["template"], "--input", str(src), "--project", str(root),
                     *c["args"], "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert set(summary["labels"]["labels"]) == c["labels"]
    project = Project.open(root)
    labels = project.task.labels
    assert set(labels) == c["labels"]

    run = _train(project)
    assert cli_main(["eval", "--project", str(root), "--run", run, "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out.splitlines()[-1])
    m = metrics.get("metrics", metrics)
    assert m["labels"] == labels and set(m["per_class"]) == set(labels)
    assert len(m["confusion"]) == len(labels)
    assert m["eval_loss"] > 0 and "perplexity" not in m  # a loss over labels, not tokens
    # the worker fitted the evaluation's baseline on the test split while the network trained
    assert metrics["baseline"]["cached"] is True and metrics["baseline"]["macro_f1"] >= 0

    out = tmp_path / "bundle"
    assert cli_main(["export", "--project", str(root), "--run", run, "--out", str(out), "--formats", "static",
                     "--json"]) == 0
    res = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert res["predict_script"]["same_as_engine"] == res["predict_script"]["rows"]
    bundle = json.loads((out / "bundle.json").read_text(encoding="utf-8"))
    assert bundle["labels"] == labels
    assert bundle["columns"]["text"] == c["column"]  # the user's own column name
    assert "/".join(labels) in Project.open(root).task.user_format  # the project's prompt lists its labels
    assert bundle["user_format"] == "{text}"  # the built-in classifier reads the text alone
    card = (out / "README.md").read_text(encoding="utf-8")
    assert all(lab in card for lab in labels)
    assert f"the project's own {len(labels)} labels" in card  # not the template's description of its labels
    assert "internal medicine" not in card

    # predict.py, with the user's own column name, answers with the project's labels
    csv_in, csv_out = tmp_path / "new.csv", tmp_path / "pred.csv"
    with open(csv_in, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([c["column"]])
        w.writerow([c["text"]])
    r = _isolated(["predict.py", "--input", str(csv_in), "--output", str(csv_out)], cwd=out)
    assert r.returncode == 0, r.stderr
    with open(csv_out, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows[0]["prediction"] in labels
    r = _isolated(["predict.py", "--json", c["text"]], cwd=out)
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout.strip().splitlines()[-1])
    found = answer[0] if isinstance(answer, list) else answer
    assert found["label"] in labels and set(found["probabilities"]) == set(labels)


def test_an_old_run_keeps_its_labels_when_the_project_is_prepared_again(tmp_path, capsys):
    """Preparing again with the labels in another order must not rename what an old run answers:
    the run keeps the task it was trained for (task.json), and evaluation reads that."""
    src = coded_rows(tmp_path / "rows.json", n=90, wrap=True)
    root = tmp_path / "project"
    base = ["data", "prepare", "--template", "finance_sentiment", "--input", str(src), "--project", str(root),
            "--mapping", "text=col1,label=col2", "--label-map", "0=利空,1=观望,2=利好", "--json"]
    assert cli_main([*base, "--labels", "利空,观望,利好"]) == 0
    capsys.readouterr()
    project = Project.open(root)
    run = _train(project, steps=24)
    assert json.loads((project.runs_dir / run / "task.json").read_text("utf-8"))["labels"] == ["利空", "观望", "利好"]

    def evaluate():
        assert cli_main(["eval", "--project", str(root), "--run", run, "--json"]) == 0
        m = json.loads(capsys.readouterr().out.splitlines()[-1])["metrics"]
        with open(project.runs_dir / run / "eval" / "predictions.csv", encoding="utf-8-sig") as fh:
            return m, [(r["reference"], r["prediction"]) for r in csv.DictReader(fh)]

    before, rows_before = evaluate()
    assert cli_main([*base, "--labels", "利好,观望,利空"]) == 0  # the same rows and split, labels reversed
    capsys.readouterr()
    assert Project.open(root).task.labels == ["利好", "观望", "利空"]
    after, rows_after = evaluate()
    assert after["labels"] == ["利空", "观望", "利好"]
    assert rows_after == rows_before and after["accuracy"] == before["accuracy"]
