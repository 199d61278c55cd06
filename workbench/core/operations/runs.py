"""Training runs as the user works with them: the one place both front ends call.

Build a job from the project and the user's settings (the defaults live here), start it,
resume it, stop it (gracefully, then terminate, then kill), read its status, and say which
runs can be resumed, evaluated or exported. ``workbench.cli`` and the GUI are thin callers;
neither names a file of a run folder.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import WorkbenchError
from ..jobs import JobSpec, new_run_id, read_job, write_job, write_run_task
from ..project import Project
from ..runs import (  # noqa: F401 (run_dir_of: callers reach it as ops.run_dir_of)
    JOB_FILE, LOG_FILE, RunBusy, RunSummary, launch_worker, list_runs, lock_held, request_stop, run_dir_of,
    summarize, worker_pid,
)
from ..trained import has_evaluation, trained_weights

DEFAULT_BASE_MODEL = "builtin:small"
STOP_GRACE_S = 120  # a worker that has not stopped this long after a stop request is terminated
LAUNCH_TIMEOUT_S = 60  # how long a resume waits for its worker to take the run's lock

# the settings a user may give; None means "recommended for this data" (see job_settings)
SETTINGS = (
    "epochs", "max_steps", "learning_rate", "batch_size", "max_length", "lora_r", "lora_alpha", "lora_dropout",
    "warmup_ratio", "weight_decay", "gradient_accumulation_steps", "eval_steps", "save_steps", "logging_steps",
    "seed", "device", "quantization", "allow_pickle", "lr_scheduler", "save_total_limit", "precision", "eval_rows",
    "vocabulary", "recompute", "head", "head_pooling", "head_depth", "head_features", "head_linear",
)


def default_method(base_model: str) -> str:
    """A built-in model starts from random weights, so all of them are trained; any other
    model is adapted with LoRA unless the user asks for full fine-tuning."""
    return "full" if base_model.startswith("builtin:") else "lora"


def _template(project: Project):
    from ..templates import TemplateCatalog

    return TemplateCatalog().get(project.config.template)


def resolve_base_model(base_model: str) -> tuple[str, str | None]:
    """``(model, registered id)``: a registered model's id becomes its folder (the id is kept
    beside it); a built-in model, a folder or a hub id stays as given."""
    from ..models_store import resolve

    base_model = (base_model or "").strip()
    folder = resolve(base_model)
    return (folder, base_model) if folder else (base_model, None)


def recommendation_device(on: str | None = None, device: str = "cpu") -> str:
    """The device a run's settings are recommended for: a server's (its first device, as its
    run uses it) when it trains on server ``on``, else ``device``."""
    if not on:
        return device
    from ..targets import get_target

    return get_target(on).device


def recommended_settings(project: Project, base_model: str = DEFAULT_BASE_MODEL, method: str | None = None,
                         template=None, device: str = "cpu",
                         time_budget_min: float | None = None, head: bool | None = None,
                         on: str | None = None, head_settings: dict[str, Any] | None = None,
                         ) -> tuple[dict[str, Any], Any]:
    """The template's defaults with what the data recommends on top, and the recommendation
    itself (time and memory estimates, notes). ``time_budget_min`` bounds the training time
    (default 10 minutes, see core/recommend.py). ``base_model`` may be a registered id;
    ``head`` as :func:`uses_head` decides it; ``on``: the server the run trains on, whose
    devices the settings are for (:func:`recommendation_device`); ``head_settings``: the head's
    own settings given (:func:`head_defaults` fills the rest)."""
    from ..recommend import recommend

    template = template or _template(project)
    device = recommendation_device(on, device)
    base_model, _ = resolve_base_model(base_model)
    method = method or default_method(base_model)
    head = uses_head(template.task.value, base_model, head)
    heads = head_defaults(head, head_settings)
    rec = recommend(template, project.config.stats, device, base_model, method, time_budget_min=time_budget_min,
                    head=head, head_depth=heads.get("head_depth"), head_features=bool(heads.get("head_features")))
    values = dict(template.hyperparameter_defaults())
    values.update(heads)
    values.update(batch_size=rec.batch_size, max_length=rec.max_length, epochs=rec.epochs,
                  learning_rate=rec.learning_rate, eval_steps=rec.eval_steps, eval_rows=rec.eval_rows,
                  recompute=rec.recompute)
    return values, rec


class MultiLabelNeedsBuiltin(WorkbenchError):
    """A multi-label project with a pretrained model that writes its labels as text: only a
    classification head (the built-in classifier's, or one on the pretrained model) learns several
    labels per row, one sigmoid each."""

    def __init__(self, base_model: str):
        self.base_model = base_model
        super().__init__(
            f"This project has several labels per row, which a model writing its label as text does not learn: "
            f"train {base_model} with a classification head (the default; leave out --classify-by label-text) "
            "or choose builtin:small.", code="multi_label_needs_head", model=base_model)


HEAD_SETTINGS = ("head_pooling", "head_depth", "head_features", "head_linear")


def uses_head(task: str, base_model: str, head: bool | None = None) -> bool:
    """Whether a classification run of a pretrained ``base_model`` trains a classification head
    (the default) rather than writing the label's name; never for a built-in model or Q&A."""
    if task != "classification" or str(base_model).startswith("builtin:"):
        return False
    return True if head is None else bool(head)


# "start from the frozen model": the head fitted on the mean-pooled states of the decoder's first
# half, mixed with a linear part over the text's token n-grams (bench/head_layers_bench.py,
# docs/models.md); the window's check box and the command line's flags give the same settings
FROZEN_START = {"head_features": True, "head_linear": True, "head_pooling": "mean", "head_depth": 0.5}
# a head trained by LoRA alone, from the last token of every layer: the head's settings before the
# frozen start, what --no-head-features (the check box cleared) gives
PLAIN_HEAD = {"head_features": False, "head_linear": False, "head_pooling": "last", "head_depth": None}


def head_defaults(head: bool, given: dict[str, Any] | None = None) -> dict[str, Any]:
    """The head's settings: those given (None: not given), the rest from the frozen start, the
    default (docs/models.md, "Starting from the frozen model"), or from the plain head where the
    first stage is turned off; none without a head."""
    if not head:
        return {}
    given = {k: v for k, v in (given or {}).items() if k in HEAD_SETTINGS and v is not None}
    out = {**(PLAIN_HEAD if given.get("head_features") is False else FROZEN_START), **given}
    if out.get("head_linear") and "head_features" not in given:
        out["head_features"] = True  # the linear part's share is chosen against the fitted head
    return out


def build_job(project: Project, base_model: str = DEFAULT_BASE_MODEL, method: str | None = None,
              template=None, time_budget_min: float | None = None, on: str | None = None,
              **settings: Any) -> JobSpec:
    """The job for a new run. A setting left out or None takes the recommended value: for the
    devices of server ``on`` where it trains there.

    Checking and saving go together unless asked otherwise: ``save_steps`` defaults to
    ``eval_steps`` and the loss is logged at least every 5 steps.
    """
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    if not project.is_prepared:
        raise WorkbenchError(f"Project {project.root} has no prepared data. Prepare the data first "
                             "('workbench data prepare' or the Data page).", code="project_not_prepared",
                             path=str(project.root))
    base_model = (base_model or "").strip()
    if not base_model:
        raise WorkbenchError("Choose a base model: a built-in model, a model folder on this computer or a model id.",
                             code="no_base_model")
    base_model, base_model_name = resolve_base_model(base_model)
    template = template or _template(project)
    settings["head"] = uses_head(template.task.value, base_model, settings.get("head"))
    if project.task.multi_label and not base_model.startswith("builtin:") and not settings["head"]:
        raise MultiLabelNeedsBuiltin(base_model)
    method = method or default_method(base_model)
    values, rec = recommended_settings(project, base_model, method, template=template,
                                       time_budget_min=time_budget_min, head=settings["head"], on=on,
                                       head_settings=settings)
    given = {k: v for k, v in settings.items() if v is not None and k not in HEAD_SETTINGS}
    if given.get("max_steps") is not None and given["max_steps"] <= 0:
        given["max_steps"] = -1
    values.update(given)
    values.update(_time_of(project, rec, values, given, time_budget_min))
    every = int(values.get("eval_steps") or 50)
    values["eval_steps"] = every
    values.setdefault("save_steps", every)
    values.setdefault("logging_steps", max(1, min(5, every)))
    fields = set(JobSpec.model_fields)
    return JobSpec(project=str(project.root.resolve()), template=template.id, task=template.task.value,
                   base_model=base_model, base_model_name=base_model_name, method=method,
                   data_version=project.config.data_version,
                   **{k: v for k, v in values.items() if k in fields})


def _time_of(project: Project, rec, values: dict[str, Any], given: dict[str, Any],
             time_budget_min: float | None) -> dict[str, float | None]:
    """The job's time budget and estimate. A budget given bounds the run whatever its settings;
    without one the default budget bounds runs of the recommended length, not a length the
    user fixed (epochs or steps). The estimate is the recommendation's, scaled to other steps."""
    from ..recommend import job_estimate

    fixed_length = given.get("epochs") is not None or (given.get("max_steps") or -1) > 0
    budget = max(time_budget_min, 0.1) * 60 if time_budget_min is not None else (None if fixed_length else rec.time_budget_s)
    same = (all(values.get(k) == getattr(rec, k) for k in ("epochs", "batch_size", "max_length"))
            and int(values.get("gradient_accumulation_steps") or 1) == 1 and (values.get("max_steps") or -1) <= 0)
    rows = int((project.config.stats or {}).get("splits", {}).get("train", 0))
    batch = int(values.get("batch_size") or rec.batch_size) * int(values.get("gradient_accumulation_steps") or 1)
    estimate = rec.est_seconds if same else job_estimate(rec, rows, batch, float(values.get("epochs") or rec.epochs),
                                                          int(values.get("max_steps") or -1),
                                                          int(values.get("max_length") or rec.max_length))
    # the budget ends the steps; a recommendation past it (a linear fit longer than the budget: its
    # notes say so) is what the run takes at the least
    return {"time_budget_s": budget,
            "estimate_s": min(estimate, max(budget, rec.est_seconds)) if budget else estimate}


def estimate_range(job: JobSpec):
    """How long a run of ``job`` is estimated to take before it starts, as a range
    (core/timing.py: start_estimate), counting on the processor's load the job carries
    (:func:`with_processor_load`); what the Train page and ``train`` show, and the worker
    reports when the run starts. None when the job has no estimate."""
    from ..timing import start_estimate

    return start_estimate(job.estimate_s, job.time_budget_s, job.cpu_busy, job.cpu_cores)


@dataclass(frozen=True)
class Reach:
    """How far a run of a job gets, as its start estimate counts: the steps its settings plan, of
    them the steps its time budget leaves it (fewer where the processor's load makes the budget
    end it first), and the share of one pass over the training rows those steps read."""

    planned: int
    steps: int
    data_share: float


def expected_reach(project: Project, job: JobSpec, span=None) -> Reach:
    """The one count of a run's steps and of the training rows they read that the Train page and
    ``train`` show beside its estimate (``span``: :func:`estimate_range` of ``job``)."""
    from ..recommend import planned_steps
    from ..timing import planned_share

    rows = int((project.config.stats or {}).get("splits", {}).get("train", 0))
    accumulation = int(job.gradient_accumulation_steps or 1)
    planned = planned_steps(rows, job.batch_size, job.epochs, job.max_steps, accumulation)
    span = estimate_range(job) if span is None else span
    share = planned_share(span, job.estimate_s) if span is not None else 1.0
    steps = planned if share >= 1 else max(1, int(planned * share))
    return Reach(planned, steps, steps / planned_steps(rows, job.batch_size, 1.0, 0, accumulation))


def says_rows_unread(rec, reach: Reach) -> bool:
    """Whether to say under the estimate that the budget's steps read only part of the training
    rows: where the budget, not the settings, leaves them unread, and no stage note (a frozen
    start's, which says what its LoRA steps read) says it already."""
    from ..recommend import stage_plan

    return (stage_plan(rec) is None and reach.data_share < 1
            and (reach.steps < reach.planned or rec.data_share is not None))


def compared_times(job: JobSpec, rec) -> tuple[float, float] | None:
    """For a run whose recommendation weighs it against the built-in small model's (a
    classification head on the processor: ``rec.builtin_seconds``): the two runs' times, each
    its start estimate at the processor's load the job carries; None for any other run."""
    from ..timing import start_estimate

    if getattr(rec, "builtin_seconds", None) is None:
        return None
    mine = estimate_range(job)
    theirs = start_estimate(rec.builtin_seconds, job.time_budget_s, job.cpu_busy, job.cpu_cores)
    if mine is None or theirs is None:
        return None
    return mine.seconds, theirs.seconds


def runs_on_processor(job: JobSpec, on: str | None = None) -> bool:
    """Whether a run of ``job`` computes on this computer's processor as far as core can tell:
    here, on the CPU or the device found at start (a GPU found then drops the load, engine/training/trainer.py)."""
    return not on and (job.device or "auto").split(":")[0] in ("auto", "cpu")


def with_processor_load(job: JobSpec, on: str | None = None, busy: float | None = None,
                        cores: int | None = None, measure: bool = True) -> JobSpec:
    """``job`` carrying the share of this computer's processor (``cores`` logical cores, this
    computer's where not given) other work keeps busy, which its estimate counts on
    (core/machine_load.py): ``busy`` where the caller measured it, else measured now (half a
    second) unless ``measure`` is false. A run on a server or a GPU carries none."""
    from ..machine_load import busy_share, logical_cores

    if not runs_on_processor(job, on):
        busy = None
    elif busy is None and measure:
        busy = busy_share()
    if busy is None:
        return job.model_copy(update={"cpu_busy": None, "cpu_cores": None})
    return job.model_copy(update={"cpu_busy": round(float(busy), 3), "cpu_cores": cores or logical_cores()})


def last_job(project: Project) -> JobSpec | None:
    """The job of the project's latest run (its settings are what the user chose last); not a
    preference run's, whose settings were recommended for its pairs of answers, not for the rows."""
    for s in reversed(list_runs(project.root)):
        try:
            job = read_job(s.path)
        except WorkbenchError:
            continue
        if job.method != "dpo":
            return job
    return None


@dataclass
class Started:
    """A worker this process started for a run."""

    run_dir: Path
    proc: Any  # subprocess.Popen
    resumed_from: str | None = None

    @property
    def run_id(self) -> str:
        return self.run_dir.name

    @property
    def log_path(self) -> Path:
        return log_path(self.run_dir)


def check_disk_space(project: Project, job: JobSpec) -> None:
    """Refuse a run that cannot fit on the disk, before it starts: one that fills the disk fails
    at a checkpoint, minutes in."""
    import shutil

    from ..recommend import run_disk_mb

    need = run_disk_mb(job.base_model, job.method, job.task, len(project.task.labels), job.save_total_limit)
    where = project.runs_dir
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free / 2**20
    if need > free:
        raise WorkbenchError(
            f"This run needs about {need / 1024:.1f} GB of disk for its checkpoints and weights, and the disk of "
            f"{project.root} has {free / 1024:.1f} GB free. Free some space (runs you no longer need can be "
            f"deleted from {project.runs_dir}), or keep fewer checkpoints (the setting 'Checkpoints kept', "
            f"--save-total-limit; now {job.save_total_limit}), then start again.", code="disk_too_small",
            need_gb=round(need / 1024, 1), free_gb=round(free / 1024, 1), path=str(project.root),
            keep=job.save_total_limit)


def start_run(project: Project, job: JobSpec, detach: bool = True, on: str | None = None) -> Started:
    """Write a new run folder for ``job`` and start its worker: here, or on the server registered
    as ``on`` (core/remote.py), whose events are then mirrored into the folder."""
    run_dir = project.runs_dir / new_run_id()
    if on:
        from .. import remote
        from ..targets import get_target

        from ..recommend import run_disk_mb

        target = get_target(on)
        need = run_disk_mb(job.base_model, job.method, job.task, len(project.task.labels), job.save_total_limit)
        job = with_processor_load(job, on)  # this computer's load is not the server's
        write_job(run_dir, job)
        write_run_task(run_dir, project.task)
        _freeze_pairs(project, run_dir, job)
        try:
            remote.start(project, run_dir, target, need_mb=need)
        except WorkbenchError:
            import shutil

            shutil.rmtree(run_dir, ignore_errors=True)  # nothing started: no run to list
            raise
        return Started(run_dir, remote.Mirror(run_dir).start())
    check_disk_space(project, job)
    if job.cpu_busy is None:  # the estimate is made at the start: at the load then
        job = with_processor_load(job)
    write_job(run_dir, job)
    write_run_task(run_dir, project.task)
    _freeze_pairs(project, run_dir, job)
    return Started(run_dir, launch_worker(run_dir, detach=detach))


def _freeze_pairs(project: Project, run_dir: Path, job: JobSpec) -> None:
    """A preference run keeps the pairs it trains on in its folder (a resume and a server read them)."""
    if job.method != "dpo":
        return
    from ..preference import freeze_pairs

    try:
        freeze_pairs(project.root, run_dir, job.seed)
    except WorkbenchError:
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)  # nothing started: no run to list
        raise


