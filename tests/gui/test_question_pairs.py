"""The Data page on a bank's customer-service question pairs: a TSV named .data without a
header, a backspace before some questions, 0/1 labels (two questions ask the same or not)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from data_factory import bank_question_pairs
from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.data.page import DataPage


@pytest.fixture
def page(qtbot, session, background, tmp_path):
    session.create(tmp_path / "projects" / "bank", TemplateCatalog().get("finance_sentiment"))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(bank_question_pairs(tmp_path / "bank.data", n=120, controls=16))
    return page


def _map(qtbot, page, **mapping):
    """Choose each role's column in its box; the cleaning runs once the mapping is whole."""
    *first, last = mapping.items()
    for role, column in first:
        page.mapping_combos[role].setCurrentIndex(page.mapping_combos[role].findData(column))
    role, column = last
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.mapping_combos[role].setCurrentIndex(page.mapping_combos[role].findData(column))


def test_the_backspaces_are_removed_and_shown(qtbot, page):
    _map(qtbot, page, label="col3", text="col1")
    assert page.raw["col1"].str.startswith("\x08").sum() == 16  # the file as read keeps them
    assert not page.cleaned_df["text"].str.contains("\x08").any()
    row = [s.op for s in page.recipe.steps].index("remove_invisible")
    assert row == 0 and page.steps.steps_table.item(row, 2).text() == "16"
    page.steps.steps_table.selectRow(row)
    table = page.steps.examples_table
    assert table.rowCount() == 5
    from workbench.gui.pages.data.display import SnippetDelegate

    assert "⌧" in table.item(0, 2).data(SnippetDelegate.HTML_ROLE)
    note = page.steps.invisible_note
    assert not note.isHidden() and "a control character" in note.text()


def test_the_two_questions_are_offered_as_the_text_read_together(qtbot, page):
    assert page.mapping == {"text": None, "label": None}
    assert "col1 + col2" in page.guess_label.text() and "col3" in page.guess_label.text()
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.guess_button.click()
    assert page.mapping == {"text": "col1+col2", "label": "col3"}
    assert page.mapping_combos["text"].currentData() == "col1"
    assert page.mapping_second["text"].currentData() == "col2"
    with qtbot.waitSignal(page.cleaned, timeout=30000):  # 0 and 1 are not the template's labels
        page.labels_editor.use_found_button.click()
    first = page.raw.iloc[0]
    assert page.cleaned_df["text"].iloc[0] == first["col1"].lstrip("\x08") + "\n" + first["col2"]


def test_the_second_column_is_neither_the_first_nor_the_label(qtbot, page):
    _map(qtbot, page, label="col3", text="col1")
    second = page.mapping_second["text"]
    offered = [second.itemData(i) for i in range(second.count())]
    assert offered == [None, "col2"]
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        second.setCurrentIndex(second.findData("col2"))
    assert page.mapping["text"] == "col1+col2"
    # the first column changed to the second's: the second box no longer offers it, and says none
    combo = page.mapping_combos["text"]
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        combo.setCurrentIndex(combo.findData("col2"))
    assert page.mapping["text"] == "col2" and second.currentData() is None
    assert [second.itemData(i) for i in range(second.count())] == [None, "col1"]


def test_changing_the_text_column_keeps_the_page_on_its_tab(qtbot, page):
    _map(qtbot, page, label="col3", text="col1")
    # 0 and 1 are not the template's labels: the page shows the Labels tab once, when it finds that
    assert page.labels_editor.table_data.mismatch and page.tabs.currentIndex() == page.labels_tab
    page.tabs.setCurrentIndex(page.mapping_tab)
    _map(qtbot, page, text="col2")
    assert page.mapping["text"] == "col2" and page.labels_editor.table_data.mismatch
    assert page.tabs.currentIndex() == page.mapping_tab
    shown = page.tabs.indexOf(page.steps)  # the Cleaning tab
    page.tabs.setCurrentIndex(shown)
    second = page.mapping_second["text"]
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        second.setCurrentIndex(second.findData("col1"))
    assert page.tabs.currentIndex() == shown


@pytest.fixture
def pair_project(tmp_path):
    """A project whose text is the two questions joined, with a finished run of it."""
    from trained_factory import finished_run

    from workbench.core.labels import LabelChoice
    from workbench.core.project import prepare

    root = tmp_path / "projects" / "pairs"
    prepare(TemplateCatalog().get("finance_sentiment"), bank_question_pairs(tmp_path / "bank.data", n=120), root,
            mapping={"text": "col1+col2", "label": "col3"}, labels=LabelChoice(source="data"))
    finished_run(root, "run-pairs")
    return root


