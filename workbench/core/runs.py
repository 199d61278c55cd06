"""Reading runs from their folders: the events file is the source of truth.

A run's status is read, not remembered: the ``end`` event after the latest ``start`` gives
it (a resume appends a second ``start``); without one the run is ``running`` while its
worker holds the run's lock (or its process lives) and ``crashed`` once it is gone.

The readers here survive whatever a crash or a disk leaves behind: torn lines, invalid
UTF-8, NUL padding, an empty or truncated file, lines that are not objects, unknown event
kinds and fields of the wrong type. They skip what they cannot use; they never raise.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable, Sequence
from typing import Any

from .errors import WorkbenchError

RUNS_DIR = "runs"  # a project's runs, one folder each
EVENTS_FILE = "events.jsonl"
PID_FILE = "worker.pid"
STOP_FILE = "STOP"
CHECKPOINT_DONE_FILE = "workbench_checkpoint.json"  # see list_checkpoints
LOCK_FILE = "worker.lock"
LOG_FILE = "worker.log"
JOB_FILE = "job.json"
REMOTE_FILE = "remote.json"  # a run that trains on a server: where (core/remote.py)
SCHEMA_VERSION = 1
STATUSES = ("created", "running", "completed", "stopped", "failed", "crashed")


def process_rank() -> int:
    """This process's rank under PaddlePaddle's distributed launcher (0 alone): rank 0 writes the run."""
    return int(os.environ.get("PADDLE_TRAINER_ID", "0") or 0)


def format_duration(seconds: float | None) -> str:
    """mm:ss, or h:mm:ss from an hour on; "--:--" when unknown (ETA before the first steps)."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
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
        return [ev for ev in map(parse_event_line, lines) if ev is not None]


def parse_event_line(line: bytes) -> dict[str, Any] | None:
    """One event from one line, or None for what is not one (a torn line from a killed
    writer, NUL padding a file system left after a power cut, bytes that are not UTF-8)."""
    line = line.strip(b"\x00 \t\r\n")
    ev = _json_object(line)
    if ev is None and b"\x00" in line:
        ev = _json_object(line[line.rfind(b"\x00") + 1:].strip())  # data appended after padding
    if ev is None or not isinstance(ev.get("event"), str):
        return None
    return _sanitize(ev)


# fields of the worker protocol and their types; a value of another type (a damaged or a
# future file) is dropped, so every reader may format and plot what it gets
_NUMBER_FIELDS = ("t", "step", "epoch", "loss", "lr", "eval_loss", "tokens_per_s", "eta_s", "total_steps",
                  "initial_step", "trainable_params", "total_params", "peak_rss_mb", "threads")
_TEXT_FIELDS = ("status", "error", "error_code", "path", "device", "message", "level", "base_model", "family",
                "method", "builtin")


