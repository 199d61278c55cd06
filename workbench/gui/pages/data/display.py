"""How the Data page names and shows things: roles, problems, formats, encodings, cleaning
steps, per-column statistics and the before/after snippets of a cleaning step."""

from __future__ import annotations

import unicodedata
from typing import Any

import numpy as np
import pandas as pd
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from ....core.cleaning import STEPS
from ....core.cleaning.steps import is_invisible
from ...i18n import content_lang, join_list
from ..role_names import role_name


def problem_text(p) -> str:
    """A mapping or data problem (core.mapping) in the interface language, with the roles
    as the page names them and no command-line syntax."""
    role = role_name(p.role) if p.role else ""
    a = p.args
    if p.code == "required":
        return QCoreApplication.translate("DataPage", "Choose the column that holds “{0}”: it is required.").format(role)
    if p.code == "column_missing":
        return QCoreApplication.translate("DataPage", "The column “{0}” is not in this file; choose another one.").format(a[0])
    if p.code == "column_twice":
        return QCoreApplication.translate("DataPage", "The column “{0}” is already used for “{1}”; each column can hold one thing only.").format(
            a[0], role_name(a[1]))
    if p.code == "not_joined":
        return QCoreApplication.translate("DataPage", "“{0}” takes one column only; choose one.").format(role)
    if p.code == "unknown_role":
        return QCoreApplication.translate("DataPage", "This template has no field “{0}”.").format(p.role)
    if p.code == "no_rows":
        return QCoreApplication.translate("DataPage", "No rows are left after cleaning. Check the mapping and loosen the cleaning steps.")
    if p.code == "few_classes":
        found = join_list(a[0]) if a[0] else QCoreApplication.translate("DataPage", "none")
        return QCoreApplication.translate("DataPage", "The labels have fewer than two different values after cleaning (found: {0}). "
                             "Classification needs at least two: check the column chosen for “{1}”.").format(found, role)
    if p.code == "labels_outside":
        return QCoreApplication.translate("DataPage", "{0} rows have labels outside the template's set ({1}). Add them as other spellings in "
                             "the step “{2}”, or drop rows with other labels.").format(
            f"{a[0]:,}", join_list(a[1]), step_title("normalize_labels"))
    if p.code == "labels_mismatch":
        return QCoreApplication.translate("DataPage", "{0} of {1} rows have labels outside the template's set; your data "
                                          "has its own ({2}). On the Labels tab, use the labels found in your data.").format(
            f"{a[0]:,}", f"{a[1]:,}", join_list(a[2]))
    if p.code == "labels_too_few":
        return QCoreApplication.translate("DataPage", "Labels with fewer than {0} rows after cleaning were dropped: {1}. "
                                          "Lower the least rows per label on the Labels tab, or add rows.").format(a[0], a[1])
    if p.code == "all_empty":
        return QCoreApplication.translate("DataPage", "Every row's “{0}” is empty: choose the column that holds it.").format(role)
    if p.code == "some_empty":
        return QCoreApplication.translate("DataPage", "{0} rows have an empty “{1}”; the step “{2}” on it removes them.").format(
            f"{a[0]:,}", role, step_title("drop_empty"))
    return p.message


def guess_text(g) -> str:
    """A column guessed from its cells (core.column_guess) in the interface language."""
    if g.code == "text_pair":
        return QCoreApplication.translate(
            "DataPage", "“{0}” ← {1} + {2} (a pair of short texts beside a label of two values: read together, "
                        "one a line)").format(role_name(g.role), g.args[2], g.args[3])
    if g.code == "few_values":
        why = QCoreApplication.translate("DataPage", "{0} distinct short values").format(f"{g.args[0]:,}")
    else:
        why = QCoreApplication.translate("DataPage", "free text, {0:.0f} characters on average").format(g.args[0])
    return QCoreApplication.translate("DataPage", "“{0}” ← {1} ({2})").format(role_name(g.role), g.column, why)


def format_name(fmt: str | None) -> str:
    """A file format as users know it."""
    names = {
        "csv": "CSV", "tsv": "TSV", "excel": "Excel", "json": "JSON", "jsonl": "JSON Lines",
        "parquet": "Parquet", "tfrecord": "TFRecord", "alpaca": QCoreApplication.translate("DataPage", "JSON (Alpaca)"),
        "sharegpt": QCoreApplication.translate("DataPage", "JSON (ShareGPT)"),
        "messages": QCoreApplication.translate("DataPage", "JSON (chat messages)"),
        "src_tgt": QCoreApplication.translate("DataPage", "JSON (src/tgt)"),
    }
    return names.get(fmt or "", (fmt or "").upper())


def encoding_name(encoding: str | None) -> str:
    """A text encoding as users know it (empty for formats that have none)."""
    if not encoding:
        return ""
    e = encoding.lower().replace("_", "-")
    if e == "utf-8-sig":
        return QCoreApplication.translate("DataPage", "UTF-8 with BOM")
    return {"utf-8": "UTF-8", "gb18030": "GB18030", "gbk": "GBK", "gb2312": "GB2312", "big5": "Big5",
            "utf-16": "UTF-16", "utf-16-le": "UTF-16 LE", "utf-16-be": "UTF-16 BE"}.get(e, encoding.upper())


def step_title(op: str) -> str:
    info = STEPS.get(op)
    if info is None:
        return op
    return info.title_zh if content_lang() == "zh" else info.title


