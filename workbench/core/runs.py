"""Reading runs from their folders: the events file is the source of truth.

A run's status is read, not remembered: an ``end`` event gives it; without one the run
is ``running`` while its worker process lives and ``crashed`` once it is gone.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EVENTS_FILE = "events.jsonl"
PID_FILE = "worker.pid"
STOP_FILE = "STOP"
SCHEMA_VERSION = 1
STATUSES = ("created", "running", "completed", "stopped", "failed", "crashed")


def format_duration(seconds: float | None) -> str:
    """mm:ss, or h:mm:ss from an hour on; "--:--" when unknown (ETA before the first steps)."""
    if seconds is None:
        return "--:--"
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


class EventTail:
    """Reads the complete lines appended to an events file since the last call.

    A partial last line (the worker is mid-write, or died mid-write) is left for later.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.offset = 0
        self._buf = b""

    def read_new(self) -> list[dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except FileNotFoundError:
            return []
        self.offset += len(chunk)
        data = self._buf + chunk
        lines = data.split(b"\n")
        self._buf = lines.pop()
        events = []
        for line in lines:
            if not line.strip():
                continue
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a torn line from a killed writer; the file stays readable
        return events


def read_events(run_dir: str | os.PathLike) -> list[dict[str, Any]]:
    return EventTail(Path(run_dir) / EVENTS_FILE).read_new()


def _pid_alive(pid: int, started: float | None) -> bool:
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil ships with the dependencies
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        # a recycled pid belongs to a process started after our worker
        return started is None or proc.create_time() <= started + 5
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False


def worker_alive(run_dir: str | os.PathLike) -> bool:
    path = Path(run_dir) / PID_FILE
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):
        return False
    return _pid_alive(int(info["pid"]), info.get("started"))


def write_pid(run_dir: str | os.PathLike, pid: int) -> None:
    from .fsutil import atomic_write_text

    atomic_write_text(Path(run_dir) / PID_FILE, json.dumps({"pid": pid, "started": time.time()}))


@dataclass
class RunSummary:
    id: str
    path: Path
    status: str
    last_step: int = 0
    total_steps: int | None = None
    last_checkpoint: str | None = None
    last_loss: float | None = None
    best_eval_loss: float | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    error: str | None = None
    started: float | None = None
    ended: float | None = None
    device: str | None = None
    base_model: str | None = None
    method: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["path"] = str(self.path)
        return d


def summarize(run_dir: str | os.PathLike, events: list[dict[str, Any]] | None = None) -> RunSummary:
    run_dir = Path(run_dir)
    events = read_events(run_dir) if events is None else events
    s = RunSummary(id=run_dir.name, path=run_dir, status="created")
    try:
        job = json.loads((run_dir / "job.json").read_text(encoding="utf-8"))
        s.base_model, s.method = job.get("base_model"), job.get("method")
    except (OSError, ValueError):
        pass
    ended = False
    for ev in events:
        kind = ev.get("event")
        if kind == "start":
            s.started = ev.get("t")
            s.total_steps = ev.get("total_steps")
            s.device = ev.get("device")
            s.last_step = max(s.last_step, int(ev.get("initial_step", 0) or 0))
        elif kind == "step":
            s.last_step = max(s.last_step, int(ev.get("step", 0)))
            s.last_loss = ev.get("loss")
        elif kind == "eval":
            el = ev.get("eval_loss")
            if el is not None and (s.best_eval_loss is None or el < s.best_eval_loss):
                s.best_eval_loss = el
            s.metrics = dict(ev.get("metrics") or {})
        elif kind == "checkpoint":
            s.last_checkpoint = ev.get("path")
        elif kind == "end":
            ended = True
            s.status = ev.get("status", "failed")
            s.error = ev.get("error")
            s.ended = ev.get("t")
    if not ended:
        if worker_alive(run_dir):
            s.status = "running"
        elif events or (run_dir / PID_FILE).exists():
            s.status = "crashed"
    # a checkpoint event may point at a folder pruned later (keep-last-K); trust the disk
    ckpts = list_checkpoints(run_dir)
    if ckpts:
        s.last_checkpoint = str(ckpts[-1].relative_to(run_dir))
    elif s.last_checkpoint and not (run_dir / s.last_checkpoint).exists():
        s.last_checkpoint = None
    return s


