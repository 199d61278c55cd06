"""The main window, the first-start offer, the layer rule at run time, the translations."""

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from workbench.gui.resources import resources_dir

TS = resources_dir() / "translations" / "workbench_zh_CN.ts"


def test_gui_process_never_imports_paddle(tmp_path):
    code = textwrap.dedent(f"""
        import os, sys
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        os.environ["WORKBENCH_HOME"] = {str(tmp_path / 'home')!r}
        os.environ["WORKBENCH_PROJECTS_DIR"] = {str(tmp_path / 'projects')!r}
        from PySide6.QtCore import QEventLoop
        from workbench.gui.app import build_app, setup
        from workbench.gui.settings import Settings
        from workbench.gui.main_window import MainWindow, STEPS
        app = build_app([]); s = Settings(); setup(app, s)
        w = MainWindow(s); w.show()
        w.open_sample_project()
        import time
        end = time.time() + 60
        while w.session.project is None and time.time() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        assert w.session.project is not None
        for k in STEPS:
            w.show_step(k)
        app.processEvents()
        bad = sorted(m for m in sys.modules if m.split(".")[0] in ("paddle", "paddleformers", "paddle2onnx")
                     or m.startswith("workbench.engine"))
        print("BAD", bad)
        sys.exit(1 if bad else 0)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]


def test_main_window_steps_and_first_start_offer(qtbot, tmp_path):
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    s = Settings(tmp_path / "gui.ini")
    w = MainWindow(s)
    qtbot.addWidget(w)
    w.background.show_dialogs = False
    assert w.nav.count() == 5
    assert w.session.step_states()["train"] == "todo"
    box = w.offer_sample_project()
    assert box is not None and s.first_start_done
    assert w.offer_sample_project() is None  # only once
    box.close()
    with qtbot.waitSignal(w.session.project_changed, timeout=60000):
        w.open_sample_project()
    assert w.session.preferred_base_model == "builtin:tiny"
    assert w.session.step_states()["data"] == "done"
    assert str(w.session.root) in s.recent_projects[0]
    assert w.stack.currentWidget() is w._holders["train"]
    train = w.pages["train"]
    assert train.model_combo.currentData() == "builtin:tiny"


def test_every_string_has_a_chinese_translation():
    root = ET.parse(TS).getroot()
    msgs = list(root.iter("message"))
    assert len(msgs) > 300
    missing = [m.find("source").text for m in msgs
               if m.find("translation").get("type") in ("unfinished", "obsolete", "vanished")
               or not (m.find("translation").text or "").strip()]
    assert not missing, missing[:10]
    assert (TS.with_suffix(".qm")).is_file()


def test_translation_file_covers_the_current_sources(tmp_path):
    lupdate = Path(sys.executable).parent / "pyside6-lupdate"
    if not lupdate.is_file():
        pytest.skip("pyside6-lupdate is not installed")
    gui = Path(__file__).resolve().parents[2] / "workbench" / "gui"
    out = tmp_path / "fresh.ts"
    subprocess.run([str(lupdate), *sorted(str(p) for p in gui.rglob("*.py")), "-ts", str(out)],
                   check=True, capture_output=True)
    fresh = {(c.find("name").text, m.find("source").text) for c in ET.parse(out).getroot().iter("context")
             for m in c.iter("message")}
    shipped = {(c.find("name").text, m.find("source").text) for c in ET.parse(TS).getroot().iter("context")
               for m in c.iter("message")}
    assert not fresh - shipped, sorted(fresh - shipped)[:10]
    # a string lupdate could not place in a class (a module-level helper wrapping translate()
    # with a variable) lands in a context without a name, which no lookup ever finds
    nameless = sorted(src for ctx, src in fresh if not ctx)
    assert not nameless, nameless[:5]


def test_chinese_translation_loads(qtbot):
    from PySide6.QtCore import QCoreApplication, QTranslator

    t = QTranslator()
    assert t.load("workbench_zh_CN", str(resources_dir() / "translations"))
    QCoreApplication.installTranslator(t)
    try:
        assert QCoreApplication.translate("MainWindow", "2  Data") == "2  数据"
        from workbench.gui.pages.evaluate.words import method_name, split_name

        # the Evaluate summary line names the split and the method in the interface language
        assert (split_name("test"), split_name("val"), method_name("full")) == ("测试", "验证", "全量微调")
    finally:
        QCoreApplication.removeTranslator(t)


def test_bundled_cjk_font_has_the_glyphs(qtbot):
    # every Chinese character of the interface and the templates has an outline in the
    # shipped font (QRawFont.supportsCharacter is unreliable for large CFF fonts; the
    # glyph index and its outline are what rendering uses)
    from PySide6.QtGui import QRawFont

    path = next((resources_dir() / "fonts").glob("*.otf"))
    raw = QRawFont(str(path), 12)
    assert raw.isValid() and raw.familyName() == "Workbench Sans SC"
    chars = {c for c in TS.read_text(encoding="utf-8") if ord(c) >= 0x3000}
    for yaml_file in (resources_dir().parent / "templates").glob("*/template.yaml"):
        chars |= {c for c in yaml_file.read_text(encoding="utf-8") if ord(c) >= 0x3000}
    text = "".join(sorted(chars))
    ids = raw.glyphIndexesForString(text)
    missing = [c for c, g in zip(text, ids) if g == 0 or raw.pathForGlyph(g).isEmpty()]
    assert not missing, missing[:20]


def test_cycles_are_collected_on_the_gui_thread_only(qtbot):
    """Seen in CI: the cycle collector, run on a worker thread, destroyed a widget there and the
    window hung (its destructor waited for the GIL, the GUI thread for Qt's lock). The
    application collects on a timer on the GUI thread instead (pyqtgraph's GarbageCollector)."""
    import gc
    import threading
    import weakref

    from PySide6.QtWidgets import QApplication

    from workbench.gui.app import setup
    from workbench.gui.settings import Settings

    setup(QApplication.instance(), Settings())
    assert not gc.isenabled()  # no collection wherever an allocation happens to cross the threshold

    class Node:
        pass

    where = []
    node = Node()
    node.self = node  # a cycle: only the collector frees it
    weakref.finalize(node, lambda: where.append(threading.current_thread() is threading.main_thread()))
    del node
    junk = [[] for _ in range(5000)]  # past the collector's threshold
    qtbot.waitUntil(lambda: bool(where), timeout=5000)
    assert where == [True] and junk
