"""The bundle's ``gguf/`` folder: the merged model as a GGUF file and an ollama Modelfile,
both checked before they ship.

The checks: the file is read back with gguf.GGUFReader, its tensors dequantized and run by
the plain numpy forward pass of reference.py on real test prompts, and those logits are
compared with the trained Paddle model's (tolerance by type, relative to the logits'
scale, and the most likely next token must agree wherever the trained model's choice is
clear); the file's own greedy answers to a few test prompts must be the trained model's,
or leave them only at a near tie (a choice the type's precision may tip); the tokenizer
rebuilt from the file's own vocabulary must give the model's token ids; and the
Modelfile's template rendered for the test inputs must give the engine's prompts exactly.
"""
from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from workbench.core.errors import WorkbenchError
from workbench.engine.gguf import modelfile as ollama_modelfile
from workbench.engine.gguf.writer import DTYPES, StateDictWeights, write_gguf

# allowed max |difference| of the logits, as a share of their largest magnitude (at least 1)
TOLERANCE = {"f32": 1e-4, "f16": 1e-2, "q8_0": 5e-2}
CHECK_PROMPTS = 4
CHECK_TOKENS = 64  # the numpy forward pass is slow on a large vocabulary: a few short prompts
GREEDY_PROMPTS = 2  # free-running greedy answers: the numpy pass recomputes the prefix at every token
GREEDY_TOKENS = 16
DEFAULT_DTYPE = "f16"


class GGUFExportError(WorkbenchError):
    """The GGUF file or its Modelfile failed a check; nothing of it ships."""


def compare_logits(expected: Sequence[np.ndarray], got: Sequence[np.ndarray], dtype: str) -> dict[str, Any]:
    """How far the file's logits are from the trained model's, and whether that is within
    the tolerance of ``dtype``: max |diff|, relative to the logits' scale, and next-token
    agreement (a disagreement counts where the trained model prefers its token by more than
    the tolerance)."""
    diff = scale = 0.0
    agree = total = clear_misses = 0
    for a, b in zip(expected, got):
        a = a.astype(np.float64)
        b = b.astype(np.float64)
        if a.shape != b.shape:
            raise GGUFExportError(f"The GGUF file's logits have shape {list(b.shape)} where the trained model's "
                                  f"have {list(a.shape)}.", code="gguf_logits_shape", got=str(list(b.shape)),
                                  want=str(list(a.shape)))
        diff = max(diff, float(np.abs(a - b).max()))
        scale = max(scale, float(np.abs(a).max()))
    allowed = TOLERANCE[dtype] * max(1.0, scale)
    for a, b in zip(expected, got):
        top_a, top_b = a.argmax(-1), b.argmax(-1)
        rows = np.arange(a.shape[0])
        gap = a[rows, top_a] - a[rows, top_b]  # how much the trained model prefers its own choice
        agree += int((top_a == top_b).sum())
        clear_misses += int(((top_a != top_b) & (gap > allowed)).sum())
        total += a.shape[0]
    return {"max_abs_diff": diff, "logit_scale": scale, "relative_diff": diff / max(1.0, scale),
            "tolerance": TOLERANCE[dtype], "allowed_abs_diff": allowed, "positions": total,
            "argmax_agreement": agree / total if total else None, "clear_disagreements": clear_misses,
            "ok": bool(diff <= allowed and clear_misses == 0)}


