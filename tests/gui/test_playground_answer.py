"""The playground's answer to a classification question: the label and the most likely labels,
without the label printed once more at the end.

Seen with the built-in classifier: "Most likely: 负面 96.6%  ·  正面 3.4%负面" (and in Chinese
"正面 2.1%负面"): the engine's stream ends a classifier's answer with the label as text.
"""

from __future__ import annotations

import json

from workbench.gui.pages.evaluate.page import EvaluatePage


def _feed(page: EvaluatePage, *events: dict) -> str:
    page.answer.clear()
    page.playground._labelled = False
    for ev in events:
        page.playground._on_play_line(json.dumps(ev, ensure_ascii=False))
    return page.answer.toPlainText()


def test_a_classifiers_answer_ends_with_its_probabilities(qtbot, session, background):
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    text = _feed(page,
                 {"event": "labels", "id": 1, "probabilities": {"正面": 0.034, "负面": 0.966}, "label": "负面"},
                 {"event": "token", "id": 1, "text": "负面"},
                 {"event": "done", "id": 1, "text": "负面", "tokens": 0, "seconds": 0.1})
    assert text == "Label: 负面\nMost likely: 负面 96.6%  ·  正面 3.4%"


def test_a_generated_answer_and_its_label_are_on_lines_of_their_own(qtbot, session, background):
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    text = _feed(page,
                 {"event": "token", "id": 1, "text": "正"},
                 {"event": "token", "id": 1, "text": "面"},
                 {"event": "labels", "id": 1, "probabilities": {"正面": 0.9, "负面": 0.1}, "label": "正面"},
                 {"event": "done", "id": 1, "text": "正面", "tokens": 2, "seconds": 0.1})
    assert text == "正面\nLabel: 正面\nMost likely: 正面 90.0%  ·  负面 10.0%"


_SLOW_ANSWER = """
import json, sys, time
time.sleep(float(sys.argv[1]))
print(json.dumps({"event": "labels", "id": 1, "probabilities": {"正面": 0.9, "负面": 0.1}, "label": "正面"}), flush=True)
print(json.dumps({"event": "done", "id": 1, "text": "正面", "tokens": 0, "seconds": 0.1}), flush=True)
"""


def test_the_playground_shows_it_is_working(qtbot, session, background, sample_project, monkeypatch):
    """Seen: an answer took 15 s on the built-in model and 41 s to Gemma's first words, with
    nothing on screen saying that the model was working."""
    import sys

    from trained_factory import finished_run

    finished_run(sample_project, "run-x")
    session.open(sample_project)
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    page.show()
    delays = iter(["3", "0.3"])
    monkeypatch.setattr(background, "command", lambda args, title: background.process(
        [sys.executable, "-c", _SLOW_ANSWER, next(delays)], title, "playground"))
    page.prompt_edit.setText("央行宣布降准")
    page._on_generate_clicked()
    assert not page.play_progress.isHidden() and page.play_progress.label.text() == "Asking the model"
    page._on_generate_clicked()  # asked again: the first answer is dropped, the indicator stays
    with qtbot.waitSignal(page.playground_finished, timeout=30000):
        pass
    assert page.play_progress.isHidden()
    assert page.answer.toPlainText().startswith("Label: 正面")
