"""Data versions as stored: a corrections version holds only its changes to the prepared
version, and every reader gets its splits whole (made once, under a lock, checked against the
version's id); versions written whole before still read."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from data_factory import hospital_export
from workbench.core import corrections
from workbench.core.errors import ProjectError
from workbench.core.labels import LabelChoice
from workbench.core.operations.corrections import correct
from workbench.core.project import SPLITS, Project, prepare
from workbench.core.templates import TemplateCatalog
from workbench.core.versions import (
    CHANGES_FILE, content_id, label_differences, materialised_dir, prune_versions, read_version, version_dir,
)

TEMPLATE = TemplateCatalog().get("medical_triage")


@pytest.fixture
def project(tmp_path) -> Project:
    src = hospital_export(tmp_path / "门诊导出.csv", per_label=20)
    project, _ = prepare(TEMPLATE, src, tmp_path / "p", labels=LabelChoice(source="data"),
                         mapping={"text": "主诉内容", "label": "科别"})
    return project


def _some_corrections(project: Project, split: str = "train") -> list[tuple[str, str | None]]:
    """Two rows of ``split`` given another label, a third excluded."""
    found = [json.loads(line) for line in project.split_path(split).read_text(encoding="utf-8").splitlines()]
    other = [(r["row_id"], next(x for x in project.task.labels if x != r["label"])) for r in found[:2]]
    return [*other, (found[2]["row_id"], None)]


def _splits(view: Project) -> dict[str, bytes]:
    return {s: view.split_path(s).read_bytes() for s in SPLITS}


def _size(folder) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def test_a_corrections_version_stores_its_changes_and_reads_whole(project):
    base = project.config.data_version
    applied = correct(project.root, _some_corrections(project))
    folder = version_dir(project.data_dir, applied.version)
    assert sorted(f.name for f in folder.iterdir()) == [CHANGES_FILE, "version.json"], "no split is stored"
    assert _size(folder) < _size(version_dir(project.data_dir, base)) / 5
    now = Project.open(project.root)
    assert not materialised_dir(now.data_dir, applied.version).exists(), "made on the first read only"
    read = _splits(now.at_version(applied.version))
    assert read == {s: (now.data_dir / f"{s}.jsonl").read_bytes() for s in SPLITS}, "the current splits, to the byte"
    assert content_id({s: b.decode() for s, b in read.items()}) == applied.version, "its id is its content's hash"
    rows = {r["row_id"]: r for r in map(json.loads, read["train"].decode().splitlines())}
    (a, la), (b, lb), (gone, _) = _some_corrections(Project.open(project.root).at_version(base))
    assert rows[a]["label"] == la and rows[b]["label"] == lb and gone not in rows
    assert read_version(now.data_dir, applied.version).rows["train"] == len(rows)
    assert label_differences(now.data_dir, base, applied.version, "train") == 3


def test_the_same_corrections_give_the_same_version_and_none_give_the_prepared_one(project):
    wanted = _some_corrections(project)
    first = correct(project.root, wanted)
    undone = correct(project.root, undo=[rid for rid, _ in wanted])
    assert undone.version == project.config.data_version, "every correction undone: the prepared version"
    again = correct(project.root, wanted)
    assert again.version == first.version


def test_a_version_written_whole_before_still_reads(project):
    """A project whose corrections versions hold their splits whole (as they were written before
    they were stored as changes) reads them as they are."""
    applied = correct(project.root, _some_corrections(project))
    folder = version_dir(project.data_dir, applied.version)
    view = Project.open(project.root).at_version(applied.version)
    for s in SPLITS:
        shutil.copyfile(view.split_path(s), folder / f"{s}.jsonl")
    (folder / CHANGES_FILE).unlink()
    shutil.rmtree(materialised_dir(project.data_dir, applied.version))
    old = Project.open(project.root).at_version(applied.version)
    assert old.split_path("train").parent == folder and old.load_split("test").shape[0] > 0
    assert not materialised_dir(project.data_dir, applied.version).exists()
    assert label_differences(project.data_dir, project.config.data_base, applied.version, "train") == 3


def test_two_processes_reading_a_version_at_once_make_its_splits_once(project):
    applied = correct(project.root, _some_corrections(project, "test"))
    code = ("import sys, hashlib; from workbench.core.project import Project, SPLITS; "
            "v = Project.open(sys.argv[1]).at_version(sys.argv[2]); "
            "print(' '.join(hashlib.sha256(v.split_path(s).read_bytes()).hexdigest() for s in SPLITS))")
    children = [subprocess.Popen([sys.executable, "-c", code, str(project.root), applied.version],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [c.communicate(timeout=120) for c in children]
    assert all(c.returncode == 0 for c in children), [err for _, err in outs]
    assert len({out for out, _ in outs}) == 1
    made = materialised_dir(project.data_dir, applied.version)
    assert sorted(f.name for f in made.iterdir()) == sorted(f"{s}.jsonl" for s in SPLITS)
    assert not [d for d in made.parent.iterdir() if d.name.startswith(".staging")], "no half-made folder is left"


def test_pruning_keeps_the_base_of_a_kept_version_and_drops_the_splits_made_of_a_pruned_one(project):
    from workbench.core.jobs import JobSpec, write_job

    wanted = _some_corrections(project)
    first = correct(project.root, wanted[:1])
    write_job(project.runs_dir / "run-1", JobSpec(project=str(project.root), template=TEMPLATE.id,
                                                   task="classification", data_version=first.version))
    second = correct(project.root, wanted[1:2])
    _splits(Project.open(project.root).at_version(second.version))
    assert materialised_dir(project.data_dir, second.version).is_dir()
    third = correct(project.root, wanted[2:])
    assert not version_dir(project.data_dir, second.version).exists(), "no run reads it"
    assert not materialised_dir(project.data_dir, second.version).exists()
    shutil.rmtree(project.cache_dir, ignore_errors=True)  # the cache may go at any time
    kept = Project.open(project.root).at_version(first.version)
    assert json.loads(kept.split_path("train").read_text(encoding="utf-8").splitlines()[0])
    assert prune_versions(project.data_dir, {first.version, third.version}) == []
    assert version_dir(project.data_dir, project.config.data_base).is_dir()


def test_a_changed_base_or_a_missing_one_is_said_and_not_read(project):
    applied = correct(project.root, _some_corrections(project))
    base = version_dir(project.data_dir, project.config.data_base)
    test = (base / "test.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (base / "test.jsonl").write_text("".join(test[1:]), encoding="utf-8")
    with pytest.raises(ProjectError) as damaged:
        Project.open(project.root).at_version(applied.version).split_path("train")
    assert damaged.value.code == "data_version_damaged" and damaged.value.fields["base"] == base.name
    shutil.rmtree(base)
    with pytest.raises(ProjectError) as missing:
        Project.open(project.root).at_version(applied.version).split_path("train")
    assert missing.value.code == "data_version_missing" and missing.value.fields["version"] == base.name
    assert label_differences(project.data_dir, applied.version, "0" * 12) is None


def test_a_run_on_a_server_takes_its_versions_splits_whole(project, tmp_path, monkeypatch):
    """The transport is faked: what would go up is written into a folder that stands for the
    server's project (tests/core/test_remote.py runs a real server)."""
    from workbench.core import remote
    from workbench.core.operations import runs as run_operations
    from workbench.core.targets import add_target

    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "home"))
    add_target("lab", "ssh://ana@127.0.0.1")
    applied = correct(project.root, _some_corrections(project))
    sent: dict = {}
    monkeypatch.setattr(remote, "workdir", lambda target: "/srv")
    monkeypatch.setattr(remote, "free_mb", lambda target, folder: 1e9)
    monkeypatch.setattr(remote, "upload", lambda target, dest, files: sent.update(files))
    monkeypatch.setattr(remote, "run", lambda *a, **k: None)
    monkeypatch.setattr(remote, "Mirror", lambda run_dir: type("M", (), {"start": lambda self: self})())
    job = run_operations.build_job(Project.open(project.root), "builtin:tiny", "full", max_steps=2)
    assert job.data_version == applied.version
    run_operations.start_run(Project.open(project.root), job, on="lab")
    server = tmp_path / "server"
    for name, what in sent.items():
        (server / name).parent.mkdir(parents=True, exist_ok=True)
        (server / name).write_bytes(what if isinstance(what, bytes) else what.read_bytes())
    there = Project.open(server).at_version(applied.version)
    assert _splits(there) == {s: (project.data_dir / f"{s}.jsonl").read_bytes() for s in SPLITS}
    assert corrections.load(project.root)  # the corrections stay here; the server needs the rows only
