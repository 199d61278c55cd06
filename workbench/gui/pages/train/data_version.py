"""The data versions on the Train page: which version each run trained on, which one a new run
trains on, whether compared runs were scored on the same test labels, and the button that
trains again once a person corrected labels (core/versions.py, core/operations/corrections.py).
"""

from __future__ import annotations

import os
from itertools import combinations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from ....core.errors import WorkbenchError
from ....core.operations import corrections as correcting
from ....core.versions import DataVersion, label_differences, read_version
from ...i18n import join_list

SHORT = 7  # the characters of a version's id the list shows, as a commit's


def short_version(version: str | None) -> str:
    return version[:SHORT] if version else ""


def version_counts(meta: DataVersion | None) -> str:
    """What a version changed from the prepared data, in words ("" for none)."""
    if meta is None or not (meta.corrected or meta.excluded):
        return ""
    return QCoreApplication.translate("TrainPage", "corrected labels: {0}, excluded rows: {1}").format(
        meta.corrected, meta.excluded)


def version_tip(data_dir: str | os.PathLike | None, version: str | None, current: str | None) -> str:
    """A run's data version as its cell's tooltip: the whole id and what the corrections changed."""
    if not version:
        return QCoreApplication.translate("TrainPage", "This run was started before data versions: it trained on "
                                                       "the data as prepared then.")
    meta = read_version(data_dir, version) if data_dir is not None else None
    if meta is None:
        text = QCoreApplication.translate("TrainPage", "Data version {0}; its folder is missing.").format(version)
    elif meta.corrected or meta.excluded:
        text = QCoreApplication.translate("TrainPage", "Data version {0} ({1})").format(version, version_counts(meta))
    else:
        text = QCoreApplication.translate("TrainPage", "Data version {0}, as prepared").format(version)
    if version == current:
        text += "\n" + QCoreApplication.translate("TrainPage", "New runs train on this version.")
    return text


def differing_labels(data_dir: str | os.PathLike | None, versions: dict[str, str | None]) -> list[str]:
    """One sentence for each two groups of compared runs (run -> data version) scored on test
    labels that differ."""
    if data_dir is None:
        return []
    groups: dict[str, list[str]] = {}
    for run_id, version in versions.items():
        if version:
            groups.setdefault(version, []).append(run_id)
    out = []
    for (a, runs_a), (b, runs_b) in combinations(groups.items(), 2):
        n = label_differences(data_dir, a, b)
        if n == 1:
            out.append(QCoreApplication.translate(
                "TrainPage", "Runs {0} and {1} were scored on test labels that differ in one row; their test "
                             "figures are not like for like.").format(join_list(runs_a), join_list(runs_b)))
        elif n:
            out.append(QCoreApplication.translate(
                "TrainPage", "Runs {0} and {1} were scored on test labels that differ in {2} rows; their test "
                             "figures are not like for like.").format(join_list(runs_a), join_list(runs_b), n))
    return out


class DataVersionBox(QWidget):
    """What a new run trains on, and "Train again with the corrections" where the data a person
    corrected is not what the chosen run trained on."""

    train_again = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.note = QLabel()
        self.note.setObjectName("hint")
        self.note.setWordWrap(True)
        self.button = QPushButton(self.tr("Train again with the corrections"))
        self.button.clicked.connect(self.train_again)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.note)
        lay.addWidget(self.button)
        self.pending = 0
        self.button.hide()

    def show_state(self, project, run_id: str | None, run_version: str | None, busy: bool) -> None:
        """``project``'s current version and its corrections not in it yet; the button for run
        ``run_id`` (trained on ``run_version``), disabled while a run trains (``busy``)."""
        self.pending = 0
        if project is None or not project.is_prepared or not project.config.data_version:
            self.note.clear()
            self.note.hide()
            self.button.hide()
            return
        current = project.config.data_version
        try:
            self.pending = correcting.pending(project.root)
        except (WorkbenchError, OSError, ValueError):  # a damaged corrections file: the Evaluate page says so
            self.pending = 0
        counts = version_counts(read_version(project.data_dir, current))
        if counts:
            text = self.tr("New runs train on data version {0} ({1}).").format(short_version(current), counts)
        else:
            text = self.tr("New runs train on data version {0}, as prepared.").format(short_version(current))
        if self.pending:
            text += " " + self.tr("Corrections not in the data yet: {0}. Start trains without them; Train again with "
                                  "the corrections writes them first.").format(self.pending)
        self.note.setText(text)
        self.note.setToolTip(version_tip(project.data_dir, current, current))
        self.note.show()
        offered = run_id is not None and (self.pending > 0 or (run_version is not None and run_version != current))
        self.button.setVisible(offered)
        self.button.setEnabled(offered and not busy)
        if offered:
            self.button.setToolTip(self.tr("Writes the corrected data as a new data version, then starts a run with "
                                           "the settings of run {0} on it.").format(run_id))
