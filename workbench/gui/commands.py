"""Running a headless ``workbench`` command (eval, export, playground) as a child process.

The GUI never imports the engine: it starts ``python -m workbench <command> ... --json``
with QProcess, streams its output line by line and parses the JSON it prints at the end.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QProcess, QProcessEnvironment, Signal, Slot


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


class CommandRunner(QObject):
    """One child ``workbench`` process at a time; ``finished`` carries (exit code, parsed JSON, stderr)."""

    output = Signal(str)  # stdout as it arrives (decoded chunk)
    line = Signal(str)  # complete stdout lines
    finished = Signal(int, object, str)
    failed_to_start = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.proc = QProcess(self)
        env = QProcessEnvironment.systemEnvironment()
        env.insert("PYTHONUNBUFFERED", "1")
        env.insert("PYTHONIOENCODING", "utf-8")
        self.proc.setProcessEnvironment(env)
        self.proc.readyReadStandardOutput.connect(self._on_proc_stdout)
        self.proc.readyReadStandardError.connect(self._on_proc_stderr)
        self.proc.finished.connect(self._on_proc_finished)
        self.proc.errorOccurred.connect(self._on_proc_error)
        self._out = bytearray()
        self._err = bytearray()
        self._partial = b""
        self._decoder = None

    @property
    def running(self) -> bool:
        return self.proc.state() != QProcess.ProcessState.NotRunning

    def start(self, args: list[str]) -> None:
        import codecs

        self._out.clear()
        self._err.clear()
        self._partial = b""
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.proc.start(sys.executable, ["-m", "workbench", *args])

    def cancel(self) -> None:
        if self.running:
            self.proc.terminate()
            if not self.proc.waitForFinished(3000):
                self.proc.kill()

    @Slot()
    def _on_proc_stdout(self) -> None:
        data = bytes(self.proc.readAllStandardOutput())
        self._out += data
        self.output.emit(self._decoder.decode(data))
        self._partial += data
        *lines, self._partial = self._partial.split(b"\n")
        for ln in lines:
            self.line.emit(ln.decode("utf-8", "replace"))

    @Slot()
    def _on_proc_stderr(self) -> None:
        self._err += bytes(self.proc.readAllStandardError())

    @Slot(int, QProcess.ExitStatus)
    def _on_proc_finished(self, code: int, _status) -> None:
        out = self._out.decode("utf-8", "replace")
        err = self._err.decode("utf-8", "replace")
        self.finished.emit(code, parse_json_output(out), err)

    @Slot(QProcess.ProcessError)
    def _on_proc_error(self, err) -> None:
        if err == QProcess.ProcessError.FailedToStart:
            self.failed_to_start.emit(self.proc.errorString())


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
