"""What the core and the child commands report reaches the window in its language.

Seen in the Chinese window: the Servers dialog's check said "Server 'fake2' (ssh://nobody@127.0.0.1:1)
cannot be reached (ssh: connect to host …: Connection refused)…", all English: core errors and a
child command's "error: ..." line were shown as they came. A core error carries a code and its
fields; the window words the code (gui/error_texts.py), the command line prints the English."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from error_sites import codes_of, coded_calls
from test_chinese_pages import LATIN_WORD, _english

ROOT = Path(__file__).resolve().parents[2]
# words of the names, files and commands the texts hold
NAMES = {"SSH", "OpenSSH", "openssh", "client", "Debian", "Ubuntu", "workbench", "targets", "wheelhouse", "DIR",
         "config", "tokenizer", "model", "vocab", "bin", "pdparams", "gguf", "cpu", "gpu", "npu", "ssh", "user",
         "host", "port", "qwen", "legal", "Lines", "TFRecord", "TFRecordWriter", "Example", "io", "tf", "train",
         "YAML", "sample", "data", "hospital", "triage", "pickle", "assemble", "float", "bfloat", "Modelfile",
         "RoPE", "rope", "freqs", "linear", "yarn", "BPE", "SentencePiece", "gpt", "ggml", "merges", "token",
         "embd", "embed", "weight",
         "row", "label"}  # the columns of a file of corrections, row_id and label


def _raised_codes() -> dict[str, list[tuple[str, set[str]]]]:
    """Every code the core, the engine and the command line give an error or a problem, with
    the sites that give it and the fields each gives."""
    found: dict[str, list[tuple[str, set[str]]]] = {}
    for path, line, call in coded_calls():
        names = {k.arg for k in call.keywords if k.arg and k.arg != "code"}
        assert not any(k.arg is None for k in call.keywords), (path, line, "fields by name, not **")
        for code in codes_of(call):
            found.setdefault(code, []).append((f"{path}:{line}", names))
    return found


# values of the fields a text words itself (the rest are shown as they come)
WORDED_SAMPLES = {
    ("no_base_comparison", "why"): "builtin", ("no_int8", "why"): "builtin_classifier", ("no_gguf", "why"): "head",
}
FIGURES = {"difference": "0.51", "scale": "12.3", "relative": "0.041", "times": "400", "rounding": "1e-04",
           "tokens": 3, "positions": 64}


def _sample(name: str, code: str = ""):
    if (code, name) in WORDED_SAMPLES:
        return WORDED_SAMPLES[code, name]
    if name == "reason":
        return "refused"
    if name == "field":
        return "name"
    if name == "part":
        return "static"
    if name == "figures":
        return FIGURES
    if name == "op":
        return "replace"
    if name == "delimiter":
        return "semicolon"
    if name == "split":
        return "test"
    if name in ("known", "devices", "files", "supported", "columns", "sheets", "runs", "formats", "ratios"):
        return ["x1", "x2"]
    if name in ("need_gb", "free_gb", "seconds", "keep", "missing", "total", "pid", "step", "line", "row",
                "minutes", "rows", "tokens"):
        return 3
    return f"v{len(name)}"


def test_every_code_the_core_gives_has_a_text_in_both_languages():
    """Each site's own fields fill its code's text: a field a text names but one site leaves out
    would show that site's error in English."""
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n
    from workbench.gui.error_texts import error_text

    codes = _raised_codes()
    assert {"server_unreachable", "not_a_project", "file_empty", "disk_full", "server_other_version",
            "model_folder_missing", "gguf_unreadable", "model_name_taken", "export_differs", "no_gguf",
            "licence_not_accepted", "checkpoint_weights_wrong", "cancelled", "jsonl_line_invalid"} <= set(codes)
    app = QApplication.instance() or QApplication([])
    try:
        for lang in ("en", "zh_CN"):
            i18n.install(app, lang)
            for code, sites in sorted(codes.items()):
                for site, names in sites:
                    text = error_text(code, {n: _sample(n, code) for n in names}, "FALLBACK")
                    assert text != "FALLBACK" and "{" not in text, (lang, code, site, sorted(names), text)
                    if lang == "zh_CN":
                        assert not _english([("", "", text)], NAMES | {"refused"}), (code, text)  # an OS's reason
    finally:
        i18n.install(app, "en")


