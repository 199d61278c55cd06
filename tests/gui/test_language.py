"""The interface language: every string is found under the context it is looked up in,
and switching the language in the settings changes the open window at once."""

from __future__ import annotations

import ast
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

GUI = Path(__file__).resolve().parents[2] / "workbench" / "gui"


def _source_contexts() -> set[str]:
    """Class names of the GUI (what self.tr() looks up) and the literal contexts of translate()."""
    names = set()
    for path in GUI.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names.add(node.name)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr == "translate" and node.args and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id == "QT_TRANSLATE_NOOP" and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)  # a text Qt itself looks up under that context
    return names


def test_every_translation_context_is_one_a_lookup_uses(tmp_path):
    # parent.tr("Browse…") in a helper function was filed by lupdate under "parent", while
    # at run time it is looked up under the dialog's class: it stayed English in Chinese
    lupdate = Path(sys.executable).parent / "pyside6-lupdate"
    if not lupdate.is_file():
        pytest.skip("pyside6-lupdate is not installed")
    out = tmp_path / "fresh.ts"
    subprocess.run([str(lupdate), *sorted(str(p) for p in GUI.rglob("*.py")), "-ts", str(out)],
                   check=True, capture_output=True)
    contexts = {c.find("name").text for c in ET.parse(out).getroot().iter("context")}
    assert not contexts - _source_contexts(), sorted(contexts - _source_contexts())


# ----- switching the language with the window open ---------------------------------------------

