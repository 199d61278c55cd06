"""Training throughput through the worker against a bare PaddleFormers loop, side by side.

Both sides train the same model folder (the built-in small model, built once), on the
same prepared data, with the same batch size, max length, optimizer and schedule, for the
same number of steps. The worker side is the real product path (worker process,
PaddleFormers Trainer, event callback, VisualDL writer); the bare side is the model and
a plain paddle loop with the same collator. Tokens are the non-padding tokens of the
batches; the first steps (warm-up) are left out on both sides.
Prints tokens/s of each, the ratio (target: at least 0.95) and each process's peak memory.

    python bench/train_bench.py [--steps 60] [--device cpu] [--base-model builtin:small|PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.jobs import JobSpec, new_run_id, write_job  # noqa: E402
from workbench.core.project import Project, prepare  # noqa: E402
from workbench.core.runs import launch_worker, read_events  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402

WARMUP_STEPS = 5


def bare_loop(args) -> None:
    """Child process: the same training as the worker, as a plain paddle loop."""
    import resource

    import paddle

    from workbench.core.templates import TemplateCatalog as Catalog
    from workbench.engine import data as D
    from workbench.engine import models as M

    paddle.seed(args.seed)
    device = M.select_device(args.device)
    template = Catalog().get(args.template)
    model, tok = M.load_model_and_tokenizer(args.model_dir, device=device)
    if args.method == "lora":
        model = M.apply_lora(model, M.model_family(model.config))
    records = D.read_jsonl(Path(args.project) / "data" / "train.jsonl")
    feats = D.build_features(tok, records, task=template.task.value, system=template.prompt.system.zh,
                             user_format=template.prompt.user, max_length=args.max_length)
    collate = D.DataCollator(tok.pad_token_id)
    sched = paddle.optimizer.lr.CosineAnnealingDecay(args.lr, T_max=args.steps)
    opt = paddle.optimizer.AdamW(learning_rate=sched, parameters=[p for p in model.parameters() if not p.stop_gradient],
                                 grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0), weight_decay=0.0)
    model.train()
    order = paddle.randperm(len(feats)).numpy().tolist()
    pos, tokens, t0 = 0, 0, None
    for step in range(1, args.steps + 1):
        if pos + args.batch_size > len(order):
            pos = 0
        batch = collate([feats[i] for i in order[pos:pos + args.batch_size]])
        pos += args.batch_size
        out = model(**batch, return_dict=True)
        loss = out.loss if hasattr(out, "loss") else out[0]
        loss.backward()
        opt.step()
        sched.step()
        opt.clear_grad()
        float(loss)  # sync, as the Trainer does when it logs
        if step == WARMUP_STEPS:
            t0 = time.time()
        elif step > WARMUP_STEPS:
            tokens += int(batch["attention_mask"].sum())
    secs = time.time() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"tokens": tokens, "seconds": secs, "tokens_per_s": tokens / secs, "peak_rss_mb": peak}))


def worker_side(project: Path, args) -> dict:
    template = TemplateCatalog().get(Project.open(project).config.template)
    job = JobSpec(project=str(project), template=template.id, task=template.task.value, base_model=args.base_model,
                  method=args.method, max_steps=args.steps, batch_size=args.batch_size, max_length=args.max_length,
                  learning_rate=args.lr, warmup_ratio=0.0, logging_steps=1, eval_steps=10**6, save_steps=10**6,
                  seed=args.seed, device=args.device)
    run_dir = project / "runs" / new_run_id("bench")
    write_job(run_dir, job)
    launch_worker(run_dir, detach=False).wait()
    events = read_events(run_dir)
    if events[-1].get("status") != "completed":
        raise SystemExit(f"worker run failed: {events[-1]}\n{(run_dir / 'worker.log').read_text()[-3000:]}")
    steps = [e for e in events if e["event"] == "step"]
    # tokens_per_s of each window times the window's length gives the window's tokens
    timed = [(prev, cur) for prev, cur in zip(steps, steps[1:]) if cur["step"] > WARMUP_STEPS]
    tokens = sum(cur["tokens_per_s"] * (cur["t"] - prev["t"]) for prev, cur in timed)
    secs = timed[-1][1]["t"] - timed[0][0]["t"]
    model_dir = run_dir / "base_model" if args.base_model.startswith("builtin:") else Path(args.base_model)
    return {"tokens": tokens, "seconds": secs, "tokens_per_s": tokens / secs,
            "peak_rss_mb": events[-1].get("peak_rss_mb"), "model_dir": str(model_dir)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--method", default="full", choices=["full", "lora"])
    ap.add_argument("--base-model", default="builtin:small")
    ap.add_argument("--template", default="finance_sentiment")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--bare", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--project", help=argparse.SUPPRESS)
    ap.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.bare:
        bare_loop(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        template = TemplateCatalog().get(args.template)
        project = Path(tmp) / "p"
        prepare(template, template.sample_path, project)
        print(f"{args.base_model}, {args.method}, batch {args.batch_size} x {args.max_length}, {args.steps} steps "
              f"({WARMUP_STEPS} warm-up steps not timed), device {args.device}")
        w = worker_side(project, args)
        cmd = [sys.executable, __file__, "--bare", "--project", str(project), "--model-dir", w["model_dir"],
               *(f"--{k.replace('_', '-')}={getattr(args, k)}" for k in
                 ("steps", "batch_size", "max_length", "lr", "method", "template", "device", "seed"))]
        out = subprocess.run(cmd, capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(out.stderr[-3000:])
        b = json.loads(out.stdout.strip().splitlines()[-1])
        for name, r in (("worker (Trainer + events)", w), ("bare paddle loop", b)):
            print(f"{name:<26} {r['tokens_per_s']:9.1f} tokens/s   peak memory {r['peak_rss_mb']:.0f} MB")
        print(f"ratio worker / bare: {w['tokens_per_s'] / b['tokens_per_s']:.3f} (target >= 0.95)")


if __name__ == "__main__":
    main()
