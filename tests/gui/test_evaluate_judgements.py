"""The person's judgements of answers on the Evaluate page: Good / Bad / a better answer on the
samples and in the playground, comparison mode with its keys and the review queue, the Feedback
tab; all recorded through core in the project's feedback.jsonl. A classification project gets
none of it.

The answers here are an evaluation's files as ``workbench eval`` writes them and the events and
pairs a child prints; tests/gui/test_evaluate_judgements_real.py runs the real children on a
trained run."""

from __future__ import annotations

import json
import re
import sys

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton

from trained_factory import finished_run
from workbench.cli import build_parser
from workbench.core import feedback
from workbench.core.feedback import AnswerPair, Judgement
from workbench.core.project import Project, prepare
from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.evaluate.judging import BetterAnswerDialog
from workbench.gui.pages.evaluate.page import EvaluatePage
from workbench.gui.pages.evaluate.ratings import RATING_COLUMN

GENERATION = {"mode": "greedy", "max_new_tokens": 64, "repetition_penalty": 1.1, "no_repeat_ngram": 4}


@pytest.fixture
def qa_project(tmp_path):
    """A prepared instruction project (the Q&A template's sample), a completed run and its
    evaluation on six test rows."""
    spec = TemplateCatalog().get("finance_service_qa")
    root = tmp_path / "projects" / "qa"
    prepare(spec, spec.sample_path, root)
    run = finished_run(root, "run-q", task="instruction")
    path = Project.open(root).split_path("test")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()][:6]
    (run / "eval").mkdir()
    (run / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-q", "source": "final", "task": "instruction", "split": "test", "rows": len(rows),
        "input": "prompt", "generation": GENERATION, "metrics": {"rouge_l": 0.3, "max_new_tokens": 64}}),
        encoding="utf-8")
    pd.DataFrame({"row_id": [r["row_id"] for r in rows], "input": [r["instruction"] for r in rows],
                  "reference": [r["output"] for r in rows], "prediction": [f"模型的回答{i}" for i in range(len(rows))],
                  "score": [0.3] * len(rows), "exact": [False] * len(rows)}).to_csv(
        run / "eval" / "predictions.csv", index=False, encoding="utf-8-sig")
    return root


def _page(qtbot, session, background, root) -> EvaluatePage:
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(root)
    qtbot.waitUntil(lambda: len(page.predictions) > 0, timeout=10000)
    return page


def _written(qtbot, page, fn):
    """Do ``fn`` and wait until what it records is written."""
    result = fn()
    qtbot.waitUntil(lambda: not page.judging.busy, timeout=10000)
    return result


def _headers(model) -> list[str]:
    return [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]


def _dialog(qtbot) -> BetterAnswerDialog:
    qtbot.waitUntil(lambda: any(isinstance(w, BetterAnswerDialog) and w.isVisible()
                                for w in QApplication.topLevelWidgets()), timeout=5000)
    return next(w for w in QApplication.topLevelWidgets() if isinstance(w, BetterAnswerDialog) and w.isVisible())


# ----- the samples ------------------------------------------------------------------------------