def test_the_playground_takes_the_two_questions_on_two_lines(qtbot, session, background, pair_project,
                                                             sample_project, monkeypatch):
    from PySide6.QtCore import Qt

    from workbench.gui.pages.evaluate.page import EvaluatePage

    session.open(pair_project)
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitUntil(lambda: page.run_combo.currentData() == "run-pairs", timeout=10000)
    box = page.prompt_edit
    assert box.is_multi_line() and "“col1” and “col2”" in box.placeholderText()
    asked = []
    monkeypatch.setattr(page.playground, "ask", lambda: asked.append(page.prompt_edit.text()))
    box.lines.setFocus()
    box.lines.insertPlainText("借呗怎么办理")  # typed (QTest types ASCII keys only)
    qtbot.keyClick(box.lines, Qt.Key.Key_Return)  # the next question, on a line of its own
    box.lines.insertPlainText("请问借呗如何办理")
    assert not asked
    qtbot.keyClick(box.lines, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert asked == ["借呗怎么办理\n请问借呗如何办理"]
    assert page.playground_args("run-pairs", asked[0])[-1] == "借呗怎么办理\n请问借呗如何办理"
    # a project whose text is one column: one line, Enter asks
    from trained_factory import finished_run

    finished_run(sample_project, "run-x")
    session.open(sample_project)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == "run-x", timeout=10000)
    assert not box.is_multi_line() and box.height() < 40


def _evaluated(run_dir, holds, inputs):
    """The eval folder of a classification run whose samples' inputs hold ``holds`` ("fields",
    "prompt", or None for a result written before evaluations said)."""
    import json

    import pandas as pd

    (run_dir / "eval").mkdir()
    labels = ["0", "1"]
    metrics = {"accuracy": 0.5, "macro_f1": 0.5, "labels": labels, "confusion": [[1, 1], [1, 1]],
               "per_class": {lab: {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2} for lab in labels}}
    result = {"run": run_dir.name, "task": "classification", "split": "test", "rows": len(inputs),
              "base_model": "builtin:tiny", "method": "full", "metrics": metrics, "baseline": None}
    if holds:
        result["input"] = holds
    (run_dir / "eval" / "metrics.json").write_text(json.dumps(result), encoding="utf-8")
    pd.DataFrame({"input": inputs, "reference": ["1", "0"] * (len(inputs) // 2), "prediction": ["1"] * len(inputs),
                  "correct": [True, False] * (len(inputs) // 2)}).to_csv(
        run_dir / "eval" / "predictions.csv", index=False, encoding="utf-8-sig")


def test_the_evaluated_pairs_are_shown_without_the_templates_prompt(qtbot, session, background, tmp_path):
    from trained_factory import finished_run

    from workbench.core.labels import LabelChoice
    from workbench.core.project import prepare
    from workbench.gui.pages.evaluate.page import EvaluatePage

    root = tmp_path / "projects" / "pairs"
    project, _ = prepare(TemplateCatalog().get("finance_sentiment"),
                         bank_question_pairs(tmp_path / "bank.data", n=120), root,
                         mapping={"text": "col1+col2", "label": "col3"}, labels=LabelChoice(source="data"))
    pairs = ["借呗怎么办理\n请问借呗如何办理", "房贷可以提前还吗\n房贷怎么突然冻结了"]
    _evaluated(finished_run(root, "run-fields"), "fields", pairs)
    # a language model's inputs: the template's prompt around the pair
    prompted = [project.task.user_text({"text": p}) for p in pairs]
    assert all(t.startswith("请判断以下财经新闻的情感倾向") for t in prompted)
    _evaluated(finished_run(root, "run-prompt"), "prompt", prompted)
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(root)
    for run_id in ("run-fields", "run-prompt"):
        with qtbot.waitSignal(page.results_shown, timeout=5000):
            page.run_combo.setCurrentIndex(page.run_combo.findData(run_id))
        model = page.samples_model
        titles = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
        assert titles[0] == "Text", (run_id, titles)  # the pair as the user wrote it, no prompt, in both
        assert [model.data(model.index(r, 0)) for r in range(model.rowCount())] == [
            p.replace("\n", " ⏎ ") for p in pairs]  # a line break drawn as a sign in a one-line cell
