"""The Data page's Cleaning tab: the recipe's steps, what each did, its settings and examples.

The panel shows a recipe and the reports of its last run, and turns the user's edits (add,
remove, move, switch on or off, change a setting) into a new list of steps on
:attr:`StepsPanel.steps_edited`. It keeps no recipe of its own: the page pushes the edit on
its undo stack and shows the result, so undo, redo and the cleaning run stay in one place.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QMenu, QTableWidget, QTableWidgetItem, QToolButton,
    QVBoxLayout, QWidget,
)

from ....core.cleaning import STEPS, Recipe, Step, StepReport
from ....core.cleaning.steps import parse_params
from ....core.errors import WorkbenchError
from ...error_texts import exception_text
from ...resources import icon
from ...widgets.step_editor import StepParamsEditor
from .display import (
    SnippetDelegate, change_window, has_invisible, html_snippet, invisible_legend, role_name, step_name, step_title,
)


class StepsPanel(QWidget):
    steps_edited = Signal(list, str)  # the recipe's new steps (as dicts), the undo text

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.recipe = Recipe()
        self.reports: list[StepReport] = []
        self.columns: list[str] = []  # the template's roles, which a step's settings name
        self.labels: list[str] = []  # the template's labels, a label step's default
        self._refreshing = False
        self._build()

    def _build(self) -> None:
        v = QVBoxLayout(self)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        v.addWidget(self.summary)
        self.steps_table = QTableWidget(0, 3)
        self.steps_table.setHorizontalHeaderLabels([self.tr("Step"), self.tr("Rows dropped"), self.tr("Cells changed")])
        self.steps_table.verticalHeader().setVisible(False)
        self.steps_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.steps_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.steps_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.steps_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.steps_table.itemChanged.connect(self._on_steps_table_item_changed)
        self.steps_table.currentCellChanged.connect(self._on_steps_table_current_changed)
        v.addWidget(self.steps_table, 2)
        buttons = QHBoxLayout()
        self.add_step_button = QToolButton()
        self.add_step_button.setIcon(icon("add"))
        self.add_step_button.setText(self.tr("Add step"))
        self.add_step_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.add_step_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.add_step_button)
        self._add_actions = {}
        for op in STEPS:
            # made here, not by menu.addAction(text): PySide can declare the Python side of an
            # action Qt made deleted while Qt still holds it (when a temporary Python object of
            # an ancestor, such as the tab widget's own stack, goes); one made here stays usable
            a = QAction(step_title(op), menu)
            menu.addAction(a)
            a.triggered.connect(lambda _=False, o=op: self.add_step(o))
            self._add_actions[op] = a
        self.add_step_button.setMenu(menu)
        self.remove_step_button = QToolButton()
        self.remove_step_button.setIcon(icon("remove"))
        self.remove_step_button.setToolTip(self.tr("Remove the selected step"))
        self.remove_step_button.clicked.connect(self.remove_step)
        self.up_button = QToolButton()
        self.up_button.setIcon(icon("up"))
        self.up_button.setToolTip(self.tr("Move the step up"))
        self.up_button.clicked.connect(lambda: self.move_step(-1))
        self.down_button = QToolButton()
        self.down_button.setIcon(icon("down"))
        self.down_button.setToolTip(self.tr("Move the step down"))
        self.down_button.clicked.connect(lambda: self.move_step(1))
        for b in (self.add_step_button, self.remove_step_button, self.up_button, self.down_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        v.addLayout(buttons)
        self.step_title_label = QLabel()
        self.step_title_label.setObjectName("sectionTitle")
        v.addWidget(self.step_title_label)
        self.params_editor = StepParamsEditor()
        self.params_editor.params_edited.connect(self._on_params_editor_edited)
        v.addWidget(self.params_editor)
        self.params_message = QLabel()
        self.params_message.setObjectName("warning")
        self.params_message.setWordWrap(True)
        v.addWidget(self.params_message)
        self.examples_label = QLabel(self.tr("Affected rows (before → after)"))
        self.examples_label.setObjectName("sectionTitle")
        v.addWidget(self.examples_label)
        self.examples_table = QTableWidget(0, 4)
        self.examples_table.setHorizontalHeaderLabels([self.tr("Row"), self.tr("Column"), self.tr("Before"), self.tr("After")])
        self.examples_table.verticalHeader().setVisible(False)
        self.examples_table.verticalHeader().setDefaultSectionSize(26)
        self.examples_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.examples_table.setWordWrap(False)
        self.examples_table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.snippet_delegate = SnippetDelegate(self.examples_table)
        self.examples_table.setItemDelegateForColumn(2, self.snippet_delegate)
        self.examples_table.setItemDelegateForColumn(3, self.snippet_delegate)
        eh = self.examples_table.horizontalHeader()
        eh.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        eh.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        eh.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        eh.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        v.addWidget(self.examples_table, 2)
        self.invisible_note = QLabel()  # what the signs for spaces and the like in the changes stand for
        self.invisible_note.setObjectName("hint")
        self.invisible_note.setWordWrap(True)
        self.invisible_note.hide()
        v.addWidget(self.invisible_note)

    # ------------------------------------------------------------------ shown
    def show_recipe(self, recipe: Recipe, reports: list[StepReport], columns: list[str] | None = None,
                    labels: list[str] | None = None) -> None:
        """Show ``recipe`` with the reports of its last run; the selected step stays selected."""
        self.recipe, self.reports = recipe, reports
        if columns is not None:
            self.columns = list(columns)
            for op, action in self._add_actions.items():  # a label's own step needs a label
                action.setEnabled("label" in self.columns or STEPS[op].defaults().get("column") != "label")
        if labels is not None:
            self.labels = list(labels)
        row = self.steps_table.currentRow()
        self._refreshing, was = True, self._refreshing
        try:
            t = self.steps_table
            t.setRowCount(len(recipe.steps))
            for i, step in enumerate(recipe.steps):
                name = step_name(step.op, step.params)
                item = QTableWidgetItem(f"{i + 1}. {name}")
                item.setToolTip(name)  # the whole name where the column cuts it
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(Qt.CheckState.Checked if step.enabled else Qt.CheckState.Unchecked)
                t.setItem(i, 0, item)
                rep = self._report(i)
                dropped = "" if rep is None or rep.skipped else f"{rep.rows_in - rep.rows_out:,}"
                changed = "" if rep is None or rep.skipped else f"{rep.cells_changed:,}"
                for col, text in ((1, dropped), (2, changed)):
                    it = QTableWidgetItem(text)
                    it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                    it.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                    t.setItem(i, col, it)
            if 0 <= row < t.rowCount() and t.currentRow() != row:
                t.selectRow(row)
        finally:
            self._refreshing = was
        self._show_step_details(self.steps_table.currentRow())

    def on_language_changed(self) -> None:
        """The step names are the core's, in each language: drawn again, not translated word by word."""
        for op, action in self._add_actions.items():
            action.setText(step_title(op))
        self.show_recipe(self.recipe, self.reports)

    def _report(self, row: int) -> StepReport | None:
        """The last run's report of the step in ``row``, if that run had this step there."""
        if row < len(self.reports) and self.reports[row].op == self.recipe.steps[row].op:
            return self.reports[row]
        return None

    @Slot(int, int, int, int)
    def _on_steps_table_current_changed(self, row: int, _c: int, _pr: int, _pc: int) -> None:
        self._show_step_details(row)

    def _show_step_details(self, row: int) -> None:
        self.params_message.setText("")
        if not 0 <= row < len(self.recipe.steps):
            self.params_editor.clear()
            self.step_title_label.setText(self.tr("Select a step to see and change its settings."))
            self.examples_table.setRowCount(0)
            self.invisible_note.hide()
            return
        step = self.recipe.steps[row]
        self.step_title_label.setText(step_name(step.op, step.params))
        self._refreshing, was = True, self._refreshing
        try:
            self.params_editor.set_step(step.op, dict(step.params), self.columns,
                                        {c: role_name(c) for c in self.columns})
        finally:
            self._refreshing = was
        rep = self._report(row)
        examples = rep.examples if rep else []
        self.examples_table.setRowCount(len(examples))
        signs = False
        for i, ex in enumerate(examples):
            label = ex.row + 1 if isinstance(ex.row, int) else ex.row
            full_before = ex.before or ""
            b_parts, a_parts = change_window(full_before, ex.after)
            signs = signs or has_invisible(b_parts[1]) or (ex.after is not None and has_invisible(a_parts[1]))
            cells = [(str(label), None, None), (role_name(ex.column) if ex.column else "", None, None),
                     ("".join(b_parts), html_snippet(b_parts, "#ffd7d5"), full_before)]
            if ex.after is None:
                cells.append((self.tr("(row dropped)"), None, None))
            else:
                cells.append(("".join(a_parts), html_snippet(a_parts, "#c9f0d3"), ex.after))
            for col, (text, html_text, full) in enumerate(cells):
                item = QTableWidgetItem(text)
                if html_text:
                    item.setData(SnippetDelegate.HTML_ROLE, html_text)
                if full:
                    item.setToolTip("<p>" + html.escape(full[:4000]).replace("\n", "<br>") + "</p>")
                self.examples_table.setItem(i, col, item)
        self.invisible_note.setText(invisible_legend())
        self.invisible_note.setVisible(signs)
        self.examples_label.setText(
            self.tr("Affected rows (before → after): {0} of them shown").format(len(examples)) if examples
            else self.tr("Affected rows: none in this data"))

    # ------------------------------------------------------------------ edits
    def _steps(self) -> list[dict]:
        return [s.model_dump(mode="json") for s in self.recipe.steps]

    def add_step(self, op: str) -> None:
        info = STEPS[op]
        params: dict[str, Any] = {}
        roles = self.columns
        text_role = "text" if "text" in roles else ("output" if "output" in roles else (roles[0] if roles else None))
        for name, field in info.params.model_fields.items():
            if field.is_required():
                if name == "column":
                    params[name] = "label" if op == "normalize_labels" and "label" in roles else text_role
                elif name == "columns":
                    params[name] = [text_role]
                elif name == "labels":
                    params[name] = list(self.labels) or ["?"]
                elif name == "find":
                    params[name] = "?"
        steps = self._steps() + [{"op": op, "params": params, "enabled": True}]
        self.steps_edited.emit(steps, self.tr("add {0}").format(step_title(op)))
        self.steps_table.selectRow(len(steps) - 1)

    def remove_step(self) -> None:
        row = self.steps_table.currentRow()
        if row < 0:
            return
        steps = self._steps()
        gone = steps.pop(row)
        self.steps_edited.emit(steps, self.tr("remove {0}").format(step_name(gone["op"], gone["params"])))

    def move_step(self, delta: int) -> None:
        row = self.steps_table.currentRow()
        steps = self._steps()
        new = row + delta
        if row < 0 or not 0 <= new < len(steps):
            return
        steps[row], steps[new] = steps[new], steps[row]
        self.steps_edited.emit(steps, self.tr("move {0}").format(step_name(steps[new]["op"], steps[new]["params"])))
        self.steps_table.selectRow(new)

    def set_step_enabled(self, row: int, enabled: bool) -> None:
        steps = self._steps()
        if steps[row]["enabled"] == enabled:
            return
        steps[row]["enabled"] = enabled
        text = self.tr("switch on {0}") if enabled else self.tr("switch off {0}")
        self.steps_edited.emit(steps, text.format(step_name(steps[row]["op"], steps[row]["params"])))

    @Slot(QTableWidgetItem)
    def _on_steps_table_item_changed(self, item: QTableWidgetItem) -> None:
        if self._refreshing or item.column() != 0:
            return
        self.set_step_enabled(item.row(), item.checkState() == Qt.CheckState.Checked)

    @Slot(dict)
    def _on_params_editor_edited(self, params: dict) -> None:
        row = self.steps_table.currentRow()
        if row < 0 or self._refreshing:
            return
        steps = self._steps()
        step = Step(op=steps[row]["op"], params=params, enabled=steps[row]["enabled"])
        try:
            parse_params(step, row + 1)
        except WorkbenchError as exc:
            self.params_message.setText(exception_text(exc))
            return
        self.params_message.setText("")
        if params == steps[row]["params"]:
            return
        steps[row]["params"] = params
        self.steps_edited.emit(steps, self.tr("change {0}").format(step_name(step.op, params)))
