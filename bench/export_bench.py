"""Exported model speed: the Paddle Inference static predictor against the eager model.

Side by side in one run, on the same inputs (real prompts of the test split):

* latency, one sample at a time: the static predictor (as predict.py runs it on a CPU:
  oneDNN where the export's parity check allowed it) against the eager forward of the
  same scoring layer, and against the engine's own ``classify()`` path;
* throughput of the exported classifier in samples per second at a few batch sizes;
* generation (an instruction run on the finance_service_qa sample): tokens per second of
  the bundle's own generation loop over the exported model with the key/value cache
  (``Predictor.generate_full`` of bundle_runtime.py) against eager PaddleFormers
  ``generate(use_cache=True)``, greedy, on the same prompts, at 16 and 256 new tokens (the
  end token is ignored on both sides so both generate exactly that many), and whether both
  produce the same tokens;
* a whole export of a pretrained decoder (``--only whole``, default Gemma 3 270M as
  registered with ``workbench models get gemma-3-270m``): a LoRA run of a few steps on the
  medical_qa sample, then ``workbench export`` with its default (the static model), with
  ``--formats static,gguf``, ``gguf``, and the formats asked for on top (``merged``,
  ``static,onnx``), each in a process of its own as the Export page runs it (the process and its children, predict.py's check among them): the wall time of each stage, the
  process's peak memory, and the estimate the Export page shows beforehand.

Targets on CPU: classification static at most 0.6x the eager latency; generation at least
1.0x eager tokens per second at both lengths; the whole export of Gemma 3 270M, static +
GGUF, within 5 minutes on 2 cores; the default export, static + GGUF and GGUF alone under 4 GB
of memory (merged and ONNX are measured against their estimate, with no target).

    python bench/export_bench.py                      # sample data, built-in small model
    python bench/export_bench.py --size tiny --samples 16
    python bench/export_bench.py --project DIR --run RUN   # an existing classification run
    python bench/export_bench.py --only generation        # just the generation figure
    python bench/export_bench.py --only whole [--base-model gemma-3-270m] [--project DIR --run RUN]
    python bench/export_bench.py --smoke                  # builtin:tiny, 4 samples, 16 and 32 new tokens
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.core.operations.export import DEFAULT_FORMATS  # noqa: E402  (core: no paddle)


def _train_sample_run(root: Path, base_model: str, steps: int, template_id: str = "finance_sentiment") -> tuple[Path, str]:
    """A short real run of ``base_model`` on a template's sample (the model the benches measure)."""
    from workbench.core.jobs import JobSpec, write_job
    from workbench.core.project import prepare
    from workbench.core.runs import EventWriter
    from workbench.core.templates import TemplateCatalog
    from workbench.engine.training.trainer import run_training

    template = TemplateCatalog().get(template_id)
    project, _ = prepare(template, template.sample_path, root / template_id)
    job = JobSpec(project=str(project.root), template=template.id, task=template.task.value,
                  base_model=base_model, method="full", max_steps=steps, eval_steps=10_000,
                  save_steps=10_000, logging_steps=1, batch_size=8, max_length=128, device="cpu")
    run_dir = project.runs_dir / "run-bench"
    write_job(run_dir, job)
    events = EventWriter(run_dir)
    status, error = run_training(job, run_dir, events)
    events.emit("end", status=status, error=error)
    events.close()
    if status != "completed":
        raise SystemExit(f"training the bench model failed: {error}")
    return project.root, run_dir.name


def _median_ms(fn, items, repeat: int) -> float:
    times = []
    for x in items:
        for _ in range(repeat):
            t = time.perf_counter()
            fn(x)
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--project")
    ap.add_argument("--run")
    ap.add_argument("--size", default="small", choices=["tiny", "small"], help="built-in model to train")
    ap.add_argument("--steps", type=int, default=2, help="training steps (speed does not depend on them)")
    ap.add_argument("--samples", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=["classification", "generation", "whole"], help="run one part only")
    ap.add_argument("--base-model", default="gemma-3-270m", help="whole: the pretrained model to export")
    ap.add_argument("--prompts", type=int, default=4, help="generation: prompts per length")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, the same code paths (the tests run it)")
    args = ap.parse_args(argv)
    args.lengths = (16, 256)
    if args.smoke:
        args.size, args.samples, args.repeat, args.prompts, args.lengths = "tiny", 4, 1, 1, (16, 32)
    if args.only == "whole":
        return _whole(args)
    if args.only != "generation":
        _classification(args)
    if args.only != "classification":
        _generation(args)
    if args.smoke and not args.only:  # the whole export's code path on the built-in decoder
        args.base_model, args.project, args.run = "builtin:tiny", None, None
        return _whole(args)
    return 0


