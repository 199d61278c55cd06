"""Vertical templates: a folder with ``template.yaml`` and a sample dataset.

A template fixes the task, the column roles, the label set, the prompt, the default
cleaning recipe, the hyper-parameter presets and the metrics. Built-in templates live
in the repository's ``templates/`` folder; an organisation adds its own by dropping a
folder into the user templates directory (see :func:`user_templates_dir`).
"""

from __future__ import annotations

import os
import re
from enum import Enum
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import TemplateError

SPEC_FILE = "template.yaml"
# libyaml's parser where PyYAML has it (its wheels do): the same documents, about ten times
# faster than the pure-Python one; the catalogue is read at every start of the window
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Roles each task needs; the optional ones may be left unmapped.
TASK_ROLES: dict[str, dict[str, bool]] = {
    "classification": {"text": True, "label": True},
    "instruction": {"instruction": True, "input": False, "output": True},
}


class TaskKind(str, Enum):
    classification = "classification"
    instruction = "instruction"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Localized(_Strict):
    """A user-facing text in Simplified Chinese and English."""

    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)

    def get(self, lang: str) -> str:
        return self.zh if lang.lower().startswith("zh") else self.en


class PromptFormat(_Strict):
    system: Localized
    # Python format string over the role names, e.g. "新闻：{text}" or "{instruction}\n{input}";
    # "{labels}" names the project's label list (rendered by core.task.TaskSpec).
    user: str = Field(min_length=1)


class HyperParam(_Strict):
    default: float | int | str
    min: float | int | None = None
    max: float | int | None = None
    help: Localized | None = None

    @model_validator(mode="after")
    def _in_range(self) -> "HyperParam":
        if isinstance(self.default, (int, float)):
            if self.min is not None and self.default < self.min:
                raise ValueError(f"default {self.default} is below min {self.min}")
            if self.max is not None and self.default > self.max:
                raise ValueError(f"default {self.default} is above max {self.max}")
        return self


class Preset(_Strict):
    name: Localized
    values: dict[str, float | int | str]


class SplitRatios(_Strict):
    train: float = Field(0.8, gt=0, lt=1)
    val: float = Field(0.1, ge=0, lt=1)
    test: float = Field(0.1, ge=0, lt=1)

    @model_validator(mode="after")
    def _sums_to_one(self) -> "SplitRatios":
        if abs(self.train + self.val + self.test - 1.0) > 1e-6:
            raise ValueError("train + val + test must add up to 1")
        return self


class CleaningStepSpec(_Strict):
    op: str
    params: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True


class TemplateSpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_\-]*$")
    vertical: str = Field(min_length=1)
    name: Localized
    description: Localized
    task: TaskKind
    # role -> column name in the sample data (also the default mapping suggestion)
    columns: dict[str, str]
    labels: list[str] = Field(default_factory=list)
    # canonical label -> spelling variants seen in real exports
    label_aliases: dict[str, list[str]] = Field(default_factory=dict)
    # several labels per row (a case with several charges): prepare starts with multi-label on;
    # label_separator splits a text cell (None: spaces, commas, 、 and semicolons)
    multi_label: bool = False
    label_separator: str | None = Field(default=None, min_length=1)
    prompt: PromptFormat
    cleaning: list[CleaningStepSpec]
    sensitive_terms: list[str] = Field(default_factory=list)
    hyperparameters: dict[str, HyperParam]
    presets: list[Preset] = Field(default_factory=list)
    metrics: list[str] = Field(min_length=1)
    split: SplitRatios = Field(default_factory=SplitRatios)
    sample_data: str
    # set by the loader, not by the YAML
    folder: Path | None = Field(default=None, exclude=True)

    @field_validator("columns")
    @classmethod
    def _known_roles(cls, v: dict[str, str], info) -> dict[str, str]:
        return v

    @model_validator(mode="after")
    def _consistent(self) -> "TemplateSpec":
        roles = TASK_ROLES[self.task.value]
        unknown = set(self.columns) - set(roles)
        if unknown:
            raise ValueError(
                f"columns: unknown role(s) {sorted(unknown)} for task {self.task.value}; "
                f"expected roles {sorted(roles)}"
            )
        missing = [r for r, required in roles.items() if required and r not in self.columns]
        if missing:
            raise ValueError(f"columns: required role(s) {missing} are missing")
        if self.task is TaskKind.classification:
            if len(self.labels) < 2:
                raise ValueError("labels: a classification template needs at least two labels")
            if len(set(self.labels)) != len(self.labels):
                raise ValueError("labels: the label set has duplicates")
            stray = set(self.label_aliases) - set(self.labels)
            if stray:
                raise ValueError(f"label_aliases: {sorted(stray)} are not in labels")
        elif self.multi_label:
            raise ValueError("multi_label: only a classification template can have several labels per row")
        if self.label_separator is not None and not self.multi_label:
            raise ValueError("label_separator: a separator of labels needs multi_label: true")
        try:
            self.prompt.user.format(**{r: "" for r in roles}, labels="")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"prompt.user: placeholder {exc} is not one of the roles {sorted(roles)} or {{labels}}"
            ) from None
        return self

    # ----- derived -------------------------------------------------------------
    @property
    def roles(self) -> dict[str, bool]:
        """Role name -> required, for this template's task."""
        return TASK_ROLES[self.task.value]

    @property
    def sample_path(self) -> Path:
        base = self.folder if self.folder is not None else Path(".")
        return (base / self.sample_data).resolve()

    def default_recipe(self) -> list[dict[str, Any]]:
        """The template's cleaning steps, with the label set and term list filled in."""
        steps = []
        for step in self.cleaning:
            params = dict(step.params)
            if step.op == "normalize_labels":
                params.setdefault("labels", list(self.labels))
                params.setdefault("aliases", {k: list(v) for k, v in self.label_aliases.items()})
            if step.op == "sensitive_terms":
                params.setdefault("terms", list(self.sensitive_terms))
            steps.append({"op": step.op, "params": params, "enabled": step.enabled})
        return steps

    def hyperparameter_defaults(self) -> dict[str, Any]:
        return {k: hp.default for k, hp in self.hyperparameters.items()}

    def summary(self) -> dict[str, Any]:
        """The public JSON shape of ``workbench templates --json``."""
        return {
            "id": self.id,
            "vertical": self.vertical,
            "task": self.task.value,
            "name": self.name.model_dump(),
            "description": self.description.model_dump(),
            "labels": list(self.labels),
            "multi_label": self.multi_label,
            "columns": dict(self.columns),
            "metrics": list(self.metrics),
            "sample_data": str(self.sample_path),
            "folder": str(self.folder) if self.folder else None,
        }


