"""The Train page's list of the project's runs, and the comparison of the runs ticked in it:
their training loss on one plot and the settings in which they differ."""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QHeaderView, QLabel, QSplitter, QTableWidget, QTableWidgetItem, QVBoxLayout,
    QWidget,
)

from ....core.errors import WorkbenchError
from ....core.jobs import read_job
from ...widgets.curves import PALETTE, CurvePlot
from ..run_text import setting_text, status_text
from . import models_panel
from .data_version import differing_labels, short_version, version_tip

# settings that say where a run came from rather than how it trains: not compared
# (and the processor's load and the estimate made when it started: the machine's, not the run's)
NOT_COMPARED = ("version", "project", "template", "task", "resume_from", "parent_run", "base_model_name", "cpu_busy",
                "cpu_cores", "estimate_s")


def model_cell(base_model: str | None, entries: list) -> tuple[str, str]:
    """A run's base model as the runs list shows it, and its tooltip: a registered model by its
    id, however the run named it, with its folder in the tooltip; anything else as it is, whole
    in the tooltip (the list elides a cell at its start, so that a folder's name stays in view)."""
    if not base_model:
        return "", ""
    entry = models_panel.registered_for(base_model, entries)
    if entry is not None:
        return entry.id, str(entry.path)
    text = setting_text("base_model", base_model)
    return text, base_model if text == base_model else ""


def row_values(status: str, s, entries: list = ()) -> list[str]:
    """A run's cells in the runs list after its id: status (and the server it trains on), step,
    loss, best validation loss, data version, base model (``entries``: the registered models)."""
    where = f" · {s.server}" if s is not None and s.server else ""
    if s is None:
        return [status_text(status), "", "", "", "", ""]
    return [status_text(status) + where, f"{s.last_step}/{s.total_steps or '?'}",
            f"{s.last_loss:.4f}" if s.last_loss is not None else "",
            f"{s.best_eval_loss:.4f}" if s.best_eval_loss is not None else "",
            short_version(s.data_version), tuned_text(s, model_cell(s.base_model, list(entries))[0])]


def tuned_text(s, model: str) -> str:
    """The model cell of a preference run names the run it tuned first: a cell cut to the column's
    width still shows it (the base model is that run's, in its own row)."""
    if s.method != "dpo" or not s.from_run:
        return model
    return QCoreApplication.translate("TrainPage", "{0} + your judgements").format(s.from_run)


class RunsTable(QTableWidget):
    """One row a run: a tick to compare it, its id, status, step, losses, data version and base
    model. ``run_selected`` when the user selects a row, ``ticks_changed`` when a tick changes."""

    run_selected = Signal(str)
    ticks_changed = Signal()
    VERSION_COLUMN = 6

    def __init__(self, parent=None):
        super().__init__(0, 8, parent)
        self.setHorizontalHeaderLabels([self.tr("Compare"), self.tr("Run"), self.tr("Status"), self.tr("Step"),
                                        self.tr("Loss"), self.tr("Validation loss"), self.tr("Data"),
                                        self.tr("Model")])
        self.horizontalHeaderItem(self.VERSION_COLUMN).setToolTip(self.tr(
            "The data version each run trained on: the prepared rows with the corrections made until it started"))
        self.verticalHeader().setVisible(False)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.horizontalHeader().setStretchLastSection(True)
        self.setTextElideMode(Qt.TextElideMode.ElideLeft)  # a model's folder keeps its name, at its end, in view
        self._models: list = []  # the registered models, read when the list is shown again
        self._data_dir = None  # the project's data folder and its current version, for the versions' tooltips
        self._current_version: str | None = None
        self.itemSelectionChanged.connect(self._on_selection_changed)
        self.itemChanged.connect(self._on_item_changed)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)

    def show_runs(self, monitor, current: str | None, project=None) -> None:
        """Every run ``monitor`` knows, ticks kept; ``current`` selected; ``project``: whose data
        versions the tooltips describe."""
        runs = list(monitor.runs.values())
        self._data_dir = project.data_dir if project is not None else None
        self._current_version = project.config.data_version if project is not None else None
        self._models = models_panel.registered_models()
        self.blockSignals(True)
        checked = self.compared_runs()
        self.setRowCount(len(runs))
        for i, st in enumerate(runs):
            s = monitor.summary(st.run_id)
            check = QTableWidgetItem()
            check.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsSelectable)
            check.setCheckState(Qt.CheckState.Checked if st.run_id in checked else Qt.CheckState.Unchecked)
            check.setData(Qt.ItemDataRole.UserRole, st.run_id)
            self.setItem(i, 0, check)
            for c, v in enumerate([st.run_id, *row_values(st.status, s, self._models)], 1):
                self.setItem(i, c, QTableWidgetItem(v))
            self._set_tips(i, s)
        self.blockSignals(False)
        if current:
            self.select_run(current)

    def row_of(self, run_id: str) -> int:
        for i in range(self.rowCount()):
            if self.item(i, 0).data(Qt.ItemDataRole.UserRole) == run_id:
                return i
        return -1

    def select_run(self, run_id: str) -> None:
        """Select ``run_id``'s row without telling anyone (the page shows it already)."""
        row = self.row_of(run_id)
        if row >= 0 and self.currentRow() != row:
            self.blockSignals(True)
            self.selectRow(row)
            self.blockSignals(False)

    def update_run(self, monitor, run_id: str) -> bool:
        """``run_id``'s cells again; False where it has no row yet (the list is to be shown again)."""
        row = self.row_of(run_id)
        st = monitor.runs.get(run_id)
        if row < 0 or st is None:
            return False
        s = monitor.summary(st.run_id)
        self.blockSignals(True)
        for c, v in enumerate(row_values(st.status, s, self._models), 2):
            self.item(row, c).setText(v)
        self._set_tips(row, s)
        self.blockSignals(False)
        return True

    def _set_tips(self, row: int, s) -> None:
        tip = model_cell(s.base_model if s is not None else None, self._models)[1]
        if s is not None and s.method == "dpo" and s.from_run:
            tip = "\n".join(t for t in (self.tr("A preference run: the model of run {0}, tuned on your judgements of "
                                                 "its answers (DPO with LoRA).").format(s.from_run), tip) if t)
        self.item(row, self.columnCount() - 1).setToolTip(tip)
        self.item(row, self.VERSION_COLUMN).setToolTip(
            version_tip(self._data_dir, s.data_version, self._current_version) if s is not None else "")

    def compared_runs(self) -> list[str]:
        out = []
        for i in range(self.rowCount()):
            it = self.item(i, 0)
            if it is not None and it.checkState() == Qt.CheckState.Checked:
                out.append(it.data(Qt.ItemDataRole.UserRole))
        return out

    @Slot()
    def _on_selection_changed(self) -> None:
        row = self.currentRow()
        if row >= 0:
            self.run_selected.emit(self.item(row, 0).data(Qt.ItemDataRole.UserRole))

    @Slot(QTableWidgetItem)
    def _on_item_changed(self, item: QTableWidgetItem) -> None:
        if item.column() == 0:
            self.ticks_changed.emit()


