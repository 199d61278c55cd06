"""The model card (README.md) of an exported bundle: what the model is, what it was trained
on, how well it does, and what was checked when it was exported."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from workbench.core.project import prepared_from_sample
from workbench.core.task import TaskSpec, origin_template
from workbench.core.trained import TrainedRun
from workbench.core.versions import read_version

HYPERPARAMETERS = ("method", "epochs", "max_steps", "learning_rate", "lr_scheduler", "warmup_ratio", "weight_decay",
                   "batch_size", "gradient_accumulation_steps", "max_length", "lora_r", "lora_alpha", "lora_dropout",
                   "lora_target_modules", "seed", "precision")


def _f(v: Any, digits: int = 4) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
            return f"{v:.3g}"
        return f"{v:.{digits}f}"
    return str(v)


def _d(v: Any) -> str:
    """A difference: 0, or three significant digits."""
    return "–" if v is None else ("0" if v == 0 else f"{v:.3g}")


def _row(*cells: Any) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"


def _about_the_task(description: str) -> str:
    """The template's description without its sentences about the template's own sample data
    (which say nothing about a model trained on the project's data)."""
    sentences = re.split(r"(?<=[.!?])\s+", description.strip())
    return " ".join(s for s in sentences if "sample data" not in s.lower())


CLASSIFIER_FAMILY = "char_classifier"  # engine/models/char_classifier.py's model (models.model_family)


def _model_config(trained: TrainedRun) -> dict:
    try:
        return json.loads((Path(trained.weights_dir) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def linear_share(trained: TrainedRun) -> float | None:
    """The built-in classifier's linear part's share of each answer, as its config records it
    (engine/models/char_classifier.py: ``linear_weight``), or None for a model without one."""
    config = _model_config(trained)
    if not config.get("linear_part"):
        return None
    weight = config.get("linear_weight")
    return float(weight) if isinstance(weight, (int, float)) else None


def epochs_trained(trained: TrainedRun) -> float | None:
    """The epochs the exported weights were trained for: the last logged step's epoch in the run's
    events, up to the checkpoint's step when the weights are a checkpoint's; else the trainer's
    own record in the weights' folder (trainer_state.json); None when neither says."""
    from workbench.core.runs import read_events

    source = str(trained.source)
    limit = int(source.rsplit("-", 1)[1]) if source.startswith("checkpoint-") and source.rsplit("-", 1)[1].isdigit() \
        else None
    covered = None
    try:
        events = read_events(trained.run_dir)
    except (OSError, ValueError):
        events = []
    for ev in events:
        epoch, step = ev.get("epoch"), ev.get("step")
        if ev.get("event") != "step" or not isinstance(epoch, (int, float)) or isinstance(epoch, bool):
            continue
        if limit is None or (isinstance(step, int) and step <= limit):
            covered = float(epoch)
    if covered is None:
        try:
            state = json.loads((Path(trained.weights_dir) / "trainer_state.json").read_text(encoding="utf-8"))
            covered = float(state["epoch"]) if isinstance(state.get("epoch"), (int, float)) else None
        except (OSError, ValueError, KeyError):
            covered = None
    return covered


def _step_name(report: dict, step: dict | None) -> str:
    """A cleaning step as the table names it: its op and the settings that tell two steps of the
    same op apart (the columns, the action, the length limits)."""
    params = (step or {}).get("params") or {}
    shown = []
    for key, value in params.items():
        if isinstance(value, list):
            if not value or len(value) > 4:
                continue  # term lists and long column lists say nothing a row needs
            value = "/".join(map(str, value))
        elif not isinstance(value, (str, int, float)) or isinstance(value, bool):
            continue
        shown.append(f"{key} {value}")
    name = report.get("op", "?") + (f" ({', '.join(shown)})" if shown else "")
    return name + (" — off" if report.get("skipped") else "")


def _cleaning_rows(trained: TrainedRun) -> list[tuple[str, dict]]:
    """``(name, report)`` for each step of the project's cleaning, each step matched with its own
    settings in the recipe (the reports follow the recipe's steps in order)."""
    config = trained.project.config
    steps = list(((config.recipe or {}).get("steps") or []))
    out = []
    for r in config.reports or []:
        i = next((i for i, st in enumerate(steps) if st.get("op") == r.get("op")), None)
        step = steps.pop(i) if i is not None else None
        out.append((_step_name(r, step), r))
    return out


def _baseline_comparison(task: str, eval_result: dict, trained: TrainedRun, spec: TaskSpec) -> dict | None:
    """The evaluation's comparison with the baseline, with the bootstrap interval of the
    difference: an evaluation stored before the interval existed gets it from its own
    predictions.csv (the same rows), so the card never says "beats" of a difference in the noise."""
    from workbench.engine.models import ngram_baseline

    baseline = eval_result.get("baseline") or {}
    comp = baseline.get("comparison")
    if not comp or "interval" in comp:
        return comp
    try:
        import pandas as pd

        rows = pd.read_csv(Path(trained.eval_dir) / "predictions.csv", dtype=str, keep_default_na=False,
                           encoding="utf-8-sig")
        interval = ngram_baseline.difference_interval(task, spec.multi_label, list(rows["reference"]), list(rows["prediction"]),
                                          list(rows["baseline_prediction"]), list(spec.labels))
    except (OSError, KeyError, ValueError):
        interval = None
    return ngram_baseline.comparison(task, eval_result["metrics"], baseline, interval) if interval else comp


def model_card(bundle: dict, trained: TrainedRun, spec: TaskSpec, eval_result: dict | None) -> str:
    checks = bundle["checks"]
    task = bundle["task"]
    classifier = bundle.get("family") == CLASSIFIER_FAMILY
    share = bundle.get("linear_share")
    if share is None and classifier:  # a bundle written before the share was recorded in it
        share = linear_share(trained)
    mix = "geometric mean" if _model_config(trained).get("linear_mix") == "geometric" else "mean"
    lines: list[str] = []
    add = lines.append
    origin = origin_template(spec)  # names and description only; the task is the project's
    from_sample = origin is not None and prepared_from_sample(trained.project, origin)
    add(f"# {origin.name.en} / {origin.name.zh}" if origin else f"# {trained.project.config.name}")
    add("")
    if origin and task == "classification" and list(spec.labels) != list(origin.labels):
        # the template's description names the template's labels, not the ones this model predicts
        about = f" ({origin.vertical}), with the project's own {len(spec.labels)} labels."
    else:
        about = f" ({origin.vertical}). {_about_the_task(origin.description.en)}" if origin else "."
    if classifier:
        add(f"A character n-gram classifier (the built-in model `{bundle['base_model']}`, trained from scratch on "
            f"the project's data, not a language model) for **{task}**, from the template `{spec.template}`{about}")
        add("")
        add("It reads the text itself, with no prompt: hashed character 1-3-grams feed a small network (averaged "
            "embeddings, one hidden layer) and, beside it, a linear part (a logistic regression over the same "
            "n-grams, fitted by scikit-learn)"
            + (f"; the answer is a weighted {mix} of both parts' probabilities, in which the linear part "
               f"carries {share:.0%}." if share is not None else ".")
            + " It cannot generate text.")
    elif task == "classification" and trained.job.head:
        pooled = "the mean of its hidden states over the text" if trained.job.head_pooling == "mean" else \
            "its hidden state at the text's last token"
        add(f"A classification head on a pretrained language model, fine-tuned for **{task}**, starting from the "
            f"template `{spec.template}`{about}")
        add("")
        if share is not None and share >= 1:
            add("It reads the text itself, with no prompt. On the validation split the word statistics alone "
                "(a logistic regression over the text's token 1-3-grams, fitted by scikit-learn) answered best, "
                "so they are the whole answer: the exported graph holds them alone and never runs the language "
                "model. It cannot generate text.")
        else:
            add(f"It reads the text itself, with no prompt: the language model reads it once and {pooled} feeds a "
                "linear layer over the labels" + (" (one sigmoid per label)" if spec.multi_label else " (a softmax)")
                + (f"; the answer is a weighted geometric mean of its probabilities and those of word statistics "
                   f"(a logistic regression over the text's token 1-3-grams), which carry {share:.0%}."
                   if share else ".")
                + " It answers a probability for each label in one forward pass and cannot generate text.")
    else:
        add(f"A language model fine-tuned for **{task}**, starting from the template `{spec.template}`{about}")
    add("")
    if from_sample:
        add("> Trained on the template's shipped sample data, which is synthetic and illustrative only: "
            "this model demonstrates the workflow and is not fit for real use.")
        add("")
    if trained.note:
        add(f"> {trained.note}")
        add("")
    add("## Use")
    add("")
    req = (bundle.get("checks") or {}).get("requirements") or {}
    if not bundle.get("runtime", True):
        asked = ", ".join(f for f in ("merged", "gguf") if f in checks)
        add(f"This bundle holds what was exported ({asked}) and no Paddle Inference model, so it has no "
            "`predict.py`, `serve.py`, requirements or Dockerfile: those run the Paddle Inference model. "
            + ("Run the GGUF file with llama.cpp or ollama, as the GGUF section below shows. " if "gguf" in checks
               else "")
            + "To get them, export the run again with the `static` format.")
        add("")
    else:
        _use_section(add, bundle, task, req)
    _model_sections(add, bundle, trained, spec, eval_result, checks, task, share)
    return "\n".join(lines)


def _use_section(add, bundle: dict, task: str, req: dict) -> None:
    add("```")
    wheels = "wheelhouse" in req
    add("pip install --no-index --find-links wheels -r requirements.lock   # no network: the bundle's wheels/"
        if wheels else "pip install -r requirements.lock   # the exported versions, hash-checked")
    add('python predict.py "your text"')
    add("python predict.py --input data.csv --output predictions.csv")
    add("python serve.py --port 8000            # HTTP service: GET /health, POST /predict"
        + (", POST /v1/chat/completions" if task == "instruction" else ""))
    add("```")
    add("")
    if req.get("target"):  # bundles exported before the lock had a target say nothing here
        there = "the computer it was exported on" if req["target"] == "this" else req["target_title"]
        add(f"`requirements.lock`{' and `wheels/`' if wheels else ''} are for {there} (export option "
            f"`--target-platform {req['target']}`); on another system install `requirements.txt`, the same "
            "versions of what the scripts import.")
        add("")
    fields = ", ".join(f"`{f}`" for f in bundle["fields"])
    originals = [c for c in bundle["columns"].values() if c and c not in bundle["fields"]]
    add("An input file (CSV, TSV, JSON, JSONL or Excel; UTF-8, GB18030 or UTF-16) needs the column(s) "
        + (", ".join(f"`{c}`" for c in originals) + f" as in the training data (or {fields})" if originals
           else fields)
        + "; a file with a single column is read as the main field. predict.py runs on an NVIDIA GPU when "
        "Paddle finds one (with TensorRT where this Paddle build has it) and on the CPU otherwise"
        + (", with oneDNN (checked at export: as exact, and faster). " if bundle.get("onednn") else
           ", without oneDNN (at export it was not faster on this model, or not as exact). ")
        + "`docker build -t model .` builds an image that serves the static model (see the Dockerfile; "
        "`docker run -p 127.0.0.1:8000:8000 -e MODEL_API_KEY=... model` publishes it on this host only); "
        "`--api-key KEY` or the `MODEL_API_KEY` variable makes every endpoint but /health ask for "
        "`Authorization: Bearer KEY`.")
    if task == "classification":
        add(f"It returns one of {', '.join(bundle['labels'])} with the probability of each label.")
    else:
        add("It generates the answer token by token (greedy by default, `--sample` for sampling).")
    add("")


def _model_sections(add, bundle: dict, trained: TrainedRun, spec: TaskSpec, eval_result: dict | None, checks: dict,
                    task: str, share: float | None) -> None:
    job = trained.job
    req = checks.get("requirements") or {}
    wheels = "wheelhouse" in req
    from_sample = (origin := origin_template(spec)) is not None and prepared_from_sample(trained.project, origin)
    add("## Model")
    add("")
    add(_row("", ""))
    add(_row("---", "---"))
    add(_row("base model", f"{bundle['base_model_name']} ({bundle['family']})" if bundle.get("base_model_name")
             else f"`{bundle['base_model']}` ({bundle['family']})"))
    lic = bundle.get("licence") or {}
    if lic.get("name"):  # a derivative is passed on with its base model's terms
        add(_row("licence", f"{lic['name']}: the base model's terms, which cover this fine-tuned model too; their "
                            "text is in `LICENSE`" + (f" (source: {lic['url']})" if lic.get("url") else "")
                 + ". Whoever passes this model on passes these terms on with it."))
    method = {"lora": "LoRA, merged into the base weights",
              "dpo": "preference tuning (DPO with LoRA) on the judgements of the answers of another run's model, "
                     "merged into its weights"}.get(bundle["method"], "full fine-tuning")
    add(_row("method", method))
    add(_row("weights", f"run `{bundle['run']}`, {bundle['source']}"))
    if bundle.get("system") is None and bundle.get("user_format") == "{" + bundle["fields"][0] + "}" \
            and len(bundle["fields"]) == 1:
        add(_row("prompt", "none: the model reads the text alone"))
    else:  # what the bundle's model reads (bundle.json), not the template's wording
        add(_row("prompt (system)", bundle.get("system") or "none"))
        add(_row("prompt (user)", repr(bundle["user_format"])[1:-1]))
    if share is not None:
        add(_row("linear part's share of the answer", f"{share:.2f}"))
    if task == "classification":
        add(_row("labels", ", ".join(bundle["labels"])))
    add(_row("maximum length", f"{bundle['max_length']} tokens"))
    add("")
    add("## Training data")
    add("")
    config = trained.project.config
    stats = config.stats or {}
    source = config.source
    add(_row("", ""))
    add(_row("---", "---"))
    if source is not None:
        described = f"`{Path(source.path).name}` ({source.format}"
        described += f", {source.encoding}" if source.encoding else ""
        described += f", sheet {source.sheet}" if source.sheet else ""
        add(_row("source file", described + ")" + (" — the template's synthetic sample" if from_sample else "")))
        add(_row("source columns", ", ".join(source.columns)))
        mapping = {r: c for r, c in (config.mapping or {}).items() if c}
        if mapping:
            add(_row("columns used", ", ".join(f"{c} → {r}" for r, c in mapping.items())))
    add(_row("rows imported", stats.get("rows_imported", "–")))
    add(_row("rows after cleaning", stats.get("rows_clean", "–")))
    chosen = stats.get("label_set") or {}
    several = chosen.get("several_labels") or {}
    counts = {"rows of excluded labels": sum((chosen.get("excluded") or {}).values()),
              "rows of labels with too few rows": sum((chosen.get("too_few_rows") or {}).values()),
              "rows listing several labels": several.get("rows", 0) if several.get("action") == "drop" else 0,
              "rows with labels outside the set": chosen.get("unknown_rows", 0)}
    left_out = [f"{n} {what}" for what, n in counts.items() if n]
    if left_out:  # dropped by the label choice, after the cleaning steps listed below
        add(_row("left out by the label choice", ", ".join(left_out)))
    splits = stats.get("splits") or {}
    version = read_version(trained.project.data_dir, trained.job.data_version) if trained.job.data_version else None
    if version is not None:  # the rows the run trained on, whatever was prepared since
        splits = version.rows
        fixed = f", {version.corrected} labels corrected and {version.excluded} rows excluded by hand" \
            if version.kind == "corrections" else ""
        add(_row("data version", f"`{version.id}`{fixed}"))
    add(_row("split (train / validation / test)", " / ".join(str(splits.get(k, "–")) for k in ("train", "val", "test"))))
    if stats.get("labels"):
        add(_row("rows per label (after cleaning)", ", ".join(f"{k} {v}" for k, v in stats["labels"].items())))
    if stats.get("text_chars"):
        add(_row("input length (characters)", f"mean {stats['text_chars'].get('mean', 0):.0f}, "
                 f"95th percentile {stats['text_chars'].get('p95', 0):.0f}"))
    cleaning = _cleaning_rows(trained)
    if cleaning:
        add("")
        add("Cleaning steps:")
        add("")
        add(_row("step", "rows in", "rows out", "cells changed"))
        add(_row("---", "---:", "---:", "---:"))
        for name, r in cleaning:
            add(_row(name, r.get("rows_in", ""), r.get("rows_out", ""), r.get("cells_changed", "")))
    add("")
    add("## Hyper-parameters")
    add("")
    add(_row("", ""))
    add(_row("---", "---"))
    for key in HYPERPARAMETERS:
        value = getattr(job, key, None)
        if key.startswith("lora") and job.method not in ("lora", "dpo"):
            continue
        if key == "max_steps" and (value is None or value <= 0):
            continue
        if key == "epochs":  # what the weights were trained for, not what the job planned
            covered = epochs_trained(trained)
            if covered is not None:
                planned = f"{value:g}" if isinstance(value, (int, float)) else None
                shown = f"{covered:.3g}"
                add(_row("epochs trained", shown + (f" (planned: {planned})" if planned and planned != shown
                                                     else "")))
                continue
            key = "epochs planned"
        add(_row(key, f"{value:g}" if isinstance(value, float) else value))
    if job.method == "dpo":  # what the preference tuning started from and how it weighed the pairs
        pref = (eval_result or {}).get("preference") or {}
        add(_row("tuned from run", f"`{job.from_run}`"))
        add(_row("preference loss", job.dpo_loss))
        add(_row("beta", f"{job.dpo_beta:g}"))
        if pref:
            add(_row("pairs of answers (train / held out)", f"{pref['train_pairs']} / {pref['heldout_pairs']}"))
    add("")
    add("## Evaluation")
    add("")
    if eval_result:
        m = eval_result["metrics"]
        base = eval_result.get("base")
        add(f"On {eval_result['rows']} held-out samples of the '{eval_result['split']}' split "
            f"(weights: {eval_result['source']}).")
        add("")
        keys = (["accuracy", "macro_f1"] if task == "classification" else ["rouge_l", "bleu", "exact_match"]) \
            + ["eval_loss", "perplexity"]
        names = {"accuracy": "accuracy", "macro_f1": "macro-F1", "rouge_l": "ROUGE-L (characters)",
                 "bleu": "BLEU (0-100, Chinese tokenizer)", "exact_match": "exact match",
                 "eval_loss": "loss on reference answers", "perplexity": "perplexity",
                 "micro_f1": "micro-F1", "subset_accuracy": "subset accuracy (the whole label set right)",
                 "hamming_loss": "Hamming loss",
                 "preference_accuracy": "held-out preference accuracy (implicit reward)",
                 "likelihood_accuracy": "held-out pairs whose chosen answer is the more likely"}
        pref = eval_result.get("preference")
        if pref:  # the person's judgements, beside the answers' figures
            keys += ["preference_accuracy", "likelihood_accuracy"]
            add(f"Preference tuning of run `{pref['from_run']}`: on {pref['heldout_pairs']} held-out pairs of answers "
                f"the tuned model's implicit reward prefers the chosen answer in "
                f"{pref['tuned']['preference_accuracy']:.0%} (0.5 is a tie: the run it started from, by definition); "
                f"its likelihood prefers the chosen answer in {pref['tuned']['likelihood_accuracy']:.0%}, the first "
                f"run's in {pref['base']['likelihood_accuracy']:.0%}. The base model's column is run "
                f"`{pref['from_run']}`'s.")
            add("")
        if task == "classification":  # a loss over the labels, and no tokens to have a perplexity of
            keys = [k for k in keys if k != "perplexity"]
            names["eval_loss"] = "loss (cross-entropy over the labels)"
        if m.get("multi_label"):
            keys = ["micro_f1", "macro_f1", "subset_accuracy", "hamming_loss", "eval_loss"]
            add(f"Several labels per row: a label is given when its own probability is at least "
                f"{m['threshold']:.2f} (tuned for macro-F1 on the validation split); a row clearing none "
                "gets its most probable label.")
            add("")
        baseline = eval_result.get("baseline")
        comp = _baseline_comparison(task, eval_result, trained, spec)
        if comp:
            add(comp["sentence"])
            add("")
        if (m.get("answer_budget") or {}).get("note"):  # answers shortened by the training length
            add(f"**Answer length:** {m['answer_budget']['note']}")
            add("")
        extra = (["base model"] if base else []) + (["baseline"] if baseline else [])
        add(_row("metric", "fine-tuned", *extra))
        add(_row("---", "---:", *(["---:"] * len(extra))))
        for k in keys:
            add(_row(names[k], _f(m.get(k)), *([_f(base.get(k))] if base else []),
                     *([_f(baseline.get(k))] if baseline else [])))
        if baseline:
            add("")
            add(f"Baseline: {baseline['description']} (scikit-learn), fitted on the same "
                f"{baseline['train_rows']} training rows in {baseline['fit_seconds']:.1f} s.")
        if task == "classification" and m.get("per_class"):
            add("")
            add(_row("label", "precision", "recall", "F1", "support"))
            add(_row("---", "---:", "---:", "---:", "---:"))
            for lab, v in m["per_class"].items():
                add(_row(lab, _f(v["precision"]), _f(v["recall"]), _f(v["f1"]), v["support"]))
    else:
        add("Not evaluated.")
    add("")
    add("## Export checks")
    add("")
    tol = checks["tolerance"]
    par = checks.get("parity") or {}
    why = (f" (fp32 rounding for a model whose widest product sums {par['k']} terms over {par['depth']} products "
           "in series)" if par.get("derived") and "k" in par else "")
    fp32 = any(k in checks for k in ("static", "merged", "onnx", "full_sequence"))
    add(f"Each exported model was run on {checks['parity_rows']} real prompts of the test split and compared with "
        "the trained model (fp32). "
        + (f"An fp32 export is refused when its largest difference, relative to the largest output, exceeds "
           f"{tol:.2g}{why}, or when it picks another most likely token where the trained model's choice is "
           "clear." if fp32 else "")
        + (f"{' ' if fp32 else ''}The GGUF file is held to its type's precision{' instead' if fp32 else ''}: "
           "a difference within "
           f"{checks['gguf'].get('tolerance', 0):g} of the logits' scale ({checks['gguf'].get('dtype')}), and the "
           "same most likely token wherever the trained model's choice is clear." if "gguf" in checks else ""))
    add("")
    add(_row("artefact", "status", "max. abs. difference", "notes"))
    add(_row("---", "---", "---:", "---"))
    st = checks.get("static")
    out_name = "class probabilities" if task == "classification" else "logits"
    if st and "generate" not in checks:
        add(_row("Paddle Inference (`static/`)", "ok", _d(st["max_abs_diff"]),
                 f"{out_name}" + (f", relative {_d(st['relative_diff'])}" if st.get("relative_diff") is not None
                                  else "")
                 + f"; with oneDNN {_d(st.get('onednn_max_abs_diff'))}"
                 f" ({'used: faster' if st.get('onednn_used') else 'not used'})"
                 + (f"; label agreement with the evaluation {st['engine_label_agreement']:.0%}"
                    if "engine_label_agreement" in st else "")))
    if "merged" in checks:
        mg = checks["merged"]
        add(_row("merged weights (`merged/`)", "ok", _d(mg["max_abs_diff"]),
                 f"logits after reloading; {mg.get('layout') or '?'} layout safetensors"))
    if "generate" in checks:
        g = checks["generate"]
        add(_row("Paddle Inference, generation with cache (`static/generate`)", "ok", _d(g["max_abs_diff"]),
                 (f"logits relative {_d(g['relative_diff'])}; " if g.get("relative_diff") is not None else "")
                 + f"greedy answers identical on {g['greedy_identical']} of {g['prompts']} prompts "
                 f"({g['new_tokens']} new tokens)"
                 + (f", {g['greedy_near_ties']} parting at a near tie" if g.get("greedy_near_ties") else "")))
    if "onnx_generate" in checks:
        og = checks["onnx_generate"]
        add(_row("ONNX generation with cache (`onnx_generate/model.onnx`)", og["status"], _d(og.get("max_abs_diff")),
                 "onnxruntime, opset 17" if og["status"] == "ok" else f"**not shipped**: {og.get('reason')}"))
    if "onnx" in checks:
        ox = checks["onnx"]
        add(_row("ONNX (`onnx/model.onnx`)", ox["status"], _d(ox.get("max_abs_diff")),
                 "onnxruntime, opset 17" if ox["status"] == "ok" else f"**not shipped**: {ox.get('reason')}"))
    if "gguf" in checks:
        gg = checks["gguf"]
        add(_row(f"GGUF (`{gg['files'][0]}`)", "ok", _d(gg.get("max_abs_diff")),
                 f"{gg['dtype']}, relative {_d(gg.get('relative_diff'))}; numpy forward pass of the file read back, "
                 "next token agrees at "
                 f"{gg['argmax_agreement']:.1%} of {gg['positions']} positions"
                 + (f"; greedy answers identical on {gg['greedy']['identical']} of {gg['greedy']['prompts']} prompts "
                    f"({gg['greedy']['new_tokens']} new tokens"
                    + (f", {gg['greedy']['near_ties']} parting at a near tie" if gg["greedy"].get("near_ties") else "")
                    + ")" if gg.get("greedy") else "")))
    if (checks.get("int8") or {}).get("status") == "ok":
        q = checks["int8"]
        if task == "classification":
            note = (f"accuracy {q['accuracy_fp32']:.4f} (fp32) → {q['accuracy_int8']:.4f} (int8), change "
                    f"{q['accuracy_change']:+.4f}; labels agree on {q['label_agreement']:.1%} of {q['samples']} samples")
        else:
            note = (f"loss {q['eval_loss_fp32']:.4f} (fp32) → {q['eval_loss_int8']:.4f} (int8); next-token agreement "
                    f"{q['next_token_agreement']:.1%}")
        add(_row("weight-only int8 (`int8/`)", "ok", _d(q["max_abs_diff_vs_fp32"]),
                 f"{note}; {q['size_mb_fp32']} MB → {q['size_mb_int8']} MB"))
    if "predict_script" in checks:
        ps = checks["predict_script"]
        add(_row("predict.py", ps.get("status", "ok"), "", f"run in a separate process on {ps['rows']} test rows; "
                 f"{ps['same_as_engine']} of {ps['rows']} identical to the evaluation"
                 + (f"; **{ps['both_empty']} empty on both sides**, which proves nothing: the model "
                    "answered nothing to them" if ps.get("both_empty") else "")))
    add("")
    lat = checks.get("latency")
    gen = checks.get("generate")
    if gen and not lat:
        add("predict.py and serve.py generate with `static/generate`: one decoding step with the key/value cache, "
            "so each new token costs one position.")
        add("")
    if lat:
        add("## Latency")
        add("")
        add(f"Measured at export on {lat['device']} ({lat['threads']} threads, {lat['cpu']}), one sample at a time, "
            f"median of {lat['samples']} test prompts"
            + (" (the whole prompt at once: the time to the first token):" if task == "instruction" else ":"))
        add("")
        add(_row("", "ms per sample"))
        add(_row("---", "---:"))
        add(_row("Paddle Inference (static)", _f(lat["static_ms"], 2)))
        add(_row("trained model (eager)", _f(lat["eager_ms"], 2)))
        if lat.get("throughput_samples_per_s"):
            add("")
            add(f"Throughput of the static model: {lat['throughput_samples_per_s']:.1f} samples/s at batch "
                f"{lat['throughput_batch']}.")
        if task == "instruction":
            add("")
            if gen:
                add("For generation predict.py and serve.py use `static/generate`: one decoding step with the "
                    "key/value cache, so each new token costs one position. Checked at export on "
                    f"{gen['prompts']} test prompts: greedy answers identical to the trained model's on "
                    f"{gen['greedy_identical']} of {gen['prompts']}, logits within {_d(gen['max_abs_diff'])} over "
                    f"{gen['steps']} steps.")
            else:
                add("For generation the time per answer is about the time per sample above times the number of "
                    "generated tokens (predict.py recomputes the sequence at each step).")
        add("")
    add("## Files")
    add("")
    runtime = bundle.get("runtime", True)
    if runtime:
        add("- `predict.py` (files and the command line), `serve.py` (HTTP service), `bundle_runtime.py` (the model "
            "code both share), `requirements.txt` (what they import) and `requirements.lock` (every package, "
            "exact versions and hashes), `Dockerfile` and `.dockerignore`"
            + (", `wheels/` (the lock's wheels, to install with no network)" if wheels else ""))
        add("- `io_sniff.py`, `io_header.py`: how predict.py cuts an input file into rows, the workbench importer's "
            "own code")
    if (bundle.get("licence") or {}).get("file"):
        add(f"- `LICENSE`: the base model's licence ({bundle['licence']['name']}), its own text"
            + (" (also copied into the Docker image)" if runtime else ""))
    add("- `bundle.json`: prompt format, labels, fields and column names, special tokens, checks")
    if runtime:
        add("- `tokenizer/tokenizer.json` and the tokenizer's files")
    if gen:
        add("- `static/generate.json`, `static/generate.pdiparams`: Paddle Inference model, one decoding step "
            "with the key/value cache")
    elif runtime:
        add("- `static/model.json`, `static/model.pdiparams`: Paddle Inference model")
    if bundle.get("onnx") and task == "instruction":
        add("- `onnx/model.onnx`: the whole-sequence model (logits at every position) for onnxruntime (inputs: "
            + ", ".join(bundle["inputs"]) + ")")
    elif bundle.get("onnx"):
        add("- `onnx/model.onnx`: the same model for onnxruntime (inputs: " + ", ".join(bundle["inputs"]) + ")")
    if "merged" in checks:
        add("- `merged/`: the fine-tuned weights as a model folder (config.json, model.safetensors, tokenizer) "
            "for PaddleFormers and other Hugging Face layout tools")
    if (checks.get("int8") or {}).get("status") == "ok":
        add("- `int8/`: weight-only int8 static model (`python predict.py --variant int8 ...`)")
    if "gguf" in checks:
        add("- `gguf/`: the model as one GGUF file for llama.cpp and ollama, and its ollama `Modelfile`")
    add("")
    if "gguf" in checks:
        from workbench.engine.gguf.modelfile import readme_section

        add(readme_section(checks["gguf"]))
    versions = ", ".join(f"{k} {v}" for k, v in bundle["exported_with"].items() if v)
    add(f"Exported {time.strftime('%Y-%m-%d %H:%M', time.localtime(bundle['created']))} with {versions}.")
    add("")
