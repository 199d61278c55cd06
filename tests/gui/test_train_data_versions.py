"""The data versions on the Train page: the version each run trained on, what a new run trains
on, compared runs scored on test labels that differ, and training again once a person corrected
labels on the Evaluate page."""

from __future__ import annotations

import subprocess
import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from test_evaluate_corrections import _evaluate_page, _evaluation, _labels_menu, _reference_cell, _run, _test_rows
from workbench.core.jobs import read_job, write_job
from workbench.core.operations.corrections import correct, pending
from workbench.core.project import Project
from workbench.core.versions import read_version
from workbench.gui.pages.train.page import TrainPage


def _two_versions(root):
    """Run run-a on the prepared data, a test row corrected and written, run run-b on that version."""
    before = Project.open(root).config.data_version
    _run(root, "run-a", before, lr=1e-3)
    row = _test_rows(root)[0]
    other = next(x for x in ("正面", "中性", "负面") if x != row["label"])
    after = correct(root, [(row["row_id"], other)], source="predictions").version
    _run(root, "run-b", after, lr=2e-3)
    return before, after


def test_the_runs_list_shows_each_runs_data_version_and_the_comparison_says_labels_differ(
        qtbot, session, background, sample_project):
    before, after = _two_versions(sample_project)
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    table = page.runs_table
    assert table.horizontalHeaderItem(table.VERSION_COLUMN).text() == "Data"
    rows = {table.item(r, 1).text(): r for r in range(table.rowCount())}
    a, b = (table.item(rows[r], table.VERSION_COLUMN) for r in ("run-a", "run-b"))
    assert a.text() == before[:7] and b.text() == after[:7]
    assert before in a.toolTip() and "as prepared" in a.toolTip()
    assert after in b.toolTip() and "corrected labels: 1, excluded rows: 0" in b.toolTip()
    assert "New runs train on this version." in b.toolTip()
    assert f"New runs train on data version {after[:7]} (corrected labels: 1, excluded rows: 0)." \
        in page.data_note.text()

    for r in rows.values():
        table.item(r, 0).setCheckState(Qt.CheckState.Checked)
    note = page.compare_view.versions_note
    assert not note.isHidden()
    assert note.text() == ("Runs run-a and run-b were scored on test labels that differ in one row; their test "
                           "figures are not like for like.")
    diff = page.diff_table
    headers = [diff.verticalHeaderItem(r).text() for r in range(diff.rowCount())]
    assert "Data version" in headers  # named, not data_version
    table.item(rows["run-a"], 0).setCheckState(Qt.CheckState.Unchecked)
    assert note.isHidden()


def test_train_again_with_the_corrections_writes_the_version_and_starts_a_run_on_it(
        qtbot, session, background, sample_project, monkeypatch):
    from workbench.core.operations import runs as run_operations
    from workbench.gui.pages.train import page as train_page

    before = Project.open(sample_project).config.data_version
    _run(sample_project, "run-a", before, lr=1e-3)
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert page.train_again_button.isHidden()  # nothing corrected: Start is the way

    row = _test_rows(sample_project)[3]
    other = next(x for x in ("正面", "中性", "负面") if x != row["label"])
    correct(sample_project, [(row["row_id"], other)], source="predictions", write_version=False)
    session.corrections_changed.emit()  # as the Evaluate page does once it recorded them
    assert not page.train_again_button.isHidden() and page.train_again_button.isEnabled()
    assert "Corrections not in the data yet: 1." in page.data_note.text()

    procs, started = [], []

    def start_run(project, job, **_kw):  # the worker's start, without training
        run_dir = project.root / "runs" / "run-20260101-000000-agin"
        write_job(run_dir, job)
        started.append(project.config.data_version)
        proc = subprocess.Popen([sys.executable, "-c", "pass"])
        procs.append(proc)
        return run_operations.Started(run_dir, proc)

    monkeypatch.setattr(train_page.run_operations, "start_run", start_run)
    qtbot.mouseClick(page.train_again_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(started), timeout=10000)
    for proc in procs:
        proc.wait()
    now = Project.open(sample_project).config.data_version
    assert now != before and read_version(Project.open(sample_project).data_dir, now).corrected == 1
    assert started == [now] and pending(sample_project) == 0
    job, old = read_job(sample_project / "runs" / "run-20260101-000000-agin"), read_job(sample_project / "runs" / "run-a")
    assert job.data_version == now and job.resume_from is None and job.parent_run is None
    assert job.learning_rate == old.learning_rate and job.max_steps == old.max_steps  # run-a's settings
    assert page.current_run == "run-20260101-000000-agin"
    assert page.train_again_button.isHidden()  # the run chosen trains on the newest data


