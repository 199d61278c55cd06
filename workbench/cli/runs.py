"""``workbench train``, ``runs`` and ``stop``: start or resume a run in the worker and follow its
events, list a project's runs, ask one to stop."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.common import format_seconds, print_json
from workbench.core.errors import WorkbenchError
from workbench.core.preference import DPO_LOSSES, THUMBS_LOSS


def _progress_line(ev: dict, total: int | None) -> str:
    step = ev.get("step", 0)
    total = total or 0
    frac = step / total if total else 0.0
    bar = "#" * int(frac * 30)
    return (f"\r[{bar:<30}] {step}/{total} loss {ev.get('loss', float('nan')):.4f} "
            f"lr {ev.get('lr', 0):.2e} {ev.get('tokens_per_s', 0):.0f} tok/s ETA {format_seconds(ev.get('eta_s'))}   ")


def follow_run(run_dir: Path, proc, as_json: bool) -> str:
    """Print the run's events as they arrive; returns the final status."""
    import time as _time

    from workbench.core.runs import LOG_FILE, event_tail, summarize

    tail = event_tail(run_dir)
    total = None
    status = None
    try:
        while status is None:
            for ev in tail.read_new():
                if as_json:
                    sys.stdout.write(json.dumps(ev, ensure_ascii=False) + "\n")
                    sys.stdout.flush()
                kind = ev.get("event")
                if kind == "start":
                    total = ev.get("total_steps")
                    if not as_json:
                        what = (f"built-in model '{ev.get('builtin')}', trained from scratch on this project's data"
                                if ev.get("builtin") else ev.get("base_model"))
                        print(f"training {what} ({ev.get('family')}, {ev.get('method')}) on {ev.get('device')}: "
                              f"{ev.get('trainable_params'):,} of {ev.get('total_params'):,} parameters trainable, "
                              f"{total} steps")
                elif kind == "step" and not as_json:
                    sys.stdout.write(_progress_line(ev, total))
                    sys.stdout.flush()
                elif kind == "eval" and not as_json:
                    m = " ".join(f"{k} {v:.4f}" for k, v in (ev.get("metrics") or {}).items())
                    print(f"\neval at step {ev.get('step')}: eval_loss {ev.get('eval_loss', float('nan')):.4f} {m}")
                elif kind == "checkpoint" and not as_json:
                    print(f"\ncheckpoint {ev.get('path')}")
                elif kind == "log" and not as_json and ev.get("level") in ("warning", "error"):
                    print(f"\n{ev.get('level')}: {ev.get('message')}", file=sys.stderr)
                elif kind == "end":
                    status = ev.get("status")
                    if not as_json:
                        print(f"\nrun {run_dir.name} {status}" + (f": {ev.get('error')}" if ev.get("error") else ""))
            if status is None and proc.poll() is not None:
                _time.sleep(0.2)
                if not tail.read_new():
                    status = summarize(run_dir).status
                    if not as_json:
                        print(f"\nrun {run_dir.name} {status}: the worker exited without reporting; "
                              f"see {run_dir / LOG_FILE}")
                    break
            _time.sleep(0.2)
    except KeyboardInterrupt:
        print("\nstopping: the worker saves a checkpoint first (Ctrl+C again to leave it running)", file=sys.stderr)
        from workbench.core.operations.runs import stop_run

        stop_run(run_dir)
        try:
            return follow_run(run_dir, proc, as_json)
        except KeyboardInterrupt:
            return "running"
    return status or "failed"


