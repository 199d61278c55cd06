"""Translations: Qt's .qm files for the interface, Localized texts for template content.

The language follows the system locale unless the user chose one in the settings.
Switching language applies at the next start (the window is rebuilt then).
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLocale, QTranslator

from .resources import translations_dir

LANGUAGES = ("zh_CN", "en")
_current = "en"
_translators: list[QTranslator] = []


def resolve_language(setting: str) -> str:
    if setting in LANGUAGES:
        return setting
    name = QLocale.system().name()  # e.g. zh_CN, en_US
    return "zh_CN" if name.lower().startswith("zh") else "en"


def install(app: QCoreApplication, language: str) -> str:
    """Install the translators for ``language`` ("system", "zh_CN" or "en"); returns the one used."""
    global _current
    for t in _translators:
        app.removeTranslator(t)
    _translators.clear()
    lang = resolve_language(language)
    _current = lang
    if lang != "en":
        t = QTranslator(app)
        if t.load(f"workbench_{lang}", str(translations_dir())):
            app.installTranslator(t)
            _translators.append(t)
        from PySide6.QtCore import QLibraryInfo

        qt = QTranslator(app)  # Qt's own strings (standard buttons, file dialogs)
        if qt.load(f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            app.installTranslator(qt)
            _translators.append(qt)
    return lang


def current() -> str:
    return _current


def content_lang() -> str:
    """The language code of template texts (Localized.get): "zh" or "en"."""
    return "zh" if _current.startswith("zh") else "en"


def localized(value) -> str:
    """A Localized (zh/en) template text in the interface language."""
    if value is None:
        return ""
    return value.get(content_lang())
