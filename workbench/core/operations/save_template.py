"""A project becomes an organisation template: its task, labels, aliases, prompt, cleaning
recipe and hyper-parameters, with a small sample of its cleaned (PII-masked) rows.

The CLI (``workbench templates save``) and the Data page's "Save as template..." call
:func:`save_as_template`; the folder it writes loads in the catalog like any other.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from ..errors import TemplateError
from ..jobs import read_job
from ..project import SPLITS, Project
from ..runs import list_runs
from ..task import origin_template
from ..templates import SPEC_FILE, TemplateCatalog, load_template, user_templates_dir

SAMPLE_ROWS = 200
SAMPLE_FILE = "sample.csv"
ID_PATTERN = r"^[a-z0-9][a-z0-9_\-]*$"
# the step parameters the template fills in from its own fields (see TemplateSpec.default_recipe)
_FILLED = {"normalize_labels": ("labels", "aliases")}


def _recipe_steps(project: Project) -> list[dict[str, Any]]:
    steps = []
    for step in (project.config.recipe or {}).get("steps", []):
        params = {k: v for k, v in step.get("params", {}).items() if k not in _FILLED.get(step["op"], ())}
        steps.append({"op": step["op"], "params": params, "enabled": bool(step.get("enabled", True))})
    return steps


def _hyperparameters(project: Project, origin) -> dict[str, Any]:
    """The origin's hyper-parameters, their defaults taken from the project's last completed run."""
    hps = {k: hp.model_dump(exclude_none=True) for k, hp in origin.hyperparameters.items()} if origin else {}
    done = [r for r in list_runs(project.root) if r.status == "completed"]
    if done:
        job = read_job(done[-1].path).model_dump()
        for key, hp in hps.items():
            value = job.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                lo, hi = hp.get("min"), hp.get("max")
                if (lo is None or value >= lo) and (hi is None or value <= hi):
                    hp["default"] = type(hp["default"])(value) if isinstance(hp["default"], int) and \
                        float(value).is_integer() else value
    return hps


def _sample(project: Project, columns: dict[str, str], n: int, joiner: str | None = None) -> pd.DataFrame:
    """Rows of the prepared splits (cleaned and masked), under the user's column names; a
    multi-label row's labels in one cell, joined with ``joiner``."""
    frames = [project.load_split(s) for s in SPLITS if project.split_path(s).is_file()]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if df.empty:
        raise TemplateError(f"Project {project.root} has no prepared rows to sample. Prepare its data first.",
                            code="project_not_prepared")
    if joiner is not None and "labels" in df.columns:
        df = df.assign(label=[joiner.join(s) for s in df["labels"]])
    roles = [r for r in columns if r in df.columns]
    return df[roles].head(n).rename(columns=columns)


def save_as_template(project: Project | str | os.PathLike, template_id: str, *, name_zh: str | None = None,
                     name_en: str | None = None, dest: str | os.PathLike | None = None,
                     sample_rows: int = SAMPLE_ROWS) -> Path:
    """Write ``<dest or the user templates folder>/<template_id>/`` and return it.

    Refused: a bad or taken id, an existing folder, a project not prepared yet.
    """
    if not isinstance(project, Project):
        project = Project.open(project)
    template_id = (template_id or "").strip()
    if not re.fullmatch(ID_PATTERN, template_id):
        raise TemplateError(f"Template id '{template_id}' may use only lower-case letters, digits, '_' and '-', "
                            "and must start with a letter or digit (e.g. hospital_triage).",
                            code="template_id_invalid", id=template_id)
    if template_id in TemplateCatalog().templates:
        raise TemplateError(f"A template with the id '{template_id}' already exists. Choose another id.",
                            code="template_id_taken", id=template_id)
    base = Path(dest) if dest is not None else user_templates_dir()
    folder = base / template_id
    if folder.exists():
        raise TemplateError(f"{folder} already exists. Choose another id or remove that folder.",
                            code="template_folder_exists", path=str(folder))
    if not project.is_prepared:
        raise TemplateError(f"Project {project.root} is not prepared yet. Prepare its data, then save it as a template.",
                            code="project_not_prepared")

    task = project.task
    origin = origin_template(task)
    name = project.config.name
    columns = {r: c for r, c in task.columns.items() if r in task.roles}
    terms = sorted({t for s in (project.config.recipe or {}).get("steps", []) if s["op"] == "sensitive_terms"
                    for t in s.get("params", {}).get("terms", [])})
    spec: dict[str, Any] = {
        "id": template_id,
        "vertical": origin.vertical if origin else "custom",
        "name": {"zh": name_zh or name, "en": name_en or name},
        "description": {
            "zh": f"由项目“{name}”保存的模板" + (f"（起点：{origin.name.zh}）" if origin else "") + "。",
            "en": f"Saved from the project '{name}'" + (f" (started from {origin.name.en})" if origin else "") + ".",
        },
        "task": task.task.value,
        "columns": columns,
        "labels": list(task.labels),
        "label_aliases": {k: list(v) for k, v in task.label_aliases.items()},
        "prompt": task.prompt.model_dump(),
        "cleaning": _recipe_steps(project),
        "sensitive_terms": terms,
        "hyperparameters": _hyperparameters(project, origin),
        "presets": [p.model_dump() for p in origin.presets] if origin else [],
        "metrics": list(origin.metrics) if origin else (
            ["accuracy", "macro_f1"] if task.task.value == "classification" else ["rouge_l", "bleu"]),
        "split": {k: getattr(project.config.split, k) for k in ("train", "val", "test")},
        "sample_data": SAMPLE_FILE,
    }
    joiner = None
    if task.multi_label:  # the new template starts multi-label too, its sample split as prepared
        choice = project.config.labels
        sep = choice.separator if choice is not None else None
        joiner = sep or ";"  # without a separator of its own a label holds none of ; , 、 or spaces
        spec.update(multi_label=True, label_separator=sep or None)
        if not (origin and origin.multi_label):
            spec["metrics"] = ["micro_f1", "macro_f1", "subset_accuracy", "hamming_loss"]
        if spec["label_separator"] is None:
            del spec["label_separator"]
    base.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{template_id}-", dir=base))
    try:
        header = f"# {spec['name']['zh']} / {spec['name']['en']}\n# {spec['description']['en']}\n"
        (staging / SPEC_FILE).write_text(
            header + yaml.safe_dump(spec, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
        _sample(project, columns, sample_rows, joiner).to_csv(staging / SAMPLE_FILE, index=False, encoding="utf-8-sig")
        load_template(staging)  # the folder must load before it is put in place
        os.replace(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder
