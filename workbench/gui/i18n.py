"""Translations: Qt's .qm files for the interface, Localized texts for template content.

The language follows the system locale unless the user chose one in the settings.
Installing another language's translators makes Qt send every widget a LanguageChange
event; the main window then shows its texts in that language (see gui.retranslate).
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QLibraryInfo, QLocale, QTranslator

from .resources import translations_dir

LANGUAGES = ("zh_CN", "en")
_current = "en"
_translators: list[QTranslator] = []

# Qt's own texts that its zh_CN catalogue (qtbase_zh_CN.qm, shipped with PySide6) lacks: the
# file dialog's labels gained mnemonics in Qt 6 and the catalogue kept the old texts. The
# app's catalogue carries them under Qt's context; Qt asks it once qtbase's has no answer.
QT_TEXTS_MISSING = (
    QT_TRANSLATE_NOOP("QFileDialog", "&Look in:"),
    QT_TRANSLATE_NOOP("QFileDialog", "Files of &type:"),
)


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
        qt = QTranslator(app)  # Qt's own strings (standard buttons, file dialogs), asked first
        if qt.load(f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
            app.installTranslator(qt)
            _translators.append(qt)
    return lang


def current() -> str:
    return _current


def content_lang() -> str:
    """The language code of template texts (Localized.get): "zh" or "en"."""
    return "zh" if _current.startswith("zh") else "en"


def join_list(items) -> str:
    """Values named in a sentence (labels, columns, files), with the interface language's
    separator: "0, 1" in English, "0、1" in Chinese."""
    return ("、" if content_lang() == "zh" else ", ").join(str(item) for item in items)


def localized(value) -> str:
    """A Localized (zh/en) template text in the interface language."""
    if value is None:
        return ""
    return value.get(content_lang())
