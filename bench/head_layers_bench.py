"""Which layer and pooling should a pretrained head read? One frozen pass, every layer measured.

Reads the training (a sample of ``--train-rows``), validation and test rows of a prepared
classification project once with the pretrained model, keeping at each layer the states a head
cut after that layer would pool (the decoder's final norm applied, as in
engine/models/decoder_head.py), mean-pooled and last-token. For each layer and pooling, fits the
feature head's logistic regression (engine/training/feature_head.py: its strength chosen on
validation) and prints its validation and test macro-F1, beside the character n-gram baseline
fitted on the same training rows. Also prints how many rows a second the pass read.

    python bench/head_layers_bench.py --project DIR [--base-model gemma-3-270m] [--train-rows 2000]
        [--layers 3 6 9 12 18] [--max-length 128] [--json]
    python bench/head_layers_bench.py --smoke    # a tiny Gemma 3 on a sample project
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--project", help="a prepared classification project (required unless --smoke)")
    p.add_argument("--base-model", default="gemma-3-270m")
    p.add_argument("--train-rows", type=int, default=2000, help="training rows read (a seeded sample)")
    p.add_argument("--layers", nargs="+", type=int, help="layer counts to measure (default: a sixth to all)")
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--json", action="store_true")
    p.add_argument("--smoke", action="store_true")
    args = p.parse_args(argv)
    if args.smoke:
        return _smoke(args)
    if not args.project:
        p.error("--project is required unless --smoke")
    out = measure(args.project, args.base_model, args.train_rows, args.layers, args.max_length)
    print(json.dumps(out, ensure_ascii=False) if args.json else table(out))
    return 0


def measure(project_dir: str, base_model: str, train_rows: int, layers: list[int] | None, max_length: int) -> dict:
    import numpy as np
    import paddle

    from workbench.core.project import Project
    from workbench.engine import examples
    from workbench.engine import families
    from workbench.engine.models import decoder_head, devices, loading, ngram_baseline
    from workbench.engine.training import feature_head

    from workbench.core.operations.runs import resolve_base_model

    devices.select_device("cpu")
    name, base_model = base_model, resolve_base_model(base_model)[0]  # a registered model's id: its folder
    project = Project.open(project_dir)
    task = project.task
    labels = list(task.labels)
    rows = {s: examples.read_jsonl(project.split_path(s)) for s in ("train", "val", "test")}
    rows["train"] = random.Random(0).sample(rows["train"], min(train_rows, len(rows["train"])))
    model, tokenizer = loading.load_model_and_tokenizer(base_model, device="cpu")
    head = decoder_head.attach(model, labels, family=families.model_family(model.config), pooling="mean")
    decoder_head.use_text_alone(tokenizer)
    _, user_format = examples.prompt_spec(head, None, task.user_format, task.input_roles)
    feats = {s: examples.build_classifier_features(tokenizer, r, labels, user_format=user_format,
                                                   max_length=max_length) for s, r in rows.items()}
    total = int(head.config.decoder["num_hidden_layers"])
    layers = sorted(set(layers or [max(1, round(total * f)) for f in (1 / 6, 1 / 3, 1 / 2, 2 / 3, 1)]))
    pad = tokenizer.pad_token_id or 0
    pooled: dict[tuple[int, str], dict[str, np.ndarray]] = {}
    started = time.monotonic()
    head.eval()
    with paddle.no_grad():
        for split, fs in feats.items():
            ids = [f["input_ids"] for f in fs]
            store = {(n, how): np.zeros((len(ids), head.config.hidden_size), np.float32)
                     for n in layers for how in ("mean", "last")}
            for idx in _batches([len(x) for x in ids], 16):
                batch = examples.DataCollator(pad)([{"input_ids": ids[i]} for i in idx])
                mask = batch["attention_mask"].astype("float32")
                states = head.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                                    use_cache=False, output_hidden_states=True, return_dict=True).hidden_states
                last = mask.sum(axis=1, keepdim=True) - 1.0
                positions = paddle.cumsum(paddle.ones_like(mask), axis=1) - 1.0
                weights = {"mean": mask / mask.sum(axis=1, keepdim=True).clip(min=1.0),
                           "last": (positions == last).astype("float32")}
                for n in layers:  # a head cut after n layers reads the final norm of layer n's output
                    h = states[n] if n == total else head.model.norm(states[n])
                    for how, w in weights.items():
                        v = (h.astype("float32") * w.unsqueeze(-1)).sum(axis=1)
                        v = v / paddle.sqrt((v * v).mean(axis=-1, keepdim=True) + 1e-6)
                        store[(n, how)][idx] = v.numpy()
            for key, x in store.items():
                pooled.setdefault(key, {})[split] = x
    read_s = time.monotonic() - started
    n_rows = sum(len(f) for f in feats.values())
    y = {s: feature_head._targets([f["labels"] for f in fs], labels, False) for s, fs in feats.items()}
    results = []
    for (n, how), x in sorted(pooled.items()):
        best, fitted = None, {}
        for c in feature_head.C_GRID:
            w, b = feature_head._fit(x["train"], y["train"], labels, False, c, 0, fitted)
            val = feature_head._macro_f1(x["val"] @ w + b, y["val"], labels, False)
            if best is None or val > best[0] + 1e-9:
                best = (val, c, feature_head._macro_f1(x["test"] @ w + b, y["test"], labels, False))
        results.append({"layers": n, "pooling": how, "c": best[1], "val_macro_f1": round(best[0], 4),
                        "test_macro_f1": round(best[2], 4)})
    roles = task.input_roles
    base = ngram_baseline.classification_baseline(
        [ngram_baseline.input_text(r, roles) for r in rows["train"]], [r.get("label") for r in rows["train"]],
        [ngram_baseline.input_text(r, roles) for r in rows["test"]], [r.get("label") for r in rows["test"]], labels)
    return {"base_model": name, "total_layers": total, "rows": {s: len(f) for s, f in feats.items()},
            "rows_per_s": round(n_rows / read_s, 1), "read_seconds": round(read_s, 1),
            "baseline_test_macro_f1": round(base["macro_f1"], 4) if base else None, "results": results}


def _batches(lengths: list[int], size: int):
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    for start in range(0, len(order), size):
        yield order[start:start + size]


def table(out: dict) -> str:
    lines = [f"{out['base_model']}: {out['total_layers']} layers; rows {out['rows']}; one pass over every layer "
             f"read {out['rows_per_s']} rows/s ({out['read_seconds']} s)",
             f"n-gram baseline on the same training rows: test macro-F1 {out['baseline_test_macro_f1']}",
             f"{'layers':>6}  {'pooling':<7} {'C':>6}  {'val F1':>7}  {'test F1':>7}"]
    for r in out["results"]:
        lines.append(f"{r['layers']:>6}  {r['pooling']:<7} {r['c']:>6g}  {r['val_macro_f1']:>7.4f}  "
                     f"{r['test_macro_f1']:>7.4f}")
    return "\n".join(lines)


def _smoke(args) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from model_factory import make_model_folder

    from workbench.cli import main as cli_main
    from workbench.core.templates import builtin_templates_dir

    with tempfile.TemporaryDirectory() as tmp:
        sample = next((builtin_templates_dir() / "finance_sentiment").glob("*_sample.csv"))
        project = Path(tmp) / "p"
        cli_main(["data", "prepare", "--template", "finance_sentiment", "--input", str(sample),
                  "--project", str(project)])
        base = make_model_folder("gemma3", Path(tmp) / "gemma", layout="hf")
        out = measure(str(project), str(base), 200, None, 64)
    print(json.dumps(out, ensure_ascii=False) if args.json else table(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
