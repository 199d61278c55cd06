"""A form for one cleaning step's parameters, built from the step's pydantic schema."""

from __future__ import annotations

import json
import re
import typing
from typing import Any, Literal

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP, Signal
from PySide6.QtWidgets import (
    QCheckBox, QComboBox, QFormLayout, QGridLayout, QLabel, QLineEdit, QSpinBox, QWidget,
)

from ...core.cleaning import STEPS

PARAM_LABELS = {
    "columns": QT_TRANSLATE_NOOP("StepEditor", "Columns to clean"),  # not the Data page's Columns tab
    "column": QT_TRANSLATE_NOOP("StepEditor", "Column"),
    "form": QT_TRANSLATE_NOOP("StepEditor", "Unicode form"),
    "min_chars": QT_TRANSLATE_NOOP("StepEditor", "At least (characters)"),
    "max_chars": QT_TRANSLATE_NOOP("StepEditor", "At most (characters)"),
    "long_chars": QT_TRANSLATE_NOOP("StepEditor", "Count rows longer than (characters)"),
    "kinds": QT_TRANSLATE_NOOP("StepEditor", "Personal data to mask"),
    "replacement": QT_TRANSLATE_NOOP("StepEditor", "Replacement tokens (JSON)"),
    "terms": QT_TRANSLATE_NOOP("StepEditor", "Terms (comma separated)"),
    "action": QT_TRANSLATE_NOOP("StepEditor", "Action"),
    "mask_char": QT_TRANSLATE_NOOP("StepEditor", "Mask character"),
    "ignore_case": QT_TRANSLATE_NOOP("StepEditor", "Ignore upper/lower case"),
    "labels": QT_TRANSLATE_NOOP("StepEditor", "Labels (comma separated)"),
    "aliases": QT_TRANSLATE_NOOP("StepEditor", "Other spellings (JSON)"),
    "drop_unknown": QT_TRANSLATE_NOOP("StepEditor", "Drop rows with other labels"),
    "find": QT_TRANSLATE_NOOP("StepEditor", "Find"),
    "replace": QT_TRANSLATE_NOOP("StepEditor", "Replace with"),
    "regex": QT_TRANSLATE_NOOP("StepEditor", "Regular expression"),
}
CHOICE_LABELS = {
    "phone": QT_TRANSLATE_NOOP("StepEditor", "phone numbers"),
    "id_card": QT_TRANSLATE_NOOP("StepEditor", "ID card numbers"),
    "bank_card": QT_TRANSLATE_NOOP("StepEditor", "bank card numbers"),
    "email": QT_TRANSLATE_NOOP("StepEditor", "e-mail addresses"),
    "mask": QT_TRANSLATE_NOOP("StepEditor", "mask the term"),
    "drop": QT_TRANSLATE_NOOP("StepEditor", "drop the row"),
    "flag": QT_TRANSLATE_NOOP("StepEditor", "only list the rows for review"),
}


# parameters another editor owns: the label set and its spellings are edited in the label table
MANAGED_ELSEWHERE = {"normalize_labels": ("labels", "aliases")}


def _tr(text: str) -> str:
    return QCoreApplication.translate("StepEditor", text)


def _split_list(text: str) -> list[str]:
    return [t.strip() for t in re.split(r"[,，、;；\n]", text) if t.strip()]


def _unwrap(annotation) -> tuple[Any, bool]:
    """(inner type, optional) for ``X | None``."""
    args = typing.get_args(annotation)
    if type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else annotation), True
    return annotation, False


