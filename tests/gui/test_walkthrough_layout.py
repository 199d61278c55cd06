"""Layout at the window's default size (1366x768, a common laptop screen): nothing clipped."""


from workbench.gui.pages.train.page import TrainPage


def test_train_settings_column_fits_without_a_horizontal_scroll_bar(qtbot, styled_app, session, background, sample_project):
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    # the page's share of a 1366x768 window once the step list on the left is drawn
    page.resize(1176, 700)
    page.show()
    qtbot.waitExposed(page)
    scroll = page.settings_scroll
    assert scroll.viewport().width() >= scroll.widget().minimumSizeHint().width(), \
        "the settings column is cut off on the right (Time budget, Resume)"


def test_a_completed_run_reopened_shows_a_full_progress_bar(qtbot, session, background, sample_project):
    """A run that stopped early (early stopping) and is seen again after reopening the project."""
    import os

    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.runs import EventWriter, write_pid

    run_dir = sample_project / "runs" / "run-early"
    write_job(run_dir, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    write_pid(run_dir, os.getpid())
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40, device="cpu", trainable_params=10, total_params=10, builtin="tiny")
    for step in range(5, 35, 5):
        ev.emit("step", step=step, epoch=0.1, loss=1.0, lr=1e-3, tokens_per_s=800.0, eta_s=1.0)
    ev.emit("end", status="completed", error=None)
    ev.close()
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    assert page.current_run == "run-early"
    assert session.monitor.status("run-early") == "completed"
    assert page.progress.value() == 1000, "a completed run must not look three quarters done"


def test_template_cards_fit_without_a_horizontal_scroll_bar(qtbot, styled_app, session, background):
    """Seen at 1366x768 once a multi-label template came: its task line ("Text classification,
    several labels per row") did not wrap, widened every card and cut the right-hand column off."""
    from workbench.gui.pages.template.page import TemplatePage

    page = TemplatePage(session, background)
    qtbot.addWidget(page)
    page.resize(1176, 740)  # the page's share of a 1366x768 window
    page.show()
    qtbot.waitExposed(page)
    scroll = page.cards_scroll
    assert scroll.viewport().width() >= scroll.widget().minimumSizeHint().width(), \
        "the template cards are cut off on the right"


def test_template_cards_of_a_row_are_equally_wide(qtbot, styled_app, session, background):
    """Seen in Chinese at 1366x768: the first finance card was a narrow column beside a wide one
    (each group's grid sized its columns by their text)."""
    from workbench.gui.pages.template.page import TemplateCard, TemplatePage

    page = TemplatePage(session, background)
    qtbot.addWidget(page)
    page.resize(1176, 740)
    page.show()
    qtbot.waitExposed(page)
    rows: dict = {}
    for card in page.findChildren(TemplateCard):
        rows.setdefault((id(card.parentWidget()), card.y()), []).append(card.width())
    pairs = [w for w in rows.values() if len(w) == 2]
    assert pairs and all(abs(a - b) <= 2 for a, b in pairs), pairs


def test_the_train_estimate_is_in_view_at_1366x768(qtbot, styled_app, laptop_window, sample_project):
    """Seen at 1366x768: the estimate ("About 182 steps, 00:52 to 01:45 …") was the last line of the
    settings column, below the fold until the panel was scrolled."""
    w = laptop_window(sample_project)
    w.show_step("train")
    page = w.page("train")
    qtbot.waitUntil(lambda: bool(page.estimate_label.text()), timeout=10000)
    label = page.estimate_label
    assert not page.settings_scroll.isAncestorOf(label)
    for busy in (0.0, 0.9):  # a busy processor's note is a line more
        page.show_processor_load(busy, cores=2)
        qtbot.wait(50)
        top_left = label.mapTo(w, label.rect().topLeft())
        bottom = label.mapTo(w, label.rect().bottomLeft()).y()
        assert label.isVisibleTo(w) and top_left.y() >= 0 and bottom <= w.centralWidget().height()
        assert label.height() >= label.heightForWidth(label.width()) - 2  # its lines not cut
    assert "busy with other work" in label.text()


