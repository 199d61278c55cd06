"""Judging a real run's answers in the window: a tiny instruction run of the built-in model, its
pairs sampled by the real ``workbench feedback pairs`` child (N validation rows, and one question
typed in the playground), judged with the keys; the playground's real answer rated."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from trained_factory import INST, RUN, train_run
from workbench.core import feedback
from workbench.core.preference import preference_pairs
from workbench.core.project import SplitSettings, prepare
from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.evaluate.judging import BetterAnswerDialog
from workbench.gui.pages.evaluate.page import EvaluatePage

pytestmark = pytest.mark.slow  # a real training run and model children: `make test-slow`


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The Q&A template's sample and 40 steps of the built-in tiny model: enough for it to write
    something greedily (after 4 it ends every answer at once, and an empty answer is not rated)."""
    pytest.importorskip("paddle")
    template = TemplateCatalog().get(INST)
    project, _ = prepare(template, template.sample_path, tmp_path_factory.mktemp("judgements") / "qa",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    train_run(project, RUN, steps=40)
    return project


def _written(qtbot, page, fn):
    fn()
    qtbot.waitUntil(lambda: not page.judging.busy, timeout=10000)


def _page(qtbot, session, background, project) -> EvaluatePage:
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(project.root)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == RUN, timeout=10000)
    return page


def test_real_pairs_are_judged_with_the_keys(qtbot, session, background, project):
    page = _page(qtbot, session, background, project)
    tab, panel = page.compare, page.compare.panel
    page.tabs.setCurrentWidget(tab)
    tab.rows_spin.setValue(4)
    with qtbot.waitSignal(background.op_finished, timeout=300000):
        tab.start()
    assert panel.isVisible(), tab.status.text()
    pairs = list(panel.pairs)
    assert len(pairs) == 4 and all(p.run == RUN and p.checkpoint for p in pairs)
    assert all(p.reference for p in pairs), "validation rows have their answer in the data"
    assert all(p.a.strip() != p.b.strip() or p.identical for p in pairs)

    def key(k):
        _written(qtbot, page, lambda: qtbot.keyClicks(panel, k))

    verdicts = []
    for pair in pairs:
        assert panel.current is pair
        if pair.identical:  # said to be the same answer; no choice between it and itself
            assert panel.identical.isVisible() and not panel.buttons["a"].isEnabled()
        if not verdicts:
            key("s")
            verdicts.append("skip")
        elif len(verdicts) == 1:
            qtbot.keyClicks(panel, "e")
            qtbot.waitUntil(lambda: any(isinstance(w, BetterAnswerDialog) and w.isVisible()
                                        for w in QApplication.topLevelWidgets()), timeout=5000)
            dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, BetterAnswerDialog)
                          and w.isVisible())
            dialog.editor.setPlainText("您好，请通过官方渠道办理。")
            _written(qtbot, page, dialog.accept)
            verdicts.append("rewrite")
        elif len(verdicts) == 2:
            key("=")
            verdicts.append("tie")
        else:
            key("2" if not pair.identical else "=")
            verdicts.append("b" if not pair.identical else "tie")
    assert panel.again_button.isVisible()  # the first was skipped
    panel.again_button.click()
    assert panel.current is pairs[0]
    key("1" if not pairs[0].identical else "=")

    items = feedback.load(project.root)
    by_pair = {}
    for j in items:
        by_pair.setdefault(j.pair_id, []).append(j)
    assert set(by_pair) == {p.pair_id for p in pairs}
    assert all(j.run == RUN and j.source == "window" and j.generation["mode"] == "sample" for j in items)
    rewritten = by_pair[pairs[1].pair_id]
    assert all(j.kind == "rating" and j.rating == -1 and j.rewrite == "您好，请通过官方渠道办理。" for j in rewritten)
    assert by_pair[pairs[2].pair_id][0].choice == "tie"
    made, counts = preference_pairs(items)
    assert counts.from_rewrites == len(rewritten) and counts.ties >= 1
    assert page.feedback.table.rowCount() == len(items)


def test_a_typed_question_is_compared_and_a_real_answer_rated(qtbot, session, background, project):
    page = _page(qtbot, session, background, project)
    before = len(feedback.load(project.root))
    page.prompt_edit.setText("转账限额是多少？")
    with qtbot.waitSignal(page.playground_finished, timeout=300000):
        page._on_generate_clicked()
    rating = page.playground_rating
    assert rating.ref is not None, page.answer.toPlainText()
    assert rating.ref.run == RUN and rating.ref.checkpoint and rating.ref.generation["mode"] == "greedy"
    _written(qtbot, page, rating.buttons.bad_button.click)
    _written(qtbot, page, rating.buttons.good_button.click)
    mine = [j for j in feedback.load(project.root) if j.kind == "rating" and j.source == "window" and not j.pair_id]
    assert len(mine) == 1 and mine[0].rating == 1 and mine[0].prompt.startswith("转账限额是多少？")

    with qtbot.waitSignal(background.op_finished, timeout=300000):
        rating.compare_button.click()
    panel = page.compare.panel
    assert page.tabs.currentWidget() is page.compare and len(panel.pairs) == 1, page.compare.status.text()
    pair = panel.pairs[0]
    assert pair.prompt == mine[0].prompt and pair.reference is None  # the same user turn as the playground's
    _written(qtbot, page, lambda: qtbot.keyClicks(panel, "=" if pair.identical else "1"))
    assert len(feedback.load(project.root)) == before + 2