def cmd_train(args: argparse.Namespace) -> int:
    from workbench.core.operations import runs as run_operations
    from workbench.core.project import Project

    project = Project.open(args.project)
    if not project.is_prepared:
        raise WorkbenchError(f"Project {project.root} has no prepared data. Run 'workbench data prepare' first.")
    if (args.method == "dpo") != bool(args.from_run) and not args.resume:
        raise WorkbenchError("Preference tuning starts from a run: give --method dpo together with --from-run RUN.",
                             code="dpo_needs_from_run")
    if args.method == "dpo" and not args.resume:
        return _train_dpo(args, project)
    if args.resume:
        if args.on:
            raise WorkbenchError("A run resumes where it trained; leave out --on with --resume.")
        started = run_operations.resume_run(project, args.resume, checkpoint=args.checkpoint, detach=False)
        if not args.json:
            print(f"resuming run {started.run_id} from {started.resumed_from}: worker log in {started.log_path}")
    else:
        settings = {k: getattr(args, k, None) for k in run_operations.SETTINGS}
        settings["head"] = {"head": True, "label-text": False}.get(getattr(args, "classify_by", None))
        settings["allow_pickle"] = args.allow_pickle or None
        # settings recommended for where it trains: a server's devices with --on
        job = run_operations.build_job(project, args.base_model, args.method, time_budget_min=args.time_budget,
                                       on=args.on, **settings)
        job = run_operations.with_processor_load(job, args.on)  # the estimate counts on the processor's load now
        started = run_operations.start_run(project, job, detach=False, on=args.on)
        _, rec = run_operations.recommended_settings(project, job.base_model, job.method, time_budget_min=args.time_budget,
                                                     head=job.head, on=args.on, head_settings={
                                                         k: getattr(job, k) for k in run_operations.HEAD_SETTINGS})
        span = run_operations.estimate_range(job)  # the range the Train page shows for this job
        from workbench.core.recommend import HEAD_NOTE_START, head_note

        if args.json:  # the first line: what was recommended, and this run's estimate and budget
            print(json.dumps({"v": 1, "event": "recommendation", "run": started.run_id, **rec.to_dict(),
                              "run_estimate_s": job.estimate_s, "run_time_budget_s": job.time_budget_s,
                              "run_estimate": span.to_dict() if span else None},
                             ensure_ascii=False), flush=True)
        else:
            took = f"{format_seconds(span.low)} to {format_seconds(span.high)} and " if span else ""
            # the steps and the training rows they read: the Train page's one count
            reach = run_operations.expected_reach(project, job, span) if span else None
            if reach and reach.steps < reach.planned:  # the load makes the budget end it first
                took = (f"{format_seconds(span.seconds)}, where the time budget ends it after about {reach.steps} of "
                        f"the {reach.planned} planned steps on this busy processor, and ")
            print(f"recommended for this data: batch {rec.batch_size}, max length {rec.max_length}, "
                  f"{rec.epochs:g} epochs, learning rate {rec.learning_rate:g}; "
                  f"this run about {took}{rec.est_memory_mb:.0f} MB "
                  + (f"on server {args.on}'s {run_operations.recommendation_device(args.on)}" if args.on
                     else "on the CPU"))
            for note in rec.notes:
                if note.startswith("One pass over the training rows"):
                    continue  # the count below, from the same steps as the estimate
                if note.startswith(HEAD_NOTE_START):  # both runs' times at the load the estimate counts on
                    times = run_operations.compared_times(job, rec)
                    if times is None:
                        continue
                    note = head_note(job.method, *times, frozen=bool(job.head_features))
                print(f"note: {note}")
            if reach and run_operations.says_rows_unread(rec, reach):
                print(f"note: these steps read about {reach.data_share:.0%} of the training rows; a larger time "
                      "budget or a GPU trains on all of them")
            if span and span.load_factor > 1:
                from workbench.core.timing import busy_note

                print(f"note: {busy_note(span)}")
            if job.time_budget_s:
                print(f"time budget {format_seconds(job.time_budget_s)}: the run ends there at the latest")
            where = f"on server {args.on} (its worker log is there)" if args.on else f"worker log in {started.log_path}"
            print(f"run {started.run_id}: {where}")
    status = follow_run(started.run_dir, started.proc, args.json)
    return 0 if status in ("completed", "stopped", "running") else 1


