"""What a person found clicking through the window, each reproduced as they did it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QStackedWidget, QTabWidget

from workbench.gui.pages.data_page import DataPage


def _data_page(qtbot, session, tasks, root):
    page = DataPage(session, tasks)
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        session.open(root)
    return page


def reveal(widget) -> None:
    """Bring the tab (or stacked page) that holds ``widget`` to the front, as a click would."""
    child, parent = widget, widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QStackedWidget) and parent.indexOf(child) >= 0:
            parent.setCurrentWidget(child)
            if isinstance(parent.parentWidget(), QTabWidget):
                parent.parentWidget().setCurrentWidget(child)
        child, parent = parent, parent.parentWidget()


def test_unticking_drop_rows_with_other_labels_does_not_crash(qtbot, session, tasks, sample_project):
    """The step form was rebuilt inside the checkbox's own click handler: Qt then delivered
    the rest of the click to a deleted widget (a segmentation fault)."""
    page = _data_page(qtbot, session, tasks, sample_project)
    row = [s.op for s in page.recipe.steps].index("normalize_labels")
    page.steps_table.selectRow(row)
    for value in (False, True):
        box = next(w for w in page.params_editor.findChildren(QCheckBox)
                   if page.params_editor.form.labelForField(w) is not None
                   and "other labels" in page.params_editor.form.labelForField(w).text())
        reveal(box)
        assert box.isVisible() and box.isChecked() is not value
        with qtbot.waitSignal(page.cleaned, timeout=30000):
            # on the box itself: a check box takes clicks on its indicator and text only
            qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
        assert page.recipe.steps[row].params["drop_unknown"] is value
        qtbot.wait(50)  # let the event loop finish the click on whatever widget is there now


def test_a_new_project_starts_clean_after_another_one(qtbot, session, tasks, sample_project, tmp_path):
    """File > New project showed the previous project's rows, and 'The mapping is complete.'
    beside empty required roles."""
    page = _data_page(qtbot, session, tasks, sample_project)
    assert page.table_model.rowCount() > 0 and page.stats_column.count() > 0
    session.create(tmp_path / "projects" / "fresh", session.catalog.get("medical_qa"))
    assert page.raw is None and page.table_model.rowCount() == 0
    assert page.stats_column.count() == 0 and page.filter_column.count() <= 1
    assert "rows" not in page.source_label.text()
    assert page.mapping == {}
    assert "complete" not in page.mapping_general.text()
    assert page.mapping_general.text()  # it says what to do: import a file first
    assert not page.prepare_button.isEnabled()
    assert page.steps_table.rowCount() == len(page.recipe.steps) and page.reports == []
