"""Runs on a server over SSH, against a real OpenSSH server on 127.0.0.1 (tests/sshd_factory.py):
targets, the check, a run started there and mirrored here, a dropped connection caught up, a
killed worker resumed there, a stop, and names that a shell would mangle."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from sshd_factory import SSHD, start_sshd
from workbench.core.errors import WorkbenchError
from workbench.core.operations import runs as run_operations
from workbench.core.project import Project, prepare
from workbench.core.runs import EVENTS_FILE, read_events, summarize
from workbench.core.targets import add_target, get_target, list_targets, remove_target
from workbench.core.templates import TemplateCatalog

TIMEOUT = 300
NAME = "lab gpu"  # not a valid target name: refused below
ODD = "proj 'a' $(touch pwned); b"  # a project folder name a shell would run


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "client-home"))
    return tmp_path / "client-home"


def test_targets_are_registered_checked_for_shape_and_removed(home):
    t = add_target("lab", "ssh://ana@gpu.example.org:2222", devices="gpu:0,1", workdir="/data/wb")
    assert (t.user, t.host, t.port, t.device, t.device_count) == ("ana", "gpu.example.org", 2222, "gpu:0", 2)
    assert [x.name for x in list_targets()] == ["lab"] and get_target("lab").workdir == "/data/wb"
    for bad, field in ((dict(name=NAME, url="ssh://h"), "name"), (dict(name="x", url="http://h"), "url"),
                       (dict(name="x", url="ssh://u:secret@h"), "url"),
                       (dict(name="x", url="ssh://h", devices="gpu"), "devices")):
        with pytest.raises(WorkbenchError, match=f"server's {field} is not valid"):
            add_target(**bad)
    with pytest.raises(WorkbenchError, match="already registered"):
        add_target("lab", "ssh://h")
    remove_target("lab")
    with pytest.raises(WorkbenchError, match="No server is registered as 'lab'"):
        get_target("lab")


def test_every_remote_command_quotes_what_it_is_given():
    from workbench.core import remote
    from workbench.core.targets import Target

    t = Target(name="s", url="ssh://u@h:2200", ssh_config="/cfg dir/c")
    argv = remote.ssh_argv(t, "cd " + remote.q(ODD))
    assert argv[:3] == ["ssh", "-F", "/cfg dir/c"] and "StrictHostKeyChecking=yes" in argv
    assert argv[-2:] == ["--", "cd 'proj '\"'\"'a'\"'\"' $(touch pwned); b'"]


# ----- with a real OpenSSH server -------------------------------------------------------------

needs_sshd = pytest.mark.skipif(SSHD is None, reason="OpenSSH's sshd is not installed (.ci/run installs it)")


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    if SSHD is None:
        pytest.skip("sshd is not installed")
    server = start_sshd(tmp_path_factory.mktemp("sshd"))
    yield server
    server.stop()


@pytest.fixture
def target(sshd, home, tmp_path):
    sshd.trust_host()
    return add_target("lab", sshd.url, ssh_config=str(sshd.config), python=sys.executable,
                      workdir=str(tmp_path / "server work"))


@needs_sshd
def test_an_unknown_host_key_is_refused_with_its_fingerprint_and_the_command_that_accepts_it(sshd, target):
    from workbench.core import remote

    sshd.forget_host()
    with pytest.raises(WorkbenchError) as info:
        remote.workdir(target)
    msg = str(info.value)
    fingerprint = subprocess.run(["ssh-keygen", "-lf", str(sshd.host_pub)], capture_output=True, text=True)
    assert "is not known to this computer" in msg and fingerprint.stdout.split()[1] in msg
    assert "StrictHostKeyChecking=accept-new" in msg and str(sshd.port) in msg
    # a changed key is refused loudly
    other = sshd.host_pub.parent / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    key = (other.with_suffix(".pub")).read_text().split()
    sshd.known_hosts.write_text(f"[127.0.0.1]:{sshd.port} {key[0]} {key[1]}\n")
    with pytest.raises(WorkbenchError, match="has CHANGED"):
        remote.workdir(target)
    sshd.trust_host()
    assert Path(remote.workdir(target)).stat().st_mode & 0o777 == 0o700  # private to the user


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Project:
    # instruction tuning of the built-in model: steps slow enough to act between them
    t = TemplateCatalog().get("finance_service_qa")
    src = tmp_path_factory.mktemp("src") / "rows.csv"
    pd.read_csv(t.sample_path, dtype=str, keep_default_na=False).head(120).to_csv(src, index=False)
    project, _ = prepare(t, src, tmp_path_factory.mktemp("projects") / ODD)
    return project


def _job(project: Project, **kw):
    fields = dict(max_steps=300, batch_size=8, max_length=96, learning_rate=3e-3, logging_steps=2, eval_steps=300,
                  save_steps=6, warmup_ratio=0.0, seed=7)
    fields.update(kw)
    return run_operations.build_job(project, "builtin:tiny", "full", **fields)


def _wait(pred, what: str, timeout: float = TIMEOUT):
    deadline = time.time() + timeout
    while time.time() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def _server_events(sshd_target, run_dir: Path) -> bytes:
    from workbench.core.remote import q, remote_info, run

    info = remote_info(run_dir)
    return run(sshd_target, "cat " + q(f"{info.project}/{info.run}/{EVENTS_FILE}")).stdout


@pytest.mark.slow
@needs_sshd
def test_check_reports_the_server(target):
    from workbench.core.remote import check

    report = check(target)
    server = report["server"]
    assert report["problems"] == [], report
    assert server["workbench_version"] and server["paddle_version"] and server["run_check"]["ok"]
    assert "cpu" in server["devices"] and server["disk_free_mb"] > 0 and server["memory_free_mb"] > 0
    res = subprocess.run([sys.executable, "-m", "workbench", "targets", "check", "lab"], capture_output=True,
                         text=True, timeout=300, env={**os.environ})
    assert res.returncode == 0 and "ready: train there with --on lab" in res.stdout, res.stderr


@pytest.mark.slow
@needs_sshd
def test_a_run_on_the_server_is_mirrored_survives_a_dropped_connection_and_stops_there(sshd, target, project):
    from workbench.core.remote import remote_info

    started = run_operations.start_run(project, _job(project), on="lab")
    run_dir, mirror = started.run_dir, started.proc
    assert summarize(run_dir).server == "lab"
    _wait(lambda: any(e["event"] == "checkpoint" for e in read_events(run_dir)), "a mirrored checkpoint")
    # the connection drops (the laptop sleeps): the run goes on there
    assert mirror.proc.poll() is None, (mirror.error, mirror.last_error)
    os.kill(mirror.proc.pid, signal.SIGKILL)
    seen = len(read_events(run_dir))
    _wait(lambda: _server_events(target, run_dir).count(b"\n") > seen + 4, "the server's run going on")
    # the mirror reconnects and catches up from its offset; a stop reaches the server
    _wait(lambda: len(read_events(run_dir)) > seen + 4, "the mirror catching up")
    run_operations.stop_run(run_dir)
    _wait(lambda: mirror.poll() is not None, "the mirror to see the end")
    run_operations.refresh_remote(project)
    assert summarize(run_dir).status == "stopped"
    local = (run_dir / EVENTS_FILE).read_bytes()
    assert local == _server_events(target, run_dir)  # nothing lost, nothing doubled
    steps = [e["step"] for e in read_events(run_dir) if e["event"] == "step"]
    assert steps == sorted(set(steps))
    listed = subprocess.run([sys.executable, "-m", "workbench", "runs", "--project", str(project.root), "--json"],
                            capture_output=True, text=True, timeout=120)
    row = [r for r in json.loads(listed.stdout)["runs"] if r["id"] == run_dir.name][0]
    assert row["server"] == "lab" and row["status"] == "stopped", listed.stderr
    # the project's odd name reached the server intact, and no shell ran what it holds
    assert Path(remote_info(run_dir).project).name.startswith(ODD)
    assert not list(Path(target.workdir).rglob("pwned")) and not (Path.home() / "pwned").exists()


@pytest.mark.slow
@needs_sshd
def test_a_killed_server_worker_shows_crashed_and_resumes_there(sshd, target, project, monkeypatch):
    from workbench.core.remote import Mirror, q, remote_info, run

    monkeypatch.setattr(Mirror, "WATCH_S", 1.0)

    started = run_operations.start_run(project, _job(project, max_steps=40), on="lab")
    run_dir = started.run_dir
    _wait(lambda: any(e["event"] == "checkpoint" for e in read_events(run_dir)), "a checkpoint")
    info = remote_info(run_dir)
    # the server's worker dies (kill -9): the run shows crashed once the server says so
    pid = json.loads(run(target, "cat " + q(f"{info.project}/{info.run}/worker.pid")).stdout)["pid"]
    run(target, f"kill -9 {int(pid)}")
    # the mirror, waiting on a file no worker writes any more, asks the server and ends
    _wait(lambda: started.proc.poll() is not None, "the mirror to notice")
    assert summarize(run_dir).status == "crashed"
    ckpt = summarize(run_dir).last_checkpoint
    assert ckpt
    resumed = run_operations.resume_run(project, run_dir.name)
    assert resumed.resumed_from == ckpt
    _wait(lambda: len([e for e in read_events(run_dir) if e["event"] == "start"]) == 2, "the resumed start")
    start = [e for e in read_events(run_dir) if e["event"] == "start"][-1]
    assert start["initial_step"] == int(ckpt.rsplit("-", 1)[1])
    _wait(lambda: any(e["event"] == "end" for e in read_events(run_dir)), "the resumed run's end")
    resumed.proc.close()
    run_operations.refresh_remote(project)
    assert summarize(run_dir).status == "completed"


def _wait_end(started) -> None:
    _wait(lambda: started.proc.poll() is not None, f"the end of {started.run_id}")
    started.proc.close()


@pytest.mark.slow
@needs_sshd
def test_a_lora_run_uploads_its_model_once_and_is_evaluated_and_exported_here(sshd, target, project, tmp_path):
    from model_factory import make_model_folder

    base = make_model_folder("llama", tmp_path / "tiny llama")
    runs = []
    for _ in range(2):
        job = run_operations.build_job(project, str(base), "lora", max_steps=4, batch_size=4, max_length=96, eval_steps=4,
                            save_steps=2, logging_steps=1, learning_rate=1e-3)
        started = run_operations.start_run(project, job, on="lab")
        _wait_end(started)
        runs.append(started.run_dir)
    run_operations.refresh_remote(project)
    assert [summarize(r).status for r in runs] == ["completed", "completed"], (runs[0] / EVENTS_FILE).read_text()[-2000:]
    models = list((Path(target.workdir) / "models").iterdir())
    assert len(models) == 1 and (models[0] / ".complete").is_file()  # uploaded once, by content hash
    assert not (runs[0] / "final").exists()  # the weights stay on the server until asked for
    res = subprocess.run([sys.executable, "-m", "workbench", "eval", "--project", str(project.root), "--run",
                          runs[0].name, "--rows", "2", "--no-compare-base", "--json"],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (runs[0] / "final" / "workbench_run.json").is_file() and (runs[0] / "eval" / "metrics.json").is_file()
    assert not list(runs[0].glob("checkpoints/*/optimizer_state"))  # only what evaluation reads came down
    res = subprocess.run([sys.executable, "-m", "workbench", "export", "--project", str(project.root), "--run",
                          runs[0].name, "--formats", "merged", "--out", str(tmp_path / "bundle"), "--json"],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (tmp_path / "bundle" / "merged" / "config.json").is_file()


@pytest.mark.slow
@needs_sshd
def test_a_preference_run_on_the_server_receives_its_pairs_and_finishes_there(sshd, target, project):
    """`--on SERVER` for a DPO run: the first run trained there, the pairs go up with the job, the
    worker there tunes the first run's model on them and the run is mirrored here to its end."""
    from workbench.core import feedback, preference
    from workbench.core.operations import preference as preference_operations
    from workbench.core.remote import q, remote_info, run

    first = run_operations.start_run(project, _job(project, max_steps=4, save_steps=2, logging_steps=1), on="lab")
    _wait_end(first)
    run_operations.refresh_remote(project)
    assert summarize(first.run_dir).status == "completed", (first.run_dir / EVENTS_FILE).read_text()[-2000:]
    feedback.append(project.root, [feedback.Judgement(kind="choice", prompt=f"第{i}个问题：转账限额是多少？",
                                                      answers=[f"单笔限额为{i}万元。", "不清楚。"], choice="a",
                                                      run=first.run_id) for i in range(6)])
    job, _, counts = preference_operations.build_dpo_job(project, first.run_id, on="lab", max_steps=4, eval_steps=2,
                                                         save_steps=2, logging_steps=1, device="cpu")
    started = run_operations.start_run(project, job, on="lab")
    _wait_end(started)
    run_operations.refresh_remote(project)
    events = read_events(started.run_dir)
    assert summarize(started.run_dir).status == "completed", (started.run_dir / EVENTS_FILE).read_text()[-3000:]
    info = remote_info(started.run_dir)
    there = run(target, "cat " + q(f"{info.project}/{info.run}/{preference.RUN_PAIRS_FILE}")).stdout
    assert there == (started.run_dir / preference.RUN_PAIRS_FILE).read_bytes()  # the pairs went up whole
    assert counts.pairs == 6 and 2 <= counts.heldout < 6
    start = [e for e in events if e["event"] == "start"][0]
    assert start["method"] == "dpo" and start["from_run"] == first.run_id
    assert (start["train_rows"], start["val_rows"]) == (counts.pairs - counts.heldout, counts.heldout)
    steps = [e for e in events if e["event"] == "step"]
    assert steps and all("reward_margin" in e and "preference_accuracy" in e for e in steps)
    after = [e for e in events if e.get("code") == "preference_after"]
    assert after and after[0]["pairs"] == counts.heldout


