"""The Chinese interface is Chinese: no page shows English words but names.

Seen in a window switched to Chinese: cleaning steps "1. Trim whitespace", "2. Normalise Unicode
(full-width 至 half-width)", "7. Drop duplicate 行"; "recognised alpaca format: mapped 至
instruction/input/output"; "About 64 steps, 07:21 至 10:00 … Rows per step lowered 至 4": English
texts the window had drawn from data were put into Chinese word by word ("to" → 至, "rows" → 行).
"""

from __future__ import annotations

import re

from test_language import _evaluated_run, _window_on_every_page

# names and codes a Chinese interface writes in Latin letters
NAMES = {
    "Workbench", "Gemma", "LoRA", "CSV", "TSV", "JSON", "JSONL", "Excel", "Parquet", "ERNIE", "Qwen", "Llama",
    "ONNX", "Runtime", "GGUF", "Paddle", "PaddlePaddle", "PaddleFormers", "PaddleNLP", "Inference", "GPU", "CPU",
    "MB", "GB", "KB", "ms", "int", "fp", "bf", "safetensors", "llama", "cpp", "ollama", "macro", "micro", "F1", "ROUGE",
    "BLEU", "UTF", "BOM", "GB18030", "Unicode", "HTML", "HTTP", "OpenAI", "Docker", "Dockerfile", "Linux", "Windows",
    "macOS", "Python", "pip", "wheels", "requirements", "lock", "predict", "py", "serve", "txt", "xlsx", "xls", "md",
    "html", "jsonl", "json", "csv", "tsv", "parquet", "id", "ID", "URL", "PII", "AdamW", "batch", "oneDNN", "Apple",
    "ARM", "ARM64", "x86", "VisualDL", "alpaca", "Alpaca", "ShareGPT", "src", "tgt", "tokens", "TF", "IDF", "n-gram", "gram",
    "Hugging", "Face", "builtin", "tiny", "small", "run", "step", "eval", "loss", "lr", "Enter", "Tab", "Ctrl",
    "Shift", "Alt", "col", "Google", "M",
    "row", "label",  # row_id and label: the two columns a corrections file has, as the file must name them
}
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z]+")
TAG = re.compile(r"<[^>]+>|&[a-z]+;|\{\w+\}|“(?:pip|workbench|ssh-\w+) [^”]*”")  # markup, placeholders, commands
PATH = re.compile(r"(?:[A-Za-z]:)?[\\/]?(?:[\w.-]+[\\/])+[\w.-]*|\b[\w-]+\.(?:csv|json|jsonl|xlsx|html|py|md|lock)\b")


def _texts(win):
    """Every text of every page and tab, the cells of the small tables included (cleaning steps)."""
    from PySide6.QtWidgets import QTableWidget

    from test_language import _texts_of_every_page

    out = [(page, kind, text) for page, kind, text in _texts_of_every_page(win)]
    for key, page in win.pages.items():
        for table in page.findChildren(QTableWidget):
            for r in range(table.rowCount()):
                for c in range(table.columnCount()):
                    item = table.item(r, c)
                    if item is not None and item.text():
                        out.append((key, "cell", item.text()))
    return out


def _english(texts, data_words: set[str]) -> list[tuple[str, str, str]]:
    """The texts with a Latin word that is neither a name nor taken from the data."""
    out = []
    for page, kind, text in texts:
        plain = PATH.sub(" ", TAG.sub(" ", text))  # paths and file names are data, markup is not shown
        words = {w for w in LATIN_WORD.findall(plain) if w not in NAMES and w not in data_words}
        if words:
            out.append((page, kind, text))
    return out


def _dump(found) -> None:
    import os

    if os.environ.get("WB_ENGLISH"):
        with open(os.environ["WB_ENGLISH"], "a", encoding="utf-8") as f:
            f.writelines(f"{x!r}\n" for x in found)


def _data_words(project) -> set[str]:
    """Words the project's own files and template put on screen: its path, run ids, the label
    spellings its labels step maps (Positive → 正面)."""
    import json

    words = set(LATIN_WORD.findall(str(project)))

    def leaves(v):
        if isinstance(v, dict):
            for x in v.values():
                yield from leaves(x)
        elif isinstance(v, list):
            for x in v:
                yield from leaves(x)
        elif isinstance(v, str):
            yield v

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if "aliases" in k:
                    for text in [*leaves(x), *(x if isinstance(x, dict) else {})]:
                        words.update(LATIN_WORD.findall(text))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(json.loads((project / "project.json").read_text(encoding="utf-8")))
    return words


