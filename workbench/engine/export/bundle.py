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

The stages are here; the graphs are in :mod:`.graphs`, the checks in :mod:`.checks`, the
formats beside the static model in :mod:`.formats`.

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
import os
import secrets
import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from workbench.core.cleaning import input_normalization
from workbench.core.errors import WorkbenchError
from workbench.core.operations.export import (
    DEFAULT_FORMATS,
    NO_GGUF,
    NO_INT8,
    bundle_target,
    gguf_refusal,
    int8_refusal,
)
from workbench.core.project import Project
from workbench.core.task import TaskSpec
from workbench.core.trained import TrainedRun, resolve_trained_run
from workbench.engine import examples, families
from workbench.engine.export import parity
from workbench.engine.export.checks import (
    _check_labels_against_engine,
    _check_merged,
    _check_predict_script,
    _check_static,
    _check_tokenizer_file,
    _engine_answers,
    _measure_latency,
    _probability_scale,
    parity_records,
)
from workbench.engine.export.environment import package_version
from workbench.engine.export.formats import (
    _bundle_chat,
    _eos_ids,
    _export_generation,
    _export_int8,
    _export_onnx,
    _export_tokenizer,
    _save_merged,
)
from workbench.engine.export.graphs import (
    PromptFormat,
    _head_probs_layer,
    _label_scorer_layer,
    _lm_logits_layer,
    _lm_masks,
    batches_for_classification,
    batches_for_lm,
    label_table,
)
from workbench.engine.export.static_graph import (
    ExportError,
    run_eager,
    save_static,
)
from workbench.engine.models import char_classifier, loading
from workbench.engine.models.devices import release_freed_memory

FORMATS = ("static", "merged", "onnx", "gguf")


RUNTIME_FORMATS = ("static", "onnx")  # formats that need the Paddle Inference model and predict.py


PARITY_ROWS = 16


BUNDLE_VERSION = 1


# copied verbatim into every bundle: the shared model code, the command line, the service, and
# the importer's own rules for cutting a file into rows (one source each, see bundle_runtime)
BUNDLE_SCRIPTS = ("bundle_runtime.py", "predict.py", "serve.py", "serve_batcher.py", "serve_requests.py",
                  "io_sniff.py", "io_header.py")


BUNDLE_SOURCES = {"io_sniff.py": Path(__file__).parents[2] / "core" / "io" / "textsniff.py",
                  "io_header.py": Path(__file__).parents[2] / "core" / "io" / "header.py"}


GENERATION_INPUTS = ("input_ids", "attention_mask", "position_ids", "past_keys", "past_values")


Progress = Callable[[str, int, int], None]


