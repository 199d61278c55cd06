"""The Evaluate page on a real trained run evaluated by the page itself (``workbench eval``
in a child process): the progress it shows, the rows' own text, the HTML report."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QObject, Qt, QUrl, Slot
from PySide6.QtGui import QDesktopServices

pytest.importorskip("paddle")
pytest.importorskip("paddleformers")

from workbench.gui.pages.evaluate.page import EvaluatePage  # noqa: E402

from trained_factory import CLS, RUN, trained_project, user_frame  # noqa: E402


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return trained_project(CLS, tmp_path_factory.mktemp("evaluate"))


@pytest.fixture
def evaluated(qtbot, session, background, project):
    """The page after it evaluated the run, with what its bar and status line showed meanwhile."""
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(project.root)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == RUN, timeout=10000)
    page.base_check.setChecked(False)
    shown: list[tuple[int, int, str]] = []  # (bar maximum, bar value, status line) at each report
    page.evaluate()
    page.eval_op.progressed.connect(  # after the page's own bar took the report
        lambda *_: shown.append((page.eval_progress.bar.maximum(), page.eval_progress.bar.value(),
                                 page.status_label.text())))
    with qtbot.waitSignal(page.evaluation_finished, timeout=240000):
        pass
    assert page.metrics is not None, page.status_label.text()
    return page, shown


@pytest.mark.slow
def test_evaluate_a_run_from_the_page(evaluated):
    """One evaluation (a real one takes a while), three things the page must show of it."""
    page, shown = evaluated
    _progress_goes_through_the_rows_and_names_the_other_stages(page, shown)
    _samples_show_the_rows_text_not_the_prompt(page)
    _the_report_opens_from_the_page(page)


def _progress_goes_through_the_rows_and_names_the_other_stages(page, shown):
    rows = page.metrics["rows"]
    values = [v for maximum, v, _ in shown if maximum > 0]
    # the rows are scored in several reported batches, not one jump from 0 to 100 %
    assert len({v for v in values if 0 < v < 1000}) >= 2, shown
    # loading the model and writing the report are named while the bar is busy, not left at 100 %
    busy = [text for maximum, _, text in shown if maximum == 0]
    assert any("loading the model" in t for t in busy), shown
    assert shown[-1][0] == 0 and "writing the report" in shown[-1][2], shown[-1]
    assert any(f"of {rows} rows" in t for _, _, t in shown)


def _samples_show_the_rows_text_not_the_prompt(page):
    model = page.samples_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert "Text" in headers and "prompt" not in headers, headers
    col = headers.index("Text")
    texts = set(user_frame(CLS)["新闻正文"].str.strip())
    first = model.index(0, col).data()
    assert first in texts  # the news itself ...
    assert "请判断" not in first  # ... without the prompt's words above it
    assert page.samples_view.columnWidth(col) > 2 * page.samples_view.columnWidth(headers.index("expected"))
    # the logic still reads the predictions as eval wrote them
    assert "input" in page.predictions.columns


class _UrlCatcher(QObject):
    def __init__(self):
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:  # noqa: A003
        self.urls.append(url)


def _the_report_opens_from_the_page(page):
    assert page.report_button.isEnabled()
    catcher = _UrlCatcher()
    # Qt's own hook for file URLs: what the desktop would be asked to open comes here
    QDesktopServices.setUrlHandler("file", catcher, "open")
    try:
        page.report_button.click()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in catcher.urls] == [str(page.report_path())]
    assert page.report_path().name == "report.html" and page.report_path().is_file()


def test_the_playground_warns_about_a_barely_trained_run(qtbot, session, background, project, sample_project):
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    session.open(project.root)  # its run trained for 4 steps
    qtbot.waitUntil(lambda: page.run_combo.currentData() == RUN, timeout=10000)
    assert not page.play_warning.isHidden()
    assert "only 4 steps" in page.play_warning.text() and "Train longer" in page.play_warning.text()

    # a run that trained as planned and scores well on validation gets none
    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.runs import EventWriter

    run_dir = sample_project / "runs" / "run-good"
    write_job(run_dir, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=80)
    for step, loss in ((20, 1.0), (40, 0.7), (60, 0.5), (80, 0.4)):
        ev.emit("step", step=step, loss=loss, lr=1e-3)
    ev.emit("eval", step=80, eval_loss=0.5, metrics={"accuracy": 0.9, "macro_f1": 0.88})
    ev.emit("end", status="completed", error=None)
    ev.close()
    (run_dir / "final").mkdir()
    (run_dir / "final" / "workbench_run.json").write_text("{}", encoding="utf-8")
    session.open(sample_project)
    qtbot.waitUntil(lambda: page.run_combo.currentData() == "run-good", timeout=10000)
    assert page.play_warning.isHidden() and page.play_warning.text() == ""
