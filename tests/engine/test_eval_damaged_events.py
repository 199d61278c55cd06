"""A run's events file as a crash or a disk leaves it (bytes that are not UTF-8, a torn line)
is read by the one reader in core.runs everywhere, the evaluation report included."""

from __future__ import annotations

import json

import pytest

from workbench.core.project import SplitSettings, prepare
from workbench.core.runs import EVENTS_FILE, summarize
from workbench.core.templates import TemplateCatalog
from workbench.engine.evaluation.report import read_curves

# a step whose message holds a byte that is not UTF-8, a torn line, then NUL padding
DAMAGE = (b'{"event": "log", "t": 1.0, "message": "caf\xe9"}\n'
          b'\xff\xfe\x00garbage\n'
          b'{"event": "step", "step": 99, "lo')


def _damage(run_dir) -> None:
    path = run_dir / EVENTS_FILE
    lines = path.read_bytes().splitlines(keepends=True)
    # in the middle, where a resumed run's later lines still follow the damage
    path.write_bytes(b"".join(lines[:3]) + DAMAGE + b"\x00" * 16 + b"\n" + b"".join(lines[3:]))


def test_read_curves_skips_bytes_that_are_not_utf8(tmp_path):
    good = [{"event": "step", "step": 1, "loss": 2.5}, {"event": "eval", "step": 1, "eval_loss": 2.25},
            {"event": "step", "step": 2, "loss": 2.0}]
    raw = [json.dumps(e).encode() + b"\n" for e in good]
    (tmp_path / EVENTS_FILE).write_bytes(raw[0] + DAMAGE + b"\n" + raw[1] + raw[2])
    assert read_curves(tmp_path) == {"loss": [(1, 2.5), (2, 2.0)], "eval_loss": [(1, 2.25)]}
    assert read_curves(tmp_path / "no-such-run") == {"loss": [], "eval_loss": []}


@pytest.mark.slow
def test_eval_of_a_run_whose_events_have_invalid_bytes(tmp_path, capsys):
    pytest.importorskip("paddle")
    from trained_factory import train_run

    from workbench.cli import main as cli_main

    template = TemplateCatalog().get("finance_sentiment")
    project, _ = prepare(template, template.sample_path, tmp_path / "p",
                         split=SplitSettings(train=0.8, val=0.1, test=0.1, seed=1))
    run_dir = train_run(project, "run-1")
    steps = [e for e in map(json.loads, (run_dir / EVENTS_FILE).read_text("utf-8").splitlines())
             if e["event"] == "step"]
    _damage(run_dir)
    assert summarize(run_dir).status == "completed"

    assert cli_main(["eval", "--project", str(project.root), "--run", "run-1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["rows"] > 0 and 0 <= out["metrics"]["accuracy"] <= 1
    report = (run_dir / "eval" / "report.html").read_text("utf-8")
    assert "Training curves" in report and 'alt="loss per step"' in report
    assert [s for s, _ in read_curves(run_dir)["loss"]] == [e["step"] for e in steps]
