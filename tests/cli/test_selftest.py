"""The installation self-test, the frozen entry point and the worker command line.

``workbench --selftest`` runs for real from the source tree (about half a minute: it trains
the built-in tiny model for a few steps in a worker process, evaluates, exports and runs the
exported predictor). The built application's self-test runs when a build exists
(``installer/build_linux.sh`` writes dist/Workbench); otherwise it is skipped.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from workbench.cli import main as cli_main
from workbench.core import runs
from workbench.core import templates
from workbench.frozen import run_as_interpreter

ROOT = Path(__file__).resolve().parents[2]
CHECKS = ("imports", "gui", "templates", "project", "train", "evaluate", "export", "predictor")
BUILT_APP = ROOT / "dist" / "Workbench" / ("Workbench.exe" if sys.platform == "win32" else "Workbench")


# ----- the worker command line and the frozen data folder --------------------------------------


def test_worker_command_from_source(tmp_path):
    cmd = runs.worker_command(tmp_path)
    assert cmd == [sys.executable, "-m", "workbench.engine.worker", str(tmp_path)]
    assert runs.worker_command(tmp_path, python="/opt/py")[0] == "/opt/py"


def test_worker_command_when_frozen(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert runs.worker_command(tmp_path) == [sys.executable, "--worker", str(tmp_path)]
    # an explicit interpreter is still run as one
    assert runs.worker_command(tmp_path, python="/opt/py")[1:3] == ["-m", "workbench.engine.worker"]


def test_worker_flag_runs_the_worker(tmp_path, capsys):
    assert cli_main(["--worker"]) == 2  # the worker's own usage message
    assert "RUN_DIR" in capsys.readouterr().err


def test_builtin_templates_dir_when_frozen(tmp_path, monkeypatch):
    monkeypatch.delenv("WORKBENCH_BUILTIN_TEMPLATES", raising=False)
    assert templates.builtin_templates_dir() == ROOT / "templates"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert templates.builtin_templates_dir() == tmp_path / "templates"
    monkeypatch.setenv("WORKBENCH_BUILTIN_TEMPLATES", str(tmp_path / "mine"))
    assert templates.builtin_templates_dir() == tmp_path / "mine"


# ----- the frozen executable acting as an interpreter ----------------------------------------


def _interp(tmp_path, argv: list[str]) -> subprocess.CompletedProcess:
    code = ("import sys; from workbench.frozen import run_as_interpreter; "
            f"sys.exit(run_as_interpreter({argv!r}))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)


def test_interpreter_forms(tmp_path):
    res = _interp(tmp_path, ["-u", "-c", "import sys; print(sys.argv[1:], __name__); sys.exit(3)", "a", "b"])
    assert res.returncode == 3 and res.stdout.strip() == "['a', 'b'] __main__"

    script = tmp_path / "predict.py"
    (tmp_path / "helper.py").write_text("VALUE = 42\n")
    script.write_text("import sys, helper\nprint(helper.VALUE, sys.argv[1:], __name__)\n")
    res = _interp(tmp_path, [str(script), "--input", "x.csv"])
    assert res.returncode == 0 and res.stdout.strip() == "42 ['--input', 'x.csv'] __main__", res.stderr

    res = _interp(tmp_path, ["-m", "workbench.engine.worker"])  # the module's usage, exit 2
    assert res.returncode == 2 and "RUN_DIR" in res.stderr
    res = _interp(tmp_path, ["-m", "workbench", "templates", "--json"])
    assert res.returncode == 0 and '"templates"' in res.stdout
    assert run_as_interpreter(["templates"]) is None  # a Workbench command, not an interpreter form


def test_library_path_not_passed_on(monkeypatch):
    from workbench import frozen

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("LD_LIBRARY_PATH", "/app/_internal")
    monkeypatch.delenv("LD_LIBRARY_PATH_ORIG", raising=False)
    frozen.restore_library_path()
    assert "LD_LIBRARY_PATH" not in os.environ
    monkeypatch.setenv("LD_LIBRARY_PATH", "/app/_internal:/opt/lib")
    monkeypatch.setenv("LD_LIBRARY_PATH_ORIG", "/opt/lib")
    frozen.restore_library_path()
    assert os.environ["LD_LIBRARY_PATH"] == "/opt/lib" and "LD_LIBRARY_PATH_ORIG" not in os.environ


# ----- the self-test itself ------------------------------------------------------------------


def _assert_passed(res: subprocess.CompletedProcess) -> list[str]:
    lines = res.stdout.splitlines()
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for name in CHECKS:
        assert any(ln.startswith("ok    " + name) for ln in lines), (name, res.stdout)
    assert not any(ln.startswith("FAIL") for ln in lines)
    assert lines[-1].startswith("self-test passed")
    return lines


@pytest.mark.slow
def test_selftest_from_source(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path))
    res = subprocess.run([sys.executable, "-m", "workbench", "--selftest"], capture_output=True, text=True,
                         timeout=600, env=env, cwd=tmp_path)
    lines = _assert_passed(res)
    assert "imports (paddle 3.3.1, paddleformers 1.0.0, PySide6 " in lines[1]
    assert not list(tmp_path.glob("WorkbenchProjects")), "the self-test must not touch the user's projects"


def test_selftest_reports_failures(tmp_path, monkeypatch):
    """A failing check prints FAIL with the reason, the checks after it that need it say so,
    and the exit status is 1."""
    import io

    from workbench import selftest

    def broken(self):
        raise selftest.CheckFailed("no templates here")

    monkeypatch.setattr(selftest.SelfTest, "templates", broken)
    monkeypatch.setattr(selftest.SelfTest, "imports", lambda self: "stubbed")

    def crash(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(selftest.SelfTest, "gui", crash)
    out = io.StringIO()
    assert selftest.run_selftest(out=out) == 1
    text = out.getvalue()
    assert "FAIL  gui: RuntimeError: boom" in text
    assert "FAIL  templates: no templates here" in text
    assert "FAIL  project: not run, because templates failed" in text
    assert "FAIL  predictor: not run, because export failed" in text
    assert "self-test FAILED: gui, templates, project, train, evaluate, export, predictor" in text
    kept = [ln for ln in text.splitlines() if ln.startswith("kept ")]
    assert kept
    folder = Path(kept[0].split()[1])
    try:
        assert "Traceback" in (folder / "selftest.log").read_text(encoding="utf-8")  # the details are kept
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.skipif(not BUILT_APP.is_file(), reason="no built application (run installer/build_linux.sh)")
def test_built_application_selftest():
    """The built application, run from outside the source tree with a bare environment."""
    with tempfile.TemporaryDirectory(prefix="wb-built-") as tmp:
        env = {"HOME": tmp, "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen", "LANG": "C.UTF-8"}
        if sys.platform == "win32":
            env = {k: v for k, v in os.environ.items() if k.upper() in ("SYSTEMROOT", "TEMP", "TMP", "USERPROFILE",
                                                                        "APPDATA", "LOCALAPPDATA", "PATH")}
            env["QT_QPA_PLATFORM"] = "offscreen"
        res = subprocess.run([str(BUILT_APP), "--selftest"], capture_output=True, text=True, timeout=900,
                             env=env, cwd=tmp, encoding="utf-8", errors="replace")
        lines = _assert_passed(res)
        assert "(application:" in lines[0]
        # the templates come from the application folder, not from the source tree
        assert str(ROOT / "templates") not in res.stdout