def _train_dpo(args: argparse.Namespace, project) -> int:
    """A preference run: a LoRA adapter on top of run ``--from-run`` trained on the judgements."""
    from workbench.core.operations import preference as preference_operations
    from workbench.core.operations import runs as run_operations

    settings = {k: getattr(args, k, None) for k in preference_operations.SETTINGS}
    job, rec, counts = preference_operations.build_dpo_job(
        project, args.from_run, dpo_loss=args.dpo_loss, dpo_beta=args.dpo_beta, time_budget_min=args.time_budget,
        on=args.on, **settings)
    job = run_operations.with_processor_load(job, args.on)
    started = run_operations.start_run(project, job, detach=False, on=args.on)
    if args.json:
        print(json.dumps({"v": 1, "event": "recommendation", "run": started.run_id, **rec.to_dict(),
                          "pairs": counts.to_dict(), "run_estimate_s": job.estimate_s,
                          "run_time_budget_s": job.time_budget_s}, ensure_ascii=False), flush=True)
    else:
        print(f"preference tuning of run {job.from_run} on {counts.pairs} pairs ({job.dpo_loss} loss, beta "
              f"{job.dpo_beta:g}): {job.epochs:g} epochs, learning rate {job.learning_rate:g}, batch {job.batch_size}"
              + (f", about {format_seconds(rec.est_seconds)}" if rec.est_seconds else ""))
        if counts.unpaired_good:
            print(f"note: {counts.unpaired_good} answer(s) rated good have no bad answer to the same question and "
                  "are not used (a pair needs a worse answer to learn from)")
        for note in rec.notes:
            print(f"note: {note}")
        where = f"on server {args.on}" if args.on else f"worker log in {started.log_path}"
        print(f"run {started.run_id}: {where}")
    status = follow_run(started.run_dir, started.proc, args.json)
    report = preference_operations.run_report(project.root, started.run_id) if status == "completed" else None
    if report and report.get("after") and not args.json:
        before, after = report.get("before") or {}, report["after"]
        print(f"held-out pairs: {after['pairs']}; implicit reward prefers the chosen answer in "
              f"{after['preference_accuracy']:.0%} (before: {before.get('preference_accuracy', 0.5):.0%}, a tie); "
              f"likelihood prefers it in {before.get('likelihood_accuracy', float('nan')):.0%} before, "
              f"{after['likelihood_accuracy']:.0%} after")
    return 0 if status in ("completed", "stopped", "running") else 1


def cmd_runs(args: argparse.Namespace) -> int:
    from workbench.core.project import Project
    from workbench.core.runs import list_runs

    project = Project.open(args.project)
    if args.delete:
        from workbench.core.operations import runs as run_operations

        freed = run_operations.delete_run(project, args.delete)
        if args.json:
            print_json({"deleted": args.delete, "freed_bytes": freed})
        else:
            print(f"deleted run {args.delete} ({freed / 2**20:.0f} MB freed)")
        return 0
    from workbench.core.operations import runs as run_operations

    for run_id in run_operations.refresh_remote(project):  # runs on servers catch up first
        print(f"note: the server of run {run_id} cannot be reached; its last known state is shown", file=sys.stderr)
    runs = list_runs(project.root)
    if args.json:
        print_json({"runs": [r.to_dict() for r in runs]})
        return 0
    if not runs:
        print("no runs yet")
    for r in runs:
        loss = f"{r.last_loss:.4f}" if r.last_loss is not None else "-"
        metrics = " ".join(f"{k} {v:.3f}" for k, v in r.metrics.items())
        where = f" on {r.server}" if r.server else ""
        print(f"{r.id:<28} {r.status + where:<10} data {r.data_version or '-':<12} step {r.last_step}/"
              f"{r.total_steps or '?'} loss {loss} checkpoint {r.last_checkpoint or '-'} {metrics}")
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    from workbench.core.operations import runs as run_operations
    from workbench.core.project import Project

    run_operations.stop_run(run_operations.run_dir_of(Project.open(args.project).root, args.run))
    print(f"asked run {args.run} to save a checkpoint and stop")
    return 0


