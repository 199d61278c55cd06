"""Training throughput through the worker against a plain PaddleFormers loop, side by side.

Both sides train the same model folder, on the same prepared data, with the same batch
size, maximum length, optimizer and schedule, for the same number of steps and the same
batches (the worker's length-grouped order, so that the losses can be compared step by
step). The worker side is the real product path (worker process, PaddleFormers Trainer,
answer-only loss, event callback, its thread setting); the plain side is what plain code
does: the model called with its labels (logits at every position), in fp32, with Paddle's
thread setting left as it is. Tokens are the non-padding tokens of the batches; the first
steps (warm-up) are left out on both sides.

Prints tokens/s of each and their ratio, the floating-point rate each reached against the
machine's fp32 peak, the loss of both over the timed steps, each process's peak memory, and
the padding that length-grouped batches save over random ones on this data (the plain loop
here gets the grouped batches too, so the ratio does not count that saving).

    python bench/train_bench.py                                  # the built-in model, instruction
    python bench/train_bench.py --base-model gemma-3-270m --method lora --steps 12 --max-length 256
    python bench/train_bench.py --input FILE --mapping instruction=ask output=answer ...   # your data
    python bench/train_bench.py --base-model gemma-3-270m --method lora --batch-size 8 --max-length 256 --recompute
    python bench/train_bench.py --classify --template medical_triage --input FILE --mapping text=... label=...
        --base-model gemma-3-270m --method lora --steps 20 --batch-size 8 --max-length 64
                                                                 # the classification head against writing the label
    python bench/train_bench.py --smoke                          # tiny sizes, the same code paths
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from workbench.core.jobs import JobSpec, new_run_id, write_job  # noqa: E402
from workbench.core.project import Project, prepare  # noqa: E402
from workbench.core.runs import launch_worker, read_events  # noqa: E402
from workbench.core.templates import TemplateCatalog  # noqa: E402

WARMUP_STEPS = 2
# fp32 peak of the machine: cores x GHz x 2 FMA units x 16 lanes (AVX-512) x 2 flops; AMD's
# Zen 4 (family 25) runs AVX-512 on 256-bit units, so half that
FP32_FLOPS_PER_CORE_GHZ = 2 * 16 * 2


def fp32_peak_flops() -> float | None:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    mhz = [float(line.split(":")[1]) for line in text.splitlines() if line.startswith("cpu MHz")]
    if not mhz or "avx512f" not in text:
        return None
    per_ghz = FP32_FLOPS_PER_CORE_GHZ
    if "AuthenticAMD" in text and any(line.split(":")[1].strip() == "25" for line in text.splitlines()
                                      if line.startswith("cpu family")):
        per_ghz //= 2
    return len(os.sched_getaffinity(0)) * max(mhz) / 1000 * per_ghz * 1e9


def _features(args, tok, split: str = "train"):
    from workbench.core.templates import TemplateCatalog as Catalog
    from workbench.engine import examples

    template = Catalog().get(args.template)
    records = examples.read_jsonl(Path(args.project) / "data" / f"{split}.jsonl")
    if split == "val":
        records = records[:args.eval_rows]
    return examples.build_features(tok, records, task=template.task.value, system=template.prompt.system.zh,
                            user_format=template.prompt.user, max_length=args.max_length)


def plain_loop(args) -> None:
    """Child process: the same training as the worker, as plain PaddleFormers code."""
    import resource

    import paddle

    from workbench.engine import examples
    from workbench.engine.training import lm_training
    from workbench.engine.models import loading
    from workbench.engine.models import devices
    from workbench.engine import families
    from workbench.engine.models import adapters

    paddle.seed(args.seed)
    device = devices.select_device(args.device)
    paddle.base.core.set_num_threads(1)  # Paddle's own setting: select_device gave the engine's choice
    model, tok = loading.load_model_and_tokenizer(args.model_dir, device=device)
    if args.method == "lora":
        model = adapters.apply_lora(model, families.model_family(model.config))
    feats = _features(args, tok)
    batches = lm_training.length_grouped_batches([len(f["input_ids"]) for f in feats], args.batch_size, args.seed)
    collate = examples.DataCollator(tok.pad_token_id)
    sched = paddle.optimizer.lr.CosineAnnealingDecay(args.lr, T_max=args.steps)
    opt = paddle.optimizer.AdamW(learning_rate=sched, parameters=[p for p in model.parameters() if not p.stop_gradient],
                                 grad_clip=paddle.nn.ClipGradByGlobalNorm(1.0), weight_decay=0.0)
    model.train()
    tokens, t0, losses = 0, None, []
    for step in range(1, args.steps + 1):
        batch = collate([feats[i] for i in batches[(step - 1) % len(batches)]])
        out = model(**batch, return_dict=True)
        loss = out.loss if hasattr(out, "loss") else out[0]
        loss.backward()
        opt.step()
        sched.step()
        opt.clear_grad()
        losses.append(float(loss))  # sync, as the Trainer does when it logs
        if step == WARMUP_STEPS:
            t0 = time.time()
        elif step > WARMUP_STEPS:
            tokens += int(batch["attention_mask"].sum())
    secs = time.time() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # the validation loss after training, as the Trainer's evaluation computes it: batch means
    # weighted by their rows
    model.eval()
    val = _features(args, tok, "val")
    total = 0.0
    with paddle.no_grad():
        for i in range(0, len(val), args.batch_size):
            rows = val[i:i + args.batch_size]
            out = model(**collate(rows), return_dict=True)
            total += float(out.loss if hasattr(out, "loss") else out[0]) * len(rows)
    print(json.dumps({"tokens": tokens, "seconds": secs, "tokens_per_s": tokens / secs, "peak_rss_mb": peak,
                      "losses": losses, "threads": os.environ.get("OMP_NUM_THREADS"),
                      "eval_loss": total / max(len(val), 1)}))


def worker_side(project: Path, args, base_model: str, base_name: str | None, head: bool = False) -> dict:
    template = TemplateCatalog().get(Project.open(project).config.template)
    job = JobSpec(project=str(project), template=template.id, task=template.task.value, base_model=base_model,
                  base_model_name=base_name, method=args.method, max_steps=args.steps, batch_size=args.batch_size,
                  max_length=args.max_length, learning_rate=args.lr, lr_scheduler="cosine", warmup_ratio=0.0,
                  logging_steps=1, eval_steps=10**6, save_steps=10**6, seed=args.seed, device=args.device,
                  eval_rows=args.eval_rows, vocabulary="full" if args.vocabulary == "full" else "project",
                  recompute=args.recompute, head=head)
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
    model_dir = run_dir / "base_model" if base_model.startswith("builtin:") else Path(base_model)
    evals = [e for e in events if e["event"] == "eval"]
    cut = next((e for e in events if e.get("code") == "vocabulary_cut"), None)
    timed_steps = timed[-1][1]["step"] - timed[0][0]["step"]
    return {"tokens": tokens, "seconds": secs, "tokens_per_s": tokens / secs, "losses": [s["loss"] for s in steps],
            "rows_per_s": timed_steps * args.batch_size / secs, "run_dir": str(run_dir),
            "eval_loss": evals[-1]["eval_loss"] if evals else None, "vocabulary": (cut["kept"], cut["full"]) if cut else None,
            "peak_rss_mb": events[-1].get("peak_rss_mb"), "model_dir": str(model_dir),
            "threads": next((e.get("threads") for e in events if e["event"] == "start"), None),
            "fast_blas": next((e.get("fast_blas") for e in events if e["event"] == "start"), None)}


def padding_saving(project: Path, model_dir: str, args) -> tuple[float, float, float, float]:
    """Padding share of random and of length-grouped batches, the answer tokens' share of the
    real tokens, and the mean real tokens a row, on the training split."""
    import random

    from workbench.engine.training import lm_training
    from workbench.engine.models import loading

    args.project = str(project)
    feats = _features(args, loading.load_tokenizer(model_dir))
    lengths = [len(f["input_ids"]) for f in feats]

    def share(batches):
        padded = sum(max(lengths[i] for i in b) * len(b) for b in batches)
        return 1 - sum(lengths) / padded

    order = list(range(len(lengths)))
    random.Random(args.seed).shuffle(order)
    rand = [order[i:i + args.batch_size] for i in range(0, len(order), args.batch_size)]
    answer = sum(sum(1 for x in f["labels"] if x != -100) for f in feats) / max(sum(lengths), 1)
    return share(rand), share(lm_training.length_grouped_batches(lengths, args.batch_size, args.seed)), answer, \
        sum(lengths) / max(len(lengths), 1)


def smoke_model(tmp: Path) -> Path:
    """A tiny random Gemma 3 folder (the tests' factory), for --smoke's pretrained path."""
    sys.path.insert(0, str(ROOT / "tests"))
    from model_factory import make_model_folder

    # a vocabulary large enough for the worker to cut it, as it cuts Gemma 3's
    return make_model_folder("gemma3", tmp / "tiny-gemma3", layout="hf", vocab_size=40000)


def run_case(args, tmp: Path, base_model: str) -> dict:
    from workbench.core.operations.runs import resolve_base_model
    from workbench.core.recommend import decoder_flops_per_token, read_model_config

    folder, name = resolve_base_model(base_model)
    template = TemplateCatalog().get(args.template)
    project = tmp / f"p-{len(list(tmp.iterdir()))}"
    source = Path(args.input) if args.input else template.sample_path
    mapping = dict(m.split("=", 1) for m in args.mapping) if args.mapping else None
    prepare(template, source, project, **({"mapping": mapping} if mapping else {}))
    print(f"{name or folder}, {args.method}, batch {args.batch_size} x {args.max_length}, {args.steps} steps "
          f"({WARMUP_STEPS} warm-up steps not timed), device {args.device}, data {source.name}")
    # the worker chooses its threads unless told (--threads); a parent that imported Paddle has set them
    os.environ.pop("OMP_NUM_THREADS", None)
    if args.threads:
        os.environ["OMP_NUM_THREADS"] = str(args.threads)
    w = worker_side(project, args, folder, name)
    w_full = None
    if args.vocabulary == "both":  # the worker again over the full vocabulary, for the cut's own ratio
        args.vocabulary = "full"
        w_full = worker_side(project, args, folder, name)
        args.vocabulary = "both"
    os.environ.pop("OMP_NUM_THREADS", None)
    cmd = [sys.executable, __file__, "--plain", "--project", str(project), "--model-dir", w["model_dir"],
           *(f"--{k.replace('_', '-')}={getattr(args, k)}" for k in
             ("steps", "batch_size", "max_length", "lr", "method", "template", "device", "seed", "eval_rows"))]
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}  # plain code sets none
    # nor asks MKL for its AVX2 kernels on an AMD processor (an empty value is MKL's default,
    # and importing workbench.engine keeps it: engine/models/devices.py)
    env["MKL_DEBUG_CPU_TYPE"] = ""
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    b = json.loads(out.stdout.strip().splitlines()[-1])
    rand_pad, grouped_pad, answer_share, row_tokens = padding_saving(project, w["model_dir"], args)
    cfg = read_model_config(w["model_dir"])
    peak = fp32_peak_flops()
    sides = [("worker (product path)", w, answer_share), ("plain PaddleFormers loop", b, 1.0)]
    if w_full is not None:
        sides.insert(1, ("worker, full vocabulary", w_full, answer_share))
    for label, r, share in sides:
        vocab = r["vocabulary"][0] if r.get("vocabulary") else None
        flops = decoder_flops_per_token(cfg, args.method, share, vocab) * r["tokens_per_s"] if cfg else None
        rate = f"   {flops / 1e9:6.1f} GFLOP/s" + (f" ({flops / peak:.1%} of the fp32 peak)" if peak else "") \
            if flops else ""
        print(f"{label:<26} {r['tokens_per_s']:9.1f} tokens/s{rate}   peak memory {r['peak_rss_mb']:.0f} MB   "
              f"threads {r['threads'] or 'unset'}" + ("   MKL's AVX2 kernels" if r.get("fast_blas") else ""))
    ratio = w["tokens_per_s"] / b["tokens_per_s"]
    wl, bl = w["losses"][WARMUP_STEPS:], b["losses"][WARMUP_STEPS:]
    gap = abs(sum(wl) - sum(bl)) / max(abs(sum(bl)), 1e-9)
    if w["vocabulary"]:
        kept, full = w["vocabulary"]
        print(f"the worker trained over {kept:,} of {full:,} tokens (the project's own); its training loss is "
              "normalised over those, its validation loss over all")
    print(f"ratio worker / plain: {ratio:.2f}   mean training loss over the timed steps: worker "
          f"{sum(wl) / len(wl):.4f}, plain {sum(bl) / len(bl):.4f} ({gap:.2%} apart)")
    if w_full is not None:
        print(f"cut vocabulary / full vocabulary (the worker both times): {w['tokens_per_s'] / w_full['tokens_per_s']:.2f}x "
              f"tokens/s; validation loss {w['eval_loss']:.4f} against {w_full['eval_loss']:.4f}")
    eval_gap = None
    if w["eval_loss"] is not None and b.get("eval_loss") is not None:
        eval_gap = abs(w["eval_loss"] - b["eval_loss"]) / max(abs(b["eval_loss"]), 1e-9)
        print(f"validation loss after {args.steps} steps ({args.eval_rows} rows, full vocabulary): worker "
              f"{w['eval_loss']:.4f}, plain {b['eval_loss']:.4f} ({eval_gap:.2%} apart)")
    print(f"padding of the batches on this data: random {rand_pad:.1%}, length-grouped {grouped_pad:.1%} "
          f"(a further x{(1 - grouped_pad) / max(1 - rand_pad, 1e-9):.2f} real tokens a step over random batches, "
          f"not in the ratio); answer tokens {answer_share:.0%} of {row_tokens:.0f} a row")
    return {"ratio": ratio, "loss_gap": gap, "eval_loss_gap": eval_gap, "cut": bool(w["vocabulary"])}


def classify_case(args, tmp: Path, base_model: str) -> dict:
    """A classification project trained both ways on the same rows, steps and batch size: the
    classification head (engine/models/decoder_head.py) against the decoder writing the label's name
    after the template's prompt; then each trained model's evaluation speed on the same
    validation rows (one batched pass per row for the head, a pass per label for the other)."""
    from workbench.core.labels import template_choice
    from workbench.core.operations.runs import resolve_base_model
    from workbench.core.trained import resolve_trained_run
    from workbench.engine import examples
    from workbench.engine.inference.classify import classify_with_probs
    from workbench.engine.inference.trained import load_trained

    folder, name = resolve_base_model(base_model)
    template = TemplateCatalog().get(args.template)
    project = tmp / f"p-{len(list(tmp.iterdir()))}"
    source = Path(args.input) if args.input else template.sample_path
    mapping = dict(m.split("=", 1) for m in args.mapping) if args.mapping else None
    labels = template_choice(template).model_copy(update={"source": "data"})
    prepare(template, source, project, labels=labels, **({"mapping": mapping} if mapping else {}))
    labels = Project.open(project).task.labels
    print(f"{name or folder}, {args.method}, batch {args.batch_size} x {args.max_length}, {args.steps} steps "
          f"({WARMUP_STEPS} warm-up steps not timed), {len(labels)} labels, data {source.name}")
    os.environ.pop("OMP_NUM_THREADS", None)
    # the workers' own evaluations on two rows: scoring every label of a row under a 262k vocabulary
    # takes seconds per label on a CPU, and the timed evaluation below is the measure
    eval_rows, args.eval_rows = args.eval_rows, 2
    sides = {"classification head": worker_side(project, args, folder, name, head=True),
             "writing the label": worker_side(project, args, folder, name, head=False)}
    args.eval_rows = eval_rows
    for label, r in sides.items():
        # label writing is timed on two rows (a minute or more each on a CPU): its rate is compared
        val = examples.read_jsonl(project / "data" / "val.jsonl")[:eval_rows if "head" in label else 2]
        run_dir = Path(r["run_dir"])
        trained = resolve_trained_run(Project.open(project), run_dir.name, "last")
        model, tok = load_trained(trained)
        spec = trained.spec
        system, user = examples.prompt_spec(model, spec.system_text("zh"), spec.user_format, spec.input_roles)
        prompts = examples.build_prompts(tok, val, system=system, user_format=user)
        t0 = time.perf_counter()
        classify_with_probs(model, tok, prompts, labels, max_length=args.max_length)
        r["eval_rows_per_s"] = len(prompts) / (time.perf_counter() - t0)
        print(f"{label:<22} training {r['rows_per_s']:7.2f} rows/s ({r['tokens_per_s']:7.1f} tokens/s)   "
              f"evaluation {r['eval_rows_per_s']:7.2f} rows/s on {len(prompts)} rows   peak memory "
              f"{r['peak_rss_mb']:.0f} MB")
    head, text = sides["classification head"], sides["writing the label"]
    ratio, eval_ratio = head["rows_per_s"] / text["rows_per_s"], head["eval_rows_per_s"] / text["eval_rows_per_s"]
    print(f"head / label writing: training x{ratio:.2f} rows/s, evaluation x{eval_ratio:.2f} rows/s")
    return {"train_ratio": ratio, "eval_ratio": eval_ratio}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--method", default="full", choices=["full", "lora"])
    ap.add_argument("--base-model", default="builtin:small", help="builtin:small, a model folder or a registered id")
    ap.add_argument("--template", default="medical_qa")
    ap.add_argument("--input", help="a data file to prepare instead of the template's sample")
    ap.add_argument("--mapping", nargs="*", help="role=column pairs for --input")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--eval-rows", type=int, default=16, help="validation rows both sides are scored on at the end")
    ap.add_argument("--vocabulary", default="project", choices=["project", "full", "both"],
                    help="the worker's vocabulary; both: the worker twice, cut and full, side by side")
    ap.add_argument("--recompute", action="store_true",
                    help="the worker recomputes each layer in the backward pass (its memory against the plain loop's)")
    ap.add_argument("--threads", type=int, help="the worker's compute threads (default: its own choice)")
    ap.add_argument("--classify", action="store_true",
                    help="a classification template: the classification head against writing the label")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, the same code paths (the tests run it)")
    ap.add_argument("--plain", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--project", help=argparse.SUPPRESS)
    ap.add_argument("--model-dir", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.plain:
        plain_loop(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.smoke:
            args.steps, args.batch_size, args.max_length = 4, 4, 64
            results = [run_case(args, tmp, "builtin:tiny")]
            args.method, args.vocabulary, args.recompute = "lora", "both", True  # every product path
            results.append(run_case(args, tmp, str(smoke_model(tmp))))
            # a cut vocabulary normalises the training loss over fewer tokens: the validation
            # loss (full vocabulary on both sides) is the like-for-like figure there
            if not (all(r["ratio"] > 0 and (r["eval_loss_gap"] or 0) < 0.05 for r in results)
                    and results[0]["loss_gap"] < 0.05):
                raise SystemExit(f"the two loops disagree: {results}")
            args.template, args.recompute, args.eval_rows = "finance_sentiment", False, 8
            out = classify_case(args, tmp, str(smoke_model(tmp)))
            if not (out["train_ratio"] > 0 and out["eval_ratio"] > 0):
                raise SystemExit(f"the classification sides did not run: {out}")
            return
        if args.classify:
            classify_case(args, tmp, args.base_model)
            return
        run_case(args, tmp, args.base_model)


if __name__ == "__main__":
    main()
