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

from ..core.runs import EVENTS_FILE, EventTail, list_runs, request_stop, summarize, worker_alive

FINISHED = ("completed", "stopped", "failed", "crashed")
MAX_EVENTS_PER_TICK = 2000


@dataclass
class RunState:
    run_id: str
    path: Path
    tail: EventTail
    status: str = "created"
    events: list[dict[str, Any]] = field(default_factory=list)
    ended: bool = False
    last_alive_check: float = 0.0
    stop_requested_at: float | None = None


class RunMonitor(QObject):
    """Follows every run of one project; emits new events and status changes."""

    events_arrived = Signal(str, list)  # run id, new events (in order)
    status_changed = Signal(str, str)  # run id, status
    runs_changed = Signal()  # a run appeared

    def __init__(self, project_root: str | Path | None = None, interval_ms: int = 200, parent=None):
        super().__init__(parent)
        self.runs: dict[str, RunState] = {}
        self.root: Path | None = None
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
        st = RunState(path.name, path, EventTail(path / EVENTS_FILE), status=status)
        self.runs[st.run_id] = st
        return st

    def attach(self, run_dir: str | Path) -> RunState:
        """Follow a run (e.g. one just started); its events stream from the next tick."""
        path = Path(run_dir)
        st = self.runs.get(path.name)
        if st is None:
            st = self._add(path, "running")
        st.ended = False  # a resumed run appends to the same events file
        st.last_alive_check = time.monotonic()  # give the new worker a moment to write its pid
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
        return summarize(st.path, st.events) if st else None

    def stop(self, run_id: str) -> None:
        st = self.runs.get(run_id)
        if st is not None:
            request_stop(st.path)
            st.stop_requested_at = time.monotonic()

    def running_ids(self) -> list[str]:
        return [r for r, st in self.runs.items() if st.status == "running"]

    @Slot()
    def _on_timer_timeout(self) -> None:
        self.poll()

    def poll(self) -> None:
        now = time.monotonic()
        if self.root is not None and (self.root / "runs").is_dir() and now - getattr(self, "_last_scan", 0) > 2.0:
            self._last_scan = now
            for p in (self.root / "runs").iterdir():
                if p.name not in self.runs and (p / "job.json").is_file():
                    self._add(p, "created")
                    self.runs_changed.emit()
        for st in list(self.runs.values()):
            if st.ended:
                continue
            new = st.tail.read_new()
            if new:
                # a huge history is handed over in slices, so one tick never stalls painting
                for i in range(0, len(new), MAX_EVENTS_PER_TICK):
                    chunk = new[i:i + MAX_EVENTS_PER_TICK]
                    st.events.extend(chunk)
                    self.events_arrived.emit(st.run_id, chunk)
                end = _final_end(new)
                if end is not None:
                    self._set_status(st, str(end.get("status", "failed")))
                    st.ended = True
                    continue
                if st.status in ("created", "crashed") and any(e.get("event") in ("start", "step", "log") for e in new):
                    self._set_status(st, "running")
            if not st.ended and now - st.last_alive_check > 1.0:
                st.last_alive_check = now
                if worker_alive(st.path):
                    if st.status != "running":
                        self._set_status(st, "running")
                elif st.events or (st.path / "worker.pid").exists():
                    late = st.tail.read_new()  # the end line may have landed since
                    if late:
                        st.events.extend(late)
                        self.events_arrived.emit(st.run_id, late)
                        if _final_end(late) is not None:
                            self._set_status(st, str(_final_end(late).get("status", "failed")))
                            st.ended = True
                            continue
                    self._set_status(st, "crashed")
                    st.ended = True

    def _set_status(self, st: RunState, status: str) -> None:
        if st.status != status:
            st.status = status
            self.status_changed.emit(st.run_id, status)


def _final_end(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ``end`` event that closes the run, unless a later ``start`` (a resume) reopened it."""
    for e in reversed(events):
        kind = e.get("event")
        if kind == "end":
            return e
        if kind == "start":
            return None
    return None
