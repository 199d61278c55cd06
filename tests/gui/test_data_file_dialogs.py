"""A data file of any suffix reaches the reader: the file dialogs list .data and the like and
offer every file, and a dropped file is taken whatever its name."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent
from PySide6.QtWidgets import QFileDialog

from data_factory import bank_question_pairs
from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.apply_file import ApplyFileWidget
from workbench.gui.pages.data.page import DataPage


def _answer_dialog(monkeypatch, path):
    asked = []

    def get_open_file_name(parent, caption, folder, filters):
        asked.append(filters)
        return str(path), filters.split(";;")[0]

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(get_open_file_name))
    return asked


def test_the_data_page_imports_a_tsv_named_data(qtbot, session, background, tmp_path, monkeypatch):
    session.create(tmp_path / "projects" / "p", TemplateCatalog().get("finance_sentiment"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    path = bank_question_pairs(tmp_path / "bank.data", n=40)
    asked = _answer_dialog(monkeypatch, path)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_button.click()
    assert list(page.raw.columns) == ["col1", "col2", "col3"] and len(page.raw) == 40
    kinds = asked[0].split(";;")
    assert "*.data" in kinds[0] and "*.dat" in kinds[0] and "*.csv" in kinds[0] and kinds[-1] == "All files (*)"


def test_the_file_to_predict_may_have_any_suffix(qtbot, session, background, tmp_path, monkeypatch):
    panel = ApplyFileWidget(session, background, lambda: None)
    qtbot.addWidget(panel)
    path = bank_question_pairs(tmp_path / "next-month", n=4)
    asked = _answer_dialog(monkeypatch, path)
    panel.choose_button.click()
    assert panel.input_path == path
    assert "*.data" in asked[0] and asked[0].split(";;")[-1] == "All files (*)"


def test_a_dropped_file_is_taken_whatever_its_suffix(laptop_window, tmp_path):
    window = laptop_window()
    folder = tmp_path / "exports"
    folder.mkdir()
    path = bank_question_pairs(folder / "bank.data", n=4)

    def drag(*paths):
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
        event = QDragEnterEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
        event.ignore()
        window.dragEnterEvent(event)
        return event.isAccepted()

    assert drag(path)
    assert not drag(folder)  # a folder is no data file