def check_gguf_file(path: Path, ids: Sequence[Sequence[int]], expected: Sequence[np.ndarray], dtype: str,
                    greedy: Sequence[tuple[Sequence[int], Sequence[int], np.ndarray]] = ()) -> dict[str, Any]:
    """Read ``path`` back and compare its numpy logits on ``ids`` with ``expected``; and for each
    ``(prompt ids, the trained model's greedy tokens, its logits along them)`` of ``greedy``, the
    file's own greedy tokens (see :func:`compare_greedy`)."""
    from workbench.engine.gguf.reader import load_tensors
    from workbench.engine.gguf.reference import forward_logits, greedy_continue
    from workbench.engine.models.devices import release_freed_memory

    t = time.perf_counter()
    release_freed_memory()  # what writing the file freed (the largest tensor's copies): 0.5 GB for Gemma 3
    # the embedding (a tied output layer too) stays as stored: Gemma 3's is 671 MB as float32
    tensors, meta = load_tensors(path, stored=("token_embd.weight", "output.weight"))
    got = [np.asarray(forward_logits(tensors, meta, list(x)), dtype=np.float32) for x in ids]
    answers = [greedy_continue(tensors, meta, list(prompt), len(want)) for prompt, want, _ in greedy]
    del tensors
    release_freed_memory()
    out = compare_logits(expected, got, dtype)
    out["prompts"] = len(ids)
    if greedy:
        # a fork is a near tie when the file's logits, as far off as they were measured to be, may tip it
        out["greedy"] = compare_greedy([(want, along) for _, want, along in greedy], answers,
                                       out["max_abs_diff"])
        out["ok"] = bool(out["ok"] and out["greedy"]["clear_forks"] == 0)
    out["seconds"] = round(time.perf_counter() - t, 2)
    return out


def compare_greedy(wanted: Sequence[tuple[Sequence[int], np.ndarray]], answers: Sequence[Sequence[int]],
                   allowed: float) -> dict[str, Any]:
    """The file's greedy answers against the trained model's: identical, parted at a near tie (the
    trained model preferred its token by at most twice ``allowed``, the largest logit difference
    measured on the file, which may tip it), or parted where the trained model's choice was clear
    (``clear_forks``, a failure).
    ``wanted`` holds each answer with the trained model's logits along it (row i predicts token i)."""
    same = ties = clear = 0
    for (want, along), got in zip(wanted, answers):
        fork = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), None)
        if fork is None:
            same += 1
        elif float(along[fork][want[fork]] - along[fork][got[fork]]) > 2 * allowed:
            clear += 1
        else:
            ties += 1
    return {"prompts": len(answers), "new_tokens": max((len(w) for w, _ in wanted), default=0), "identical": same,
            "near_ties": ties, "clear_forks": clear}


def check_tokenizer(path: Path, encode: Callable[[str], list[int]], texts: Sequence[str]) -> dict[str, Any]:
    """The tokenizer rebuilt from the file's vocabulary must give the model's ids for ``texts``."""
    from workbench.engine.gguf.reader import open_gguf, read_metadata
    from workbench.engine.gguf.tokenizer import build_tokenizer

    meta = read_metadata(open_gguf(path), with_tokens=True)
    tok, _ = build_tokenizer(meta)
    same = sum(tok.encode(t, add_special_tokens=False).ids == list(encode(t)) for t in texts)
    return {"texts": len(texts), "same_ids": same}