def where(run_dir: str | os.PathLike) -> str | None:
    """The server a run trains on, or None for this computer."""
    from ..remote import remote_info

    info = remote_info(run_dir)
    return info.target if info else None


def resume_run(project: Project, run_id: str, checkpoint: str | None = None, detach: bool = True) -> Started:
    """Continue a run from its last checkpoint (or ``checkpoint``) in a new worker.

    Refused at once, naming the process, while a worker writes the run. Launches of one
    run are serialised by a short launch lock and each waits until its worker holds the
    run's lock, so of two resumes at the same moment exactly one starts a worker.
    """
    from filelock import FileLock, Timeout

    run_dir = run_dir_of(project.root, run_id)
    try:
        launch = FileLock(str(run_dir / ".launch.lock"), timeout=LAUNCH_TIMEOUT_S)
        launch.acquire()
    except Timeout:
        raise RunBusy(run_id, worker_pid(run_dir)) from None
    try:
        s = summarize(run_dir)
        if s.status == "running":
            raise RunBusy(run_id, worker_pid(run_dir))
        if s.status == "completed":
            raise WorkbenchError(f"Run '{run_id}' has completed; start a new run to train further.",
                                 code="run_completed", run=run_id)
        ckpt = checkpoint or s.last_checkpoint
        if not ckpt:
            raise WorkbenchError(f"Run '{run_id}' saved no checkpoint before it ended, so there is nothing to "
                                 "resume from. Start a new run instead.", code="run_without_checkpoint", run=run_id)
        if where(run_dir):  # the checkpoints stay on the server: it resumes there
            from .. import remote

            remote.resume(project, run_dir, ckpt)
            return Started(run_dir, remote.Mirror(run_dir).start(), resumed_from=ckpt)
        check_disk_space(project, read_job(run_dir))
        write_job(run_dir, read_job(run_dir).model_copy(update={"resume_from": ckpt}))
        proc = launch_worker(run_dir, detach=detach)
        deadline = time.monotonic() + LAUNCH_TIMEOUT_S
        while not lock_held(run_dir) and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        launch.release()
    return Started(run_dir, proc, resumed_from=ckpt)