def test_the_corrections_texts_are_chinese_in_a_chinese_window(qtbot, session, background, sample_project):
    from test_chinese_pages import LATIN_WORD, _english

    from workbench.gui import i18n

    before, after = _two_versions(sample_project)
    rows = _test_rows(sample_project)
    correct(sample_project, [(rows[1]["row_id"], None)], source="predictions", write_version=False)
    _evaluation(sample_project / "runs" / "run-b", rows[:6])
    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        ev = _evaluate_page(qtbot, session, background, sample_project)
        train = TrainPage(session, background)
        qtbot.addWidget(train)
        for r in range(train.runs_table.rowCount()):
            train.runs_table.item(r, 0).setCheckState(Qt.CheckState.Checked)
        menu = ev.corrections.menu(1)
        texts = [ev.corrections_note.text(), train.data_note.text(), train.train_again_button.text(),
                 train.train_again_button.toolTip(), train.compare_view.versions_note.text(),
                 train.runs_table.horizontalHeaderItem(train.runs_table.VERSION_COLUMN).text(),
                 _reference_cell(ev, 1).data(), _reference_cell(ev, 1).data(Qt.ItemDataRole.ToolTipRole)]
        texts += [a.text() for a in menu.actions() if a.text()]
        texts += [a.text() for a in _labels_menu(menu).actions() if a.text()]
        for r in range(train.runs_table.rowCount()):
            texts.append(train.runs_table.item(r, train.runs_table.VERSION_COLUMN).toolTip())
        assert all(texts), texts
        english = _english([("", "", t) for t in texts], set(LATIN_WORD.findall(before + " " + after)))
        assert not english, english
        assert "更正" in train.train_again_button.text()
    finally:
        i18n.install(app, "en")


def test_the_sentence_on_differing_labels_leaves_the_curves_their_room(qtbot, styled_app, sample_project,
                                                                     laptop_window):
    """Seen at 1366x768: ticking two runs on versions whose labels differ squeezed the loss and
    learning-rate curves above the tabs to a strip, to make room for the sentence."""
    _two_versions(sample_project)
    w = laptop_window(sample_project)
    page = w.show_step("train")
    page.tabs.setCurrentWidget(page.compare_view)
    qtbot.wait(50)
    before = page.loss_plot.height()
    for r in range(page.runs_table.rowCount()):
        page.runs_table.item(r, 0).setCheckState(Qt.CheckState.Checked)
    qtbot.waitUntil(lambda: page.compare_view.versions_note.isVisible(), timeout=5000)
    qtbot.wait(50)
    assert page.loss_plot.height() >= before - 10, (before, page.loss_plot.height())
    note = page.compare_view.versions_note
    assert note.visibleRegion().boundingRect().size() == note.size()  # read whole


def test_the_compared_settings_are_named_not_shown_as_the_jobs_keys(qtbot, session, background, sample_project):
    """Seen comparing a run with the one trained again after corrections: the table of differing
    settings had rows "cpu_busy" and "cpu_cores" (the processor's load when each started, not a
    setting), named by the job file's keys, in English in the Chinese window too."""
    from workbench.core.jobs import JobSpec

    version = Project.open(sample_project).config.data_version
    for run_id, extra in (("run-a", {"cpu_busy": 0.5, "cpu_cores": 2, "estimate_s": 100.0, "time_budget_s": 600.0,
                                     "eval_rows": 50}),
                          ("run-b", {"cpu_busy": None, "cpu_cores": None, "estimate_s": 90.0, "time_budget_s": 300.0,
                                     "eval_rows": None, "head_pooling": "mean"})):
        run_dir = _run(sample_project, run_id, version)
        job = read_job(run_dir).model_dump() | extra
        write_job(run_dir, JobSpec.model_validate(job))
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    for r in range(page.runs_table.rowCount()):
        page.runs_table.item(r, 0).setCheckState(Qt.CheckState.Checked)
    diff = page.diff_table
    rows = {diff.verticalHeaderItem(r).text(): [diff.item(r, c).text() for c in range(diff.columnCount())]
            for r in range(diff.rowCount())}
    assert rows == {"Time budget": ["10:00", "05:00"], "Validation rows per check": ["50", "all"],
                    "Classification head reads": ["the last token", "the mean of the tokens"]}, rows
