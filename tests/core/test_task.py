"""The project owns its task: labels, aliases, prompt and columns live in project.json."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from pydantic import ValidationError

from workbench.core.project import Project, prepare
from workbench.core.task import TaskSpec
from workbench.core.templates import TemplateCatalog

CATALOG = TemplateCatalog()


def test_from_template_copies_the_task_and_renders_the_label_list():
    t = CATALOG.get("medical_triage")
    spec = TaskSpec.from_template(t, {"text": "主诉内容", "label": "科别", "extra": None})
    assert spec.task is t.task and spec.template == spec.id == "medical_triage"
    assert spec.labels == t.labels and spec.label_aliases == t.label_aliases
    assert spec.columns == {"text": "主诉内容", "label": "科别"}
    assert spec.roles == t.roles and spec.input_roles == ["text"]
    mine = spec.with_labels(["肝病科", "消化科", "心血管科{急}"])
    text = mine.user_text({"text": "胸口闷痛两天"})
    assert "（肝病科/消化科/心血管科{急}）" in text and text.endswith("胸口闷痛两天")
    assert "内科" not in mine.user_format
    assert mine.label_aliases == {}  # aliases of labels no longer in the set go with them
    # the template object is not changed by the copy
    assert "内科" in t.labels


def test_task_rejects_unknown_placeholders_and_duplicate_labels():
    t = CATALOG.get("finance_sentiment")
    spec = TaskSpec.from_template(t)
    with pytest.raises(ValidationError, match="placeholder"):
        TaskSpec.model_validate({**spec.model_dump(), "prompt": {"system": spec.prompt.system.model_dump(),
                                                                  "user": "{txt}"}})
    with pytest.raises(ValidationError, match="duplicates"):
        TaskSpec.model_validate({**spec.model_dump(), "labels": ["a", "a"], "label_aliases": {}})


def test_prepare_writes_the_task_and_an_old_project_falls_back_to_its_template(tmp_path):
    t = CATALOG.get("finance_sentiment")
    src = tmp_path / "news.csv"
    rows = [(f"第{i}条新闻：公司公告称本季度经营情况{'良好' if i % 3 else '一般'}", ["正面", "中性", "负面"][i % 3])
            for i in range(60)]
    pd.DataFrame(rows, columns=["新闻", "情感"]).to_csv(src, index=False)
    project, summary = prepare(t, src, tmp_path / "p")
    raw = json.loads((project.root / "project.json").read_text(encoding="utf-8"))
    assert raw["task"]["labels"] == t.labels and raw["task"]["columns"] == {"text": "新闻", "label": "情感"}
    assert summary["task"]["labels"] == t.labels
    assert Project.open(project.root).task == project.task
    # a project.json written before projects owned their task
    del raw["task"]
    (project.root / "project.json").write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    old = Project.open(project.root)
    assert old.config.task is None
    assert old.task.labels == t.labels and old.task.columns == {"text": "新闻", "label": "情感"}
