"""Child processes (``workbench eval|export|playground ...``, the environment check) as
background operations of the :class:`~workbench.gui.background.BackgroundWork`.

The GUI never imports the engine: it starts ``python -m workbench <command> ... --json``
with QProcess, reads the progress lines as they come (core.progress) and parses the
result the command prints as its last line.
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QProcess, QProcessEnvironment, Signal, Slot

from ..core.progress import fraction, parse_error, parse_progress
from .error_texts import error_text


def parse_json_output(text: str) -> Any:
    """The JSON document a command printed: the whole output, or from the last line that opens one."""
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    lines = text.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith(("{", "[")):
            try:
                return json.loads("\n".join(lines[i:]))
            except ValueError:
                continue
    return None


class CommandOp(QObject):
    """A child process as a background operation, alongside :class:`~workbench.gui.background.BackgroundOp`.

    Made by :meth:`BackgroundWork.command` (a ``workbench`` command) or :meth:`BackgroundWork.process`
    (any command line). Its progress lines (``{"event": "progress", ...}``, see core.progress)
    become ``progressed``; other stdout lines come as ``line``, stderr lines as ``log_line``;
    ``cancel()`` ends the child (terminate, then kill); a failure is explained in the user's
    words and shown by the BackgroundWork unless :meth:`on_failure` takes it.
    """

    progressed = Signal(float, str)  # fraction (negative: unknown), stage
    stage_progress = Signal(str, float, float)  # stage, done, total
    line = Signal(str)  # complete stdout lines that are not progress
    output = Signal(str)  # stdout as it arrives (decoded chunk)
    log_line = Signal(str)  # complete stderr lines
    succeeded = Signal(object)  # the parsed result (the last JSON line), or None
    failed = Signal(str)  # the message for the user
    cancelled = Signal()
    finished = Signal()

    def __init__(self, manager, argv: list[str], title: str, name: str):
        super().__init__(manager)
        self.manager, self.argv, self.title, self.name = manager, list(argv), title, name
        self.running = False
        self.fraction, self.message = 0.0, ""
        self.exit_code: int | None = None
        self._show_progress = False
        self._failure = None
        self._cancelled = False
        self.proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONUNBUFFERED", "1")
        env.insert("PYTHONIOENCODING", "utf-8")
        env.insert("NO_COLOR", "1")  # colorlog (PaddleFormers' logger) and others then write plain text
        self.proc.setProcessEnvironment(env)
        self.proc.readyReadStandardOutput.connect(self._on_proc_stdout)
        self.proc.readyReadStandardError.connect(self._on_proc_stderr)
        self.proc.finished.connect(self._on_proc_finished)
        self.proc.errorOccurred.connect(self._on_proc_error)
        self._out = bytearray()
        self._err = bytearray()
        self._partial = {1: b"", 2: b""}
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    # -- building, as BackgroundOp --
    def with_progress(self) -> "CommandOp":
        self._show_progress = True
        return self

    @property
    def shows_progress(self) -> bool:
        return self._show_progress

    def on_success(self, cb) -> "CommandOp":
        self.succeeded.connect(cb)
        return self

    def on_failure(self, cb) -> "CommandOp":
        """Replace the default error dialog."""
        self._failure = cb
        return self

    def run(self) -> "CommandOp":
        self.running = True
        self.manager._started(self)
        self.proc.start(self.argv[0], self.argv[1:])
        return self

    def cancel(self) -> None:
        if self.running and self.proc.state() != QProcess.ProcessState.NotRunning:
            self._cancelled = True
            self.proc.terminate()
            if not self.proc.waitForFinished(3000):
                self.proc.kill()
                self.proc.waitForFinished(3000)

    @property
    def result(self):
        """The last JSON line the command printed, whatever its exit status (a check that found
        problems exits 1 after its report)."""
        return parse_json_output(self._out.decode("utf-8", "replace"))

    @property
    def stderr_text(self) -> str:
        return plain_text(self._err.decode("utf-8", "replace"))

    # -- UI thread --
    def _lines(self, channel: int, data: bytes) -> list[str]:
        self._partial[channel] += data
        *lines, self._partial[channel] = self._partial[channel].split(b"\n")
        return [ln.decode("utf-8", "replace").rstrip("\r") for ln in lines]

    @Slot()
    def _on_proc_stdout(self) -> None:
        data = bytes(self.proc.readAllStandardOutput())
        self._out += data
        self.output.emit(self._decoder.decode(data))
        for ln in self._lines(1, data):
            ev = parse_progress(ln)
            if ev is None:
                self.line.emit(ln)
                continue
            total = ev["total"]
            self.fraction = fraction(ev["done"], total) if total and total > 1 else -1.0
            self.message = stage_text(ev["stage"])
            self.stage_progress.emit(ev["stage"], float(ev["done"]), float(total))
            self.progressed.emit(self.fraction, self.message)

    @Slot()
    def _on_proc_stderr(self) -> None:
        data = bytes(self.proc.readAllStandardError())
        self._err += data
        for ln in self._lines(2, data):
            ln = plain_text(ln)
            if ln.strip():
                self.log_line.emit(ln)

    @Slot(int, QProcess.ExitStatus)
    def _on_proc_finished(self, code: int, _status) -> None:
        self._finish(code)

    @Slot(QProcess.ProcessError)
    def _on_proc_error(self, err) -> None:
        if err == QProcess.ProcessError.FailedToStart:
            self._finish(None, QCoreApplication.translate("CommandRunner", "The '{0}' step could not be started: {1}")
                         .format(self.name, self.proc.errorString()))

    def _finish(self, code: int | None, message: str | None = None) -> None:
        if not self.running:
            return
        self.running = False
        self.exit_code = code
        for channel, sig in ((2, self.log_line),):
            rest = plain_text(self._partial[channel].decode("utf-8", "replace")).strip()
            if rest:
                sig.emit(rest)
        self.manager._finished(self)
        try:
            if self._cancelled:
                self.cancelled.emit()
            elif code != 0 or message:
                msg = message or failure_text(self.name, code if code is not None else -1,
                                              self._out.decode("utf-8", "replace"), self.stderr_text)
                self.failed.emit(msg)
                if self._failure is not None:
                    self._failure(msg)
                else:
                    self.manager.show_error(self.title, msg)
            else:
                self.succeeded.emit(parse_json_output(self._out.decode("utf-8", "replace")))
        finally:
            self.finished.emit()
            self.deleteLater()


# a terminal's colour and cursor codes (ESC [ ... letter); a log view shows them as garbage.
# One pattern, not a library: the standard library has none and the codes are this one form
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def plain_text(line: str) -> str:
    """A child's output line without terminal escape codes."""
    return _ANSI.sub("", line)


