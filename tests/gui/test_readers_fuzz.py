"""Whatever a crash or a disk leaves in a project, the readers never raise.

Property-based: hypothesis writes run folders whose events file holds valid events with
fields of any type, torn lines, invalid UTF-8, NUL padding, unknown kinds and schema
versions, and an empty or damaged job.json, pid file or project.json. ``workbench runs``,
``eval``'s run resolution and the window's re-attach (the run monitor and the Train page
that replays the history) read them without raising.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.cli import main as cli_main
from workbench.core.errors import WorkbenchError
from workbench.core.runs import list_runs, summarize
from workbench.core.trained import resolve_trained_run

KINDS = ["start", "step", "eval", "checkpoint", "log", "end", "progress", "future-kind"]
FIELDS = ["v", "t", "step", "loss", "lr", "eval_loss", "eta_s", "tokens_per_s", "total_steps", "initial_step",
          "status", "error", "path", "metrics", "device", "message", "level", "trainable_params", "total_params"]
values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12) | st.sampled_from(["completed", "stopped", "failed", "running", "checkpoints/checkpoint-1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)
event = st.builds(lambda kind, fields: {"event": kind, **fields}, st.sampled_from(KINDS),
                  st.dictionaries(st.sampled_from(FIELDS), values, max_size=6))


def _line(ev: dict) -> bytes:
    return json.dumps(ev, default=str).encode()


chunk = st.one_of(
    event.map(_line),
    event.map(_line).flatmap(lambda b: st.integers(0, len(b)).map(lambda n: b[:n])),  # a torn line
    st.integers(1, 64).map(lambda n: b"\x00" * n),  # padding after a power cut
    st.binary(max_size=40),  # anything, invalid UTF-8 included
    st.just(b"\xff\xfe{\"event\": \"step\"}"),
    st.just(b'[1, 2, 3]'),
    st.just(b'{"event": 5}'),
    st.just(b'{"v": 99, "event": "start", "total_steps": "many"}'),
)
events_file = st.lists(st.tuples(chunk, st.sampled_from([b"\n", b"", b"\r\n", b"\n\n"])), max_size=12).map(
    lambda parts: b"".join(a + b for a, b in parts))
side_file = st.one_of(st.none(), st.just(b""), st.binary(max_size=30), st.just(b"\x00" * 16),
                      st.just(b'{"pid": -3}'), st.just(b'{"pid": 99999999999}'), st.just(b'{"pid": "x"}'))
project_file = st.one_of(st.none(), st.just(b""), st.binary(max_size=30), st.just(b"\x00" * 32),
                         st.just(b'{"name": "p", "template": "finance_sentiment"'))


def _write(root: Path, template_project: Path, events: bytes, job: bytes | None, pid: bytes | None,
           project: bytes | None) -> Path:
    shutil.copytree(template_project, root, dirs_exist_ok=True)
    run = root / "runs" / "run-x"
    run.mkdir(parents=True)
    (run / "events.jsonl").write_bytes(events)
    good_job = {"project": str(root), "template": "finance_sentiment", "task": "classification",
                "base_model": "builtin:tiny", "method": "full"}
    (run / "job.json").write_bytes(job if job is not None else json.dumps(good_job).encode())
    if pid is not None:
        (run / "worker.pid").write_bytes(pid)
    ckpt = run / "checkpoints" / "checkpoint-1"
    ckpt.mkdir(parents=True)
    (ckpt / "trainer_state.json").write_text("{}")
    if project is not None:
        (root / "project.json").write_bytes(project)
    return run


@pytest.mark.slow
def test_runs_eval_resolution_and_reattach_never_raise(qtbot, sample_project, tmp_path):
    from workbench.gui.pages.train.page import TrainPage
    from workbench.gui.session import ProjectSession
    from workbench.gui.background import BackgroundWork

    background = BackgroundWork()
    background.show_dialogs = False
    session = ProjectSession()
    page = TrainPage(session, background)
    qtbot.addWidget(page)

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(events=events_file, job=side_file, pid=side_file, project=project_file)
    def check(events, job, pid, project):
        with tempfile.TemporaryDirectory(dir=tmp_path) as d:
            root = Path(d) / "p"
            run = _write(root, sample_project, events, job, pid, project)
            s = summarize(run)
            assert s.status in ("created", "running", "completed", "stopped", "failed", "crashed")
            json.dumps(s.to_dict(), default=str)
            list_runs(root)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = cli_main(["runs", "--project", str(root), "--json"])
                code_text = cli_main(["runs", "--project", str(root)])
            assert (code, code_text) in ((0, 0), (2, 2)), err.getvalue()
            assert "Traceback" not in err.getvalue()
            try:
                resolve_trained_run(root, "run-x")
            except WorkbenchError:
                pass
            try:
                session.open(root)
            except WorkbenchError:
                return  # a damaged project.json: the window says so and opens nothing
            session.monitor.poll()
            page.select_run("run-x")
            session.close()

    check()


def test_an_int_past_64_bits_in_an_event_is_read_without_raising(qtbot, sample_project, tmp_path):
    """Found by the fuzz test above: such an int raised OverflowError inside the monitor's signal
    (a list is converted to a QVariantList), then TypeError in the curves' finiteness check."""
    from workbench.gui.background import BackgroundWork
    from workbench.gui.pages.train.page import TrainPage
    from workbench.gui.session import ProjectSession

    background = BackgroundWork()
    background.show_dialogs = False
    session = ProjectSession()
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    big = 2**70
    events = b"\n".join(_line(e) for e in [{"event": "start", "total_steps": 10, "t": 1.0},
                                           {"event": "step", "step": 1, "loss": big, "lr": -big},
                                           {"event": "progress", "total_params": big},
                                           {"event": "eval", "step": 2, "eval_loss": big}]) + b"\n"
    root = tmp_path / "p"
    _write(root, sample_project, events, None, None, None)
    session.open(root)
    session.monitor.poll()
    page.select_run("run-x")
    qtbot.wait(100)  # the curves' flush timer
    assert page.current_run == "run-x"
    session.close()
