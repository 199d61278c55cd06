"""The Data page's Split tab: the training, validation and test shares, the seed, what the
shares come to in rows, and the same preparation as a command line."""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from ....core.project import SplitSettings
from .command_line import CommandLineBox

PARTS = ("train", "val", "test")


class SplitPanel(QWidget):
    """Emits ``changed`` when a share or the seed changes; the page says what to show."""

    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        v = QVBoxLayout(self)
        form = QFormLayout()
        self.spins: dict[str, QDoubleSpinBox] = {}
        for key, label in zip(PARTS, (self.tr("Training %"), self.tr("Validation %"), self.tr("Test %"))):
            s = QDoubleSpinBox()
            s.setRange(0, 100)
            s.setDecimals(1)
            s.setSingleStep(5)
            s.valueChanged.connect(self._on_value_changed)
            self.spins[key] = s
            form.addRow(label, s)
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setValue(42)
        self.seed_spin.setToolTip(self.tr("The same number gives the same split every time."))
        form.addRow(self.tr("Random seed"), self.seed_spin)
        v.addLayout(form)
        self.message = QLabel()
        self.message.setWordWrap(True)
        v.addWidget(self.message)
        hint = QLabel(self.tr("The model learns from the training rows, is checked on the validation rows while it trains, "
                              "and is measured on the test rows, which it never sees. For classification every label is "
                              "split in the same proportions."))
        hint.setWordWrap(True)
        hint.setObjectName("hint")
        v.addWidget(hint)
        v.addSpacing(12)
        self.command_box = CommandLineBox()
        v.addWidget(self.command_box)
        v.addStretch(1)

    @Slot()
    def _on_value_changed(self, *_) -> None:
        self.changed.emit()

    def settings(self) -> SplitSettings | None:
        """The shares as a split, or None while they do not add up to 100 % with some training."""
        vals = {k: s.value() / 100 for k, s in self.spins.items()}
        if abs(sum(vals.values()) - 1.0) > 1e-6 or vals["train"] <= 0:
            return None
        return SplitSettings(**vals, seed=self.seed_spin.value())

    def set_settings(self, split: SplitSettings) -> None:
        for key in PARTS:
            self.spins[key].blockSignals(True)
            self.spins[key].setValue(round(getattr(split, key) * 100, 1))
            self.spins[key].blockSignals(False)
        self.seed_spin.setValue(split.seed)

    def show_message(self, rows: int | None, group_column: str | None = None) -> None:
        """Whether the shares are valid and, for ``rows`` cleaned rows, what they come to;
        ``group_column``: the column whose documents stay together in one part."""
        total = sum(s.value() for s in self.spins.values())
        if abs(total - 100) > 1e-6:
            self.message.setObjectName("warning")
            self.message.setText(self.tr("The three parts add up to {0:g}%; they must add up to 100%.").format(total))
        elif self.spins["train"].value() <= 0:
            self.message.setObjectName("warning")
            self.message.setText(self.tr("The training part cannot be empty."))
        else:
            self.message.setObjectName("ok")
            if rows:
                parts = [round(rows * self.spins[k].value() / 100) for k in ("val", "test")]
                self.message.setText(self.tr("About {0} training, {1} validation and {2} test rows.").format(
                    f"{rows - sum(parts):,}", f"{parts[0]:,}", f"{parts[1]:,}"))
            else:
                self.message.setText(self.tr("The split is valid."))
            if group_column:
                self.message.setText(self.message.text() + " " + self.tr(
                    "The rows of one document (column {0}) stay together in one part, so the parts hold about "
                    "these shares of the documents.").format(group_column))
        self.message.style().unpolish(self.message)
        self.message.style().polish(self.message)
