"""Export a trained run as a deployable bundle, every artefact checked before it ships.

Bundle layout (``exports/<name>/`` in the project by default)::

    bundle.json        what predict.py needs: task, labels, prompt format, special ids,
                       max length, the model files, and every check's figures
    bundle_runtime.py  the model code predict.py and serve.py share
    predict.py         stand-alone predictor (paddlepaddle + tokenizers + numpy)
    serve.py           HTTP service: /health, /predict, /v1/chat/completions (with
                       serve_batcher.py, serve_requests.py)
    requirements.txt   what predict.py and serve.py import, at the exporting versions
    requirements.lock  every package they need, exact versions with the hashes of the target
                       platform's wheels (default the Docker image's; bundle_env.py)
    wheels/            optional: those wheels, to install with no network
    Dockerfile         an image that runs serve.py (+ .dockerignore)
    README.md          model card: template, base model, data, hyper-parameters,
                       evaluation figures, parity figures, measured latency
    tokenizer/         tokenizer.json (+ the tokenizer's own files)
    static/model.json + model.pdiparams    Paddle Inference model (PIR)
    onnx/model.onnx    when paddle2onnx converts it and onnxruntime reproduces it
    merged/            LoRA folded into the base: config.json, model.safetensors (Hugging
                       Face layout, as PaddleFormers 1.0.0 writes it), tokenizer files
    int8/              optional weight-only int8 static model

The bundle is written into a hidden staging folder beside the target and renamed into
place at the end, so a failed export leaves nothing half-written.

What the static model computes:

* Instruction models: ``forward(input_ids) -> logits`` (float32, ``[batch, seq, vocab]``);
  the generation loop is in predict.py.
* Classification: ``forward(input_ids, attention_mask) -> probabilities [batch, labels]``.
  The built-in classifier (engine/builtin.py) has a classification head: the graph is the
  model followed by a softmax over the labels. For language models, decision: the graph scores the whole label sequence (label tokens + end token) after
  the prompt, exactly as the engine's ``classify()`` does, rather than reading the first
  token's distribution. Label sets of real templates share first tokens often enough
  (e.g. byte-level BPE splitting 正面/负面 into a shared lead byte), and whole-sequence
  scoring is what the model was trained and evaluated on, so the exported model returns
  the same label as the evaluation. Inside the graph each right-padded prompt is joined
  with every label (prompt tokens, then label tokens, then padding; causal attention makes
  the right padding harmless), the decoder runs once on the ``batch x labels``
  sequences, the LM head is applied only at the label positions (so memory does not grow
  with the vocabulary times the prompt length), the label-token log-probabilities are
  summed, and a softmax over the labels gives the probabilities.

Parity: the static predictor (and the ONNX model, and the reloaded merged weights) run
on real prompts of the test split and are compared with the eager model (engine/parity.py):
the largest difference relative to the logits' scale must stay within what fp32 rounding
explains for the model's size, and the greedy token must agree wherever the trained
model's choice is clear; the export fails otherwise. The ONNX export is different: a
failed conversion or check is recorded in bundle.json and the model card, and no ONNX file
ships.

What is written is what was asked. The Paddle Inference runtime (static/, predict.py,
serve.py, requirements, Dockerfile) is built when the formats include ``static`` or
``onnx`` (or int8); a bundle of ``gguf`` (and ``merged``) alone holds those files, the
checks and a README, and builds no static model. An instruction model's static model is
the cached generation step (static/generate), the one predict.py and serve.py run; the
full-sequence graph is traced only as the source of the ONNX and int8 models, and does not
ship.
"""

from __future__ import annotations

import json
import math
import os
import platform
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import WorkbenchError
from ..core.operations.export import (DEFAULT_FORMATS, NO_GGUF, NO_INT8, bundle_target, gguf_refusal,
                                      int8_refusal)
from ..core.cleaning import input_normalization
from ..core.project import Project
from ..core.task import TaskSpec
from ..core.trained import TrainedRun, resolve_trained_run
from . import builtin as B
from . import data as D
from . import metrics as MX
from . import models as M
from . import parity as P
from .cpu import release_freed_memory
from .metrics import LABEL_SET_JOINER
from .static_graph import (  # noqa: F401 (part of this module's interface)
    ExportError, create_predictor, max_abs_diff, run_eager, run_predictor, save_static,
)

FORMATS = ("static", "merged", "onnx", "gguf")
RUNTIME_FORMATS = ("static", "onnx")  # formats that need the Paddle Inference model and predict.py
PARITY_ROWS = 16
ONNX_OPSET = 17
USER_SENTINEL = "\u27e6WORKBENCH_USER_TEXT\u27e7"
BUNDLE_VERSION = 1
# copied verbatim into every bundle: the shared model code, the command line, the service, and
# the importer's own rules for cutting a file into rows (one source each, see bundle_runtime)
BUNDLE_SCRIPTS = ("bundle_runtime.py", "predict.py", "serve.py", "serve_batcher.py", "serve_requests.py",
                  "io_sniff.py", "io_header.py")
BUNDLE_SOURCES = {"io_sniff.py": Path(__file__).parents[1] / "core" / "io" / "textsniff.py",
                  "io_header.py": Path(__file__).parents[1] / "core" / "io" / "header.py"}
GENERATION_INPUTS = ("input_ids", "attention_mask", "position_ids", "past_keys", "past_values")

Progress = Callable[[str, int, int], None]


# ----- exportable wrappers ---------------------------------------------------------------------


