"""The formats written beside the static model: the cached generation model, the tokenizer file,
merged weights, ONNX and weight-only int8, and the chat pieces of bundle.json."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from workbench.engine import examples, families
from workbench.engine.export import parity
from workbench.engine.export.checks import _lm_loss, parity_records
from workbench.engine.export.environment import package_version
from workbench.engine.export.graphs import (
    _head_probs_layer,
    _int8_linears,
    _lm_logits_layer,
    batches_for_classification,
    batches_for_lm,
)
from workbench.engine.export.static_graph import (
    ExportError,
    create_predictor,
    max_abs_diff,
    run_eager,
    run_predictor,
    save_static,
)
from workbench.engine.models import char_classifier, loading

ONNX_OPSET = 17


def _bundle_chat(tokenizer, system: str | None) -> dict[str, Any] | None:
    from workbench.engine.export.chat_format import bundle_chat
    from workbench.engine.gguf.modelfile import ModelfileError

    try:
        return bundle_chat(tokenizer, system)
    except ModelfileError:  # a template that repeats the user's text: one-message chats only
        return None


def _export_generation(model, tokenizer, prompts, stage: Path, max_length: int, bound: float) -> dict[str, Any]:
    from workbench.engine.export import cached_generation
    from workbench.engine.inference.answers import prompt_budgets

    prompt_ids, _ = prompt_budgets(tokenizer, prompts[:4], max_new_tokens=cached_generation.CHECK_NEW_TOKENS, max_length=max_length)
    try:
        prefix = cached_generation.save_generation_model(model, stage / "static" / "generate")
        return cached_generation.check_generation(prefix, model, prompt_ids, bound)
    except cached_generation.GenerationExportError as exc:
        raise ExportError(f"{exc} So the bundle was not exported.", code="generation_export_failed",
                          detail=str(exc)) from exc


def _eos_ids(tokenizer, model) -> list[int]:
    from workbench.engine.inference.generate import eos_ids

    return eos_ids(tokenizer, model)


def _export_tokenizer(tokenizer, folder: Path) -> Path:
    """The tokenizer's own files plus a ``tokenizer.json`` for the ``tokenizers`` library."""
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(folder))
    path = folder / "tokenizer.json"
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        try:
            from transformers.convert_slow_tokenizer import convert_slow_tokenizer

            backend = convert_slow_tokenizer(tokenizer)
        except Exception as exc:
            raise ExportError(
                f"The model's tokenizer ({type(tokenizer).__name__}) has no tokenizer.json and could not be "
                f"converted to one ({type(exc).__name__}: {str(exc)[:200]}), so predict.py could not tokenize "
                "without the training software.", code="tokenizer_not_convertible",
                tokenizer=type(tokenizer).__name__, detail=f"{type(exc).__name__}: {str(exc)[:200]}") from exc
    backend.save(str(path))
    return path


def _save_merged(model, tokenizer, folder: Path, records, template, max_length, *, system,
                 user_format) -> dict[str, Any]:
    """Save the merged model, and take the trained model's outputs that the folder, reloaded
    once the trained model is let go (:func:`_check_merged`), must give again. Both models at
    once took 3.9 GB for Gemma 3 270M; a language model's check reads 2 rows of at most 64
    tokens, whose logits over the vocabulary are kept until then (134 MB for Gemma 3 270M)."""
    import numpy as np

    loading.save_model(model, tokenizer, folder)
    cfg_path = folder / "config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    for key in families.CPU_SAFE_FLAGS:  # CPU-only switches; load_model sets them again on a CPU
        cfg.pop(key, None)
    cfg_path.write_text(json.dumps(cfg, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    classifier = char_classifier.is_classifier(model)
    if classifier:
        prompts = examples.build_prompts(tokenizer, records[:4], system=system, user_format=user_format)
        batches = batches_for_classification(tokenizer, prompts, max_length, 0)
        layer = _head_probs_layer
    else:
        feats = examples.build_features(tokenizer, records[:2], task=template.task.value, system=system,
                                 user_format=user_format, max_length=min(max_length, 64))
        batches = batches_for_lm(tokenizer, feats)
        layer = _lm_logits_layer
    return {"folder": folder, "config": cfg, "classifier": classifier, "layer": layer, "batches": batches,
            "expected": [run_eager(layer(model), x) for x in batches],
            "params": int(sum(int(np.prod(p.shape)) for p in model.parameters()))}


ONNX_CONVERT = r"""
import sys, paddle2onnx
json_file, params, out, opset = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
paddle2onnx.export(json_file, params, out, opset_version=opset, auto_upgrade_opset=True, verbose=True,
                   enable_onnx_checker=True, optimize_tool="onnxoptimizer")
"""


def _converter_error(log: str, code: int) -> str:
    """The converter's own error line and the operator it was converting, from its log."""
    import re

    lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln).strip() for ln in log.splitlines()]
    errors = [ln for ln in lines if "[ERROR]" in ln or "Error" in ln]
    started = [ln.split("Start export", 1)[1].split(",")[0].strip() for ln in lines if "Start export" in ln]
    finished = {ln.split("Finish export", 1)[1].split(",")[0].strip() for ln in lines if "Finish export" in ln}
    parts = []
    if started and started[-1] not in finished:
        parts.append(f"it fails on the operator {started[-1]}")
    if errors:
        parts.append(errors[-1].split("]", 1)[-1].strip()[:300] if "[ERROR]" in errors[-1] else errors[-1][:300])
    return "; ".join(parts) or f"exit status {code}"


