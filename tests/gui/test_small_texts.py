"""Small texts: thousands separators in row counts, the version in the About dialog."""

from __future__ import annotations

import pandas as pd

from workbench import __version__
from workbench.core.templates import TemplateCatalog


def test_the_split_line_groups_thousands(qtbot, session, background, tmp_path):
    """Seen: "About 5620 training, 703 validation and 703 test rows"."""
    from workbench.gui.pages.data.page import DataPage

    session.create(tmp_path / "projects" / "p", TemplateCatalog().get("finance_sentiment"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    page.cleaned_df = pd.DataFrame({"text": ["一"] * 7026, "label": ["正面"] * 7026})
    page.split_spins["val"].setValue(10)
    page.split_spins["test"].setValue(10)
    page.split_spins["train"].setValue(80)
    page._on_split_changed()
    text = page.split_message.text()
    assert "5,620 training" in text and "703 validation" in text, text


def test_the_about_dialog_names_the_version(qtbot, tmp_path):
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    w = MainWindow(Settings(tmp_path / "gui.ini"))
    qtbot.addWidget(w)
    assert f"version {__version__}" in w.about_text()


def test_two_sensitive_terms_steps_are_told_apart(qtbot, session, background, tmp_path):
    """Seen in the finance Q&A template: two steps both named "Mask, drop or flag sensitive terms"
    (one masks the answers, the other flags the questions)."""
    from workbench.core.cleaning import Recipe
    from workbench.gui.pages.data.steps_panel import StepsPanel

    template = TemplateCatalog().get("finance_service_qa")
    panel = StepsPanel()
    qtbot.addWidget(panel)
    recipe = Recipe.model_validate({"steps": template.default_recipe()})
    panel.show_recipe(recipe, [], list(template.roles))
    names = [panel.steps_table.item(r, 0).text().split(". ", 1)[1] for r in range(panel.steps_table.rowCount())]
    terms = [n for n, s in zip(names, recipe.steps) if s.op == "sensitive_terms"]
    assert len(terms) == 2 and len(set(names)) == len(names), names
    assert "Filter rows by the length of Instruction / question" in names
    assert terms == ["Mask sensitive terms in Answer / output",
                     "Flag sensitive terms in Instruction / question, Extra input for review"], terms


def test_a_steps_columns_are_listed_the_chinese_way(qtbot):
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n
    from workbench.gui.pages.data.display import step_name

    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        name = step_name("sensitive_terms", {"columns": ["instruction", "input"], "action": "flag"})
        assert name == "标记“指令 / 问题、补充输入”中的敏感词供复核", name
    finally:
        i18n.install(app, "en")


def test_what_trim_whitespace_removed_is_shown(qtbot, session, background, sample_project):
    """Seen: "Trim whitespace: 12 cells changed", and every Before read like its After: the
    spaces it removed drew nothing in the marked change."""
    from workbench.gui.pages.data.display import SnippetDelegate, change_window, html_snippet
    from workbench.gui.pages.data.page import DataPage

    before, after = change_window("  央行宣布降准\u3000", "央行宣布降准")
    assert "·" in html_snippet(before, "#fff") and "□" in html_snippet(before, "#fff")
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        session.open(sample_project)
    row = [s.op for s in page.recipe.steps].index("trim_whitespace")
    assert int(page.steps.steps_table.item(row, 2).text()) > 0
    page.steps.steps_table.selectRow(row)
    table = page.steps.examples_table
    assert table.rowCount() > 0
    shown = table.item(0, 2).data(SnippetDelegate.HTML_ROLE)
    assert any(sign in shown for sign in "·□→°◇⏎"), shown
    assert not page.steps.invisible_note.isHidden() and "a full-width space" in page.steps.invisible_note.text()


def test_the_font_database_does_not_fill_the_terminal(qapp):
    """Seen at start-up in a terminal: 88 lines of "qt.text.font.db: OpenType support missing for …"."""
    from PySide6.QtCore import QLoggingCategory

    from workbench.gui.app import build_app

    assert build_app([]) is qapp
    fonts = QLoggingCategory("qt.text.font.db")
    assert not fonts.isWarningEnabled() and fonts.isCriticalEnabled()
    assert QLoggingCategory("qt.qpa.xcb").isWarningEnabled()  # other warnings still speak
