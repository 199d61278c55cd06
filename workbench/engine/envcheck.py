"""Environment report for the GUI's environment panel: ``python -m workbench.engine.envcheck``.

Runs in its own process (the GUI never imports paddle) and prints one JSON object:
Python, Paddle and PaddleFormers versions, the devices Paddle finds and the result of
Paddle's own installation check.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import shutil
import sys


def report(workdir: str | None = None) -> dict:
    from workbench import __version__

    out: dict = {"python": sys.version.split()[0], "platform": platform.platform(), "workbench_version": __version__,
                 "cpu_count": os.cpu_count()}
    if workdir:  # a server's check: the room a run has there
        out["disk_free_mb"] = round(shutil.disk_usage(workdir).free / 2**20)
        try:
            import psutil

            out["memory_free_mb"] = round(psutil.virtual_memory().available / 2**20)
        except Exception:
            out["memory_free_mb"] = None
    try:
        import paddle
    except Exception as exc:  # report, do not crash: the panel shows it
        out["paddle_error"] = f"{type(exc).__name__}: {exc}"
        return out
    out["paddle_version"] = paddle.__version__
    out["compiled_with_cuda"] = bool(paddle.device.is_compiled_with_cuda())
    # the same list the training device choice is made from
    from workbench.engine.models.devices import available_devices

    try:
        out["devices"] = available_devices()
    except Exception as exc:
        out["devices"] = ["cpu"]
        out["devices_error"] = str(exc)
    try:  # each GPU with its memory, for a server's check
        if paddle.device.is_compiled_with_cuda():
            props = [paddle.device.cuda.get_device_properties(i) for i in range(paddle.device.cuda.device_count())]
            out["gpus"] = [{"name": p.name, "memory_mb": int(p.total_memory) // 2**20} for p in props]
    except Exception as exc:
        out["gpus_error"] = str(exc)
    try:
        out["current_device"] = paddle.device.get_device()
    except Exception as exc:
        out["current_device_error"] = str(exc)
    try:
        import paddleformers

        out["paddleformers_version"] = getattr(paddleformers, "__version__", "?")
    except Exception as exc:
        out["paddleformers_error"] = f"{type(exc).__name__}: {exc}"
    buf = io.StringIO()
    ok = True
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            paddle.utils.run_check()
    except Exception as exc:
        ok = False
        buf.write(f"\n{type(exc).__name__}: {exc}")
    text = buf.getvalue()
    ok = ok and "successfully" in text.lower()
    out["run_check"] = {"ok": ok, "output": text.strip()[-2000:]}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench.engine.envcheck")
    parser.add_argument("--workdir", help="also report the free disk there and the free memory")
    args = parser.parse_args()
    sys.stdout.write(json.dumps(report(args.workdir), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