def delete_run(project: Project, run_id: str) -> int:
    """Delete a run folder that no worker writes (and, for a run on a server, its folder there);
    returns the bytes freed on both. Its exported bundles (``exports/``) are the user's
    deliverables and stay. The folder is first renamed out of the
    runs list, so a deletion cut short leaves no half run that looks like a crashed one."""
    import shutil

    from filelock import FileLock, Timeout

    run_dir = run_dir_of(project.root, run_id)
    try:  # the launch lock: no resume can start while this decides
        with FileLock(str(run_dir / ".launch.lock"), timeout=1):
            if summarize(run_dir).status == "running" or lock_held(run_dir):
                raise RunBusy(run_dir.name, worker_pid(run_dir))
    except Timeout:
        raise RunBusy(run_dir.name, worker_pid(run_dir)) from None
    size = 0
    if where(run_dir):  # its folder on the server goes first (refused there while a worker writes it)
        from .. import remote

        size += remote.delete(run_dir)
    size += sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file())
    gone = run_dir.with_name(f".deleting-{run_dir.name}-{new_run_id()}")
    os.replace(run_dir, gone)
    shutil.rmtree(gone, ignore_errors=True)
    return size


def stop_run(run_dir: str | os.PathLike) -> None:
    """Ask the run's worker to save a checkpoint and stop (it reads the request between steps);
    on a server, its stop file there."""
    if where(run_dir):
        from .. import remote

        remote.stop(run_dir)
        return
    request_stop(run_dir)


