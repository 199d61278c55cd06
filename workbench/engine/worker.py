"""The training worker: ``python -m workbench.engine.worker RUN_DIR``.

Reads RUN_DIR/job.json, appends events to RUN_DIR/events.jsonl and always ends with an
``end`` event, except when killed outright; readers then see a run without ``end`` whose
process is gone, i.e. crashed, and resumable from its last checkpoint.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

from workbench.core.errors import WorkbenchError, os_error_message
from workbench.core.jobs import read_job
from workbench.core.runs import STOP_FILE, EventWriter, RunBusy, acquire_run_lock, process_rank, write_pid

OOM_MARKERS = ("out of memory", "resourceexhausted", "cannot allocate memory", "memoryerror", "bad_alloc")


def run(run_dir: Path) -> int:
    primary = process_rank() == 0
    lock = None
    if primary:
        # one writer per run, held until this process ends (the kernel drops it on any exit)
        try:
            lock = acquire_run_lock(run_dir)
        except RunBusy as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 3
        write_pid(run_dir, os.getpid())
        (run_dir / STOP_FILE).unlink(missing_ok=True)  # a stop asked of an earlier session
    # under paddle.distributed.launch every rank trains; only rank 0 reports
    events = EventWriter(run_dir) if primary else _NullWriter()
    status, error = "failed", None
    code, fields = None, {}  # a WorkbenchError's, for the window to word the error in its language
    try:
        job = read_job(run_dir)
        from workbench.engine.training.run_loop import TrainingAborted
        from workbench.engine.training.trainer import run_training

        if job.method == "dpo":  # preference tuning on top of another run's model
            from workbench.engine.training.preference import run_preference_training as run_training
        try:
            status, error = run_training(job, run_dir, events)
        except (TrainingAborted, WorkbenchError) as exc:
            status, error = "failed", str(exc)
            code, fields = getattr(exc, "code", None), getattr(exc, "fields", None) or {}
    except BaseException as exc:  # the end event must say why, whatever happened
        text = f"{type(exc).__name__}: {exc}"
        traceback.print_exc()
        if isinstance(exc, KeyboardInterrupt):
            status, error = "stopped", None
        elif isinstance(exc, MemoryError) or any(m in text.lower() for m in OOM_MARKERS):
            status, error = "failed", (
                "Training ran out of memory. Lower the batch size or the maximum length "
                "(or use LoRA instead of full fine-tuning), then start again or resume.")
        elif isinstance(exc, OSError):
            status, error = "failed", (f"Training stopped: {os_error_message(exc)} The checkpoints already "
                                       "saved are kept: once that is fixed, resume the run, or start it again.")
        else:
            status, error = "failed", f"Training failed: {text}. The details are in worker.log."
    coded = {"error_code": code, "error_fields": fields} if code else {}
    events.emit("end", status=status, error=error, **coded, peak_rss_mb=_peak_rss_mb(), cpu_seconds=_cpu_seconds())
    events.close()
    if lock is not None:
        lock.release()
    return 0 if status in ("completed", "stopped") else 1


def _cpu_seconds() -> float | None:
    """CPU time (user + system) of this process: what the training cost on a shared machine."""
    try:
        t = os.times()
        return round(t.user + t.system, 2)
    except OSError:
        return None


def _peak_rss_mb() -> float | None:
    try:
        import resource

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(kb / 1024 / (1024 if sys.platform == "darwin" else 1), 1)
    except (ImportError, OSError):
        try:
            import psutil

            return round(psutil.Process().memory_info().peak_wset / 2**20, 1)
        except Exception:
            return None


class _NullWriter:
    def emit(self, *a, **k):
        return {}

    def close(self):
        pass


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m workbench.engine.worker RUN_DIR", file=sys.stderr)
        return 2
    return run(Path(argv[0]))


if __name__ == "__main__":
    raise SystemExit(main())
