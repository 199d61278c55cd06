"""The Evaluate page and the playground say when answers were given fewer new tokens than
asked for, because the model was trained on shorter texts (the engine's answer budget)."""

from __future__ import annotations

import json

from workbench.gui.pages.evaluate.playground import PlaygroundPanel
from workbench.gui.pages.evaluate.results import ResultsPanel


def test_the_results_say_how_many_answers_were_shortened(qtbot):
    panel = ResultsPanel()
    qtbot.addWidget(panel)
    budget = {"max_length": 192, "asked": 256, "shortened": 98, "rows": 100, "smallest": 97, "prompts_cut": 0,
              "note": "…"}
    panel.show_result({"rows": 100, "split": "test", "base_model": "builtin:tiny", "method": "full",
                       "metrics": {"rouge_l": 0.3, "answer_budget": budget}})
    text = panel.summary_text.text()
    assert "trained on 192 tokens" in text and "98 of 100 answers" in text and "as few as 97" in text
    panel.show_result({"rows": 100, "split": "test", "base_model": "builtin:tiny", "method": "full",
                       "metrics": {"rouge_l": 0.3}})
    assert "trained on" not in panel.summary_text.text()


def test_the_playground_says_its_answer_was_shortened(qtbot, session, background):
    panel = PlaygroundPanel(session, background, lambda: None)
    qtbot.addWidget(panel)
    panel._on_play_line(json.dumps({"event": "token", "id": 1, "text": "您好"}))
    panel._on_play_line(json.dumps({"event": "done", "id": 1, "text": "您好", "max_new_tokens": 64,
                                    "note": "Answers are at most 64 tokens here, not 256: …"}))
    assert panel.answer.toPlainText().startswith("您好") and "at most 64 tokens" in panel.answer.toPlainText()
    panel.answer.clear()
    panel._on_play_line(json.dumps({"event": "done", "id": 1, "text": "x", "max_new_tokens": 256}))
    assert panel.answer.toPlainText() == ""


def test_a_failed_predict_script_check_shows_its_reason(qtbot, session, background):
    from workbench.gui.pages.export.page import ExportPage

    page = ExportPage(session, background)
    qtbot.addWidget(page)
    reason = "predict.py and the evaluation both answered nothing on 4 rows"
    page.show_result({"formats": {}, "predict_script": {"status": "failed", "rows": 4, "same_as_engine": 4,
                                                         "reason": reason}})
    row = [r for r in range(page.table.rowCount()) if page.table.item(r, 0).text().startswith("predict.py")][0]
    assert page.table.item(row, 2).toolTip() == reason
