"""A Copy button says it copied: "Copy" gave no sign that anything happened."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from workbench.gui.widgets.copy_button import CopyButton


def test_copy_says_copied_for_a_moment(qtbot, monkeypatch):
    monkeypatch.setattr("workbench.gui.widgets.copy_button.FEEDBACK_MS", 100)
    button = CopyButton(lambda: "workbench data prepare --project p")
    qtbot.addWidget(button)
    assert button.text() == "Copy"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "workbench data prepare --project p"
    assert button.text() == "Copied"
    qtbot.waitUntil(lambda: button.text() == "Copy", timeout=5000)


def test_the_command_lines_copy_button_gives_feedback(qtbot):
    from workbench.gui.pages.data.command_line import CommandLineBox

    box = CommandLineBox()
    qtbot.addWidget(box)
    box.set_args(["data", "prepare", "--project", "p"], [])
    qtbot.mouseClick(box.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == box.text()
    assert box.copy_button.text() == "Copied"