def export_gguf(stage: Path, *, source_folder: Path, dtype: str, name: str | None, base_model: str | None,
                licence: tuple[str | None, Path | None] | tuple[str | None, Path | None, str | None], check_ids: Sequence[Sequence[int]],
                model_logits: Callable[[Sequence[int]], np.ndarray], encode: Callable[[str], list[int]],
                prompts: Sequence[str], template: ollama_modelfile.ChatTemplate, system: str | None,
                user_texts: Sequence[str], build_prompt: Callable[[str | None, str], str], bos_text: str | None,
                stops: Sequence[str], parameters: Mapping[str, Any], progress=None,
                greedy_prompts: Sequence[Sequence[int]] = (),
                model_greedy: Callable[[Sequence[int], int], list[int]] | None = None,
                weights: StateDictWeights | None = None) -> dict[str, Any]:
    """Write ``stage/gguf/model-<dtype>.gguf`` and ``stage/gguf/Modelfile`` from the merged
    model folder ``source_folder`` and check them (see the module's doc). Returns the figures
    for the bundle's checks; raises GGUFExportError when a check fails."""
    if dtype not in DTYPES:
        raise GGUFExportError(f"GGUF type {dtype!r} is not one of {', '.join(DTYPES)}.", code="gguf_type_unknown",
                              type=str(dtype))
    folder = stage / "gguf"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"model-{dtype}.gguf"
    try:
        t = time.perf_counter()
        written = write_gguf(source_folder, out, dtype=dtype, progress=progress, name=name, base_model=base_model,
                             licence=licence[0], weights=weights)
        written["write_seconds"] = round(time.perf_counter() - t, 2)
        ids = [list(x)[:CHECK_TOKENS] for x in check_ids[:CHECK_PROMPTS] if len(x)]
        expected = [np.asarray(model_logits(x), dtype=np.float32) for x in ids]
        greedy = []
        if model_greedy is not None:
            for prompt in list(greedy_prompts)[:GREEDY_PROMPTS]:
                want = list(model_greedy(prompt, GREEDY_TOKENS))
                along = np.asarray(model_logits(list(prompt) + want), dtype=np.float32)[len(prompt) - 1:]
                greedy.append((list(prompt), want, along))
        figures = check_gguf_file(out, ids, expected, dtype, greedy)
        forks = (figures.get("greedy") or {}).get("clear_forks")
        if forks:
            raise GGUFExportError(
                f"The GGUF file's own greedy answers leave the trained model's on {forks} of "
                f"{figures['greedy']['prompts']} test prompts at a token the trained model clearly prefers, so "
                f"llama.cpp would answer differently from the trained model; it was not exported. Try --gguf-type "
                + ("f16 or f32." if dtype == "q8_0" else "f32."), code="gguf_answers_differ", forks=forks,
                prompts=figures["greedy"]["prompts"])
        if not figures["ok"]:
            raise GGUFExportError(
                f"The GGUF file's logits differ from the trained model's by up to {figures['max_abs_diff']:.3g} "
                f"(allowed {figures['allowed_abs_diff']:.3g}; next token agrees at "
                f"{100 * (figures['argmax_agreement'] or 0):.1f} % of {figures['positions']} positions), so it "
                "was not exported. Try --gguf-type f16 or f32.", code="gguf_logits_differ",
                difference=f"{figures['max_abs_diff']:.3g}", allowed=f"{figures['allowed_abs_diff']:.3g}",
                agreement=f"{100 * (figures['argmax_agreement'] or 0):.1f}", positions=figures["positions"])
        tok = check_tokenizer(out, encode, prompts)
        if tok["same_ids"] != tok["texts"]:
            raise GGUFExportError(f"The vocabulary written to the GGUF file tokenizes {tok['texts'] - tok['same_ids']} "
                                  f"of {tok['texts']} test prompts differently from the model's tokenizer, so "
                                  "llama.cpp would feed the model other tokens; it was not exported.",
                                  code="gguf_vocabulary_differs", differ=tok["texts"] - tok["same_ids"],
                                  prompts=tok["texts"])
        rendered = 0
        for text in user_texts:
            want = build_prompt(system, text)
            if bos_text and want.startswith(bos_text):
                want = want[len(bos_text):]
            if template.render(system, text) != want:
                raise GGUFExportError("The Modelfile's template gives other prompts than the engine for some test "
                                      "inputs, so ollama would not prompt the model as it was trained.",
                                      code="gguf_modelfile_differs")
            rendered += 1
        text = ollama_modelfile.modelfile(out.name, template, system=system, stops=stops, parameters=parameters,
                            licence=ollama_modelfile.licence_text(*licence))
        (folder / "Modelfile").write_text(text, encoding="utf-8")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return {"status": "ok", **written, **figures, "tokenizer": tok, "template_checked": rendered,
            "system": bool(system), "stops": list(dict.fromkeys(s for s in stops if s)),
            "parameters": {k: v for k, v in parameters.items() if v is not None},
            "files": [f"gguf/{out.name}", "gguf/Modelfile"]}


def base_model_info(base_model: str | None, registered_id: str | None = None) -> tuple[dict[str, Any], Path | None]:
    """The base model's name and licence: its folder's workbench_model.json, else what the model
    store recorded when it was registered (``registered_id``)."""
    import json

    if not base_model:
        return {}, None
    folder = Path(base_model)
    info: dict[str, Any] = {}
    marker = folder / "workbench_model.json"
    if marker.is_file():
        try:
            info = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = {}
    if registered_id and not (info.get("licence") or {}).get("name"):
        from workbench.core.models_store import get_model

        entry = get_model(registered_id)
        if entry is not None:
            info = {**info, "name": info.get("name") or entry.name, "licence": entry.licence.model_dump()}
    return info, folder if folder.is_dir() else None


