"""The Evaluate page's "Apply to a file" tab: run a trained model over a new file.

``workbench predict`` runs in a child process (the GUI never loads the model); its progress
lines move the bar, Cancel ends it (its output is written atomically, so a cancelled run
leaves no half file), and the result (the file's columns plus the prediction) is shown in
a table and can be saved as CSV or Excel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
from PySide6.QtCore import Signal, Slot
from PySide6.QtWidgets import (
    QCheckBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel, QProgressBar, QPushButton, QTableView, QVBoxLayout,
    QWidget,
)

from ...core.operations.predict import default_output, predict_args, read_result, save_result_as
from ..table_model import DataFrameTableModel
from ..session import ProjectSession
from ..background import BackgroundWork
from ..dialogs import data_file_filter


class ApplyFileWidget(QWidget):
    prediction_finished = Signal(str)  # the output file
    prediction_failed = Signal(str)  # the message shown
    result_saved = Signal(str)

    def __init__(self, session: ProjectSession, background: BackgroundWork, run_id: Callable[[], str | None], parent=None):
        super().__init__(parent)
        self.session, self.background, self.run_id = session, background, run_id
        self.input_path: Path | None = None
        self.output_path: Path | None = None
        self.result = pd.DataFrame()
        self.op = None  # the running 'workbench predict' child, if any
        self._build()

    def _build(self) -> None:
        self.choose_button = QPushButton(self.tr("Choose a file…"))
        self.choose_button.clicked.connect(self._on_choose_button_clicked)
        self.file_label = QLabel()
        self.file_label.setObjectName("hint")
        self.file_label.setWordWrap(True)
        self.all_probs = QCheckBox(self.tr("One probability column per label"))
        self.run_button = QPushButton(self.tr("Predict"))
        self.run_button.setObjectName("primary")
        self.run_button.setEnabled(False)
        self.run_button.clicked.connect(self._on_run_button_clicked)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self._on_cancel_button_clicked)
        self.save_button = QPushButton(self.tr("Save as…"))
        self.save_button.setEnabled(False)
        self.save_button.clicked.connect(self._on_save_button_clicked)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.status_label = QLabel()
        self.status_label.setObjectName("hint")
        self.status_label.setWordWrap(True)
        self.model = DataFrameTableModel()
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setAlternatingRowColors(True)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.horizontalHeader().setDefaultSectionSize(150)

        row = QHBoxLayout()
        row.addWidget(self.choose_button)
        row.addWidget(self.file_label, 1)
        row.addWidget(self.all_probs)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.save_button)
        lay = QVBoxLayout(self)
        lay.addLayout(row)
        lay.addWidget(self.progress)
        lay.addWidget(self.status_label)
        lay.addWidget(self.view, 1)
        self.reset()

    def reset(self) -> None:
        """Back to no file and no result (another project was opened)."""
        self.cancel()
        self.input_path = self.output_path = None
        self.result = pd.DataFrame()
        self.model.set_frame(self.result)
        self.file_label.setText(self.tr("Pick a file with new rows (the same columns as your data); the model "
                                        "adds its prediction to every row."))
        self.file_label.setToolTip("")
        self.progress.setValue(0)
        self.status_label.clear()
        self.save_button.setEnabled(False)
        self.refresh()

    # ------------------------------------------------------------------ choosing and running
    @Slot()
    def _on_choose_button_clicked(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("File to predict"), "", data_file_filter())
        if path:
            self.set_input(path)

    def set_input(self, path) -> None:
        self.input_path = Path(path)
        self.file_label.setText(self.input_path.name)
        self.file_label.setToolTip(str(self.input_path))
        self.refresh()

    def refresh(self) -> None:
        ready = self.input_path is not None and self.run_id() is not None and self.session.project is not None
        self.run_button.setEnabled(ready and self.op is None)

    def command_args(self) -> list[str] | None:
        run_id, project = self.run_id(), self.session.project
        if self.input_path is None or run_id is None or project is None:
            return None
        self.output_path = default_output(project, run_id, self.input_path)
        return predict_args(project.root, run_id, self.input_path, self.output_path,
                            all_probabilities=self.all_probs.isChecked())

    @Slot()
    def _on_run_button_clicked(self) -> None:
        self.start()

    def start(self) -> bool:
        args = self.command_args()
        if args is None or self.op is not None:
            return False
        self.progress.setValue(0)
        self.status_label.setText(self.tr("Predicting {0} in a separate process…").format(self.input_path.name))
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.save_button.setEnabled(False)
        op = self.background.command(args, self.tr("Predicting {0}").format(self.input_path.name))
        op.stage_progress.connect(self._on_op_stage)
        op.succeeded.connect(self._on_op_succeeded)
        op.failed.connect(self._on_op_failed)
        op.cancelled.connect(self._on_op_cancelled)
        op.finished.connect(self._end)
        op.on_failure(lambda msg: None)  # shown below, and by prediction_failed
        self.op = op
        op.run()
        return True

    @Slot()
    def _on_cancel_button_clicked(self) -> None:
        self.cancel()

    def cancel(self) -> None:
        if self.op is not None:
            self.op.cancel()

    @Slot(str, float, float)
    def _on_op_stage(self, stage: str, done: float, total: float) -> None:
        weights = {"read": (0, 5), "load": (5, 15), "predict": (15, 95), "write": (95, 100)}
        lo, hi = weights.get(stage, (0, 100))
        self.progress.setValue(int(lo + (hi - lo) * (done / total if total else 0)))
        if stage == "predict":
            self.status_label.setText(self.tr("Predicting: {0} of {1} rows").format(int(done), int(total)))

    @Slot()
    def _on_op_cancelled(self) -> None:
        self.progress.setValue(0)
        self.status_label.setText(self.tr("Cancelled; nothing was written."))
        self.prediction_failed.emit(self.status_label.text())

    @Slot(str)
    def _on_op_failed(self, msg: str) -> None:
        self.status_label.setText(msg)
        self.prediction_failed.emit(msg)
        self.background.show_error(self.tr("Prediction failed"), msg)

    @Slot(object)
    def _on_op_succeeded(self, result) -> None:
        if not isinstance(result, dict) or "output" not in result:
            self._on_op_failed(self.tr("The prediction ended without a result."))
            return
        self.progress.setValue(100)
        out = Path(result["output"])
        self.status_label.setText(self.tr("{0} rows predicted; the result is in {1}.").format(result["rows"], out))
        op = self.background.op(lambda ctx: read_result(out), title=self.tr("Reading the result"))
        op.on_success(lambda df: self._show(df, out)).run()

    def _show(self, df: pd.DataFrame, out: Path) -> None:
        self.result = df
        self.output_path = out
        self.model.set_frame(df)
        self.save_button.setEnabled(True)
        self.prediction_finished.emit(str(out))

    @Slot()
    def _end(self) -> None:
        self.op = None
        self.cancel_button.setEnabled(False)
        self.refresh()

    # ------------------------------------------------------------------ saving
    @Slot()
    def _on_save_button_clicked(self) -> None:
        if self.output_path is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save the predictions"), self.output_path.name,
                                              self.tr("CSV (*.csv);;Excel (*.xlsx)"))
        if path:
            self.save_as(path)

    def save_as(self, path) -> None:
        src, dst = self.output_path, Path(path)
        op = self.background.op(lambda ctx: save_result_as(src, dst), title=self.tr("Saving the predictions"))
        op.on_success(lambda p: (self.status_label.setText(self.tr("Saved to {0}.").format(p)),
                                 self.result_saved.emit(str(p)))).run()

    def shutdown(self) -> None:
        self.cancel()