def _export_onnx(prefix: Path, out: Path, inputs, expected, bound: float, **compare_kw) -> dict[str, Any]:
    """paddle2onnx (in a child process, so a crash in the converter cannot end the export),
    then onnxruntime against the eager model. Never raises: a failure is reported."""
    import numpy as np

    out.parent.mkdir(parents=True, exist_ok=True)
    versions = {"paddle2onnx": package_version("paddle2onnx"), "onnxruntime": package_version("onnxruntime"),
                "paddlepaddle": package_version("paddlepaddle"), "opset": ONNX_OPSET}

    def failed(reason: str) -> dict[str, Any]:
        shutil.rmtree(out.parent, ignore_errors=True)
        return {"status": "failed", "reason": reason, "max_abs_diff": None, "versions": versions, "files": []}

    if not versions["paddle2onnx"] or not versions["onnxruntime"]:
        return failed("paddle2onnx or onnxruntime is not installed here, so no ONNX model was made.")
    env = dict(os.environ, POLYGRAPHY_AUTOINSTALL_DEPS="0")
    try:
        res = subprocess.run(
            [sys.executable, "-c", ONNX_CONVERT, str(prefix) + ".json", str(prefix) + ".pdiparams", str(out),
             str(ONNX_OPSET)], capture_output=True, text=True, timeout=1800, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return failed("paddle2onnx did not finish within 30 minutes.")
    if res.returncode != 0 or not out.is_file() or out.stat().st_size == 0:
        return failed(f"paddle2onnx {versions['paddle2onnx']} could not convert this model "
                      f"({_converter_error(res.stdout + chr(10) + res.stderr, res.returncode)}).")
    try:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.log_severity_level = 3  # errors only: the converter leaves unused constants ORT lists one by one
        session = ort.InferenceSession(str(out), options, providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        got = [session.run(None, dict(zip(names, x)))[0] for x in inputs]
    except Exception as exc:
        return failed(f"onnxruntime {versions['onnxruntime']} could not run the converted model "
                      f"({type(exc).__name__}: {str(exc)[:300]}).")
    figures = parity.compare(expected, got, bound, **compare_kw)
    if not figures["ok"]:
        return failed(parity.explain("The ONNX model", figures).split(" This is not rounding")[0]
                      + f" with paddle2onnx {versions['paddle2onnx']} and onnxruntime {versions['onnxruntime']}: "
                      "more than rounding, so it does not ship.")
    _ = np
    return {"status": "ok", **parity.summary(figures), "versions": versions, "files": ["onnx/model.onnx"],
            "inputs": names}


def _export_int8(model, make_layer, prefix: Path, input_names, trained, template, tokenizer, max_length,
                 label_len, fp32_prefix: Path, onednn: bool, *, system, user_format) -> dict[str, Any]:
    """A weight-only int8 static model and its accuracy change against fp32 on the test split.

    Runs last: it replaces the linears of ``model`` in place.
    """
    import numpy as np

    records = examples.read_jsonl(trained.project.split_path("test"))[:200] or parity_records(trained, 64)
    prompts = examples.build_prompts(tokenizer, records, system=system, user_format=user_format)
    if template.task.value == "classification":
        inputs = batches_for_classification(tokenizer, prompts, max_length, label_len)
    else:
        feats = examples.build_features(tokenizer, records[:64], task="instruction", system=system,
                                 user_format=user_format, max_length=max_length)
        inputs = batches_for_lm(tokenizer, feats)
    fp32 = create_predictor(fp32_prefix, onednn=onednn)
    ref = [run_predictor(fp32, x) for x in inputs]
    del fp32
    replaced = _int8_linears(model)
    if not replaced:  # never a copy of the fp32 model under the name int8
        raise ExportError("This model has no linear layers for weight-only int8 to quantise. Export it without int8.",
                          code="int8_nothing_to_quantise")
    save_static(make_layer(model), prefix, input_names)
    q = create_predictor(prefix, onednn=onednn)
    got = [run_predictor(q, x) for x in inputs]
    del q
    size_fp32 = fp32_prefix.with_suffix(".pdiparams").stat().st_size
    size_int8 = prefix.with_suffix(".pdiparams").stat().st_size
    out: dict[str, Any] = {"status": "ok", "linear_layers": replaced, "samples": len(records),
                           "size_mb_fp32": round(size_fp32 / 2**20, 3), "size_mb_int8": round(size_int8 / 2**20, 3),
                           "files": ["int8/model.json", "int8/model.pdiparams"],
                           "max_abs_diff_vs_fp32": max_abs_diff(ref, got)}
    if template.task.value == "classification":
        truth = np.array([template.labels.index(r["label"]) if r.get("label") in template.labels else -1
                          for r in records])
        p32 = np.concatenate(ref).argmax(1)
        p8 = np.concatenate(got).argmax(1)
        out["accuracy_fp32"] = float((p32 == truth).mean())
        out["accuracy_int8"] = float((p8 == truth).mean())
        out["accuracy_change"] = out["accuracy_int8"] - out["accuracy_fp32"]
        out["label_agreement"] = float((p32 == p8).mean())
    else:
        feats = examples.build_features(tokenizer, records[:64], task="instruction", system=system,
                                 user_format=user_format, max_length=max_length)
        l32, l8 = _lm_loss(ref, feats), _lm_loss(got, feats)
        out["eval_loss_fp32"], out["eval_loss_int8"] = l32, l8
        out["perplexity_fp32"], out["perplexity_int8"] = math.exp(min(l32, 50)), math.exp(min(l8, 50))
        agree = total = 0
        for a, b, f in zip(ref, got, [feats[i:i + 4] for i in range(0, len(feats), 4)]):
            for row, feat in enumerate(f):
                n = len(feat["input_ids"])
                agree += int((a[row, :n].argmax(-1) == b[row, :n].argmax(-1)).sum())
                total += n
        out["next_token_agreement"] = agree / total if total else None
    return out