def test_a_sample_is_rated_with_its_run_and_a_new_rating_replaces_the_old(qtbot, session, background, qa_project):
    page = _page(qtbot, session, background, qa_project)
    headers = _headers(page.samples_model)
    assert headers[headers.index("model's answer") + 1] == "your rating"
    column = page.ratings.column
    assert column == headers.index("your rating") and not page.ratings.bar.isHidden()
    assert not page.ratings.buttons.good_button.isEnabled()  # no row chosen yet
    page.samples_view.setCurrentIndex(page.samples_model.index(2, 0))
    assert page.ratings.buttons.good_button.isEnabled()
    _written(qtbot, page, page.ratings.buttons.good_button.click)

    row = page.predictions.iloc[2]
    [j] = feedback.load(qa_project)
    assert (j.kind, j.rating, j.prompt, j.answers, j.reference) == (
        "rating", 1, row["input"], [row["prediction"]], row["reference"])
    assert (j.run, j.checkpoint, j.generation, j.source) == ("run-q", "final", GENERATION, "window")
    cell = page.samples_model.index(2, column)
    assert cell.data() == "good" and cell.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert page.ratings.buttons.good_button.isChecked()

    # a change of mind: the good rating is taken back and the bad one recorded
    _written(qtbot, page, page.ratings.buttons.bad_button.click)
    [j2] = feedback.load(qa_project)
    assert j2.rating == -1 and j2.answers == [row["prediction"]]
    assert len(feedback.read_all(qa_project)) == 3  # good, its undo, bad: nothing rewritten
    assert cell.data() == "bad" and page.ratings.buttons.bad_button.isChecked()
    assert not page.ratings.buttons.good_button.isChecked()

    # a better answer keeps the bad rating and carries the rewrite
    dialog = page.ratings.better_row(2)
    assert dialog.editor.toPlainText() == "" and dialog.note.isHidden()  # seen: it opened saying "word for word"
    ok = dialog.buttons.button(dialog.buttons.StandardButton.Ok)
    assert not ok.isEnabled()
    next(b for b in dialog.findChildren(QPushButton) if b.text() == "Start from this answer").click()
    assert dialog.editor.toPlainText() == row["prediction"]  # to edit, not to type again
    assert not ok.isEnabled() and not dialog.note.isHidden(), "the model's answer unchanged is no better answer"
    dialog.editor.setPlainText("您好，转账限额可在手机银行中查询和调整。")
    _written(qtbot, page, ok.click)
    [j3] = feedback.load(qa_project)
    assert (j3.rating, j3.rewrite) == (-1, "您好，转账限额可在手机银行中查询和调整。")
    assert cell.data() == "bad, rewritten" and "转账限额" in cell.data(Qt.ItemDataRole.ToolTipRole)

    # the same rating again takes it back
    _written(qtbot, page, page.ratings.buttons.bad_button.click)
    assert feedback.load(qa_project) == [] and cell.data() == ""


def test_a_rating_shows_after_reopening_and_the_rows_menu_rates(qtbot, session, background, qa_project):
    row = pd.read_csv(qa_project / "runs" / "run-q" / "eval" / "predictions.csv", dtype=str).iloc[4]
    feedback.append(qa_project, [Judgement(kind="rating", prompt=row["input"], answers=[row["prediction"]], rating=1,
                                           run="run-q")])
    page = _page(qtbot, session, background, qa_project)
    assert page.samples_model.index(4, page.ratings.column).data() == "good"
    menu = page.corrections.menu(1)
    texts = [a.text() for a in menu.actions()]
    assert texts[:3] == ["Good answer", "Bad answer", "Write a better answer…"]
    assert "Take back my rating" not in texts
    _written(qtbot, page, lambda: next(a for a in menu.actions() if a.text() == "Bad answer").trigger())
    assert sorted(j.rating for j in feedback.load(qa_project)) == [-1, 1]
    menu = page.corrections.menu(1)
    assert next(a for a in menu.actions() if a.text() == "Bad answer").isChecked()
    _written(qtbot, page, lambda: next(a for a in menu.actions() if a.text() == "Take back my rating").trigger())
    assert [j.rating for j in feedback.load(qa_project)] == [1]


# ----- the playground ---------------------------------------------------------------------------

_ANSWER = """
import json, sys
done = {"event": "done", "id": None, "text": "您好，限额为五万元。", "tokens": 9, "seconds": 0.2,
        "user": sys.argv[-1], "run": "run-q", "checkpoint": "final",
        "generation": {"mode": "greedy", "max_new_tokens": 128, "repetition_penalty": 1.1, "no_repeat_ngram": 4}}
print(json.dumps({"event": "token", "id": None, "text": done["text"]}, ensure_ascii=False), flush=True)
print(json.dumps(done, ensure_ascii=False), flush=True)
"""


def _fake_playground(background, monkeypatch, answer: str = "您好，限额为五万元。"):
    """The playground's child, as ``playground --json`` speaks: the answer and its done event."""
    asked = []
    script = _ANSWER.replace("您好，限额为五万元。", answer)

    def command(args, title):
        asked.append(args)
        assert build_parser().parse_args(args).command == "playground"
        return background.process([sys.executable, "-c", script, args[-1]], title, "playground")

    monkeypatch.setattr(background, "command", command)
    return asked


