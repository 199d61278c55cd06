
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Qt

from workbench.gui.pages.data.display import change_window
from workbench.gui.pages.data.page import DataPage


def _page(qtbot, session, background, root):
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        session.open(root)
    return page


def test_project_data_is_shown_cleaned_and_counted(qtbot, session, background, sample_project):
    page = _page(qtbot, session, background, sample_project)
    assert page.table_model.rowCount() == len(page.raw) == 869
    assert len(page.reports) == page.steps.steps_table.rowCount() == len(page.recipe.steps)
    # every step shows rows dropped / cells changed; drop_empty drops rows
    row = [s.op for s in page.recipe.steps].index("drop_empty")
    assert int(page.steps.steps_table.item(row, 1).text()) > 0
    page.steps.steps_table.selectRow(row)
    assert page.steps.examples_table.rowCount() > 0
    assert page.steps.examples_table.item(0, 3).text()  # "(row dropped)"
    assert "→" in page.steps.summary.text()
    qtbot.waitUntil(lambda: bool(page.stats), timeout=10000)


def test_disable_step_then_undo_redo(qtbot, session, background, sample_project):
    page = _page(qtbot, session, background, sample_project)
    rows_before = len(page.cleaned_df)
    row = [s.op for s in page.recipe.steps].index("normalize_labels")
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.steps.steps_table.item(row, 0).setCheckState(Qt.CheckState.Unchecked)
    assert page.recipe.steps[row].enabled is False
    assert len(page.cleaned_df) > rows_before
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.undo_stack.undo()
    assert page.recipe.steps[row].enabled is True and len(page.cleaned_df) == rows_before
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.undo_stack.redo()
    assert page.recipe.steps[row].enabled is False


def test_edit_step_params_and_add_remove(qtbot, session, background, sample_project):
    page = _page(qtbot, session, background, sample_project)
    row = [s.op for s in page.recipe.steps].index("length_filter")
    page.steps.steps_table.selectRow(row)
    params = page.steps.params_editor.current()
    assert params["column"] == "text"
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.steps.params_editor.params_edited.emit({**params, "min_chars": 60})
    assert page.recipe.steps[row].params["min_chars"] == 60
    assert page.reports[row].rows_in - page.reports[row].rows_out > 3
    # an invalid value is refused with an inline message, nothing pushed
    n = page.undo_stack.count()
    page.steps.params_editor.params_edited.emit({**params, "min_chars": 50, "max_chars": 10})
    assert page.steps.params_message.text() and page.undo_stack.count() == n
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.steps.add_step("replace")
    assert page.recipe.steps[-1].op == "replace"
    page.steps.steps_table.selectRow(len(page.recipe.steps) - 1)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.steps.remove_step()
    assert page.recipe.steps[-1].op != "replace"


def test_mapping_validation_inline(qtbot, session, background, sample_project):
    page = _page(qtbot, session, background, sample_project)
    combo = page.mapping_combos["label"]
    combo.setCurrentIndex(combo.findData(None))
    assert "required" in page.mapping_messages["label"].text()
    assert not page.prepare_button.isEnabled()
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.undo_stack.undo()
    assert page.mapping["label"] == "情感倾向"
    assert page.mapping_messages["label"].text() == ""


def test_split_validation(qtbot, session, background, sample_project):
    page = _page(qtbot, session, background, sample_project)
    page.split_spins["train"].setValue(70)
    assert page.split_settings() is None and "100" in page.split_message.text()
    page.split_spins["test"].setValue(20)
    assert page.split_settings() is not None


def test_an_invalid_split_opens_the_split_tab(qtbot, session, background, sample_project):
    """Prepare with ratios that do not add up shows the Split tab, whatever tabs stand before it
    (a hard-coded index opened the Labels tab once that tab was inserted)."""
    page = _page(qtbot, session, background, sample_project)
    page.tabs.setCurrentIndex(0)
    page.split_spins["train"].setValue(70)
    with qtbot.waitSignal(background.error_shown, timeout=5000):
        assert page.prepare() is None
    assert page.tabs.currentWidget() is page.split_panel


def test_import_sort_filter_and_prepare(qtbot, session, background, tmp_path, sample_project):
    page = _page(qtbot, session, background, sample_project)
    src = tmp_path / "mine.csv"
    pd.DataFrame({"内容": [f"第{i}条新闻，公司业绩{'增长' if i % 2 else '下滑'}" for i in range(60)],
                  "情感": ["正面" if i % 2 else "负面" for i in range(60)]}).to_csv(src, index=False)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.import_file(src)
    assert page.mapping == {"text": "内容", "label": "情感"}
    page.filter_edit.setText("第1")
    qtbot.waitUntil(lambda: page.table_model.rowCount() == 11, timeout=10000)
    page._on_header_section_clicked(0)
    qtbot.waitUntil(lambda: page.table_model.data(page.table_model.index(0, 0)).startswith("第10条"), timeout=10000)
    with qtbot.waitSignal(page.prepared, timeout=30000):
        page.prepare()
    assert session.project.config.source.path.endswith("mine.csv")
    assert session.is_prepared


def test_import_of_a_bad_file_says_what_to_do(qtbot, session, background, sample_project, tmp_path):
    page = _page(qtbot, session, background, sample_project)
    bad = tmp_path / "picture.csv"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    with qtbot.waitSignal(background.error_shown, timeout=10000) as blocker:
        page.import_file(bad)
    assert "PNG" in blocker.args[1]


def test_change_window_shows_a_change_at_the_end_of_a_long_text():
    text = "据公司公告消息，" * 30 + "联系电话13812345678。"
    masked = "据公司公告消息，" * 30 + "联系电话[PHONE]。"
    (bh, bc, bt), (ah, ac, at) = change_window(text, masked)
    assert bc == "13812345678" and ac == "[PHONE]"
    assert bh.startswith("…") and bh.endswith("联系电话") and bt == "。"
    assert ah.startswith("…") and at == "。"
    # a change at the start: no leading ellipsis, the rest cut with one
    (bh, bc, bt), _ = change_window("A" + "b" * 200, "a" + "b" * 200)
    assert bh == "" and bc == "A" and bt.endswith("…")
    # a dropped row: only the start of the text
    (bh, bc, bt), after = change_window("x" * 100, None)
    assert after == ("", "", "") and bt.endswith("…")


def test_save_and_prepare_says_why_while_a_run_trains(qtbot, session, background, tmp_path, sample_project):
    """It used to rewrite data/*.jsonl under the running training without a word. A run that
    records no data version (one started before versions) reads data/ itself, so it still
    holds preparing back; a run that records one does not (tests/core/test_prepare.py)."""
    from workbench.core.runs import acquire_run_lock

    page = _page(qtbot, session, background, sample_project)
    src = tmp_path / "mine.csv"
    pd.DataFrame({"内容": [f"第{i}条新闻，公司业绩{'增长' if i % 2 else '下滑'}" for i in range(60)],
                  "情感": ["正面" if i % 2 else "负面" for i in range(60)]}).to_csv(src, index=False)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.import_file(src)
    data = Path(session.project.root) / "data"
    before = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()}
    run_dir = Path(session.project.root) / "runs" / "run-busy"
    run_dir.mkdir(parents=True, exist_ok=True)
    lock = acquire_run_lock(run_dir)
    try:
        with qtbot.waitSignal(background.error_shown, timeout=30000) as blocker:
            page.prepare()
    finally:
        lock.release()
    assert "Run run-busy is training" in blocker.args[1]
    assert {p.name: p.read_bytes() for p in data.iterdir() if p.is_file()} == before
