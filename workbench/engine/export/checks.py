"""The checks every exported artefact passes before it ships: parity with the trained model,
the tokenizer file, the labels, the merged weights, the stand-alone predict script, and the
measured latency.

Parity: the static predictor (and the ONNX model, and the reloaded merged weights) run
on real prompts of the test split and are compared with the eager model (engine/parity.py):
the largest difference relative to the logits' scale must stay within what fp32 rounding
explains for the model's size, and the greedy token must agree wherever the trained
model's choice is clear; the export fails otherwise. The ONNX export is different: a
failed conversion or check is recorded in bundle.json and the model card, and no ONNX file
ships.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.core.trained import TrainedRun
from workbench.engine import examples, scoring
from workbench.engine.export import parity
from workbench.engine.export.static_graph import (
    ExportError,
    create_predictor,
    run_eager,
    run_predictor,
)
from workbench.engine.models import loading
from workbench.engine.models.devices import release_freed_memory
from workbench.engine.scoring import LABEL_SET_JOINER


def _median_ms(fn, inputs, repeat: int = 1) -> float:
    times = []
    for x in inputs:
        for _ in range(repeat):
            t = time.perf_counter()
            fn(x)
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return times[len(times) // 2] if times else float("nan")


def _check_tokenizer_file(path: Path, tokenizer, prompts: Sequence[str]) -> None:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    for prompt in prompts:
        a = tok.encode(prompt, add_special_tokens=False).ids
        b = list(tokenizer.encode(prompt, add_special_tokens=False))
        if a != b:
            raise ExportError("The exported tokenizer.json tokenizes a test prompt differently from the model's "
                              "tokenizer, so predict.py would feed the model different tokens.",
                              code="export_tokenizer_differs")


def _check_static(prefix: Path, inputs, expected, bound: float, **compare_kw) -> dict[str, Any]:
    """Paddle Inference on the CPU, plain and with oneDNN, against the eager model (engine/export/parity.py:
    the difference relative to the outputs' scale within ``bound``, the same greedy choices); and
    which of the two is faster on these inputs (``onednn_used``: both right and oneDNN faster)."""
    plain = create_predictor(prefix, onednn=False)
    figures = parity.compare(expected, [run_predictor(plain, x) for x in inputs], bound, **compare_kw)
    plain_ms = _run_ms(plain, inputs)
    del plain
    release_freed_memory()
    if not figures["ok"]:
        raise ExportError(parity.explain("The Paddle Inference model", figures) + " It was not exported.",
                          code="export_differs", part="static", figures=parity.error_figures(figures))
    fast = None
    try:
        fast = create_predictor(prefix, onednn=True)
        fast_figures = parity.compare(expected, [run_predictor(fast, x) for x in inputs], bound, **compare_kw)
        onednn_ms = _run_ms(fast, inputs)
        why = None
    except Exception as exc:  # oneDNN missing from this build, or an operator it cannot run
        fast_figures, onednn_ms, why = None, None, f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        fast = None  # its weights, at once: a failed run would keep them until the export ends
    release_freed_memory()
    ok = fast_figures is not None and fast_figures["ok"]
    # oneDNN is not always the faster: on the built-in n-gram classifier its per-run overhead made
    # Paddle Inference 2.3x slower at batch 1 and 1.2x at batch 8 than the plain kernels; on a
    # small Llama decoder it was 1.2x faster at batch 1 and 1.9x at batch 8
    used = ok and onednn_ms < plain_ms
    note = why if why else (None if ok else "oneDNN exceeds the parity bound; predict.py uses the plain CPU kernels")
    if ok and not used:
        note = "oneDNN was slower than the plain CPU kernels on the check inputs; predict.py uses the plain kernels"
    return {"status": "ok", **parity.summary(figures),
            "onednn_max_abs_diff": None if fast_figures is None else fast_figures["max_abs_diff"],
            "onednn_relative_diff": None if fast_figures is None else fast_figures["relative_diff"],
            "onednn_ok": ok, "onednn_used": used, "plain_ms": round(plain_ms, 3),
            "onednn_ms": None if onednn_ms is None else round(onednn_ms, 3), "onednn_note": note}


def _probability_scale(model, classifier: bool, inputs, label_len: int) -> float:
    """The scale of a classification graph's probabilities' error: a label's score is the sum of
    ``label_len`` label-token log-probabilities (one logit for a classification head), each off by
    the logits' error, and a probability moves by at most the scores' difference. So the logits'
    largest magnitude on the first check batch, times the terms of a score, times 2 (two scores)."""
    import numpy as np
    import paddle

    ids, mask = (x[:1] for x in inputs[0])  # one row: a large vocabulary's logits are large
    with paddle.no_grad():
        if classifier:
            out = model(input_ids=paddle.to_tensor(ids), attention_mask=paddle.to_tensor(mask), return_dict=True)
        else:
            out = model(paddle.to_tensor(ids), use_cache=False, return_dict=True)
        top = float(np.abs(out.logits.astype("float32").numpy()).max())
    return max(top, 1.0) * 2 * max(1, label_len)


def _run_ms(predictor, inputs, repeat: int = 5) -> float:
    """The best of ``repeat`` runs over the check inputs, each batch and its first row alone
    (a service's small batches), in milliseconds."""
    work = [x for batch in inputs for x in (batch, tuple(a[:1] for a in batch))]
    for x in work:  # warm-up: the first run of a shape builds its kernels
        run_predictor(predictor, x)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for x in work:
            run_predictor(predictor, x)
        best = min(best, time.perf_counter() - t)
    return best * 1000


def _check_labels_against_engine(model, tokenizer, prompts, labels, expected, max_length, *,
                                 threshold: float | None = None, allow_empty: bool = False) -> dict[str, Any]:
    """The exported scorer must pick the label (multi-label: the label set at ``threshold``)
    the engine's classify() picks."""
    import numpy as np

    from workbench.engine.inference.classify import classify_with_probs

    engine = np.asarray(classify_with_probs(model, tokenizer, prompts, labels, max_length=max_length))
    ours = np.concatenate(expected, axis=0)
    diff = float(np.max(np.abs(engine - ours)))
    if threshold is not None:
        want = scoring.label_sets_from_probabilities(engine.tolist(), labels, threshold, allow_empty)
        got = scoring.label_sets_from_probabilities(ours.tolist(), labels, threshold, allow_empty)
        agree = np.array([a == b for a, b in zip(want, got)])
        clear = np.abs(engine - threshold).min(axis=1) > 1e-3
        if np.any(~agree & clear):
            raise ExportError("The exported classifier gives other label sets than the evaluation on some test "
                              "inputs, so it was not exported.", code="export_label_sets_differ")
        return {"engine_label_agreement": float(agree.mean()), "engine_max_abs_diff": diff}
    agree = ours.argmax(1) == engine.argmax(1)
    top2 = np.sort(engine, axis=1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) > 1e-3
    if np.any(~agree & clear):
        raise ExportError("The exported classifier picks a different label from the evaluation on some test "
                          "inputs, so it was not exported.", code="export_labels_differ")
    return {"engine_label_agreement": float(agree.mean()), "engine_max_abs_diff": diff}


def _check_merged(saved: dict[str, Any], bound: float) -> dict[str, Any]:
    """Reload the folder :func:`_save_merged` wrote and check it gives the trained model's outputs."""
    folder = saved["folder"]
    reloaded = loading.load_model(folder, for_training=False, device="cpu")
    reloaded.eval()
    got = [run_eager(saved["layer"](reloaded), x) for x in saved["batches"]]
    del reloaded
    figures = parity.compare(saved["expected"], got, bound, probabilities=saved["classifier"])
    if not figures["ok"]:
        raise ExportError(parity.explain("The merged weights, reloaded,", figures) + " They were not exported.",
                          code="export_differs", part="merged", figures=parity.error_figures(figures))
    safe = sorted(p.name for p in folder.glob("*.safetensors"))
    layout = loading._weights_layout(loading._safetensors_shapes([folder / s for s in safe]), saved["config"]) if safe else None
    return {"status": "ok", "max_abs_diff": figures["max_abs_diff"], "layout": layout,
            "files": [f"merged/{p.name}" for p in sorted(folder.iterdir())], "params": saved["params"]}


def _measure_latency(prefix: Path, eager_layer, inputs, *, onednn: bool, task: str) -> dict[str, Any]:
    """Per-sample latency (batch 1) of the static predictor and the eager model on the same
    inputs, and for classification the throughput at batch 8."""
    import numpy as np

    singles = []
    for batch in inputs:
        for i in range(batch[0].shape[0]):
            if len(batch) == 2:
                n = int(batch[1][i].sum())
                singles.append((batch[0][i:i + 1, :n], batch[1][i:i + 1, :n]))
            else:
                singles.append((batch[0][i:i + 1],))
    singles = singles[:8]
    predictor = create_predictor(prefix, onednn=onednn)
    run_predictor(predictor, singles[0])  # warm-up
    run_eager(eager_layer, singles[0])
    static_ms = _median_ms(lambda x, p=predictor: run_predictor(p, x), singles, repeat=2)
    eager_ms = _median_ms(lambda x: run_eager(eager_layer, x), singles, repeat=2)
    out = {"device": "cpu" + ("+onednn" if onednn else ""), "threads": os.cpu_count(), "samples": len(singles),
           "static_ms": round(static_ms, 3), "eager_ms": round(eager_ms, 3),
           "ratio": round(static_ms / eager_ms, 4) if eager_ms else None, "cpu": platform.processor() or platform.machine()}
    if task == "classification" and inputs:
        batch = inputs[0]
        t = time.perf_counter()
        reps = 3
        for _ in range(reps):
            run_predictor(predictor, batch)
        secs = (time.perf_counter() - t) / reps
        out["throughput_samples_per_s"] = round(batch[0].shape[0] / secs, 2) if secs else None
        out["throughput_batch"] = int(batch[0].shape[0])
    del predictor
    _ = np
    return out


def _lm_loss(logit_batches, feats) -> float:
    import numpy as np

    total, count = 0.0, 0
    chunks = [feats[i:i + 4] for i in range(0, len(feats), 4)]
    for logits, chunk in zip(logit_batches, chunks):
        x = logits.astype("float64")
        x = x - x.max(-1, keepdims=True)
        logp = x - np.log(np.exp(x).sum(-1, keepdims=True))
        for row, feat in enumerate(chunk):
            for pos, lab in enumerate(feat["labels"]):
                if lab != examples.IGNORE_INDEX:
                    total -= logp[row, pos, lab]
                    count += 1
    return total / count if count else float("nan")


def _engine_answers(template, model, tokenizer, prompts, max_length, threshold) -> list[str]:
    """What the evaluation answers to ``prompts``: predict.py's check compares its output with these."""
    from workbench.engine.inference.answers import generate_answers
    from workbench.engine.inference.classify import classify_with_probs

    labels = list(template.labels)
    if template.task.value != "classification":
        return generate_answers(model, tokenizer, prompts, max_new_tokens=24, max_length=max_length)
    probs = classify_with_probs(model, tokenizer, prompts, labels, max_length=max_length)
    if template.multi_label:
        return [LABEL_SET_JOINER.join(s) for s in
                scoring.label_sets_from_probabilities(probs, labels, threshold, bool(template.no_label_rows))]
    return [labels[max(range(len(p)), key=p.__getitem__)] for p in probs]


def _check_predict_script(stage: Path, rows, template, want: list[str]) -> dict[str, Any]:
    """Run the bundle's predict.py in a child process on a few test rows, as a user would,
    and compare its answers with the engine's (``want``, from :func:`_engine_answers`)."""
    import csv

    fields = [r for r in template.roles if r not in ("label", "output")]
    with tempfile.TemporaryDirectory(prefix="wb-check-") as tmp:
        src, dst = Path(tmp) / "in.csv", Path(tmp) / "out.csv"
        with open(src, "w", encoding="utf-8-sig", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields)
            w.writeheader()
            for r in rows:
                w.writerow({f: r.get(f, "") for f in fields})
        cmd = [sys.executable, "predict.py", "--input", str(src), "--output", str(dst), "--device", "cpu"]
        if template.task.value == "instruction":
            cmd += ["--max-new-tokens", "24"]
        t = time.perf_counter()
        res = subprocess.run(cmd, cwd=stage, capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
                             env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
        secs = time.perf_counter() - t
        if res.returncode != 0:
            tail = " | ".join((res.stderr or "").strip().splitlines()[-4:])
            raise ExportError(f"The bundle's predict.py failed on test rows (exit {res.returncode}): {tail[:600]}",
                              code="bundle_script_failed", status=res.returncode, detail=tail[:600])
        with open(dst, encoding="utf-8-sig", newline="") as fh:
            got = [r["prediction"] for r in csv.DictReader(fh)]
    if template.task.value == "classification" and got != want:
        what = "label sets" if template.multi_label else "labels"
        raise ExportError(f"The bundle's predict.py gave {what} {got} where the evaluation gives {want}.",
                          code="bundle_script_differs", got=got, want=want)
    # two empty answers agree and prove nothing: they are not counted as the same, and the check fails
    empty = sum(not a.strip() and not b.strip() for a, b in zip(got, want))
    same = sum(a == b and bool(a.strip()) for a, b in zip(got, want)) if template.task.value == "instruction" \
        else sum(a == b for a, b in zip(got, want))
    out = {"status": "ok", "rows": len(got), "same_as_engine": same, "seconds": round(secs, 2)}
    if template.task.value == "instruction":
        out["both_empty"] = empty
        if empty:
            out["status"] = "failed"
            out["reason"] = (f"{empty} of {len(got)} test rows got an empty answer from both predict.py and the "
                             "evaluation, so nothing was compared: the model answers nothing to them. Train longer, "
                             "or check the evaluation's answer-length note.")
    return out


def parity_records(trained: TrainedRun, n: int) -> list[dict]:
    project = trained.project
    for split in ("test", "val", "train"):
        path = project.split_path(split)
        if path.is_file():
            records = examples.read_jsonl(path)
            if records:
                return records[:n]
    raise ExportError(f"Project {project.root} has no prepared records to check the export on.",
                      code="project_not_prepared")
