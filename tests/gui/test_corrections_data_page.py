"""Corrections on the Data page: the table's menu corrects a row, the cell is marked with the
original on hover, the Review tab counts what is not in the data yet and makes the version."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from workbench.core import corrections
from workbench.core.operations.corrections import pending
from workbench.core.project import Project
from workbench.gui.pages.data.page import DataPage


def _page(qtbot, session, background, root):
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        session.open(root)
    page.which_combo.setCurrentIndex(page.which_combo.findData("clean"))
    return page


def _label_cell(page, row):
    model = page.table_model
    return model.index(row, list(map(str, model.frame.columns)).index("label"))


def test_the_tables_menu_corrects_a_row_and_marks_it(qtbot, session, background, sample_project):
    page = _page(qtbot, session, background, sample_project)
    qtbot.waitUntil(lambda: page.table_corrections.row_id_at(0) is not None, timeout=10000)
    rid = page.table_corrections.row_id_at(0)
    train = [json.loads(x) for x in Project.open(sample_project).split_path("train").read_text("utf-8").splitlines()]
    test = [json.loads(x) for x in Project.open(sample_project).split_path("test").read_text("utf-8").splitlines()]
    prepared = {r["row_id"]: r["label"] for r in train + test}
    view_row = next(i for i in range(page.table_model.rowCount()) if page.table_corrections.row_id_at(i) in prepared)
    rid = page.table_corrections.row_id_at(view_row)
    original = prepared[rid]
    other = next(lab for lab in session.project.task.labels if lab != original)
    menu = page.table_corrections.menu_for(view_row)
    titles = [a.text() for a in menu.actions()]
    assert titles[1:] == ["Exclude this row", "Mark as not sure", "Undo my correction"]
    assert not menu.actions()[3].isEnabled(), "nothing to undo yet"
    to = menu.actions()[0].menu()
    with qtbot.waitSignal(page.table_corrections.changed, timeout=10000):
        next(a for a in to.actions() if a.text() == other).trigger()
    assert corrections.load(sample_project)[rid].label == other
    cell = _label_cell(page, view_row)
    assert cell.data(Qt.ItemDataRole.DisplayRole) == other
    assert original in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert pending(sample_project) == 1
    assert "not in the data yet: 1." in page.review_panel.pending_label.text() and page.review_panel.apply_button.isEnabled()
    before = Project.open(sample_project).config.data_version
    with qtbot.waitSignal(session.data_prepared, timeout=10000):
        page.review_panel.apply_button.click()
    assert Project.open(sample_project).config.data_version != before and pending(sample_project) == 0
    assert not page.review_panel.apply_button.isEnabled()
    # undo from the same menu: the mark goes
    with qtbot.waitSignal(page.table_corrections.changed, timeout=10000):
        page.table_corrections.menu_for(view_row).actions()[3].trigger()
    assert _label_cell(page, view_row).data(Qt.ItemDataRole.DisplayRole) == original
    assert rid not in corrections.load(sample_project)


def test_a_new_label_typed_for_a_row_joins_the_projects_labels(qtbot, session, background, sample_project,
                                                                 monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    page = _page(qtbot, session, background, sample_project)
    qtbot.waitUntil(lambda: page.table_corrections.row_id_at(0) is not None, timeout=10000)
    prepared = {r["row_id"] for s in ("train", "val", "test") for r in
                map(json.loads, Project.open(sample_project).split_path(s).read_text("utf-8").splitlines())}
    view_row = next(i for i in range(page.table_model.rowCount()) if page.table_corrections.row_id_at(i) in prepared)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("监管处罚", True))  # the person types it
    to = page.table_corrections.menu_for(view_row).actions()[0].menu()
    with qtbot.waitSignal(page.table_corrections.changed, timeout=10000):
        to.actions()[-1].trigger()
    assert corrections.load(sample_project)[page.table_corrections.row_id_at(view_row)].label == "监管处罚"
    with qtbot.waitSignal(session.data_prepared, timeout=10000):
        page.review_panel.apply_button.click()
    assert "监管处罚" in Project.open(sample_project).task.labels
    assert page.review_panel.label_combo.findText("监管处罚") >= 0


def test_the_review_tab_lists_what_the_review_finds_and_keeps_it_while_the_table_corrects(
        qtbot, session, background, sample_project):
    """Seen in the window: a correction from the table's menu emptied the Review tab's list."""
    page = _page(qtbot, session, background, sample_project)
    panel = page.review_panel
    assert panel.review_args()[:3] == ["review", "--project", str(sample_project)]
    op = panel.find()
    qtbot.waitUntil(lambda: not op.running, timeout=120000)
    assert panel.rows and panel.table.rowCount() == len(panel.rows)
    assert [r["score"] for r in panel.rows] == sorted((r["score"] for r in panel.rows), reverse=True)
    first = panel.rows[0]
    assert panel.table.item(0, 2).text() == first["suggested"]
    # the A key accepts the suggestion and moves on
    panel.table.setCurrentCell(0, 0)
    with qtbot.waitSignal(panel.corrections_changed, timeout=10000):
        qtbot.keyClick(panel.table, Qt.Key.Key_A)
    assert corrections.load(sample_project)[first["row_id"]].label == first["suggested"]
    assert panel.table.currentRow() == 1 and first["suggested"] in panel.table.item(0, 4).text()
    # a correction from the data table: the list stays and shows it
    qtbot.waitUntil(lambda: page.table_corrections.row_id_at(0) is not None, timeout=10000)
    listed = {r["row_id"]: i for i, r in enumerate(panel.rows)}
    view_row = next((i for i in range(page.table_model.rowCount())
                     if page.table_corrections.row_id_at(i) in listed and i != 0 and
                     page.table_corrections.row_id_at(i) != first["row_id"]), None)
    if view_row is not None:
        with qtbot.waitSignal(page.table_corrections.changed, timeout=10000):
            page.table_corrections.menu_for(view_row).actions()[1].trigger()  # exclude
        assert len(panel.rows) == panel.table.rowCount() > 0
        assert panel.table.item(listed[page.table_corrections.row_id_at(view_row)], 4).text() == "excluded"


def test_a_multi_label_rows_label_set_is_chosen_in_the_tables_dialog(qtbot, session, background, tmp_path):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog
    from workbench.gui.pages.data.table_corrections import LabelSetDialog

    spec = TemplateCatalog().get("legal_case_type_multi")
    root = tmp_path / "projects" / "charges"
    prepare(spec, spec.sample_path, root)
    page = _page(qtbot, session, background, root)
    qtbot.waitUntil(lambda: page.table_corrections.row_id_at(0) is not None, timeout=10000)
    prepared = {r["row_id"]: r["labels"] for s in ("train", "val", "test") for r in
                map(json.loads, Project.open(root).split_path(s).read_text("utf-8").splitlines())}
    view_row = next(i for i in range(page.table_model.rowCount()) if page.table_corrections.row_id_at(i) in prepared)
    rid = page.table_corrections.row_id_at(view_row)
    menu = page.table_corrections.menu_for(view_row)
    assert [a.text() for a in menu.actions()] == ["Set the labels…", "Exclude this row", "Mark as not sure",
                                                  "Undo my correction"]
    labels = list(session.project.task.labels)
    added = next(lab for lab in labels if lab not in prepared[rid])
    wanted = sorted([*prepared[rid], added], key=labels.index)
    seen = {}

    def tick():
        dialog = QApplication.activeModalWidget()
        seen["dialog"] = dialog
        seen["shown"] = dialog.chosen()
        item = dialog.list.item(labels.index(added))
        item.setCheckState(Qt.CheckState.Checked)
        dialog.accept()

    QTimer.singleShot(0, tick)
    with qtbot.waitSignal(page.table_corrections.changed, timeout=10000):
        menu.actions()[0].trigger()
    assert isinstance(seen["dialog"], LabelSetDialog) and seen["shown"] == prepared[rid], "the row's set is ticked"
    assert corrections.load(root)[rid].labels == wanted
    cell = _label_cell(page, view_row)
    assert json.loads(cell.data(Qt.ItemDataRole.DisplayRole)) == wanted
    assert " | ".join(prepared[rid]) in cell.data(Qt.ItemDataRole.ToolTipRole)
    with qtbot.waitSignal(session.data_prepared, timeout=10000):
        page.review_panel.apply_button.click()
    written = {r["row_id"]: r["labels"] for s in ("train", "val", "test") for r in
               map(json.loads, Project.open(root).split_path(s).read_text("utf-8").splitlines())}
    assert written[rid] == wanted
