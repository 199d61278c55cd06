"""Correcting test rows' labels from the Evaluate page's samples: the menu on a row (and F2),
what is recorded, how a corrected row looks, and why rows that cannot be corrected say so."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMenu

from workbench.core import corrections
from workbench.core.jobs import JobSpec, write_job
from workbench.core.operations.corrections import pending
from workbench.core.project import Project
from workbench.core.runs import EventWriter
from workbench.gui.pages.evaluate.page import EvaluatePage


def _test_rows(root) -> list[dict]:
    path = Project.open(root).split_path("test")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _run(root, run_id: str, version: str | None, lr: float = 2e-3):
    """A completed run folder (no training) that records data version ``version``."""
    run_dir = root / "runs" / run_id
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full", learning_rate=lr, max_steps=10,
                               data_version=version))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=10, device="cpu")
    ev.emit("step", step=5, loss=1.0, lr=lr)
    ev.emit("end", status="completed", error=None)
    ev.close()
    (run_dir / "final").mkdir()
    (run_dir / "final" / "workbench_run.json").write_text("{}", encoding="utf-8")
    return run_dir


def _evaluation(run_dir, rows: list[dict], with_ids: bool = True, task: str = "classification") -> None:
    """What ``workbench eval`` writes for ``rows`` (the model answers the first row wrong)."""
    labels = ["正面", "中性", "负面"]
    predictions = [r["label"] for r in rows]
    predictions[0] = next(x for x in labels if x != rows[0]["label"])
    (run_dir / "eval").mkdir(exist_ok=True)
    (run_dir / "eval" / "metrics.json").write_text(json.dumps({
        "run": run_dir.name, "task": task, "split": "test", "rows": len(rows), "input": "fields",
        "base_model": "builtin:tiny", "method": "full", "metrics": {"accuracy": 0.9, "labels": labels}}),
        encoding="utf-8")
    frame = pd.DataFrame({"input": [r["text"] for r in rows], "reference": [r["label"] for r in rows],
                          "prediction": predictions, "correct": [p == r["label"] for p, r in zip(predictions, rows)]})
    if with_ids:
        frame.insert(0, "row_id", [r["row_id"] for r in rows])
    frame.to_csv(run_dir / "eval" / "predictions.csv", index=False, encoding="utf-8-sig")


def _evaluate_page(qtbot, session, background, root) -> EvaluatePage:
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(root)
    qtbot.waitUntil(lambda: page.predictions is not None and len(page.predictions) > 0, timeout=10000)
    return page


def _labels_menu(menu: QMenu) -> QMenu:
    return next(a.menu() for a in menu.actions() if a.menu() is not None)


def _action(menu: QMenu, text: str):
    return next(a for a in menu.actions() if a.text() == text)


def _reference_cell(page: EvaluatePage, row: int):
    model = page.samples_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert page.corrections.reference_column == headers.index("expected" if "expected" in headers else "参考答案")
    return model.index(row, page.corrections.reference_column)


def _wait_recorded(qtbot, page, fn):
    with qtbot.waitSignal(page.corrections.recorded, timeout=10000):
        fn()




@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A real tiny run of the sample project, evaluated in this process."""
    pytest.importorskip("paddle")
    from trained_factory import train_run
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog
    from workbench.engine.evaluation.evaluate import evaluate_run

    spec = TemplateCatalog().get("finance_sentiment")
    project, _ = prepare(spec, spec.sample_path, tmp_path_factory.mktemp("corrections") / "p")
    train_run(project, "run-1", steps=2)
    evaluate_run(project.root, "run-1", write_report=False)
    return project.root


@pytest.mark.slow
def test_a_row_of_a_real_evaluation_is_corrected_from_the_samples_menu(qtbot, session, background, trained):
    page = _evaluate_page(qtbot, session, background, trained)
    _correct_exclude_undo(qtbot, page, trained)


def test_a_test_row_is_corrected_excluded_and_undone_from_the_samples_menu(qtbot, session, background,
                                                                          sample_project):
    run = _run(sample_project, "run-a", Project.open(sample_project).config.data_version)
    _evaluation(run, _test_rows(sample_project)[:8])
    page = _evaluate_page(qtbot, session, background, sample_project)
    _correct_exclude_undo(qtbot, page, sample_project)


