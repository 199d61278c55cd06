"""The Train page's "Train on" choice and the Servers dialog, against a real sshd on 127.0.0.1:
a server added in the dialog, checked in a child process, chosen, and a run started there whose
curves arrive through the mirror."""

from __future__ import annotations

import sys

import pytest

from sshd_factory import SSHD, start_sshd
from workbench.cli import build_parser
from workbench.core.targets import add_target, list_targets
from workbench.gui.pages.train.servers import AddServerDialog, ServersDialog, check_args
from workbench.gui.pages.train.page import TrainPage

pytestmark = pytest.mark.skipif(SSHD is None, reason="OpenSSH's sshd is not installed (.ci/run installs it)")


@pytest.fixture
def sshd(tmp_path):
    server = start_sshd(tmp_path / "sshd")
    yield server
    server.stop()


def test_the_check_command_is_the_real_parsers():
    args = build_parser().parse_args(check_args("lab"))
    assert args.func.__name__ == "cmd_targets_check" and args.name == "lab" and args.json


def test_a_server_is_added_in_the_dialog_and_refused_with_the_reason(qtbot, background):
    dialog = AddServerDialog()
    qtbot.addWidget(dialog)
    dialog.name.setText("gpu box")
    dialog.url.setText("ssh://ana@10.0.0.5")
    dialog._on_buttons_accepted()
    assert "name is not valid" in dialog.error.text() and not list_targets()
    dialog.name.setText("gpu-box")
    dialog.devices.setText("gpu:0,1")
    dialog._on_buttons_accepted()
    assert [(t.name, t.devices) for t in list_targets()] == [("gpu-box", "gpu:0,1")]


@pytest.mark.slow
def test_a_run_started_on_a_server_from_the_train_page_streams_its_curves(qtbot, session, background, sample_project,
                                                                           sshd, tmp_path):
    add_target("lab", sshd.url, ssh_config=str(sshd.config), python=sys.executable,
               workdir=str(tmp_path / "server work"))
    dialog = ServersDialog(background)
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() == 1 and dialog.selected() == "lab"
    dialog.check("lab")
    qtbot.waitUntil(lambda: "Ready" in dialog.report.text() or "Problem" in dialog.report.text(), timeout=120000)
    assert "Ready" in dialog.report.text() and "Paddle" in dialog.report.text(), dialog.report.text()

    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.target_combo.refresh()
    page.target_combo.setCurrentIndex(page.target_combo.findData("lab"))
    page.model_combo.setCurrentIndex(page.model_combo.findData("builtin:tiny"))
    page.max_steps.setValue(30)
    page.start()
    qtbot.waitUntil(lambda: page.current_run is not None and session.monitor.status(page.current_run) == "completed",
                    timeout=240000)
    run = page.current_run
    assert page.loss_plot.point_count("loss") > 0
    assert session.monitor.summary(run).server == "lab"
    row = [r for r in range(page.runs_table.rowCount()) if page.runs_table.item(r, 1).text() == run][0]
    assert page.runs_table.item(row, 2).text().endswith("· lab")


def test_a_server_run_listed_before_its_start_finished_is_mirrored_once_attached(qtbot, sample_project,
                                                                                 monkeypatch):
    """Found in the window: the monitor listed the new run folder while the start was still
    uploading, so it never learnt the run trains on a server and no events arrived."""
    import json

    from workbench.core import remote
    from workbench.core.jobs import JobSpec, write_job
    from workbench.gui.run_monitor import RunMonitor

    mirrored = []
    monkeypatch.setattr(remote, "ensure_mirror", lambda path: mirrored.append(path.name))
    run_dir = sample_project / "runs" / "run-on-lab"
    write_job(run_dir, JobSpec(project=str(sample_project), template="finance_sentiment", task="classification",
                               base_model="builtin:tiny", method="full"))
    monitor = RunMonitor(sample_project)
    assert "run-on-lab" in monitor.runs and not mirrored
    (run_dir / "remote.json").write_text(json.dumps({"target": "lab", "project": "/srv/p", "run": "runs/run-on-lab",
                                                     "server_status": "running"}))
    monitor.attach(run_dir)
    assert mirrored == ["run-on-lab"] and monitor.summary("run-on-lab").server == "lab"


def test_the_estimate_says_its_figures_are_this_computers_when_a_server_is_chosen(qtbot, session, background,
                                                                                  sample_project):
    add_target("lab", "ssh://ana@gpu.example.org", devices="gpu:0")
    page = TrainPage(session, background)
    qtbot.addWidget(page)
    session.open(sample_project)
    page.target_combo.refresh()
    assert "server" not in page.estimate_label.text()
    page.target_combo.setCurrentIndex(page.target_combo.findData("lab"))
    qtbot.waitUntil(lambda: "It trains on server lab" in page.estimate_label.text(), timeout=5000)
