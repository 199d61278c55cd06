"""The Data page on files as they come: no header line, columns guessed from their cells and
confirmed, quoted labels, the text read from two columns, JSON Lines of documents; each
command line it shows goes through the real CLI parser."""

from __future__ import annotations

import csv
import json

from PySide6.QtWidgets import QStackedWidget

from workbench.cli import build_parser
from workbench.core.mapping import parse_mapping_args
from workbench.core.project import Project
from workbench.core.templates import TemplateCatalog
from workbench.gui.pages.data.page import DataPage

CATALOG = TemplateCatalog()


def _page(qtbot, session, background, tmp_path, template_id):
    session.create(tmp_path / "projects" / "p", CATALOG.get(template_id))
    page = DataPage(session, background)
    qtbot.addWidget(page)
    return page


def _parsed(page):
    args, _ = page.prepare_command()
    ns = build_parser().parse_args(args)
    assert (ns.command, ns.data_command) == ("data", "prepare")
    return ns


def _headless(tmp_path, n=60):
    path = tmp_path / "headlines.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        for i in range(n):
            good = i % 2
            w.writerow([str(1000 + i), f"第{i}家公司公告本季度营业收入同比{'增长' if good else '下降'}{i}%，"
                                       f"净利润{'上升' if good else '下滑'}", "正面" if good else "负面"])
    return path


def test_a_headerless_file_its_guessed_columns_confirmed_and_undone(qtbot, session, background, tmp_path):
    page = _page(qtbot, session, background, tmp_path, "finance_sentiment")
    path = _headless(tmp_path)
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(path)
    assert list(page.raw.columns) == ["col1", "col2", "col3"] and len(page.raw) == 60
    assert page.header is False and page.header_check.isVisibleTo(page) and not page.header_check.isChecked()
    # nothing named: the page suggests from the cells and waits for the user
    assert page.mapping == {"text": None, "label": None} and not page.prepare_button.isEnabled()
    assert page.guess_box.isVisibleTo(page) and "col2" in page.guess_label.text() and "col3" in page.guess_label.text()
    assert page.tabs.currentIndex() == page.mapping_tab
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.guess_button.click()
    assert page.mapping == {"text": "col2", "label": "col3"} and not page.guess_box.isVisibleTo(page)
    assert page.mapping_combos["text"].currentData() == "col2"
    ns = _parsed(page)
    assert ns.header is False and parse_mapping_args(ns.mapping) == {"text": "col2", "label": "col3"}
    page.undo_stack.undo()
    assert page.mapping == {"text": None, "label": None} and page.guess_box.isVisibleTo(page)
    page.undo_stack.redo()
    # the labels are the file's own (正面/负面 are the template's): prepare keeps the first row
    with qtbot.waitSignal(page.prepared, timeout=60000):
        page.prepare()
    cfg = Project.open(session.project.root).config
    assert cfg.source.header is False and cfg.source.rows == 60 and cfg.mapping == {"text": "col2", "label": "col3"}


def test_the_header_box_reads_the_file_again(qtbot, session, background, tmp_path):
    page = _page(qtbot, session, background, tmp_path, "finance_sentiment")
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(_headless(tmp_path))
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.header_check.setChecked(True)
    assert page.header is True and len(page.raw) == 59 and list(page.raw.columns)[0] == "1000"
    assert _parsed(page).header is True
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.header_check.setChecked(False)
    assert len(page.raw) == 60 and _parsed(page).header is False


def test_quoted_labels_get_the_quotes_step_and_undo_takes_it_away(qtbot, session, background, tmp_path):
    page = _page(qtbot, session, background, tmp_path, "medical_triage")
    path = tmp_path / "intents.csv"
    rows = [(f"第{i}个问题：头疼发烧应该怎么办", "'内科'" if i % 2 else "'儿科'") for i in range(40)]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([("主诉", "科室"), *rows])
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.import_file(path)
    assert page.recipe.steps[0].op == "unquote_labels"
    assert page.steps.steps_table.rowCount() == len(page.recipe.steps)
    assert set(page.cleaned_df["label"]) == {"内科", "儿科"}
    assert page.reports[0].cells_changed == 40
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        page.undo_stack.undo()
    assert all(s.op != "unquote_labels" for s in page.recipe.steps)
    # without the step the quoted values are not the template's labels
    assert "'内科'" in page.labels_editor.table_data.unknown_values


def test_the_text_from_two_columns(qtbot, session, background, tmp_path):
    page = _page(qtbot, session, background, tmp_path, "medical_triage")
    path = tmp_path / "ask.csv"
    rows = [(f"标题{i}", f"第{i}个问题：头痛发热怎么办", ["内科", "外科", "儿科"][i % 3]) for i in range(30)]
    with open(path, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh).writerows([("title", "ask", "科室"), *rows])
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(path)
    combo, second = page.mapping_combos["text"], page.mapping_second["text"]
    assert "label" not in page.mapping_second
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        combo.setCurrentIndex(combo.findData("title"))
    with qtbot.waitSignal(page.cleaned, timeout=30000):
        second.setCurrentIndex(second.findData("ask"))
    assert page.mapping["text"] == "title+ask"
    assert page.cleaned_df["text"].iloc[0] == "标题0\n第0个问题：头痛发热怎么办"
    assert parse_mapping_args(_parsed(page).mapping)["text"] == "title+ask"
    page.undo_stack.undo()
    assert page.mapping["text"] == "title" and second.currentData() is None


def test_jsonl_documents_show_a_row_per_record(qtbot, session, background, tmp_path):
    page = _page(qtbot, session, background, tmp_path, "legal_case_type_multi")
    path = tmp_path / "divorce.json"
    docs = [[{"labels": ["婚后有子女"], "sentence": f"第{i}句：双方育有一子。"},
             {"labels": [], "sentence": f"第{i}句：原告请求离婚。"}] for i in range(20)]
    path.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs), encoding="utf-8")
    with qtbot.waitSignal(page.loaded, timeout=30000):
        page.import_file(path)
    assert list(page.raw.columns) == ["doc", "labels", "sentence"] and len(page.raw) == 40
    assert "JSON Lines" in page.source_label.text()
    assert not page.header_check.isVisibleTo(page)
    qtbot.waitUntil(lambda: "(column doc)" in page.split_message.text(), timeout=30000)


def test_the_quotes_step_is_offered_where_there_is_a_label(qtbot, session, background, tmp_path):
    page = _page(qtbot, session, background, tmp_path, "medical_qa")
    assert not page.steps._add_actions["unquote_labels"].isEnabled()
    assert page.steps._add_actions["replace"].isEnabled()
    session.close()
    other = _page(qtbot, session, background, tmp_path / "b", "medical_triage")
    assert other.steps._add_actions["unquote_labels"].isEnabled()


def test_the_add_step_menu_outlives_its_tab_being_shown_through_qts_own_stack(qtbot, session, background, tmp_path):
    """Qt's tab widget keeps its pages in a stack of its own. PySide makes that stack's Python
    object the page's owner on setCurrentWidget; when the object goes, the actions Qt made
    under the page were left unusable ("QAction already deleted" on the next edit)."""
    page = _page(qtbot, session, background, tmp_path, "medical_triage")
    stack = page.steps.parentWidget()
    assert isinstance(stack, QStackedWidget)
    stack.setCurrentWidget(page.steps)
    del stack
    page._refresh_steps_table()
    assert page.steps._add_actions["unquote_labels"].isEnabled()