def list_checkpoints(run_dir: str | os.PathLike) -> list[Path]:
    """Complete checkpoints, oldest first. A checkpoint is complete once its marker exists."""
    root = Path(run_dir) / "checkpoints"
    if not root.is_dir():
        return []
    found = []
    for p in root.iterdir():
        if p.is_dir() and p.name.startswith("checkpoint-") and (p / "trainer_state.json").is_file():
            try:
                found.append((int(p.name.split("-")[-1]), p))
            except ValueError:
                continue
    return [p for _, p in sorted(found)]


def list_runs(project_dir: str | os.PathLike) -> list[RunSummary]:
    runs = Path(project_dir) / "runs"
    if not runs.is_dir():
        return []
    return [summarize(p) for p in sorted(runs.iterdir()) if (p / "job.json").is_file()]


def request_stop(run_dir: str | os.PathLike) -> None:
    """Ask the worker to checkpoint and stop; works on every OS (the worker polls the file)."""
    (Path(run_dir) / STOP_FILE).write_text(str(time.time()))


class EventWriter:
    """Appends one JSON object per line to events.jsonl, flushed line by line.

    Every line carries the schema version, so readers can refuse a future format.
    """

    def __init__(self, run_dir: str | os.PathLike):
        self.path = Path(run_dir) / EVENTS_FILE
        self._fh = open(self.path, "a", encoding="utf-8")

    def emit(self, event: str, **fields: Any) -> dict[str, Any]:
        record = {"v": SCHEMA_VERSION, "event": event, "t": round(time.time(), 3), **fields}
        self._fh.write(json.dumps(record, ensure_ascii=False, default=_json_default) + "\n")
        self._fh.flush()
        return record

    def close(self) -> None:
        self._fh.close()


def _json_default(obj: Any) -> Any:
    # numpy scalars from metric code
    for attr in ("item", "tolist"):
        if hasattr(obj, attr):
            return getattr(obj, attr)()
    return str(obj)


def worker_command(run_dir: str | os.PathLike, python: str | None = None) -> list[str]:
    """The command line that runs the training worker for ``run_dir``.

    From an installed package or the source tree: ``python -m workbench.engine.worker RUN_DIR``.
    In the built application (``sys.frozen``) there is no ``-m``: its executable is the
    worker when given ``--worker RUN_DIR``.
    """
    import sys

    if python is None and getattr(sys, "frozen", False):
        return [sys.executable, "--worker", str(run_dir)]
    return [python or sys.executable, "-m", "workbench.engine.worker", str(run_dir)]


def engine_command(module: str, *args: str) -> list[str]:
    """The command line that runs the engine module ``module`` in a process of its own, for
    front ends that must not import the engine (the built application accepts ``-m`` too)."""
    import sys

    return [sys.executable, "-m", f"workbench.engine.{module}", *args]


def launch_worker(run_dir: str | os.PathLike, python: str | None = None, detach: bool = True):
    """Start the training worker for ``run_dir`` as a separate process (no shell).

    The worker's own output goes to worker.log; the events file is the channel to readers.
    Detached, it keeps training when the window that started it closes.
    """
    import subprocess
    import sys

    run_dir = Path(run_dir)
    (run_dir / STOP_FILE).unlink(missing_ok=True)
    log = open(run_dir / "worker.log", "ab")
    kwargs: dict[str, Any] = {}
    if detach:
        if sys.platform == "win32":
            kwargs["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        else:
            kwargs["start_new_session"] = True
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    proc = subprocess.Popen(
        worker_command(run_dir, python),
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, **kwargs)
    log.close()
    write_pid(run_dir, proc.pid)
    return proc
