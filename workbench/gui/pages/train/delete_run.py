"""Deleting a run from the Train page's list: its checkpoints and weights take most of a
project's disk (about 0.8-1.1 GB for a built-in classifier on a legal set). The decision and
the deletion are core's (``operations.runs.delete_run``); this asks first and runs it in the
background. Its strings belong to the Train page's translation context."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QPoint, Qt
from PySide6.QtWidgets import QMenu, QMessageBox, QTableWidget

from workbench.core.operations import runs as run_operations
from ...resources import icon
from ...background import BackgroundOp


def show_menu(page, table: QTableWidget, pos: QPoint) -> QMenu | None:
    """The runs list's context menu at ``pos``: delete the run under the pointer."""
    row = table.rowAt(pos.y())
    item = table.item(row, 0) if row >= 0 else None
    if item is None:
        return None
    run_id = item.data(Qt.ItemDataRole.UserRole)
    menu = QMenu(table)
    action = menu.addAction(icon("remove"), QCoreApplication.translate("TrainPage", "Delete this run…"))
    running = run_id in page.session.monitor.running_ids()
    action.setEnabled(not running)
    if running:
        action.setToolTip(QCoreApplication.translate("TrainPage", "Stop the run first."))
    action.triggered.connect(lambda: delete_run(page, run_id))
    menu.popup(table.viewport().mapToGlobal(pos))
    return menu


def delete_run(page, run_id: str, confirm: bool = True) -> BackgroundOp | None:
    """Ask, then delete ``run_id`` in the background and list the project's runs again."""
    project = page.session.project
    if project is None:
        return None
    if confirm:
        question = QCoreApplication.translate(
            "TrainPage", "Delete run {0}? Its checkpoints and trained weights are removed from the disk; bundles "
            "exported from it stay. This cannot be undone.").format(run_id)
        title = QCoreApplication.translate("TrainPage", "Delete the run")
        if QMessageBox.question(page, title, question) != QMessageBox.StandardButton.Yes:
            return None

    def done(freed: int) -> None:
        if page.current_run == run_id:
            page.select_run(None)
        page.session.monitor.set_project(project.root)
        page.progress_label.setText(QCoreApplication.translate("TrainPage", "Run {0} deleted: {1} MB freed.").format(
            run_id, f"{freed / 2**20:,.0f}"))

    title = QCoreApplication.translate("TrainPage", "Deleting {0}").format(run_id)
    return page.background.op(lambda ctx: run_operations.delete_run(project, run_id), title).on_success(done).run()
