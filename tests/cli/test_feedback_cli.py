"""`workbench feedback add|list|export|undo` and the refusals of `train --method dpo`, in process
over a prepared instruction project (no model needed)."""

from __future__ import annotations

import json

import pytest

from trained_factory import INST, finished_run, user_frame, USER_COLUMNS
from workbench.cli.main import main
from workbench.core import feedback, preference
from workbench.core.feedback import AnswerPair
from workbench.core.project import SplitSettings, prepare
from workbench.core.templates import TemplateCatalog


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "qa.csv"
    user_frame(INST).to_csv(src, index=False)
    p, _ = prepare(TemplateCatalog().get(INST), src, tmp_path / "p", mapping=USER_COLUMNS[INST],
                   split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    return p


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def last_json(out: str):
    return json.loads(out.strip().splitlines()[-1])


def write_lines(path, objects):
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o, ensure_ascii=False)) + "\n"
                            for o in objects), encoding="utf-8")
    return path


def test_add_list_export_undo(project, tmp_path, capsys):
    pairs = [AnswerPair(prompt=f"问题{i}？", a=f"好答{i}", b=f"坏答{i}", run="run-1", checkpoint="final") for i in range(3)]
    feedback.remember_pairs(project.root, pairs)
    f = write_lines(tmp_path / "j.jsonl", [{"pair_id": pairs[0].pair_id, "choice": "a"},
                                           {"pair_id": pairs[1].pair_id, "choice": "b"},
                                           {"pair_id": pairs[2].pair_id, "choice": "tie"},
                                           {"prompt": "问题3？", "answer": "错", "rating": -1, "rewrite": "对"}])
    code, out, _ = run(capsys, "feedback", "add", "--project", project.root, "--from", f, "--json")
    assert code == 0 and len(last_json(out)["added"]) == 4
    code, out, _ = run(capsys, "feedback", "list", "--project", project.root, "--json")
    listed = last_json(out)
    assert listed["counts"]["run-1"] == {"choices": 2, "ties": 1, "good": 0, "bad": 0, "rewrites": 0}
    assert listed["pairs"] == 3 and listed["pair_counts"]["from_rewrites"] == 1
    for fmt in preference.FORMATS:
        out_file = tmp_path / f"{fmt}.jsonl"
        code, out, _ = run(capsys, "feedback", "export", "--project", project.root, "--format", fmt, "--out", out_file)
        assert code == 0
        back = [preference.from_format(json.loads(line), fmt) for line in out_file.read_text("utf-8").splitlines()]
        assert back == [("问题0？", "好答0", "坏答0"), ("问题1？", "坏答1", "好答1"), ("问题3？", "对", "错")]
        code, out, _ = run(capsys, "feedback", "list", "--project", project.root, "--format", fmt, "--json")
        assert [preference.from_format(x, fmt) for x in last_json(out)["pairs"]] == back
    first = listed["judgements"][0]["id"]
    code, out, _ = run(capsys, "feedback", "undo", "--project", project.root, first)
    assert code == 0 and first in out
    code, out, _ = run(capsys, "feedback", "list", "--project", project.root, "--json")
    assert last_json(out)["pairs"] == 2
    code, out, err = run(capsys, "feedback", "undo", "--project", project.root, first, "--json")
    assert code == 2 and last_json(out)["code"] == "feedback_already_undone"


def test_a_bad_file_names_its_lines_and_records_nothing(project, tmp_path, capsys):
    f = write_lines(tmp_path / "bad.jsonl", [{"prompt": "问", "answer": "答", "rating": 1}, "{oops",
                                             {"pair_id": "p-none", "choice": "a"},
                                             {"prompt": "问", "answer": "", "rating": -1}])
    code, out, err = run(capsys, "feedback", "add", "--project", project.root, "--from", f, "--json")
    assert code == 2 and "lines 2, 3, 4" in err and "nothing was recorded" in err
    assert last_json(out)["fields"]["lines"] == [2, 3, 4]
    assert not feedback.feedback_path(project.root).exists() or not feedback.load(project.root)