WHOLE_FORMATS = (DEFAULT_FORMATS, ("static", "gguf"), ("gguf",), ("merged",), ("static", "onnx"))
WHOLE_UNDER_MB = (DEFAULT_FORMATS, ("static", "gguf"), ("gguf",))  # the exports with the memory target
WHOLE_SECONDS, WHOLE_MB = 300, 4096


def _run_measured(cmd: list[str]) -> tuple[int, dict, list[tuple[str, float]], float, float, str]:
    """Run ``cmd`` (a ``--json`` command), sampling its resident memory with its children's:
    exit code, result, (stage, seconds since start) at each new stage, wall seconds, peak MB, stderr."""
    import json
    import subprocess
    import threading

    import psutil

    from workbench.core.progress import parse_progress

    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    peak = [0]
    done = threading.Event()

    def sample():
        ps = psutil.Process(proc.pid)
        while not done.is_set():
            try:
                rss = sum(p.memory_info().rss for p in [ps] + ps.children(recursive=True))
            except psutil.Error:
                rss = 0
            peak[0] = max(peak[0], rss)
            time.sleep(0.05)

    threading.Thread(target=sample, daemon=True).start()
    err: list[str] = []
    threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True).start()
    stages: list[tuple[str, float]] = []
    result: dict = {}
    for line in proc.stdout:
        ev = parse_progress(line)
        if ev is not None:
            if not stages or stages[-1][0] != ev["stage"]:
                stages.append((ev["stage"], time.perf_counter() - t0))
        elif line.startswith("{"):
            try:
                result = json.loads(line)
            except ValueError:
                pass
    code = proc.wait()
    done.set()
    time.sleep(0.1)
    return code, result, stages, time.perf_counter() - t0, peak[0] / 2**20, "".join(err)


def _whole(args) -> int:
    """A whole export of a pretrained decoder's LoRA run, as the Export page runs it."""
    import json

    from workbench.core.operations.export import export_estimate
    from workbench.core.project import prepare
    from workbench.core.templates import TemplateCatalog

    wb = [sys.executable, "-m", "workbench"]
    if args.project and args.run:
        project_dir, run_id = Path(args.project), args.run
    else:
        tmp = Path(tempfile.mkdtemp(prefix="export-bench-whole-"))
        template = TemplateCatalog().get("medical_qa")
        project, _ = prepare(template, template.sample_path, tmp / "medical_qa")
        project_dir = project.root
        print(f"training {args.base_model} for {args.steps} steps on the medical_qa sample ...", flush=True)
        code, result, _, wall, peak, err = _run_measured(
            wb + ["train", "--project", str(project_dir), "--base-model", args.base_model, "--max-steps",
                  str(args.steps), "--batch-size", "4", "--max-length", "128", "--json"])
        runs = sorted(p.name for p in project.runs_dir.iterdir() if (p / "job.json").is_file())
        if code != 0 or not runs:
            print(err[-3000:], file=sys.stderr)
            raise SystemExit(f"training {args.base_model} failed")
        run_id = runs[-1]
        print(f"  trained in {wall:.0f} s, peak {peak:.0f} MB (run {run_id})")
    print(f"\nwhole export of {args.base_model} run {run_id}, {os.cpu_count()} CPU threads "
          f"(targets: static+gguf within {WHOLE_SECONDS} s; the default, static+gguf and gguf under {WHOLE_MB} MB)")
    print(f"  {'formats':<12} {'wall s':>7} {'peak MB':>8} {'estimate MB':>11} {'est/peak':>8}  stages (s from start)")
    met = True
    out_root = Path(tempfile.mkdtemp(prefix="export-bench-whole-out-"))
    for formats in WHOLE_FORMATS[:1] if args.smoke else WHOLE_FORMATS:
        est = export_estimate(project_dir / "runs" / run_id, formats)
        code, result, stages, wall, peak, err = _run_measured(
            wb + ["export", "--project", str(project_dir), "--run", run_id, "--formats", ",".join(formats),
                  "--no-eval", "--json", "--out", str(out_root / "-".join(formats))])
        if code != 0:
            print(err[-3000:], file=sys.stderr)
            raise SystemExit(f"the export ({','.join(formats)}) failed")
        shown = " ".join(f"{s} {t:.0f}" for s, t in stages)
        print(f"  {','.join(formats):<12} {wall:7.1f} {peak:8.0f} {est.memory_mb:11.0f} {est.memory_mb / peak:8.2f}  "
              f"{shown}")
        met = met and (peak <= WHOLE_MB or formats not in WHOLE_UNDER_MB) and (
            formats != ("static", "gguf") or wall <= WHOLE_SECONDS)
        gen = (result.get("checks") or {}).get("generate") or {}
        if gen:
            print(f"    static: logits {gen.get('relative_diff')} of their scale from the trained model's, greedy "
                  f"identical {gen.get('greedy_identical')} of {gen.get('prompts')} prompts")
        gg = (result.get("checks") or {}).get("gguf") or {}
        if gg:
            print(f"    gguf: {gg.get('file')} {gg.get('size_bytes', 0) / 2**20:.0f} MB, logits "
                  f"{gg.get('relative_diff')} of their scale, next token agrees at "
                  f"{100 * (gg.get('argmax_agreement') or 0):.1f} % of positions")
    print(json.dumps({"targets_met": met}))
    return 0


