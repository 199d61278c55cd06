"""Save one PNG per page of the desktop application, on a sample project with a short real run.

    python docs/make_screenshots.py OUT_DIR [--lang en|zh_CN] [--size 1366x768]
    python docs/make_screenshots.py docs/screenshots/zh --lang zh_CN     # the Chinese interface

Works offscreen (it sets QT_QPA_PLATFORM=offscreen unless a platform is chosen). The
project is built in a temporary folder from the finance_sentiment sample data; the
built-in tiny model trains for a few dozen steps in the worker process, so the curves
and (when the evaluate command is available) the metrics are real.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--lang", default="en")
    ap.add_argument("--size", default="1366x768")
    ap.add_argument("--steps", type=int, default=60)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    work = Path(tempfile.mkdtemp(prefix="wb-shots-"))
    os.environ["WORKBENCH_HOME"] = str(work / "home")
    os.environ["WORKBENCH_PROJECTS_DIR"] = str(work / "projects")

    from PySide6.QtCore import QEventLoop

    from workbench.gui.app import build_app, setup
    from workbench.gui.main_window import MainWindow
    from workbench.gui.settings import Settings

    app = build_app([])
    settings = Settings()
    settings.language = args.lang
    settings.first_start_done = True
    setup(app, settings)
    w = MainWindow(settings)
    width, height = (int(x) for x in args.size.split("x"))
    w.resize(width, height)
    w.show()

    def pump(seconds: float = 0.3) -> None:
        end = time.time() + seconds
        while time.time() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)

    def wait(pred, timeout: float = 300) -> None:
        end = time.time() + timeout
        while not pred():
            if time.time() > end:
                raise SystemExit("timed out waiting for the application")
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

    def shot(name: str) -> None:
        pump(0.5)
        path = out / f"{name}.png"
        w.grab().save(str(path))
        print(path)

    tp = w.show_step("template")
    wait(lambda: tp.preview_model.rowCount() > 0)
    shot("1-template")

    w.open_sample_project()
    wait(lambda: w.session.project is not None)
    data = w.show_step("data")
    wait(lambda: data.cleaned_df is not None and bool(data.stats))
    data.tabs.setCurrentIndex(1)
    ops = [s.op for s in data.recipe.steps]
    data.steps.steps_table.selectRow(ops.index("mask_pii") if "mask_pii" in ops else 0)
    shot("2-data")

    train = w.show_step("train")
    train.model_combo.setCurrentIndex(train.model_combo.findData("builtin:tiny"))
    train.max_steps.setValue(args.steps)
    train.eval_steps.setValue(max(5, args.steps // 6))
    run_id = train.start()
    wait(lambda: w.session.monitor.status(run_id) not in ("running", "created"))
    shot("3-train")

    ev = w.show_step("evaluate")
    ev.base_check.setChecked(False)
    if not ev.evaluate():
        raise SystemExit("evaluation did not start")
    wait(lambda: not ev.evaluating, 600)
    if ev.metrics is None:
        # the headless eval command is not there: evaluate in a separate process through the engine
        code = ("import sys; from workbench.engine.evaluate import evaluate_run; "
                "evaluate_run(sys.argv[1], sys.argv[2])")
        subprocess.run([sys.executable, "-c", code, str(w.session.root), run_id], check=False,
                       capture_output=True)
        ev.load_results()
    ev.wrong_only.setChecked(True)
    shot("4-evaluate")

    ex = w.show_step("export")
    for fmt in ("static", "merged", "onnx"):
        ex.format_checks[fmt].setChecked(True)
    ex.int8_check.setChecked(ex.int8_check.isEnabled())  # a refused int8 stays unticked, as in the app
    if ex.export():
        wait(lambda: ex.export_op is None, 600)
    shot("5-export")
    w.session.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