# ----- loading -----------------------------------------------------------------


def builtin_templates_dir() -> Path:
    """The ``templates/`` folder shipped with the application."""
    env = os.environ.get("WORKBENCH_BUILTIN_TEMPLATES")
    if env:
        return Path(env)
    import sys

    if getattr(sys, "frozen", False):  # the built application: its data folder
        return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "templates"
    return Path(__file__).resolve().parents[2] / "templates"


def user_templates_dir() -> Path:
    """Where an organisation drops its own template folders."""
    env = os.environ.get("WORKBENCH_TEMPLATES_DIR")
    if env:
        return Path(env)
    from .paths import user_data_dir

    return user_data_dir() / "templates"


def _validation_problems(exc: ValidationError) -> str:
    """What is wrong with a template's fields, at most five of them."""
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if not loc:
            # model-level checks start their message with the field they concern
            head, sep, rest = msg.partition(": ")
            loc, msg = (head, rest) if sep and re.fullmatch(r"[A-Za-z_][\w.]*", head) else ("(top level)", msg)
        got = err.get("input")
        got_txt = "" if isinstance(got, dict) or got is None else f" (got {got!r})"
        parts.append(f"field '{loc}': {msg}{got_txt}")
    more = f"; and {len(exc.errors()) - 5} more" if len(exc.errors()) > 5 else ""
    return "; ".join(parts) + more


def load_template(folder: str | os.PathLike) -> TemplateSpec:
    """Load and validate one template folder; errors name the file and the field."""
    folder = Path(folder)
    path = folder / SPEC_FILE
    if not path.is_file():
        raise TemplateError(f"Template folder {folder} has no {SPEC_FILE}. Add one or remove the folder.",
                            code="template_without_spec", path=str(folder), file=SPEC_FILE)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=YAML_LOADER)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise TemplateError(f"Template file {path} is not valid YAML: {exc}. Fix the file and try again.",
                            code="template_not_yaml", path=str(path), detail=str(exc)) from None
    if not isinstance(raw, dict):
        raise TemplateError(f"Template file {path} must hold a mapping of fields at the top level.",
                            code="template_not_mapping", path=str(path))
    try:
        spec = TemplateSpec.model_validate(raw)
    except ValidationError as exc:
        problems = _validation_problems(exc)
        raise TemplateError(f"Template file {path} is invalid: {problems}. Fix the file and try again.",
                            code="template_invalid", path=str(path), detail=problems) from None
    spec.folder = folder.resolve()
    if not spec.sample_path.is_file():
        raise TemplateError(
            f"Template file {path}: field 'sample_data' names {spec.sample_data}, which does not exist "
            f"in {folder}. Add the file or correct the field.",
            code="template_sample_missing", path=str(path), sample=str(spec.sample_data), folder=str(folder),
        )
    return spec


class TemplateCatalog:
    """Built-in templates plus the user's; a user template may not shadow a built-in id."""

    def __init__(self, dirs: list[Path] | None = None):
        self.dirs = dirs if dirs is not None else [builtin_templates_dir(), user_templates_dir()]
        self.templates: dict[str, TemplateSpec] = {}
        self.problems: list[str] = []  # invalid user templates, reported not fatal
        for d in self.dirs:
            if not d.is_dir():
                continue
            for folder in sorted(p for p in d.iterdir() if (p / SPEC_FILE).is_file()):
                try:
                    spec = load_template(folder)
                except TemplateError as exc:
                    self.problems.append(str(exc))
                    continue
                if spec.id in self.templates:
                    self.problems.append(
                        f"Template file {folder / SPEC_FILE}: field 'id' = {spec.id!r} is already used by "
                        f"{self.templates[spec.id].folder}; choose another id."
                    )
                    continue
                self.templates[spec.id] = spec

    def get(self, template_id: str) -> TemplateSpec:
        try:
            return self.templates[template_id]
        except KeyError:
            known = ", ".join(sorted(self.templates)) or "(none)"
            raise TemplateError(
                f"Unknown template '{template_id}'. Known templates: {known}. "
                "Run 'workbench templates' to list them.",
                code="template_unknown", template=str(template_id), known=sorted(self.templates),
            ) from None

    def __iter__(self):
        return iter(self.templates.values())

    def by_vertical(self) -> dict[str, list[TemplateSpec]]:
        out: dict[str, list[TemplateSpec]] = {}
        for t in self.templates.values():
            out.setdefault(t.vertical, []).append(t)
        return out