def add_parser(sub) -> None:
    """``workbench train``, ``runs`` and ``stop``."""
    tr = sub.add_parser("train", help="fine-tune in a background worker process")
    tr.add_argument("--project", required=True)
    tr.add_argument("--base-model", default="builtin:small",
                    help="builtin:tiny, builtin:small (trained from scratch), a local model folder, or a model id")
    tr.add_argument("--method", choices=["lora", "full", "dpo"],
                    help="lora, full, or dpo: preference tuning on the judgements ('workbench feedback') of "
                         "the run given by --from-run")
    tr.add_argument("--from-run", metavar="RUN", help="with --method dpo: the run whose model is tuned")
    tr.add_argument("--dpo-loss", choices=DPO_LOSSES,
                    help="with --method dpo: the preference loss (default: recommended for the pairs, sigmoid, the DPO "
                         f"paper's, or {THUMBS_LOSS} where every pair comes from answers rated good and bad)")
    tr.add_argument("--dpo-beta", type=float, metavar="BETA",
                    help="with --method dpo: how far the tuned model may move from the run's (default: from the "
                         "number of pairs, 0.1-0.2)")
    tr.add_argument("--quantization", choices=["none", "int8", "int4"], default="none")
    g = tr.add_mutually_exclusive_group()
    g.add_argument("--epochs", type=float)
    g.add_argument("--max-steps", type=int)
    tr.add_argument("--time-budget", type=float, metavar="MIN",
                    help="minutes of training the recommended settings may take (default 10; every model and task)")
    tr.add_argument("--learning-rate", type=float)
    tr.add_argument("--batch-size", type=int)
    tr.add_argument("--max-length", type=int)
    tr.add_argument("--eval-steps", type=int)
    tr.add_argument("--eval-rows", type=int, help="validation rows each evaluation reads (default: what fits the time budget for a pretrained model, else all)")
    tr.add_argument("--vocabulary", choices=["project", "full"],
                    help="LoRA on a large vocabulary: train over the project's own tokens (default, faster) or all")
    tr.add_argument("--classify-by", choices=["head", "label-text"],
                    help="classification with a pretrained model: a classification head over the labels, one "
                         "pass per row (default), or the model writing the label's name")
    tr.add_argument("--head-pooling", choices=["last", "mean"],
                    help="what the classification head reads: the mean over the text's tokens (default) or its "
                         "last token (the default with --no-head-features)")
    tr.add_argument("--head-depth", type=float, metavar="SHARE",
                    help="the share of the pretrained model's layers the classification head reads, the first "
                         "ones (default 0.5; all with --no-head-features); fewer layers train and answer faster")
    tr.add_argument("--head-features", action=argparse.BooleanOptionalAction, default=None,
                    help="first fit the classification head on the frozen model's states (one pass over the "
                         "rows, bounded by the time budget: a complete model in minutes), then train LoRA from it "
                         "(default; --no-head-features: LoRA alone, from the last token)")
    tr.add_argument("--head-linear", action=argparse.BooleanOptionalAction, default=None,
                    help="with --head-features: mix into the head's answer a linear part over the text's token "
                         "n-grams, its share chosen on the validation rows (default)")
    tr.add_argument("--recompute", action="store_true", default=None,
                    help="recompute each layer in the backward pass: far less memory, about 1.5x the time "
                         "(chosen for you when even one row a step would not fit)")
    tr.add_argument("--save-steps", type=int)
    tr.add_argument("--save-total-limit", type=int, metavar="N",
                    help="checkpoints kept (default 3; the best one is never removed)")
    tr.add_argument("--logging-steps", type=int)
    tr.add_argument("--seed", type=int)
    tr.add_argument("--device", help="auto, cpu, gpu, gpu:N or a custom device type")
    tr.add_argument("--allow-pickle", action="store_true", help="allow pickle-based weight files (only if you trust them)")
    tr.add_argument("--resume", metavar="RUN", help="resume this run from its last checkpoint")
    tr.add_argument("--checkpoint", help="with --resume: the checkpoint folder to resume from")
    tr.add_argument("--on", metavar="SERVER", help="train on this registered server (workbench targets) instead "
                                                   "of this computer; its events are mirrored here")
    tr.add_argument("--json", action="store_true", help="print the events as JSON lines")
    tr.set_defaults(func=cmd_train)


    rn = sub.add_parser("runs", help="list a project's runs and their status")
    rn.add_argument("--project", required=True)
    rn.add_argument("--delete", metavar="RUN", help="delete this run's folder (not while it trains; exports stay)")
    rn.add_argument("--json", action="store_true")
    rn.set_defaults(func=cmd_runs)

    st = sub.add_parser("stop", help="ask a running run to checkpoint and stop")
    st.add_argument("--project", required=True)
    st.add_argument("run")
    st.set_defaults(func=cmd_stop)