def _correct_exclude_undo(qtbot, page, trained):
    assert "row_id" in page.predictions.columns  # as eval wrote them ...
    assert "row_id" not in page.samples_model.frame.columns  # ... but not a column to read
    assert page.corrections.reason is None
    assert "Right-click the row" in page.corrections_note.text()
    rid, reference, predicted = (page.predictions.loc[0, c] for c in ("row_id", "reference", "prediction"))

    menu = page.corrections.menu(0)
    labels = _labels_menu(menu)
    first = labels.actions()[0]
    assert first.data() == predicted and "(the model's answer)" in first.text()  # the model's answer first
    assert [a.data() for a in labels.actions() if a.data()].count(reference) == 1
    current = next(a for a in labels.actions() if a.data() == reference)
    assert current.isChecked() and not current.isEnabled()
    assert not _action(menu, "Undo my correction").isEnabled()
    new = next(a.data() for a in labels.actions() if a.data() and a.data() != reference)
    _wait_recorded(qtbot, page, lambda: next(a for a in labels.actions() if a.data() == new).trigger())

    recorded = corrections.load(trained)
    assert recorded[rid].label == new and recorded[rid].original == reference
    assert recorded[rid].source == "predictions" and recorded[rid].split == "test"
    assert pending(trained) == 1
    assert Project.open(trained).config.data_version == Project.open(trained).config.data_base  # recorded only
    cell = _reference_cell(page, 0)
    assert cell.data() == new and reference in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert cell.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert "Corrections not in the data yet: 1." in page.corrections_note.text()

    # another row excluded, then the first correction undone
    other = page.predictions.loc[1, "row_id"]
    _wait_recorded(qtbot, page, lambda: _action(page.corrections.menu(1), "Exclude this row").trigger())
    assert corrections.load(trained)[other].action == "exclude" and pending(trained) == 2
    assert "(excluded)" in _reference_cell(page, 1).data()
    menu = page.corrections.menu(0)
    assert next(a for a in _labels_menu(menu).actions() if a.data() == new).isChecked()
    _wait_recorded(qtbot, page, lambda: _action(menu, "Undo my correction").trigger())
    assert rid not in corrections.load(trained) and pending(trained) == 1
    assert _reference_cell(page, 0).data() == reference
    assert _reference_cell(page, 0).data(Qt.ItemDataRole.BackgroundRole) is None


def test_f2_opens_the_corrections_menu_on_the_selected_row(qtbot, session, background, tmp_path, sample_project):
    run = _run(sample_project, "run-a", Project.open(sample_project).config.data_version)
    _evaluation(run, _test_rows(sample_project)[:6])
    page = _evaluate_page(qtbot, session, background, sample_project)
    page.show()
    qtbot.waitExposed(page)
    page.tabs.setCurrentIndex(1)
    page.samples_view.setFocus()
    page.samples_view.setCurrentIndex(page.samples_model.index(2, 0))
    qtbot.keyClick(page.samples_view, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=5000)
    popup = QApplication.activePopupWidget()
    try:
        assert [a.text() for a in popup.actions() if a.text()] == [
            "Correct the label to…", "Exclude this row", "Undo my correction"]
    finally:
        popup.close()


def test_rows_without_ids_or_a_project_that_writes_answers_are_not_corrected(qtbot, session, background,
                                                                             sample_project, tmp_path):
    run = _run(sample_project, "run-a", Project.open(sample_project).config.data_version)
    _evaluation(run, _test_rows(sample_project)[:5], with_ids=False)  # evaluated before rows had ids
    page = _evaluate_page(qtbot, session, background, sample_project)
    menu = page.corrections.menu(0)
    for action in menu.actions():
        if action.text():
            assert not action.isEnabled() and "Evaluate the run again" in action.toolTip()
    assert page.corrections_note.isHidden()

    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    spec = TemplateCatalog().get("finance_service_qa")
    root = tmp_path / "projects" / "qa"
    prepare(spec, spec.sample_path, root)
    rows = [{"text": r.get("instruction", ""), "label": "x", "row_id": r["row_id"]} for r in _test_rows(root)[:3]]
    _evaluation(_run(root, "run-q", None), rows, task="instruction")
    session.open(root)
    qtbot.waitUntil(lambda: len(page.predictions) == 3, timeout=10000)
    tip = _action(page.corrections.menu(0), "Exclude this row").toolTip()
    assert tip == "Corrections are for the labels of a classification project; this project writes answers."


def _contrast(image, rect) -> int:
    """How far the text in ``rect`` of ``image`` stands out from the background at its right end."""
    ground = image.pixelColor(rect.right() - 3, rect.center().y()).lightness()
    return max(abs(image.pixelColor(x, y).lightness() - ground) for x in range(rect.left(), rect.right(), 2)
               for y in range(rect.top(), rect.bottom()))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_disabled_item_of_the_menu_looks_disabled(qtbot, session, background, sample_project, qapp, theme):
    """Seen in the window: "Undo my correction" on a row never corrected was disabled but drawn
    like the items beside it, as the style sheet gave every widget's text one colour."""
    from workbench.gui.resources import stylesheet

    run = _run(sample_project, "run-a", Project.open(sample_project).config.data_version)
    _evaluation(run, _test_rows(sample_project)[:4])
    sheet = qapp.styleSheet()
    qapp.setStyleSheet(stylesheet(theme))
    try:
        page = _evaluate_page(qtbot, session, background, sample_project)
        menu = page.corrections.menu(0)
        exclude, undo = _action(menu, "Exclude this row"), _action(menu, "Undo my correction")
        assert exclude.isEnabled() and not undo.isEnabled()
        menu.popup(page.mapToGlobal(page.rect().center()))
        qtbot.waitExposed(menu)
        image = menu.grab().toImage()
        menu.close()
        enabled, disabled = (_contrast(image, menu.actionGeometry(a)) for a in (exclude, undo))
        assert disabled < enabled - 40, (enabled, disabled)  # the disabled text stands out less
    finally:
        qapp.setStyleSheet(sheet)