def refresh_remote(project: Project) -> list[str]:
    """Catch up the events of the project's runs on servers that have not ended, and their
    status as the servers see it; returns the runs that could not be reached (they keep their
    last known state)."""
    from .. import remote
    from ..runs import read_events

    unreachable = []
    for run_dir in sorted(p for p in project.runs_dir.iterdir() if p.is_dir()) if project.runs_dir.is_dir() else []:
        if where(run_dir) is None:
            continue
        events = read_events(run_dir)
        if events and events[-1].get("event") == "end" and summarize(run_dir, events).status != "running":
            continue
        try:
            remote.sync(run_dir)
        except WorkbenchError:
            unreachable.append(run_dir.name)
    return unreachable


def terminate_run(run_dir: str | os.PathLike, wait_s: float = 5.0) -> bool:
    """End a worker that did not honour a stop request: terminate, then kill. True if one was ended."""
    import psutil

    pid = worker_pid(run_dir)
    if pid is None or not is_running(run_dir):
        return False
    try:
        proc = psutil.Process(pid)
        proc.terminate()
        try:
            proc.wait(wait_s)
        except psutil.TimeoutExpired:
            proc.kill()
            proc.wait(wait_s)
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.TimeoutExpired):
        return False
    return True


class StopTracker:
    """Stops asked for and when each turns into terminate-then-kill (for a front end's timer)."""

    def __init__(self, grace_s: float = STOP_GRACE_S):
        self.grace_s = grace_s
        self._deadline: dict[Path, float] = {}

    def request(self, run_dir: str | os.PathLike) -> None:
        if where(run_dir):  # over SSH: in a thread, so a slow server never holds up the caller
            import threading

            threading.Thread(target=_stop_quietly, args=(run_dir,), daemon=True).start()
        else:
            stop_run(run_dir)
        self._deadline.setdefault(Path(run_dir), time.monotonic() + self.grace_s)

    def stopping(self, run_dir: str | os.PathLike) -> bool:
        return Path(run_dir) in self._deadline

    def check(self) -> list[Path]:
        """Forget runs that ended; terminate those past their grace period. Returns the ended ones."""
        ended = []
        for run_dir, deadline in list(self._deadline.items()):
            if not is_running(run_dir):
                del self._deadline[run_dir]
                ended.append(run_dir)
            elif time.monotonic() > deadline:
                terminate_run(run_dir)
                del self._deadline[run_dir]
                ended.append(run_dir)
        return ended


def _stop_quietly(run_dir: str | os.PathLike) -> None:
    try:
        stop_run(run_dir)
    except WorkbenchError:  # unreachable: the run's mirror shows it going on; the user can stop again
        pass


def is_running(run_dir: str | os.PathLike) -> bool:
    return summarize(run_dir).status == "running"


def can_resume(summary: RunSummary) -> bool:
    return summary.status in ("stopped", "crashed", "failed") and bool(summary.last_checkpoint)


def can_evaluate(summary: RunSummary) -> bool:
    """Whether the run has weights to evaluate (or export): see core.trained. A run on a server
    has them there once it ended with a checkpoint; they come down when evaluated."""
    if summary.server:
        return summary.status == "completed" or (summary.status in ("stopped", "crashed", "failed")
                                                 and bool(summary.last_checkpoint))
    return trained_weights(summary.path, summary.status) is not None


can_export = can_evaluate  # the same weights are exported


def evaluation_shown(summary: RunSummary) -> bool:
    """Whether the Evaluate page lists the run: it can be evaluated, or was before."""
    return can_evaluate(summary) or has_evaluation(summary.path)


def log_path(run_dir: str | os.PathLike) -> Path:
    return Path(run_dir) / LOG_FILE
