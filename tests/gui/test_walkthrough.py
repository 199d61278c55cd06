"""What a person found clicking through the window, each reproduced as they did it."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QStackedWidget, QTabWidget

from workbench.gui.pages.data.page import DataPage


def _data_page(qtbot, session, background, root):
    page = DataPage(session, background)
    qtbot.addWidget(page)
    page.show()
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        session.open(root)
    return page


def reveal(widget) -> None:
    """Bring the tab (or stacked page) that holds ``widget`` to the front, as a click would."""
    child, parent = widget, widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QStackedWidget) and parent.indexOf(child) >= 0:
            parent.setCurrentWidget(child)
            if isinstance(parent.parentWidget(), QTabWidget):
                parent.parentWidget().setCurrentWidget(child)
        child, parent = parent, parent.parentWidget()


def test_unticking_drop_rows_with_other_labels_does_not_crash(qtbot, session, background, sample_project):
    """The step form was rebuilt inside the checkbox's own click handler: Qt then delivered
    the rest of the click to a deleted widget (a segmentation fault)."""
    page = _data_page(qtbot, session, background, sample_project)
    row = [s.op for s in page.recipe.steps].index("normalize_labels")
    page.steps.steps_table.selectRow(row)
    for value in (False, True):
        box = next(w for w in page.steps.params_editor.findChildren(QCheckBox)
                   if page.steps.params_editor.form.labelForField(w) is not None
                   and "other labels" in page.steps.params_editor.form.labelForField(w).text())
        reveal(box)
        assert box.isVisible() and box.isChecked() is not value
        with qtbot.waitSignal(page.cleaned, timeout=30000):
            # on the box itself: a check box takes clicks on its indicator and text only
            qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=QPoint(8, box.height() // 2))
        assert page.recipe.steps[row].params["drop_unknown"] is value
        qtbot.wait(50)  # let the event loop finish the click on whatever widget is there now


def test_a_new_project_starts_clean_after_another_one(qtbot, session, background, sample_project, tmp_path):
    """File > New project showed the previous project's rows, and 'The mapping is complete.'
    beside empty required roles."""
    page = _data_page(qtbot, session, background, sample_project)
    assert page.table_model.rowCount() > 0 and page.stats_column.count() > 0
    session.create(tmp_path / "projects" / "fresh", session.catalog.get("medical_qa"))
    assert page.raw is None and page.table_model.rowCount() == 0
    assert page.stats_column.count() == 0 and page.filter_column.count() <= 1
    assert "rows" not in page.source_label.text()
    assert page.mapping == {}
    assert "complete" not in page.mapping_general.text()
    assert page.mapping_general.text()  # it says what to do: import a file first
    assert not page.prepare_button.isEnabled()
    assert page.steps.steps_table.rowCount() == len(page.recipe.steps) and page.reports == []


def test_mapping_problems_speak_of_the_fields_as_the_page_names_them(qtbot, session, background, tmp_path):
    """The inline messages said 'Map one with instruction=<column>; columns are: ...'."""
    import pandas as pd

    from workbench.core.project import Project, ProjectConfig

    root = tmp_path / "projects" / "qa"
    root.mkdir(parents=True)
    Project(root, ProjectConfig(name="qa", template="medical_qa")).save()
    src = tmp_path / "qa.csv"
    pd.DataFrame({"编号": ["1", "2", "3"], "备注": ["甲", "乙", "丙"]}).to_csv(src, index=False)
    page = DataPage(session, background)
    qtbot.addWidget(page)
    session.open(root)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(src)
    texts = [m.text() for m in page.mapping_messages.values() if m.text()]
    assert texts, "a required field without a column is named"
    for text in texts:
        assert "=<" not in text and "['" not in text and "instruction" not in text and "medical_qa" not in text
    assert any("Instruction / question" in t for t in texts) or any("Answer / output" in t for t in texts)


def test_compared_runs_differ_in_settings_named_as_the_page_names_them(qtbot, session, background, sample_project):
    from workbench.core.jobs import JobSpec, write_job
    from workbench.gui.pages.train.page import TrainPage

    for run_id, base, modules in (("run-1", "builtin:tiny", None), ("run-2", "builtin:small", ["q_proj", "v_proj"])):
        write_job(sample_project / "runs" / run_id, JobSpec(
            project=str(sample_project), template="finance_sentiment", task="classification", base_model=base,
            method="full", lora_target_modules=modules, resume_from="checkpoints/checkpoint-4" if modules else None))
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    for row in range(page.runs_table.rowCount()):
        page.runs_table.item(row, 0).setCheckState(Qt.CheckState.Checked)
    t = page.diff_table
    names = [t.verticalHeaderItem(r).text() for r in range(t.rowCount())]
    cells = [t.item(r, c).text() for r in range(t.rowCount()) for c in range(t.columnCount())]
    assert names == ["Base model", "LoRA layers"], names  # where a run came from is not a setting
    assert "built-in tiny model" in cells and "q_proj, v_proj" in cells
    assert not any("[" in c or c == "None" or "builtin:" in c for c in cells), cells


def test_the_cleaning_step_form_names_the_fields_not_their_ids(qtbot, session, background, sample_project):
    page = _data_page(qtbot, session, background, sample_project)
    row = [s.op for s in page.recipe.steps].index("mask_pii")
    page.steps.steps_table.selectRow(row)
    texts = [w.text() for w in page.steps.params_editor.findChildren(QCheckBox)]
    assert "Text" in texts and "Label" in texts and "text" not in texts and "label" not in texts
    columns = {page.steps.examples_table.item(r, 1).text() for r in range(page.steps.examples_table.rowCount())}
    assert columns and columns <= {"Text", "Label"}, columns
    assert page.steps.params_editor.current()["columns"] == ["text"]  # the values stay the ids


def test_chinese_chart_labels_are_shown_whole(qtbot):
    from PySide6.QtGui import QFontMetrics

    from workbench.gui.widgets.charts import BarChart, HeatMap

    labels = ["民间借贷纠纷", "劳动争议", "离婚纠纷", "交通事故责任纠纷", "合同纠纷", "房屋买卖合同纠纷"]
    chart = BarChart("标签分布")
    qtbot.addWidget(chart)
    chart.resize(420, 260)
    chart.set_data(labels, [5, 4, 3, 2, 1, 1])
    fm = QFontMetrics(chart.font())
    rotated, band = chart.label_layout(fm, chart.width())
    assert rotated and band >= fm.horizontalAdvance("交通事故责任纠纷") * 0.7  # turned, not cut
    chart.grab()  # paints without error
    short = BarChart()
    qtbot.addWidget(short)
    short.resize(420, 260)
    short.set_data(["正面", "中性", "负面"], [3, 2, 1])
    assert short.label_layout(fm, short.width()) == (False, fm.height())

    heat = HeatMap()
    qtbot.addWidget(heat)
    heat.resize(500, 400)
    heat.set_matrix([[1] * 6] * 6, labels, "预测", "真实")
    heat.show()
    left = heat.plot.getAxis("left")
    need = QFontMetrics(left.style.get("tickFont") or heat.font()).horizontalAdvance("交通事故责任纠纷")
    qtbot.waitUntil(lambda: left.width() >= need, timeout=5000)


def test_the_evaluate_page_says_what_to_do_before_an_evaluation_and_notes_in_its_language(
        qtbot, session, background, sample_project):
    import json

    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.runs import EventWriter
    from workbench.gui.pages.evaluate.page import EvaluatePage

    run_dir = sample_project / "runs" / "run-s"
    write_job(run_dir, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=10)
    ev.emit("end", status="stopped", error=None)
    ev.close()
    (run_dir / "checkpoints" / "checkpoint-4" / "model_state").mkdir(parents=True)
    (run_dir / "checkpoints" / "checkpoint-4" / "trainer_state.json").write_text("{}")
    page = EvaluatePage(session, background)
    qtbot.addWidget(page)
    page.show()
    session.open(sample_project)
    assert page.run_combo.currentData() == "run-s"
    assert page.results.empty_text.isVisible() and "Evaluate" in page.results.empty_text.text()  # not a blank page
    (run_dir / "eval").mkdir()
    (run_dir / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-s", "task": "classification", "split": "test", "rows": 2, "base_model": "builtin:tiny",
        "method": "full", "source": "checkpoint-4", "note": "Run 'run-s' stopped before ...",
        "metrics": {"accuracy": 0.5}}), encoding="utf-8")
    page.load_results()
    assert "checkpoint-4" in page.note_text.text() and "Run 'run-s'" not in page.note_text.text()
    assert "built-in tiny model" in page.summary_text.text()


def test_the_environment_check_runs_as_a_task_of_the_window(qtbot, background):
    """The environment dialog had a QProcess of its own; it is one more child command now."""
    from workbench.gui.dialogs import EnvironmentDialog

    dlg = EnvironmentDialog(background)
    qtbot.addWidget(dlg)
    started = []
    background.op_started.connect(started.append)
    dlg.start()
    assert started and started[0] is dlg.op and not dlg.recheck.isEnabled()
    qtbot.waitUntil(lambda: dlg.op is None, timeout=120000)
    assert dlg.report is not None and "paddle_version" in dlg.report, dlg.details.toPlainText()
    assert "PaddlePaddle" in dlg.summary.text() and dlg.recheck.isEnabled()


def test_a_confusion_matrix_of_62_charges_leaves_room_for_its_cells(qtbot):
    # seen on the Evaluate page of a real 62-charge run: the left axis took most of the width
    # for names like 非法[收购、运输、加工、出售]国家重点保护植物、国家重点保护植物制品, and
    # 3,844 counts (nearly all 0) were drawn over each other
    import numpy as np

    from workbench.gui.widgets.charts import HeatMap

    names = ["非法[收购、运输、加工、出售]国家重点保护植物、国家重点保护植物制品",
             "[虚开增值税专用发票、用于骗取出口退税、抵扣税款发票]", "盗窃", "诈骗"]
    labels = [names[i % 4] + (str(i) if i >= 4 else "") for i in range(62)]
    rng = np.random.default_rng(0)
    matrix = np.diag(rng.integers(1, 40, 62)) + (rng.random((62, 62)) > 0.98)
    heat = HeatMap()
    qtbot.addWidget(heat)
    heat.resize(650, 520)
    heat.set_matrix(matrix.tolist(), labels, "predicted", "true")
    heat.show()
    qtbot.waitExposed(heat)
    left = heat.plot.getAxis("left")
    assert left.width() <= 0.4 * heat.width()
    assert len(heat._texts) == int((matrix > 0).sum())  # the empty cells are left blank
    # rows are numbered and their names shortened; the columns carry the numbers (the page's
    # table beside the matrix lists every label whole, in the same order)
    rows = [text for _, text in left._tickLevels[0]]
    assert rows[0].startswith("1 ") and rows[61].startswith("62 ") and max(map(len, rows)) <= 16
    assert {text for _, text in heat.plot.getAxis("bottom")._tickLevels[0]} <= {str(k) for k in range(1, 63)}
    heat.grab()
