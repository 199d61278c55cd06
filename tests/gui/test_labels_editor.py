"""The Data page with a user's own labels: the label table, "use the labels found",
rename, merge, exclude, the per-project prompt, and "Save as template…"."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QTableWidgetSelectionRange

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from data_factory import DEPARTMENTS, hospital_export  # noqa: E402

from workbench.core.project import Project  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.gui.pages.data.page import DataPage  # noqa: E402


@pytest.fixture
def page(qtbot, session, background, tmp_path):
    session.create(tmp_path / "projects" / "hospital", TemplateCatalog().get("medical_triage"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    src = hospital_export(tmp_path / "export.csv")
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(src)
    assert page.mapping["text"] == "主诉内容" and page.mapping["label"] is None  # 科别 is no known header
    combo = page.mapping_combos["label"]
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        combo.setCurrentIndex(combo.findData("科别"))
    return page


def _select_values(page, *values):
    table = page.labels_editor.values_table
    table.clearSelection()
    for r in range(table.rowCount()):
        if table.item(r, 0).text() in values:
            table.setRangeSelected(QTableWidgetSelectionRange(r, 0, r, table.columnCount() - 1), True)


def _labels_in(page):
    return set(page.cleaned_df["label"].astype(str))


def test_use_found_rename_merge_exclude_undo(qtbot, page, monkeypatch):
    editor = page.labels_editor
    # the hospital's departments are none of the template's: said plainly, and preparing waits
    assert not editor.notice.isHidden() and "肝病科" in editor.notice.text()
    assert not page.prepare_button.isEnabled()
    assert page.tabs.currentIndex() == page.labels_tab
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        qtbot.mouseClick(editor.use_found_button, Qt.MouseButton.LeftButton)
    assert editor.notice.isHidden() and page.prepare_button.isEnabled()
    assert set(page.task.labels) == set(DEPARTMENTS) and _labels_in(page) == set(DEPARTMENTS)
    statuses = {editor.values_table.item(r, 0).text(): editor.values_table.item(r, 2).text()
                for r in range(editor.values_table.rowCount())}
    assert statuses["肝病科"] == "肝病科"

    # rename through the button and its dialog
    _select_values(page, "肝病科")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("肝胆科", True))
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        qtbot.mouseClick(editor.rename_button, Qt.MouseButton.LeftButton)
    assert "肝胆科" in page.task.labels and "肝病科" not in page.task.labels
    assert "肝病科" in page.task.label_aliases["肝胆科"] and "肝胆科" in _labels_in(page)

    # merge two labels: the kept one takes the other's rows and spelling
    _select_values(page, "肾内科", "风湿免疫科")
    assert editor.merge_button.isEnabled()
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("肾内科", True))
    rows = int((page.cleaned_df["label"] == "肾内科").sum()) + int((page.cleaned_df["label"] == "风湿免疫科").sum())
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        qtbot.mouseClick(editor.merge_button, Qt.MouseButton.LeftButton)
    assert "风湿免疫科" not in page.task.labels and int((page.cleaned_df["label"] == "肾内科").sum()) == rows

    # exclude a label: its rows leave the cleaned data, the table says so
    _select_values(page, "感染科")
    before = len(page.cleaned_df)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        qtbot.mouseClick(editor.exclude_button, Qt.MouseButton.LeftButton)
    assert "感染科" not in _labels_in(page) and len(page.cleaned_df) == before - 14
    row = next(r for r in range(editor.values_table.rowCount()) if editor.values_table.item(r, 0).text() == "感染科")
    assert "excluded" in editor.values_table.item(row, 2).text()

    # every change is one undo step
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.undo_stack.undo()
    assert "感染科" in _labels_in(page)

    # the least rows per label: 老年病科 has 3
    editor.min_rows_spin.setValue(4)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.min_rows_spin.editingFinished.emit()
    assert "老年病科" not in _labels_in(page)


def test_prompt_prepare_and_save_as_template(qtbot, page, session, tmp_path):
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.labels_editor.use_found()
    # the per-project prompt: {labels} is the project's labels
    editor = page.prompt_editor
    page.tabs.setCurrentWidget(editor)
    editor.user.setPlainText("本院科室：{labels}\n主诉：{text}")
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        qtbot.mouseClick(editor.apply_button, Qt.MouseButton.LeftButton)
    assert page.prompt.user == "本院科室：{labels}\n主诉：{text}"
    assert "肝病科" in editor.preview.text()
    editor.user.setPlainText("{complaint}")
    editor.apply_button.click()
    assert "cannot be used" in editor.message.text()

    assert not page.save_template_button.isEnabled()
    with qtbot.waitSignal(page.prepared, timeout=60000):
        page.prepare()
    project = Project.open(session.root)
    assert set(project.task.labels) == set(DEPARTMENTS)
    assert project.task.prompt.user == "本院科室：{labels}\n主诉：{text}"
    assert project.config.labels.source == "data"

    assert page.save_template_button.isEnabled()
    from workbench.gui.pages.template.page import TemplatePage

    template_page = TemplatePage(session, page.background)
    qtbot.addWidget(template_page)
    assert "our_triage" not in template_page.cards
    with qtbot.waitSignal(page.template_saved, timeout=30000) as blocker:
        page.save_as_template("our_triage", "本院分诊", "Our triage")
    folder = Path(blocker.args[0])
    assert folder.parent == session.user_templates_dir and (folder / "template.yaml").is_file()
    assert set(session.catalog.get("our_triage").labels) == set(DEPARTMENTS)
    assert "our_triage" in template_page.cards  # the Template page shows it at once


def test_list_labels_from_a_nested_gb18030_file(qtbot, session, background, tmp_path):
    from data_factory import CHARGES, cail_like

    session.create(tmp_path / "projects" / "cases", TemplateCatalog().get("legal_case_type"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(cail_like(tmp_path / "cases.json"))
    assert "meta.accusation" in page.list_columns
    combo = page.mapping_combos["text"]
    if combo.currentData() != "fact":
        combo.setCurrentIndex(combo.findData("fact"))
    combo = page.mapping_combos["label"]
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        combo.setCurrentIndex(combo.findData("meta.accusation"))
    editor = page.labels_editor
    # three of the four charges are spellings of the template's (盗窃 -> 盗窃罪); the drug charge is not
    assert editor.table_data.unknown_values == {"[走私、贩卖、运输、制造]毒品": 12}
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.use_found()
    assert set(page.task.labels) == set(CHARGES) and len(page.cleaned_df) == 44
    assert not editor.several_combo.isHidden() and "4" in editor.several_label.text()
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.several_combo.setCurrentIndex(editor.several_combo.findData("first"))
    assert len(page.cleaned_df) == 48 and page.label_choice.several == "first"


def test_codes_get_names_without_typing_json(qtbot, session, background, tmp_path, monkeypatch):
    from data_factory import coded_rows

    from workbench.gui.pages.data.labels_editor import CodeNamesDialog

    session.create(tmp_path / "projects" / "codes", TemplateCatalog().get("finance_sentiment"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(coded_rows(tmp_path / "rows.json", n=90))
    for role, col in (("text", "col1"), ("label", "col2")):
        combo = page.mapping_combos[role]
        if combo.currentData() != col:
            combo.setCurrentIndex(combo.findData(col))
    qtbot.waitUntil(lambda: page.labels_editor.table_data is not None, timeout=30000)
    editor = page.labels_editor
    assert editor.table_data.mismatch  # 0/1/2 are none of 正面/中性/负面
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.use_found()
    assert page.task.labels == ["0", "1", "2"]

    def fill(dlg):  # the user types a name beside each code
        for i in range(dlg.table.rowCount()):
            code = dlg.table.item(i, 0).text()
            dlg.table.item(i, 1).setText({"0": "负面", "1": "中性", "2": "正面"}[code])
        return CodeNamesDialog.DialogCode.Accepted

    monkeypatch.setattr(CodeNamesDialog, "exec", fill)
    page.tabs.setCurrentIndex(page.labels_tab)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        qtbot.mouseClick(editor.codes_button, Qt.MouseButton.LeftButton)
    assert page.task.labels == ["负面", "中性", "正面"]
    assert set(page.cleaned_df["label"].astype(str)) == {"负面", "中性", "正面"}


def test_the_multi_label_switch_keeps_every_charge_of_a_row(qtbot, session, background, tmp_path):
    import json

    from data_factory import CHARGES, cail_like

    root = tmp_path / "projects" / "cases"
    session.create(root, TemplateCatalog().get("legal_case_type"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(cail_like(tmp_path / "cases.json"))
    combo = page.mapping_combos["text"]
    if combo.currentData() != "fact":
        combo.setCurrentIndex(combo.findData("fact"))
    combo = page.mapping_combos["label"]
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        combo.setCurrentIndex(combo.findData("meta.accusation"))
    editor = page.labels_editor
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.use_found()
    assert not editor.multi_check.isChecked() and len(page.cleaned_df) == 44  # rows with two charges dropped
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.multi_check.setChecked(True)
    # every row kept with all of its charges; the second charge (寻衅滋事) is a label of its own
    assert page.label_choice.multi_label and page.task.multi_label
    assert len(page.cleaned_df) == 48 and set(page.task.labels) == set(CHARGES) | {"寻衅滋事"}
    assert editor.several_combo.isHidden()
    with qtbot.waitSignal(page.prepared, timeout=60000):
        page.prepare()
    assert Project.open(root).task.multi_label
    rows = [json.loads(x) for x in (root / "data" / "train.jsonl").read_text("utf-8").splitlines()]
    assert any(len(r["labels"]) == 2 for r in rows)


def test_a_second_file_whose_columns_do_not_map_clears_the_first_files_labels(page, qtbot, tmp_path):
    """Importing another file (here a JSON array with query/label) must not leave the previous file's
    label table on the Labels tab while the mapping waits for the user."""
    import json

    assert page.labels_editor.table_data is not None
    other = tmp_path / "dev.json"
    other.write_text(json.dumps([{"id": f"s{i}", "query": f"问题{i}", "label": ["治疗方案", "其他"][i % 2]}
                                 for i in range(40)], ensure_ascii=False), encoding="utf-8")
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(other)
    assert page.mapping["text"] is None  # "query" is no known header: the mapping waits for the user
    qtbot.waitUntil(lambda: not page._clean_timer.isActive(), timeout=5000)
    assert page.labels_editor.table_data is None
    assert page.labels_editor.values_table.rowCount() == 0