def test_the_bundle_contents_have_room_at_1366x768(qtbot, styled_app, laptop_window, sample_project):
    """Seen at 1366x768: the Export page's "Bundle contents" list showed 2 rows of a bundle's 14."""
    import json

    from trained_factory import finished_run

    finished_run(sample_project, "run-x")
    bundle = sample_project / "exports" / "run-x"
    bundle.mkdir(parents=True)
    checks = {f: {"status": "ok", "max_abs_diff": 1e-6, "files": [f"{f}/"]} for f in ("static", "merged", "onnx")}
    checks["latency"] = {"static_ms": 6.4, "eager_ms": 2.6}
    checks["predict_script"] = {"status": "ok", "rows": 50, "same_as_engine": 50}
    checks["requirements"] = {"packages": 42, "hashes": True}
    (bundle / "bundle.json").write_text(json.dumps({"checks": checks}), encoding="utf-8")
    for name in ("README.md", "predict.py", "requirements.txt", "requirements.lock", "serve.py", "bundle_runtime.py",
                 "Dockerfile", "io_sniff.py", "io_header.py"):
        (bundle / name).write_text("x", encoding="utf-8")
    for name in ("static", "merged", "onnx", "tokenizer"):
        (bundle / name).mkdir()
    w = laptop_window(sample_project)
    w.show_step("export")
    page = w.page("export")
    qtbot.waitUntil(lambda: page.contents.rowCount() == 14, timeout=10000)
    page.details.setCurrentWidget(page.contents)
    view = page.contents
    shown = view.rowAt(view.viewport().height() - 1)
    shown = view.rowCount() if shown < 0 else shown
    assert shown >= 8, f"{shown} rows of the bundle's contents in view"
    page.details.setCurrentWidget(page.checks_tab)  # the checks, every row of them
    assert page.table.rowCount() == 5 and page.table.viewport().height() >= 5 * 26


def test_selecting_a_cleaning_step_does_not_move_the_data_pages_splitter(qtbot, styled_app, laptop_window,
                                                                         tmp_path):
    """Seen at 1366x768: selecting a step whose columns or kinds are check boxes made the side
    panel wider, and the splitter between the data and the panel jumped."""
    from PySide6.QtWidgets import QSplitter

    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    template = TemplateCatalog().get("finance_service_qa")
    project, _ = prepare(template, template.sample_path, tmp_path / "projects" / "qa")
    w = laptop_window(project.root)
    w.show_step("data")
    page = w.page("data")
    qtbot.waitUntil(lambda: page.cleaned_df is not None, timeout=60000)
    page.tabs.setCurrentWidget(page.steps)
    split = page.findChild(QSplitter)
    qtbot.wait(50)
    sizes = split.sizes()
    for row in range(page.steps.steps_table.rowCount()):
        page.steps.steps_table.selectRow(row)
        qtbot.wait(20)
        assert split.sizes() == sizes, (page.recipe.steps[row].op, split.sizes(), sizes)


def test_after_cleaning_the_text_column_gets_the_width(qtbot, styled_app, laptop_window, sample_project):
    """Seen at 1366x768: in "After cleaning" the text column was narrow (160 pixels) and the label
    column, the last, took the rest of the width."""
    w = laptop_window(sample_project)
    w.show_step("data")
    page = w.page("data")
    qtbot.waitUntil(lambda: page.cleaned_df is not None, timeout=60000)
    page.which_combo.setCurrentIndex(page.which_combo.findData("clean"))
    qtbot.wait(20)
    columns = [str(c) for c in page.table_model.frame.columns]
    hh = page.table.horizontalHeader()
    widths = dict(zip(columns, (hh.sectionSize(i) for i in range(len(columns)))))
    text, label = page.mapping["text"], page.mapping["label"]
    text = text if text in widths else "text"
    label = label if label in widths else "label"
    assert widths[text] > 2 * widths[label], widths
    assert widths[text] >= 0.5 * page.table.viewport().width(), widths
    qtbot.wait(20)
    assert page.table.horizontalScrollBar().maximum() == 0, "the columns are wider than the table"