class CompareView(QWidget):
    """The training loss of the runs ticked in the list, and the settings in which they differ
    (named by ``label``, as the page names its settings)."""

    def __init__(self, label: Callable[[str], str], parent=None):
        super().__init__(parent)
        self.label = label
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.plot = CurvePlot(self.tr("Training loss of the runs ticked in the list"), x_label=self.tr("step"))
        self.diff_table = QTableWidget(0, 0)
        self.diff_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # runs scored on test labels that differ (a person corrected some between them): above the
        # settings that differ, beside the plot, so that the page's curves above keep their height
        self.versions_note = QLabel()
        self.versions_note.setObjectName("warning")
        self.versions_note.setWordWrap(True)
        self.versions_note.hide()
        side = QWidget()
        sv = QVBoxLayout(side)
        sv.setContentsMargins(0, 0, 0, 0)
        sv.addWidget(self.versions_note)
        sv.addWidget(self.diff_table, 1)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plot)
        split.addWidget(side)
        split.setSizes([500, 400])
        lay.addWidget(split)

    def show_runs(self, monitor, runs: list[str], data_dir=None) -> None:
        """The runs ``runs`` of ``monitor``; ``data_dir``: the project's data folder, whose versions
        tell whether their test labels differ."""
        self.plot.clear_series()
        self.plot.reset_view()
        for i, run_id in enumerate(runs):
            self.plot.add_series(run_id, run_id, PALETTE[i % len(PALETTE)])
            for ev in monitor.events(run_id):
                if ev.get("event") == "step" and ev.get("loss") is not None:
                    self.plot.append(run_id, ev["step"], ev["loss"])
        self.plot.flush()
        jobs = {}
        for run_id in runs:
            try:
                jobs[run_id] = read_job(monitor.runs[run_id].path).model_dump()
            except (WorkbenchError, KeyError):
                continue
        notes = differing_labels(data_dir, {r: j.get("data_version") for r, j in jobs.items()}) if len(jobs) > 1 else []
        self.versions_note.setText("\n".join(notes))
        self.versions_note.setVisible(bool(notes))
        keys = sorted({k for j in jobs.values() for k in j if k not in NOT_COMPARED})
        diff = [k for k in keys if len({json.dumps(j.get(k), sort_keys=True) for j in jobs.values()}) > 1]
        if len(jobs) < 2:
            diff = []
        t = self.diff_table
        t.clear()
        t.setColumnCount(len(jobs))
        t.setHorizontalHeaderLabels(list(jobs))
        t.setRowCount(len(diff))
        t.setVerticalHeaderLabels([self.label(k) for k in diff])
        for r, k in enumerate(diff):
            for c, j in enumerate(jobs.values()):
                t.setItem(r, c, QTableWidgetItem(setting_text(k, j.get(k))))
        t.resizeColumnsToContents()
