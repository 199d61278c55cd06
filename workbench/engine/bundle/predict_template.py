#!/usr/bin/env python
"""Stand-alone predictor for this exported model bundle.

Needs only paddlepaddle (or paddlepaddle-gpu), tokenizers and numpy (requirements.txt).
Everything it needs to know about the model (task, labels, prompt format, special
tokens, maximum length) is in bundle.json beside it.

    python predict.py "text to classify or question to answer"
    python predict.py --input file.csv --output predictions.csv
    python predict.py --json "text"                     # machine-readable output
    python predict.py --device cpu "text"               # auto (default), cpu or gpu

On a machine where Paddle finds a CUDA GPU the model runs there (through TensorRT when
this Paddle build has it; switch that off with --no-tensorrt); otherwise on the CPU with
oneDNN. Classification: the static model takes token ids and returns the probability
of each label. Instruction models: the static model returns next-token logits and the
generation loop below turns them into an answer.

Input CSV: one column per prompt field named as in bundle.json "fields" (e.g. "text",
or "instruction" and "input"), or as in the original data ("columns" in bundle.json);
a file with a single column is read as the main field.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


class _Blank(dict):
    def __missing__(self, key):
        return ""


def load_bundle(folder=HERE):
    with open(os.path.join(folder, "bundle.json"), encoding="utf-8") as fh:
        return json.load(fh)


class quiet_stdout:
    """Send what Paddle's C++ code prints (oneDNN notes) to stderr, keeping stdout for results."""

    def __enter__(self):
        try:
            sys.stdout.flush()
            self.saved = os.dup(1)
            os.dup2(2, 1)
        except (OSError, ValueError, AttributeError):
            self.saved = None
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            os.dup2(self.saved, 1)
            os.close(self.saved)
        return False


# The text clean-up the training data went through (bundle.json "input_normalization"),
# written out here because this script must run without the workbench installed; a test
# checks it against the workbench's own cleaning steps on the sample data.
_H_SPACE = "\t\x0b\x0c \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
_CJK_PUNCTUATION = "，：；！？（）"


def normalize_text(text, spec):
    import re
    import unicodedata

    if not spec or not text:
        return text
    if spec.get("trim"):
        text = text.strip()
        text = re.sub("\r\n?", "\n", text)
        text = re.sub(f"[{_H_SPACE}]*\n[{_H_SPACE}\n]*", "\n", text)
        text = re.sub(f"[{_H_SPACE}]{{2,}}|[{_H_SPACE.replace(' ', '')}]", " ", text)
    form = spec.get("unicode_form")
    if form:
        if spec.get("keep_cjk_punctuation", True) and form in ("NFKC", "NFKD"):
            text = "".join(c if c in _CJK_PUNCTUATION else unicodedata.normalize(form, c) for c in
                           _split_keep(text))
        else:
            text = unicodedata.normalize(form, text)
    return text


def _split_keep(text):
    """The text in runs that end before and after each kept punctuation mark."""
    out, start = [], 0
    for i, c in enumerate(text):
        if c in _CJK_PUNCTUATION:
            if start < i:
                out.append(text[start:i])
            out.append(c)
            start = i + 1
    if start < len(text):
        out.append(text[start:])
    return out