@pytest.mark.slow
@needs_sshd
def test_a_frozen_start_on_the_server_reads_the_states_its_first_run_kept(sshd, target, tmp_path):
    """The project's folder on the server persists between runs, and so does its cache: a second
    run of the same model over the same rows reads the frozen model's states from it."""
    from model_factory import make_model_folder

    sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
    from test_decoder_head import make_project

    project = make_project(tmp_path)
    base = make_model_folder("gemma3", tmp_path / "gemma", layout="hf")
    runs = []
    for _ in range(2):
        job = run_operations.build_job(project, str(base), "lora", max_steps=2, batch_size=4, max_length=64,
                                       eval_steps=2, save_steps=2, logging_steps=1, learning_rate=1e-3,
                                       **run_operations.FROZEN_START)
        started = run_operations.start_run(project, job, on="lab")
        _wait_end(started)
        runs.append(started.run_dir)
    run_operations.refresh_remote(project)
    assert [summarize(r).status for r in runs] == ["completed", "completed"], (runs[1] / EVENTS_FILE).read_text()[-2000:]
    codes = [[e.get("code") for e in read_events(r)] for r in runs]
    assert "feature_pass" in codes[0] and "feature_cache" not in codes[0]
    assert "feature_cache" in codes[1] and "feature_pass" not in codes[1]
    assert not (project.cache_dir / "features").exists()  # kept on the server, not brought here


