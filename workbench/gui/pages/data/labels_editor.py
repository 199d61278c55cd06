"""The label table: each value of the label column, its rows, what it maps to, and the
operations on it (use the labels found, rename, merge, exclude, least rows, code names).

The widget binds a core :class:`~workbench.core.labels.LabelTable`: every operation is the
table's own, and the new choice goes to the page, which re-runs the preview with it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QHBoxLayout, QHeaderView, QInputDialog, QLabel, QLineEdit, QPushButton,
    QSpinBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget,
)

from ....core.errors import WorkbenchError
from ....core.labels import LabelChoice, LabelTable
from ...error_texts import exception_text
from ...i18n import join_list


class CodeNamesDialog(QDialog):
    """Names for code values (0 -> 负面), typed into a two-column table."""

    def __init__(self, codes: list[str], names: dict[str, str], parent=None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Name the codes"))
        v = QVBoxLayout(self)
        hint = QLabel(self.tr("Give each code the label name it stands for; leave a name empty to keep the code."))
        hint.setWordWrap(True)
        v.addWidget(hint)
        self.table = QTableWidget(len(codes), 2)
        self.table.setHorizontalHeaderLabels([self.tr("Code"), self.tr("Name")])
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for i, code in enumerate(codes):
            item = QTableWidgetItem(code)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
            self.table.setItem(i, 0, item)
            self.table.setItem(i, 1, QTableWidgetItem(names.get(code, "")))
        v.addWidget(self.table)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        v.addWidget(buttons)

    def names(self) -> dict[str, str]:
        out = {}
        for i in range(self.table.rowCount()):
            name = (self.table.item(i, 1).text() if self.table.item(i, 1) else "").strip()
            if name:
                out[self.table.item(i, 0).text()] = name
        return out


class LabelsEditor(QWidget):
    """Shows a LabelTable; emits ``choice_edited`` with the new LabelChoice after each operation."""

    choice_edited = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.table_data: LabelTable | None = None
        self.min_rows_default = 3
        self.dropped: tuple[int, int] | None = None  # rows of excluded labels, of labels with too few rows
        v = QVBoxLayout(self)
        self.notice = QLabel()
        self.notice.setObjectName("warning")
        self.notice.setWordWrap(True)
        self.use_found_button = QPushButton(self.tr("Use the labels found in my data"))
        self.use_found_button.setObjectName("primary")
        self.use_found_button.clicked.connect(self.use_found)
        self.use_template_button = QPushButton(self.tr("Use the template's labels"))
        self.use_template_button.clicked.connect(self.use_template)
        row = QHBoxLayout()
        row.addWidget(self.use_found_button)
        row.addWidget(self.use_template_button)
        row.addStretch(1)
        v.addWidget(self.notice)
        v.addLayout(row)
        self.summary = QLabel(self.tr("Map the label column to see its values."))
        self.summary.setWordWrap(True)
        v.addWidget(self.summary)
        self.values_table = QTableWidget(0, 3)
        self.values_table.setHorizontalHeaderLabels([self.tr("Value in the data"), self.tr("Rows"), self.tr("Maps to")])
        self.values_table.verticalHeader().setVisible(False)
        self.values_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.values_table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.values_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        hh = self.values_table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.values_table.itemSelectionChanged.connect(self._update_buttons)
        v.addWidget(self.values_table, 1)
        ops = QHBoxLayout()
        self.rename_button = QPushButton(self.tr("Rename…"))
        self.rename_button.setToolTip(self.tr("Give the selected label another name; the old name becomes one of its spellings."))
        self.rename_button.clicked.connect(self._on_rename_button_clicked)
        self.merge_button = QPushButton(self.tr("Merge…"))
        self.merge_button.setToolTip(self.tr("Make the selected labels one label; the others become its spellings."))
        self.merge_button.clicked.connect(self._on_merge_button_clicked)
        self.exclude_button = QPushButton(self.tr("Exclude"))
        self.exclude_button.setToolTip(self.tr("Drop the rows of the selected labels (they are counted), or keep them again."))
        self.exclude_button.clicked.connect(self._on_exclude_button_clicked)
        self.codes_button = QPushButton(self.tr("Name codes…"))
        self.codes_button.setToolTip(self.tr("Give code values such as 0, 1, 2 the label names they stand for."))
        self.codes_button.clicked.connect(self._on_codes_button_clicked)
        for b in (self.rename_button, self.merge_button, self.exclude_button, self.codes_button):
            ops.addWidget(b)
        ops.addStretch(1)
        v.addLayout(ops)
        least = QHBoxLayout()
        least.addWidget(QLabel(self.tr("Drop labels with fewer rows than")))
        self.min_rows_spin = QSpinBox()
        self.min_rows_spin.setRange(0, 1_000_000)
        self.min_rows_spin.setSpecialValueText(self.tr("enough for every split"))
        self.min_rows_spin.setToolTip(self.tr("Counted after cleaning. By default a label needs one row for training, "
                                              "one for validation and one for testing."))
        self.min_rows_spin.editingFinished.connect(self._on_min_rows_spin_edited)
        least.addWidget(self.min_rows_spin)
        least.addStretch(1)
        v.addLayout(least)
        self.multi_check = QCheckBox(self.tr("Several labels per row (multi-label)"))
        self.multi_check.setToolTip(self.tr(
            "A list cell, or labels separated by spaces, commas, 、 or semicolons in one cell, is the row's set "
            "of labels; the model then gives each label on its own."))
        self.multi_check.toggled.connect(self._on_multi_check_toggled)
        multi = QHBoxLayout()
        multi.addWidget(self.multi_check)
        self.sep_label = QLabel(self.tr("Separator between labels:"))
        self.sep_edit = QLineEdit()
        self.sep_edit.setPlaceholderText(self.tr("spaces, commas, 、 or ;"))
        self.sep_edit.setToolTip(self.tr(
            "The characters that separate the labels in one cell, taken exactly as typed (for example ; or |). "
            "Leave it empty to split on spaces, commas, 、 and semicolons. Set one when a label's own name holds "
            "one of those characters."))
        self.sep_edit.setMaximumWidth(160)
        self.sep_edit.editingFinished.connect(self._on_sep_edit_finished)
        self.sep_label.setBuddy(self.sep_edit)
        multi.addSpacing(12)
        multi.addWidget(self.sep_label)
        multi.addWidget(self.sep_edit)
        multi.addStretch(1)
        v.addLayout(multi)
        several = QHBoxLayout()
        self.several_label = QLabel()
        self.several_combo = QComboBox()
        self.several_combo.addItem(self.tr("drop them (counted)"), "drop")
        self.several_combo.addItem(self.tr("keep the first label"), "first")
        self.several_combo.currentIndexChanged.connect(self._on_several_combo_changed)
        several.addWidget(self.several_label)
        several.addWidget(self.several_combo)
        several.addStretch(1)
        v.addLayout(several)
        no_label = QHBoxLayout()
        self.no_label_label = QLabel()
        self.no_label_combo = QComboBox()
        self.no_label_combo.addItem(self.tr("keep them as rows with no label"), "keep")
        self.no_label_combo.addItem(self.tr("drop them (counted)"), "drop")
        self.no_label_combo.setToolTip(self.tr(
            "In multi-label data a row may have none of the labels (most sentences of a case name no article). "
            "Kept, the model learns to give no label to such rows, and micro-F1 and subset accuracy count them."))
        self.no_label_combo.currentIndexChanged.connect(self._on_no_label_combo_changed)
        no_label.addWidget(self.no_label_label)
        no_label.addWidget(self.no_label_combo)
        no_label.addStretch(1)
        v.addLayout(no_label)
        self._show()

    # ----- binding ------------------------------------------------------------------
    def set_table(self, table: LabelTable | None, min_rows_default: int | None = None,
                  dropped: tuple[int, int] | None = None) -> None:
        """``dropped``: the rows the last cleaning run removed for excluded labels and for labels
        with too few rows (with several labels per row: the rows those labels were taken off)."""
        self.table_data = table
        self.dropped = dropped
        if min_rows_default is not None:
            self.min_rows_default = min_rows_default
        self._show()

    def selected_labels(self) -> list[str]:
        if self.table_data is None:
            return []
        rows = sorted({i.row() for i in self.values_table.selectedIndexes()})
        labels = []
        for r in rows:
            label = self.values_table.item(r, 0).data(Qt.ItemDataRole.UserRole)
            if label is not None and label not in labels:
                labels.append(label)
        return labels

    def _status(self, value) -> str:
        t = self.table_data
        n = t.choice.min_rows or self.min_rows_default
        if value.label is None:
            return self.tr("not in the label set: rows dropped")
        if value.label in t.excluded:
            return self.tr("{0} · excluded: rows dropped").format(value.label)
        if t.label_rows.get(value.label, 0) < n:
            return self.tr("{0} · fewer than {1} rows: dropped").format(value.label, n)
        if value.kind == "alias":
            return self.tr("{0} (another spelling)").format(value.label)
        return value.label

    def on_language_changed(self) -> None:
        """The summary, the notice and the value states are drawn from the table again: the
        summary joins formatted parts with " · ", which a word-by-word translation takes apart."""
        self._show()

    def _show(self) -> None:
        t = self.table_data
        self.values_table.setRowCount(0)
        has = t is not None
        for w in (self.use_found_button, self.use_template_button, self.codes_button, self.min_rows_spin,
                  self.multi_check):
            w.setEnabled(has)
        if not has:
            self.sep_edit.setEnabled(False)
            self.sep_label.setEnabled(False)
            self.notice.setVisible(False)
            for w in (self.several_label, self.several_combo, self.no_label_label, self.no_label_combo):
                w.setVisible(False)
            self._update_buttons()
            return
        self.notice.setVisible(t.mismatch)
        multi = t.labelled is not None
        if t.mismatch:
            shown = join_list(list(t.unknown_values)[:6]) + ("…" if len(t.unknown_values) > 6 else "")
            if multi:
                text = self.tr("{0} of the {1} labels given in {2} rows are not in the template's label set. Your "
                               "data has its own labels ({3}). Use them, or the rows cannot be trained on.").format(
                    f"{t.unknown_rows:,}", f"{t.rows:,}", f"{t.labelled_rows:,}", shown)
            else:
                text = self.tr(
                    "{0} of {1} rows have labels that are not in the template's label set. Your data has its own "
                    "labels ({2}). Use them, or the rows cannot be trained on.").format(
                    f"{t.unknown_rows:,}", f"{t.rows:,}", shown)
            self.notice.setText(text)
        self.use_found_button.setEnabled(t.choice.source != "data")
        self.use_template_button.setEnabled(t.choice.source != "template")
        self.values_table.setRowCount(len(t.values))
        for i, value in enumerate(t.values):
            item = QTableWidgetItem(value.value)
            item.setData(Qt.ItemDataRole.UserRole, value.label)
            self.values_table.setItem(i, 0, item)
            rows = QTableWidgetItem(f"{value.rows:,}")
            rows.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.values_table.setItem(i, 1, rows)
            self.values_table.setItem(i, 2, QTableWidgetItem(self._status(value)))
        source = {"template": self.tr("the template's labels"), "data": self.tr("the labels found in the data"),
                  "list": self.tr("your own list")}[t.choice.source]
        self.summary.setText(self._summary_text(t, source))
        self.min_rows_spin.blockSignals(True)
        self.min_rows_spin.setValue(t.choice.min_rows or 0)
        self.min_rows_spin.blockSignals(False)
        self.multi_check.blockSignals(True)
        self.multi_check.setChecked(t.choice.multi_label)
        self.multi_check.blockSignals(False)
        self.sep_edit.blockSignals(True)
        self.sep_edit.setText(t.choice.separator or "")
        self.sep_edit.blockSignals(False)
        self.sep_edit.setEnabled(t.choice.multi_label)
        self.sep_label.setEnabled(t.choice.multi_label)
        # a list-valued label cell with several labels: one label per row today
        self.several_label.setText(self.tr("{0} rows list several labels:").format(f"{t.several:,}"))
        self.several_combo.blockSignals(True)
        self.several_combo.setCurrentIndex(max(0, self.several_combo.findData(t.choice.several)))
        self.several_combo.blockSignals(False)
        for w in (self.several_label, self.several_combo):
            w.setVisible(t.several > 0)
        self.no_label_label.setText(self.tr("{0} rows have no label:").format(f"{t.blank:,}"))
        self.no_label_combo.blockSignals(True)
        self.no_label_combo.setCurrentIndex(max(0, self.no_label_combo.findData(t.choice.no_label)))
        self.no_label_combo.blockSignals(False)
        for w in (self.no_label_label, self.no_label_combo):
            w.setVisible(t.choice.multi_label and t.blank > 0)
        self._update_buttons()

    def _summary_text(self, t: LabelTable, source: str) -> str:
        """The labels, the rows they are in, and every row (or label) the page drops for them."""
        excluded, too_few = self.dropped or (0, 0)
        # a label of the set that no row has is left out of the project: not counted, but named
        absent = t.absent if t.rows else []
        count = len(t.kept) - len(absent)
        if t.labelled is None:
            parts = [self.tr("{0} labels ({1}) · {2} values in {3} rows · {4} rows outside the label set").format(
                count, source, len(t.values), f"{t.rows:,}", f"{t.unknown_rows:,}")]
            if excluded:
                parts.append(self.tr("{0} rows of excluded labels dropped").format(f"{excluded:,}"))
            if too_few:
                parts.append(self.tr("{0} rows of labels with too few rows dropped").format(f"{too_few:,}"))
        else:  # a value counts once per row it is in, so the values add up to more than the rows
            parts = [self.tr("{0} labels ({1}) · {2} values given {3} times in {4} rows · {5} times outside the "
                             "label set").format(count, source, len(t.values), f"{t.rows:,}",
                                                 f"{t.labelled_rows:,}", f"{t.unknown_rows:,}")]
            if excluded:
                parts.append(self.tr("excluded labels taken off {0} rows").format(f"{excluded:,}"))
            if too_few:
                parts.append(self.tr("labels with too few rows taken off {0} rows").format(f"{too_few:,}"))
        if absent:
            parts.append(self.tr("no row has {0}: left out of the project").format(join_list(absent)))
        return " · ".join(parts)

    @Slot()
    def _update_buttons(self) -> None:
        labels = self.selected_labels()
        self.rename_button.setEnabled(len(labels) == 1)
        self.merge_button.setEnabled(len(labels) >= 2)
        self.exclude_button.setEnabled(bool(labels))
        t = self.table_data
        excluded = bool(labels) and t is not None and all(lab in t.excluded for lab in labels)
        self.exclude_button.setText(self.tr("Include again") if excluded else self.tr("Exclude"))

    # ----- operations: the core table's, then the choice goes to the page ------------
    def _apply(self, op) -> None:
        if self.table_data is None:
            return
        t = LabelTable(self.table_data.counts, self.table_data.base_labels, self.table_data.base_aliases,
                       self.table_data.choice, blank=self.table_data.blank, several=self.table_data.several,
                       labelled=self.table_data.labelled)
        try:
            op(t)
        except WorkbenchError as exc:
            self.summary.setText(exception_text(exc))
            return
        self.table_data = t
        self.dropped = None  # until the page has cleaned with the new choice
        self._show()
        self.choice_edited.emit(t.choice)

    def use_found(self) -> None:
        self._apply(lambda t: t.use_found())

    def use_template(self) -> None:
        self._apply(lambda t: t.use_template())

    def rename(self, label: str, new: str) -> None:
        self._apply(lambda t: t.rename(label, new))

    def merge(self, labels: list[str], into: str) -> None:
        self._apply(lambda t: t.merge(labels, into))

    def exclude(self, labels: list[str], excluded: bool = True) -> None:
        def op(t):
            for lab in labels:
                t.exclude(lab, excluded)
        self._apply(op)

    def set_min_rows(self, n: int | None) -> None:
        self._apply(lambda t: t.drop_below(n or None))

    def name_codes(self, names: dict[str, str]) -> None:
        self._apply(lambda t: t.name_codes(names, replace=True))

    # ----- buttons --------------------------------------------------------------------
    @Slot()
    def _on_rename_button_clicked(self) -> None:
        labels = self.selected_labels()
        if len(labels) != 1:
            return
        new, ok = QInputDialog.getText(self, self.tr("Rename the label"),
                                       self.tr("New name for “{0}”:").format(labels[0]), text=labels[0])
        if ok and new.strip() and new.strip() != labels[0]:
            self.rename(labels[0], new.strip())

    @Slot()
    def _on_merge_button_clicked(self) -> None:
        labels = self.selected_labels()
        if len(labels) < 2:
            return
        into, ok = QInputDialog.getItem(self, self.tr("Merge labels"),
                                        self.tr("Keep this label; the others become its spellings:"), labels, 0, False)
        if ok and into:
            self.merge(labels, into)

    @Slot()
    def _on_exclude_button_clicked(self) -> None:
        labels = self.selected_labels()
        if labels and self.table_data is not None:
            self.exclude(labels, not all(lab in self.table_data.excluded for lab in labels))

    @Slot()
    def _on_codes_button_clicked(self) -> None:
        if self.table_data is None:
            return
        codes = [v.value for v in self.table_data.values]
        dlg = CodeNamesDialog(list(dict.fromkeys([*self.table_data.choice.codes, *codes])),
                              dict(self.table_data.choice.codes), self)
        if dlg.exec() == QDialog.DialogCode.Accepted:
            self.name_codes(dlg.names())

    @Slot(bool)
    def _on_multi_check_toggled(self, on: bool) -> None:
        self._apply(lambda t: t.set_multi_label(on))

    def set_separator(self, sep: str) -> None:
        self._apply(lambda t: t.set_separator(sep))

    @Slot()
    def _on_sep_edit_finished(self) -> None:
        if self.table_data is not None and (self.sep_edit.text() or None) != self.table_data.choice.separator:
            self.set_separator(self.sep_edit.text())

    @Slot(int)
    def _on_several_combo_changed(self, _i: int) -> None:
        value = self.several_combo.currentData()
        self._apply(lambda t: t.keep_several(value))

    @Slot(int)
    def _on_no_label_combo_changed(self, _i: int) -> None:
        value = self.no_label_combo.currentData()
        self._apply(lambda t: t.set_no_label(value))

    @Slot()
    def _on_min_rows_spin_edited(self) -> None:
        if self.table_data is not None and (self.min_rows_spin.value() or None) != self.table_data.choice.min_rows:
            self.set_min_rows(self.min_rows_spin.value())


def choice_or_none(data) -> LabelChoice | None:
    return None if data is None else LabelChoice.model_validate(data)