def clean_up_spaces(text):
    """The clean-up some tokenizers apply after decoding (transformers' rule)."""
    for a, b in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
                 (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re")):
        text = text.replace(a, b)
    return text


class Predictor:
    def __init__(self, folder=HERE, device="auto", variant="static", tensorrt=True, threads=None):
        from tokenizers import Tokenizer

        self.folder = folder
        self.bundle = load_bundle(folder)
        b = self.bundle
        self.task = b["task"]
        self.labels = b.get("labels") or []
        self.tokenizer = Tokenizer.from_file(os.path.join(folder, b["tokenizer"]))
        model = b["models"].get(variant)
        if not model:
            raise SystemExit(f"this bundle has no '{variant}' model; available: {', '.join(b['models'])}")
        self.device = self._make_predictor(os.path.join(folder, model), device, tensorrt, threads)
        self.input_names = self.predictor.get_input_names()

    # ----- Paddle Inference -------------------------------------------------------------
    def _make_predictor(self, prefix, device, tensorrt, threads):
        import paddle
        from paddle import inference

        config = inference.Config(prefix + ".json", prefix + ".pdiparams")
        use_gpu = False
        if device in ("auto", "gpu"):
            try:
                use_gpu = paddle.device.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
            except Exception:
                use_gpu = False
            if device == "gpu" and not use_gpu:
                raise SystemExit("--device gpu: Paddle finds no CUDA GPU here (install paddlepaddle-gpu).")
        used = "cpu"
        if use_gpu:
            config.enable_use_gpu(512, 0)
            used = "gpu"
            if tensorrt and self._tensorrt_available(inference):
                try:
                    self._enable_tensorrt(config, inference)
                    used = "gpu+tensorrt"
                except Exception as exc:  # an older TensorRT or build: plain CUDA is still right
                    print(f"TensorRT not used: {exc}", file=sys.stderr)
        else:
            config.disable_gpu()
            if self.bundle.get("onednn", True):
                config.enable_onednn()
                used = "cpu+onednn"
            config.set_cpu_math_library_num_threads(int(threads or os.cpu_count() or 1))
        config.disable_glog_info()
        with quiet_stdout():
            self.predictor = inference.create_predictor(config)
        return used

    @staticmethod
    def _tensorrt_available(inference):
        try:
            return any(inference.get_trt_compile_version()) and any(inference.get_trt_runtime_version())
        except Exception:
            return False

    def _enable_tensorrt(self, config, inference):
        b = self.bundle
        longest = int(b["max_length"]) + int(b.get("label_length", 0))
        config.enable_tensorrt_engine(workspace_size=1 << 30, max_batch_size=32, min_subgraph_size=3,
                                      precision_mode=inference.PrecisionType.Float32, use_static=False,
                                      use_calib_mode=False)
        names = b["inputs"]
        config.set_trt_dynamic_shape_info({n: [1, 1] for n in names}, {n: [32, longest] for n in names},
                                          {n: [1, min(128, longest)] for n in names})

    def run(self, *arrays):
        for name, array in zip(self.input_names, arrays):
            handle = self.predictor.get_input_handle(name)
            handle.reshape(list(array.shape))
            handle.copy_from_cpu(np.ascontiguousarray(array))
        with quiet_stdout():
            self.predictor.run()
        return self.predictor.get_output_handle(self.predictor.get_output_names()[0]).copy_to_cpu()

    # ----- prompts ------------------------------------------------------------------------
    def user_text(self, record):
        if isinstance(record, str):
            record = {self.bundle["fields"][0]: record}
        norm = self.bundle.get("input_normalization") or {}
        values = _Blank({k: normalize_text("" if v is None else str(v), norm.get(k)) for k, v in record.items()})
        return self.bundle["user_format"].format_map(values).strip()

    def prompt_ids(self, record, budget):
        b = self.bundle
        prompt = b["prompt_prefix"] + self.user_text(record) + b["prompt_suffix"]
        ids = self.tokenizer.encode(prompt, add_special_tokens=False).ids
        bos, bos_id = b.get("bos_token"), b.get("bos_id")
        if bos and bos_id is not None and not prompt.startswith(bos) and (not ids or ids[0] != bos_id):
            ids = [bos_id] + ids
        return shrink(ids, budget, int(b.get("prompt_tail_tokens", 32)))

    # ----- classification ---------------------------------------------------------------------
    def classify(self, records, batch_size=8):
        """[(label, {label: probability})] for each record."""
        b = self.bundle
        budget = max(1, int(b["max_length"]) - int(b["label_length"]))
        out = []
        for start in range(0, len(records), batch_size):
            chunk = [self.prompt_ids(r, budget) for r in records[start:start + batch_size]]
            longest = max(len(x) for x in chunk)
            ids = np.full((len(chunk), longest), int(b["pad_id"]), dtype="int64")
            mask = np.zeros((len(chunk), longest), dtype="int64")
            for i, x in enumerate(chunk):
                ids[i, :len(x)] = x
                mask[i, :len(x)] = 1
            probs = self.run(ids, mask)
            for row in probs:
                k = int(np.argmax(row))
                out.append((self.labels[k], {lab: float(p) for lab, p in zip(self.labels, row)}))
        return out

    # ----- generation -----------------------------------------------------------------------------
    def generate(self, record, max_new_tokens=None, mode="greedy", temperature=0.7, top_p=0.9, seed=None,
                 stream=None):
        b = self.bundle
        n_new = int(max_new_tokens or b.get("max_new_tokens", 128))
        ids = self.prompt_ids(record, max(8, int(b["max_length"]) - n_new))
        limit = b.get("max_position_embeddings")
        if limit:
            n_new = min(n_new, max(int(limit) - len(ids), 0))
        stops = set(b["eos_ids"])
        rng = np.random.default_rng(seed)
        generated, shown = [], ""
        for _ in range(n_new):
            logits = self.run(np.asarray([ids + generated], dtype="int64"))[0, -1].astype("float64")
            if mode == "greedy":
                token = int(np.argmax(logits))
            else:
                x = logits / temperature
                p = np.exp(x - x.max())
                p /= p.sum()
                order = np.argsort(-p)
                keep = order[: int(np.searchsorted(np.cumsum(p[order]), top_p) + 1)]
                token = int(keep[rng.choice(len(keep), p=p[keep] / p[keep].sum())])
            if token in stops:
                break
            generated.append(token)
            if stream is not None:
                text = self.decode(generated)
                if not text.endswith("\ufffd") and text.startswith(shown) and len(text) > len(shown):
                    stream(text[len(shown):])
                    shown = text
        return self.decode(generated).strip()

    def decode(self, ids):
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        return clean_up_spaces(text) if self.bundle.get("clean_up_tokenization_spaces") else text


def shrink(ids, budget, tail_tokens):
    """Cut a long prompt from its middle, keeping its start and its last tokens (as in training)."""
    if len(ids) <= budget:
        return ids
    if budget <= 0:
        return []
    tail = min(tail_tokens, budget // 2)
    return ids[: budget - tail] + (ids[-tail:] if tail else [])


# ----- command line ---------------------------------------------------------------------------------


def read_csv_records(path, fields, columns):
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    if not rows:
        return [], []
    header = list(rows[0].keys())
    by_role = {}
    for role in fields:
        if role in header:
            by_role[role] = role
        elif columns.get(role) in header:
            by_role[role] = columns[role]
    if not by_role:
        if len(header) == 1:
            by_role[fields[0]] = header[0]
        else:
            raise SystemExit(f"{path}: no column named {' / '.join(fields)} "
                             f"(or {' / '.join(c for c in columns.values() if c)}); columns are {', '.join(header)}")
    records = [{role: row.get(col) or "" for role, col in by_role.items()} for row in rows]
    return rows, records


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("text", nargs="?", help="one input text")
    p.add_argument("--input", help="CSV file to predict")
    p.add_argument("--output", help="CSV file to write (default: print)")
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
    p.add_argument("--json", action="store_true", help="print JSON")
    args = p.parse_args(argv)
    if not args.text and not args.input:
        p.error("give a text or --input FILE")

    pred = Predictor(device=args.device, variant=args.variant, tensorrt=not args.no_tensorrt, threads=args.threads)
    b = pred.bundle
    gen = dict(max_new_tokens=args.max_new_tokens, mode="sample" if args.sample else "greedy",
               temperature=args.temperature, top_p=args.top_p, seed=args.seed)

    if args.text is not None and not args.input:
        start = time.perf_counter()
        if pred.task == "classification":
            label, probs = pred.classify([args.text])[0]
            ms = (time.perf_counter() - start) * 1000
            if args.json:
                print(json.dumps({"label": label, "probabilities": probs, "device": pred.device, "ms": round(ms, 2)},
                                 ensure_ascii=False))
            else:
                print(label)
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

    rows, records = read_csv_records(args.input, b["fields"], b.get("columns", {}))
    out_rows = []
    if pred.task == "classification":
        for row, (label, probs) in zip(rows, pred.classify(records, batch_size=args.batch_size)):
            out = dict(row, prediction=label, confidence=round(max(probs.values()), 6))
            out.update({f"p_{k}": round(v, 6) for k, v in probs.items()})
            out_rows.append(out)
    else:
        for row, rec in zip(rows, records):
            out_rows.append(dict(row, prediction=pred.generate(rec, **gen)))
    if args.json and not args.output:
        print(json.dumps(out_rows, ensure_ascii=False, indent=1))
        return 0
    fh = open(args.output, "w", encoding="utf-8-sig", newline="") if args.output else sys.stdout
    try:
        if out_rows:
            writer = csv.DictWriter(fh, fieldnames=list(out_rows[0].keys()))
            writer.writeheader()
            writer.writerows(out_rows)
    finally:
        if args.output:
            fh.close()
    if args.output:
        print(f"{len(out_rows)} rows written to {args.output} ({pred.device})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