@pytest.mark.slow
@needs_sshd
def test_two_devices_train_under_paddles_launcher_on_the_server(sshd, home, tmp_path, project):
    add_target("pair", sshd.url, ssh_config=str(sshd.config), python=sys.executable,
               workdir=str(tmp_path / "server work"), devices="cpu:0,1")
    started = run_operations.start_run(project, _job(project, max_steps=4, save_steps=2, logging_steps=1), on="pair")
    _wait_end(started)
    run_operations.refresh_remote(project)
    events = read_events(started.run_dir)
    assert summarize(started.run_dir).status == "completed", (started.run_dir / EVENTS_FILE).read_text()[-2000:]
    assert len([e for e in events if e["event"] == "start"]) == 1  # rank 0 reports
    from workbench.core.remote import remote_info

    launch = Path(remote_info(started.run_dir).project) / remote_info(started.run_dir).run / "launch"
    assert sorted(p.name for p in launch.iterdir() if p.name.startswith("workerlog"))[:2] == ["workerlog.0",
                                                                                            "workerlog.1"]


@needs_sshd
def test_a_run_that_would_not_fit_on_the_servers_disk_is_refused_with_the_space_needed(target, project, monkeypatch):
    from workbench.core import recommend

    monkeypatch.setattr(recommend, "run_disk_mb", lambda *a, **k: 50 * 2**20)  # 50 TB
    before = sorted(p.name for p in project.runs_dir.iterdir())
    with pytest.raises(WorkbenchError, match=r"needs about 51200.0 GB of disk on server 'lab'.*GB free"):
        run_operations.start_run(project, _job(project), on="lab")
    assert sorted(p.name for p in project.runs_dir.iterdir()) == before  # no run left behind
    assert not (Path(target.workdir) / "projects").exists()  # nothing went up