def test_a_playground_answer_is_rated_and_its_rating_is_shown_again(qtbot, session, background, qa_project,
                                                                     monkeypatch):
    _fake_playground(background, monkeypatch)
    page = _page(qtbot, session, background, qa_project)
    rating = page.playground_rating
    assert not rating.isHidden() and not rating.buttons.good_button.isEnabled()
    page.prompt_edit.setText("转账限额是多少？")
    with qtbot.waitSignal(page.playground_finished, timeout=30000):
        page._on_generate_clicked()
    assert rating.buttons.good_button.isEnabled()
    _written(qtbot, page, rating.buttons.good_button.click)
    [j] = feedback.load(qa_project)
    assert (j.kind, j.rating, j.prompt, j.answers) == ("rating", 1, "转账限额是多少？", ["您好，限额为五万元。"])
    assert (j.run, j.checkpoint, j.generation["mode"], j.source) == ("run-q", "final", "greedy", "window")
    assert rating.buttons.good_button.isChecked()
    _written(qtbot, page, rating.buttons.bad_button.click)
    assert [j.rating for j in feedback.load(qa_project)] == [-1]

    # the same question again: the same answer, shown as rated
    with qtbot.waitSignal(page.playground_finished, timeout=30000):
        page._on_generate_clicked()
    assert rating.buttons.bad_button.isChecked() and not rating.buttons.good_button.isChecked()
    dialog = rating._better()
    assert "转账限额是多少？" in dialog.findChildren(type(dialog.editor))[0].toPlainText()
    dialog.editor.setPlainText("单笔限额五万元，可在手机银行调整。")
    _written(qtbot, page, dialog.accept)
    [j] = feedback.load(qa_project)
    assert (j.rating, j.rewrite) == (-1, "单笔限额五万元，可在手机银行调整。")
    assert rating.buttons.better_button.text() == "Edit my better answer…"


def test_an_empty_answer_says_why_it_cannot_be_rated(qtbot, session, background, qa_project, monkeypatch):
    path = qa_project / "runs" / "run-q" / "eval" / "predictions.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[1, "prediction"] = ""  # the model ended its turn at once
    frame.to_csv(path, index=False, encoding="utf-8-sig")
    _fake_playground(background, monkeypatch, answer="")
    page = _page(qtbot, session, background, qa_project)
    buttons = page.ratings.buttons
    page.samples_view.setCurrentIndex(page.samples_model.index(1, 0))
    assert not buttons.good_button.isEnabled() and not buttons.better_button.isEnabled()
    assert not buttons.why_label.isHidden() and "empty" in buttons.why_label.text()
    assert "empty" in buttons.good_button.toolTip()
    page.ratings.rate_row(1, -1)  # a key or a stale menu: nothing recorded, nothing raised
    assert feedback.read_all(qa_project) == []
    assert "Good answer" not in [a.text() for a in page.corrections.menu(1).actions()]
    page.samples_view.setCurrentIndex(page.samples_model.index(2, 0))  # an answer again: the buttons return
    assert buttons.good_button.isEnabled() and buttons.why_label.isHidden()
    assert buttons.good_button.toolTip().startswith("This answer is good")

    rating = page.playground_rating
    page.prompt_edit.setText("转账限额是多少？")
    with qtbot.waitSignal(page.playground_finished, timeout=30000):
        page._on_generate_clicked()
    assert not rating.buttons.bad_button.isEnabled() and not rating.buttons.why_label.isHidden()
    assert "Compare two sampled answers" in rating.buttons.why_label.text()
    assert rating.compare_button.isEnabled()  # what the reason offers is there


# ----- comparison mode and the review queue -----------------------------------------------------


