"""Corrections and data versions: a person's labels kept as project records, replayed on every
prepare, never in the user's file and never moving a row between splits."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from data_factory import hospital_export
from workbench.core.errors import DataError, ProjectError
from workbench.core.operations.corrections import correct, versions
from workbench.core.project import Project, prepare
from workbench.core.labels import LabelChoice
from workbench.core.templates import TemplateCatalog
from workbench.core.versions import row_ids

TEMPLATE = TemplateCatalog().get("medical_triage")
OWN_LABELS = LabelChoice(source="data")
MAPPING = {"text": "主诉内容", "label": "科别"}


def wb(*args):
    return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True, timeout=120)


def rows(project: Project, split: str) -> dict[str, dict]:
    return {r["row_id"]: r for r in map(json.loads, project.split_path(split).read_text(encoding="utf-8").splitlines())}


@pytest.fixture
def hospital(tmp_path):
    src = hospital_export(tmp_path / "门诊导出.csv", per_label=20)
    project, _ = prepare(TEMPLATE, src, tmp_path / "p", labels=OWN_LABELS, mapping=MAPPING)
    return src, project


def test_row_ids_follow_the_rows_content_not_their_place():
    df = pd.DataFrame({"主诉": ["头痛三天", "腹痛", "头痛三天"], "科别": ["神经内科", "消化科", "神经内科"]})
    ids = row_ids(df)
    assert ids[0] != ids[1] and ids[2] == f"{ids[0]}-2", "identical rows get ids of their own"
    moved = df.iloc[[1, 0]][["科别", "主诉"]]  # other row order, other column order
    assert row_ids(moved) == [ids[1], ids[0]]
    assert row_ids(df.assign(科别=["神经内科", "消化科", "肝病科"]))[2] != ids[2], "other content, other id"


def test_a_correction_makes_a_version_and_keeps_every_row_in_its_split(hospital):
    src, project = hospital
    before_file = src.read_bytes()
    base = project.config.data_version
    train, test = rows(project, "train"), rows(project, "test")
    rid, row = next(iter(train.items()))
    other = next(lab for lab in project.task.labels if lab != row["label"])
    tid = next(iter(test))
    gone = list(train)[1]
    applied = correct(project.root, [(rid, other), (gone, None)], not_sure=[tid])
    assert (applied.corrected, applied.excluded, applied.not_sure) == (1, 1, 1)
    now = Project.open(project.root)
    assert now.config.data_version == applied.version != base
    assert rows(now, "train")[rid]["label"] == other and gone not in rows(now, "train")
    assert set(rows(now, "test")) == set(test), "no row moved split"
    assert rows(now, "test")[tid]["label"] == test[tid]["label"], "not sure keeps the label"
    assert rows(now.at_version(base), "train")[rid]["label"] == row["label"], "the prepared version is kept"
    assert src.read_bytes() == before_file, "the user's file is never modified"
    listed = versions(project.root)
    assert [v["kind"] for v in listed] == ["prepare", "corrections"] and listed[-1]["current"]
    assert (listed[-1]["corrected"], listed[-1]["excluded"]) == (1, 1)
    # undoing every correction gives the prepared content back: the same version
    back = correct(project.root, undo=[rid, gone, tid])
    assert back.version == base and Project.open(project.root).config.data_version == base


def test_corrections_are_replayed_when_a_newer_file_is_prepared(hospital, tmp_path):
    src, project = hospital
    rid, row = next(iter(rows(project, "val").items()))
    other = next(lab for lab in project.task.labels if lab != row["label"])
    correct(project.root, [(rid, other)])
    newer = pd.read_csv(src, dtype=str, encoding="utf-8-sig")
    newer = pd.concat([newer.iloc[::-1], pd.DataFrame([{"就诊号": "MZ99999", "主诉内容": "新来的病人咳嗽两周",
                                                        "科别": "呼吸科"}])])
    newer_path = tmp_path / "门诊导出-新.csv"
    newer.to_csv(newer_path, index=False, encoding="utf-8-sig")
    again, summary = prepare(TEMPLATE, newer_path, project.root)
    assert summary["corrections"]["corrected"] == 1 and not summary["corrections"]["unmatched"]
    found = [s for s in ("train", "val", "test") if rid in rows(again, s)]
    assert len(found) == 1 and rows(again, found[0])[rid]["label"] == other


def test_the_command_line_corrects_from_a_file_and_reports_as_json(hospital, tmp_path):
    _, project = hospital
    train = rows(project, "train")
    (a, ra), (b, _) = list(train.items())[:2]
    other = next(lab for lab in project.task.labels if lab != ra["label"])
    fixes = tmp_path / "fixes.csv"
    fixes.write_text(f"row_id,label\n{a},{other}\n{b},\n", encoding="utf-8")
    res = wb("data", "correct", "--project", str(project.root), "--from", str(fixes), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert (out["corrected"], out["excluded"], out["unmatched"]) == (1, 1, [])
    res = wb("data", "versions", "--project", str(project.root), "--json")
    listed = json.loads(res.stdout.strip().splitlines()[-1])["versions"]
    assert listed[-1]["id"] == out["data_version"] and listed[-1]["current"]
    res = wb("runs", "--project", str(project.root))
    assert res.returncode == 0 and "no runs yet" in res.stdout


def test_bad_corrections_name_the_rows_and_change_nothing(hospital, tmp_path):
    _, project = hospital
    recorded = project.root / "judgements" / "corrections.json"
    rid = next(iter(rows(project, "train")))
    version = project.config.data_version
    fixes = tmp_path / "fixes.csv"
    fixes.write_text(f"row_id,label\n{rid},肝病科\nnot-a-row,肝病科\nalso-missing,\n", encoding="utf-8")
    res = wb("data", "correct", "--project", str(project.root), "--from", str(fixes))
    assert res.returncode == 2
    assert "2 row id(s) match no row" in res.stderr and "not-a-row, also-missing" in res.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text(f"id,new label\n{rid},肝病科\n", encoding="utf-8")
    res = wb("data", "correct", "--project", str(project.root), "--from", str(bad), "--json")
    assert res.returncode == 2 and "must have the columns row_id and label" in res.stderr
    assert json.loads(res.stdout.strip().splitlines()[-1])["code"] == "corrections_bad_header"
    with pytest.raises(DataError, match="has no label 儿科.*--add-labels"):
        correct(project.root, [(rid, "儿科")])
    assert not recorded.exists() and Project.open(project.root).config.data_version == version
    added = correct(project.root, [(rid, "儿科")], add_labels=True)
    assert added.added_labels == ["儿科"] and "儿科" in Project.open(project.root).task.labels


def test_a_damaged_corrections_file_and_an_unversioned_project_get_clear_messages(hospital):
    _, project = hospital
    (project.root / "judgements").mkdir()
    (project.root / "judgements" / "corrections.json").write_text("[{\"row_id\": 3", encoding="utf-8")
    with pytest.raises(DataError, match="damaged"):
        correct(project.root, [])
    (project.root / "judgements" / "corrections.json").unlink()
    project.config.data_base = None  # as a project prepared before rows had ids
    project.save()
    with pytest.raises(ProjectError, match="Prepare the data again"):
        correct(project.root, [("x", "肝病科")])


def test_corrections_recorded_one_by_one_wait_for_one_version(hospital):
    """The window records every key press and writes the version once; versions no run reads
    are pruned, those a run records stay."""
    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.operations.corrections import pending, rebuild
    from workbench.core.versions import version_dir

    _, project = hospital
    base = project.config.data_version
    train = list(rows(project, "train").items())[:3]
    for rid, row in train:
        other = next(lab for lab in project.task.labels if lab != row["label"])
        assert correct(project.root, [(rid, other)], write_version=False, source="review") is None
    assert pending(project.root) == 3 and Project.open(project.root).config.data_version == base
    first = rebuild(Project.open(project.root))
    assert pending(project.root) == 0 and first.corrected == 3
    write_job(project.runs_dir / "run-1", JobSpec(project=str(project.root), template=TEMPLATE.id,
                                                   task="classification", data_version=first.version))
    second = correct(project.root, [(train[0][0], None)])
    third = correct(project.root, [(train[1][0], None)])
    assert version_dir(project.data_dir, first.version).is_dir(), "a run trained on it"
    assert not version_dir(project.data_dir, second.version).is_dir(), "nothing reads it any more"
    assert version_dir(project.data_dir, third.version).is_dir() and version_dir(project.data_dir, base).is_dir()


def test_pending_counts_the_rows_whose_correction_is_not_in_the_data(hospital):
    from workbench.core.operations.corrections import pending, rebuild

    _, project = hospital
    (a, ra), (b, rb) = list(rows(project, "train").items())[:2]
    correct(project.root, [(a, None), (b, None)])
    assert pending(project.root) == 0
    other = next(lab for lab in project.task.labels if lab != ra["label"])
    correct(project.root, [(a, other)], write_version=False)
    assert pending(project.root) == 1, "one row changed since the version was written"
    correct(project.root, undo=[b], write_version=False)
    assert pending(project.root) == 2
    rebuild(Project.open(project.root))
    assert pending(project.root) == 0


def test_a_multi_label_rows_label_set_is_corrected_through_the_same_path(tmp_path):
    from workbench.core import corrections
    from workbench.core.versions import version_dir

    spec = TemplateCatalog().get("legal_case_type_multi")  # its file separates charges with ";"
    project, _ = prepare(spec, spec.sample_path, tmp_path / "m")
    labels = list(project.task.labels)
    train = rows(project, "train")
    (rid, row), (gone, _) = list(train.items())[:2]
    new = [lab for lab in labels if lab not in row["labels"]][:2]
    assert len(new) == 2 and "、" in labels[-1], "a charge's name holds 、: the project's separator reads the set"
    res = wb("data", "correct", "--project", str(project.root), "--set", f"{rid}={new[1]};{new[0]}",
             "--set", f"{gone}=", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert (out["corrected"], out["excluded"]) == (1, 1)
    now = Project.open(project.root)
    assert rows(now, "train")[rid]["labels"] == new, "the set in the project's label order"
    assert gone not in rows(now, "train")
    recorded = corrections.load(project.root)[rid]
    assert recorded.labels == new and recorded.label is None and recorded.original == " | ".join(row["labels"])
    assert not (version_dir(now.data_dir, out["data_version"]) / "train.jsonl").exists(), "stored as its changes"
    assert now.config.stats["labels"][new[0]] == sum(new[0] in r["labels"] for s in ("train", "val", "test")
                                                     for r in rows(now, s).values())
    # the same set again in another order changes nothing; a charge the project lacks is refused
    assert correct(project.root, [(rid, json.dumps(new[::-1], ensure_ascii=False))]).version == out["data_version"]
    with pytest.raises(DataError, match="has no label 不存在罪"):
        correct(project.root, [(rid, f"{new[0]};不存在罪")])
    # prepared again: the corrections are replayed on the label sets
    again, summary = prepare(spec, spec.sample_path, project.root)
    assert summary["corrections"]["corrected"] == 1 and summary["corrections"]["excluded"] == 1
    assert rows(again, "train")[rid]["labels"] == new and again.config.data_version == out["data_version"]