@pytest.mark.slow
def test_the_wheelhouse_holds_workbench_and_the_pins_of_this_computer(tmp_path):
    res = subprocess.run([sys.executable, "-m", "workbench", "targets", "wheelhouse", str(tmp_path / "wh"), "--no-deps"],
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    from workbench import __version__

    assert [w.name.split("-")[:2] for w in (tmp_path / "wh").glob("*.whl")] == [["workbench", __version__]]
    pins = (tmp_path / "wh" / "constraints.txt").read_text().split()
    from importlib import metadata

    assert f"paddlepaddle=={metadata.version('paddlepaddle')}" in pins and not any(p.startswith("workbench==") for p in pins)


@pytest.mark.slow
@needs_sshd
def test_two_watchers_of_one_run_write_each_line_once_and_deleting_frees_both_sides(sshd, target, project):
    from workbench.core.remote import Mirror, remote_info

    started = run_operations.start_run(project, _job(project), on="lab")
    run_dir = started.run_dir
    second = Mirror(run_dir).start()  # the window and a command line watching the same run
    _wait(lambda: len([e for e in read_events(run_dir) if e["event"] == "checkpoint"]) >= 2, "two checkpoints")
    with pytest.raises(WorkbenchError):  # one writer: the server's lock refuses a second worker
        run_operations.resume_run(project, run_dir.name)
    run_operations.stop_run(run_dir)
    _wait(lambda: started.proc.poll() is not None and second.poll() is not None, "both mirrors to end")
    assert (run_dir / EVENTS_FILE).read_bytes() == _server_events(target, run_dir)
    server_dir = Path(remote_info(run_dir).project) / remote_info(run_dir).run
    assert server_dir.is_dir()
    freed = run_operations.delete_run(project, run_dir.name)
    assert freed > 0 and not server_dir.exists() and not run_dir.exists()


@pytest.mark.slow
@needs_sshd
def test_eval_export_and_playground_run_on_the_server_and_their_results_come_here(sshd, target, project, tmp_path):
    started = run_operations.start_run(project, _job(project, max_steps=6, save_steps=6), on="lab")
    _wait_end(started)
    run_id = started.run_id

    def wb(*args):
        env = dict(os.environ)
        return subprocess.run([sys.executable, "-m", "workbench", *args], capture_output=True, text=True,
                              timeout=TIMEOUT, env=env)

    res = wb("eval", "--project", str(project.root), "--run", run_id, "--rows", "2", "--on", "lab")
    assert res.returncode == 0, res.stderr[-2000:]
    assert (started.run_dir / "eval" / "metrics.json").is_file()
    assert not (started.run_dir / "final").exists()  # the weights stayed on the server
    out = tmp_path / "bundle here"
    res = wb("export", "--project", str(project.root), "--run", run_id, "--formats", "merged", "--no-eval",
             "--out", str(out), "--on", "lab")
    assert res.returncode == 0, res.stderr[-2000:]
    assert (out / "merged" / "config.json").is_file() and (out / "README.md").is_file()
    res = wb("playground", "--project", str(project.root), "--run", run_id, "利率是多少？", "--max-new-tokens", "4",
             "--on", "lab")
    assert res.returncode == 0 and res.stdout.strip(), res.stderr[-2000:]
    res = wb("eval", "--project", str(project.root), "--run", run_id, "--on", "elsewhere")
    assert res.returncode == 2 and "trained on server 'lab'" in res.stderr


@pytest.mark.slow
@needs_sshd
def test_a_server_out_of_reach_for_a_while_is_caught_up_when_it_is_back(sshd, target, project, monkeypatch):
    """The laptop sleeps: the connection drops and the server cannot be reached for a while. The
    run goes on there; the mirror keeps trying and catches up once the server answers again."""
    from workbench.core.remote import Mirror

    monkeypatch.setattr(Mirror, "RETRY_S", 1.0)
    started = run_operations.start_run(project, _job(project), on="lab")
    run_dir, mirror = started.run_dir, started.proc
    _wait(lambda: any(e["event"] == "checkpoint" for e in read_events(run_dir)), "a mirrored checkpoint")
    sshd.stop()  # nobody can connect
    os.kill(mirror.proc.pid, signal.SIGKILL)  # and the open connection drops
    seen = len(read_events(run_dir))
    time.sleep(4)
    assert mirror.poll() is None and mirror.last_error, "the mirror keeps trying"
    assert len(read_events(run_dir)) == seen
    sshd.start()
    _wait(lambda: len(read_events(run_dir)) > seen + 4, "the mirror catching up")
    run_operations.stop_run(run_dir)
    _wait(lambda: mirror.poll() is not None, "the end")
    assert (run_dir / EVENTS_FILE).read_bytes() == _server_events(target, run_dir)
    run_operations.refresh_remote(project)
    assert summarize(run_dir).status == "stopped"
