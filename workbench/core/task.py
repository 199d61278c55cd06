"""The task a project was prepared with: its kind, labels, aliases, prompt and columns.

A project starts with a copy of its template's task and may then differ (the user's own
departments, charges or intents, their own prompt). Training, evaluation, export and the
bundle read the project's task, never the template's.

A prompt may name the label list with ``{labels}``; it is rendered from the task's own
labels, joined with "/", so a prompt never lists labels the project does not have.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .templates import TASK_ROLES, PromptFormat, TaskKind, TemplateSpec

LABELS_PLACEHOLDER = "{labels}"
LABEL_JOINER = "/"


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return ""


class TaskSpec(BaseModel):
    """What the model learns. Attribute names match :class:`TemplateSpec` where they overlap."""

    model_config = ConfigDict(extra="forbid")

    task: TaskKind
    template: str  # the id of the template the project started from
    labels: list[str] = Field(default_factory=list)  # ordered
    label_aliases: dict[str, list[str]] = Field(default_factory=dict)
    prompt: PromptFormat
    # role -> the user's column name
    columns: dict[str, str] = Field(default_factory=dict)
    multi_label: bool = False  # each row a set of labels (prepared rows carry "labels", a list)
    # multi-label: some prepared rows have no label, so an empty label set is a valid answer
    no_label_rows: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> "TaskSpec":
        if self.task is TaskKind.classification:
            if len(set(self.labels)) != len(self.labels):
                raise ValueError("labels: the label set has duplicates")
            stray = set(self.label_aliases) - set(self.labels)
            if stray:
                raise ValueError(f"label_aliases: {sorted(stray)} are not in labels")
        try:
            self.prompt.user.format(**{r: "" for r in self.roles}, labels="")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"prompt.user: placeholder {exc} is not one of the roles "
                             f"{sorted(self.roles)} or {{labels}}") from None
        return self

    # ----- construction ------------------------------------------------------------
    @classmethod
    def from_template(cls, template: TemplateSpec, mapping: Mapping[str, str | None] | None = None) -> "TaskSpec":
        """The template's task; ``mapping`` (role -> column) replaces its sample columns."""
        columns = dict(template.columns) if mapping is None else {r: c for r, c in mapping.items() if c}
        return cls(task=template.task, template=template.id, labels=list(template.labels),
                   label_aliases={k: list(v) for k, v in template.label_aliases.items()},
                   prompt=template.prompt.model_copy(deep=True), columns=columns)

    def with_labels(self, labels: list[str], aliases: Mapping[str, list[str]] | None = None) -> "TaskSpec":
        """A copy with another label set; aliases of labels no longer in the set are dropped."""
        aliases = self.label_aliases if aliases is None else aliases
        kept = {k: list(v) for k, v in aliases.items() if k in labels and v}
        return self.model_copy(update={"labels": list(labels), "label_aliases": kept})

    # ----- derived -----------------------------------------------------------------
    @property
    def id(self) -> str:
        """The template id (the name TemplateSpec uses)."""
        return self.template

    @property
    def roles(self) -> dict[str, bool]:
        """Role name -> required, for this task."""
        return TASK_ROLES[self.task.value]

    @property
    def input_roles(self) -> list[str]:
        """The roles a prediction is made from (everything but the answer)."""
        return [r for r in self.roles if r not in ("label", "output")]

    @property
    def labels_text(self) -> str:
        return LABEL_JOINER.join(self.labels)

    @property
    def user_format(self) -> str:
        """The user format string with ``{labels}`` rendered; its other placeholders are roles."""
        escaped = self.labels_text.replace("{", "{{").replace("}", "}}")
        return self.prompt.user.replace(LABELS_PLACEHOLDER, escaped)

    def system_text(self, lang: str = "zh") -> str:
        """The system prompt in ``lang`` with ``{labels}`` rendered. Training uses the Chinese one."""
        return self.prompt.system.get(lang).replace(LABELS_PLACEHOLDER, self.labels_text)

    def user_text(self, record: Mapping[str, Any]) -> str:
        """The user turn for one record; absent roles become ""."""
        values = _Blank({k: "" if v is None else str(v) for k, v in record.items()})
        return self.user_format.format_map(values).strip()

    def summary(self) -> dict[str, Any]:
        return {"task": self.task.value, "template": self.template, "labels": list(self.labels),
                "columns": dict(self.columns)}


def origin_template(task: TaskSpec) -> TemplateSpec | None:
    """The template the task started from, or None when it is no longer installed."""
    from .errors import TemplateError
    from .templates import TemplateCatalog

    try:
        return TemplateCatalog().get(task.template)
    except TemplateError:
        return None
