"""Every page's state belongs to its project: after opening another project, no page shows
a path, a message or the axes of the previous one.

Seen at 1366x768 after switching from a finance project to a medical one: the Evaluate page
still said "No program opened the report. It is the file …/fin-news-real/runs/…/report.html",
the Export page "Exported into …/fin-news-real/exports/…", and the Train charts kept the
previous project's axes under "No run yet".
"""

from __future__ import annotations

import json
import os

from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QAbstractButton, QLabel, QLineEdit, QPlainTextEdit, QTextEdit, QWidget

from workbench.core.jobs import JobSpec, write_job
from workbench.core.runs import EventWriter
from workbench.core.templates import TemplateCatalog
from workbench.gui.widgets.copy_button import CopyButton

RUN = "run-20260101-000000-abcd"


def _finished_run(project) -> None:
    run_dir = project / "runs" / RUN
    write_job(run_dir, JobSpec(project=str(project), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full", max_steps=40, eval_steps=10))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40, device="cpu", trainable_params=10, total_params=10, builtin="tiny")
    for step in range(5, 45, 5):
        ev.emit("step", step=step, epoch=step / 40, loss=30.0 / step, lr=2e-4 * (1 - step / 50),
                tokens_per_s=800.0, eta_s=1.0)
    ev.emit("end", status="completed", error=None)
    ev.close()


def _shown_texts(page: QWidget) -> list[str]:
    """Every text a person (or the clipboard) could get from the page's widgets."""
    texts = []
    for w in [page, *page.findChildren(QWidget)]:
        if isinstance(w, (QLabel, QAbstractButton, QLineEdit)):
            texts.append(w.text())
        if isinstance(w, (QPlainTextEdit, QTextEdit)):
            texts.append(w.toPlainText())
        if isinstance(w, CopyButton):
            texts.append(w.value())
        texts.append(w.toolTip())
    return texts


def _y_range(plot):
    return plot.plot.getViewBox().viewRange()


def test_no_page_keeps_anything_of_the_previous_project(qtbot, laptop_window, sample_project, tmp_path,
                                                        monkeypatch):
    _finished_run(sample_project)
    a = str(sample_project)
    w = laptop_window(sample_project)
    pages = {key: w.page(key) for key in ("template", "data", "train", "evaluate", "export")}

    # Train: the run's curves drawn, their axes fitted to it
    train = pages["train"]
    w.show_step("train")
    assert train.current_run == RUN
    train.loss_plot.flush()
    train.lr_plot.flush()
    qtbot.waitUntil(lambda: _y_range(train.loss_plot)[1][1] > 2, timeout=5000)

    # Evaluate: no program opened the report, whose path the page then shows
    monkeypatch.setattr(QDesktopServices, "openUrl", staticmethod(lambda url: False))
    evaluate = pages["evaluate"]
    report = sample_project / "runs" / RUN / "eval" / "report.html"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("<html></html>", encoding="utf-8")
    monkeypatch.setattr(evaluate, "report_path", lambda: report)
    assert evaluate._on_report_button_clicked() is False
    assert str(report) in evaluate.status_label.text() and evaluate.report_copy.value() == str(report)

    # Export: a bundle exported earlier, its folder that no program opened, its log
    export = pages["export"]
    bundle = sample_project / "exports" / RUN
    bundle.mkdir(parents=True)
    (bundle / "bundle.json").write_text(json.dumps({"checks": {}}), encoding="utf-8")
    export.show_existing(RUN)
    assert a in export.status_label.text()
    export.log.appendPlainText(f"wrote {bundle}")
    assert export._on_open_button_clicked() is False
    assert str(bundle) in export.status_label.text() and export.path_copy.value() == str(bundle)

    # another project, of another template, with no data and no run
    w.session.create(tmp_path / "triage", TemplateCatalog().get("medical_triage"))
    for key, page in pages.items():
        left = [t for t in _shown_texts(page) if a in t]
        assert not left, f"the {key} page still shows the previous project: {left[:3]}"
    assert not export.path_copy.isVisible() and not evaluate.report_copy.isVisible()
    # the charts under "No run yet" have an empty plot's axes, not the last run's
    assert train.current_run is None
    for plot in (train.loss_plot, train.lr_plot):
        plot.flush()
        (x0, x1), (y0, y1) = _y_range(plot)
        assert (x0, x1) == (0, 1) and (y0, y1) == (0, 1), (x0, x1, y0, y1)
    assert os.path.isdir(a)  # nothing of it was touched
