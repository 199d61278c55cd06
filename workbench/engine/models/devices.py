"""Devices: which one a run uses, whether it can run a quantised base, and how an engine process
uses the CPU (the BLAS code path and the number of compute threads).

Measured on a 2-core AMD EPYC (Zen 4, AVX-512), a 2048 x 640 x 2048 fp32 matmul in Paddle
3.3.1: 22 GFLOP/s as Paddle ships, 77 with MKL's AVX2 kernels, 134 with those on both
cores; numpy's OpenBLAS does 98 on one core. The MKL that Paddle bundles dispatches on the
processor's vendor and gives other vendors' CPUs its generic kernels; the version it bundles
still honours ``MKL_DEBUG_CPU_TYPE=5`` (use the AVX2 kernels), read once when MKL loads, so
it is set here, before any module imports Paddle (this package's ``__init__`` calls it).
"""

from __future__ import annotations

import os
import sys
import time

from workbench.core.errors import WorkbenchError
from workbench.core.machine_load import busy_cores, busy_share, logical_cores, others_busy_share

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
                "Choose one of those, or 'cpu'.",
                code="device_unavailable", device=name, devices=list(available),
            )
        name = name if ":" in name else matches[0]
    paddle.device.set_device(name)
    if name == "cpu":  # training, evaluation and the playground compute on the idle cores
        use_threads(chosen_threads())
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


MKL_AVX2 = ("MKL_DEBUG_CPU_TYPE", "5")


# importing Paddle sets OMP_NUM_THREADS=1 where it is unset: what the user set is read first
_USER_THREADS = None if "paddle" in sys.modules else os.environ.get("OMP_NUM_THREADS")


def cpu_vendor() -> str:
    """"AuthenticAMD", "GenuineIntel", … or "" where it cannot be read."""
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
                for line in f:
                    if line.startswith("vendor_id"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            return ""
        return ""
    # Windows: "AMD64 Family 25 Model 97 Stepping 2, AuthenticAMD"
    import platform

    ident = os.environ.get("PROCESSOR_IDENTIFIER", "") or platform.processor()
    return next((v for v in ("AuthenticAMD", "GenuineIntel") if v in ident), "")


def prefer_fast_blas(environ=os.environ) -> None:
    """Ask Paddle's MKL for its AVX2 kernels on AMD processors (Intel ones get their best
    already); a value the user set is kept."""
    if cpu_vendor() == "AuthenticAMD":
        environ.setdefault(*MKL_AVX2)


def fast_blas(environ=os.environ) -> bool:
    """Whether this process's MKL was asked for the AVX2 kernels."""
    return environ.get(MKL_AVX2[0]) == MKL_AVX2[1]


def physical_cores() -> int:
    try:
        import psutil

        return max(1, psutil.cpu_count(logical=False) or os.cpu_count() or 1)
    except (ImportError, OSError):
        return max(1, os.cpu_count() or 1)


def compute_threads(user: str | None = None) -> int:
    """The compute threads a run should use: OMP_NUM_THREADS where the user set it, else the
    physical cores that other work leaves idle (the processor's use over half a second; the
    load average would still count a run that has just ended), at least one.

    Measured on 2 cores, a Gemma 3 270M LoRA step of 4 x 128 tokens: 4.5 s on one thread,
    3.7-4.1 s on two on an idle machine (the matrix products halve, the many small operators
    stay on one thread), and 2.5-4x slower on two while another job kept the other core busy
    (the threads of one operator wait for each other)."""
    asked = _USER_THREADS if user is None else user
    if asked and asked.isdigit() and int(asked) > 0:
        return int(asked)
    cores = physical_cores()
    busy = busy_cores(busy_share(), logical_cores(cores))  # the measure the estimates count on too
    return max(1, min(cores, cores - busy))


_CHOSEN: list[int] = []


def chosen_threads() -> int:
    """:func:`compute_threads`, measured once a process."""
    if not _CHOSEN:
        _CHOSEN.append(compute_threads())
    return _CHOSEN[0]


def use_threads(threads: int) -> None:
    """Paddle's math library threads (MKL and OpenMP) for this process."""
    import paddle

    paddle.base.core.set_num_threads(int(threads))


def _cpu_seconds() -> tuple[float, float, float] | None:
    """(busy CPU seconds of the whole processor, of this process, wall clock) now; None where
    they cannot be read."""
    try:
        import psutil

        total = psutil.cpu_times()
        idle = total.idle + getattr(total, "iowait", 0.0)
        own = psutil.Process().cpu_times()
        return sum(total) - idle, own.user + own.system, time.monotonic()
    except (ImportError, OSError, AttributeError):
        return None


class ThreadsFollower:
    """Re-measures, every ``every_s`` seconds of a CPU run, the cores other work leaves idle and
    takes the threads that free up (or gives back those other work took). Seen on 2 cores: a
    run started while other work held a core chose one thread and kept it for its whole 20
    minutes after that work had ended. The window is the time since the last check, so one
    measure averages minutes, not a moment; no thread count is set where the user set
    OMP_NUM_THREADS."""

    def __init__(self, threads: int, every_s: float = 180.0, read=_cpu_seconds):
        self.threads, self.every_s, self.read = int(threads), float(every_s), read
        self.last = read()
        self.user_set = bool(_USER_THREADS and _USER_THREADS.isdigit())

    def check(self) -> tuple[int, int, float] | None:
        """``(threads before, after, the share of the processor other work used)`` when the count
        changes now (and sets it), else None."""
        if self.user_set or self.last is None:
            return None
        now = self.read()
        if now is None or now[2] - self.last[2] < self.every_s:
            return None
        busy, own, t = (now[i] - self.last[i] for i in range(3))
        self.last = now
        share = others_busy_share(busy, own, t, logical_cores(physical_cores()))
        cores = physical_cores()
        wanted = max(1, min(cores, cores - busy_cores(share, logical_cores(cores))))
        if wanted == self.threads:
            return None
        before, self.threads = self.threads, wanted
        return before, wanted, share


def release_freed_memory() -> None:
    """Hand memory the process has freed back to the system. glibc keeps freed blocks of a few
    MB for reuse: after a Gemma 3 270M export had freed its Paddle Inference predictors (1.07 GB
    of weights each), the process still held 1.3 GB more than it used. No-op off glibc."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
