"""Environment report for the GUI's environment panel: ``python -m workbench.engine.envcheck``.

Runs in its own process (the GUI never imports paddle) and prints one JSON object:
Python, Paddle and PaddleFormers versions, the devices Paddle finds and the result of
Paddle's own installation check.
"""

from __future__ import annotations

import contextlib
import io
import json
import platform
import sys


def report() -> dict:
    out: dict = {"python": sys.version.split()[0], "platform": platform.platform()}
    try:
        import paddle
    except Exception as exc:  # report, do not crash: the panel shows it
        out["paddle_error"] = f"{type(exc).__name__}: {exc}"
        return out
    out["paddle_version"] = paddle.__version__
    out["compiled_with_cuda"] = bool(paddle.device.is_compiled_with_cuda())
    # the same list the training device choice is made from
    from .models import available_devices

    try:
        out["devices"] = available_devices()
    except Exception as exc:
        out["devices"] = ["cpu"]
        out["devices_error"] = str(exc)
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
    sys.stdout.write(json.dumps(report(), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