def stage_text(stage: str) -> str:
    """A command's stage in the interface language (an unknown one as it came)."""
    return {
        "import": QCoreApplication.translate("CommandRunner", "importing"),
        "clean": QCoreApplication.translate("CommandRunner", "cleaning"),
        "fine-tuned": QCoreApplication.translate("CommandRunner", "the trained model answers"),
        "base": QCoreApplication.translate("CommandRunner", "the base model answers"),
        "evaluate": QCoreApplication.translate("CommandRunner", "evaluating"),
        "baseline": QCoreApplication.translate("CommandRunner", "the simple baseline answers"),
        "preference": QCoreApplication.translate("CommandRunner", "judging the held-out pairs of answers"),
        "report": QCoreApplication.translate("CommandRunner", "writing the report"),
        "load": QCoreApplication.translate("CommandRunner", "loading the model"),
        "tokenizer": QCoreApplication.translate("CommandRunner", "saving the tokenizer"),
        "merged": QCoreApplication.translate("CommandRunner", "merged weights"),
        "static": QCoreApplication.translate("CommandRunner", "static model and its check"),
        "latency": QCoreApplication.translate("CommandRunner", "measuring speed"),
        "onnx": QCoreApplication.translate("CommandRunner", "ONNX model and its check"),
        "predict.py": QCoreApplication.translate("CommandRunner", "prediction script"),
        "int8": QCoreApplication.translate("CommandRunner", "int8 model"),
        "generate": QCoreApplication.translate("CommandRunner", "generation model and its check"),
        "gguf": QCoreApplication.translate("CommandRunner", "GGUF file"),
        "requirements": QCoreApplication.translate("CommandRunner", "pinning the requirements"),
        "wheels": QCoreApplication.translate("CommandRunner", "pinning the requirements and fetching the wheels"),
        "predict": QCoreApplication.translate("CommandRunner", "predicting"),
        "read": QCoreApplication.translate("CommandRunner", "reading the file"),
        "tensors": QCoreApplication.translate("CommandRunner", "converting the weights"),
        "write": QCoreApplication.translate("CommandRunner", "writing the files"),
        "copy": QCoreApplication.translate("CommandRunner", "copying the files"),
        "install": QCoreApplication.translate("CommandRunner", "installing the package"),
        "assemble": QCoreApplication.translate("CommandRunner", "assembling the model file"),
        "features": QCoreApplication.translate("CommandRunner", "reading the texts"),
        "folds": QCoreApplication.translate("CommandRunner", "fitting models without each row"),
        "run": QCoreApplication.translate("CommandRunner", "the trained model answers"),
        "score": QCoreApplication.translate("CommandRunner", "scoring each label"),
        "near duplicates": QCoreApplication.translate("CommandRunner", "finding nearly identical texts"),
        "answers a": QCoreApplication.translate("CommandRunner", "the first answer to each question"),
        "answers b": QCoreApplication.translate("CommandRunner", "the second answer to each question"),
        "sampling again": QCoreApplication.translate("CommandRunner", "sampling again where both answers are the same"),
    }.get(stage, stage)


def failure_text(command: str, code: int, stdout: str, stderr: str) -> str:
    """A failed command's message for the user: its error line's code in the interface language
    (core.progress.error_record, under --json), else what its exit status and stderr say."""
    for line in reversed(stdout.splitlines()[-20:]):
        error = parse_error(line)
        if error is not None:
            return error_text(error["code"], error["fields"], error["message"])
    return explain_failure(command, code, stderr)


def explain_failure(command: str, code: int, stderr: str) -> str:
    """A message for the user from a failed command's exit status and error output."""
    if "invalid choice" in stderr and f"'{command}'" in stderr:
        return QCoreApplication.translate("CommandRunner", "This version of Workbench has no '{0}' command yet, so this step cannot run. "
                                  "Update Workbench.").format(command)
    msg = next((ln[len("error: "):] for ln in reversed(stderr.splitlines()) if ln.startswith("error: ")), None)
    if msg:
        return msg
    tail = "\n".join(stderr.strip().splitlines()[-6:])
    return QCoreApplication.translate("CommandRunner", "The '{0}' command ended with status {1}. Its last output was:\n{2}").format(command, code, tail)