class _ChecksGrid(QGridLayout):
    """Check boxes two to a row: in one row, four columns or four kinds of personal data made
    the Data page's side panel wider, and its splitter jumped, whenever such a step was selected."""

    PER_ROW = 2

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.setContentsMargins(0, 0, 0, 0)
        self.setColumnStretch(self.PER_ROW, 1)

    def add(self, w: QWidget) -> None:
        n = sum(1 for i in range(self.count()) if self.itemAt(i).widget() is not None)
        self.addWidget(w, n // self.PER_ROW, n % self.PER_ROW)


class StepParamsEditor(QWidget):
    """Edits one step's params; emits ``params_edited`` with the new dict after each change."""

    params_edited = Signal(dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.form = QFormLayout(self)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.op: str | None = None
        self.values: dict[str, Any] = {}
        self.getters: dict[str, Any] = {}
        self.columns: list[str] = []
        self.column_names: dict[str, str] = {}  # how the page names each column (roles: "Text", ...)

    def clear(self) -> None:
        # A change of a field may rebuild the form from inside that field's own signal (a
        # click on a check box): deleting the widget there leaves Qt delivering the rest of
        # the click to freed memory. Rows are taken out now and their widgets deleted once
        # the event loop has finished with them.
        while self.form.rowCount():
            row = self.form.takeRow(0)
            for item in (row.labelItem, row.fieldItem):
                w = item.widget() if item is not None else None
                if w is not None:
                    w.hide()
                    w.setParent(None)
                    w.deleteLater()
        self.getters = {}
        self.op = None

    def set_step(self, op: str, params: dict[str, Any], columns: list[str],
                 column_names: dict[str, str] | None = None) -> None:
        self.clear()
        info = STEPS.get(op)
        if info is None:
            return
        self.op = op
        self.columns = list(columns)
        self.column_names = dict(column_names or {})
        self.values = {**info.defaults(), **params}
        managed = MANAGED_ELSEWHERE.get(op, ())
        if managed:
            note = QLabel(QCoreApplication.translate(
                "StepEditor", "The labels and their other spellings are edited on the Labels tab."))
            note.setWordWrap(True)
            self.form.addRow(note)
        for name, field in info.params.model_fields.items():
            if name in managed:
                self.getters[name] = (lambda n=name: self.values.get(n))  # kept as they are
                continue
            w, getter = self._widget(name, field.annotation, self.values.get(name))
            self.getters[name] = getter
            label = _tr(PARAM_LABELS[name]) if name in PARAM_LABELS else name
            self.form.addRow(label, w)

    def current(self) -> dict[str, Any]:
        out = {}
        for name, getter in self.getters.items():
            try:
                out[name] = getter()
            except ValueError:
                out[name] = self.values.get(name)
        return out

    def _changed(self, *_):
        self.params_edited.emit(self.current())

    # -- widget factory --
    def _widget(self, name: str, annotation, value):
        inner, optional = _unwrap(annotation)
        origin = typing.get_origin(inner)
        if inner is bool:
            w = QCheckBox()
            w.setChecked(bool(value))
            w.toggled.connect(self._changed)
            return w, w.isChecked
        if inner is int:
            w = QSpinBox()
            w.setRange(0, 1_000_000)
            if optional:
                w.setSpecialValueText(QCoreApplication.translate("StepEditor", "no limit"))
            w.setValue(int(value) if value is not None else 0)
            w.editingFinished.connect(self._changed)
            return w, (lambda: (None if optional and w.value() == 0 else w.value()))
        if origin is Literal:
            w = QComboBox()
            for choice in typing.get_args(inner):
                w.addItem(_tr(CHOICE_LABELS[choice]) if choice in CHOICE_LABELS else str(choice), choice)
            w.setCurrentIndex(max(0, w.findData(value)))
            w.currentIndexChanged.connect(self._changed)
            return w, w.currentData
        if origin is list and typing.get_origin(typing.get_args(inner)[0]) is Literal:
            choices = typing.get_args(typing.get_args(inner)[0])
            box = QWidget()
            lay = _ChecksGrid(box)
            checks = []
            for choice in choices:
                c = QCheckBox(_tr(CHOICE_LABELS[choice]) if choice in CHOICE_LABELS else str(choice))
                c.setChecked(value is None or choice in value)
                c.toggled.connect(self._changed)
                checks.append((choice, c))
                lay.add(c)
            return box, (lambda: [ch for ch, c in checks if c.isChecked()])
        if name == "columns":
            return self._columns_widget(value, optional)
        if name == "column":
            w = QComboBox()
            if optional:
                w.addItem(QCoreApplication.translate("StepEditor", "(not set)"), None)
            for c in self.columns:
                w.addItem(self.column_names.get(c, c), c)
            if value is not None and w.findData(value) < 0:
                w.addItem(str(value), value)
            w.setCurrentIndex(max(0, w.findData(value)))
            w.currentIndexChanged.connect(self._changed)
            return w, w.currentData
        if origin is list:
            w = QLineEdit("，".join(value or []))
            w.editingFinished.connect(self._changed)
            return w, (lambda: _split_list(w.text()))
        if origin is dict or inner is dict:
            w = QLineEdit(json.dumps(value, ensure_ascii=False) if value else "")
            w.editingFinished.connect(self._changed)

            def get():
                t = w.text().strip()
                if not t:
                    return None if optional else {}
                return json.loads(t)

            return w, get
        w = QLineEdit("" if value is None else str(value))
        w.editingFinished.connect(self._changed)
        return w, (lambda: (w.text() or None) if optional else w.text())

    def _columns_widget(self, value, optional: bool):
        box = QWidget()
        lay = _ChecksGrid(box)
        all_box = None
        if optional:
            all_box = QCheckBox(QCoreApplication.translate("StepEditor", "all text columns"))
            all_box.setChecked(value is None)
            lay.add(all_box)
        checks = []
        for c in self.columns:
            cb = QCheckBox(self.column_names.get(c, c))
            cb.setChecked(value is not None and c in value)
            cb.setEnabled(value is not None)
            checks.append((c, cb))
            lay.add(cb)
            cb.toggled.connect(self._changed)
        if all_box is not None:
            def on_all(on):
                for _, cb in checks:
                    cb.setEnabled(not on)
                self._changed()
            all_box.toggled.connect(on_all)
        for _, cb in checks:
            cb.setEnabled(all_box is None or not all_box.isChecked())

        def get():
            if all_box is not None and all_box.isChecked():
                return None
            return [c for c, cb in checks if cb.isChecked()]

        return box, get
