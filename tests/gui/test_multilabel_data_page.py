"""The multi-label template on the Template and Data pages: the switch starts on, the label
separator field beside it, and the command line the page shows, read by the real CLI parser."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt

from workbench.cli.data import _label_choice
from workbench.cli import build_parser
from workbench.core.labels import template_choice
from workbench.core.mapping import parse_mapping_args
from workbench.core.project import Project
from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.data.page import DataPage
from workbench.gui.pages.template.page import TemplatePage

TID = "legal_case_type_multi"
LONG = "掩饰、隐瞒犯罪所得、犯罪所得收益罪"


def _parsed(page: DataPage):
    """The page's command line through the CLI's own parser and label-flag logic."""
    args, _ = page.prepare_command()
    ns = build_parser().parse_args(args)
    assert (ns.command, ns.data_command) == ("data", "prepare")
    # no label flag: a new project starts with the template's choice (as prepare() does)
    return ns, _label_choice(ns, page.session.template) or template_choice(page.session.template)


def _type_separator(qtbot, page, text: str) -> None:
    edit = page.labels_editor.sep_edit
    edit.setFocus()
    edit.clear()
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        if text.isascii():
            qtbot.keyClicks(edit, text)
        else:  # QTest types Latin-1 only
            edit.setText(text)
        qtbot.keyClick(edit, Qt.Key.Key_Return)


def test_the_template_page_shows_the_variant(qtbot, session, background):
    page = TemplatePage(session, background)
    qtbot.addWidget(page)
    page.select(TID)
    assert "several labels per row" in page.facts_label.text() and LONG in page.facts_label.text()
    assert page.cards[TID].property("selected") is True


def test_separator_field_and_command_line_follow_the_multi_label_switch(qtbot, session, background, tmp_path):
    template = TemplateCatalog().get(TID)
    root = tmp_path / "projects" / "charges"
    session.create(root, template)
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.cleaned, timeout=60000):
        page.import_file(template.sample_path)
    editor = page.labels_editor
    # the template starts multi-label, split on its own separator: the long charge stays whole
    assert editor.multi_check.isChecked() and editor.sep_edit.isEnabled() and editor.sep_edit.text() == ";"
    assert page.task.multi_label and LONG in page.task.labels
    ns, choice = _parsed(page)
    assert ns.multi_label is None and ns.label_sep is None  # the template's start needs no flag
    assert (ns.template, ns.input, ns.project) == (TID, str(template.sample_path), str(root))
    assert parse_mapping_args(ns.mapping) == {"text": "案情描述", "label": "罪名"}
    assert (ns.split, ns.seed) == ("0.8,0.1,0.1", 42)
    assert choice == page.current_label_choice()

    # another separator: the cells are split on it (the long name falls apart), and said so on the line
    _type_separator(qtbot, page, "、")
    assert page.label_choice.separator == "、" and LONG not in page.task.labels
    ns, choice = _parsed(page)
    assert ns.label_sep == "、" and choice == page.current_label_choice()
    # a separator that looks like a flag still reaches the parser as the separator
    for sep in ("-", "-x", " | "):
        _type_separator(qtbot, page, sep)
        ns, choice = _parsed(page)
        assert ns.label_sep == sep and choice.separator == sep == page.current_label_choice().separator
    # argparse drops a lone "--" even as --label-sep=--: the page leaves it off and says so
    _type_separator(qtbot, page, "--")
    ns, _ = _parsed(page)
    assert ns.label_sep is None and "--" in page.command_box.note.text() and not page.command_box.note.isHidden()
    # emptied: the default separators, stated on the command line as an empty value
    _type_separator(qtbot, page, "")
    assert page.label_choice.separator is None
    ns, choice = _parsed(page)
    assert ns.label_sep == "" and choice.separator is None and choice == page.current_label_choice()
    _type_separator(qtbot, page, ";")

    # switched off: the separator field is disabled, the line says --no-multi-label
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.multi_check.setChecked(False)
    assert not editor.sep_edit.isEnabled() and not page.task.multi_label
    ns, choice = _parsed(page)
    assert ns.multi_label is False and ns.label_sep is None and choice == page.current_label_choice()
    assert "--no-multi-label" in page.command_box.text()
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.multi_check.setChecked(True)
    assert editor.sep_edit.isEnabled() and editor.sep_edit.text() == ";"

    # the page's prepare and the command line's give the same project
    with qtbot.waitSignal(page.prepared, timeout=60000):
        page.prepare()
    project = Project.open(root)
    assert project.task.multi_label and project.config.labels.separator == ";"
    rows = [json.loads(x) for x in project.split_path("train").read_text("utf-8").splitlines()]
    assert any(len(r["labels"]) >= 3 for r in rows)
    ns, _ = _parsed(page)
    ns.project = str(tmp_path / "from-cli")
    ns.json = False
    assert ns.func(ns) == 0
    other = Project.open(tmp_path / "from-cli")
    assert other.task == project.task
    assert other.split_path("test").read_text("utf-8") == project.split_path("test").read_text("utf-8")


def test_the_train_page_trains_a_head_for_a_multi_label_project_with_a_pretrained_model(qtbot, session, background,
                                                                                       tmp_path):
    """A pretrained model learns several labels per row with a classification head (one sigmoid
    per label): the page no longer refuses it, and its job says so."""
    import sys
    from pathlib import Path

    from workbench.core.project import prepare
    from workbench.gui.pages.train.page import TrainPage

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from model_factory import make_model_folder

    template = TemplateCatalog().get(TID)
    root = tmp_path / "projects" / "charges"
    prepare(template, template.sample_path, root)
    session.open(root)
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    folder = make_model_folder("llama", tmp_path / "my-llama")
    page.model_combo.setCurrentIndex(page.model_combo.findData("folder"))
    page.model_edit.setText(str(folder))
    job = page.job_spec()
    assert job.head and job.base_model == str(folder) and job.method == "lora"


def test_rows_with_no_label_kept_or_dropped_from_the_page_and_its_command_line(qtbot, session, background, tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from data_factory import sentences_jsonl

    template = TemplateCatalog().get(TID)
    root = tmp_path / "projects" / "divorce"
    session.create(root, template)
    page = DataPage(session, background)
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.cleaned, timeout=60000):
        page.import_file(sentences_jsonl(tmp_path / "divorce.jsonl", fields=("案情描述", "罪名")))
    editor = page.labels_editor
    if page.current_label_choice().source != "data":
        with qtbot.waitSignal(page.cleaned, timeout=30000):
            editor.use_found_button.click()
    assert not editor.no_label_combo.isHidden() and "60" in editor.no_label_label.text()
    assert editor.no_label_combo.currentData() == "keep" and page.task.no_label_rows
    ns, choice = _parsed(page)
    assert ns.no_label_rows is None and choice.no_label == "keep"
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        editor.no_label_combo.setCurrentIndex(editor.no_label_combo.findData("drop"))
    assert page.label_choice.no_label == "drop" and not page.task.no_label_rows
    ns, choice = _parsed(page)
    assert ns.no_label_rows == "drop" and choice == page.current_label_choice()