def test_preference_tuning_is_refused_clearly(project, tmp_path, capsys):
    code, _, err = run(capsys, "train", "--project", project.root, "--method", "dpo")
    assert code == 2 and "--from-run" in err
    code, _, err = run(capsys, "train", "--project", project.root, "--from-run", "run-x")
    assert code == 2 and "--method dpo" in err
    finished_run(project.root, "run-1", task="instruction")
    code, out, err = run(capsys, "train", "--project", project.root, "--method", "dpo", "--from-run", "run-1", "--json")
    assert code == 2 and last_json(out)["code"] == "dpo_no_pairs"
    feedback.append(project.root, [feedback.Judgement(kind="rating", prompt="问", answers=["好"], rating=1)])
    code, out, err = run(capsys, "train", "--project", project.root, "--method", "dpo", "--from-run", "run-1")
    assert code == 2 and "1 answer(s) rated good have no answer rated bad" in err
    feedback.append(project.root, [feedback.Judgement(kind="rating", prompt="问", answers=["坏"], rating=-1)])
    code, out, err = run(capsys, "train", "--project", project.root, "--method", "dpo", "--from-run", "run-1", "--json")
    assert code == 2 and last_json(out)["code"] == "dpo_too_few_pairs"
    assert not [p for p in project.runs_dir.iterdir() if p.name != "run-1"], "a refused run leaves no folder"


def test_feedback_is_for_projects_that_write_answers(tmp_path, capsys):
    from trained_factory import CLS

    src = tmp_path / "c.csv"
    user_frame(CLS).to_csv(src, index=False)
    p, _ = prepare(TemplateCatalog().get(CLS), src, tmp_path / "c", mapping=USER_COLUMNS[CLS])
    f = write_lines(tmp_path / "j.jsonl", [{"prompt": "问", "answer": "答", "rating": 1}])
    code, out, err = run(capsys, "feedback", "add", "--project", p.root, "--from", f, "--json")
    assert code == 2 and last_json(out)["code"] == "feedback_not_instruction"


def test_a_preference_run_on_a_server_takes_its_pairs_and_needs_the_first_run_there(project, tmp_path, monkeypatch):
    """The transport is faked: what would go up is recorded (tests/core/test_remote.py runs a real server)."""
    from workbench.core import remote
    from workbench.core.errors import WorkbenchError
    from workbench.core.operations import preference as preference_operations
    from workbench.core.operations import runs as run_operations
    from workbench.core.runs import REMOTE_FILE
    from workbench.core.targets import add_target

    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "home"))
    add_target("lab", "ssh://ana@127.0.0.1")
    first = finished_run(project.root, "run-1", task="instruction")
    feedback.append(project.root, [feedback.Judgement(kind="choice", prompt=f"问{i}", answers=["好", "坏"], choice="a")
                                   for i in range(5)])
    with pytest.raises(WorkbenchError) as elsewhere:
        preference_operations.build_dpo_job(project, "run-1", on="lab")
    assert elsewhere.value.code == "dpo_from_run_elsewhere"
    (first / REMOTE_FILE).write_text(json.dumps({"target": "lab", "project": "/srv/p", "run": "runs/run-1",
                                                 "server_status": "completed"}), encoding="utf-8")
    monkeypatch.setattr(remote, "fetch_weights", lambda run_dir: pytest.fail("the first run's weights stay there"))
    job, _, _ = preference_operations.build_dpo_job(project, "run-1", on="lab")
    sent: dict = {}
    monkeypatch.setattr(remote, "workdir", lambda target: "/srv")
    monkeypatch.setattr(remote, "free_mb", lambda target, folder: 1e9)
    monkeypatch.setattr(remote, "upload", lambda target, dest, files: sent.update(files))
    monkeypatch.setattr(remote, "run", lambda *a, **k: None)
    monkeypatch.setattr(remote, "Mirror", lambda run_dir: type("M", (), {"start": lambda self: self})())
    started = run_operations.start_run(project, job, on="lab")
    names = [n for n in sent if n.startswith(f"runs/{started.run_id}/")]
    assert f"runs/{started.run_id}/{preference.RUN_PAIRS_FILE}" in names
    assert not any(n.startswith("models/") for n in sent), "the first run's model is there already"
    uploaded = json.loads(sent[f"runs/{started.run_id}/job.json"])
    assert uploaded["method"] == "dpo" and uploaded["from_run"] == "run-1"


def test_pairs_take_rows_of_a_split_or_one_question(project, capsys):
    finished_run(project.root, "run-1", task="instruction")
    code, out, err = run(capsys, "feedback", "pairs", "--project", project.root, "--run", "run-1", "--question", " ",
                         "--json")
    assert code == 2 and last_json(out)["code"] == "feedback_rows" and "--question is empty" in err
    for both in (["--rows", "3", "--question", "问"], []):  # one of the two, not both nor neither
        with pytest.raises(SystemExit) as refused:
            main(["feedback", "pairs", "--project", str(project.root), "--run", "run-1", *both])
        assert refused.value.code == 2
    assert "--rows" in capsys.readouterr().err
