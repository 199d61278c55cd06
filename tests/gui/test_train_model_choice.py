"""The Train page's settings follow the model, however it is chosen, and belong to the project.

Seen in the window: "A model folder on this computer…" with the Gemma 3 270M folder typed and
Tab pressed kept the built-in model's learning rate (0.01), epochs and batch under "Recommended
for this data"; a new project kept the previous project's folder; with no project open the
settings read 0.000000, 0.000 and 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.core.jobs import JobSpec, write_job
from workbench.core.operations import runs as run_operations
from workbench.core.project import Project
from workbench.gui.pages.train.page import TrainPage
from workbench.gui.pages.train.settings_panel import RECOMMENDED

SHOWN = ("learning_rate", "epochs", "batch_size", "max_length")


@pytest.fixture(scope="module")
def pretrained(tmp_path_factory) -> Path:
    """A tiny pretrained model folder (Gemma 3's family, as the user's)."""
    from model_factory import make_model_folder

    return make_model_folder("gemma3", tmp_path_factory.mktemp("models") / "tiny-gemma3", layout="hf")


def _shown(page) -> dict[str, float]:
    return {name: page.spins[name].value() for name in SHOWN}


def _recommended(project_root, base, *, method="lora", **kw) -> dict[str, float]:
    """What core recommends, as the page's spin boxes round it."""
    values, _ = run_operations.recommended_settings(Project.open(project_root), base, method, **kw)
    return {"learning_rate": round(values["learning_rate"], 6), "epochs": round(values["epochs"], 3),
            "batch_size": int(values["batch_size"]), "max_length": int(values["max_length"])}


def _page(qtbot, session, background, project=None):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    if project is not None:
        session.open(project)
    return page


def test_a_model_folder_typed_or_browsed_gets_its_own_recommendation(qtbot, session, background, sample_project,
                                                                      pretrained, tmp_path, monkeypatch):
    page = _page(qtbot, session, background, sample_project)
    builtin = _shown(page)
    assert builtin == _recommended(sample_project, "builtin:small", method="full", time_budget_min=10)
    mine = _recommended(sample_project, str(pretrained), time_budget_min=10)
    assert mine != builtin  # a pretrained model learns at another rate, in other batches
    assert mine["learning_rate"] < 1e-3

    # typed, then Tab: the folder's recommendation, not the built-in model's
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    page.model_edit.setText(str(pretrained))
    page.model_edit.editingFinished.emit()  # what Tab or Enter in the field does
    assert _shown(page) == mine
    assert page.preset_combo.currentData() == RECOMMENDED
    assert page.job_spec().learning_rate == pytest.approx(mine["learning_rate"])

    # focus leaving the field again, unchanged, keeps what the user set by hand
    page.spins["learning_rate"].setValue(5e-4)
    page.model_edit.editingFinished.emit()
    assert page.spins["learning_rate"].value() == pytest.approx(5e-4)

    # the built-in model again, then a folder browsed
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
    assert _shown(page) == builtin
    other = Path(shutil.copytree(pretrained, tmp_path / "browsed-gemma"))
    from PySide6.QtWidgets import QFileDialog

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(other))
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    page.browse_button.click()
    assert page.model_edit.text() == str(other)
    assert _shown(page) == _recommended(sample_project, str(other), time_budget_min=10)
    assert page.preset_combo.currentData() == RECOMMENDED


