"""Per-user folders: settings, user templates and the default projects folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def user_data_dir() -> Path:
    env = os.environ.get("WORKBENCH_HOME")
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "workbench"


def default_projects_dir() -> Path:
    env = os.environ.get("WORKBENCH_PROJECTS_DIR")
    if env:
        return Path(env)
    return Path.home() / "WorkbenchProjects"