def _pairs(root, n=5) -> list[AnswerPair]:
    pairs = [AnswerPair(prompt=f"问题{i}？", a=f"回答甲{i}", b=f"回答乙{i}", reference=f"参考{i}", run="run-q",
                        checkpoint="final", generation={"mode": "sample", "temperature": 0.9, "seed_a": 0,
                                                        "seed_b": 1}) for i in range(n)]
    if n > 3:
        pairs[3] = AnswerPair(prompt="问题3？", a="一样", b="一样", identical=True, run="run-q", checkpoint="final")
    feedback.remember_pairs(root, pairs)
    return pairs


def _fake_pairs(background, monkeypatch, pairs):
    """``feedback pairs --json``: a progress line, then the pairs as its last line."""
    asked = []
    script = ("import json, sys\n"
              "print(json.dumps({'event': 'progress', 'stage': 'answers a', 'done': 1, 'total': 2}), flush=True)\n"
              f"print({json.dumps(json.dumps({'pairs': [p.to_dict() for p in pairs]}))}, flush=True)\n")

    def command(args, title):
        asked.append(args)
        return background.process([sys.executable, "-c", script], title, "feedback")

    monkeypatch.setattr(background, "command", command)
    return asked


def _key(qtbot, page, key: str) -> None:
    _written(qtbot, page, lambda: qtbot.keyClicks(page.compare.panel, key))


def test_comparison_keys_record_choices_ties_rewrites_and_skips(qtbot, session, background, qa_project,
                                                               monkeypatch):
    pairs = _pairs(qa_project)
    asked = _fake_pairs(background, monkeypatch, pairs)
    page = _page(qtbot, session, background, qa_project)
    page.show()
    qtbot.waitExposed(page)
    page.tabs.setCurrentWidget(page.compare)
    tab = page.compare
    tab.rows_spin.setValue(5)
    tab.split_combo.setCurrentIndex(tab.split_combo.findData("train"))
    with qtbot.waitSignal(background.op_finished, timeout=30000):
        tab.start()
    args = build_parser().parse_args(asked[0])
    assert (args.feedback_command, args.run, args.rows, args.split, args.json) == ("pairs", "run-q", 5, "train", True)
    panel = tab.panel
    assert panel.isVisible() and panel.position.text() == "Question 1 of 5 · 0 judged, 0 skipped"
    assert panel.reference.text() == "The answer in the data: 参考0"
    assert [b.toPlainText() for b in panel.answer_boxes] == ["回答甲0", "回答乙0"]

    _key(qtbot, page, "1")
    _key(qtbot, page, "s")
    assert panel.position.text() == "Question 3 of 5 · 1 judged, 1 skipped"
    _key(qtbot, page, "=")
    assert panel.identical.isVisible() and not panel.buttons["a"].isEnabled()  # pair 4: the same answer twice
    _key(qtbot, page, "1")  # no choice between one answer and itself
    assert panel.index == 3
    qtbot.keyClicks(panel, "e")
    dialog = _dialog(qtbot)
    dialog.editor.setPlainText("更好的回答")
    _written(qtbot, page, dialog.accept)
    _key(qtbot, page, "2")
    assert "skipped 1 of 5" in panel.end_text.text() and panel.again_button.isVisible()
    assert panel.position.text() == "Judged 4 of 5, skipped 1"
    panel.again_button.click()
    assert panel.index == 1  # the skipped one, come back to
    _key(qtbot, page, "2")
    assert panel.end_text.text().startswith("Every question is judged")

    items = feedback.load(qa_project)
    choices = {j.pair_id: j.choice for j in items if j.kind == "choice"}
    assert choices == {pairs[0].pair_id: "a", pairs[1].pair_id: "b", pairs[2].pair_id: "tie", pairs[4].pair_id: "b"}
    rewrites = [j for j in items if j.kind == "rating"]
    assert [(j.pair_id, j.answers, j.rating, j.rewrite) for j in rewrites] == [(pairs[3].pair_id, ["一样"], -1, "更好的回答")]
    first = next(j for j in items if j.pair_id == pairs[0].pair_id)
    assert (first.answers, first.reference, first.run, first.checkpoint, first.source) == (
        ["回答甲0", "回答乙0"], "参考0", "run-q", "final", "window")
    assert first.generation["temperature"] == 0.9

    # back to a judged pair and a change of mind: one judgement in force for it
    panel.previous()
    assert panel.index == 4 and panel.buttons["b"].isChecked()
    _key(qtbot, page, "1")
    mine = [j for j in feedback.load(qa_project) if j.pair_id == pairs[4].pair_id]
    assert [j.choice for j in mine] == ["a"]


