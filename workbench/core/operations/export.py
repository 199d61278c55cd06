"""What an export can make of a run, decided from the run's job before any model loads: the
command line refuses what cannot be made, and the Export page does not offer it. And the
platforms a bundle's pinned requirements and wheels can be written for, which both offer, and the
memory an export will take, which both show before it starts."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..errors import WorkbenchError
from ..jobs import read_job

# Why a run gets no int8 model; the Export page words its own translation of each reason, the
# command line prints these. Measured on the built-in classifier with 3 labels: builtin:tiny
# 83,846 weights of which 608 in linear layers (0.7 %), builtin:small 17,838,854 of which 8,576
# (0.05 %); the rest are the n-gram embedding tables, which grow with the number of labels.
NO_INT8 = {
    "builtin_classifier": "The built-in classifier has nothing for int8 to quantise: its weights are tables of "
                          "character n-gram embeddings, and its linear layers hold under 1 % of them, so an 'int8' "
                          "model would be the fp32 model under another name. Export it without int8: its static "
                          "model is the one to ship.",
}


def int8_refusal(base_model: str, task: str) -> str | None:
    """The key of :data:`NO_INT8` that rules out an int8 model for a run of ``base_model``
    trained for ``task``, or None where weight-only int8 has linear layers to quantise (a
    language model)."""
    if str(base_model).startswith("builtin:") and str(task) == "classification":
        return "builtin_classifier"
    return None


def run_int8_refusal(run_dir: str | os.PathLike) -> str | None:
    """:func:`int8_refusal` for the run in ``run_dir``, read from its job (None if unreadable)."""
    try:
        job = read_job(run_dir)
    except WorkbenchError:
        return None
    return int8_refusal(job.base_model, job.task)


# Why a run gets no GGUF file; the Export page words its own translation, the engine's refusal
# (engine/export/) says the same.
NO_GGUF = {
    "builtin_classifier": "The built-in classifier has no GGUF form: llama.cpp and ollama run language models, and "
                          "this is an n-gram classifier with a classification head. Export it without 'gguf'.",
    "head": "A model with a classification head has no GGUF form: llama.cpp and ollama run language models that "
            "write text, and this one answers a probability for each of the project's labels. Export it without "
            "'gguf': its static model (and ONNX) carry the head, and predict.py and serve.py run it.",
}


def gguf_refusal(base_model: str, task: str, head: bool = False) -> str | None:
    """The key of :data:`NO_GGUF` that rules out a GGUF file for a run of ``base_model`` trained
    for ``task`` (``head``: with a classification head on a pretrained model), or None where the
    model is a language model llama.cpp may run."""
    if str(task) == "classification":
        if str(base_model).startswith("builtin:"):
            return "builtin_classifier"
        if head:
            return "head"
    return None


def run_gguf_refusal(run_dir: str | os.PathLike) -> str | None:
    """:func:`gguf_refusal` for the run in ``run_dir``, read from its job (None if unreadable)."""
    try:
        job = read_job(run_dir)
    except WorkbenchError:
        return None
    return gguf_refusal(job.base_model, job.task, job.head)


# ----- what an export makes unless told otherwise ------------------------------------------------------

# The static model alone: it is what predict.py, serve.py and the Docker image run (its export of
# Gemma 3 270M: 3.3 GB at its peak, see EXPORT_WEIGHT_COPIES). The merged
# folder (for further training or other frameworks), ONNX and GGUF are asked for, with their
# memory shown first. The command line and the Export page both start from this.
DEFAULT_FORMATS = ("static",)


# ----- the memory an export takes, shown before it starts ------------------------------------------------

# An export's peak memory is Paddle's runtime with the tokenizer, plus copies of the model's fp32
# weights alive at once: the trained model itself, and beside it, one at a time, the Paddle
# Inference predictor being checked (static, ONNX, int8), the model folder being written
# (merged) or the GGUF file's tensors read back for their check (gguf). Measured on Gemma 3 270M
# (1,026 MB of weights) by bench/export_bench.py --only whole, each export in a process of its own
# with its children: static 3,346 MB, static,gguf 3,365, gguf 3,272 and merged 3,308 at their
# peaks (2.6 copies or less); static,onnx 12,967 MB (12 copies: paddle2onnx alone takes 7.5 GB to
# convert the 1.1 GB graph, and the full-sequence graph's and the cached step's conversions are
# checked in onnxruntime). int8 is not measured: counted as onnx.
EXPORT_RUNTIME_MB = 700
EXPORT_WEIGHT_COPIES = {"static": 2.7, "gguf": 2.7, "merged": 2.7, "onnx": 12.0, "int8": 12.0}


@dataclass(frozen=True)
class ExportEstimate:
    """What an export of a run will take: its peak memory, and what this computer has free now."""

    memory_mb: float
    weights_mb: float
    available_mb: float | None = None

    @property
    def fits(self) -> bool:
        return self.available_mb is None or self.memory_mb <= self.available_mb


def export_estimate(run_dir: str | os.PathLike, formats, *, int8: bool = False,
                    available_mb: float | None = None) -> ExportEstimate:
    """The peak memory of exporting the run in ``run_dir`` to ``formats`` (see
    :data:`EXPORT_WEIGHT_COPIES`), and the memory available now (``available_mb``, else read)."""
    from ..recommend import estimate_params

    job = read_job(run_dir)
    weights_mb = estimate_params(job.base_model) * 4 / 2**20
    asked = [f for f in formats if f in EXPORT_WEIGHT_COPIES] + (["int8"] if int8 else [])
    copies = max((EXPORT_WEIGHT_COPIES[f] for f in asked), default=1.0)
    if available_mb is None:
        try:
            import psutil

            available_mb = psutil.virtual_memory().available / 2**20
        except (ImportError, OSError):
            available_mb = None
    return ExportEstimate(memory_mb=round(EXPORT_RUNTIME_MB + copies * weights_mb, 1),
                          weights_mb=round(weights_mb, 1), available_mb=available_mb)


# ----- the platform a bundle's requirements.lock and wheels/ are for --------------------------------------

@dataclass(frozen=True)
class BundleTarget:
    """A platform a bundle's ``requirements.lock`` (the hashes of its wheels) and ``wheels/``
    are written for. The Export page words its own title for each key; these are the command
    line's and the model card's."""

    key: str
    title: str
    # pip's --platform tags (every manylinux level up to the system's glibc: pip widens only
    # the old manylinux2014/2010/1 names and macOS versions by itself); () = this computer
    platforms: tuple[str, ...] = ()
    python: str | None = None  # "3.11" (CPython); None = the Python that exports
    # PEP 508 environment of that platform, for the requirements with markers
    markers: tuple[tuple[str, str], ...] = ()

    @property
    def here(self) -> bool:
        return not self.platforms


def _manylinux(arch: str, glibc_minor: int) -> tuple[str, ...]:
    return tuple(f"manylinux_2_{m}_{arch}" for m in range(glibc_minor, 4, -1)) + (f"manylinux2014_{arch}",)


# The Dockerfile's base image, python:3.11-slim (Debian trixie: glibc 2.41, Python 3.11.16); the
# default target, so that the lock and the wheels are those the image installs.
IMAGE_PYTHON, IMAGE_PYTHON_FULL, IMAGE_GLIBC_MINOR = "3.11", "3.11.16", 41
_POSIX = (("os_name", "posix"), ("implementation_name", "cpython"), ("platform_python_implementation", "CPython"),
          ("python_version", IMAGE_PYTHON), ("python_full_version", IMAGE_PYTHON_FULL),
          ("implementation_version", IMAGE_PYTHON_FULL))
_LINUX = _POSIX + (("sys_platform", "linux"), ("platform_system", "Linux"))
BUNDLE_TARGETS = {
    "linux-x86_64": BundleTarget("linux-x86_64", "Linux x86-64, CPython 3.11 (the Docker image's)",
                                 _manylinux("x86_64", IMAGE_GLIBC_MINOR), IMAGE_PYTHON,
                                 _LINUX + (("platform_machine", "x86_64"),)),
    "linux-aarch64": BundleTarget("linux-aarch64", "Linux ARM64, CPython 3.11 (the Docker image on ARM servers)",
                                  _manylinux("aarch64", IMAGE_GLIBC_MINOR), IMAGE_PYTHON,
                                  _LINUX + (("platform_machine", "aarch64"),)),
    "windows-x86_64": BundleTarget("windows-x86_64", "Windows x86-64, CPython 3.11", ("win_amd64",), IMAGE_PYTHON,
                                   tuple((k, "nt") if k == "os_name" else (k, v) for k, v in _POSIX)
                                   + (("sys_platform", "win32"), ("platform_system", "Windows"),
                                      ("platform_machine", "AMD64"))),
    "macos-arm64": BundleTarget("macos-arm64", "macOS 14 or later on Apple silicon, CPython 3.11", ("macosx_14_0_arm64",),
                                IMAGE_PYTHON, _POSIX + (("sys_platform", "darwin"), ("platform_system", "Darwin"),
                                                        ("platform_machine", "arm64"))),
    "this": BundleTarget("this", "this computer (its system and Python)"),
}
DEFAULT_TARGET = "linux-x86_64"


def bundle_target(key: str | None) -> BundleTarget:
    """The target named ``key`` (None: the default, the Docker image's platform)."""
    try:
        return BUNDLE_TARGETS[key or DEFAULT_TARGET]
    except KeyError:
        raise WorkbenchError(f"Unknown target platform {key!r}; choose one of {', '.join(BUNDLE_TARGETS)}.",
                             code="target_platform_unknown", platform=str(key), known=list(BUNDLE_TARGETS)) from None
