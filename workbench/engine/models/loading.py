"""Loading and saving models and tokenizers: a model folder checked, read with the right layout,
and written back one shard at a time.

Everything here imports paddle / PaddleFormers and runs inside the worker process.

Facts about PaddleFormers 1.0.0 this module relies on (checked with tiny models):

* ``save_pretrained`` writes the Hugging Face layout by default (torch key names,
  linear weights stored ``[out, in]``); the Paddle model keeps them ``[in, out]`` and
  ``from_pretrained(..., convert_from_hf=True)`` (the default) transposes the
  ``transpose_weight_keys`` of the class on load. A folder downloaded from a hub and a
  folder written by PaddleFormers 1.0.0 therefore load the same way. Older
  PaddleNLP-style folders store Paddle layout (``[in, out]``, safetensors metadata
  ``{"format": "np"}``); they need ``convert_from_hf=False``. We tell them apart by the
  shape of an MLP projection (see :func:`_weights_layout`).
* The default loader (``load_checkpoint_format="flex_checkpoint"``) writes a
  ``flex-ckpt.auto_generated.metadata`` file into the model folder and never applies a
  ``quantization_config``. We use ``load_checkpoint_format="legacy"``, which reads the
  folder without writing to it and supports weight-only quantisation; it only warns
  about missing weights, so :func:`_check_weights_complete` turns that into an error.
* The flex-format ``save_pretrained`` writes ``model-00001-of-00001.safetensors`` + an
  index + a ``saved_signal_0`` file; ``save_checkpoint_format="legacy"`` writes a plain
  ``model.safetensors`` (HF layout), which is what we save.
* The causal-LM loss does NOT shift labels: ``labels[i]`` is the target of position
  ``i`` (see ``engine/data.py``).
* Calling the model returns a tuple unless ``return_dict=True`` is passed.
* ERNIE 4.5 and Qwen3 configs default ``head_dim`` to 128 whatever ``hidden_size`` is;
  set it explicitly when building a model from scratch.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.engine.families import (
    CLASSIFIER_FAMILY,
    CPU_SAFE_FLAGS,
    ModelLoadError,
    causal_lm_class,
    model_family,
    read_config,
)
from workbench.engine.models import char_classifier, decoder_head
from workbench.engine.models.adapters import merge_lora
from workbench.engine.models.builtin_lm import BUILTIN_MARKER
from workbench.engine.models.devices import QUANT_ALGOS, _is_cpu, quantization_support
from workbench.engine.models.sources import resolve_model_source

SAFE_WEIGHT_SUFFIXES = (".safetensors",)


PICKLE_WEIGHT_SUFFIXES = (".bin", ".pdparams", ".pt", ".pth", ".ckpt", ".pkl")


TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json", "spm.model")


# ----- folders, sources and downloads ---------------------------------------------------


def _weight_files(folder: Path) -> tuple[list[Path], list[Path]]:
    safe = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(SAFE_WEIGHT_SUFFIXES))
    pickled = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(PICKLE_WEIGHT_SUFFIXES)
                     and not p.name.startswith("training_args"))
    return safe, pickled


def check_model_folder(folder: str | os.PathLike, *, allow_pickle: bool = False) -> dict:
    """Validate a model folder before loading it; returns its config.json contents.

    Raises :class:`ModelLoadError` for a missing folder, a missing config.json, missing
    weights, an unsupported family, or pickle-based weights without ``allow_pickle``.
    """
    folder = Path(folder).expanduser()
    if not folder.exists():
        raise ModelLoadError(f"The model folder {folder} does not exist. Choose an existing folder.",
                             code="model_folder_missing", path=str(folder))
    if not folder.is_dir():
        raise ModelLoadError(f"{folder} is a file, not a folder. Choose the folder that holds config.json "
                             "and the weights.", code="model_folder_is_file", path=str(folder))
    config = read_config(folder)
    model_family(config)
    safe, pickled = _weight_files(folder)
    if not safe and not pickled:
        raise ModelLoadError(
            f"The model folder {folder} has a config.json but no weights (*.safetensors). "
            "Copy the complete model folder, including its weight files.",
            code="model_without_weights", path=str(folder),
        )
    if not safe and pickled and not allow_pickle:
        names = ", ".join(p.name for p in pickled[:3])
        raise ModelLoadError(
            f"The model folder {folder} only has pickle-based weight files ({names}). Loading them can run "
            "arbitrary code, so Workbench does not load them unless you confirm that you trust their source. "
            "Convert the model to safetensors, or confirm loading pickle weights.",
            code="model_pickle_weights", path=str(folder), files=[p.name for p in pickled[:3]],
        )
    return config


# ----- loading ------------------------------------------------------------------------------


def load_tokenizer(path: str | os.PathLike):
    """The tokenizer of a model folder (or model id), with a pad token set."""
    folder = resolve_model_source(path)
    if not folder.is_dir():
        raise ModelLoadError(f"The model folder {folder} does not exist. Choose an existing folder.",
                             code="model_folder_missing", path=str(folder))
    if not any((folder / f).is_file() for f in TOKENIZER_FILES):
        raise ModelLoadError(
            f"The model folder {folder} has no tokenizer files (tokenizer.json, tokenizer_config.json or "
            "tokenizer.model). Copy the complete model folder.",
            code="model_without_tokenizer", path=str(folder),
        )
    from paddleformers.transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    except Exception as exc:
        if (folder / "tokenizer.json").is_file():
            # A plain tokenizers file whose tokenizer_config names a class this stack lacks.
            from transformers import PreTrainedTokenizerFast

            try:
                tokenizer = PreTrainedTokenizerFast.from_pretrained(str(folder), local_files_only=True)
            except Exception:
                raise ModelLoadError(f"The tokenizer in {folder} cannot be loaded ({type(exc).__name__}: {exc}).",
                                     code="tokenizer_unloadable", path=str(folder),
                                     detail=f"{type(exc).__name__}: {exc}") from None
        else:
            raise ModelLoadError(f"The tokenizer in {folder} cannot be loaded ({type(exc).__name__}: {exc}).",
                                 code="tokenizer_unloadable", path=str(folder),
                                 detail=f"{type(exc).__name__}: {exc}") from None
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is not None:
            tokenizer.pad_token = tokenizer.eos_token
        elif tokenizer.unk_token is not None:
            tokenizer.pad_token = tokenizer.unk_token
    if tokenizer.eos_token_id is None:
        raise ModelLoadError(f"The tokenizer in {folder} defines no end-of-sequence token, which training needs.",
                             code="tokenizer_without_eos", path=str(folder))
    tokenizer.padding_side = "right"
    return tokenizer


def _safetensors_shapes(files: list[Path]) -> dict[str, tuple[list[int], dict]]:
    from safetensors import safe_open

    shapes: dict[str, tuple[list[int], dict]] = {}
    for f in files:
        with safe_open(str(f), framework="np") as fh:
            meta = fh.metadata() or {}
            for key in fh.keys():
                shapes[key] = (list(fh.get_slice(key).get_shape()), meta)
    return shapes


def _weights_layout(shapes: dict[str, tuple[list[int], dict]], config: Mapping) -> str:
    """"hf" (linear weights [out, in], torch naming) or "paddle" ([in, out])."""
    hidden, inter = config.get("hidden_size"), config.get("intermediate_size")
    for key, (shape, _) in shapes.items():
        if key.endswith("mlp.up_proj.weight") and len(shape) == 2 and hidden and inter and hidden != inter:
            return "hf" if shape == [inter, hidden] else "paddle"
    fmt = next((meta.get("format") for _, meta in shapes.values() if meta), None)
    return "paddle" if fmt in ("np", "pd") else "hf"


def _check_weights_complete(model, shapes: Mapping[str, Any], folder: Path) -> None:
    expected = set(model.state_dict().keys())
    if getattr(model.config, "tie_word_embeddings", False):
        expected.discard("lm_head.weight")
    missing = sorted(k for k in expected if k not in shapes)
    if missing:
        shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ModelLoadError(
            f"The weights in {folder} do not match the model described by its config.json: {shown} "
            "missing. The folder may be incomplete or hold a different model; copy it again.",
            code="model_weights_incomplete", path=str(folder), tensors=shown,
        )


def load_model(path: str | os.PathLike, *, dtype: str = "float32", allow_pickle: bool = False,
               for_training: bool = True, device: str | None = None, quantization: str | None = None):
    """Load a causal LM of a supported family from a folder (or model id).

    Both layouts load: a folder saved by PaddleFormers and a folder in the Hugging Face
    layout (converted on load: linear weights transposed). On CPU the fused kernels are
    switched off. ``quantization`` ("weight_only_int8"/"weight_only_int4") loads a
    quantised base for LoRA where :func:`quantization_support` allows it.
    """
    folder = resolve_model_source(path, allow_pickle=allow_pickle)
    config = check_model_folder(folder, allow_pickle=allow_pickle)
    family = model_family(config)
    if family == CLASSIFIER_FAMILY:
        model = char_classifier.load_classifier(folder, for_training=for_training)
        setattr(model.config, BUILTIN_MARKER, config.get(BUILTIN_MARKER))
        return model
    if decoder_head.is_head_config(config):
        return decoder_head.load(folder, for_training=for_training)
    cls = causal_lm_class(family)

    kwargs: dict[str, Any] = {"dtype": dtype, "load_checkpoint_format": "legacy"}
    if _is_cpu(device):
        kwargs.update(CPU_SAFE_FLAGS)
    if quantization:
        if quantization not in QUANT_ALGOS:
            raise ValueError(f"quantization must be one of {QUANT_ALGOS}, not {quantization!r}")
        ok, reason = quantization_support(device)
        if not ok:
            raise ModelLoadError(reason, code="quantisation_unavailable", detail=reason)
        if dtype == "float32":
            raise ModelLoadError("A quantised base needs dtype 'float16' or 'bfloat16'.",
                                 code="quantisation_needs_half_precision")
        from paddleformers.quantization.quantization_config import QuantizationConfig

        kwargs["quantization_config"] = QuantizationConfig(weight_quantize_algo=quantization)

    safe, pickled = _weight_files(folder)
    if safe:
        kwargs["use_safetensors"] = True
        shapes = _safetensors_shapes(safe)
        kwargs["convert_from_hf"] = _weights_layout(shapes, config) == "hf"
    else:  # pickle weights, explicitly allowed by the caller
        kwargs["use_safetensors"] = False
        shapes = None

    try:
        model = cls.from_pretrained(str(folder), **kwargs)
    except ModelLoadError:
        raise
    except Exception as exc:
        raise ModelLoadError(
            f"The model in {folder} could not be loaded ({type(exc).__name__}: {str(exc)[:300]}). "
            "The folder may be incomplete or damaged; copy it again.",
            code="model_unloadable", path=str(folder), detail=f"{type(exc).__name__}: {str(exc)[:300]}",
        ) from exc
    if isinstance(model, tuple):  # static mode returns (model, state_dict)
        model = model[0]
    if shapes is not None and not quantization:
        _check_weights_complete(model, shapes, folder)
    if config.get(BUILTIN_MARKER):
        setattr(model.config, BUILTIN_MARKER, config[BUILTIN_MARKER])
    from workbench.engine.models.family_fixes import apply_family_fixes

    apply_family_fixes(model, family)  # before any LoRA wrapping, so every use sees the fix
    model.config.use_cache = not for_training
    if for_training:
        model.train()
    else:
        model.eval()
    return model


def load_model_and_tokenizer(path: str | os.PathLike, **kwargs):
    """``(model, tokenizer)`` for a folder or model id; see :func:`load_model`."""
    folder = resolve_model_source(path, allow_pickle=kwargs.get("allow_pickle", False))
    tokenizer = load_tokenizer(folder)
    model = load_model(folder, **kwargs)
    return model, tokenizer


def count_parameters(model) -> tuple[int, int]:
    """``(trainable, total)`` parameter counts."""
    trainable = total = 0
    for p in model.parameters():
        n = int(math.prod(p.shape))
        total += n
        if not p.stop_gradient:
            trainable += n
    return trainable, total


def save_model(model, tokenizer, out_dir: str | os.PathLike) -> Path:
    """Save a full model folder (config.json, model.safetensors in the HF layout,
    tokenizer); a LoRA model is merged first. The folder loads with :func:`load_model`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model = merge_lora(model)
    _save_weights_by_shard(model, out)
    if tokenizer is not None:
        tokenizer.save_pretrained(str(out))
    return out