def test_a_better_answer_to_two_answers_is_preferred_to_each(qtbot, session, background, qa_project, monkeypatch):
    from workbench.core.preference import preference_pairs

    pairs = _pairs(qa_project, 1)
    _fake_pairs(background, monkeypatch, pairs)
    page = _page(qtbot, session, background, qa_project)
    page.show()
    with qtbot.waitSignal(background.op_finished, timeout=30000):
        page.compare.start()
    page.compare.panel.act("rewrite")
    dialog = _dialog(qtbot)
    assert [b.toPlainText() for b in dialog.findChildren(type(dialog.editor)) if b.isReadOnly()] == [
        "问题0？", "回答甲0", "回答乙0"]
    dialog.editor.setPlainText("我的回答")
    _written(qtbot, page, dialog.accept)
    made, _ = preference_pairs(feedback.load(qa_project))
    assert [(p.chosen, p.rejected) for p in made] == [("我的回答", "回答甲0"), ("我的回答", "回答乙0")]


def test_the_playground_compares_two_answers_to_its_question(qtbot, session, background, qa_project, monkeypatch):
    pairs = [AnswerPair(prompt="-开户要带什么？", a="身份证", b="身份证和银行卡", run="run-q", checkpoint="final")]
    feedback.remember_pairs(qa_project, pairs)
    asked = _fake_pairs(background, monkeypatch, pairs)
    page = _page(qtbot, session, background, qa_project)
    page.prompt_edit.setText("-开户要带什么？")
    with qtbot.waitSignal(background.op_finished, timeout=30000):
        page.playground_rating.compare_button.click()
    args = build_parser().parse_args(asked[0])
    assert (args.feedback_command, args.question, args.rows) == ("pairs", "-开户要带什么？", None)
    assert page.tabs.currentWidget() is page.compare
    assert page.compare.panel.position.text() == "Question 1 of 1 · 0 judged, 0 skipped"
    assert page.compare.status.text() == "Pairs of answers to judge: 1."  # seen: "1 pairs of answers to judge."
    assert not page.compare.panel.reference.isVisibleTo(page)  # a typed question has no answer in the data
    _written(qtbot, page, lambda: page.compare.panel.act("b"))
    [j] = feedback.load(qa_project)
    assert (j.choice, j.prompt, j.pair_id) == ("b", "-开户要带什么？", pairs[0].pair_id)


def test_the_review_queues_command_lines_are_the_parsers(qtbot, session, background, qa_project, tmp_path):
    page = _page(qtbot, session, background, qa_project)
    tab = page.compare
    # seen: sampling again showed the same questions with the same two answers (the seed was always 0)
    seeds = {build_parser().parse_args(tab.args("run-q")).seed for _ in range(4)}
    seeds |= {build_parser().parse_args(tab.question_args("run-q", "问")).seed for _ in range(4)}
    assert len(seeds) > 4
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps({"prompt": "开户要带什么？"}, ensure_ascii=False) + "\n", encoding="utf-8")
    tab.questions_file = questions
    tab.split_combo.setCurrentIndex(tab.split_combo.findData("file"))
    tab.rows_spin.setValue(7)
    args = build_parser().parse_args(tab.args("run-q"))
    assert (args.project, args.run, args.rows, args.split) == (str(qa_project), "run-q", 7, str(questions))
    args = build_parser().parse_args(tab.question_args("run-q", "--help"))
    assert args.question == "--help" and args.rows is None


# ----- the Feedback tab -------------------------------------------------------------------------