def test_a_folder_not_chosen_yet_shows_no_settings_to_start_with(qtbot, session, background, sample_project):
    page = _page(qtbot, session, background, sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    assert page.model_edit.text() == ""
    # not the built-in model's values under "Recommended for this data": no model, no values
    for name in SHOWN:
        assert page.spins[name].text() == "—", name
    assert page.estimate_label.text() == ""


def test_a_gguf_added_gets_its_own_recommendation(qtbot, session, background, sample_project, tmp_path):
    from gguf_factory import write_gguf

    page = _page(qtbot, session, background, sample_project)
    assert page.model_combo.currentData() == "builtin:small"
    gguf = write_gguf(tmp_path / "tiny-gemma3.gguf", "gemma3")
    errors = []
    background.error_shown.connect(lambda t, m: errors.append(m))
    with qtbot.waitSignal(page.models_panel.model_added, timeout=180000) as added:
        assert page.models_panel.add_model(gguf) is not None
    qtbot.waitUntil(lambda: page.models_panel.op is None, timeout=10000)
    assert not errors
    model_id = added.args[0]
    assert page.model_combo.currentData() == model_id
    assert _shown(page) == _recommended(sample_project, model_id, time_budget_min=10)
    assert page.spins["learning_rate"].value() < 1e-3
    assert page.preset_combo.currentData() == RECOMMENDED


def test_a_server_chosen_gets_the_recommendation_for_its_devices(qtbot, session, background, sample_project,
                                                                 pretrained):
    from workbench.core.targets import add_target

    add_target("lab", "ssh://ana@gpu.example.org", devices="gpu:0")
    page = _page(qtbot, session, background, sample_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    page.model_edit.setText(str(pretrained))
    page.model_edit.editingFinished.emit()
    here = _shown(page)
    page.target_combo.refresh()
    page.target_combo.setCurrentIndex(page.target_combo.findData("lab"))
    on_gpu = _recommended(sample_project, str(pretrained), device="gpu:0", time_budget_min=10)
    assert on_gpu != here  # a GPU takes larger batches
    assert _shown(page) == on_gpu and page.preset_combo.currentData() == RECOMMENDED
    job = page.job_spec()
    assert job.batch_size == on_gpu["batch_size"]
    # and back on this computer: this computer's again
    page.target_combo.setCurrentIndex(page.target_combo.findData(None))
    assert _shown(page) == here


def _prepared(tmp_path, name, template="finance_sentiment"):
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    spec = TemplateCatalog().get(template)
    root = tmp_path / "projects" / name
    prepare(spec, spec.sample_path, root)
    return root


def _with_run(root, base_model):
    write_job(root / "runs" / "run-1", JobSpec(project=str(root), template="finance_sentiment", task="classification",
                                                base_model=base_model, method="lora", learning_rate=3e-4))
    (root / "runs" / "run-1" / "events.jsonl").write_text(json.dumps({"v": 1, "event": "end", "status": "completed"})
                                                          + "\n")


def test_each_project_keeps_its_own_model_folder(qtbot, session, background, tmp_path, pretrained):
    first = _prepared(tmp_path, "first")
    _with_run(first, str(pretrained))
    second = _prepared(tmp_path, "second")
    page = _page(qtbot, session, background, first)
    assert page.model_combo.currentData() == "folder" and page.model_edit.text() == str(pretrained)

    # another project, without runs: the default model and an empty folder field
    session.open(second)
    assert page.model_combo.currentData() == "builtin:small"
    assert page.model_edit.text() == "" and page.base_model() == "builtin:small"
    # a folder typed there, then a new project: that one starts from the default too
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    page.model_edit.setText(str(tmp_path / "typed-here"))
    page.model_edit.editingFinished.emit()
    from workbench.core.templates import TemplateCatalog

    session.create(tmp_path / "projects" / "third", TemplateCatalog().get("medical_triage"))
    assert page.model_combo.currentData() == "builtin:small" and page.model_edit.text() == ""

    # the first project again: its own run's folder
    session.open(first)
    assert page.model_combo.currentData() == "folder" and page.model_edit.text() == str(pretrained)
    session.open(second)
    assert page.model_edit.text() == ""


def test_with_no_project_the_settings_show_dashes_and_nothing_starts(qtbot, session, background, sample_project,
                                                                      tmp_path):
    page = _page(qtbot, session, background)
    for name, spin in page.spins.items():
        assert spin.text() == "—", (name, spin.text())
    assert page.eval_steps.text() == "—"
    assert not page.start_button.isEnabled()
    assert page.estimate_label.text() == ""
    session.open(sample_project)
    assert page.spins["learning_rate"].text() not in ("—", "0.000000")
    assert page.spins["batch_size"].value() > 0 and page.start_button.isEnabled()
    session.close()
    for name in SHOWN:  # nothing of the closed project's
        assert page.spins[name].text() == "—", name
    assert not page.start_button.isEnabled()
    # a new project before its data is prepared: nothing to recommend for either
    from workbench.core.templates import TemplateCatalog

    session.create(tmp_path / "projects" / "no-data-yet", TemplateCatalog().get("finance_sentiment"))
    for name in SHOWN:
        assert page.spins[name].text() == "—", name
    assert not page.start_button.isEnabled() and page.estimate_label.text() == ""
