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