def test_every_text_of_the_window_has_its_chinese():
    """Every text gui/error_texts.py words a code with, and the words it fills in, has a finished
    Chinese translation that keeps the text's placeholders."""
    import re
    import xml.etree.ElementTree as ET

    source = ROOT / "workbench" / "gui" / "error_texts.py"
    texts = {node.args[1].value for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "QT_TRANSLATE_NOOP"
             and node.args[0].value == "ErrorText"}
    assert len(texts) > 200, len(texts)  # the walk finds the texts at all
    translated = {}
    ts = ET.parse(ROOT / "resources" / "translations" / "workbench_zh_CN.ts").getroot()
    for context in ts.iter("context"):
        if context.findtext("name") == "ErrorText":
            for m in context.iter("message"):
                tr = m.find("translation")
                if tr.get("type") not in ("unfinished", "vanished", "obsolete") and (tr.text or "").strip():
                    translated[m.findtext("source")] = tr.text
    missing = sorted(texts - set(translated))
    assert not missing, missing
    placeholder = re.compile(r"\{\d\}")
    for text in texts:
        assert sorted(set(placeholder.findall(text))) == sorted(set(placeholder.findall(translated[text]))), text


def test_an_unknown_code_shows_the_cores_message():
    from workbench.gui.error_texts import error_text

    assert error_text("a_code_of_a_newer_core", {}, "As it came.") == "As it came."
    assert error_text("server_unreachable", {"server": "lab"}, "As it came.") == "As it came."  # fields missing


