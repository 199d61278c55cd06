"""Background operations: the one place where long work leaves the UI thread.

    op = background.op(lambda ctx: read_table(path, progress=ctx.progress), title=tr("Importing"))
    op.with_progress().on_success(self._on_import_done).run()

The function runs on a QThreadPool thread and gets an :class:`OpContext` for progress and
cancellation; results, errors and progress come back as queued signals, so every slot
runs on the UI thread, and what the work captured and returned is released there too
(see ``BackgroundOp._on_done``).

An error becomes a dialog that says what happened and what to do, in the interface language
(a :class:`~workbench.core.errors.WorkbenchError`'s code, worded by gui.error_texts);
a cancelled operation ends quietly.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, Qt, QThreadPool, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QProgressBar, QPushButton, QWidget

from ..core.errors import WorkbenchError
from .error_texts import exception_text


class OpCancelled(BaseException):
    """Raised inside an operation (by ``ctx.check()`` or a progress callback) when it was cancelled.

    A BaseException, so that library code catching Exception does not turn it into an error.
    """


class OpContext:
    """Handed to the operation's function on the worker thread."""

    def __init__(self, op: "BackgroundOp"):
        self._op = op
        self._event = threading.Event()

    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise OpCancelled()

    def progress(self, fraction: float, message: str | None = None) -> None:
        """Report progress (0..1); raises OpCancelled once the user cancelled."""
        self.check()
        self._op._signals.progressed.emit(float(fraction), message or "")


class _Signals(QObject):
    # made and connected on the UI thread; the worker only emits (the result waits on the op)
    progressed = Signal(float, str)
    done = Signal()


class _Runnable(QRunnable):
    def __init__(self, op: "BackgroundOp"):
        super().__init__()
        self.setAutoDelete(True)
        self._op = op

    def run(self) -> None:  # worker thread
        op, self._op = self._op, None
        try:
            payload = (op._fn(op.ctx), None, op.ctx.cancelled())
        except OpCancelled:
            payload = (None, None, True)
        except BaseException as exc:  # reported on the UI thread
            exc.__wb_traceback__ = traceback.format_exc()  # type: ignore[attr-defined]
            # the traceback's frames hold what the work held: kept, they would be freed by
            # whichever thread the garbage collector next runs on
            payload = (None, exc.with_traceback(None), op.ctx.cancelled())
        # handed over before the UI thread hears of it, so this thread holds no last reference
        op._payload, signals = payload, op._signals
        del payload, op
        signals.done.emit()