def test_every_page_in_chinese_has_no_english_words(qtbot, tmp_path, sample_project):
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n

    _evaluated_run(sample_project)
    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        fresh = _window_on_every_page(qtbot, tmp_path, "fresh", sample_project)
        english = _english(_texts(fresh), _data_words(sample_project))
        _dump([("fresh", *e) for e in english])
        assert not english, english[:15]
    finally:
        i18n.install(app, "en")


def test_a_window_switched_to_chinese_has_no_english_words(qtbot, tmp_path, sample_project):
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n

    _evaluated_run(sample_project)
    app = QApplication.instance()
    try:
        i18n.install(app, "en")
        win = _window_on_every_page(qtbot, tmp_path, "switched", sample_project)
        i18n.install(app, "zh_CN")
        qtbot.waitUntil(lambda: win._language == "zh_CN", timeout=5000)
        qtbot.waitUntil(lambda: not win.background.active, timeout=30000)
        qtbot.wait(100)
        english = _english(_texts(win), _data_words(sample_project))
        _dump([("switched", *e) for e in english])
        assert not english, english[:15]
    finally:
        i18n.install(app, "en")


def test_english_the_catalogue_does_not_hold_is_not_translated_word_by_word():
    from workbench.gui.resources import translations_dir
    from workbench.gui.retranslate import catalogue

    cat = catalogue(str(translations_dir() / "workbench_zh_CN.ts"))
    for text in ("Normalise Unicode (full-width to half-width)", "Drop duplicate rows",
                 "recognised alpaca format: mapped to instruction/input/output"):
        assert cat.convert(text, False) == text  # whole, or not at all
    estimate = ("About 64 steps, 07:21 to 10:00 and 300 MB of memory on this computer's processor (an estimate "
                "from the data size and the model, not a promise).\nRows per step lowered to 4 so that training "
                "fits in this computer's 8 GB of memory.")
    shown = cat.convert(estimate, False)
    assert set(LATIN_WORD.findall(shown)) <= {"MB", "GB"}, shown
    assert shown.startswith("约 64 步") and "\n每批条数已降为 4" in shown
    # figures and names in a catalogued message still are
    assert cat.convert("1,234 rows", False) == "1,234 行"
    assert cat.convert("07:21 to 10:00", False) == "07:21 至 10:00"


def test_what_the_reader_noted_is_said_in_chinese(qtbot, session, background, tmp_path):
    """Seen: "recognised alpaca format: mapped to instruction/input/output" in the Chinese window."""
    import json

    from PySide6.QtWidgets import QApplication

    from workbench.core.templates import TemplateCatalog
    from workbench.gui import i18n
    from workbench.gui.pages.data.page import DataPage

    app = QApplication.instance()
    path = tmp_path / "qa.json"
    path.write_text(json.dumps([{"instruction": f"问题{i}", "input": "", "output": f"回答{i}"} for i in range(20)],
                               ensure_ascii=False), encoding="utf-8")
    try:
        i18n.install(app, "zh_CN")
        session.create(tmp_path / "projects" / "qa", TemplateCatalog().get("finance_service_qa"))
        page = DataPage(session, background)
        qtbot.addWidget(page)
        with qtbot.waitSignal(page.loaded, timeout=30000):
            page.import_file(path)
        line = page.source_label.text()
        assert "instruction/input/output" in line and "alpaca" in line, line
        english = _english([("data", "QLabel", line)], {"qa", "instruction", "input", "output", "alpaca"})
        assert not english, line
    finally:
        i18n.install(app, "en")


def _dialog_texts(dialog) -> list[tuple[str, str]]:
    """(widget class, text) of what a dialog shows: its title, labels, buttons, fields' hints,
    boxes and table headers and cells."""
    from PySide6.QtWidgets import (
        QAbstractButton, QComboBox, QGroupBox, QLabel, QLineEdit, QPlainTextEdit, QTableWidget, QWidget,
    )

    out = [("title", dialog.windowTitle())]
    for w in dialog.findChildren(QWidget):
        if not w.isVisibleTo(dialog):
            continue
        kind, texts = type(w).__name__, [w.toolTip()]
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        if isinstance(w, QGroupBox):
            texts.append(w.title())
        if isinstance(w, (QLineEdit, QPlainTextEdit)):
            texts.append(w.placeholderText())
        if isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        if isinstance(w, QTableWidget):
            texts += [w.horizontalHeaderItem(c).text() for c in range(w.columnCount()) if w.horizontalHeaderItem(c)]
        out += [(kind, t) for t in texts if t]
    return out


