"""A project becomes an organisation template, which then loads in the catalog with its labels."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from test_labels import DEPARTMENTS, hospital_export

from workbench.core.errors import TemplateError
from workbench.core.labels import LabelChoice
from workbench.core.project import prepare
from workbench.core.operations.save_template import save_as_template
from workbench.core.templates import TemplateCatalog


def wb(*args, env):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=env)


def test_save_project_as_template_then_use_it(tmp_path):
    triage = TemplateCatalog().get("medical_triage")
    src = hospital_export(tmp_path / "export.csv")
    # a phone number in the data must not reach the template's sample
    df = pd.read_csv(src, dtype=str)
    df.loc[0, "主诉内容"] = "反复肝病不适2天，联系电话13812345678"
    df.to_csv(src, index=False)
    project, _ = prepare(triage, src, tmp_path / "p", mapping={"text": "主诉内容", "label": "科别"},
                         labels=LabelChoice(source="data", merges={}, excluded=["感染科"]))

    env = {**os.environ, "WORKBENCH_TEMPLATES_DIR": str(tmp_path / "org")}
    r = wb("templates", "save", "--project", project.root, "--id", "hospital_triage", "--name-zh", "本院分诊",
           "--name-en", "Our triage", env=env)
    assert r.returncode == 0, r.stderr
    folder = tmp_path / "org" / "hospital_triage"
    spec = yaml.safe_load((folder / "template.yaml").read_text(encoding="utf-8"))
    assert spec["labels"] == project.task.labels and "感染科" not in spec["labels"]
    assert spec["columns"] == {"text": "主诉内容", "label": "科别"}
    assert "{labels}" in spec["prompt"]["user"]
    step = next(s for s in spec["cleaning"] if s["op"] == "normalize_labels")
    assert "labels" not in step["params"]  # filled from the template's own labels when used
    sample = pd.read_csv(folder / "sample.csv", dtype=str)
    assert list(sample.columns) == ["主诉内容", "科别"] and set(sample["科别"]) <= set(DEPARTMENTS)
    assert "13812345678" not in (folder / "sample.csv").read_text(encoding="utf-8-sig")

    r = wb("templates", "--json", env=env)
    listed = {t["id"]: t for t in json.loads(r.stdout.splitlines()[-1])["templates"]}
    assert listed["hospital_triage"]["labels"] == project.task.labels
    assert listed["hospital_triage"]["name"] == {"zh": "本院分诊", "en": "Our triage"}

    # the new template prepares its own sample and a fresh export with no label flags
    r = wb("data", "prepare", "--template", "hospital_triage", "--input", folder / "sample.csv",
           "--project", tmp_path / "q", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["labels"]["source"] == "template"

    # a taken id, or a bad one, is refused with a message
    r = wb("templates", "save", "--project", project.root, "--id", "hospital_triage", env=env)
    assert r.returncode == 2 and "already exists" in r.stderr
    with pytest.raises(TemplateError, match="lower-case"):
        save_as_template(project, "Bad Id", dest=tmp_path / "org")
