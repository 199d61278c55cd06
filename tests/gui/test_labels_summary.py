"""The label editor's summary line counts what the page drops: rows of excluded labels and of
labels with too few rows, and, with several labels per row, rows rather than label values."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from data_factory import hospital_export  # noqa: E402

from workbench.core.templates import TemplateCatalog  # noqa: E402
from workbench.gui.pages.data.page import DataPage  # noqa: E402


def _import(qtbot, session, background, tmp_path, template_id, src, label_column):
    session.create(tmp_path / "projects" / "p", TemplateCatalog().get(template_id))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(src)
    combo = page.mapping_combos["label"]
    if page.mapping.get("label") != label_column:
        with qtbot.waitSignal(page.cleaned, timeout=30000):
            combo.setCurrentIndex(combo.findData(label_column))
    else:
        qtbot.waitUntil(lambda: page.cleaned_df is not None, timeout=30000)
    return page


def test_excluded_and_too_few_rows_are_counted_in_the_summary(qtbot, session, background, tmp_path):
    page = _import(qtbot, session, background, tmp_path, "medical_triage", hospital_export(tmp_path / "export.csv"), "科别")
    editor = page.labels_editor
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.use_found()
    before = len(page.cleaned_df)
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.exclude(["感染科", "呼吸科"])
    dropped = before - len(page.cleaned_df)
    assert dropped == 28
    text = editor.summary.text()
    assert "0 rows outside the label set" in text
    assert f"{dropped} rows of excluded labels dropped" in text
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.set_min_rows(4)  # 老年病科 has 3 rows
    assert "3 rows of labels with too few rows dropped" in editor.summary.text()


def test_several_labels_per_row_are_counted_as_rows(qtbot, session, background, tmp_path):
    import pandas as pd

    rows = [{"text": f"第{i}段判决书事实，被告人{i}号实施了相关行为，证据确实充分。",
             "labels": ["盗窃", "抢劫", "诈骗"][i % 3] + (";寻衅滋事" if i % 2 else "")} for i in range(60)]
    src = tmp_path / "cases.csv"
    pd.DataFrame(rows).to_csv(src, index=False)
    page = _import(qtbot, session, background, tmp_path, "legal_case_type_multi", src, "labels")
    editor = page.labels_editor
    if page.label_choice is None or page.label_choice.source != "data":
        with qtbot.waitSignal(page.cleaned, timeout=30000):
            editor.use_found()
    assert page.current_label_choice().multi_label
    text = editor.summary.text()
    assert "4 values given 90 times in 60 rows" in text and "90 rows" not in text


def test_lists_of_values_use_the_interface_languages_separator(qtbot):
    """Seen in the English window: "Your data has its own labels (0、1)", a Chinese enumeration
    comma in an English sentence."""
    from PySide6.QtWidgets import QApplication

    from workbench.core.labels import LabelTable
    from workbench.gui import i18n
    from workbench.gui.pages.data.labels_editor import LabelsEditor

    def notice() -> str:
        editor = LabelsEditor()
        qtbot.addWidget(editor)
        editor.set_table(LabelTable({"0": 30, "1": 20}, ["正面", "中性", "负面"]))
        return editor.notice.text()

    app = QApplication.instance()
    try:
        i18n.install(app, "en")
        english = notice()
        assert "(0, 1)" in english and "、" not in english, english
        i18n.install(app, "zh_CN")
        assert "（0、1）" in notice() or "(0、1)" in notice(), notice()
    finally:
        i18n.install(app, "en")


def test_the_summary_is_drawn_again_in_the_language_switched_to(qtbot, tmp_path):
    """Seen after switching to Chinese: "2 labels (the template's labels) · 2 values in 7,046 rows ·
    0 rows outside the label set · 数据中没有…": the summary, itself joined with " · ", was put
    into Chinese piece by piece and only its last piece was found."""
    import pandas as pd
    from PySide6.QtWidgets import QApplication

    from workbench.core.project import prepare
    from workbench.gui import i18n
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    spec = TemplateCatalog().get("finance_sentiment")
    frame = pd.read_csv(spec.sample_path, dtype=str)
    neutral = {"中性", *spec.label_aliases["中性"]}
    src = tmp_path / "two labels.csv"
    frame[~frame[spec.columns["label"]].fillna("").str.strip().isin(neutral)].to_csv(src, index=False)
    root = tmp_path / "projects" / "two"
    prepare(spec, src, root)

    app = QApplication.instance()
    try:
        i18n.install(app, "en")
        win = MainWindow(Settings(tmp_path / "gui.ini"))
        qtbot.addWidget(win)
        win.background.show_dialogs = False
        win.open_project(root)
        win.show_step("data")
        editor = win.pages["data"].labels_editor
        qtbot.waitUntil(lambda: "no row has 中性" in editor.summary.text(), timeout=60000)
        i18n.install(app, "zh_CN")
        qtbot.waitUntil(lambda: win._language == "zh_CN", timeout=5000)
        qtbot.waitUntil(lambda: not win.background.active, timeout=30000)
        text = editor.summary.text()
        assert text.startswith("2 个标签（模板的标签）") and "数据中没有“中性”的行" in text, text
    finally:
        i18n.install(app, "en")