def test_a_command_given_json_ends_a_failure_with_its_code(tmp_path):
    import os

    from workbench.core.progress import parse_error

    env = {**os.environ, "WORKBENCH_HOME": str(tmp_path / "home")}
    res = subprocess.run([sys.executable, "-m", "workbench", "targets", "check", "nosuch", "--json"],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert res.returncode == 2
    assert "error: No server is registered as 'nosuch'" in res.stderr  # the English for people
    error = parse_error(res.stdout.splitlines()[-1])
    assert error["code"] == "server_not_registered" and error["fields"]["server"] == "nosuch", res.stdout
    assert error["message"].startswith("No server is registered as 'nosuch'")


@pytest.fixture
def chinese(qapp):
    from PySide6.QtWidgets import QApplication

    from workbench.gui import i18n

    app = QApplication.instance()
    i18n.install(app, "zh_CN")
    yield
    i18n.install(app, "en")


def _checked(qtbot, background, name):
    from workbench.gui.pages.train.servers import ServersDialog

    dialog = ServersDialog(background)
    qtbot.addWidget(dialog)
    dialog.check(name)
    qtbot.waitUntil(lambda: dialog.check_button.isEnabled(), timeout=60000)
    return dialog.report.text()


def test_a_server_out_of_reach_is_said_in_the_interface_language(qtbot, background):
    from workbench.core.targets import add_target
    from workbench.gui import i18n
    from PySide6.QtWidgets import QApplication

    add_target("fake2", "ssh://nobody@127.0.0.1:1")  # nothing listens on port 1
    english = _checked(qtbot, background, "fake2")
    assert english.startswith("Server fake2 (ssh://nobody@127.0.0.1:1) cannot be reached: it refused the "
                              "connection. Check that it is on"), english
    app = QApplication.instance()
    try:
        i18n.install(app, "zh_CN")
        chinese = _checked(qtbot, background, "fake2")
    finally:
        i18n.install(app, "en")
    assert chinese.startswith("无法连接服务器 fake2（ssh://nobody@127.0.0.1:1）：它拒绝了连接。"), chinese
    assert not _english([("servers", "report", chinese)], {"fake", "nobody"} | NAMES), chinese


def test_the_problems_a_check_found_are_shown_in_the_interface_language(qtbot, background, chinese, monkeypatch):
    """A check that found problems exits 1 after its report: the dialog showed "The 'targets' command
    ended with status 1" instead of the problems."""
    from workbench.core.errors import coded
    from workbench.core.targets import add_target

    add_target("lab", "ssh://ana@gpu.example.org")
    report = {"target": "lab", "url": "ssh://ana@gpu.example.org", "workdir": "/srv/wb", "problems": [coded(
        "Workbench is not installed for python3 on the server. Install it with: ...", "server_without_workbench",
        python="python3", command="python3 -m pip install 'workbench==1.0' -c constraints.txt")]}
    script = f"import json, sys; print(json.dumps({report!r})); sys.exit(1)"
    monkeypatch.setattr(background, "command", lambda args, title: background.process(
        [sys.executable, "-c", script], title, name="targets"))
    text = _checked(qtbot, background, "lab")
    assert text.startswith("问题：服务器上的 python3 没有安装 Workbench。请在那里用“python3 -m pip install"), text
    assert "status" not in text and "状态" not in text


def test_a_server_refused_in_the_add_dialog_is_said_in_the_interface_language(qtbot, chinese):
    from workbench.core.targets import list_targets
    from workbench.gui.pages.train.servers import AddServerDialog

    dialog = AddServerDialog()
    qtbot.addWidget(dialog)
    dialog.name.setText("gpu box")
    dialog.url.setText("ssh://ana@10.0.0.5")
    dialog._on_buttons_accepted()
    assert dialog.error.text().startswith("名称无效"), dialog.error.text()
    dialog.name.setText("gpu-box")
    dialog.url.setText("http://10.0.0.5")
    dialog._on_buttons_accepted()
    assert dialog.error.text().startswith("地址无效"), dialog.error.text()
    assert not list_targets()


def test_a_data_file_the_page_cannot_read_is_said_in_the_interface_language(qtbot, background, chinese, tmp_path):
    from workbench.gui.background import describe_error
    from workbench.core.errors import WorkbenchError
    from workbench.core.io import read_table

    empty = tmp_path / "客户反馈.csv"
    empty.write_bytes(b"")
    with pytest.raises(WorkbenchError) as caught:
        read_table(empty)
    message, details = describe_error(caught.value)
    assert message == "客户反馈.csv 是空文件（0 字节）。请选择包含数据的文件。" and details is None


def test_a_file_that_is_not_gguf_is_said_in_the_interface_language(qtbot, background, chinese, tmp_path):
    """Seen in the Chinese window: adding a .gguf file that was a download cut short said "… is not a
    readable GGUF file (…)" in English. The engine's refusal comes back from the real
    'workbench models add' child with its code, and the window says it in Chinese."""
    from workbench.core import models_store as store
    from workbench.gui.pages.train.models_panel import ModelsPanel

    fake = tmp_path / "法律助手-q4_k_m.gguf"
    fake.write_bytes(b"GGUF\x03\x00")  # a download that stopped after its first bytes
    panel = ModelsPanel(background)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(background.error_shown, timeout=120000) as shown:
        assert panel.add_model(fake) is not None
    message = shown.args[1]
    assert message.startswith("法律助手-q4_k_m.gguf 不是可读取的 GGUF 文件（"), message
    assert message.endswith("它可能不完整（下载中途停止），也可能是其他类型的文件；请重新下载或复制。"), message
    assert store.list_models() == []


def test_a_run_whose_model_folder_is_gone_fails_in_the_interface_language(qtbot, session, background, chinese,
                                                                         sample_project, tmp_path):
    """Seen: a run of a model folder moved away since failed at once, and the Train page said why in
    English. The real worker ends the run with the error's code and fields beside its message."""
    import json

    from workbench.core.jobs import JobSpec, new_run_id, write_job
    from workbench.core.runs import launch_worker
    from workbench.gui.pages.train.page import TrainPage

    gone = tmp_path / "models" / "qwen2-legal"
    config = json.loads((sample_project / "project.json").read_text(encoding="utf-8"))
    job = JobSpec(project=str(sample_project), template=config["template"], task="classification",
                  base_model=str(gone), method="lora", device="cpu")
    run_dir = sample_project / "runs" / new_run_id()
    write_job(run_dir, job)
    assert launch_worker(run_dir, detach=False).wait(timeout=240) == 1
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.select_run(run_dir.name)
    summary = session.monitor.summary(run_dir.name)
    assert summary.error_code == "model_folder_missing" and summary.error_fields == {"path": str(gone)}
    assert summary.error.startswith(f"The model folder {gone} does not exist.")  # the command line's English
    assert f"模型文件夹 {gone} 不存在。请选择一个已有的文件夹。" in page.failure_banner.text(), page.failure_banner.text()


def test_a_failed_write_is_said_in_the_interface_language(chinese):
    import errno

    from workbench.gui.background import describe_error

    message, _ = describe_error(OSError(errno.ENOSPC, "No space left on device", "/data/runs/run-1"))
    assert message.startswith("磁盘已满（/data/runs/run-1）"), message
    assert not set(LATIN_WORD.findall(message.replace("/data/runs/run-1", ""))), message


def test_a_folder_that_is_no_project_offers_new_project_in_the_windows_words(qtbot, tmp_path):
    """`workbench gui --project DIR` on a folder without a project advised 'workbench data prepare',
    a command, in the window."""
    from PySide6.QtWidgets import QMessageBox, QPushButton

    from workbench.gui.dialogs import NewProjectDialog
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    folder = tmp_path / "projects" / "complaints"
    folder.mkdir(parents=True)
    win = MainWindow(Settings(tmp_path / "gui.ini"))
    qtbot.addWidget(win)
    shown = []
    win.background.error_shown.connect(lambda title, message: shown.append(message))
    assert not win.open_project(folder)
    box = win.findChild(QMessageBox)
    assert box is not None and box.text() == shown[-1]
    assert "workbench data prepare" not in box.text() and "File › New project…" in box.text(), box.text()
    new = [b for b in box.findChildren(QPushButton) if b.text() == "New project…"]
    assert new, [b.text() for b in box.findChildren(QPushButton)]
    new[0].click()
    qtbot.waitUntil(lambda: win.findChild(NewProjectDialog) is not None, timeout=5000)
    dialog = win.findChild(NewProjectDialog)
    assert dialog.project_dir == folder  # named after the folder it was given


def _reported_stages() -> set[str]:
    """The stage names the engine, the core and the command line report progress under."""
    stages = set()
    for path in (ROOT / "workbench").rglob("*.py"):
        if path.relative_to(ROOT / "workbench").parts[0] in ("gui", "bundle") or "bundle" in path.parts[-2:-1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            at = {"report": 0, "progress": 0, "_report": 1}.get(node.func.id)
            if at is not None and len(node.args) >= at + 2:
                arg = node.args[at]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    stages.add(arg.value)
                elif isinstance(arg, ast.IfExp):
                    stages |= {a.value for a in (arg.body, arg.orelse) if isinstance(a, ast.Constant)}
    return stages


def test_every_stage_a_command_reports_is_named_in_the_interface_language(chinese):
    """Seen: the model-add dialog said "read" and "tensors", the export "gguf", as the command reported them."""
    from workbench.gui.commands import stage_text

    stages = _reported_stages()
    assert {"import", "tensors", "copy", "requirements", "wheels", "gguf"} <= stages, stages
    said = {stage: stage_text(stage) for stage in stages}
    assert not [s for s, text in said.items() if text == s], said  # none shown as it came
    assert not _english([("", "", text) for text in said.values()], {"int", "GGUF", "ONNX"}), said


def test_export_progress_names_the_wheels_only_when_they_are_fetched(qapp):
    """Seen: "pinning the requirements (and the wheels)" on an export that fetched no wheels."""
    from workbench.gui.commands import stage_text

    assert "wheel" not in stage_text("requirements") and "wheels" in stage_text("wheels")