def _generation(args) -> None:
    import paddle

    from workbench.core.trained import resolve_trained_run
    from workbench.engine import examples
    from workbench.engine.export import bundle as export_bundle
    from workbench.engine import families
    from workbench.engine.models import loading
    from workbench.engine.inference.trained import load_trained, system_prompt

    loading.set_library_log_level("ERROR")
    tmp = Path(tempfile.mkdtemp(prefix="export-bench-gen-"))
    print(f"training builtin:{args.size} for {args.steps} steps on the finance_service_qa sample ...", flush=True)
    project_dir, run_id = _train_sample_run(tmp, f"builtin:{args.size}", args.steps, "finance_service_qa")
    trained = resolve_trained_run(project_dir, run_id)
    out = tmp / "bundle"
    export_bundle.export_run(project_dir, run_id, out, formats=["static"], evaluate=False, check_script=False)
    sys.path.insert(0, str(out))
    from bundle_runtime import Predictor

    pred = Predictor(str(out), device="cpu")  # as predict.py runs it: the bundle's own thread choice
    one_thread = Predictor(str(out), device="cpu", threads=1)
    every_core = Predictor(str(out), device="cpu", threads=os.cpu_count())
    for p in (pred, one_thread, every_core):
        p.bundle["eos_ids"] = []  # exactly the asked number of tokens, as eos_token_id=-1 does for generate()
    spec = trained.project.task
    model, tokenizer = load_trained(trained)
    records = examples.read_jsonl(trained.project.split_path("test"))[: args.prompts]
    prompts = examples.build_prompts(tokenizer, records, system=system_prompt(spec), user_format=spec.user_format)
    max_pos = int(model.config.max_position_embeddings)
    gen = pred.bundle["checks"]["generate"]
    print()
    print(f"generation: {trained.job.base_model} ({families.model_family(model.config)}), greedy, {len(records)} prompts, "
          f"exported model on {pred.device}, {os.cpu_count()} CPU threads; the bundle's step threads: "
          f"{gen.get('threads') or 'all cores'} (timed at export: "
          + ", ".join(f"{k[3:].replace('_', ' ')} {v} ms" for k, v in gen.items() if k.startswith("ms_")) + ")")
    print(f"  {'new tokens':>10}  {'exported tok/s':>14}  {'one thread':>10}  {'all cores':>9}  {'eager tok/s':>11}  "
          f"{'ratio':>6}  "
          f"{'first token ms (exported / eager)':>33}  same tokens")
    ratios = {}
    for n_new in args.lengths:
        ids_list = [examples._shrink_prompt(examples.encode_prompt(tokenizer, p), max(8, min(trained.job.max_length, max_pos - n_new)))
                    for p in prompts]
        # predict.py's loop takes the record, so hand it the exact prompt ids
        mine, one, cores, theirs, same, first_mine, first_theirs = 0.0, 0.0, 0.0, 0.0, 0, [], []
        for p in (pred, one_thread, every_core):
            _generate_ids(p, ids_list[0], 2)  # warm-up
        for ids in ids_list:
            with paddle.no_grad():
                x = paddle.to_tensor([ids], dtype="int64")
                model.generate(input_ids=x, attention_mask=paddle.ones_like(x), max_new_tokens=2,
                               decode_strategy="greedy_search", use_cache=True, eos_token_id=-1)
                t = time.perf_counter()
                model.generate(input_ids=x, attention_mask=paddle.ones_like(x), max_new_tokens=1,
                               decode_strategy="greedy_search", use_cache=True, eos_token_id=-1)
                first_theirs.append(time.perf_counter() - t)
                t = time.perf_counter()
                ref = model.generate(input_ids=x, attention_mask=paddle.ones_like(x), max_new_tokens=n_new,
                                     decode_strategy="greedy_search", use_cache=True, eos_token_id=-1)[0]
                theirs += time.perf_counter() - t
            ref_ids = ref.numpy()[0].tolist()
            t = time.perf_counter()
            got, first = _generate_ids(pred, ids, n_new)
            mine += time.perf_counter() - t
            first_mine.append(first)
            t = time.perf_counter()
            _generate_ids(one_thread, ids, n_new)
            one += time.perf_counter() - t
            t = time.perf_counter()
            _generate_ids(every_core, ids, n_new)
            cores += time.perf_counter() - t
            same += int(got == ref_ids)
        total = n_new * len(ids_list)
        ratios[n_new] = ratio = (total / mine) / (total / theirs)
        first = f"{statistics.median(first_mine) * 1000:.1f} / {statistics.median(first_theirs) * 1000:.1f}"
        print(f"  {n_new:>10}  {total / mine:>14.1f}  {total / one:>10.1f}  {total / cores:>9.1f}  {total / theirs:>11.1f}  "
              f"{ratio:>6.2f}  "
              f"{first:>33}  {same}/{len(ids_list)}")
    print("  ratio exported / eager: " + ", ".join(f"{r:.2f} at {n} new tokens" for n, r in ratios.items())
          + f"   (target >= 1.0 at both: {'met' if min(ratios.values()) >= 1.0 else 'NOT met'})")


