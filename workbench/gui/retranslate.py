"""Switching the interface language while the window is open.

Qt's usual way is a ``retranslateUi()`` per widget that sets every string again, hundreds
of calls kept in step with the code that first set them. Here the shipped catalogue (the
.ts file the .qm is built from) is read both ways instead: each text a widget shows is
looked up as a source (English to Chinese) or as a translation (back to English), whole or
as a filled-in format string ("{0} of {1} rows"), and replaced. Texts built from data (a
table's rows, a template's own zh/en names) are not in the catalogue; the window and its
pages draw those again from their state (``MainWindow.apply_language``).

One pass over the widgets when the language changes; nothing is recorded while building.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton, QAbstractSpinBox, QComboBox, QGroupBox, QLabel, QLineEdit, QListWidget, QMenu,
    QPlainTextEdit, QProgressBar, QTableWidget, QTabWidget, QTextEdit, QTreeWidget, QWidget,
)

_FIELD = re.compile(r"\{(\d+)(?:[:!][^{}]*)?\}")
_ENGLISH_PROSE = re.compile(r"[A-Za-z]{2,}[,;:]? +\(?[A-Za-z]{2,}")  # two English words in a row


def _english_prose(value: str) -> bool:
    return _ENGLISH_PROSE.search(value) is not None
_MARK = re.compile(r"(.*?\S)(\s*[*+]+)", re.DOTALL)
JOINERS = ("<br>", "\n", " · ", "  ·  ", "; ", ", ")


class _Format:
    """A format string of one language and its counterpart in the other."""

    def __init__(self, text: str, other: str):
        self.other = other
        parts, seen, pos = [], set(), 0
        for m in _FIELD.finditer(text):
            parts.append(re.escape(text[pos:m.start()]))
            n = m.group(1)
            parts.append(f"(?P=a{n})" if n in seen else f"(?P<a{n}>.+?)")
            seen.add(n)
            pos = m.end()
        parts.append(re.escape(text[pos:]))
        first = _FIELD.search(text)
        self.prefix = text[:first.start()] if first else text
        self.suffix = text[pos:]
        self.pattern = re.compile("".join(parts), re.DOTALL)

    def convert(self, text: str, inner, prose=None) -> str | None:
        """``text`` in the other language if it is this format filled in, else None. ``prose``
        tells a value that still holds words of the language converted from (not a number, name or
        path): a format that starts with a value ("{0} to {1}", "{0} rows") matches the tail of
        any sentence, and with such a value it would put a translated word into an untranslated
        sentence ("Drop duplicate rows" → "Drop duplicate 行")."""
        if not (text.startswith(self.prefix) and text.endswith(self.suffix)):
            return None
        m = self.pattern.fullmatch(text)
        if m is None:
            return None
        args = {k[1:]: inner(v) for k, v in m.groupdict().items()}
        if prose is not None and not self.prefix and any(prose(v) for v in args.values()):
            return None  # a fragment of a text the catalogue does not hold: whole messages only
        # placed as text: the value was formatted once already ("{0:.2f}" holds "0.17")
        return _FIELD.sub(lambda f: args.get(f.group(1), f.group(0)), self.other)


class Catalogue:
    """The shipped translations of one language, looked up in either direction."""

    def __init__(self, ts_path: str | Path):
        self.to_lang: dict[str, dict[str, str]] = {}  # source -> context -> translation
        self.to_source: dict[str, dict[str, str]] = {}  # translation -> context -> source
        self.formats_source: list[_Format] = []  # English format strings -> translation
        self.formats_lang: list[_Format] = []  # translated format strings -> source
        for ctx in ET.parse(ts_path).getroot().iter("context"):
            name = ctx.findtext("name") or ""
            for msg in ctx.iter("message"):
                source, tr = msg.findtext("source") or "", msg.find("translation")
                text = (tr.text or "") if tr is not None else ""
                if not source or not text or tr.get("type") in ("unfinished", "obsolete", "vanished"):
                    continue
                self.to_lang.setdefault(source, {})[name] = text
                self.to_source.setdefault(text, {})[name] = source
                if _FIELD.search(source):
                    self.formats_source.append(_Format(source, text))
                    self.formats_lang.append(_Format(text, source))
        # the longest fixed text first: "{0} of {1} rows" before "{0} {1}"; by first character,
        # so that a text is tried against the few formats that can start like it
        self._by_first: dict[bool, dict[str, list[_Format]]] = {}
        for to_source, formats in ((False, self.formats_source), (True, self.formats_lang)):
            formats.sort(key=lambda f: -len(_FIELD.sub("", f.pattern.pattern)))
            index: dict[str, list[_Format]] = {}
            for f in formats:
                index.setdefault(f.prefix[:1], []).append(f)
            self._by_first[to_source] = index

    def _formats(self, text: str, to_source: bool) -> list[_Format]:
        index = self._by_first[to_source]
        found = index.get(text[:1], []) + index.get("", [])
        return sorted(found, key=lambda f: -len(f.prefix) - len(f.suffix)) if found else found

    def convert(self, text: str, to_source: bool, context: str | None = None, depth: int = 0) -> str:
        """``text`` in the other language, or unchanged when the catalogue does not know it."""
        if not text or depth > 2:
            return text
        table = self.to_source if to_source else self.to_lang
        hit = table.get(text)
        if hit:
            return hit.get(context or "", next(iter(hit.values())))
        stripped = text.strip()
        if stripped != text and stripped in table:  # padded in code: " (none) "
            return text.replace(stripped, self.convert(stripped, to_source, context, depth))
        marked = _MARK.fullmatch(text)
        if marked and marked.group(1) in table:  # a mark the code added: "Text *" for a required role
            return self.convert(marked.group(1), to_source, context, depth) + marked.group(2)
        if "{" in text or not any(ch.isalpha() for ch in text):
            return text
        prose = None if to_source else _english_prose  # Chinese into English: a label is not prose
        for fmt in self._formats(text, to_source):
            out = fmt.convert(text, lambda v: self.convert(v, to_source, context, depth + 1), prose)
            if out is not None:
                return out
        # pieces the code joined itself ("CSV, UTF-8 with BOM", summary lines, "title\n  state")
        for joiner in JOINERS:
            if joiner in text:
                parts = text.split(joiner)
                new = [self.convert(p, to_source, context, depth + 1) for p in parts]
                if new != parts:
                    return joiner.join(new)
        return text


@lru_cache(maxsize=4)
def catalogue(ts_path: str) -> Catalogue:
    return Catalogue(ts_path)


def _context(w) -> str:
    """The class whose self.tr() most likely set the text: the nearest page, dialog or panel."""
    obj = w
    while obj is not None:
        name = type(obj).__name__
        if not name.startswith("Q"):
            return name
        obj = obj.parent()
    return ""


def retranslate_tree(root: QWidget, cat: Catalogue, to_source: bool) -> int:
    """Put every catalogued text of ``root``, its children, menus and actions into the other
    language; returns how many texts changed."""
    changed = 0

    def conv(text: str, ctx: str) -> str:
        return cat.convert(text, to_source, ctx)

    def apply(get, set_, ctx):
        nonlocal changed
        old = get()
        if isinstance(old, str) and old:
            new = conv(old, ctx)
            if new != old:
                set_(new)
                changed += 1

    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        ctx = _context(w)
        apply(w.windowTitle, w.setWindowTitle, ctx)
        apply(w.toolTip, w.setToolTip, ctx)
        apply(w.statusTip, w.setStatusTip, ctx)
        if isinstance(w, (QLabel, QAbstractButton)):
            apply(w.text, w.setText, ctx)
        if isinstance(w, QGroupBox):
            apply(w.title, w.setTitle, ctx)
        if isinstance(w, QMenu):
            apply(w.title, w.setTitle, ctx)
        if isinstance(w, (QLineEdit, QPlainTextEdit, QTextEdit)):
            apply(w.placeholderText, w.setPlaceholderText, ctx)
        if isinstance(w, QAbstractSpinBox):
            apply(w.specialValueText, w.setSpecialValueText, ctx)
            if hasattr(w, "suffix"):
                apply(w.suffix, w.setSuffix, ctx)
                apply(w.prefix, w.setPrefix, ctx)
        if isinstance(getattr(w, "title", None), str) and hasattr(w, "set_title"):  # ours, painted (BarChart)
            apply(lambda w=w: w.title, w.set_title, ctx)
        if isinstance(w, QProgressBar):
            apply(w.format, w.setFormat, ctx)
        if isinstance(w, QComboBox):
            for i in range(w.count()):
                apply(lambda i=i: w.itemText(i), lambda t, i=i: w.setItemText(i, t), ctx)
                apply(lambda i=i: w.itemData(i, Qt.ItemDataRole.ToolTipRole),
                      lambda t, i=i: w.setItemData(i, t, Qt.ItemDataRole.ToolTipRole), ctx)
        if isinstance(w, QTabWidget):
            for i in range(w.count()):
                apply(lambda i=i: w.tabText(i), lambda t, i=i: w.setTabText(i, t), ctx)
                apply(lambda i=i: w.tabToolTip(i), lambda t, i=i: w.setTabToolTip(i, t), ctx)
        if isinstance(w, QTableWidget):
            items = [w.horizontalHeaderItem(c) for c in range(w.columnCount())]
            items += [w.verticalHeaderItem(r) for r in range(w.rowCount())]
            items += [w.item(r, c) for r in range(w.rowCount()) for c in range(w.columnCount())]
            for it in items:
                if it is not None:
                    apply(it.text, it.setText, ctx)
                    apply(it.toolTip, it.setToolTip, ctx)
        if isinstance(w, QListWidget):
            for i in range(w.count()):
                it = w.item(i)
                apply(it.text, it.setText, ctx)
                apply(it.toolTip, it.setToolTip, ctx)
        if isinstance(w, QTreeWidget):
            head = w.headerItem()
            stack = [head] + [w.topLevelItem(i) for i in range(w.topLevelItemCount())]
            while stack:
                it = stack.pop()
                for c in range(w.columnCount()):
                    apply(lambda it=it, c=c: it.text(c), lambda t, it=it, c=c: it.setText(c, t), ctx)
                    apply(lambda it=it, c=c: it.toolTip(c), lambda t, it=it, c=c: it.setToolTip(c, t), ctx)
                stack += [it.child(i) for i in range(it.childCount())] if it is not head else []
    for pw in root.findChildren(pg.PlotWidget):  # pyqtgraph draws these texts itself
        ctx, item = _context(pw), pw.getPlotItem()
        apply(lambda item=item: item.titleLabel.text, lambda t, item=item: item.setTitle(t), ctx)
        for side in ("left", "bottom"):
            ax = item.getAxis(side)
            apply(lambda ax=ax: ax.labelText, lambda t, ax=ax: ax.setLabel(t, units=ax.labelUnits or None), ctx)
        if item.legend is not None:
            for sample, label in item.legend.items:
                def rename(t, sample=sample, label=label):
                    label.setText(t)
                    sample.item.opts["name"] = t
                apply(lambda label=label: label.text, rename, ctx)
    for a in root.findChildren(QAction):
        ctx = _context(a)
        apply(a.text, a.setText, ctx)
        apply(a.toolTip, a.setToolTip, ctx)
        apply(a.statusTip, a.setStatusTip, ctx)
        apply(a.iconText, a.setIconText, ctx)
    return changed