def check_out_dir(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise WorkbenchError(f"The output folder {out} already exists and is not empty. Choose a new folder "
                             "(or delete the old export first); an export never overwrites files.",
                             code="export_folder_not_empty", path=str(out))


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
    the model's size (engine/export/parity.py).
    """
    formats = [f.strip() for f in formats if f.strip()]
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown or not formats:
        raise WorkbenchError(f"Unknown export format(s) {', '.join(unknown) or '(none)'}; choose from "
                             f"{', '.join(FORMATS)}.", code="export_formats_unknown", formats=unknown,
                             known=list(FORMATS))
    if "gguf" in formats and gguf_type not in ("f16", "q8_0", "f32"):
        raise WorkbenchError(f"GGUF type {gguf_type!r} is unknown; choose f16, q8_0 or f32.", code="gguf_type_unknown",
                             type=str(gguf_type))
    project = Project.open(project_dir)
    trained = resolve_trained_run(project, run_id, checkpoint)
    project = trained.project  # at the data version the run trained on
    out = Path(out_dir) if out_dir else project.exports_dir / trained.run_id
    check_out_dir(out)
    template = trained.spec  # the run's own labels, prompt and columns
    bundle_target(target)  # an unknown platform is refused before anything is made
    if int8 and int8_refusal(trained.job.base_model, trained.task):
        why = int8_refusal(trained.job.base_model, trained.task)
        raise WorkbenchError(NO_INT8[why], code="no_int8", why=why)
    no_gguf = gguf_refusal(trained.job.base_model, trained.task, trained.job.head) if "gguf" in formats else None
    if no_gguf:  # before anything is loaded or evaluated
        raise WorkbenchError(NO_GGUF[no_gguf], code="no_gguf", why=no_gguf)
    report = progress or (lambda s, d, t: None)

    eval_result = None
    if evaluate:
        from workbench.engine.evaluation.evaluate import evaluate_run
        from workbench.engine.inference.trained import read_eval

        eval_result = read_eval(trained.run_dir)
        # a preference run's evaluation from before eval judged its held-out pairs is made again
        if not eval_result or eval_result.get("source") != trained.source \
                or (trained.method == "dpo" and "preference" not in eval_result):
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
    from workbench.engine.inference.trained import load_trained, system_prompt

    loading.set_library_log_level("ERROR")
    task = template.task.value
    job = trained.job
    max_length = job.max_length
    report("load", 0, 1)
    model, tokenizer = load_trained(trained, device="cpu", merge=True)
    family = families.model_family(model.config)
    classifier = char_classifier.is_classifier(model)
    if classifier and "gguf" in formats:
        why = "builtin_classifier" if char_classifier.is_builtin_classifier(model) else "head"
        raise ExportError(NO_GGUF[why], code="no_gguf", why=why)
    # the Paddle Inference model, predict.py and serve.py: only where a format needs them
    runtime = bool(set(formats) & set(RUNTIME_FORMATS)) or int8
    system, user_format = examples.prompt_spec(model, system_prompt(template), template.user_format, template.input_roles)
    records = parity_records(trained, parity_rows)
    user_texts = [examples.format_user(user_format, r) for r in records]
    prompts = examples.build_prompts(tokenizer, records, system=system, user_format=user_format)
    bound = float(tolerance) if tolerance is not None else parity.fp32_bound(model.config)
    checks: dict[str, Any] = {"tolerance": bound, "parity_rows": len(records),
                              "parity": {"relative_to": "the largest output of the trained model", "bound": bound,
                                         "derived": tolerance is None, **parity.model_shape(model.config)}}

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
        feats = examples.build_features(tokenizer, records, task=task, system=system, user_format=user_format,
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
        from workbench.engine.export.cached_generation import onnx_check_inputs

        gen_check = onnx_check_inputs(model, examples.encode_prompt(tokenizer, prompts[0])[:64])

    # one set of generation settings, for bundle.json (predict.py, serve.py) and the Modelfile alike
    from workbench.engine.inference.generate import export_generation

    generation = export_generation(max_new_tokens=(eval_result or {}).get("metrics", {}).get("max_new_tokens"),
                                   context=max_length)
    # --- GGUF for llama.cpp and ollama (engine/export/gguf_format.py), from the merged weights
    if "gguf" in formats:
        from workbench.engine.export.gguf_format import GGUFExportError, gguf_for_bundle

        report("gguf", 0, 1)
        try:
            checks["gguf"] = gguf_for_bundle(
                stage, model, tokenizer, task=task, records=records, system=system, user_format=user_format,
                max_length=max_length, generation=generation, base_model=job.base_model, run_name=trained.run_id,
                merged_folder=stage / "merged" if "merged" in formats else None, dtype=gguf_type,
                registered_id=job.base_model_name, progress=report)
        except GGUFExportError as exc:
            raise ExportError(str(exc), code=exc.code, **exc.fields) from exc

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
        "stop_texts": examples.stop_texts(tokenizer),  # the fallback format's turn markers, as evaluation stops at them
        # the chat format in pieces, for serve.py's conversations (system message, earlier turns)
        "chat": _bundle_chat(tokenizer, system) if task == "instruction" and runtime else None,
        # the repetition guards evaluation generated with; predict.py and serve.py use them too
        "generation": generation,
        "pad_id": tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id,
        "clean_up_tokenization_spaces": bool(getattr(tokenizer, "clean_up_tokenization_spaces", False)),
        "max_length": max_length,
        "prompt_tail_tokens": examples.PROMPT_TAIL_TOKENS,
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
        # a classifier with word statistics mixed in: their share of each answer, as the model answers
        "linear_share": (float(model.linear_weight) if char_classifier.has_linear_part(model) else None),
        # a preference run: the run it tuned, its loss and beta, and the held-out figures
        "preference": ({"from_run": job.from_run, "loss": job.dpo_loss, "beta": job.dpo_beta,
                        **{k: v for k, v in ((eval_result or {}).get("preference") or {}).items()
                           if k not in ("from_run", "loss", "beta")}}
                       if trained.method == "dpo" else None),
        "created": round(time.time(), 3),
        "exported_with": {k: package_version(k) for k in ("paddlepaddle", "paddleformers", "paddle2onnx",
                                                           "onnxruntime", "tokenizers")},
        "checks": checks,
    }
    write_bundle = lambda: (stage / "bundle.json").write_text(  # noqa: E731
        json.dumps(bundle, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    write_bundle()
    if runtime:
        for name in BUNDLE_SCRIPTS:
            shutil.copyfile(BUNDLE_SOURCES.get(name, Path(__file__).parents[1] / "bundle" / name), stage / name)
        from workbench.engine.export.environment import WheelhouseError, write_environment

        report("wheels" if wheelhouse else "requirements", 0, 1)  # the wheels only when asked for
        try:
            checks["requirements"] = write_environment(stage, wheelhouse=wheelhouse, scripts=BUNDLE_SCRIPTS,
                                                       target=target)
        except WheelhouseError as exc:
            raise ExportError(str(exc), code=exc.code, **exc.fields) from exc

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
    from workbench.engine.export.modelcard import model_card

    (stage / "README.md").write_text(model_card(bundle, trained, template, eval_result), encoding="utf-8")
    return {"run": trained.run_id, "source": trained.source, "task": task, "family": family,
            "formats": {f: _format_summary(f, checks) for f in formats}, "int8": checks.get("int8"),
            "latency": checks.get("latency"), "predict_script": checks.get("predict_script"), "note": trained.note,
            "checks": checks}


def _write_licence(stage: Path, base_model: str | None, registered_id: str | None) -> dict[str, Any]:
    """``LICENSE`` in the bundle when the base model has a licence: its name, source and own text
    (a licence page reduced to its terms, core/licence_text.py). Returns bundle.json's
    ``licence`` (empty without one), with the base model's name under ``model_name``."""
    from workbench.core.licence_text import licence_notice
    from workbench.engine.export.gguf_format import base_model_info

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
