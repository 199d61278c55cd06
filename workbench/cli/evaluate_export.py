"""``workbench eval``, ``export``, ``playground`` and ``predict``: what is done with a trained run."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from workbench.cli.common import StdoutToStderr, engine_work, format_metric, print_json, quiet_engine_imports
from workbench.core.errors import WorkbenchError


def _eval_rows(value: str) -> int:
    """``--rows``: a count of rows, or "all" (0, as ``--limit 0``)."""
    if value.strip().lower() == "all":
        return 0
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of rows or 'all'") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} rows: give 1 or more, or 'all'")
    return n


def cmd_eval(args: argparse.Namespace) -> int:
    from workbench.core.trained import eval_files, no_base_comparison, resolve_trained_run

    trained = resolve_trained_run(args.project, args.run, args.checkpoint)  # bad input fails before paddle loads
    if args.compare_base is None:
        args.compare_base = no_base_comparison(trained.run_dir) is None
    if trained.note and not args.json:
        print(f"note: {trained.note}", file=sys.stderr)
    with engine_work(args.json) as progress:
        from workbench.engine.evaluation.evaluate import evaluate_run

        result = evaluate_run(args.project, args.run, checkpoint=args.checkpoint, compare_base=args.compare_base,
                              split=args.split,
                              device=args.device, max_new_tokens=args.max_new_tokens, limit=args.limit,
                              progress=progress)
    files = eval_files(trained.run_dir)
    if args.json:
        print_json({**{k: v for k, v in result.items() if k not in ("best", "worst")},
                     "files": {p.name: str(p) for p in files.values()}})
        return 0
    m, base, baseline = result["metrics"], result.get("base"), result.get("baseline")
    keys = (["accuracy", "macro_f1"] if result["task"] == "classification" else ["rouge_l", "bleu", "exact_match"]) \
        + ["eval_loss", "perplexity"]
    if m.get("multi_label"):
        keys = ["micro_f1", "macro_f1", "subset_accuracy", "hamming_loss", "eval_loss"]
    print(f"run {result['run']} ({result['source']}) on {result['rows']} '{result['split']}' samples:")
    print(f"  {'metric':<14}{'fine-tuned':>12}" + (f"{'base':>12}" if base else "")
          + (f"{'baseline':>12}" if baseline else ""))
    for k in keys:
        print(f"  {k:<14}{format_metric(m.get(k)):>12}" + (f"{format_metric(base.get(k)):>12}" if base else "")
              + (f"{format_metric(baseline.get(k)):>12}" if baseline else ""))
    pref = result.get("preference")
    if pref:  # a preference run: its base is the run it tuned
        print(f"held-out pairs: {pref['heldout_pairs']} (base: run {pref['from_run']})")
        for k in ("preference_accuracy", "likelihood_accuracy"):
            print(f"  {k:<20}{format_metric(pref['tuned'][k]):>12}{format_metric(pref['base'][k]):>12}")
    if (baseline or {}).get("comparison"):
        print(baseline["comparison"]["sentence"])
    if (m.get("answer_budget") or {}).get("note"):  # answers shortened to fit the training length
        print(f"note: {m['answer_budget']['note']}")
    if m.get("multi_label"):
        tuning = m.get("threshold_tuning") or {}
        print(f"  threshold {m['threshold']:.2f}" + (f" (best macro-F1 on {tuning['val_rows']} validation rows)"
                                                   if tuning.get("tuned_on") else ""))
    for lab, v in (m.get("per_class") or {}).items():
        print(f"  {lab}: precision {v['precision']:.3f} recall {v['recall']:.3f} f1 {v['f1']:.3f} ({v['support']})")
    for p in (m.get("confused_pairs") or [])[:5]:
        how = "along with" if p.get("kind") == "along" else "instead of"
        print(f"  {p['predicted']} given {how} {p['true']}: {p['rows']} rows")
    print(f"report      {files['report']}")
    print(f"predictions {files['predictions']}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from workbench.core.project import Project
    from workbench.core.trained import resolve_trained_run

    project = Project.open(args.project)
    trained = resolve_trained_run(project, args.run, args.checkpoint)
    from workbench.core.operations.export import DEFAULT_FORMATS

    formats = [f.strip() for f in (args.formats or ",".join(DEFAULT_FORMATS)).split(",") if f.strip()]
    quiet_engine_imports()
    from workbench.engine.export.bundle import FORMATS, check_out_dir

    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise WorkbenchError(f"--formats: unknown format(s) {', '.join(unknown) or '(none)'}; "
                             f"choose from {', '.join(FORMATS)}, separated by commas.")
    out = Path(args.out) if args.out else project.exports_dir / trained.run_id
    check_out_dir(out)
    if trained.note and not args.json:
        print(f"note: {trained.note}", file=sys.stderr)
    from workbench.core.operations.export import export_estimate

    need = export_estimate(trained.run_dir, formats, int8=args.int8)
    if not args.json:
        print(f"this export needs about {need.memory_mb / 1024:.1f} GB of memory"
              + (f"; {need.available_mb / 1024:.1f} GB is available now" if need.available_mb is not None else ""),
              file=sys.stderr)
    if not need.fits:
        print(f"warning: the export may run out of memory: it needs about {need.memory_mb / 1024:.1f} GB and "
              f"{need.available_mb / 1024:.1f} GB is available. Close other programs, or export fewer "
              "formats.", file=sys.stderr)
    from workbench.core.progress import ProgressReporter
    from workbench.engine.export.bundle import export_run

    with ProgressReporter(args.json) as progress, StdoutToStderr():
        result = export_run(project.root, args.run, out, checkpoint=args.checkpoint, formats=formats, int8=args.int8,
                            gguf_type=args.gguf_type, wheelhouse=args.wheelhouse, target=args.target_platform,
                            evaluate=not args.no_eval, progress=progress)
    if args.json:
        print_json(result)
        return 0
    print(f"exported run {result['run']} ({result['source']}) to {result['out']}")
    for fmt, info in result["formats"].items():
        diff = info.get("max_abs_diff")
        shown = f"max_abs_diff {diff:.3g}" if isinstance(diff, float) else ""
        print(f"  {fmt:<8}{info['status']:<8}{shown}" + (f"  {info['reason']}" if info.get("reason") else ""))
    if result.get("int8"):
        q = result["int8"]
        change = (f"accuracy change {q['accuracy_change']:+.4f}" if "accuracy_change" in q
                  else f"loss {q['eval_loss_fp32']:.4f} -> {q['eval_loss_int8']:.4f}")
        print(f"  int8    ok      {change}, {q['size_mb_fp32']} MB -> {q['size_mb_int8']} MB")
    script = result.get("predict_script") or {}
    if script.get("status") == "failed":  # e.g. both sides answered nothing: the comparison proved nothing
        print(f"  predict.py failed  {script.get('reason', '')}")
    lat = result.get("latency") or {}
    if lat:
        print(f"  latency static {lat['static_ms']:.2f} ms vs eager {lat['eager_ms']:.2f} ms per sample "
              f"({lat['device']})")
    req = (result.get("checks") or {}).get("requirements") or {}
    if req:
        wh = req.get("wheelhouse")
        print(f"  requirements.lock  {req['packages']} packages for {req.get('target_title', 'this computer')}, "
              + ("with hashes" if req["hashes"] else f"no hashes ({req['reason']})")
              + (f"; wheels/ {wh['wheels']} wheels, {wh['size_mb']} MB, install checked offline" if wh else ""))
    # the built application runs scripts itself: it has no separate python
    runner = Path(sys.executable).name if getattr(sys, "frozen", False) else "python"
    if (Path(result["out"]) / "predict.py").is_file():
        print(f"try it: cd {result['out']} && {runner} predict.py \"...\"")
    elif (Path(result["out"]) / "gguf" / "Modelfile").is_file():  # no Paddle Inference model was asked for
        print(f"try it: cd {result['out']}/gguf && ollama create my-model -f Modelfile && ollama run my-model")
    return 0


def cmd_playground(args: argparse.Namespace) -> int:
    from workbench.core.operations.caveats import answers_caveat
    from workbench.core.runs import read_events, summarize
    from workbench.core.trained import resolve_trained_run

    trained = resolve_trained_run(args.project, args.run)
    events = read_events(trained.run_dir)
    caveat = answers_caveat(summarize(trained.run_dir, events), events, trained.spec)
    if caveat is not None:  # the window shows the same above its playground
        print(f"warning: {caveat.sentence()}", file=sys.stderr)
    quiet_engine_imports()
    from workbench.engine.inference.playground import Playground

    with StdoutToStderr():
        pg = Playground(args.project, args.run, device=args.device, base=args.base)
    if pg.trained.note:
        print(f"note: {pg.trained.note}", file=sys.stderr)
    request = {"prompt": args.prompt, "mode": "sample" if args.sample else "greedy",
               "temperature": args.temperature, "top_p": args.top_p, "max_new_tokens": args.max_new_tokens,
               "seed": args.seed}
    for key in ("repetition_penalty", "no_repeat_ngram"):  # absent: the engine's default guards
        if getattr(args, key) is not None:
            request[key] = getattr(args, key)
    open_line = labelled = False  # generated text waits for its line's end; the label line came
    for event in pg.stream(request):
        if args.json:  # one event a line (token, labels, done): the window words them itself
            sys.stdout.write(json.dumps(event, ensure_ascii=False) + "\n")
            sys.stdout.flush()
            continue
        if event["event"] == "token":
            if labelled:  # after the label line, a classifier's answer text is that label again
                continue
            sys.stdout.write(event["text"])
            sys.stdout.flush()
            open_line = open_line or bool(event["text"])
        elif event["event"] == "labels":
            probs = "  ".join(f"{k} {v:.3f}" for k, v in event["probabilities"].items())
            print(("\n" if open_line else "") + f"label: {event['label']}  ({probs})")
            open_line, labelled = False, True
        elif event["event"] == "done":
            if open_line:
                print()
            print(f"[{event['tokens']} tokens, {event['seconds']:.2f} s]", file=sys.stderr)
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    from workbench.core.operations.predict import check_paths
    from workbench.core.trained import resolve_trained_run

    check_paths(args.input, args.output)  # bad input fails before paddle loads
    trained = resolve_trained_run(args.project, args.run)
    if trained.note and not args.json:
        print(f"note: {trained.note}", file=sys.stderr)
    quiet_engine_imports()
    from workbench.core.progress import ProgressReporter
    from workbench.engine.inference.predict import predict_file

    with ProgressReporter(args.json) as progress, StdoutToStderr():
        result = predict_file(args.project, args.run, args.input, args.output, sheet=args.sheet,
                              all_probabilities=args.all_probabilities, max_new_tokens=args.max_new_tokens,
                              device=args.device, progress=progress)
    if args.json:
        print_json(result)
        return 0
    print(f"{result['rows']} rows predicted by run {result['run']} ({result['source']}) -> {result['output']}")
    for label, count in (result.get("labels") or {}).items():
        print(f"  {label}: {count}")
    return 0


def add_parser(sub) -> None:
    """``workbench eval``, ``export``, ``playground`` and ``predict``."""
    ev = sub.add_parser("eval", help="evaluate a run on the test split (metrics, predictions, HTML report)")
    ev.add_argument("--project", required=True)
    ev.add_argument("--run", required=True)
    ev.add_argument("--compare-base", action=argparse.BooleanOptionalAction, default=None,
                    help="also run the base model on the same rows (default: for a pretrained base model, where "
                         "the comparison means something)")
    ev.add_argument("--checkpoint", choices=["best", "last"], default="best",
                    help="the weights with the best validation metric (default) or those of the last step")
    ev.add_argument("--split", default="test", choices=["test", "val", "train"])
    ev.add_argument("--max-new-tokens", type=int, help="instruction tasks: longest generated answer")
    rows = ev.add_mutually_exclusive_group()
    rows.add_argument("--rows", dest="limit", type=_eval_rows, metavar="N|all",
                      help="how many rows of the split to evaluate: N (the split is shuffled, so its first N rows "
                           "are a random sample) or all (default: all, or 100 for instruction tuning, whose "
                           "answers are generated one token at a time)")
    rows.add_argument("--limit", dest="limit", type=int, help="the same as --rows N; 0: all")
    ev.add_argument("--device", default="cpu")
    ev.add_argument("--json", action="store_true")
    ev.add_argument("--on", metavar="SERVER", help="run it on the server the run trained on (its results "
                                                    "come here)")
    ev.set_defaults(func=cmd_eval)

    from workbench.core.operations.export import BUNDLE_TARGETS, DEFAULT_TARGET, IMAGE_PYTHON

    ex = sub.add_parser("export", help="export a run as a verified deployable bundle")
    ex.add_argument("--project", required=True)
    ex.add_argument("--run", required=True)
    ex.add_argument("--out", help="new or empty folder (default: <project>/exports/<run>)")
    ex.add_argument("--checkpoint", choices=["best", "last"], default="best",
                    help="the weights with the best validation metric (default) or those of the last step")
    ex.add_argument("--formats", help="comma-separated: static,merged,onnx,gguf (default: static, the model predict.py and "
                         "serve.py run)")
    ex.add_argument("--gguf-type", choices=["f16", "q8_0", "f32"], default="f16",
                    help="with 'gguf': the type of the GGUF file's matrices (default f16; q8_0 is half the size)")
    ex.add_argument("--int8", action="store_true",
                    help="also export a weight-only int8 model of a language model's linear layers (refused "
                         "for the built-in classifier: it has nothing to quantise)")
    ex.add_argument("--no-eval", action="store_true", help="do not evaluate first (the model card then has no figures)")
    ex.add_argument("--wheelhouse", action="store_true",
                    help="also put the wheels of every package in requirements.lock in wheels/ (for the target "
                         "platform), so the bundle installs with no network there; downloads them once, at export")
    ex.add_argument("--target-platform", choices=list(BUNDLE_TARGETS), default=DEFAULT_TARGET,
                    help="the system requirements.lock's hashes and wheels/ are for (default "
                         f"{DEFAULT_TARGET}: the Docker image's, CPython {IMAGE_PYTHON}; 'this': this computer's)")
    ex.add_argument("--json", action="store_true")
    ex.add_argument("--on", metavar="SERVER", help="run it on the server the run trained on (its results "
                                                    "come here)")
    ex.set_defaults(func=cmd_export)

    pr = sub.add_parser("predict", help="apply a trained run to a new file (CSV, Excel, JSON, ...)")
    pr.add_argument("--project", required=True)
    pr.add_argument("--run", required=True)
    pr.add_argument("--input", required=True, help="any file 'data prepare' reads; the project's column names")
    pr.add_argument("--output", required=True, help="a new .csv or .xlsx file: the input columns plus the prediction")
    pr.add_argument("--sheet", help="Excel sheet to read (default: the first)")
    pr.add_argument("--all-probabilities", action="store_true", help="classification: one column per label")
    pr.add_argument("--max-new-tokens", type=int, help="instruction tasks: longest generated answer")
    pr.add_argument("--device", default="cpu")
    pr.add_argument("--json", action="store_true", help="progress lines, then the result as the last line")
    pr.set_defaults(func=cmd_predict)

    pg = sub.add_parser("playground", help="generate from a prompt with a trained run")
    pg.add_argument("--project", required=True)
    pg.add_argument("--run", required=True)
    pg.add_argument("prompt")
    pg.add_argument("--sample", action="store_true", help="sample instead of greedy decoding")
    pg.add_argument("--temperature", type=float, default=0.7)
    pg.add_argument("--top-p", type=float, default=0.9)
    pg.add_argument("--max-new-tokens", type=int, default=128)
    pg.add_argument("--seed", type=int)
    pg.add_argument("--repetition-penalty", type=float,
                    help="lower the odds of tokens already in the answer (1 = none; on by default)")
    pg.add_argument("--no-repeat-ngram", type=int, help="never repeat a run of this many tokens (0 = allow; on by default)")
    pg.add_argument("--base", action="store_true", help="use the base model instead of the fine-tuned one")
    pg.add_argument("--device", default="cpu")
    pg.add_argument("--json", action="store_true", help="one JSON event a line (token, labels, done)")
    pg.add_argument("--on", metavar="SERVER", help="run it on the server the run trained on (its results "
                                                    "come here)")
    pg.set_defaults(func=cmd_playground)