SAVE_SHARD_SIZE = "400MB"


def _save_weights_by_shard(model, out: Path) -> None:
    """What PaddleFormers' ``save_pretrained`` writes in its safetensors ("legacy") format, from
    its own steps, one shard alive at a time. Its own loop converts each shard to numpy in place
    and keeps every shard until the last is written: for Gemma 3 270M (1.07 GB of weights) 2.7 GB
    on top of the model, against 1.7 GB here (the largest shard, the 671 MB embedding, as numpy
    and serialised). Files are readable as the user's umask allows (safetensors writes 0600)."""
    import copy

    from paddleformers.transformers.model_utils import (
        clean_model_class_name,
        get_parameter_dtype,
        prepare_safe_save_state_dict,
        shard_checkpoint,
        unwrap_model,
    )
    from safetensors.numpy import save_file

    from workbench.core.fsutil import current_umask

    m = unwrap_model(model)
    config = copy.deepcopy(m.config)
    config.architectures = [clean_model_class_name(type(m).__name__)]
    dtype = get_parameter_dtype(m)
    if dtype is not None:
        config.dtype = str(dtype).split(".")[1]
    config.save_pretrained(str(out))
    if m.can_generate():
        m.generation_config.save_pretrained(str(out))
    state = m.state_dict()
    for key in m._keys_to_ignore_on_save or ():
        state.pop(key, None)
    state = m.convert_transpose_selected_weights(state, m.transpose_weight_keys)  # the HF layout
    shards, index = shard_checkpoint(state, max_shard_size=SAVE_SHARD_SIZE, weights_name="model.safetensors",
                                     shard_format="naive")
    del state
    mode = 0o666 & ~current_umask()
    for name in list(shards):
        arrays, metadata = prepare_safe_save_state_dict(shards.pop(name), save_to_hf=True)
        save_file(arrays, str(out / name), metadata=metadata)
        del arrays
        os.chmod(out / name, mode)
    if index is not None:
        (out / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")


def set_library_log_level(level: str = "WARNING") -> None:
    """Quieten PaddleFormers' own logger (the trainer prints every argument at INFO/DEBUG)."""
    from paddleformers.utils.log import logger

    logger.set_level(level)
