"""`workbench review` as the window runs it: a child process on a prepared project, progress
lines, then the rows whose label looks wrong as the last line; and its refusals.

The project is a bank's complaint log with its own categories, some complaints misfiled, and
duplicates the analyst kept (the recipe's duplicate steps switched off): one complaint entered
three times, once under another category, and two complaints a digit apart under two."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from data_factory import complaint_log
from workbench.cli import main
from workbench.core.cleaning import Recipe
from workbench.core.progress import parse_progress
from workbench.core.templates import TemplateCatalog

TWIN = "客户来电反映手机银行闪退的问题，APP更新后打不开，要求尽快处理"
NEAR = "888号工单 关于跨行转账：客户称转账五千元两天后仍未到账，希望给个说法"


def wb(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def _prepare(src: Path, project: Path, tmp: Path, template: str = "finance_sentiment", *extra) -> None:
    recipe = Recipe.from_template(TemplateCatalog().get(template))
    for step in recipe.steps:  # the analyst kept the duplicates
        if step.op in ("drop_duplicates", "drop_near_duplicates"):
            step.enabled = False
    recipe.save(tmp / "recipe.json")
    # the real command, in this process: a child process would only add its start-up
    assert main(["data", "prepare", "--template", template, "--input", str(src), "--project", str(project),
                 "--labels", "from-data", "--recipe", str(tmp / "recipe.json"), *extra]) == 0


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("review")
    misfiled = complaint_log(tmp / "log.csv")
    with open(tmp / "log.csv", "a", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerows([[TWIN, "手机银行故障"], [TWIN.replace("APP", "app "), "手机银行故障"], [TWIN, "理财亏损"],
                     [NEAR, "转账延迟"], [NEAR.replace("五千", "六千"), "贷款利率"]])
    _prepare(tmp / "log.csv", tmp / "p", tmp, "finance_sentiment", "--mapping", "text=工单内容", "label=投诉类别")
    res = wb("review", "--project", tmp / "p", "--top", "0", "--json")
    assert res.returncode == 0, res.stderr
    return {"misfiled": misfiled, "lines": res.stdout.strip().splitlines(), "result": json.loads(
        res.stdout.strip().splitlines()[-1]), "project": tmp / "p", "tmp": tmp}


def test_the_misfiled_rows_rank_first(reviewed):
    result, misfiled = reviewed["result"], reviewed["misfiled"]
    rows = result["rows"]
    reviewed_misfiled = [r for r in rows if r["text"] in misfiled]
    assert len(reviewed_misfiled) >= 9  # the twelve, less those the split put in the test rows
    top = rows[:2 * len(reviewed_misfiled)]
    hits = [r for r in top if r["text"] in misfiled]
    # ranked at random, 2 x ~11 of ~220 rows would hold about one of them
    assert len(hits) >= 0.75 * len(reviewed_misfiled), [(r["text"], r["label"]) for r in top]
    assert all(r["suggested"] == misfiled[r["text"]] for r in hits[:5])
    assert result["found"] >= len(hits) // 2


def test_the_result_is_the_last_line_after_progress_lines(reviewed):
    lines, result = reviewed["lines"], reviewed["result"]
    stages = [parse_progress(line)["stage"] for line in lines[:-1]]
    assert None not in stages and {"read", "folds", "score"} <= set(stages)
    assert {"rows", "found", "rows_reviewed", "seconds", "labels", "method"} <= set(result)
    rows = result["rows"]
    assert len(rows) == result["rows_reviewed"] == result["splits"]["train"] + result["splits"]["val"]
    assert {r["split"] for r in rows} == {"train", "val"}
    for r in rows:
        assert {"row_id", "split", "text", "label", "suggested", "score", "reasons", "flagged"} <= set(r)
        assert 0.0 <= r["score"] <= 1.0 and r["label"] in result["labels"] and r["suggested"] in result["labels"]
    # each row's id is the prepared row's own (core/versions.py), so a correction finds it
    from workbench.core.project import Project

    project = Project.open(reviewed["project"])
    for split in ("train", "val"):
        ids = [json.loads(x)["row_id"] for x in project.split_path(split).read_text("utf-8").splitlines()]
        assert all(r["row_id"] == ids[r["index"]] for r in rows if r["split"] == split)
        for why in r["reasons"]:
            assert set(why) == {"code", "fields", "message"} and why["message"]
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert sum(r["flagged"] for r in rows) == result["found"]


def test_identical_texts_with_another_label_are_named(reviewed):
    rows = [r for r in reviewed["result"]["rows"] if "更新后打不开" in r["text"]]
    assert len(rows) == 3  # "APP" and "app " are the same text once case and spacing are folded
    odd = next(r for r in rows if r["label"] == "理财亏损")
    why = next(w for w in odd["reasons"] if w["code"] == "duplicates_disagree")
    assert why["fields"]["count"] == 2 and why["fields"]["label"] == "手机银行故障"
    assert why["message"] == "2 identical texts are labelled 手机银行故障"
    assert odd["suggested"] == "手机银行故障" and odd["score"] > 0.8
    kept = [r for r in rows if r["label"] == "手机银行故障"]
    assert all(w["message"] == "1 identical text is labelled 理财亏损" for r in kept for w in r["reasons"]
               if w["code"] == "duplicates_disagree")
    assert reviewed["result"]["duplicate_groups_disagreeing"] >= 1


def test_nearly_identical_texts_with_another_label_are_named(reviewed):
    rows = {r["label"]: r for r in reviewed["result"]["rows"] if "跨行转账：客户称转账" in r["text"]}
    assert set(rows) == {"转账延迟", "贷款利率"}
    for label, other in (("转账延迟", "贷款利率"), ("贷款利率", "转账延迟")):
        why = next(w for w in rows[label]["reasons"] if w["code"] == "near_duplicates_disagree")
        assert why["fields"]["label"] == other and why["fields"]["similarity"] >= 0.85
        assert why["fields"]["row_ids"] == [rows[other]["row_id"]]
    assert rows["贷款利率"]["score"] > rows["转账延迟"]["score"]  # the model knows a transfer when it reads one


def test_the_table_for_people(reviewed, capsys):
    assert main(["review", "--project", str(reviewed["project"]), "--top", "5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "rows reviewed" in out[0] and "flagged as likely label errors" in out[0]
    assert out[1].split()[:5] == ["#", "row", "score", "label", "suggested"]
    assert len(out) == 2 + 5 + 1 and "the model gives" in out[2]


def _refused(args, capsys) -> tuple[dict, str]:
    assert main([*args, "--json"]) == 2
    captured = capsys.readouterr()
    return json.loads(captured.out.strip().splitlines()[-1]), captured.err


def test_a_project_not_prepared_is_refused(reviewed, tmp_path, capsys):
    shutil.copytree(reviewed["project"], tmp_path / "p")
    (tmp_path / "p" / "data" / "val.jsonl").unlink()
    err, text = _refused(["review", "--project", str(tmp_path / "p")], capsys)
    assert err["code"] == "review_not_prepared" and "Prepare the data first" in text


def test_questions_and_answers_are_refused(tmp_path, capsys):
    template = TemplateCatalog().get("finance_service_qa")
    assert main(["data", "prepare", "--template", template.id, "--input", str(template.sample_path), "--project",
                 str(tmp_path / "qa")]) == 0
    err, text = _refused(["review", "--project", str(tmp_path / "qa")], capsys)
    assert err["code"] == "review_not_classification" and "Only classification projects" in text


def test_label_sets_are_refused(tmp_path, capsys):
    template = TemplateCatalog().get("legal_case_type_multi")
    assert main(["data", "prepare", "--template", template.id, "--input", str(template.sample_path), "--project",
                 str(tmp_path / "multi")]) == 0
    err, text = _refused(["review", "--project", str(tmp_path / "multi")], capsys)
    assert err["code"] == "review_multi_label"
    assert "the review suggests single labels" in text and "data correct --set ROW_ID=A,B" in text


def test_too_few_rows_of_a_label_are_refused(reviewed, tmp_path, capsys):
    rows = list(csv.reader(open(reviewed["tmp"] / "log.csv", encoding="utf-8-sig")))
    rows += [[f"{i}号工单 客户咨询外汇牌价与购汇额度，要求解释", "外汇业务"] for i in range(4)]
    with open(tmp_path / "log.csv", "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows(rows)
    _prepare(tmp_path / "log.csv", tmp_path / "p", tmp_path, "finance_sentiment", "--mapping", "text=工单内容",
             "label=投诉类别", "--min-label-rows", "2")
    err, text = _refused(["review", "--project", str(tmp_path / "p")], capsys)
    assert err["code"] == "review_too_few_rows" and err["fields"]["labels"] == ["外汇业务"]
    assert err["fields"]["need"] == 5 and "at least 5 training and validation rows" in text


@pytest.mark.slow
def test_a_run_judges_the_validation_rows(tmp_path):
    from trained_factory import CLS, RUN, trained_project

    project = trained_project(CLS, tmp_path)
    res = wb("review", "--project", project.root, "--run", RUN, "--json", timeout=300)
    assert res.returncode == 0, res.stderr
    result = json.loads(res.stdout.strip().splitlines()[-1])
    val = sum(1 for line in project.split_path("val").read_text(encoding="utf-8").splitlines() if line.strip())
    assert result["run"] == RUN and result["run_rows"] == val and result["splits"]["val"] == val
    assert any(parse_progress(line) and parse_progress(line)["stage"] == "run" for line in res.stdout.splitlines())
    for r in result["rows"]:
        for why in r["reasons"]:
            if why["code"] == "run_prefers":
                assert r["split"] == "val" and why["fields"]["run"] == RUN
    res = wb("review", "--project", project.root, "--run", "no-such-run", "--json")
    assert res.returncode == 2 and "no-such-run" in res.stderr
