"""Watching training runs through their events files.

The worker process appends JSON lines to ``runs/<id>/events.jsonl``; a timer reads what was
appended since the last tick (:class:`~workbench.core.runs.EventTail`) and emits it. This
works the same for a run this window started, one started by an earlier session or the
command line, and one that ended long ago: attaching replays its history, then streams.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core import remote
from workbench.core.operations import runs as run_operations
from ..core.runs import (EventTail, RunSummary, event_tail, finish_summary, fold_events, list_runs, new_summary,
                         run_dirs, run_status)

FINISHED = ("completed", "stopped", "failed", "crashed")
MAX_EVENTS_PER_TICK = 2000


@dataclass
class RunState:
    run_id: str
    path: Path
    tail: EventTail
    status: str = "created"
    events: list[dict[str, Any]] = field(default_factory=list)
    last_alive_check: float = 0.0
    # the events folded as they arrive: summarising the whole history on every refresh took
    # 12 ms of the UI thread at 3,000 events, and grows with the run
    folded: RunSummary | None = None

    @property
    def ended(self) -> bool:
        return self.status in FINISHED


class RunMonitor(QObject):
    """Follows every run of one project; emits new events and status changes."""

    # run id, new events (in order); object, not list: a list is converted to a QVariantList, and an
    # int past 64 bits in an event (a damaged file) raised OverflowError inside the emit
    events_arrived = Signal(str, object)
    status_changed = Signal(str, str)  # run id, status
    runs_changed = Signal()  # a run appeared

    def __init__(self, project_root: str | Path | None = None, interval_ms: int = 200, parent=None):
        super().__init__(parent)
        self.runs: dict[str, RunState] = {}
        self.root: Path | None = None
        self.stops = run_operations.StopTracker()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._on_timer_timeout)
        if project_root is not None:
            self.set_project(project_root)

    def set_project(self, root: str | Path | None) -> None:
        self.runs.clear()
        self.root = Path(root) if root is not None else None
        if self.root is None:
            self._timer.stop()
            self.runs_changed.emit()
            return
        for s in list_runs(self.root):
            self._add(s.path, s.status)
        self.runs_changed.emit()
        self._timer.start()
        self.poll()

    def _add(self, path: Path, status: str = "created") -> RunState:
        st = RunState(path.name, path, event_tail(path), status=status, folded=new_summary(path))
        self.runs[st.run_id] = st
        if st.folded.server and status not in FINISHED:
            remote.ensure_mirror(path)  # its events come over SSH in a thread of their own
        return st

    def attach(self, run_dir: str | Path) -> RunState:
        """Follow a run (e.g. one just started); its events stream from the next tick."""
        path = Path(run_dir)
        st = self.runs.get(path.name)
        if st is None:
            st = self._add(path, "running")
        st.last_alive_check = time.monotonic()  # give the new worker a moment to write its pid
        # the folder may have been listed while a server start was still uploading, before it said
        # where the run trains: read that again
        st.folded.server = new_summary(path).server
        if st.folded.server:
            remote.ensure_mirror(path)
        self._set_status(st, "running")
        self.runs_changed.emit()
        if not self._timer.isActive():
            self._timer.start()
        return st

    def status(self, run_id: str) -> str:
        st = self.runs.get(run_id)
        return st.status if st else "created"

    def events(self, run_id: str) -> list[dict[str, Any]]:
        st = self.runs.get(run_id)
        return st.events if st else []

    def summary(self, run_id: str):
        st = self.runs.get(run_id)
        # the status read now, not the last poll's: a handler of events_arrived sees a run's end
        # before the poll that emitted it sets the status
        return finish_summary(st.folded, st.events) if st else None

    def stop(self, run_id: str) -> None:
        """Ask the run to stop; past the grace period the next polls terminate, then kill it."""
        st = self.runs.get(run_id)
        if st is not None:
            self.stops.request(st.path)

    def stopping(self, run_id: str) -> bool:
        st = self.runs.get(run_id)
        return st is not None and self.stops.stopping(st.path)

    def running_ids(self) -> list[str]:
        return [r for r, st in self.runs.items() if st.status == "running"]

    @Slot()
    def _on_timer_timeout(self) -> None:
        self.poll()

    def poll(self) -> None:
        now = time.monotonic()
        if self.root is not None and now - getattr(self, "_last_scan", 0) > 2.0:
            self._last_scan = now
            # names only: summarising every run here parsed each whole events file on the UI thread
            for path in run_dirs(self.root):
                if path.name not in self.runs:
                    self._add(path, "created")
                    self.runs_changed.emit()
        for st in list(self.runs.values()):
            # ended runs are read too: a resume from the command line appends to them
            new = st.tail.read_new()
            for i in range(0, len(new), MAX_EVENTS_PER_TICK):
                # a huge history is handed over in slices, so one tick never stalls painting
                chunk = new[i:i + MAX_EVENTS_PER_TICK]
                st.events.extend(chunk)
                fold_events(st.folded, chunk)
                self.events_arrived.emit(st.run_id, chunk)
            if new or (not st.ended and now - st.last_alive_check > 1.0):
                st.last_alive_check = now
                self._set_status(st, run_status(st.path, st.events))
        if self.stops.check():
            for st in self.runs.values():
                if not st.ended:
                    self._set_status(st, run_status(st.path, st.events))

    def _set_status(self, st: RunState, status: str) -> None:
        if st.status != status:
            st.status = status
            self.status_changed.emit(st.run_id, status)