def _lm_logits_layer(model):
    import paddle.nn as nn

    class CausalLMLogits(nn.Layer):
        """``forward(input_ids) -> logits`` (float32) for the static graph."""

        def __init__(self, lm):
            super().__init__()
            self.lm = lm

        def forward(self, input_ids):
            out = self.lm(input_ids, use_cache=False, return_dict=True)
            return out.logits.astype("float32")

    return CausalLMLogits(model)


def label_table(tokenizer, labels: Sequence[str]) -> tuple[list[list[int]], int]:
    """Each label's token ids (label + end token, as the engine scores them) and the
    longest length."""
    ids = [D.encode_response(tokenizer, lab) for lab in labels]
    return ids, max(len(x) for x in ids)


def _head_probs_layer(model):
    import paddle.nn as nn

    class HeadProbabilities(nn.Layer):
        """``forward(input_ids, attention_mask) -> probabilities [batch, labels]`` of a
        classification-head model (the built-in classifier)."""

        def __init__(self, classifier):
            super().__init__()
            self.classifier = classifier

        def forward(self, input_ids, attention_mask):
            out = self.classifier(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
            return B.probabilities_from_logits(self.classifier, out.logits)  # sigmoids for a multi-label head

    return HeadProbabilities(model)


def _label_scorer_layer(model, tokenizer, labels: Sequence[str]):
    import numpy as np
    import paddle
    import paddle.nn as nn
    import paddle.nn.functional as F

    ids, longest = label_table(tokenizer, labels)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    table = np.full((len(ids), longest), pad_id, dtype="int64")
    for i, x in enumerate(ids):
        table[i, : len(x)] = x
    lens = np.array([len(x) for x in ids], dtype="int64")
    n_labels = len(ids)

    class LabelScorer(nn.Layer):
        """``forward(input_ids, attention_mask) -> probabilities [batch, labels]`` (see module doc)."""

        def __init__(self, lm):
            super().__init__()
            self.lm = lm
            self.register_buffer("label_ids", paddle.to_tensor(table))
            self.register_buffer("label_lens", paddle.to_tensor(lens))

        def forward(self, input_ids, attention_mask):
            K, Lmax = n_labels, longest
            B = input_ids.shape[0]
            L = input_ids.shape[1]
            T = L + Lmax
            lengths = attention_mask.astype("int64").sum(axis=1)  # [B]
            t = paddle.arange(T, dtype="int64")
            prompt = paddle.concat([input_ids, paddle.full([B, Lmax], pad_id, dtype="int64")], axis=1)
            rel = t.unsqueeze(0) - lengths.unsqueeze(1)  # [B, T]: position relative to the label start
            table_b = self.label_ids.unsqueeze(0).expand([B, K, Lmax])
            label_tok = paddle.take_along_axis(
                table_b, paddle.clip(rel, 0, Lmax - 1).unsqueeze(1).expand([B, K, T]), axis=2)
            in_prompt = (rel < 0).unsqueeze(1).expand([B, K, T])
            rel_k = rel.unsqueeze(1)
            in_label = paddle.logical_and(rel_k >= 0, rel_k < self.label_lens.reshape([1, K, 1]))
            seq = paddle.where(in_prompt, prompt.unsqueeze(1).expand([B, K, T]),
                               paddle.where(in_label, label_tok, paddle.full_like(label_tok, pad_id)))
            hidden = self.lm.model(seq.reshape([-1, T]), use_cache=False, return_dict=True)[0]  # [B*K, T, H]
            # the logits at position len-1+i predict label token i
            i = paddle.arange(Lmax, dtype="int64")
            pos = (lengths.unsqueeze(1) - 1 + i.unsqueeze(0)).unsqueeze(1).expand([B, K, Lmax]).reshape([-1, Lmax])
            H = hidden.shape[-1]
            h = paddle.take_along_axis(hidden, pos.unsqueeze(-1).expand([B * K, Lmax, H]), axis=1)
            logp = F.log_softmax(self.lm.lm_head(h).astype("float32"), axis=-1)  # [B*K, Lmax, V]
            tgt = table_b.reshape([-1, Lmax, 1])
            lp = paddle.take_along_axis(logp, tgt, axis=2).reshape([B, K, Lmax])
            mask = (i.reshape([1, 1, Lmax]) < self.label_lens.reshape([1, K, 1])).astype("float32")
            return F.softmax((lp * mask).sum(axis=-1), axis=-1)

    return LabelScorer(model)


def _int8_linears(model) -> int:
    """Replace every ``nn.Linear`` by a weight-only int8 layer (per-output-channel
    symmetric scales; weights stored int8, de-quantised to fp32 inside the graph).
    Returns the number of layers replaced."""
    import numpy as np
    import paddle
    import paddle.nn as nn

    class WeightOnlyInt8Linear(nn.Layer):
        def __init__(self, linear):
            super().__init__()
            w = linear.weight.numpy().astype("float32")  # [in, out]
            scale = np.abs(w).max(axis=0) / 127.0
            scale[scale == 0] = 1.0
            q = np.clip(np.round(w / scale), -127, 127).astype("int8")
            self.register_buffer("qweight", paddle.to_tensor(q))
            self.register_buffer("scale", paddle.to_tensor(scale.astype("float32")))
            self.bias = linear.bias

        def forward(self, x):
            y = paddle.matmul(x, self.qweight.astype(x.dtype) * self.scale)
            return y + self.bias if self.bias is not None else y

    count = 0
    for name, layer in list(model.named_sublayers(include_self=True)):  # the model's own children too
        for child_name, child in list(layer.named_children()):
            if type(child) is nn.Linear:
                setattr(layer, child_name, WeightOnlyInt8Linear(child))
                count += 1
    return count


# ----- inputs ----------------------------------------------------------------------------------------


class PromptFormat:
    """The prompt as text around the user's text (``prefix + user + suffix``), derived from
    the tokenizer's chat template once, so predict.py needs no template engine. Verified
    against the engine's prompt on real records before it is used."""

    def __init__(self, tokenizer, system: str):
        full = D.build_prompt(tokenizer, system, USER_SENTINEL)
        if full.count(USER_SENTINEL) != 1:
            raise ExportError("The tokenizer's chat template changes the user's text, so the prompt cannot be "
                              "written as plain text for predict.py.")
        self.prefix, self.suffix = full.split(USER_SENTINEL)
        self.tokenizer, self.system = tokenizer, system

    def check(self, user_texts: Sequence[str]) -> None:
        for text in user_texts:
            if self.prefix + text + self.suffix != D.build_prompt(self.tokenizer, self.system, text):
                raise ExportError("The tokenizer's chat template formats some inputs differently from a fixed "
                                  "prefix and suffix, so predict.py could not reproduce the prompt.")


def batches_for_classification(tokenizer, prompts: Sequence[str], max_length: int, label_len: int,
                               batch_size: int = 8):
    """Right-padded ``(input_ids, attention_mask)`` batches, prompts cut as the engine cuts them."""
    import numpy as np

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    encoded = [D._shrink_prompt(D.encode_prompt(tokenizer, p), max(1, max_length - label_len)) for p in prompts]
    out = []
    for start in range(0, len(encoded), batch_size):
        chunk = encoded[start:start + batch_size]
        longest = max(len(x) for x in chunk)
        ids = np.full((len(chunk), longest), pad, dtype="int64")
        mask = np.zeros((len(chunk), longest), dtype="int64")
        for i, x in enumerate(chunk):
            ids[i, : len(x)] = x
            mask[i, : len(x)] = 1
        out.append((ids, mask))
    return out


def batches_for_lm(tokenizer, features: Sequence[dict], batch_size: int = 4):
    """Right-padded ``(input_ids,)`` batches of prompt + reference answer."""
    import numpy as np

    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    out = []
    for start in range(0, len(features), batch_size):
        chunk = [f["input_ids"] for f in features[start:start + batch_size]]
        longest = max(len(x) for x in chunk)
        ids = np.full((len(chunk), longest), pad, dtype="int64")
        for i, x in enumerate(chunk):
            ids[i, : len(x)] = x
        out.append((ids,))
    return out


def check_out_dir(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise WorkbenchError(f"The output folder {out} already exists and is not empty. Choose a new folder "
                             "(or delete the old export first); an export never overwrites files.")


def _package_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _median_ms(fn, inputs, repeat: int = 1) -> float:
    times = []
    for x in inputs:
        for _ in range(repeat):
            t = time.perf_counter()
            fn(x)
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return times[len(times) // 2] if times else float("nan")


def export_run(project_dir, run_id: str, out_dir=None, *, checkpoint: str = "best",
               formats: Sequence[str] = DEFAULT_FORMATS, int8: bool = False, gguf_type: str = "f16",
               tolerance: float | None = None, parity_rows: int = PARITY_ROWS, evaluate: bool = True,
               check_script: bool = True, wheelhouse: bool = False, target: str | None = None,
               progress: Progress | None = None) -> dict[str, Any]:
    """Export ``run_id`` into ``out_dir`` (default ``<project>/exports/<run_id>``).

    Returns the bundle report (the content of bundle.json's ``checks`` plus paths);
    raises :class:`WorkbenchError` for bad input and :class:`ExportError` when a check
    fails (static or merged parity beyond the bound, tokenizer or prompt mismatch).
    ``tolerance`` is the parity bound relative to the outputs' scale; None derives it from
    the model's size (engine/parity.py).
    """
    formats = [f.strip() for f in formats if f.strip()]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise WorkbenchError(f"Unknown export format(s) {', '.join(unknown) or '(none)'}; choose from "
                             f"{', '.join(FORMATS)}.")
    if "gguf" in formats and gguf_type not in ("f16", "q8_0", "f32"):
        raise WorkbenchError(f"GGUF type {gguf_type!r} is unknown; choose f16, q8_0 or f32.")
    project = Project.open(project_dir)
    trained = resolve_trained_run(project, run_id, checkpoint)
    out = Path(out_dir) if out_dir else project.exports_dir / trained.run_id
    check_out_dir(out)
    template = trained.spec  # the run's own labels, prompt and columns
    bundle_target(target)  # an unknown platform is refused before anything is made
    if int8 and int8_refusal(trained.job.base_model, trained.task):
        raise WorkbenchError(NO_INT8[int8_refusal(trained.job.base_model, trained.task)])
    no_gguf = gguf_refusal(trained.job.base_model, trained.task, trained.job.head) if "gguf" in formats else None
    if no_gguf:  # before anything is loaded or evaluated
        raise WorkbenchError(NO_GGUF[no_gguf])
    report = progress or (lambda s, d, t: None)

    eval_result = None
    if evaluate:
        from .evaluate import evaluate_run, read_eval

        eval_result = read_eval(trained.run_dir)
        if not eval_result or eval_result.get("source") != trained.source:
            report("evaluate", 0, 1)
            eval_result = evaluate_run(project.root, trained.run_id, checkpoint=checkpoint, progress=progress)

    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.partial-{secrets.token_hex(3)}"
    staging.mkdir()
    try:
        result = _export_into(staging, trained, template, formats=formats, int8=int8, gguf_type=gguf_type,
                              tolerance=tolerance,
                              parity_rows=parity_rows, eval_result=eval_result, check_script=check_script,
                              wheelhouse=wheelhouse, target=target,
                              report=report)
        if out.exists():
            out.rmdir()  # empty (checked above)
        os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    result["out"] = str(out)
    return result


def _parity_records(trained: TrainedRun, n: int) -> list[dict]:
    project = trained.project
    for split in ("test", "val", "train"):
        path = project.split_path(split)
        if path.is_file():
            records = D.read_jsonl(path)
            if records:
                return records[:n]
    raise ExportError(f"Project {project.root} has no prepared records to check the export on.")


def _export_into(stage: Path, trained: TrainedRun, template: TaskSpec, *, formats, int8, tolerance, gguf_type,
                 parity_rows, eval_result, check_script, report, wheelhouse=False, target=None) -> dict[str, Any]:
    scratch = stage / ".full-sequence"  # an instruction model's full-sequence graph: ONNX and int8 source only
    try:
        return _export_stages(stage, scratch, trained, template, formats=formats, int8=int8, tolerance=tolerance,
                              gguf_type=gguf_type, parity_rows=parity_rows, eval_result=eval_result,
                              check_script=check_script, report=report, wheelhouse=wheelhouse, target=target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _export_stages(stage: Path, scratch: Path, trained: TrainedRun, template: TaskSpec, *, formats, int8, tolerance,
                   gguf_type, parity_rows, eval_result, check_script, report, wheelhouse=False, target=None
                   ) -> dict[str, Any]:
    from .evaluate import load_trained, system_prompt

    M.set_library_log_level("ERROR")
    task = template.task.value
    job = trained.job
    max_length = job.max_length
    report("load", 0, 1)
    model, tokenizer = load_trained(trained, device="cpu", merge=True)
    family = M.model_family(model.config)
    classifier = B.is_classifier(model)
    if classifier and "gguf" in formats:
        raise ExportError(NO_GGUF["builtin_classifier" if B.is_builtin_classifier(model) else "head"])
    # the Paddle Inference model, predict.py and serve.py: only where a format needs them
    runtime = bool(set(formats) & set(RUNTIME_FORMATS)) or int8
    system, user_format = D.prompt_spec(model, system_prompt(template), template.user_format, template.input_roles)
    records = _parity_records(trained, parity_rows)
    user_texts = [D.format_user(user_format, r) for r in records]
    prompts = D.build_prompts(tokenizer, records, system=system, user_format=user_format)
    bound = float(tolerance) if tolerance is not None else P.fp32_bound(model.config)
    checks: dict[str, Any] = {"tolerance": bound, "parity_rows": len(records),
                              "parity": {"relative_to": "the largest output of the trained model", "bound": bound,
                                         "derived": tolerance is None, **P.model_shape(model.config)}}

    fmt = None
    if runtime:  # --- tokenizer and prompt, as predict.py will see them
        report("tokenizer", 0, 1)
        fmt = PromptFormat(tokenizer, system)
        fmt.check(user_texts)
        tok_file = _export_tokenizer(tokenizer, stage / "tokenizer")
        _check_tokenizer_file(tok_file, tokenizer, prompts)

    # --- merged weights
    merged = None
    if "merged" in formats:
        report("merged", 0, 1)
        merged = _save_merged(model, tokenizer, stage / "merged", records, template, max_length, system=system,
                              user_format=user_format)

    # --- static model: classification's graph ships as static/model; an instruction model's
    # full-sequence graph is traced (outside the bundle) only as the source of ONNX and int8
    label_len, input_names, inputs, expected, eager_layer = 0, ["input_ids"], [], [], None
    make_layer = _lm_logits_layer
    static_prefix, onednn, compare_kw = None, False, {}
    multi_label = bool(template.multi_label)
    threshold = float(((eval_result or {}).get("metrics") or {}).get("threshold", 0.5)) if multi_label else None
    if task == "classification":
        labels = list(template.labels)
        if classifier:  # a classification head: the graph is the model and a softmax
            make_layer = _head_probs_layer
        else:
            _, label_len = label_table(tokenizer, labels)
            make_layer = lambda m: _label_scorer_layer(m, tokenizer, labels)  # noqa: E731
        inputs = batches_for_classification(tokenizer, prompts, max_length, label_len)
        input_names = ["input_ids", "attention_mask"]
    else:
        feats = D.build_features(tokenizer, records, task=task, system=system, user_format=user_format,
                                 max_length=max_length)
        inputs = batches_for_lm(tokenizer, feats)
    full_sequence = runtime and (task == "classification" or "onnx" in formats or int8)
    if full_sequence:
        report("static", 0, 1)
        eager_layer = make_layer(model)
        eager_layer.eval()
        expected = [run_eager(eager_layer, x) for x in inputs]
        if task == "classification":
            compare_kw = {"probabilities": True, "scale": _probability_scale(model, classifier, inputs, label_len)}
        else:
            compare_kw = {"masks": _lm_masks(feats)}
        where = stage / "static" / "model" if task == "classification" else scratch / "model"
        static_prefix = save_static(make_layer(model), where, input_names)
        static = _check_static(static_prefix, inputs, expected, bound, **compare_kw)
        if task == "classification":
            static.update(_check_labels_against_engine(model, tokenizer, prompts, labels, expected, max_length,
                                                       threshold=threshold, allow_empty=template.no_label_rows))
            static["files"] = ["static/model.json", "static/model.pdiparams"]
            checks["static"] = static
        else:  # predict.py never runs it: not shipped
            checks["full_sequence"] = {**static, "shipped": False, "files": []}
        onednn = static["onednn_used"]

    # --- instruction tasks: the generation model with the key/value cache is the static model
    if runtime and task == "instruction":
        report("generate", 0, 1)
        checks["generate"] = _export_generation(model, tokenizer, prompts, stage, max_length, bound)
        gen = checks["generate"]
        checks["static"] = {"status": "ok", "model": "static/generate", "max_abs_diff": gen["max_abs_diff"],
                            "relative_diff": gen.get("relative_diff"), "bound": bound,
                            "greedy_identical": gen["greedy_identical"], "prompts": gen["prompts"],
                            "files": gen["files"]}

    # --- latency: the static predictor against the eager model, same inputs, one by one
    if static_prefix is not None:
        report("latency", 0, 1)
        checks["latency"] = _measure_latency(static_prefix, eager_layer, inputs, onednn=onednn, task=task)

    # --- ONNX: the trained model's outputs for its check now; the conversion once the model is let go
    gen_check = None
    if "onnx" in formats and task == "instruction":
        from .export_generation import onnx_check_inputs

        gen_check = onnx_check_inputs(model, D.encode_prompt(tokenizer, prompts[0])[:64])

    # one set of generation settings, for bundle.json (predict.py, serve.py) and the Modelfile alike
    from .generate import export_generation

    generation = export_generation(max_new_tokens=(eval_result or {}).get("metrics", {}).get("max_new_tokens"),
                                   context=max_length)
    # --- GGUF for llama.cpp and ollama (engine/gguf/export_gguf.py), from the merged weights
    if "gguf" in formats:
        from .gguf.export_gguf import GGUFExportError, gguf_for_bundle

        report("gguf", 0, 1)
        try:
            checks["gguf"] = gguf_for_bundle(
                stage, model, tokenizer, task=task, records=records, system=system, user_format=user_format,
                max_length=max_length, generation=generation, base_model=job.base_model, run_name=trained.run_id,
                merged_folder=stage / "merged" if "merged" in formats else None, dtype=gguf_type,
                registered_id=job.base_model_name, progress=report)
        except GGUFExportError as exc:
            raise ExportError(str(exc)) from exc

    models_map: dict[str, str] = {}
    if runtime:
        models_map = {"static": "static/model"} if task == "classification" else {"generate": "static/generate"}
    if "static" not in formats and "static" in checks:
        checks["static"]["shipped"] = False  # built for the ONNX conversion and predict.py only
    del eager_layer

    # --- the base model's licence, as its own text, in every bundle of a model that has one
    licence = _write_licence(stage, job.base_model, job.base_model_name)

    # --- bundle.json, predict.py, requirements, model card
    bundle = {
        "format_version": BUNDLE_VERSION,
        "task": task,
        "labels": list(template.labels) if task == "classification" else [],
        # several labels per row: each label's sigmoid, given at or above the threshold tuned on validation
        "multi_label": multi_label,
        "threshold": threshold,
        # some rows have none of the labels: a row clearing no threshold gets an empty set
        "no_label_rows": bool(multi_label and template.no_label_rows),
        "template": template.template,
        "fields": [r for r in template.roles if r not in ("label", "output")],
        "columns": {r: c for r, c in template.columns.items() if r not in ("label", "output")},
        "user_format": user_format,
        # predict.py cleans new text as the training text was cleaned
        "input_normalization": input_normalization(
            trained.project.config.recipe, [r for r in template.roles if r not in ("label", "output")]),
        "system": system,
        "prompt_prefix": fmt.prefix if fmt else None,
        "prompt_suffix": fmt.suffix if fmt else None,
        "tokenizer": "tokenizer/tokenizer.json" if runtime else None,
        # predict.py, serve.py and the Paddle Inference model: only with the static or onnx formats
        "runtime": runtime,
        "bos_token": tokenizer.bos_token if tokenizer.bos_token else None,
        "bos_id": tokenizer.bos_token_id if tokenizer.bos_token else None,
        "eos_ids": _eos_ids(tokenizer, model),
        "stop_texts": D.stop_texts(tokenizer),  # the fallback format's turn markers, as evaluation stops at them
        # the chat format in pieces, for serve.py's conversations (system message, earlier turns)
        "chat": _bundle_chat(tokenizer, system) if task == "instruction" and runtime else None,
        # the repetition guards evaluation generated with; predict.py and serve.py use them too
        "generation": generation,
        "pad_id": tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id,
        "clean_up_tokenization_spaces": bool(getattr(tokenizer, "clean_up_tokenization_spaces", False)),
        "max_length": max_length,
        "prompt_tail_tokens": D.PROMPT_TAIL_TOKENS,
        "label_length": label_len,
        "max_new_tokens": generation["max_new_tokens"],
        "max_position_embeddings": int(getattr(model.config, "max_position_embeddings", 0) or 0) or None,
        "inputs": input_names,
        "output": "probabilities" if task == "classification" else "logits",
        "onednn": onednn,
        "models": models_map,
        "onnx": None,  # set once converted, below
        "gguf": (checks["gguf"]["files"] if "gguf" in checks else None),
        # instruction tasks: one decoding step with the key/value cache (see export_generation.py)
        "generate": ({"inputs": list(GENERATION_INPUTS), "cache": checks["generate"]["cache"],
                      "onednn": checks["generate"]["onednn_ok"],
                      # 1 unless all the cores generated clearly faster at export (large models)
                      "threads": checks["generate"].get("threads"),
                      "onnx": None} if "generate" in checks else None),  # set once converted, below
        "run": trained.run_id,
        "source": trained.source,
        "base_model": job.base_model,
        "base_model_name": licence.pop("model_name", None),
        "licence": licence or None,
        "family": family,
        "method": trained.method,
        "created": round(time.time(), 3),
        "exported_with": {k: _package_version(k) for k in ("paddlepaddle", "paddleformers", "paddle2onnx",
                                                           "onnxruntime", "tokenizers")},
        "checks": checks,
    }
    write_bundle = lambda: (stage / "bundle.json").write_text(  # noqa: E731
        json.dumps(bundle, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    write_bundle()
    if runtime:
        for name in BUNDLE_SCRIPTS:
            shutil.copyfile(BUNDLE_SOURCES.get(name, Path(__file__).parent / "bundle" / name), stage / name)
        from .bundle_env import WheelhouseError, write_environment

        report("requirements", 0, 1)
        try:
            checks["requirements"] = write_environment(stage, wheelhouse=wheelhouse, scripts=BUNDLE_SCRIPTS,
                                                       target=target)
        except WheelhouseError as exc:
            raise ExportError(str(exc)) from exc

    script_rows = 4 if task == "classification" else 2
    if check_script and runtime:  # the engine's answers first: int8 rewrites the model's linears
        report("predict.py", 0, 1)
        script_want = _engine_answers(template, model, tokenizer, prompts[:script_rows], max_length, threshold)
    # --- weight-only int8 (last of what needs the model: it rewrites the model's linears in place)
    if int8:
        report("int8", 0, 1)
        checks["int8"] = _export_int8(model, make_layer, stage / "int8" / "model", input_names, trained, template,
                                      tokenizer, max_length, label_len, static_prefix, onednn,
                                      system=system, user_format=user_format)
        models_map["int8"] = "int8/model"
    bundle["checks"] = checks
    write_bundle()
    # predict.py loads the Paddle Inference model in a process of its own: this one lets go of the
    # trained model first (Gemma 3 270M: 1.07 GB each, 4.0 GB together with all this process held)
    del model
    release_freed_memory()
    if merged is not None:  # reloaded now that the trained model is let go
        checks["merged"] = _check_merged(merged, bound)
        del merged
        release_freed_memory()
        write_bundle()
    # paddle2onnx takes about 7 copies of the weights (Gemma 3 270M: 7.5 GB for the 1.1 GB graph),
    # so it runs once the trained model is let go (the export's peak: 13.4 GB before, 13.0 after)
    if "onnx" in formats:
        report("onnx", 0, 1)
        checks["onnx"] = _export_onnx(static_prefix, stage / "onnx" / "model.onnx", inputs, expected, bound,
                                      **compare_kw)
        bundle["onnx"] = "onnx/model.onnx" if checks["onnx"]["status"] == "ok" else None
        if gen_check is not None:
            checks["onnx_generate"] = _export_onnx(stage / "static" / "generate", stage / "onnx_generate" / "model.onnx",
                                                   *gen_check, bound)
            if checks["onnx_generate"]["status"] == "ok":
                checks["onnx_generate"]["files"] = ["onnx_generate/model.onnx"]
                bundle["generate"]["onnx"] = "onnx_generate/model.onnx"
        del expected, gen_check
        write_bundle()
    if check_script and runtime:
        report("predict.py", 0, 1)
        checks["predict_script"] = _check_predict_script(stage, records[:script_rows], template, script_want)
        write_bundle()
    from .modelcard import model_card

    (stage / "README.md").write_text(model_card(bundle, trained, template, eval_result), encoding="utf-8")
    return {"run": trained.run_id, "source": trained.source, "task": task, "family": family,
            "formats": {f: _format_summary(f, checks) for f in formats}, "int8": checks.get("int8"),
            "latency": checks.get("latency"), "predict_script": checks.get("predict_script"), "note": trained.note,
            "checks": checks}


def _write_licence(stage: Path, base_model: str | None, registered_id: str | None) -> dict[str, Any]:
    """``LICENSE`` in the bundle when the base model has a licence: its name, source and own text
    (a licence page reduced to its terms, core/licence_text.py). Returns bundle.json's
    ``licence`` (empty without one), with the base model's name under ``model_name``."""
    from ..core.licence_text import licence_notice
    from .gguf.export_gguf import base_model_info

    info, folder = base_model_info(base_model, registered_id)
    lic = info.get("licence") or {}
    out: dict[str, Any] = {"model_name": info.get("name")}
    file = (folder / lic["file"]) if folder and lic.get("file") else None
    text = licence_notice(lic.get("name"), file if file and file.is_file() else None, lic.get("url"))
    if text:
        (stage / "LICENSE").write_text(text, encoding="utf-8")
        out.update(name=lic.get("name"), file="LICENSE", url=lic.get("url"),
                   source_file=file.name if file and file.is_file() else None)
    return out


def _bundle_chat(tokenizer, system: str | None) -> dict[str, Any] | None:
    from .chat_format import bundle_chat
    from .gguf.modelfile import ModelfileError

    try:
        return bundle_chat(tokenizer, system)
    except ModelfileError:  # a template that repeats the user's text: one-message chats only
        return None


def _export_generation(model, tokenizer, prompts, stage: Path, max_length: int, bound: float) -> dict[str, Any]:
    from . import export_generation as G

    from .evaluate import prompt_budgets

    prompt_ids, _ = prompt_budgets(tokenizer, prompts[:4], max_new_tokens=G.CHECK_NEW_TOKENS, max_length=max_length)
    try:
        prefix = G.save_generation_model(model, stage / "static" / "generate")
        return G.check_generation(prefix, model, prompt_ids, bound)
    except G.GenerationExportError as exc:
        raise ExportError(f"{exc} So the bundle was not exported.") from exc


def _format_summary(fmt: str, checks: dict) -> dict[str, Any]:
    c = checks.get(fmt, {})
    if fmt == "static":
        return {"status": "ok", "max_abs_diff": c.get("max_abs_diff"), "relative_diff": c.get("relative_diff"),
                "onednn_max_abs_diff": c.get("onednn_max_abs_diff"), "files": c.get("files")}
    if fmt == "merged":
        return {"status": "ok", "max_abs_diff": c.get("max_abs_diff"), "layout": c.get("layout"),
                "files": c.get("files")}
    return {"status": c.get("status"), "max_abs_diff": c.get("max_abs_diff"), "reason": c.get("reason"),
            "files": c.get("files")}


def _eos_ids(tokenizer, model) -> list[int]:
    from .generate import eos_ids

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
                "without the training software.") from exc
    backend.save(str(path))
    return path


def _check_tokenizer_file(path: Path, tokenizer, prompts: Sequence[str]) -> None:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(path))
    for prompt in prompts:
        a = tok.encode(prompt, add_special_tokens=False).ids
        b = list(tokenizer.encode(prompt, add_special_tokens=False))
        if a != b:
            raise ExportError("The exported tokenizer.json tokenizes a test prompt differently from the model's "
                              "tokenizer, so predict.py would feed the model different tokens.")


def _check_static(prefix: Path, inputs, expected, bound: float, **compare_kw) -> dict[str, Any]:
    """Paddle Inference on the CPU, plain and with oneDNN, against the eager model (engine/parity.py:
    the difference relative to the outputs' scale within ``bound``, the same greedy choices); and
    which of the two is faster on these inputs (``onednn_used``: both right and oneDNN faster)."""
    plain = create_predictor(prefix, onednn=False)
    figures = P.compare(expected, [run_predictor(plain, x) for x in inputs], bound, **compare_kw)
    plain_ms = _run_ms(plain, inputs)
    del plain
    release_freed_memory()
    if not figures["ok"]:
        raise ExportError(P.explain("The Paddle Inference model", figures) + " It was not exported.")
    fast = None
    try:
        fast = create_predictor(prefix, onednn=True)
        fast_figures = P.compare(expected, [run_predictor(fast, x) for x in inputs], bound, **compare_kw)
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
    return {"status": "ok", **P.summary(figures),
            "onednn_max_abs_diff": None if fast_figures is None else fast_figures["max_abs_diff"],
            "onednn_relative_diff": None if fast_figures is None else fast_figures["relative_diff"],
            "onednn_ok": ok, "onednn_used": used, "plain_ms": round(plain_ms, 3),
            "onednn_ms": None if onednn_ms is None else round(onednn_ms, 3), "onednn_note": note}


def _lm_masks(feats, batch_size: int = 4):
    """Which positions of :func:`batches_for_lm`'s batches are tokens (not padding)."""
    import numpy as np

    out = []
    for start in range(0, len(feats), batch_size):
        chunk = [len(f["input_ids"]) for f in feats[start:start + batch_size]]
        mask = np.zeros((len(chunk), max(chunk)), dtype=bool)
        for i, n in enumerate(chunk):
            mask[i, :n] = True
        out.append(mask)
    return out


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

    from .evaluate import classify_with_probs

    engine = np.asarray(classify_with_probs(model, tokenizer, prompts, labels, max_length=max_length))
    ours = np.concatenate(expected, axis=0)
    diff = float(np.max(np.abs(engine - ours)))
    if threshold is not None:
        want = MX.label_sets_from_probabilities(engine.tolist(), labels, threshold, allow_empty)
        got = MX.label_sets_from_probabilities(ours.tolist(), labels, threshold, allow_empty)
        agree = np.array([a == b for a, b in zip(want, got)])
        clear = np.abs(engine - threshold).min(axis=1) > 1e-3
        if np.any(~agree & clear):
            raise ExportError("The exported classifier gives other label sets than the evaluation on some test "
                              "inputs, so it was not exported.")
        return {"engine_label_agreement": float(agree.mean()), "engine_max_abs_diff": diff}
    agree = ours.argmax(1) == engine.argmax(1)
    top2 = np.sort(engine, axis=1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0]) > 1e-3
    if np.any(~agree & clear):
        raise ExportError("The exported classifier picks a different label from the evaluation on some test "
                          "inputs, so it was not exported.")
    return {"engine_label_agreement": float(agree.mean()), "engine_max_abs_diff": diff}


def _save_merged(model, tokenizer, folder: Path, records, template, max_length, *, system,
                 user_format) -> dict[str, Any]:
    """Save the merged model, and take the trained model's outputs that the folder, reloaded
    once the trained model is let go (:func:`_check_merged`), must give again. Both models at
    once took 3.9 GB for Gemma 3 270M; a language model's check reads 2 rows of at most 64
    tokens, whose logits over the vocabulary are kept until then (134 MB for Gemma 3 270M)."""
    import numpy as np

    M.save_model(model, tokenizer, folder)
    cfg_path = folder / "config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    for key in M.CPU_SAFE_FLAGS:  # CPU-only switches; load_model sets them again on a CPU
        cfg.pop(key, None)
    cfg_path.write_text(json.dumps(cfg, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    classifier = B.is_classifier(model)
    if classifier:
        prompts = D.build_prompts(tokenizer, records[:4], system=system, user_format=user_format)
        batches = batches_for_classification(tokenizer, prompts, max_length, 0)
        layer = _head_probs_layer
    else:
        feats = D.build_features(tokenizer, records[:2], task=template.task.value, system=system,
                                 user_format=user_format, max_length=min(max_length, 64))
        batches = batches_for_lm(tokenizer, feats)
        layer = _lm_logits_layer
    return {"folder": folder, "config": cfg, "classifier": classifier, "layer": layer, "batches": batches,
            "expected": [run_eager(layer(model), x) for x in batches],
            "params": int(sum(int(np.prod(p.shape)) for p in model.parameters()))}


def _check_merged(saved: dict[str, Any], bound: float) -> dict[str, Any]:
    """Reload the folder :func:`_save_merged` wrote and check it gives the trained model's outputs."""
    folder = saved["folder"]
    reloaded = M.load_model(folder, for_training=False, device="cpu")
    reloaded.eval()
    got = [run_eager(saved["layer"](reloaded), x) for x in saved["batches"]]
    del reloaded
    figures = P.compare(saved["expected"], got, bound, probabilities=saved["classifier"])
    if not figures["ok"]:
        raise ExportError(P.explain("The merged weights, reloaded,", figures) + " They were not exported.")
    safe = sorted(p.name for p in folder.glob("*.safetensors"))
    layout = M._weights_layout(M._safetensors_shapes([folder / s for s in safe]), saved["config"]) if safe else None
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
    versions = {"paddle2onnx": _package_version("paddle2onnx"), "onnxruntime": _package_version("onnxruntime"),
                "paddlepaddle": _package_version("paddlepaddle"), "opset": ONNX_OPSET}

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
    figures = P.compare(expected, got, bound, **compare_kw)
    if not figures["ok"]:
        return failed(P.explain("The ONNX model", figures).split(" This is not rounding")[0]
                      + f" with paddle2onnx {versions['paddle2onnx']} and onnxruntime {versions['onnxruntime']}: "
                      "more than rounding, so it does not ship.")
    _ = np
    return {"status": "ok", **P.summary(figures), "versions": versions, "files": ["onnx/model.onnx"],
            "inputs": names}


def _export_int8(model, make_layer, prefix: Path, input_names, trained, template, tokenizer, max_length,
                 label_len, fp32_prefix: Path, onednn: bool, *, system, user_format) -> dict[str, Any]:
    """A weight-only int8 static model and its accuracy change against fp32 on the test split.

    Runs last: it replaces the linears of ``model`` in place.
    """
    import numpy as np

    records = D.read_jsonl(trained.project.split_path("test"))[:200] or _parity_records(trained, 64)
    prompts = D.build_prompts(tokenizer, records, system=system, user_format=user_format)
    if template.task.value == "classification":
        inputs = batches_for_classification(tokenizer, prompts, max_length, label_len)
    else:
        feats = D.build_features(tokenizer, records[:64], task="instruction", system=system,
                                 user_format=user_format, max_length=max_length)
        inputs = batches_for_lm(tokenizer, feats)
    fp32 = create_predictor(fp32_prefix, onednn=onednn)
    ref = [run_predictor(fp32, x) for x in inputs]
    del fp32
    replaced = _int8_linears(model)
    if not replaced:  # never a copy of the fp32 model under the name int8
        raise ExportError("This model has no linear layers for weight-only int8 to quantise. Export it without int8.")
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
        feats = D.build_features(tokenizer, records[:64], task="instruction", system=system,
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
                if lab != D.IGNORE_INDEX:
                    total -= logp[row, pos, lab]
                    count += 1
    return total / count if count else float("nan")


def _engine_answers(template, model, tokenizer, prompts, max_length, threshold) -> list[str]:
    """What the evaluation answers to ``prompts``: predict.py's check compares its output with these."""
    from .evaluate import classify_with_probs, generate_answers

    labels = list(template.labels)
    if template.task.value != "classification":
        return generate_answers(model, tokenizer, prompts, max_new_tokens=24, max_length=max_length)
    probs = classify_with_probs(model, tokenizer, prompts, labels, max_length=max_length)
    if template.multi_label:
        return [LABEL_SET_JOINER.join(s) for s in
                MX.label_sets_from_probabilities(probs, labels, threshold, bool(template.no_label_rows))]
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
            raise ExportError(f"The bundle's predict.py failed on test rows (exit {res.returncode}): {tail[:600]}")
        with open(dst, encoding="utf-8-sig", newline="") as fh:
            got = [r["prediction"] for r in csv.DictReader(fh)]
    if template.task.value == "classification" and got != want:
        what = "label sets" if template.multi_label else "labels"
        raise ExportError(f"The bundle's predict.py gave {what} {got} where the evaluation gives {want}.")
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
