"""Seen in the window at 1366 x 768: a run trained Gemma 3 270M chosen by its folder; after
reopening, the Train page showed "A model folder on this computer…" with the folder's path cut
off at its start, and the runs list showed "/root/.local/share/workbench/models/…", the model's
name cut off. A registered model comes back by its name, whole, however it was chosen."""

from __future__ import annotations

import json

import pytest

from workbench.core import models_store as store
from workbench.core.jobs import JobSpec, write_job
from workbench.core.runs import EventWriter

GEMMA = dict(model_type="gemma3_text", vocab_size=262144, hidden_size=640, intermediate_size=2048,
             num_hidden_layers=18, num_attention_heads=4, num_key_value_heads=1, head_dim=256,
             tie_word_embeddings=True)
RUN = "run-20260101-000000-aaaa"


def _register(folder, model_id: str = "gemma-3-270m") -> store.ModelEntry:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(GEMMA), encoding="utf-8")
    return store.add_entry(store.ModelEntry(
        id=model_id, name=model_id, family="gemma3", model_type="gemma3_text", folder=str(folder),
        parameters=268_098_176, source=store.ModelSource(kind="folder", path=str(folder)),
        licence=store.Licence(name="Gemma Terms of Use"), owned=False, added_at=store.now_iso()))


def _run(root, base_model: str, base_model_name: str | None = None) -> None:
    run_dir = root / "runs" / RUN
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model=base_model, base_model_name=base_model_name, method="lora"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=1, device="cpu")
    ev.emit("step", step=1, loss=4.19, lr=0.0)
    ev.emit("end", status="completed", error=None)
    ev.close()


def _shown_whole(combo) -> bool:
    from PySide6.QtWidgets import QStyle, QStyleOptionComboBox

    opt = QStyleOptionComboBox()
    combo.initStyleOption(opt)
    field = combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, opt,
                                         QStyle.SubControl.SC_ComboBoxEditField, combo)
    return combo.fontMetrics().horizontalAdvance(combo.currentText()) <= field.width()


def _model_cell(table):
    row = table.row_of(RUN)
    assert row >= 0
    return table.item(row, table.columnCount() - 1)


def _cell_shows(table, item) -> str:
    """The cell's text as the view draws it: elided to the column's width the view's way."""
    width = table.columnWidth(item.column()) - 2 * table.style().pixelMetric(
        table.style().PixelMetric.PM_FocusFrameHMargin, None, table) - 2
    return table.fontMetrics().elidedText(item.text(), table.textElideMode(), width)


@pytest.mark.parametrize("named", [False, True], ids=["chosen by its folder", "chosen by its name"])
def test_a_registered_model_comes_back_by_its_name_whole(qtbot, styled_app, laptop_window, sample_project,
                                                         tmp_path, named):
    gemma = _register(tmp_path / "store" / "gemma-3-270m")
    _run(sample_project, str(gemma.path), gemma.id if named else None)
    w = laptop_window(sample_project)
    train = w.show_step("train")
    assert train.current_run == RUN
    combo = train.model_combo
    assert combo.currentData() == "gemma-3-270m", combo.currentText()
    assert combo.currentText().startswith("gemma-3-270m (") and _shown_whole(combo), combo.currentText()
    assert not train.model_edit.isEnabled()
    cell = _model_cell(train.runs_table)
    assert cell.text() == "gemma-3-270m" and _cell_shows(train.runs_table, cell) == "gemma-3-270m"
    assert cell.toolTip() == str(gemma.path)


def test_a_folder_that_is_no_registered_model_keeps_its_name_in_view(qtbot, styled_app, laptop_window,
                                                                     sample_project, tmp_path):
    folder = tmp_path / "a" / "rather" / "deep" / "folder" / "of" / "downloaded" / "models" / "gemma-3-270m-it"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps(GEMMA), encoding="utf-8")
    _run(sample_project, str(folder))
    w = laptop_window(sample_project)
    train = w.show_step("train")
    assert train.model_combo.currentData() == "folder" and train.model_edit.text() == str(folder)
    edit = train.model_edit
    assert edit.cursorPosition() == len(edit.text())  # the end, the folder's name, is the part in view
    cell = _model_cell(train.runs_table)
    shown = _cell_shows(train.runs_table, cell)
    assert cell.text() == str(folder) and cell.toolTip() == str(folder)
    assert shown.endswith("gemma-3-270m-it") and shown != str(folder), shown
