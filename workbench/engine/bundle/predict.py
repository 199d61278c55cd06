#!/usr/bin/env python
"""Stand-alone predictor for this exported model bundle.

Needs only paddlepaddle (or paddlepaddle-gpu), tokenizers and numpy (requirements.txt).
Everything it needs to know about the model (task, labels, prompt format, special
tokens, maximum length) is in bundle.json beside it; the model code is in
bundle_runtime.py, which serve.py (the HTTP service) shares.

    python predict.py "text to classify or question to answer"
    python predict.py --input file.csv --output predictions.csv
    python predict.py --json "text"                     # machine-readable output
    python predict.py --device cpu "text"               # auto (default), cpu or gpu

On a machine where Paddle finds a CUDA GPU the model runs there (through TensorRT when
this Paddle build has it; switch that off with --no-tensorrt); otherwise on the CPU, with
oneDNN where bundle.json says "onednn": true (the export checked it was as exact, and
faster). Classification: the static model takes token ids and returns the probability
of each label. Instruction models: the static model returns next-token logits and the
generation loop in bundle_runtime.py turns them into an answer.

Input file: a table of text in UTF-8, GB18030 or UTF-16 (CSV, TSV, or any text file whatever
its suffix: .txt, .dat, .data or none), JSON or JSONL, or Excel (.xlsx, with openpyxl installed). One column per prompt field named as in bundle.json "fields" (e.g.
"text", or "instruction" and "input"), or as in the project's data ("columns" in
bundle.json); a file with a single column is read as the main field. The file is cut into
rows by the workbench's own rules (io_sniff.py, io_header.py): a text file that starts as
JSON does is JSON; a text file without a delimiter not named .csv or .tsv holds one text per
line, commas and all; a first line that is already data is kept as a
row (the columns are then col1, col2, ...); a file without data rows is refused (exit 2).
The output is the file's columns as read, then prediction (classification: confidence and
p_<label> too); where the file already has a column of that name it is kept, and the new
one is prediction_1 (prediction_2, ...), as the workbench's own predict names it.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bundle_runtime import LABEL_SET_JOINER, InputError, Predictor, added_column, read_records  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("text", nargs="?", help="one input text")
    p.add_argument("--input", help="file to predict (CSV, TSV or another text table, JSON, JSONL or Excel)")
    p.add_argument("--output", help="CSV file to write (default: print)")
    p.add_argument("--sheet", help="the Excel sheet to read (default: the first)")
    p.add_argument("--device", default="auto", choices=["auto", "cpu", "gpu"])
    p.add_argument("--variant", default="static", help="static (default) or int8 where the bundle has it")
    p.add_argument("--no-tensorrt", action="store_true")
    p.add_argument("--threads", type=int)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--max-new-tokens", type=int)
    p.add_argument("--sample", action="store_true", help="sample instead of greedy decoding")
    p.add_argument("--temperature", type=float, default=0.7)
    p.add_argument("--top-p", type=float, default=0.9)
    p.add_argument("--seed", type=int)
    p.add_argument("--repetition-penalty", type=float,
                   help="lower the odds of tokens already in the answer (1 = none; default: the bundle's)")
    p.add_argument("--no-repeat-ngram", type=int,
                   help="never repeat a run of this many tokens (0 = allow; default: the bundle's)")
    p.add_argument("--json", action="store_true", help="print JSON")
    args = p.parse_args(argv)
    if not args.text and not args.input:
        p.error("give a text or --input FILE")
    try:
        return run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def run(args):
    rows = records = None
    if args.input:  # a bad file is refused before the model loads
        from bundle_runtime import load_bundle

        rows, records = read_records(args.input, load_bundle(), sheet=args.sheet)
    pred = Predictor(device=args.device, variant=args.variant, tensorrt=not args.no_tensorrt, threads=args.threads)
    gen = dict(max_new_tokens=args.max_new_tokens, mode="sample" if args.sample else "greedy",
               temperature=args.temperature, top_p=args.top_p, seed=args.seed,
               repetition_penalty=args.repetition_penalty, no_repeat_ngram=args.no_repeat_ngram)

    if records is None:
        start = time.perf_counter()
        if pred.task == "classification":
            label, probs = pred.classify([args.text])[0]
            ms = (time.perf_counter() - start) * 1000
            key = "labels" if pred.multi_label else "label"
            if args.json:
                print(json.dumps({key: label, "probabilities": probs, "device": pred.device, "ms": round(ms, 2)},
                                 ensure_ascii=False))
            else:
                print(LABEL_SET_JOINER.join(label) if pred.multi_label else label)
                print("  " + "  ".join(f"{k} {v:.3f}" for k, v in probs.items()), file=sys.stderr)
        else:
            stream = None if args.json else (lambda s: (sys.stdout.write(s), sys.stdout.flush()))
            answer = pred.generate(args.text, stream=stream, **gen)
            ms = (time.perf_counter() - start) * 1000
            if args.json:
                print(json.dumps({"answer": answer, "device": pred.device, "ms": round(ms, 2)}, ensure_ascii=False))
            else:
                print()
        return 0

    out_rows = []
    # the columns this adds, named apart from the file's own (a 'prediction' column of the
    # user's is kept; the model's is then 'prediction_1'), as 'workbench predict' names them
    taken = {str(k) for row in rows[:1] for k in row}
    prediction = added_column("prediction", taken)
    if pred.task == "classification":
        confidence = None if pred.multi_label else added_column("confidence", taken)
        p_cols = {k: added_column(f"p_{k}", taken) for k in pred.labels}
        for row, (label, probs) in zip(rows, pred.classify(records, batch_size=args.batch_size)):
            if pred.multi_label:  # the label set in one cell; each label's probability in its own column
                out = dict(row, **{prediction: LABEL_SET_JOINER.join(label)})
            else:
                out = dict(row, **{prediction: label, confidence: round(max(probs.values()), 6)})
            out.update({p_cols[k]: round(v, 6) for k, v in probs.items()})
            out_rows.append(out)
    else:
        for row, rec in zip(rows, records):
            out_rows.append(dict(row, **{prediction: pred.generate(rec, **gen)}))
    if args.json and not args.output:
        print(json.dumps(out_rows, ensure_ascii=False, indent=1))
        return 0
    if args.output:
        tmp = f"{args.output}.partial"
        with open(tmp, "w", encoding="utf-8-sig", newline="") as fh:
            _write_csv(fh, out_rows)
        os.replace(tmp, args.output)
        print(f"{len(out_rows)} rows written to {args.output} ({pred.device})", file=sys.stderr)
    else:
        _write_csv(sys.stdout, out_rows)
    return 0


def _write_csv(fh, rows):
    if rows:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    raise SystemExit(main())