def _visible_texts(win) -> list[tuple[str, str]]:
    """(widget class, text) of every text the window shows, in the widgets' creation order."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import (
        QAbstractButton, QComboBox, QGroupBox, QLabel, QLineEdit, QPlainTextEdit, QTableWidget, QTabWidget,
        QWidget,
    )

    out = []
    for w in [win, *win.findChildren(QWidget)]:
        if not (w is win or w.isVisibleTo(win)):
            continue
        kind = type(w).__name__
        texts = [w.toolTip()]
        if isinstance(getattr(w, "title", None), str):  # a chart of ours that paints its title
            texts.append(w.title)
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        if isinstance(w, QGroupBox):
            texts.append(w.title())
        if isinstance(w, (QLineEdit, QPlainTextEdit)):
            texts.append(w.placeholderText())
        if isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
            texts += [str(w.itemData(i, Qt.ItemDataRole.ToolTipRole) or "") for i in range(w.count())]
        if isinstance(w, QTabWidget):
            texts += [w.tabText(i) for i in range(w.count()) if w.isTabVisible(i)]
        if isinstance(w, QTableWidget):
            texts += [w.horizontalHeaderItem(c).text() for c in range(w.columnCount()) if w.horizontalHeaderItem(c)]
        out += [(kind, t) for t in texts if t]
    for top in win.menuBar().actions():
        out.append(("QMenu", top.text()))
        out += [("QAction", a.text()) for a in top.menu().actions() if a.text()]
    import pyqtgraph as pg

    for pw in win.findChildren(pg.PlotWidget):
        if pw.isVisibleTo(win):
            item = pw.getPlotItem()
            out.append(("plot", item.titleLabel.text))
            out += [("axis", item.getAxis(side).labelText) for side in ("left", "bottom")]
            out += [("legend", label.text) for _, label in (item.legend.items if item.legend else [])]
    out.append(("title", win.windowTitle()))
    out += [("nav", win.nav.item(i).text()) for i in range(win.nav.count())]
    return out


def _texts_of_every_page(win) -> list[tuple[str, str, str]]:
    """The texts of each page and each of its tabs, as one goes through them in turn."""
    from PySide6.QtWidgets import QTabWidget

    from workbench.gui.main_window import STEPS

    out = []
    for i, key in enumerate(STEPS):
        win.stack.setCurrentIndex(i)  # not through the navigation: that would refresh the page
        out += [(key, *t) for t in _visible_texts(win)]
        for tabs in win.pages[key].findChildren(QTabWidget):
            for i in range(tabs.count()):
                if tabs.isVisibleTo(win) and tabs.isTabVisible(i):
                    tabs.setCurrentIndex(i)
                    out += [(f"{key}/{i}", *t) for t in _visible_texts(win)]
            tabs.setCurrentIndex(0)
    return out


def _window_on_every_page(qtbot, tmp_path, name, project):
    from workbench.gui.main_window import STEPS, MainWindow
    from workbench.gui.settings import Settings

    w = MainWindow(Settings(tmp_path / f"{name}.ini"))
    qtbot.addWidget(w)
    w.background.show_dialogs = False
    w.resize(1366, 768)
    w.show()
    w.open_project(project)
    for key in STEPS:
        w.show_step(key)
    data = w.pages["data"]
    qtbot.waitUntil(lambda: data.cleaned_df is not None and not w.background.active, timeout=60000)
    w.show_step("data")
    qtbot.wait(50)
    return w


def _diff(a, b):
    import os

    found = [(x, y) for x, y in zip(a, b) if x != y]
    if os.environ.get("WB_DIFF"):
        with open(os.environ["WB_DIFF"], "a", encoding="utf-8") as f:
            f.writelines(f"{x!r}\n   {y!r}\n" for x, y in found)
    return found[:12] or (len(a), len(b))


def _evaluated_run(root):
    """What a finished, evaluated run leaves in its folder: curves, metrics, predictions."""
    import json

    import pandas as pd

    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.runs import EventWriter

    run_dir = root / "runs" / "run-1"
    write_job(run_dir, JobSpec(project=str(root), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    ev = EventWriter(run_dir)
    ev.emit("start", total_steps=40, device="cpu")
    for step in range(5, 45, 5):
        ev.emit("step", step=step, epoch=step / 20, loss=1.1 - step / 50, lr=1e-3, tokens_per_s=900.0)
    ev.emit("eval", step=40, eval_loss=0.4, metrics={"accuracy": 0.9, "macro_f1": 0.88})
    ev.emit("end", status="completed", error=None)
    ev.close()
    (run_dir / "final").mkdir()
    (run_dir / "final" / "workbench_run.json").write_text("{}", encoding="utf-8")
    (run_dir / "eval").mkdir()
    labels = ["正面", "中性", "负面"]
    (run_dir / "eval" / "metrics.json").write_text(json.dumps({
        "run": "run-1", "task": "classification", "split": "test", "rows": 4, "base_model": "builtin:tiny",
        "method": "full", "metrics": {"accuracy": 0.75, "macro_f1": 0.7, "eval_loss": 0.5, "labels": labels,
                                      "confusion": [[1, 0, 0], [0, 1, 1], [0, 0, 1]],
                                      "per_class": {lab: {"precision": 0.8, "recall": 0.7, "f1": 0.7, "support": 1}
                                                    for lab in labels}},
        "baseline": {"accuracy": 0.5, "macro_f1": 0.45, "comparison": {
            "metric": "macro_f1", "model": 0.7, "baseline": 0.45, "difference": 0.25, "verdict": "beats"}}}),
        encoding="utf-8")
    pd.DataFrame({"input": ["请判断以下财经新闻的情感倾向（正面/中性/负面）：\n利好"] * 4,
                  "reference": ["正面", "中性", "中性", "负面"], "prediction": ["正面", "中性", "负面", "负面"],
                  "correct": [True, True, False, True]}).to_csv(run_dir / "eval" / "predictions.csv", index=False,
                                                               encoding="utf-8-sig")


def test_switching_the_language_updates_every_text_of_the_open_window(qtbot, tmp_path, sample_project):
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n

    _evaluated_run(sample_project)
    app = QApplication.instance()
    try:
        i18n.install(app, "en")
        win = _window_on_every_page(qtbot, tmp_path, "switched", sample_project)
        english = _texts_of_every_page(win)
        assert any(t.startswith("2  Data") for *_, t in english)

        i18n.install(app, "zh_CN")  # what the settings' OK does
        qtbot.waitUntil(lambda: win._language == "zh_CN", timeout=5000)
        qtbot.waitUntil(lambda: not win.background.active, timeout=30000)
        qtbot.wait(100)  # widgets redrawn from state replaced theirs (deleteLater)
        switched = _texts_of_every_page(win)
        fresh = _texts_of_every_page(_window_on_every_page(qtbot, tmp_path, "fresh", sample_project))
        assert any(t.startswith("2  数据") for *_, t in fresh)
        # the switched window shows what a window opened in Chinese shows, text for text
        assert switched == fresh, _diff(switched, fresh)

        i18n.install(app, "en")
        qtbot.waitUntil(lambda: win._language == "en", timeout=5000)
        qtbot.waitUntil(lambda: not win.background.active, timeout=30000)
        qtbot.wait(100)
        back = _texts_of_every_page(win)
        assert back == english, _diff(back, english)
    finally:
        i18n.install(app, "en")


def test_the_settings_switch_the_language_at_once_and_browse_is_translated(qtbot, tmp_path):
    from PySide6.QtWidgets import QApplication, QPushButton

    from workbench.gui import i18n
    from workbench.gui.dialogs import SettingsDialog
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    app = QApplication.instance()
    settings = Settings(tmp_path / "gui.ini")
    settings.language = "en"
    i18n.install(app, settings.language)
    try:
        win = MainWindow(settings)
        qtbot.addWidget(win)
        win.show_settings()
        dlg = win.findChild(SettingsDialog)
        assert "Browse…" in [b.text() for b in dlg.findChildren(QPushButton)]
        dlg.language.setCurrentIndex(dlg.language.findData("zh_CN"))
        dlg.accept()
        qtbot.waitUntil(lambda: win._language == "zh_CN", timeout=5000)
        assert settings.language == "zh_CN"
        assert win.nav.item(1).text().startswith("2  数据")
        assert [a.text() for a in win.menuBar().actions()][0] == "文件(&F)"
        # one action per shortcut still: a second one would make Ctrl+, do nothing
        from PySide6.QtGui import QAction

        keys = [a.shortcut().toString() for a in win.findChildren(QAction) if not a.shortcut().isEmpty()]
        assert len(keys) == len(set(keys)) and "Ctrl+," in keys, keys
        # the folder rows of the Chinese settings say 浏览…, not Browse…
        qtbot.waitUntil(lambda: win.findChild(SettingsDialog) is None, timeout=5000)
        win.show_settings()
        buttons = [b.text() for b in win.findChild(SettingsDialog).findChildren(QPushButton)]
        assert buttons.count("浏览…") == 2 and "Browse…" not in buttons
    finally:
        i18n.install(app, "en")


def test_no_two_texts_of_a_context_share_a_translation():
    # switching back to English finds a text's source from its translation: within the class
    # that set it, a translation must name one source ("列" was both "Column" and "Columns")
    from collections import defaultdict

    from workbench.gui.resources import resources_dir

    sources = defaultdict(set)
    for ctx in ET.parse(resources_dir() / "translations" / "workbench_zh_CN.ts").getroot().iter("context"):
        for m in ctx.iter("message"):
            sources[(ctx.findtext("name"), m.find("translation").text)].add(m.findtext("source"))
    shared = {k: v for k, v in sources.items() if len(v) > 1}
    assert not shared, shared


def test_qt_file_dialogs_speak_the_interface_language_also_after_a_switch(qtbot):
    # the Chinese file dialog said "Look in:" and "Files of type:": Qt's own catalogue for
    # zh_CN lacks the texts its dialog now shows
    import re

    from PySide6.QtWidgets import QApplication, QFileDialog, QLabel

    from workbench.gui import i18n

    def labels() -> dict[str, str]:
        d = QFileDialog()
        d.setOption(QFileDialog.Option.DontUseNativeDialog)  # the dialog Qt draws itself, as on Linux
        texts = {lab.objectName(): lab.text() for lab in d.findChildren(QLabel) if lab.text()}
        d.deleteLater()
        return texts

    def latin(text: str) -> bool:
        return bool(re.search("[A-Za-z]", re.sub(r"\(&[A-Z]\)", "", text)))  # the mnemonic stays Latin

    app = QApplication.instance()
    try:
        assert i18n.install(app, "en") == "en"
        english = labels()
        assert {"lookInLabel", "fileNameLabel", "fileTypeLabel"} <= set(english)
        i18n.install(app, "zh_CN")
        chinese = labels()
        assert set(chinese) == set(english)
        assert not [t for t in chinese.values() if latin(t)], chinese
        assert all("&" in t for t in chinese.values())  # Alt+letter still reaches each field
        i18n.install(app, "en")  # the live switch, both ways
        assert labels() == english
        i18n.install(app, "zh_CN")
        assert labels() == chinese
    finally:
        i18n.install(app, "en")


def test_the_samples_table_names_its_columns_in_the_interface_language(qtbot, session, background, sample_project):
    """The columns of predictions.csv (input, reference, prediction, p_正面, ...) were shown by
    their file names in the Chinese window; the file keeps them, the table says them in words."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n
    from workbench.gui.pages.evaluate.page import EvaluatePage

    import pandas as pd

    _evaluated_run(sample_project)
    run_dir = sample_project / "runs" / "run-1"

    frame = pd.read_csv(run_dir / "eval" / "predictions.csv", encoding="utf-8-sig", dtype=str)
    frame["p_正面"], frame["base_prediction"] = "0.5", "中性"
    frame.to_csv(run_dir / "eval" / "predictions.csv", index=False, encoding="utf-8-sig")
    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        page = EvaluatePage(session, background)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.results_shown, timeout=5000):
            session.open(sample_project)
        model = page.samples_model
        headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
        assert headers == ["文本", "参考答案", "模型的回答", "正确", "P(正面)", "微调前的回答"], headers
        assert [model.index(r, 3).data() for r in range(model.rowCount())] == ["是", "是", "否", "是"]
        assert list(page.predictions.columns)[:3] == ["input", "reference", "prediction"]  # the file's own names
        assert list(page.predictions["correct"]) == ["True", "True", "False", "True"]  # ... and values
    finally:
        i18n.install(app, "en")