def gguf_for_bundle(stage: Path, model, tokenizer, *, task: str, records: Sequence[Mapping[str, Any]],
                    system: str | None, user_format: str, max_length: int, generation: Mapping[str, Any],
                    base_model: str | None, run_name: str, merged_folder: Path | None, dtype: str = DEFAULT_DTYPE,
                    registered_id: str | None = None, progress=None) -> dict[str, Any]:
    """The export's 'gguf' format: the merged model (the bundle's merged/ folder when it was
    exported, else saved for this) written and checked as ``gguf/``; see :func:`export_gguf`."""
    import paddle

    from workbench.engine import examples
    from workbench.engine.inference.generate import eos_ids
    from workbench.engine.models import adapters

    info, base_folder = base_model_info(base_model, registered_id)
    lic = info.get("licence") or {}
    lic_file = (base_folder / lic["file"]) if base_folder and lic.get("file") else None
    temporary, weights = None, None
    if merged_folder is None or not (merged_folder / "config.json").is_file():
        # the config and tokenizer as a folder; the tensors straight from the model
        model = adapters.merge_lora(model)
        temporary = stage / ".gguf-source"
        temporary.mkdir(parents=True, exist_ok=True)
        model.config.save_pretrained(str(temporary))
        tokenizer.save_pretrained(str(temporary))
        merged_folder, weights = temporary, StateDictWeights(model.state_dict())
    user_texts = [examples.format_user(user_format, r) for r in records]
    prompts = examples.build_prompts(tokenizer, records, system=system, user_format=user_format)
    feats = examples.build_features(tokenizer, list(records[:CHECK_PROMPTS]), task=task, system=system,
                             user_format=user_format, max_length=max_length)

    def model_logits(ids: Sequence[int]) -> np.ndarray:
        with paddle.no_grad():
            out = model(paddle.to_tensor([list(ids)], dtype="int64"), use_cache=False, return_dict=True)
        return out.logits.astype("float32").numpy()[0]

    def model_greedy(ids: Sequence[int], n: int) -> list[int]:
        from workbench.engine.inference.generate import GenerationSettings, stream_ids

        return list(stream_ids(model, list(ids), GenerationSettings.plain_greedy(n)))  # the graphs, no guard

    greedy_prompts = [examples._shrink_prompt(examples.encode_prompt(tokenizer, p), CHECK_TOKENS) for p in prompts[:GREEDY_PROMPTS]]

    def build_prompt(sys_text: str | None, user: str) -> str:
        return examples.build_prompt(tokenizer, sys_text, user)

    from workbench.engine.export.chat_format import chat_template

    bos_text = tokenizer.bos_token or None
    template = chat_template(tokenizer)  # the same pieces serve.py renders conversations with
    stops = [tokenizer.convert_ids_to_tokens(i) for i in eos_ids(tokenizer, model)]
    end = template.turn_end.strip()
    if end and tokenizer.convert_tokens_to_ids(end) not in (None, tokenizer.unk_token_id):
        stops.append(end)  # Gemma's <end_of_turn>, ChatML's <|im_end|>
    stops += examples.stop_texts(tokenizer)  # the fallback format's turn markers, as the engine stops at them
    # the bundle's own generation settings (bundle.json "generation"), as ollama can take them
    params = ollama_modelfile.parameters(generation)
    base_name = info.get("name") or (Path(base_model).name if base_model else None)
    try:
        result = export_gguf(
            stage, source_folder=merged_folder, dtype=dtype,
            name=f"{base_name} {run_name}" if base_name else run_name, base_model=base_name,
            licence=(lic.get("name"), lic_file if lic_file and lic_file.is_file() else None, lic.get("url")),
            check_ids=[f["input_ids"] for f in feats], model_logits=model_logits,
            encode=lambda text: list(tokenizer.encode(text, add_special_tokens=False)), prompts=prompts,
            template=template, system=system, user_texts=user_texts, build_prompt=build_prompt,
            bos_text=bos_text, stops=stops, parameters=params, progress=progress, greedy_prompts=greedy_prompts,
            model_greedy=model_greedy, weights=weights)
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    if user_format and user_format.strip() not in ("{text}", "{instruction}", "{input}"):
        result["user_format"] = user_format  # the model card shows how inputs were laid out
    result["licence"] = lic.get("name")
    result["generation"] = dict(generation)  # the model card says what ollama cannot reproduce of it
    return result
