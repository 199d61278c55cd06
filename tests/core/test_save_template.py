"""A project becomes an organisation template, which then loads in the catalog with its labels."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from data_factory import DEPARTMENTS, hospital_export

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


@pytest.mark.parametrize("sep", [";", "|"])
def test_a_multi_label_project_saves_a_multi_label_template(tmp_path, sep):
    """The saved template starts multi-label, and its sample, split on its separator, holds the
    prepared label sets (a charge's name with 、 in it stays whole)."""
    from workbench.core.multilabel import split_cell
    from workbench.core.templates import load_template

    charges = TemplateCatalog().get("legal_case_type_multi")
    src = pd.read_csv(charges.sample_path, dtype=str, keep_default_na=False)
    src["罪名"] = src["罪名"].str.replace(";", sep)
    src.to_csv(tmp_path / "cases.csv", index=False)
    choice = LabelChoice(multi_label=True, separator=sep)
    project, _ = prepare(charges, tmp_path / "cases.csv", tmp_path / "p", labels=choice)
    folder = save_as_template(project, "our_charges", dest=tmp_path / "org", sample_rows=400)
    spec = load_template(folder)
    assert spec.multi_label and spec.label_separator == sep
    assert spec.labels == project.task.labels and spec.metrics[0] == "micro_f1"
    sample = pd.read_csv(spec.sample_path, dtype=str, keep_default_na=False)
    sets = [split_cell(c, spec.label_separator) for c in sample[spec.columns["label"]]]
    prepared = [json.loads(x)["labels"] for s in ("train", "val", "test")
                for x in project.split_path(s).read_text("utf-8").splitlines()][:400]
    assert sets == prepared and any(len(s) > 1 for s in sets)
    assert any("掩饰、隐瞒犯罪所得、犯罪所得收益罪" in s for s in sets)
    # and it prepares again, multi-label from the start
    again, _ = prepare(spec, spec.sample_path, tmp_path / "q")
    assert again.task.multi_label and again.task.labels == spec.labels