class BackgroundOp(QObject):
    """One background operation; build it with :meth:`BackgroundWork.op`."""

    progressed = Signal(float, str)
    succeeded = Signal(object)
    failed = Signal(object)
    cancelled = Signal()
    finished = Signal()

    def __init__(self, manager: "BackgroundWork", fn: Callable[[OpContext], Any], title: str):
        super().__init__(manager)
        self.manager = manager
        self.title = title
        self._fn = fn
        self.ctx = OpContext(self)
        self._payload: tuple = (None, None, True)  # (result, exception, cancelled), set by the worker
        self._signals = _Signals(self)  # a child: Qt deletes it with the op, on the UI thread
        self._signals.progressed.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._signals.done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)
        self._show_progress = False
        self._success: list[Callable[[Any], None]] = []
        self._failure: Callable[[BaseException], None] | None = None
        self.running = False
        self.fraction = 0.0
        self.message = ""

    # -- building --
    def with_progress(self) -> "BackgroundOp":
        self._show_progress = True
        return self

    def on_success(self, cb: Callable[[Any], None]) -> "BackgroundOp":
        self._success.append(cb)
        return self

    def on_failure(self, cb: Callable[[BaseException], None]) -> "BackgroundOp":
        """Replace the default error dialog."""
        self._failure = cb
        return self

    def run(self) -> "BackgroundOp":
        self.running = True
        self.manager._started(self)
        self.manager.pool.start(_Runnable(self))
        return self

    def cancel(self) -> None:
        self.ctx._event.set()

    @property
    def shows_progress(self) -> bool:
        return self._show_progress

    # -- UI thread --
    @Slot(float, str)
    def _on_progress(self, fraction: float, message: str) -> None:
        self.fraction, self.message = fraction, message
        self.progressed.emit(fraction, message)
        self.manager._progress(self)

    @Slot()
    def _on_done(self) -> None:
        result, exc, was_cancelled = self._payload
        # the work, its callbacks and its result are freed here, on the UI thread: the op <->
        # context cycle is collected by whichever thread the garbage collector runs on. That
        # cycle stays, holding nothing but this wrapper until Qt has deleted the op: a
        # wrapper freed from inside its own deleteLater crashes PySide.
        success, failure = self._success, self._failure
        self._fn, self._payload, self._success, self._failure = None, (None, None, True), [], None
        # cancelled after the work ended but before its result got here: the result is stale
        # (a newer operation replaced it), so it is dropped like any cancelled one
        was_cancelled = was_cancelled or self.ctx.cancelled()
        self.running = False
        self.manager._finished(self)
        try:
            if was_cancelled:
                self.cancelled.emit()
            elif exc is not None:
                self.failed.emit(exc)
                if failure is not None:
                    failure(exc)
                else:
                    self.manager.show_error(self.title, exc)
            else:
                for cb in success:
                    cb(result)
                self.succeeded.emit(result)
        finally:
            self.finished.emit()
            self.deleteLater()


def describe_error(exc: BaseException) -> tuple[str, str | None]:
    """(message for the user, technical details or None)."""
    if isinstance(exc, WorkbenchError):
        return exception_text(exc), None
    if isinstance(exc, MemoryError):
        return (QCoreApplication.translate("BackgroundWork", "The computer ran out of memory. Close other programs or use a smaller file, "
                           "then try again."), getattr(exc, "__wb_traceback__", None))
    if isinstance(exc, OSError):
        return exception_text(exc), getattr(exc, "__wb_traceback__", None)
    msg = QCoreApplication.translate("BackgroundWork", "Something unexpected went wrong: {0}: {1}. Try again; if it happens again, "
                     "send the details below to your support contact.").format(type(exc).__name__, exc)
    return msg, getattr(exc, "__wb_traceback__", None)


class BackgroundWork(QObject):
    """Runs background operations, shows their progress and reports their errors in one place."""

    op_started = Signal(object)
    op_finished = Signal(object)
    error_shown = Signal(str, str)  # title, message (tests and the status bar listen)

    def __init__(self, parent: QWidget | None = None, pool: QThreadPool | None = None):
        super().__init__(parent)
        self.pool = pool or QThreadPool.globalInstance()
        self.active: list[BackgroundOp] = []
        self.dialog_parent = parent
        self.show_dialogs = True

    def op(self, fn: Callable[[OpContext], Any], title: str) -> BackgroundOp:
        return BackgroundOp(self, fn, title)

    def command(self, args: list[str], title: str):
        """A ``workbench`` command in a child process (see :class:`~workbench.gui.commands.CommandOp`)."""
        from ..core.runs import cli_command
        from .commands import CommandOp

        return CommandOp(self, cli_command(*args), title, name=args[0] if args else "workbench")

    def process(self, argv: list[str], title: str, name: str):
        """Any command line in a child process, as an operation like the others."""
        from .commands import CommandOp

        return CommandOp(self, argv, title, name=name)

    def cancel_all(self) -> None:
        for op in list(self.active):
            op.cancel()  # a child process is ended

    def wait(self, msecs: int = 30000) -> bool:
        return self.pool.waitForDone(msecs)

    def show_error(self, title: str, exc: BaseException | str) -> None:
        if isinstance(exc, BaseException):
            message, details = describe_error(exc)
        else:
            message, details = str(exc), None
        self.error_shown.emit(title, message)
        if not self.show_dialogs:
            return
        box = QMessageBox(self.dialog_parent if isinstance(self.dialog_parent, QWidget) else None)
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(title)
        box.setText(message)
        if details:
            box.setDetailedText(details)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # window-modal, does not block the event loop

    # -- bookkeeping from BackgroundOp --
    def _started(self, op: BackgroundOp) -> None:
        self.active.append(op)
        self.op_started.emit(op)

    def _progress(self, op: BackgroundOp) -> None:
        pass

    def _finished(self, op: BackgroundOp) -> None:
        if op in self.active:
            self.active.remove(op)
        self.op_finished.emit(op)


