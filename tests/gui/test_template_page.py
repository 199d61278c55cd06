from workbench.gui.pages.template.page import TemplatePage


def test_cards_grouped_by_vertical_and_preview(qtbot, session, background):
    page = TemplatePage(session, background)
    qtbot.addWidget(page)
    assert len(page.cards) == len(session.catalog.templates) >= 6
    qtbot.waitUntil(lambda: page.preview_model.rowCount() > 0, timeout=10000)
    page.select("medical_triage")
    qtbot.waitUntil(lambda: "科室" in [page.preview_model.headerData(c, 1) for c in range(page.preview_model.columnCount())]
                    or page.preview_model.rowCount() > 0, timeout=10000)
    assert page.cards["medical_triage"].property("selected") is True
    assert page.selected == "medical_triage"
    with qtbot.waitSignal(page.template_chosen) as blocker:
        page.use_button.click()
    assert blocker.args == ["medical_triage"]


def test_facts_name_metrics_and_roles_in_the_users_words(qtbot, session, background):
    """Seen on the Template page: 'Metrics: accuracy, macro_f1' and 'text ← 新闻内容', internal ids."""
    page = TemplatePage(session, background)
    qtbot.addWidget(page)
    page.select("finance_sentiment")
    facts = page.facts_label.text()
    assert "macro_f1" not in facts and "Macro F1" in facts and "Accuracy" in facts
    assert "text ←" not in facts
