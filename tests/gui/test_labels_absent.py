"""The Labels tab counts the labels the project will have, and the prompt names only those.

Seen on a financial headlines file with only 正面 and 负面: the Labels tab said "3 labels (the
template's labels)" and dropped 中性 without a word, and the system prompt still said
只回答"正面""中性""负面"之一."""

from __future__ import annotations

import re

from workbench.core.labels import LabelTable
from workbench.core.task import TaskSpec
from workbench.core.templates import TemplateCatalog


def test_a_label_no_row_has_is_named_and_not_counted(qtbot):
    from workbench.gui.pages.data.labels_editor import LabelsEditor

    table = LabelTable({"正面": 40, "负面": 25, "利好": 3}, ["正面", "中性", "负面"], {"正面": ["利好"]})
    assert table.absent == ["中性"]
    editor = LabelsEditor()
    qtbot.addWidget(editor)
    editor.set_table(table)
    text = editor.summary.text()
    assert text.startswith("2 labels (the template's labels)"), text
    assert "no row has 中性: left out of the project" in text


def test_every_label_present_says_nothing_more(qtbot):
    from workbench.gui.pages.data.labels_editor import LabelsEditor

    editor = LabelsEditor()
    qtbot.addWidget(editor)
    editor.set_table(LabelTable({"正面": 4, "中性": 2, "负面": 1}, ["正面", "中性", "负面"]))
    assert editor.summary.text().startswith("3 labels") and "left out" not in editor.summary.text()


def test_no_template_prompt_names_its_labels_itself():
    """A prompt names labels through {labels}, which the project's own label set fills in."""
    for template in TemplateCatalog():
        if not template.labels:
            continue
        for lang in ("zh", "en"):
            system = template.prompt.system.get(lang) or ""
            named = [lab for lab in template.labels if re.search(rf"(?<![\w]){re.escape(lab)}(?![\w])", system)]
            assert not named, (template.id, lang, named, system)
    finance = TemplateCatalog().get("finance_sentiment")
    task = TaskSpec.from_template(finance).with_labels(["正面", "负面"])
    assert "中性" not in task.system_text("zh") and "正面/负面" in task.system_text("zh")
