"""GUI tests: offscreen Qt, a private settings/projects folder, and helpers."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("WORKBENCH_PROJECTS_DIR", str(tmp_path / "projects"))
    monkeypatch.setenv("WORKBENCH_TEMPLATES_DIR", str(tmp_path / "user-templates"))
    yield


@pytest.fixture
def tasks(qtbot):
    from workbench.gui.tasks import TaskManager

    tm = TaskManager()
    tm.show_dialogs = False
    yield tm
    tm.cancel_all()
    tm.wait(30000)


@pytest.fixture
def session(qtbot):
    from workbench.gui.session import ProjectSession

    s = ProjectSession()
    yield s
    s.close()


@pytest.fixture
def sample_project(tmp_path):
    """A prepared project built from the finance_sentiment sample data (pure core, no paddle)."""
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    spec = TemplateCatalog().get("finance_sentiment")
    root = tmp_path / "projects" / "sample"
    prepare(spec, spec.sample_path, root)
    return root