def _sanitize(ev: dict[str, Any]) -> dict[str, Any]:
    for key in _NUMBER_FIELDS:
        v = ev.get(key)
        if key in ev and (isinstance(v, bool) or not isinstance(v, (int, float))):
            del ev[key]
        elif isinstance(v, float) and key not in ("loss", "eval_loss") and not math.isfinite(v):
            del ev[key]  # NaN and infinity mean something only for a loss
    for key in _TEXT_FIELDS:
        if key in ev and ev[key] is not None and not isinstance(ev[key], str):
            del ev[key]
    if "metrics" in ev:
        m = ev["metrics"]
        ev["metrics"] = ({str(k): v for k, v in m.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
                         if isinstance(m, dict) else {})
    return ev


def _json_object(data: bytes) -> dict[str, Any] | None:
    if not data.startswith(b"{"):
        return None
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def event_tail(run_dir: str | os.PathLike) -> EventTail:
    """A reader of the run's events from the start, for following it."""
    return EventTail(Path(run_dir) / EVENTS_FILE)


def read_events(run_dir: str | os.PathLike) -> list[dict[str, Any]]:
    return EventTail(Path(run_dir) / EVENTS_FILE).read_new()


def _pid_alive(pid: int, started: float | None) -> bool:
    if not 0 < pid < 2**31:
        return False
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


def _pid_info(run_dir: str | os.PathLike) -> tuple[int | None, float | None]:
    try:
        info = json.loads((Path(run_dir) / PID_FILE).read_text(encoding="utf-8"))
        pid = int(info["pid"])
        started = info.get("started")
        return pid, float(started) if isinstance(started, (int, float)) else None
    except (OSError, ValueError, TypeError, KeyError, UnicodeDecodeError):
        return None, None


def worker_pid(run_dir: str | os.PathLike) -> int | None:
    """The process id the run's pid file names (the worker, once it has started)."""
    return _pid_info(run_dir)[0]


def worker_alive(run_dir: str | os.PathLike) -> bool:
    """True while a worker writes this run: it holds the run's lock, or (a worker of an
    older version, or one still starting) the process its pid file names lives."""
    if lock_held(run_dir):
        return True
    pid, started = _pid_info(run_dir)
    return pid is not None and _pid_alive(pid, started)


# One writer per run. The worker holds an OS-level lock on runs/<id>/worker.lock for its
# whole life; the kernel drops it when the process ends, even when it is killed, so a
# crashed run is never left locked (a pid file alone cannot say that: pids are reused).
# filelock gives flock on POSIX and msvcrt locking on Windows behind one API.


class RunBusy(WorkbenchError):
    """The run is being written by a worker; ``pid`` names its process (None if unknown)."""

    def __init__(self, run_id: str, pid: int | None):
        self.run_id, self.pid = run_id, pid
        who = f"process {pid}" if pid else "another process"
        super().__init__(f"Run '{run_id}' is already running ({who} is training it). Wait until it ends, "
                         f"or stop it with 'workbench stop --project ... {run_id}'.", code="run_busy", run=run_id,
                         pid=pid or 0)


def _lock(run_dir: str | os.PathLike):
    from filelock import FileLock

    return FileLock(str(Path(run_dir) / LOCK_FILE), timeout=0)


def acquire_run_lock(run_dir: str | os.PathLike):
    """Take the run's writer lock for this process, or raise :class:`RunBusy` at once."""
    from filelock import Timeout

    lock = _lock(run_dir)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        raise RunBusy(Path(run_dir).name, worker_pid(run_dir)) from None
    return lock


def lock_held(run_dir: str | os.PathLike) -> bool:
    """Whether some process holds the run's writer lock (probing it takes and drops it)."""
    from filelock import Timeout

    if not (Path(run_dir) / LOCK_FILE).exists():
        return False
    lock = _lock(run_dir)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        return True
    except OSError:  # a read-only folder: nobody can be writing it
        return False
    lock.release()
    return False


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
    error_code: str | None = None  # the error's code and fields (core.errors), for the window's words
    error_fields: dict[str, Any] = field(default_factory=dict)
    started: float | None = None
    ended: float | None = None
    device: str | None = None
    base_model: str | None = None
    method: str | None = None
    server: str | None = None  # the registered server the run trains on; None: this computer
    data_version: str | None = None  # the data version it trains on (core/versions.py)
    task: str | None = None  # "classification" or "instruction", as its job says
    from_run: str | None = None  # a preference run's: the run whose model it tunes

    def to_dict(self) -> dict[str, Any]:
        d = self.__dict__.copy()
        d["path"] = str(self.path)
        return d


def _num(v: Any) -> float | None:
    """A number from an event field, or None (fields of a damaged or future file may be anything)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
        return None
    return float(v)


def _int(v: Any, default: int = 0) -> int:
    n = _num(v)
    return int(n) if n is not None and abs(n) < 2**62 else default


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def last_session(events: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The latest ``start`` and the ``end`` that closed it (None while it is open).

    A resume appends a new ``start`` to the same file, so an ``end`` before the latest
    ``start`` belongs to an earlier session and says nothing about now.
    """
    start = end = None
    for ev in events:
        kind = ev.get("event")
        if kind == "start":
            start, end = ev, None
        elif kind == "end":
            end = ev
    return start, end


def run_status(run_dir: str | os.PathLike, events: list[dict[str, Any]]) -> str:
    """The run's status from its events and, while no ``end`` closes them, its worker."""
    if lock_held(run_dir):  # a worker writes the run now, whatever earlier sessions ended with
        return "running"
    _, end = last_session(events)
    if end is not None:
        status = end.get("status")
        return status if status in ("completed", "stopped", "failed") else "failed"
    pid, started = _pid_info(run_dir)
    if pid is not None and _pid_alive(pid, started):  # a worker still starting, or of an older version
        return "running"
    remote = _server_status(run_dir)
    if remote is not None:  # the server's worker: as the server last said (core/remote.py sync)
        return remote
    if events or (Path(run_dir) / PID_FILE).exists():
        return "crashed"
    return "created"


def _server_status(run_dir: str | os.PathLike) -> str | None:
    try:
        status = json.loads((Path(run_dir) / REMOTE_FILE).read_text(encoding="utf-8")).get("server_status")
    except (OSError, ValueError, AttributeError):
        return None
    return status if status in STATUSES else "running"


def train_step_state(statuses: Sequence[str]) -> str:
    """The Train step as the sidebar shows it, from the project's run statuses, oldest first:
    "running" while one trains, else how the latest run ended ("failed" for a crash too,
    "stopped", "done"), "todo" with no run that trained."""
    if "running" in statuses:
        return "running"
    ended = [s for s in statuses if s in ("completed", "stopped", "failed", "crashed")]
    if not ended:
        return "todo"
    return {"completed": "done", "stopped": "stopped"}.get(ended[-1], "failed")


def run_to_show(listed: Sequence[str], offered: Sequence[str], current: str | None) -> str | None:
    """The run a page's run picker selects when its list goes from ``listed`` to ``offered``
    (run ids, oldest first): a run that has just joined a list that had runs (it has just
    finished: the one the user wants to see), else the user's choice while it is offered,
    else the newest; None when none is offered."""
    if not offered:
        return None
    joined = [r for r in offered if r not in listed]
    if listed and joined:
        return joined[-1]
    return current if current in offered else offered[-1]


def summarize(run_dir: str | os.PathLike, events: list[dict[str, Any]] | None = None) -> RunSummary:
    run_dir = Path(run_dir)
    events = read_events(run_dir) if events is None else events
    return finish_summary(fold_events(new_summary(run_dir), events), events)


def new_summary(run_dir: str | os.PathLike) -> RunSummary:
    """A run's summary before any event: what its job file says."""
    run_dir = Path(run_dir)
    s = RunSummary(id=run_dir.name, path=run_dir, status="created")
    try:
        job = json.loads((run_dir / JOB_FILE).read_text(encoding="utf-8"))
        if isinstance(job, dict):
            # a registered model by its id, not by the folder it lives in
            s.base_model = _str(job.get("base_model_name") or job.get("base_model"))
            s.method = _str(job.get("method"))
            s.data_version = _str(job.get("data_version"))
            s.task = _str(job.get("task"))
            s.from_run = _str(job.get("from_run"))
    except (OSError, ValueError):
        pass
    try:
        s.server = _str(json.loads((run_dir / REMOTE_FILE).read_text(encoding="utf-8")).get("target"))
    except (OSError, ValueError, AttributeError):
        pass
    return s


def fold_events(s: RunSummary, events: Iterable[dict[str, Any]]) -> RunSummary:
    """``s`` updated by ``events`` (in place): folding a history in parts gives what folding it
    whole does, so a window following a run folds each batch of new events once."""
    for ev in events:
        kind = ev.get("event")
        if kind == "start":
            s.started = _num(ev.get("t"))
            s.total_steps = _int(ev.get("total_steps")) or None
            s.device = _str(ev.get("device"))
            s.last_step = max(s.last_step, _int(ev.get("initial_step")))
            s.error = s.ended = s.error_code = None
            s.error_fields = {}
        elif kind == "step":
            s.last_step = max(s.last_step, _int(ev.get("step")))
            s.last_loss = _num(ev.get("loss"))
        elif kind == "eval":
            el = _num(ev.get("eval_loss"))
            if el is not None and (s.best_eval_loss is None or el < s.best_eval_loss):
                s.best_eval_loss = el
            metrics = ev.get("metrics")
            if isinstance(metrics, dict):
                s.metrics = {str(k): v for k, v in metrics.items() if _num(v) is not None}
        elif kind == "checkpoint":
            s.last_checkpoint = _str(ev.get("path"))
        elif kind == "end":
            s.error = _str(ev.get("error"))
            s.error_code = _str(ev.get("error_code"))
            fields = ev.get("error_fields")
            s.error_fields = dict(fields) if isinstance(fields, dict) else {}
            s.ended = _num(ev.get("t"))
    return s


def finish_summary(folded: RunSummary, events: list[dict[str, Any]], status: str | None = None) -> RunSummary:
    """A copy of a folded summary with what the disk says now: the status (``status`` when the
    caller knows it) and the last checkpoint still there."""
    s = dataclasses.replace(folded, metrics=dict(folded.metrics))
    s.status = status if status is not None else run_status(s.path, events)
    # a checkpoint event may point at a folder pruned later (keep-last-K); trust the disk
    ckpts = list_checkpoints(s.path)
    if s.server:  # its checkpoints are on the server: the events say which
        return s
    if ckpts:
        s.last_checkpoint = str(ckpts[-1].relative_to(s.path))
    elif s.last_checkpoint and not _safe_exists(s.path, s.last_checkpoint):
        s.last_checkpoint = None
    return s


def _safe_exists(run_dir: Path, rel: str) -> bool:
    try:
        return (run_dir / rel).exists()
    except (OSError, ValueError):  # a damaged path (NUL bytes, too long)
        return False


def mark_checkpoint_complete(checkpoint: str | os.PathLike, step: int, probe: dict | None = None) -> None:
    """Written by the worker once the trainer has saved everything of ``checkpoint``; ``probe``
    is what the model in the worker's memory gave on a few validation rows at that step
    (engine/models/checkpoints.py), which a model loaded from the checkpoint must give again."""
    from .fsutil import atomic_write_text

    data: dict = {"step": int(step), "t": time.time()}
    if probe:
        data["probe"] = probe
    atomic_write_text(Path(checkpoint) / CHECKPOINT_DONE_FILE, json.dumps(data))


def list_checkpoints(run_dir: str | os.PathLike) -> list[Path]:
    """Complete checkpoints, oldest first.

    The trainer writes trainer_state.json before the optimizer state, so a worker killed in
    between leaves a checkpoint that looks whole and cannot be resumed; the worker's own
    marker, written after the save, is what counts. Runs from before the marker existed
    (none of their checkpoints has one) fall back to trainer_state.json.
    """
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
    if any((p / CHECKPOINT_DONE_FILE).is_file() for _, p in found):
        found = [(n, p) for n, p in found if (p / CHECKPOINT_DONE_FILE).is_file()]
    return [p for _, p in sorted(found)]


def run_dirs(project_dir: str | os.PathLike) -> list[Path]:
    """The project's run folders by name, without reading them (a job file makes a run)."""
    runs = Path(project_dir) / RUNS_DIR
    if not runs.is_dir():
        return []
    # a name starting with a dot is a run being deleted (operations.runs.delete_run)
    return [p for p in sorted(runs.iterdir()) if not p.name.startswith(".") and (p / JOB_FILE).is_file()]


def list_runs(project_dir: str | os.PathLike) -> list[RunSummary]:
    return [summarize(p) for p in run_dirs(project_dir)]


def run_dir_of(project_dir: str | os.PathLike, run_id: str) -> Path:
    """The folder of an existing run of the project in ``project_dir``, or a :class:`WorkbenchError`
    naming the runs there are."""
    run_id = (run_id or "").strip()
    run_dir = Path(project_dir) / RUNS_DIR / run_id
    if not run_id or "/" in run_id or "\\" in run_id or not (run_dir / JOB_FILE).is_file():
        known = [s.id for s in list_runs(project_dir)]
        hint = f" Runs in this project: {', '.join(known)}." if known else " This project has no runs yet."
        raise WorkbenchError(f"Run '{run_id}' does not exist in {project_dir}.{hint}", code="run_missing", run=run_id,
                             runs=known)
    return run_dir


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


def cli_command(*args: str) -> list[str]:
    """The command line that runs ``workbench ARGS`` in a process of its own."""
    import sys

    return [sys.executable, "-m", "workbench", *args]


def launch_worker(run_dir: str | os.PathLike, python: str | None = None, detach: bool = True):
    """Start the training worker for ``run_dir`` as a separate process (no shell).

    The worker's own output goes to worker.log; the events file is the channel to readers.
    Detached, it keeps training when the window that started it closes.
    """
    import subprocess
    import sys

    run_dir = Path(run_dir)
    log = open(run_dir / LOG_FILE, "ab")
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
