"""Mapping, splits, the project folder and the `workbench data` commands on the sample data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from workbench.core.errors import DataError, ProjectError
from workbench.core.mapping import check_mapping, check_prepared, suggest_mapping
from workbench.core.project import Project, SplitSettings, prepare
from workbench.core.split import split_frame
from workbench.core.templates import TemplateCatalog

CATALOG = TemplateCatalog()


def wb(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)


# ----- mapping --------------------------------------------------------------------------


def test_suggest_mapping_uses_template_headers_and_synonyms():
    t = CATALOG.get("finance_sentiment")
    assert suggest_mapping(t, ["发布日期", "新闻内容", "情感倾向"]) == {"text": "新闻内容", "label": "情感倾向"}
    assert suggest_mapping(t, ["Content", "Label"]) == {"text": "Content", "label": "Label"}
    qa = CATALOG.get("medical_qa")
    assert suggest_mapping(qa, ["instruction", "input", "output"]) == {
        "instruction": "instruction", "input": "input", "output": "output"}
    assert suggest_mapping(qa, ["src", "tgt"]) == {"instruction": "src", "input": None, "output": "tgt"}


def test_check_mapping_reports_missing_and_duplicate_columns():
    t = CATALOG.get("finance_sentiment")
    msgs = [p.message for p in check_mapping(t, ["a", "b"], {"text": "nope", "label": None})]
    assert any("'nope', which is not in the file" in m and "a, b" in m for m in msgs)
    assert any("Role 'label' is required" in m for m in msgs)
    msgs = [p.message for p in check_mapping(t, ["a"], {"text": "a", "label": "a"})]
    assert any("mapped to both" in m for m in msgs)


def test_check_prepared_needs_two_classes_and_outputs():
    t = CATALOG.get("finance_sentiment")
    one_class = pd.DataFrame({"text": ["x", "y"], "label": ["正面", "正面"]})
    assert any("fewer than two classes" in p.message for p in check_prepared(t, one_class))
    qa = CATALOG.get("medical_qa")
    empty = pd.DataFrame({"instruction": ["q1", "q2"], "input": ["", ""], "output": ["", " "]})
    assert any("Every output is empty" in p.message for p in check_prepared(qa, empty))


# ----- split ----------------------------------------------------------------------------


def test_split_is_seeded_stratified_and_complete():
    df = pd.DataFrame({"text": [f"t{i}" for i in range(200)], "label": ["a"] * 150 + ["b"] * 45 + ["c"] * 5})
    parts = split_frame(df, (0.8, 0.1, 0.1), seed=3, stratify="label")
    assert sum(len(p) for p in parts.values()) == 200
    assert set().union(*(set(p.index) for p in parts.values())) == set(df.index)
    assert (len(parts["train"]), len(parts["val"]), len(parts["test"])) == (160, 20, 20)
    assert parts["train"]["label"].value_counts().to_dict() == {"a": 120, "b": 37, "c": 3}
    assert parts["val"]["label"].value_counts().to_dict() == {"a": 15, "b": 4, "c": 1}
    again = split_frame(df, (0.8, 0.1, 0.1), seed=3, stratify="label")
    assert all(parts[k].index.equals(again[k].index) for k in parts)
    other = split_frame(df, (0.8, 0.1, 0.1), seed=4, stratify="label")
    assert not parts["train"].index.equals(other["train"].index)


def test_split_rejects_bad_ratios_and_tiny_data():
    df = pd.DataFrame({"text": list("abcdef")})
    with pytest.raises(DataError, match="add up to 1"):
        split_frame(df, (0.5, 0.1, 0.1))
    with pytest.raises(DataError, match="at least 3"):
        split_frame(df.head(2))


# ----- project folder -------------------------------------------------------------------


@pytest.mark.parametrize("template_id", [t.id for t in CATALOG])
def test_prepare_each_sample_into_a_project(tmp_path, template_id):
    template = CATALOG.get(template_id)
    before = template.sample_path.read_bytes()
    project, summary = prepare(template, template.sample_path, tmp_path / "p")
    assert template.sample_path.read_bytes() == before, "the user's file is never modified"
    st = summary["stats"]
    assert st["rows_imported"] > st["rows_clean"] >= 350
    assert sum(st["splits"].values()) == st["rows_clean"]
    records = [json.loads(l) for l in project.split_path("train").read_text(encoding="utf-8").splitlines()]
    assert len(records) == st["splits"]["train"]
    if template.multi_label:  # prepared rows carry the label set as a list
        assert set(records[0]) == {"text", "labels", "row_id"}
        assert {lab for r in records for lab in r["labels"]} == set(template.labels)
    else:
        assert set(records[0]) == {*template.roles, "row_id"}
    ids = [r["row_id"] for s in ("train", "val", "test") for r in map(json.loads, project.split_path(s).open())]
    assert len(set(ids)) == len(ids) == st["rows_clean"], "each row has an id of its own"
    if template.task.value == "classification" and not template.multi_label:
        assert {r["label"] for r in records} == set(template.labels)
    text = "".join(project.split_path(s).read_text(encoding="utf-8") for s in ("train", "val", "test"))
    assert "[电话]" in text or "[身份证号]" in text, "PII was masked"
    # round trip: project.json reopens with the same recipe, mapping and stats
    again = Project.open(tmp_path / "p")
    assert again.config.template == template_id and again.config.stats == st
    assert again.config.source.sha256 and again.config.recipe["steps"]
    assert pd.read_parquet(project.snapshot_path).shape[0] == st["rows_imported"]
    leftovers = [p.name for p in (tmp_path / "p" / "data").iterdir() if p.name.startswith(".")]
    assert not leftovers


def test_prepare_replays_a_saved_recipe_identically(tmp_path):
    template = CATALOG.get("legal_case_type")
    p1, _ = prepare(template, template.sample_path, tmp_path / "a")
    recipe_file = tmp_path / "recipe.json"
    recipe_file.write_text(json.dumps(p1.config.recipe, ensure_ascii=False), encoding="utf-8")
    p2, _ = prepare(template, template.sample_path, tmp_path / "b", recipe=str(recipe_file))
    for s in ("train", "val", "test"):
        assert p1.split_path(s).read_bytes() == p2.split_path(s).read_bytes()


def test_failed_prepare_leaves_the_project_untouched(tmp_path):
    template = CATALOG.get("finance_sentiment")
    project, _ = prepare(template, template.sample_path, tmp_path / "p")
    data = tmp_path / "p" / "data"
    snapshot = {p.relative_to(data): p.read_bytes() for p in data.rglob("*") if p.is_file()}
    pj = (tmp_path / "p" / "project.json").read_bytes()
    bad = tmp_path / "bad.csv"
    bad.write_text("新闻内容,情感倾向\n只有一类新闻,正面\n又一条新闻,正面\n第三条新闻,正面\n", encoding="utf-8")
    with pytest.raises(DataError, match="fewer than two classes"):
        prepare(template, bad, tmp_path / "p")
    assert (tmp_path / "p" / "project.json").read_bytes() == pj
    assert {p.relative_to(data): p.read_bytes() for p in data.rglob("*") if p.is_file()} == snapshot


def test_prepare_refuses_a_foreign_or_non_empty_folder(tmp_path):
    template = CATALOG.get("finance_sentiment")
    prepare(template, template.sample_path, tmp_path / "p")
    other = CATALOG.get("legal_case_type")
    with pytest.raises(ProjectError, match="already holds a project"):
        prepare(other, other.sample_path, tmp_path / "p")
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "notes.txt").write_text("mine")
    with pytest.raises(ProjectError, match="not empty"):
        prepare(template, template.sample_path, tmp_path / "q")


def test_damaged_project_json_gets_a_clear_message(tmp_path):
    (tmp_path / "project.json").write_text("{not json")
    with pytest.raises(ProjectError, match="damaged"):
        Project.open(tmp_path)


# ----- the commands ---------------------------------------------------------------------


def test_templates_json_is_the_public_contract():
    res = wb("templates", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)["templates"]
    assert len(data) == 7
    for t in data:
        assert {"id", "vertical", "task", "labels", "multi_label", "sample_data"} <= set(t)
        assert Path(t["sample_data"]).is_file()
    assert sorted(t["vertical"] for t in data) == ["finance"] * 2 + ["legal"] * 3 + ["medical"] * 2
    assert [t["id"] for t in data if t["multi_label"]] == ["legal_case_type_multi"]


def test_data_inspect_reports_format_and_encoding():
    t = CATALOG.get("medical_triage")
    res = wb("data", "inspect", t.sample_path, "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["format"] == "csv" and info["encoding"].lower().replace("-", "") == "gb18030"
    assert "主诉" in info["columns"] and info["rows"] > 400 and len(info["preview"]) == 5


def test_data_prepare_command_prints_each_step(tmp_path):
    t = CATALOG.get("medical_qa")
    res = wb("data", "prepare", "--template", t.id, "--input", t.sample_path, "--project", tmp_path / "p")
    assert res.returncode == 0, res.stderr
    for op in ("trim_whitespace", "mask_pii", "drop_duplicates"):
        assert op in res.stdout
    assert "  clean" in res.stderr and '"progress"' not in res.stdout  # without --json: on the terminal
    res = wb("data", "prepare", "--template", t.id, "--input", t.sample_path, "--project", tmp_path / "j", "--json",
             "--split", "0.7,0.15,0.15", "--seed", "1")
    *progress, last = res.stdout.splitlines()
    summary = json.loads(last)  # the result is the last line, after the progress lines
    events = [json.loads(line) for line in progress]
    assert events and all(set(e) == {"event", "stage", "done", "total"} for e in events)
    assert {e["stage"] for e in events} >= {"import", "clean"} and events[-1]["done"] == events[-1]["total"]
    assert summary["steps"][0]["rows_in"] == summary["stats"]["rows_imported"]
    n = summary["stats"]["rows_clean"]
    assert abs(summary["stats"]["splits"]["train"] - 0.7 * n) <= 2


def _bad_inputs(tmp_path: Path) -> dict[str, tuple[list, str]]:
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    garbage = tmp_path / "garbage.csv"
    garbage.write_bytes(bytes(range(256)) * 40)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("新闻内容,情感倾向\n好消息,正面\n坏消息,负面,多余,字段\n", encoding="utf-8")
    good = CATALOG.get("finance_sentiment").sample_path
    return {
        "missing file": (["--input", tmp_path / "nope.csv"], "was not found"),
        "empty file": (["--input", empty], "empty"),
        "binary garbage": (["--input", garbage], "binary"),
        "ragged csv": (["--input", ragged], "line 3"),
        "unknown template": (["--input", good, "--template", "no_such"], "Unknown template 'no_such'"),
        "mapping to a missing column": (["--input", good, "--mapping", "text=正文列"], "'正文列', which is not in the file"),
    }


@pytest.mark.parametrize("case", ["missing file", "empty file", "binary garbage", "ragged csv",
                                  "unknown template", "mapping to a missing column"])
def test_bad_input_exits_nonzero_with_a_message_and_writes_nothing(tmp_path, case):
    args, expected = _bad_inputs(tmp_path)[case]
    if "--template" not in args:
        args = ["--template", "finance_sentiment", *args]
    res = wb("data", "prepare", *args, "--project", tmp_path / "proj")
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert expected.lower() in res.stderr.lower(), res.stderr
    # one paragraph after the progress lines of the stages that finished
    *progress, message = res.stderr.splitlines()
    assert message.startswith("error: ") and all(line.startswith("  import") for line in progress), res.stderr
    assert not (tmp_path / "proj").exists()


def test_prepared_from_sample_knows_the_shipped_sample_from_the_users_data(tmp_path):
    from workbench.core.project import prepared_from_sample

    template = TemplateCatalog().get("finance_sentiment")
    project, _ = prepare(template, template.sample_path, tmp_path / "a")
    assert prepared_from_sample(project, template)
    copy = tmp_path / "renamed.csv"  # the same bytes under another name are still the sample
    copy.write_bytes(template.sample_path.read_bytes())
    assert prepared_from_sample(prepare(template, copy, tmp_path / "b")[0], template)
    own = tmp_path / "own.csv"
    df = pd.read_csv(template.sample_path, dtype=str, keep_default_na=False).head(120)
    df.to_csv(own, index=False, encoding="gb18030")
    assert not prepared_from_sample(prepare(template, own, tmp_path / "c")[0], template)


def test_a_project_path_inside_a_file_is_a_message_not_a_traceback(tmp_path):
    # a user's typo: the project folder named under a file (real, on every OS and as root)
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    template = TemplateCatalog().get("medical_triage")
    r = wb("data", "prepare", "--template", "medical_triage", "--input", template.sample_path,
           "--project", tmp_path / "notes.txt" / "proj")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "error: A file or folder is not where it was expected" in r.stderr and "notes.txt" in r.stderr
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "x"  # the user's file is untouched


def test_a_full_disk_says_what_to_do():
    import errno

    from workbench.core.errors import os_error_message

    text = os_error_message(OSError(errno.ENOSPC, "No space left on device", "runs/run-1/checkpoints"))
    assert text.startswith("The disk is full (runs/run-1/checkpoints).") and "delet" in text and "intact" in text
    assert "may not" in os_error_message(PermissionError(errno.EACCES, "Permission denied", "/srv/shared"))


def test_preparing_while_a_run_trains_leaves_the_runs_version_as_it_was(tmp_path):
    """A run reads the data version it started on, so the data may be prepared again while it
    trains; a run that records no version (one started before versions) reads data/ itself,
    and preparing then is still refused."""
    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.runs import acquire_run_lock

    t = CATALOG.get("finance_sentiment")
    project, _ = prepare(t, t.sample_path, tmp_path / "p")
    version = project.config.data_version
    folder = tmp_path / "p" / "data" / "versions" / version
    before = {f.name: f.read_bytes() for f in folder.iterdir()}
    run_dir = tmp_path / "p" / "runs" / "run-training"
    job = JobSpec(project=str(project.root), template=t.id, task="classification", data_version=version)
    write_job(run_dir, job)
    lock = acquire_run_lock(run_dir)  # this process plays the worker
    try:
        again, summary = prepare(t, t.sample_path, tmp_path / "p", split=SplitSettings(seed=7))
        assert again.config.data_version != version, "other splits are another version"
        assert {f.name: f.read_bytes() for f in folder.iterdir()} == before, "the run's rows stay as they were"
        assert Project.open(tmp_path / "p").at_version(version).split_path("test").read_bytes() == before["test.jsonl"]
        write_job(run_dir, job.model_copy(update={"data_version": None}))
        data = tmp_path / "p" / "data"
        current = {f.name: f.read_bytes() for f in data.iterdir() if f.is_file()}
        with pytest.raises(ProjectError, match="Run 'run-training' is training") as info:
            prepare(t, t.sample_path, tmp_path / "p", split=None)
        assert "stop it, then prepare again" in str(info.value)
        assert {f.name: f.read_bytes() for f in data.iterdir() if f.is_file()} == current
    finally:
        lock.release()
    prepare(t, t.sample_path, tmp_path / "p")  # once it ended