def test_the_dialogs_and_the_errors_they_show_in_chinese_have_no_english_words(qtbot, tmp_path, sample_project):
    """The walk above went through the pages only; the dialogs showed English: the Servers dialog's
    check error, a refused server, the New project dialog's warnings."""
    from PySide6.QtWidgets import QApplication

    from workbench.core.targets import add_target
    from workbench.gui import i18n
    from workbench.gui.dialogs import EnvironmentDialog, NewProjectDialog
    from workbench.gui.main_window import MainWindow
    from workbench.gui.pages.train.servers import AddServerDialog, ServersDialog
    from workbench.gui.settings import Settings

    add_target("fake2", "ssh://nobody@127.0.0.1:1")  # nothing listens on port 1
    empty_model = tmp_path / "空模型"
    empty_model.mkdir()
    app = QApplication.instance()
    seen: list[tuple[str, str, str]] = []
    try:
        i18n.install(app, "zh_CN")
        win = MainWindow(Settings(tmp_path / "gui.ini"))
        qtbot.addWidget(win)
        win.background.show_dialogs = False
        shown = []
        win.background.error_shown.connect(lambda title, message: shown.append((title, message)))
        win.open_project(sample_project)
        train = win.pages["train"]

        train.servers_button.click()  # the Servers dialog, and its check of a server out of reach
        servers = win.findChild(ServersDialog)
        seen += [("servers", *t) for t in _dialog_texts(servers)]
        servers.check("fake2")
        qtbot.waitUntil(servers.check_button.isEnabled, timeout=60000)
        seen.append(("servers", "report", servers.report.text()))

        add = AddServerDialog(servers)  # Add server, and what it says of a name it refuses
        seen += [("add server", *t) for t in _dialog_texts(add)]
        add.name.setText("gpu box")
        add.url.setText("ssh://ana@10.0.0.5")
        add._on_buttons_accepted()
        seen.append(("add server", "error", add.error.text()))
        servers.close()

        win.new_project()  # New project, and its warning for a name it cannot take
        new = win.findChild(NewProjectDialog)
        seen += [("new project", *t) for t in _dialog_texts(new)]
        new.name_edit.setText("a/b")
        seen.append(("new project", "message", new.message.text()))
        new.reject()

        seen.append(("about", "text", win.about_text()))
        env = EnvironmentDialog(win.background, win)  # the environment, as its check reports it
        env.show_report({"paddle_version": "3.0.0", "paddleformers_version": "0.2", "devices": ["cpu"],
                         "run_check": {"ok": True, "output": ""}, "python": "3.11.9", "platform": "Linux"})
        seen += [("environment", *t) for t in _dialog_texts(env)]

        panel = train.models_panel  # adding a model: the menu, the progress, and a folder it refuses
        seen += [("models", "menu", a.text()) for a in panel.add_button.menu().actions()]
        op = panel.add_model(empty_model)
        seen.append(("models", "progress", panel.progress_dialog.labelText()))
        qtbot.waitUntil(lambda: not op.running and panel.op is None, timeout=60000)
        assert shown, "the refused model folder said nothing"
        seen += [("error", title, message) for title, message in shown]
        win.open_project(tmp_path)  # a folder that is no project
        seen += [("error", title, message) for title, message in shown[-1:]]
    finally:
        i18n.install(app, "en")
    assert any("无法连接服务器 fake2" in text for *_, text in seen), seen
    words = {"fake", "nobody", "ana", "box", "SSH", "ssh", "cpu", "gpu", "npu", "python", "Noto", "Sans", "CJK", "SIL",
             "Open", "Font", "License", "workbench", "server", "qwen", "legal"}  # names, values, the work folder's
    # default name, an example model id | _data_words(sample_project) | set(LATIN_WORD.findall(str(tmp_path)))
    english = _english(seen, words)
    _dump(english)
    assert not english, english[:15]
