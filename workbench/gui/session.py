"""The open project, its template and its runs, shared by the pages."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from ..core.project import Project, ProjectConfig
from ..core.runs import train_step_state
from ..core.templates import TemplateCatalog, TemplateSpec, builtin_templates_dir, user_templates_dir
from ..core.trained import has_evaluation
from .run_monitor import RunMonitor


class ProjectSession(QObject):
    project_changed = Signal()  # a project was opened, created or closed
    data_prepared = Signal()  # the project's splits were (re)written
    state_changed = Signal()  # something that changes the steps' states
    catalog_changed = Signal()  # a template was added (saved from a project)
    corrections_changed = Signal()  # a person's corrections of labels were recorded or undone
    feedback_changed = Signal()  # a person's judgements of answers were recorded or taken back

    def __init__(self, templates_dir: Path | None = None, parent=None):
        super().__init__(parent)
        self._templates_dir = Path(templates_dir) if templates_dir else None
        dirs = [builtin_templates_dir()] + ([self._templates_dir] if self._templates_dir else [])
        self.catalog = TemplateCatalog(dirs)
        self.project: Project | None = None
        self.monitor = RunMonitor(parent=self)
        self.monitor.status_changed.connect(lambda *_: self.state_changed.emit())
        self.monitor.runs_changed.connect(self.state_changed.emit)
        # what the Train page preselects (the sample project asks for the built-in model)
        self.preferred_base_model = "builtin:small"

    # -- queries --
    @property
    def root(self) -> Path | None:
        return self.project.root if self.project else None

    @property
    def template(self) -> TemplateSpec | None:
        if self.project is None:
            return None
        return self.catalog.templates.get(self.project.config.template)

    @property
    def is_prepared(self) -> bool:
        return bool(self.project and self.project.is_prepared)

    @property
    def user_templates_dir(self) -> Path:
        """Where templates saved from a project go."""
        return self._templates_dir or user_templates_dir()

    # -- changes --
    def reload_catalog(self) -> None:
        dirs = list(self.catalog.dirs)
        if self.user_templates_dir not in dirs:
            dirs.append(self.user_templates_dir)
        self.catalog = TemplateCatalog(dirs)
        self.catalog_changed.emit()

    def open(self, root: str | Path) -> Project:
        project = Project.open(root)  # raises ProjectError with a message for the user
        self.project = project
        self.monitor.set_project(project.root)
        self.project_changed.emit()
        self.state_changed.emit()
        return project

    def create(self, root: str | Path, template: TemplateSpec) -> Project:
        """A new project folder holding only its project.json (data comes on the Data page)."""
        from ..core.errors import ProjectError

        root = Path(root)
        if (root / "project.json").is_file():
            raise ProjectError(f"{root} already holds a project. Open it instead, or choose another name.")
        if root.exists() and any(root.iterdir()):
            raise ProjectError(f"{root} exists and is not empty. Choose another name or folder for the project.")
        root.mkdir(parents=True, exist_ok=True)
        project = Project(root, ProjectConfig(name=root.name, template=template.id))
        project.save()
        return self.open(root)

    def set_template(self, template: TemplateSpec) -> None:
        """Change the template of a project that has no prepared data yet."""
        if self.project is None:
            return
        self.project.config.template = template.id
        self.project.save()
        self.project_changed.emit()
        self.state_changed.emit()

    def reload(self) -> None:
        if self.project is not None:
            self.project = Project.open(self.project.root)
            self.data_prepared.emit()
            self.state_changed.emit()

    def close(self) -> None:
        self.project = None
        self.monitor.set_project(None)
        self.project_changed.emit()
        self.state_changed.emit()

    def step_states(self) -> dict[str, str]:
        """'todo', 'done', 'running', 'stopped' (Train), 'failed' or 'blocked' for each of the five steps."""
        st = {k: "todo" for k in ("template", "data", "train", "evaluate", "export")}
        if self.project is None:
            return st
        st["template"] = "done"
        if not self.is_prepared:
            st.update(train="blocked", evaluate="blocked", export="blocked")
            return st
        st["data"] = "done"
        runs = list(self.monitor.runs.values())
        st["train"] = train_step_state([s.status for s in runs])
        root = self.project.root
        if any(has_evaluation(s.path) for s in runs):
            st["evaluate"] = "done"
        if (root / "exports").is_dir() and any(p.is_dir() for p in (root / "exports").iterdir()):
            st["export"] = "done"
        return st
