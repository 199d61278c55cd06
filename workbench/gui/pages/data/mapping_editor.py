"""The Mapping tab: which column of the file plays which role, a second column read with the
first (title + question), the problems of the mapping, and the columns the cells suggest.

The page owns the mapping and its undo stack; this widget shows a mapping and hands each edit
back as a new mapping (``mapping_edited``) or as the wish to take the suggestion.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from ....core.mapping import NOT_JOINED, join_columns, joinable_columns, mapped_columns
from ..role_names import role_name
from .display import guess_text, problem_text


class MappingEditor(QWidget):
    mapping_edited = Signal(dict, str)  # the new mapping, the undo step's text
    suggestion_accepted = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.mapping: dict[str, str | None] = {}
        self.columns: list[str] = []
        self.combos: dict[str, QComboBox] = {}
        self.second: dict[str, QComboBox] = {}  # a second column read with the first (title + question)
        self.messages: dict[str, QLabel] = {}
        v = QVBoxLayout(self)
        intro = QLabel(self.tr("Tell Workbench which column of your file plays which part. Required parts are marked *."))
        intro.setWordWrap(True)
        intro.setObjectName("hint")
        v.addWidget(intro)
        self.grid = QGridLayout()
        v.addLayout(self.grid)
        self.guess_label = QLabel()
        self.guess_label.setWordWrap(True)
        self.guess_button = QPushButton(self.tr("Use the suggestion"))
        self.guess_button.setToolTip(self.tr("Maps the columns as suggested; Undo takes it back."))
        self.guess_button.clicked.connect(self._on_guess_button_clicked)
        row = QHBoxLayout()
        row.addWidget(self.guess_label, 1)
        row.addWidget(self.guess_button, 0, Qt.AlignmentFlag.AlignTop)
        self.guess_box = QWidget()
        self.guess_box.setLayout(row)
        self.guess_box.setVisible(False)
        v.addWidget(self.guess_box)
        self.general = QLabel()
        self.general.setWordWrap(True)
        v.addWidget(self.general)
        v.addStretch(1)

    def set_roles(self, roles: dict[str, bool] | None, columns: list[str], mapping: dict[str, str | None]) -> None:
        """One row per role (``role -> required``) with the file's ``columns`` to choose from."""
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        self.combos.clear()
        self.second.clear()
        self.messages.clear()
        self.columns, self.mapping = list(columns), dict(mapping)
        for i, (role, required) in enumerate((roles or {}).items()):
            combo = QComboBox()
            combo.addItem(self.tr("(none)"), None)
            for c in columns:
                combo.addItem(c, c)
            combo.currentIndexChanged.connect(lambda _i, r=role: self._on_combo_changed(r))
            msg = QLabel()
            msg.setObjectName("warning")
            msg.setWordWrap(True)
            self.grid.addWidget(QLabel(role_name(role) + (" *" if required else "")), 2 * i, 0)
            self.grid.addWidget(combo, 2 * i, 1)
            self.grid.addWidget(msg, 2 * i + 1, 1, 1, 2)
            self.combos[role], self.messages[role] = combo, msg
            if role not in NOT_JOINED:
                second = QComboBox()  # its columns: show_mapping, by the mapping
                second.setToolTip(self.tr("Read a second column with this one (a title and a question, say): "
                                          "its text follows on a new line."))
                second.currentIndexChanged.connect(lambda _i, r=role: self._on_combo_changed(r))
                self.grid.addWidget(second, 2 * i, 2)
                self.second[role] = second
        self.grid.setColumnStretch(1, 2)
        self.grid.setColumnStretch(2, 1)
        self.show_mapping(mapping)

    def show_mapping(self, mapping: dict[str, str | None]) -> None:
        """Each role's boxes set to its column, or to the first and second of a joined pair; a
        second box offers the columns the role may read after its first (core.mapping)."""
        self.mapping = dict(mapping)
        for role, combo in self.combos.items():
            value = self.mapping.get(role)
            parts = mapped_columns(value, self.columns) or ([value] if value else [])
            second = self.second.get(role)
            if second is not None:
                self._offer_second(second, role, parts[1] if len(parts) > 1 else None)
            for box, col in ((combo, parts[0] if parts else None), (second, parts[1] if len(parts) > 1 else None)):
                if box is None:
                    continue
                box.blockSignals(True)
                box.setCurrentIndex(max(0, box.findData(col)))
                box.blockSignals(False)
            if second is not None:
                second.setEnabled(bool(parts))

    def _offer_second(self, box: QComboBox, role: str, current: str | None) -> None:
        offered = joinable_columns(self.mapping, role, self.columns)
        if current is not None and current not in offered:  # what the mapping says, shown as it is
            offered.append(current)
        box.blockSignals(True)
        box.clear()
        box.addItem(self.tr("+ no second column"), None)
        for c in offered:
            box.addItem("+ " + c, c)
        box.blockSignals(False)

    def show_problems(self, problems: list | None) -> None:
        """The mapping's problems under their roles (None: no file yet)."""
        if problems is None:
            for msg in self.messages.values():
                msg.setVisible(False)
            self._say("hint", self.tr("Import a data file first; then choose which column holds what."))
            return
        for role, msg in self.messages.items():
            texts = [problem_text(p) for p in problems if p.role == role]
            msg.setText(" ".join(texts))
            msg.setVisible(bool(texts))
        if any(p.severity == "error" for p in problems):
            self._say("warning", self.tr("Fix the mapping above; cleaning and preparing wait for it."))
        else:
            self._say("ok", self.tr("The mapping is complete."))

    def show_guesses(self, guesses: list) -> None:
        """Columns suggested from their cells (core.column_guess) for the roles still empty."""
        open_ = [g for g in guesses if not self.mapping.get(g.role)]
        self.guess_box.setVisible(bool(open_))
        if open_:
            self.guess_label.setText(self.tr("No column's name says what it holds; from the contents, Workbench "
                                             "suggests: {0}. Check it and confirm.").format(
                "; ".join(guess_text(g) for g in open_)))

    def _say(self, kind: str, text: str) -> None:
        self.general.setObjectName(kind)
        self.general.setText(text)
        self.general.style().unpolish(self.general)
        self.general.style().polish(self.general)

    def _on_combo_changed(self, role: str) -> None:
        first = self.combos[role].currentData()
        second = self.second[role].currentData() if role in self.second else None
        mapping = dict(self.mapping)
        mapping[role] = join_columns([first, second]) if first and second and second != first else first
        self.mapping_edited.emit(mapping, self.tr("map {0}").format(role_name(role)))

    @Slot()
    def _on_guess_button_clicked(self) -> None:
        self.suggestion_accepted.emit()