def test_the_feedback_tab_lists_counts_and_takes_back(qtbot, session, background, qa_project):
    feedback.append(qa_project, [
        Judgement(kind="choice", prompt="问一", answers=["甲", "乙"], choice="a", run="run-q", source="window"),
        Judgement(kind="choice", prompt="问二", answers=["甲", "乙"], choice="tie", run="run-q"),
        Judgement(kind="rating", prompt="问三", answers=["坏"], rating=-1, rewrite="好", run="run-q"),
        Judgement(kind="rating", prompt="问四", answers=["好答"], rating=1, run="run-2")])
    page = _page(qtbot, session, background, qa_project)
    tab = page.feedback
    assert page.tabs.isTabVisible(page.tabs.indexOf(tab))
    assert tab.table.rowCount() == 4
    rows = {tab.table.item(r, 2).text(): [tab.table.item(r, c).text() for c in range(6)] for r in range(4)}
    assert rows["问一"][1] == "run-q" and rows["问一"][3] == "1: 甲\n2: 乙" and rows["问一"][4] == "answer 1 is better"
    assert rows["问二"][4] == "a tie" and rows["问三"][4:] == ["bad", "好"] and rows["问四"][4] == "good"
    counts = {tab.counts_table.item(r, 0).text(): [tab.counts_table.item(r, c).text() for c in range(1, 6)]
              for r in range(tab.counts_table.rowCount())}
    assert counts == {"run-q": ["1", "1", "0", "1", "1"], "run-2": ["0", "0", "1", "0", "0"]}
    assert tab.summary.text() == (
        "Judgements in force: 4. Preference pairs they make to tune on: 2 (1 from choices, 1 from better answers, "
        "0 from good and bad answers to the same question).\nAnswers rated good with no bad answer to the same "
        "question beside them make no pair: 1.")

    row = next(r for r in range(4) if tab.table.item(r, 2).text() == "问一")
    tab.table.selectRow(row)
    assert tab.undo_button.isEnabled()
    _written(qtbot, page, tab.undo_button.click)
    assert sorted(j.prompt for j in feedback.load(qa_project)) == ["问三", "问二", "问四"]
    assert tab.table.rowCount() == 3 and "make to tune on: 1 (" in tab.summary.text()
    row = next(r for r in range(3) if tab.table.item(r, 2).text() == "问三")
    assert 0 < row < 2
    tab.table.selectRow(row)
    _written(qtbot, page, tab.undo_button.click)
    assert sorted(j.prompt for j in feedback.load(qa_project)) == ["问二", "问四"]
    # seen in the window: the row below moved up into the selection, one click from being taken back too
    assert tab.selected_ids() == [] and not tab.undo_button.isEnabled()

    # a rating given on the samples appears at once
    page.samples_view.setCurrentIndex(page.samples_model.index(0, 0))
    _written(qtbot, page, page.ratings.buttons.good_button.click)
    assert tab.table.rowCount() == 3


def test_the_feedback_tab_fits_a_laptop_screen(qtbot, laptop_window, qa_project):
    """Seen at 1366 x 768: the judgements' last column ("Your better answer") was cut off behind a
    sideways scroll bar, and the counts' last column stretched over the page, its number far right."""
    feedback.append(qa_project, [
        Judgement(kind="choice", prompt="问一", answers=["甲", "乙"], choice="a", run="run-q"),
        Judgement(kind="rating", prompt="问三", answers=["坏"], rating=-1, rewrite="好", run="run-q")])
    w = laptop_window(qa_project)
    w.show_step("evaluate")
    page = w.pages["evaluate"]
    page.tabs.setCurrentWidget(page.feedback)
    qtbot.wait(50)
    table, counts = page.feedback.table, page.feedback.counts_table
    assert table.horizontalHeader().length() <= table.viewport().width()
    assert counts.horizontalHeader().sectionSize(5) < 200


def test_the_empty_answers_reason_wraps_within_a_laptop_screen(qtbot, laptop_window, qa_project):
    """Seen at 1366 x 768: the reason, on one line beside the buttons, widened the window past the
    screen, cutting off the page's right side."""
    path = qa_project / "runs" / "run-q" / "eval" / "predictions.csv"
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[0, "prediction"] = ""
    frame.to_csv(path, index=False, encoding="utf-8-sig")
    w = laptop_window(qa_project)
    w.show_step("evaluate")
    page = w.pages["evaluate"]
    page.tabs.setCurrentWidget(page.tabs.widget(1))
    qtbot.waitUntil(lambda: page.samples_model.rowCount() > 0, timeout=10000)
    page.samples_view.setCurrentIndex(page.samples_model.index(0, 0))
    qtbot.wait(50)
    assert not page.ratings.buttons.why_label.isHidden()
    assert w.minimumSizeHint().width() <= 1366 and w.width() <= 1366