def _generate_ids(pred, prompt_ids, n_new):
    """The bundle's cached loop (as generate_full runs it) on given prompt ids, greedy; and the
    seconds to the first token (the prompt's own step)."""
    import numpy as np

    steps = pred._cached_steps(list(prompt_ids))
    out, first = [], 0.0
    for _ in range(n_new):
        t = time.perf_counter()
        logits = steps.send(out[-1] if out else None)
        first = first or time.perf_counter() - t
        out.append(int(np.argmax(logits)))
    return out, first


def _classification(args) -> None:
    import numpy as np
    import paddle

    from workbench.core.trained import resolve_trained_run
    from workbench.engine.models import char_classifier
    from workbench.engine import examples
    from workbench.engine.export import bundle as export_bundle
    from workbench.engine.export import graphs, static_graph
    from workbench.engine import families
    from workbench.engine.models import loading
    from workbench.engine.inference.trained import load_trained, system_prompt

    loading.set_library_log_level("ERROR")
    tmp = Path(tempfile.mkdtemp(prefix="export-bench-"))
    if args.project and args.run:
        project_dir, run_id = Path(args.project), args.run
    else:
        print(f"training builtin:{args.size} for {args.steps} steps on the finance_sentiment sample ...", flush=True)
        project_dir, run_id = _train_sample_run(tmp, f"builtin:{args.size}", args.steps)
    trained = resolve_trained_run(project_dir, run_id)
    task = trained.spec  # the run's own task: its labels and prompt
    if task.task.value != "classification":
        raise SystemExit("this bench measures a classification run")

    out = tmp / "bundle"
    t = time.perf_counter()
    res = export_bundle.export_run(project_dir, run_id, out, formats=["static"], evaluate=False, check_script=False)
    export_s = time.perf_counter() - t
    onednn = res["checks"]["static"]["onednn_used"]

    model, tokenizer = load_trained(trained)
    records = examples.read_jsonl(trained.project.split_path("test"))[: args.samples]
    system, user_format = examples.prompt_spec(model, system_prompt(task), task.user_format, task.input_roles)
    prompts = examples.build_prompts(tokenizer, records, system=system, user_format=user_format)
    labels = list(task.labels)
    max_length = trained.job.max_length
    if char_classifier.is_classifier(model):  # a classification head (the built-in classifier): one pass, no label scoring
        label_len, eager = 0, graphs._head_probs_layer(model)
        engine = lambda p: examples.head_probabilities(model, tokenizer, [p], max_length=max_length)  # noqa: E731
    else:
        _, label_len = graphs.label_table(tokenizer, labels)
        eager = graphs._label_scorer_layer(model, tokenizer, labels)
        engine = lambda p: examples.label_log_likelihoods(model, tokenizer, [p], labels, max_length=max_length)  # noqa: E731
    singles = [b for b in graphs.batches_for_classification(tokenizer, prompts, max_length, label_len, batch_size=1)]

    eager.eval()
    predictor = static_graph.create_predictor(out / "static" / "model", onednn=onednn)
    for x in singles[:2]:  # warm-up
        static_graph.run_predictor(predictor, x)
        static_graph.run_eager(eager, x)
    # the same answers first
    diff = static_graph.max_abs_diff([static_graph.run_eager(eager, x) for x in singles], [static_graph.run_predictor(predictor, x) for x in singles])

    static_ms = _median_ms(lambda x: static_graph.run_predictor(predictor, x), singles, args.repeat)
    plain = static_graph.create_predictor(out / "static" / "model", onednn=False)
    for x in singles[:2]:
        static_graph.run_predictor(plain, x)
    plain_ms = _median_ms(lambda x: static_graph.run_predictor(plain, x), singles, args.repeat)
    eager_ms = _median_ms(lambda x: static_graph.run_eager(eager, x), singles, args.repeat)
    engine_ms = _median_ms(engine, prompts, 1)

    n_params = sum(int(np.prod(p.shape)) for p in model.parameters())
    print()
    print(f"model: {trained.job.base_model} ({families.model_family(model.config)}, {n_params / 1e6:.2f}M parameters), "
          f"{len(labels)} labels, {len(singles)} test prompts, paddle {paddle.__version__}, "
          f"{os.cpu_count()} CPU threads, "
          f"static on {'cpu+onednn' if onednn else 'cpu'}; export took {export_s:.1f} s, "
          f"static vs eager max_abs_diff {diff:.2g}")
    print()
    print("latency, batch 1 (median ms per sample)")
    print(f"  static predictor        {static_ms:8.2f}")
    print(f"  static, no oneDNN       {plain_ms:8.2f}")
    print(f"  eager, same layer       {eager_ms:8.2f}")
    print(f"  eager, engine classify  {engine_ms:8.2f}")
    ratio = static_ms / eager_ms
    print(f"  ratio static / eager    {ratio:8.3f}   (target <= 0.6: {'met' if ratio <= 0.6 else 'NOT met'})")
    print(f"  ratio static / engine   {static_ms / engine_ms:8.3f}")
    print()
    print("throughput of the exported classifier (samples/s)")
    for bs in (1, 8, 32):
        batches = graphs.batches_for_classification(tokenizer, prompts, max_length, label_len, batch_size=bs)
        t = time.perf_counter()
        for _ in range(args.repeat):
            for b in batches:
                static_graph.run_predictor(predictor, b)
        secs = (time.perf_counter() - t) / args.repeat
        t = time.perf_counter()
        for b in batches:
            static_graph.run_eager(eager, b)
        eager_secs = time.perf_counter() - t
        print(f"  batch {bs:>2}: static {len(prompts) / secs:8.1f}   eager {len(prompts) / eager_secs:8.1f}")


if __name__ == "__main__":
    raise SystemExit(main())
