"""``workbench --selftest``: prove that this installation works, end to end.

Run from the source tree (``python -m workbench --selftest``) or from the built
application (``Workbench --selftest``). Each check prints one line, ``ok`` or ``FAIL``
with the reason, and the exit status is non-zero when any check failed:

    imports    paddle, paddleformers, PySide6 and the rest of the stack import
    gui        Qt starts (offscreen), the main window builds, icons, translations and a chart render
    templates  the built-in templates are found and valid
    project    a project is prepared from a template's sample data in a temporary folder
    train      the built-in tiny model trains a few steps in the worker process
    evaluate   the run is evaluated on a few test rows
    export     the run is exported as a verified bundle (static model, ONNX)
    predictor  the bundle's predict.py runs in its own process and answers with valid labels

Everything is written under a temporary folder that is removed at the end (kept when a
check fails, or with ``--keep``); user settings and projects are not touched.
"""

from __future__ import annotations

import contextlib
import csv
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path

TEMPLATE = "finance_sentiment"  # a classification template: the quickest to train and check
TRAIN_STEPS = 6
EVAL_ROWS = 8
TIMEOUT_S = 600


class CheckFailed(Exception):
    """A check's expected outcome did not happen; the message says what."""


def interpreter_command() -> list[str]:
    """How to run a Python script with this installation's Python and packages: the
    interpreter from the source tree, the application's executable when frozen (it runs
    ``script.py``, ``-c`` and ``-m`` like an interpreter; see workbench.frozen)."""
    return [sys.executable]