# ----- a classification project -----------------------------------------------------------------


def test_a_classification_project_shows_no_rating_controls(qtbot, session, background, sample_project):
    run = finished_run(sample_project, "run-c")
    path = Project.open(sample_project).split_path("test")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()][:4]
    (run / "eval").mkdir()
    (run / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-c", "task": "classification", "input": "fields", "metrics": {"accuracy": 1.0}}), encoding="utf-8")
    pd.DataFrame({"row_id": [r["row_id"] for r in rows], "input": [r["text"] for r in rows],
                  "reference": [r["label"] for r in rows], "prediction": [r["label"] for r in rows],
                  "correct": [True] * len(rows)}).to_csv(run / "eval" / "predictions.csv", index=False,
                                                         encoding="utf-8-sig")
    page = _page(qtbot, session, background, sample_project)
    assert not page.tabs.isTabVisible(page.tabs.indexOf(page.compare))
    assert not page.tabs.isTabVisible(page.tabs.indexOf(page.feedback))
    assert page.playground_rating.isHidden()
    assert page.ratings.bar.isHidden() and RATING_COLUMN not in page.samples_model.frame.columns
    assert "Good answer" not in [a.text() for a in page.corrections.menu(0).actions()]


# ----- in Chinese -------------------------------------------------------------------------------


def test_the_judging_parts_in_chinese_have_no_english_and_follow_a_switch(qtbot, tmp_path, qa_project):
    from test_chinese_pages import _data_words, _english, _texts
    from test_language import _diff, _texts_of_every_page, _window_on_every_page

    from workbench.gui import i18n

    row = pd.read_csv(qa_project / "runs" / "run-q" / "eval" / "predictions.csv", dtype=str).iloc[0]
    feedback.append(qa_project, [
        Judgement(kind="rating", prompt=row["input"], answers=[row["prediction"]], rating=-1, rewrite="更好的回答",
                  run="run-q"),
        Judgement(kind="choice", prompt="问一", answers=["甲", "乙"], choice="tie", run="run-q"),
        Judgement(kind="rating", prompt="问二", answers=["好答"], rating=1, run="run-q")])
    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        fresh = _window_on_every_page(qtbot, tmp_path, "fresh", qa_project)
        page = fresh.pages["evaluate"]
        assert page.tabs.isTabVisible(page.tabs.indexOf(page.feedback)) and page.feedback.table.rowCount() == 3
        assert page.samples_model.index(0, page.ratings.column).data() == "差，已改写"
        # the data version's hash is the project's data too
        words = _data_words(qa_project) | {w for v in (qa_project / "data" / "versions").iterdir()
                                            for w in re.findall("[A-Za-z]+", v.name)}
        english = _english(_texts(fresh), words)
        assert not english, english[:15]
        # seen: "…0 个来自同一问题下评为好和差的回答）。 评为好…": Chinese puts no space between sentences
        assert "。 " not in page.feedback.summary.text() and "不构成偏好对" in page.feedback.summary.text()

        i18n.install(app, "en")
        win = _window_on_every_page(qtbot, tmp_path, "switched", qa_project)
        i18n.install(app, "zh_CN")
        qtbot.waitUntil(lambda: win._language == "zh_CN", timeout=5000)
        qtbot.waitUntil(lambda: not win.background.active, timeout=30000)
        qtbot.wait(100)
        switched, again = _texts_of_every_page(win), _texts_of_every_page(fresh)
        assert switched == again, _diff(switched, again)
        assert win.pages["evaluate"].samples_model.index(0, page.ratings.column).data() == "差，已改写"
    finally:
        i18n.install(app, "en")