class BackgroundProgressWidget(QWidget):
    """A label, a progress bar and a Cancel button for the newest operation that shows progress."""

    def __init__(self, manager: BackgroundWork, parent: QWidget | None = None):
        super().__init__(parent)
        self.manager = manager
        self._op: BackgroundOp | None = None
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setMaximumWidth(220)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        lay.addWidget(self.label)
        lay.addWidget(self.bar)
        lay.addWidget(self.cancel_button)
        manager.op_started.connect(self._on_op_started)
        manager.op_finished.connect(self._on_op_finished)
        self.hide()

    @Slot(object)
    def _on_op_started(self, op: BackgroundOp) -> None:
        if not op.shows_progress:
            return
        self._op = op
        op.progressed.connect(self._on_op_progressed)
        self.label.setText(op.title)
        self.bar.setRange(0, 1000)
        self.bar.setValue(0)
        self.show()

    @Slot(float, str)
    def _on_op_progressed(self, fraction: float, message: str) -> None:
        if fraction < 0:  # a stage of unknown length
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(fraction * 1000))
        if self._op is not None:
            self.label.setText(f"{self._op.title} {message}".strip())

    @Slot(object)
    def _on_op_finished(self, op: BackgroundOp) -> None:
        if op is self._op:
            self._op = None
            others = [o for o in self.manager.active if o.shows_progress]
            if others:
                self._on_op_started(others[-1])
            else:
                self.hide()

    @Slot()
    def _on_cancel_clicked(self) -> None:
        if self._op is not None:
            self._op.cancel()
            self.label.setText(self.tr("Cancelling…"))


class OpProgress(QWidget):
    """A page's own stage, progress bar and Cancel button for one operation it started
    (a BackgroundOp or a child command: Cancel ends the child process). ``label=False``: the bar
    and Cancel only, for a page whose status line says the stage (said twice otherwise)."""

    def __init__(self, parent: QWidget | None = None, label: bool = True):
        super().__init__(parent)
        self.op = None
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel()
        self.label.setObjectName("hint")
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setFormat("%p%")
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self._on_cancel_clicked)
        lay.addWidget(self.label, 2)
        lay.addWidget(self.bar, 3)
        lay.addWidget(self.cancel_button)
        self.label.setVisible(label)
        self.hide()

    def follow(self, op) -> None:
        self.op = op
        self.label.setText(op.title)
        self.bar.setRange(0, 0)  # busy until the first report
        self.cancel_button.setEnabled(True)
        op.progressed.connect(self._on_op_progressed)
        op.finished.connect(self._on_op_finished)
        self.show()

    @Slot(float, str)
    def _on_op_progressed(self, fraction: float, message: str) -> None:
        if self.sender() is not None and self.sender() is not self.op:
            return
        if fraction < 0:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(fraction * 1000))
        if self.op is not None:
            self.label.setText(f"{self.op.title}: {message}" if message else self.op.title)

    @Slot()
    def _on_op_finished(self) -> None:
        if self.sender() is not None and self.sender() is not self.op:
            return  # an operation this one replaced (a question asked again) ended
        self.op = None
        self.hide()

    @Slot()
    def _on_cancel_clicked(self) -> None:
        if self.op is not None:
            self.label.setText(self.tr("Cancelling…"))
            self.cancel_button.setEnabled(False)
            self.op.cancel()