def step_name(op: str, params: dict | None) -> str:
    """A step of a recipe as the steps list names it: its title, or what it does where one
    title would name different steps (two "Mask, drop or flag sensitive terms" steps, one
    masking the answers, one flagging the questions; a length filter for each column)."""
    params = params or {}
    if op == "sensitive_terms":
        columns = join_list(role_name(c) for c in params.get("columns") or []) or \
            QCoreApplication.translate("DataPage", "every text column")
        said = {
            "mask": QCoreApplication.translate("DataPage", "Mask sensitive terms in {0}"),
            "drop": QCoreApplication.translate("DataPage", "Drop rows with sensitive terms in {0}"),
            "flag": QCoreApplication.translate("DataPage", "Flag sensitive terms in {0} for review"),
        }.get(params.get("action") or "mask")
        if said:
            return said.format(columns)
    if op == "length_filter" and params.get("column"):
        return QCoreApplication.translate("DataPage", "Filter rows by the length of {0}").format(
            role_name(params["column"]))
    return step_title(op)


def column_stats(df: pd.DataFrame, ctx=None) -> dict[str, dict[str, Any]]:
    """Per column: missing cells, a histogram of text lengths and the most frequent values."""
    out = {}
    for i, c in enumerate(df.columns):
        if ctx is not None:
            ctx.progress(i / max(len(df.columns), 1))
        s = df[c].astype("string")
        blank = s.isna() | (s.str.strip() == "")
        lengths = s.str.len().fillna(0).to_numpy(dtype=float)
        top = lengths.max() if len(lengths) else 0
        # whole-character bins, so that a bar's label is the lengths it counts
        width = max(1, int(np.ceil((top + 1) / 20)))
        edges = np.arange(0, top + width + 1, width)
        counts, edges = np.histogram(lengths, bins=edges)
        vc = s[~blank].value_counts()
        out[str(c)] = {
            "rows": int(len(s)),
            "missing": int(blank.sum()),
            "distinct": int(len(vc)),
            "top": [(str(k), int(v)) for k, v in vc.head(20).items()],
            "hist": (counts, edges),
            "mean_len": float(lengths.mean()) if len(lengths) else 0.0,
            "max_len": int(top),
        }
    return out


def change_window(before: str, after: str | None, width: int = 60, lead: int = 6) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    """The part of both texts around their first difference, for a narrow cell.

    Returns ``(head, changed, tail)`` for the text before and after the change: ``changed``
    is what differs (between the common beginning and the common end), ``head`` and
    ``tail`` a little context, with "…" where the text goes on.
    """
    if after is None:  # a dropped row: its beginning, nothing marked
        return ("", "", before[:width] + ("…" if len(before) > width else "")), ("", "", "")
    after_text = after
    n = min(len(before), len(after_text))
    i = 0
    while i < n and before[i] == after_text[i]:
        i += 1
    j = 0  # common end, not overlapping the common beginning
    while j < n - i and before[len(before) - 1 - j] == after_text[len(after_text) - 1 - j]:
        j += 1

    def window(text: str) -> tuple[str, str, str]:
        a, b = i, len(text) - j
        start = max(0, a - lead)
        stop = min(len(text), max(b, a) + max(lead, width - (max(b, a) - start)))
        changed = text[a:b]
        if b - a > width:  # a long change: its beginning tells enough
            changed = changed[:width] + "…"
            stop = b
        head = ("…" if start > 0 else "") + text[start:a]
        tail = text[b:stop] + ("…" if stop < len(text) else "")
        return head, changed, tail

    return window(before), window(after_text)


# characters a change may consist of that draw nothing (or collapse in a line of HTML): in the
# marked change each is drawn as a sign, so "Trim whitespace" shows what it trimmed
INVISIBLE_SIGNS = {" ": "·", "\u3000": "□", "\t": "→", "\u00a0": "°", "\r": "⏎", "\n": "⏎"}


def invisible_sign(ch: str) -> str | None:
    """The sign a character of the marked change is drawn as, or None for one that shows itself:
    white space as above; what "Remove control and zero-width characters" removes as ⌧ (a control
    character: the box a table draws for one, and a sign the bundled and common fonts have, which
    the control pictures ␈ ␀ are not) or ◇ (no width)."""
    if ch in INVISIBLE_SIGNS:
        return INVISIBLE_SIGNS[ch]
    if not is_invisible(ch):
        return None
    return "⌧" if unicodedata.category(ch) == "Cc" else "◇"


def has_invisible(text: str) -> bool:
    return any(invisible_sign(ch) for ch in text)


def html_snippet(parts: tuple[str, str, str], color: str) -> str:
    import html

    head, tail = (html.escape(x).replace("\n", " ⏎ ") for x in (parts[0], parts[2]))
    changed = html.escape("".join(invisible_sign(ch) or ch for ch in parts[1]))
    mark = f"<span style='background:{color}'>{changed}</span>" if changed else ""
    return f"{head}{mark}{tail}"


def invisible_legend() -> str:
    return QCoreApplication.translate(
        "DataPage", "In the marked changes: · a space, □ a full-width space, → a tab, ° a no-break space, "
                    "◇ a character of no width, ⏎ a line break, ⌧ a control character.")


class SnippetDelegate(QStyledItemDelegate):
    """Paints a cell's ``HTML_ROLE`` rich text (the highlighted change) on one line."""

    HTML_ROLE = Qt.ItemDataRole.UserRole + 1

    def paint(self, painter, option, index) -> None:
        html_text = index.data(self.HTML_ROLE)
        if not html_text:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        doc = QTextDocument()
        doc.setDefaultFont(opt.font)
        doc.setDocumentMargin(0)
        doc.setHtml(html_text)
        rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, opt, opt.widget)
        painter.save()
        painter.setClipRect(rect)
        painter.translate(rect.left() + 2, rect.top() + max(0, (rect.height() - doc.size().height()) / 2))
        doc.drawContents(painter)
        painter.restore()