def test_the_filter_column_box_reads_whole_after_a_language_switch(qtbot, tmp_path, sample_project):
    """Seen at 1366x768: a window opened in Chinese and switched to English showed the filter's
    column box as "in all co": the box kept the width of "所有列" it was first shown with."""
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    app = QApplication.instance()
    try:
        for first, then in (("zh_CN", "en"), ("en", "zh_CN")):
            i18n.install(app, first)
            win = MainWindow(Settings(tmp_path / f"{first}.ini"))
            qtbot.addWidget(win)
            win.background.show_dialogs = False
            win.resize(1366, 768)
            win.show()
            win.open_project(sample_project)
            win.show_step("data")
            box = win.pages["data"].table_panel.filter_column
            qtbot.waitUntil(lambda: box.count() > 1, timeout=60000)
            i18n.install(app, then)
            qtbot.waitUntil(lambda: win._language == then, timeout=5000)
            qtbot.waitUntil(lambda: not win.background.active, timeout=30000)
            qtbot.wait(50)
            text = box.itemText(0)
            assert text == {"en": "in all columns", "zh_CN": "所有列"}[then]
            # the text and the box's arrow (about 20 pixels) fit
            assert box.width() >= box.fontMetrics().horizontalAdvance(text) + 20, (then, box.width())
    finally:
        i18n.install(app, "en")