def test_choosing_the_files_own_label_again_undoes_the_correction(qtbot, session, background, sample_project):
    """Seen in the window: a row corrected, then given back the label its file has, stayed
    "corrected" ("Your correction: 中性. The file says 中性.") and counted as waiting."""
    run = _run(sample_project, "run-a", Project.open(sample_project).config.data_version)
    _evaluation(run, _test_rows(sample_project)[:4])
    page = _evaluate_page(qtbot, session, background, sample_project)
    rid, reference = page.predictions.loc[2, "row_id"], page.predictions.loc[2, "reference"]
    other = next(x for x in ("正面", "中性", "负面") if x != reference)
    _wait_recorded(qtbot, page, lambda: page.corrections.correct(2, other))
    assert corrections.load(sample_project)[rid].label == other
    back = next(a for a in _labels_menu(page.corrections.menu(2)).actions() if a.data() == reference)
    assert back.isEnabled()
    _wait_recorded(qtbot, page, back.trigger)
    assert rid not in corrections.load(sample_project) and pending(sample_project) == 0
    assert _reference_cell(page, 2).data() == reference


def _cell(page: EvaluatePage, row: int, title: str):
    model = page.samples_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    return model.index(row, headers.index(title))


def test_the_samples_score_a_corrected_row_against_its_correction(qtbot, session, background, sample_project):
    """Seen in the window: after a test row's label was corrected, its "correct" cell and the
    "Wrong only" filter still scored the row against the label the run was evaluated with."""
    run = _run(sample_project, "run-a", Project.open(sample_project).config.data_version)
    _evaluation(run, _test_rows(sample_project)[:6])  # the model answers the first row wrong
    page = _evaluate_page(qtbot, session, background, sample_project)
    accuracy = page.cards["accuracy"].value_label.text()
    page.wrong_only.setChecked(True)
    assert [page.samples_model.position(r) for r in range(page.samples_model.rowCount())] == [0]

    # the model was right after all: the person gives its answer as the row's label
    _wait_recorded(qtbot, page, lambda: page.corrections.correct(0, page.predictions.loc[0, "prediction"]))
    assert page.samples_model.rowCount() == 0, "no answer is wrong against the labels the person gave"
    # a right answer whose label is corrected to another is wrong now
    reference = page.predictions.loc[1, "reference"]
    other = next(x for x in ("正面", "中性", "负面") if x != reference)
    _wait_recorded(qtbot, page, lambda: page.corrections.correct(1, other))
    assert [page.samples_model.position(r) for r in range(page.samples_model.rowCount())] == [1]
    page.wrong_only.setChecked(False)
    first, second = _cell(page, 0, "correct"), _cell(page, 1, "correct")
    assert (first.data(), second.data()) == ("yes", "no")
    assert first.data(Qt.ItemDataRole.BackgroundRole) is not None
    assert f"The evaluation scored it against {page.predictions.loc[0, 'reference']}: no" in first.data(
        Qt.ItemDataRole.ToolTipRole)
    assert _cell(page, 2, "correct").data(Qt.ItemDataRole.BackgroundRole) is None, "an uncorrected row keeps its own"
    assert not page.rescored_note.isHidden()
    assert "scored against your corrected label in the samples: 2" in page.rescored_note.text()
    assert "The figures above keep the labels this evaluation used" in page.rescored_note.text()
    assert page.cards["accuracy"].value_label.text() == accuracy, "the metrics stay the evaluation's"

    # undone: the row is scored as the evaluation scored it
    _wait_recorded(qtbot, page, lambda: page.corrections.undo(0))
    assert _cell(page, 0, "correct").data() == "no" and "samples: 1" in page.rescored_note.text()
    page.wrong_only.setChecked(True)
    assert [page.samples_model.position(r) for r in range(page.samples_model.rowCount())] == [0, 1]
    _wait_recorded(qtbot, page, lambda: page.corrections.undo(1))
    assert [page.samples_model.position(r) for r in range(page.samples_model.rowCount())] == [0]
    assert page.rescored_note.isHidden(), "no row is scored otherwise than the evaluation did"