@contextlib.contextmanager
def _output_to(log_path: Path):
    """While a check runs, what the libraries print (Paddle's C++ side and oneDNN on file
    descriptor 1, warnings and progress on 2) goes to the log file, so the terminal shows
    only the result lines."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved: list[tuple[int, int]] = []
    try:
        log = open(log_path, "ab")
    except OSError:
        log = None
    if log is not None:
        for fd in (1, 2):
            try:
                saved.append((fd, os.dup(fd)))
                os.dup2(log.fileno(), fd)
            except (OSError, ValueError, AttributeError):
                pass
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)
        if log is not None:
            log.close()


class SelfTest:
    def __init__(self, workdir: Path, out=None):
        self.workdir = workdir
        self.out = out or sys.stdout
        self.results: list[tuple[str, bool, str]] = []
        self.state: dict = {}
        self.log_path = workdir / "selftest.log"

    def line(self, status: str, name: str, detail: str) -> None:
        self.out.write(f"{status:<6}{name} {detail}".rstrip() + "\n")
        self.out.flush()

    def check(self, name: str, fn: Callable[[], str], needs: tuple[str, ...] = ()) -> bool:
        missing = [n for n in needs if not any(r[0] == n and r[1] for r in self.results)]
        if missing:
            self.results.append((name, False, "skipped"))
            self.line("FAIL", name + ":", f"not run, because {', '.join(missing)} failed")
            return False
        t0 = time.perf_counter()
        try:
            with _output_to(self.log_path):
                detail = fn()
        except Exception as exc:  # each check reports, the next ones still run
            secs = time.perf_counter() - t0
            reason = str(exc) if isinstance(exc, CheckFailed) else f"{type(exc).__name__}: {exc}"
            reason = " ".join(reason.split())[:600]
            if not isinstance(exc, CheckFailed):  # the details, for whoever reads the kept log
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(f"\n--- {name} failed:\n")
                    traceback.print_exc(file=fh)
            self.results.append((name, False, reason))
            self.line("FAIL", name + ":", f"{reason} ({secs:.1f} s)")
            return False
        secs = time.perf_counter() - t0
        self.results.append((name, True, detail))
        self.line("ok", name, f"({detail}, {secs:.1f} s)" if detail else f"({secs:.1f} s)")
        return True

    # ----- the checks -----------------------------------------------------------------------

    def imports(self) -> str:
        from importlib import metadata

        import paddle
        import paddleformers  # noqa: F401
        import PySide6
        import pyqtgraph  # noqa: F401
        import tokenizers  # noqa: F401

        from paddleformers.transformers import LlamaForCausalLM  # noqa: F401
        from paddleformers.trainer import Trainer  # noqa: F401

        def version(dist: str, module=None) -> str:
            try:
                return metadata.version(dist)
            except metadata.PackageNotFoundError:
                return getattr(module, "__version__", "?")

        return (f"paddle {paddle.__version__}, paddleformers {version('paddleformers', paddleformers)}, "
                f"PySide6 {PySide6.__version__}, python {sys.version.split()[0]}")

    def gui(self) -> str:
        os.environ["WORKBENCH_HOME"] = str(self.workdir / "home")  # settings go to the temporary folder
        from PySide6.QtCore import QCoreApplication, QEventLoop, QTranslator
        from PySide6.QtGui import QGuiApplication

        from .gui.app import build_app, setup
        from .gui.main_window import MainWindow
        from .gui.resources import icon, translations_dir
        from .gui.settings import Settings

        if QCoreApplication.instance() is None:
            app = build_app(["-platform", "offscreen"])  # never opens a window on the desktop
        else:
            app = QCoreApplication.instance()
        platform = QGuiApplication.platformName()
        settings = Settings(self.workdir / "home" / "gui.ini")
        setup(app, settings)
        if icon("app").isNull():
            raise CheckFailed("the application icon (resources/icons/app.svg) did not load: "
                              "the resources or Qt's SVG image plugin are missing")
        t = QTranslator()
        if not t.load("workbench_zh_CN", str(translations_dir())):
            raise CheckFailed(f"the Chinese translation was not found in {translations_dir()}")
        win = MainWindow(settings)
        win.resize(1100, 720)
        win.show()
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 200)
        if win.grab().isNull():
            raise CheckFailed("the main window did not render")
        pages = win.nav.count() if hasattr(win, "nav") else "?"
        win.close()
        win.deleteLater()
        app.processEvents()
        import pyqtgraph as pg

        plot = pg.PlotWidget()
        plot.plot([0, 1, 2, 3], [3.0, 2.2, 1.9, 1.5])
        plot.resize(320, 200)
        grab = plot.grab()
        plot.deleteLater()
        if grab.isNull():
            raise CheckFailed("a chart did not render")
        return f"Qt platform {platform}, main window with {pages} pages, icon, zh_CN translation, chart"

    def templates(self) -> str:
        from .core.templates import TemplateCatalog, builtin_templates_dir

        catalog = TemplateCatalog()
        builtin = [t for t in catalog if t.folder and t.folder.parent == builtin_templates_dir().resolve()]
        if not builtin:
            raise CheckFailed(f"no built-in template in {builtin_templates_dir()}")
        catalog.get(TEMPLATE)
        problems = f", {len(catalog.problems)} user template problem(s)" if catalog.problems else ""
        return f"{len(builtin)} built-in in {builtin_templates_dir()}{problems}"

    def project(self) -> str:
        from .core.project import SplitSettings, prepare
        from .core.templates import TemplateCatalog

        template = TemplateCatalog().get(TEMPLATE)
        root = self.workdir / "project"
        project, summary = prepare(template, template.sample_path, root,
                                   split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=7))
        splits = summary["stats"]["splits"]
        if not splits.get("train") or not splits.get("test"):
            raise CheckFailed(f"the split is empty: {splits}")
        self.state["project"] = project
        return f"{template.id}: {summary['source']['rows']} rows, split " + \
            "/".join(str(splits.get(k, 0)) for k in ("train", "val", "test"))

    def train(self) -> str:
        from .core.jobs import JobSpec, write_job
        from .core.runs import launch_worker, read_events, summarize

        project = self.state["project"]
        job = JobSpec(project=str(project.root.resolve()), template=TEMPLATE, task="classification",
                      base_model="builtin:tiny", method="full", max_steps=TRAIN_STEPS, eval_steps=TRAIN_STEPS,
                      save_steps=TRAIN_STEPS, logging_steps=1, batch_size=8, max_length=96, learning_rate=5e-3,
                      device="cpu", seed=7)
        run_dir = project.runs_dir / "run-selftest"
        write_job(run_dir, job)
        proc = launch_worker(run_dir, detach=False)
        try:
            proc.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise CheckFailed(f"the worker did not finish {TRAIN_STEPS} steps within {TIMEOUT_S} s") from None
        s = summarize(run_dir)
        if s.status != "completed":
            log = (run_dir / "worker.log").read_text(encoding="utf-8", errors="replace").strip().splitlines()
            tail = " | ".join(log[-3:])
            raise CheckFailed(f"the run ended '{s.status}' (exit {proc.returncode}): {s.error or ''} "
                              f"worker.log: {tail}")
        losses = [e["loss"] for e in read_events(run_dir) if e.get("event") == "step" and "loss" in e]
        self.state["run"] = run_dir.name
        shown = f", loss {losses[0]:.3f} -> {losses[-1]:.3f}" if losses else ""
        return f"builtin:tiny, {s.last_step} steps in a worker process{shown}"

    def evaluate(self) -> str:
        try:
            from workbench.engine.evaluation.evaluate import evaluate_run
        except ImportError as exc:
            raise CheckFailed(f"not available ({exc})") from None
        project = self.state["project"]
        result = evaluate_run(project.root, self.state["run"], limit=EVAL_ROWS, write_report=True)
        m = result["metrics"]
        if result["rows"] <= 0 or m.get("accuracy") is None:
            raise CheckFailed(f"no accuracy in the result: {sorted(m)}")
        report = project.runs_dir / self.state["run"] / "eval" / "report.html"
        if not report.is_file():
            raise CheckFailed(f"{report} was not written")
        return f"{result['rows']} test rows, accuracy {m['accuracy']:.3f}, report.html"

    def export(self) -> str:
        try:
            from workbench.engine.export.bundle import export_run
        except ImportError as exc:
            raise CheckFailed(f"not available ({exc})") from None
        project = self.state["project"]
        out = self.workdir / "bundle"
        result = export_run(project.root, self.state["run"], out, formats=("static", "onnx"), evaluate=True,
                            check_script=False, parity_rows=8)
        formats = result["formats"]
        static = formats.get("static", {})
        if static.get("status") != "ok":
            raise CheckFailed(f"static model: {static}")
        onnx = formats.get("onnx", {})
        if onnx.get("status") != "ok":
            raise CheckFailed(f"ONNX: {onnx.get('reason') or onnx}")
        if not (out / "predict.py").is_file():
            raise CheckFailed("the bundle has no predict.py")
        self.state["bundle"] = out
        return (f"static max diff {static.get('max_abs_diff', float('nan')):.1e}, "
                f"onnx max diff {onnx.get('max_abs_diff', float('nan')):.1e}")

    def predictor(self) -> str:
        bundle = self.state["bundle"]
        labels = self.state["project"].task.labels  # the project's own, as the bundle's
        src, dst = self.workdir / "predict-in.csv", self.workdir / "predict-out.csv"
        texts = ["央行宣布下调存款准备金率，市场流动性充裕", "公司业绩大幅下滑，股价暴跌"]
        with open(src, "w", encoding="utf-8-sig", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["text"])
            w.writerows([t] for t in texts)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        cmd = interpreter_command() + ["predict.py", "--input", str(src), "--output", str(dst), "--device", "cpu"]
        res = subprocess.run(cmd, cwd=bundle, capture_output=True, text=True, timeout=TIMEOUT_S,
                             stdin=subprocess.DEVNULL, env=env)
        if res.returncode != 0:
            tail = " | ".join((res.stderr or res.stdout).strip().splitlines()[-3:])
            raise CheckFailed(f"predict.py exited {res.returncode}: {tail}")
        with open(dst, encoding="utf-8-sig", newline="") as fh:
            got = [r.get("prediction") for r in csv.DictReader(fh)]
        if len(got) != len(texts) or any(g not in labels for g in got):
            raise CheckFailed(f"predict.py answered {got}; expected one of {labels} per row")
        return f"predict.py in its own process labelled {len(got)} rows ({', '.join(got)})"


def run_selftest(keep: bool = False, out=None) -> int:
    """Run every check, print one line each; 0 when all passed, 1 otherwise."""
    out = out or sys.stdout
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    frozen = bool(getattr(sys, "frozen", False))
    from . import __version__

    out.write(f"Workbench {__version__} self-test ({'application' if frozen else 'source'}: {sys.executable})\n")
    out.flush()
    workdir = Path(tempfile.mkdtemp(prefix="workbench-selftest-"))
    saved_env = {k: os.environ.get(k) for k in ("WORKBENCH_HOME", "WORKBENCH_PROJECTS_DIR")}
    os.environ["WORKBENCH_PROJECTS_DIR"] = str(workdir / "projects")
    t0 = time.perf_counter()
    st = SelfTest(workdir, out)
    try:
        st.check("imports", st.imports)
        st.check("gui", st.gui)
        st.check("templates", st.templates)
        st.check("project", st.project, needs=("templates",))
        st.check("train", st.train, needs=("project",))
        st.check("evaluate", st.evaluate, needs=("train",))
        st.check("export", st.export, needs=("train",))
        st.check("predictor", st.predictor, needs=("export",))
    finally:
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    failed = [name for name, ok, _ in st.results if not ok]
    if keep or failed:
        out.write(f"kept {workdir} (the libraries' output is in selftest.log, the run's in "
                  f"project/runs/*/worker.log)\n")
    else:
        import shutil

        shutil.rmtree(workdir, ignore_errors=True)
    total = time.perf_counter() - t0
    if failed:
        out.write(f"self-test FAILED: {', '.join(failed)} ({total:.0f} s)\n")
    else:
        out.write(f"self-test passed: {len(st.results)} checks ({total:.0f} s)\n")
    out.flush()
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    return run_selftest(keep="--keep" in argv)


if __name__ == "__main__":
    raise SystemExit(main())
