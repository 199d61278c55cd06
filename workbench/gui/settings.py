"""User settings (language, theme, folders, recent projects), kept with QSettings in an ini file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from ..core.paths import default_projects_dir, user_data_dir
from ..core.templates import user_templates_dir

MAX_RECENT = 8


class Settings:
    """A thin typed layer over QSettings; the file lives in the user's data folder."""

    def __init__(self, path: str | Path | None = None):
        path = Path(path) if path else user_data_dir() / "gui.ini"
        path.parent.mkdir(parents=True, exist_ok=True)
        self._qs = QSettings(str(path), QSettings.Format.IniFormat)

    def _get(self, key: str, default):
        v = self._qs.value(key, default)
        return default if v is None else v

    def _set(self, key: str, value) -> None:
        self._qs.setValue(key, value)
        self._qs.sync()

    # language: "system", "zh_CN" or "en"
    @property
    def language(self) -> str:
        return str(self._get("language", "system"))

    @language.setter
    def language(self, v: str) -> None:
        self._set("language", v)

    @property
    def theme(self) -> str:
        return str(self._get("theme", "light"))

    @theme.setter
    def theme(self, v: str) -> None:
        self._set("theme", v)

    @property
    def projects_dir(self) -> Path:
        v = self._get("projects_dir", "")
        return Path(v) if v else default_projects_dir()

    @projects_dir.setter
    def projects_dir(self, v: str | Path) -> None:
        self._set("projects_dir", str(v))

    @property
    def templates_dir(self) -> Path:
        v = self._get("templates_dir", "")
        return Path(v) if v else user_templates_dir()

    @templates_dir.setter
    def templates_dir(self, v: str | Path) -> None:
        self._set("templates_dir", str(v))

    @property
    def first_start_done(self) -> bool:
        return str(self._get("first_start_done", "false")).lower() == "true"

    @first_start_done.setter
    def first_start_done(self, v: bool) -> None:
        self._set("first_start_done", "true" if v else "false")

    @property
    def recent_projects(self) -> list[str]:
        v = self._get("recent_projects", [])
        if isinstance(v, str):
            v = [v] if v else []
        return [str(x) for x in v]

    def add_recent(self, path: str | Path) -> None:
        p = str(Path(path).resolve())
        items = [p] + [x for x in self.recent_projects if x != p]
        self._set("recent_projects", items[:MAX_RECENT])

    def remove_recent(self, path: str | Path) -> None:
        p = str(Path(path).resolve())
        self._set("recent_projects", [x for x in self.recent_projects if x != p])

    @property
    def geometry(self):
        return self._qs.value("geometry")

    @geometry.setter
    def geometry(self, v) -> None:
        self._set("geometry", v)

    # where the user was, restored at the next start: the project is the first recent one
    @property
    def last_page(self) -> str:
        return str(self._get("last_page", ""))

    @last_page.setter
    def last_page(self, v: str) -> None:
        self._set("last_page", v)

    @property
    def last_run(self) -> str:
        return str(self._get("last_run", ""))

    @last_run.setter
    def last_run(self, v: str | None) -> None:
        self._set("last_run", v or "")

    # choices the user changed on the pages, kept across projects and starts (None: never changed)
    @property
    def time_budget(self) -> float | None:
        v = self._get("train/time_budget_min", "")
        try:
            return float(v) if v != "" else None
        except (TypeError, ValueError):
            return None

    @time_budget.setter
    def time_budget(self, v: float) -> None:
        self._set("train/time_budget_min", float(v))

    @property
    def export_formats(self) -> list[str] | None:
        """The ticked export formats ("int8" for the 8-bit model), or None before any change."""
        if not self._qs.contains("export/formats"):
            return None
        v = self._get("export/formats", [])
        if isinstance(v, str):
            v = [x for x in v.split(",") if x]
        return [str(x) for x in v]

    @export_formats.setter
    def export_formats(self, v: list[str]) -> None:
        self._set("export/formats", ",".join(v))
