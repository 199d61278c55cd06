"""Runs on a server over SSH: the same worker writing the same run folder there, mirrored here.

The run folder is the protocol (DESIGN: the worker's events, the stop file, one lock-holding
writer), so a remote run is: upload what the worker reads (project.json, the prepared
splits, job.json and, once per content hash, the base model), start the worker detached
from the SSH session, and copy its ``events.jsonl`` into the local run folder as it grows.
The local copy is a byte prefix of the server's file and catches up from its own size, so a
dropped connection loses and doubles nothing. Nothing listens on a port; every command and
file goes over the system's OpenSSH client (``ssh``), which brings the user's config, agent,
ProxyJump and known_hosts as they are; every remote argument is quoted with :func:`shlex.quote`.

OpenSSH rather than a Python SSH library: it is what the user's keys and config already work
with, and a library would have to re-implement ProxyJump, agents and config matching.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shlex
import socket
import subprocess
import tarfile
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import WorkbenchError, coded
from .fsutil import atomic_write_text
from .jobs import JobSpec, read_job, write_job
from .preference import RUN_PAIRS_FILE
from .project import PROJECT_FILE, SPLITS, Project
from .runs import EVENTS_FILE, JOB_FILE, LOG_FILE, REMOTE_FILE, read_events
from .targets import Target, get_target
from .versions import version_dir

CONNECT_TIMEOUT_S = 15


class RemoteError(WorkbenchError):
    """A server could not be reached or refused what was asked, in the user's words."""


# ----- ssh ------------------------------------------------------------------------------------


def ssh_base(target: Target, *options: str) -> list[str]:
    argv = ["ssh"]
    if target.ssh_config:
        argv += ["-F", target.ssh_config]
    if target.port:
        argv += ["-p", str(target.port)]
    # no password prompt; an unknown or changed host key is refused, not accepted silently
    argv += ["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", f"ConnectTimeout={CONNECT_TIMEOUT_S}",
             "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4", *options, target.destination]
    return argv


def ssh_argv(target: Target, command: str) -> list[str]:
    """The ssh command line that runs ``command`` (one shell line, already quoted) on the server."""
    return [*ssh_base(target, "-T"), "--", command]


def _accept_command(target: Target) -> str:
    parts = ["ssh"] + (["-F", target.ssh_config] if target.ssh_config else []) + \
        (["-p", str(target.port)] if target.port else []) + \
        ["-o", "StrictHostKeyChecking=accept-new", target.destination, "true"]
    return shlex.join(parts)


def _fingerprint(target: Target) -> str | None:
    try:
        scan = subprocess.run(["ssh-keyscan", "-T", "5", *(["-p", str(target.port)] if target.port else []),
                               target.host], capture_output=True, timeout=15)
        out = subprocess.run(["ssh-keygen", "-lf", "-"], input=scan.stdout, capture_output=True, timeout=15)
    except (OSError, subprocess.TimeoutExpired):
        return None
    prints = [line.split()[1] for line in out.stdout.decode(errors="replace").splitlines() if len(line.split()) > 1]
    return ", ".join(sorted(set(prints))) or None


# what ssh says when a server cannot be reached, and the reason's code (the window words it)
UNREACHABLE = {"Connection refused": "refused", "timed out": "timed_out", "No route to host": "no_route",
               "Network is unreachable": "no_network", "Connection closed": "closed", "Connection reset": "reset"}


def explain(target: Target, stderr: str) -> RemoteError:
    """What an ssh failure (exit status 255) means for the user, and what to do."""
    where = f"'{target.name}' ({target.url})"
    if "REMOTE HOST IDENTIFICATION HAS CHANGED" in stderr or "Host key for" in stderr and "has changed" in stderr:
        return RemoteError(
            f"WARNING: the identity key of server {where} has CHANGED since this computer last connected. Someone "
            "may be intercepting the connection, or the server was reinstalled. Nothing was sent. Ask the server's "
            f"administrator for its key fingerprint; only if it matches, remove the old key with "
            f"'ssh-keygen -R {target.host}' and connect again.",
            code="server_key_changed", command=f"ssh-keygen -R {target.host}", server=target.name, url=target.url)
    if "Host key verification failed" in stderr or "No ED25519 host key is known" in stderr \
            or "host key is known" in stderr:
        fp = _fingerprint(target)
        seen = f" It presents the key {fp}." if fp else ""
        return RemoteError(
            f"Server {where} is not known to this computer yet, so nothing was sent.{seen} If your administrator "
            f"confirms that fingerprint, accept it once with: {_accept_command(target)}",
            code="server_key_unknown", fingerprint=fp or "", command=_accept_command(target), server=target.name,
            url=target.url)
    if "Permission denied" in stderr:
        return RemoteError(
            f"Server {where} refused the login{' as ' + target.user if target.user else ''}. Workbench asks for no "
            "password and stores none: it logs in with your SSH key. Add your public key to the server (for "
            f"example 'ssh-copy-id {target.destination}') or load it into your SSH agent, then try again.",
            code="server_login_refused", user=target.user or "", command=f"ssh-copy-id {target.destination}",
            server=target.name, url=target.url)
    if any(s in stderr for s in ("Could not resolve", "Name or service not known")):
        return RemoteError(f"The name of server {where} cannot be resolved. Check the address, or your network.",
                           code="server_name_unknown", server=target.name, url=target.url)
    reason = next((code for said, code in UNREACHABLE.items() if said in stderr), None)
    if reason:
        return RemoteError(f"Server {where} cannot be reached ({_last_line(stderr)}). Check that it is on and "
                           "that SSH runs on it, then try again; a run already started there goes on meanwhile.",
                           code="server_unreachable", reason=reason, detail=_last_line(stderr), server=target.name,
                           url=target.url)
    return RemoteError(f"The connection to server {where} failed: {_last_line(stderr)}",
                       code="server_connection_failed", detail=_last_line(stderr), server=target.name, url=target.url)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no message"


def run(target: Target, command: str, *, input: bytes | None = None, timeout: float = 120,
        check: bool = True) -> subprocess.CompletedProcess:
    """Run one shell line on the server; ssh failures become :class:`RemoteError`."""
    try:
        res = subprocess.run(ssh_argv(target, command), input=input, capture_output=True, timeout=timeout,
                             stdin=None if input is not None else subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise RemoteError("The OpenSSH client (ssh) is not installed on this computer. Install it (Debian and "
                          "Ubuntu: openssh-client; Windows: the optional feature 'OpenSSH Client').",
                          code="ssh_missing") from exc
    except subprocess.TimeoutExpired as exc:
        raise RemoteError(f"Server '{target.name}' did not answer within {timeout:.0f} s; try again.",
                          code="server_no_answer", server=target.name, seconds=round(timeout)) from exc
    if res.returncode == 255:
        raise explain(target, res.stderr.decode(errors="replace"))
    if check and res.returncode != 0:
        detail = _last_line(res.stderr.decode(errors="replace"))
        raise RemoteError(f"On server '{target.name}' the command failed: {detail}",
                          code="server_command_failed", server=target.name, detail=detail)
    return res


def q(*parts: str) -> str:
    return " ".join(shlex.quote(str(p)) for p in parts)


def _workbench_there(target: Target, project_dir: str, *args: str) -> str:
    """The shell line that runs ``workbench ARGS`` on the server in its project folder."""
    return f"cd {q(project_dir)} && {q(target.python)} -m workbench {q(*args)}"


# ----- the server's work folder and check ---------------------------------------------------


def workdir(target: Target) -> str:
    """The server's work folder as an absolute path, created private to the user (0700)."""
    res = run(target, f"umask 077 && mkdir -p {q(target.workdir)} && chmod 700 {q(target.workdir)} && "
                      f"cd {q(target.workdir)} && pwd")
    return res.stdout.decode().strip().splitlines()[-1]


def local_versions() -> dict[str, str | None]:
    from importlib import metadata

    from .. import __version__

    out: dict[str, str | None] = {"workbench": __version__}
    for name in ("paddlepaddle", "paddlepaddle-gpu", "paddleformers"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def pip_command(target: Target) -> str:
    """The pip line that installs this computer's Workbench, with its pins, on the server."""
    from .. import __version__

    return f"{target.python} -m pip install 'workbench=={__version__}' -c constraints.txt"


def install_command(target: Target) -> str:
    """The pip line and where its constraints file comes from."""
    return (f"{pip_command(target)} (the constraints file of this computer's 'workbench targets wheelhouse DIR', "
            "which also writes every wheel for a server without internet: then add --no-index --find-links DIR)")


def wheelhouse(out: str | os.PathLike, *, deps: bool = True) -> list[Path]:
    """Write Workbench's wheel and (``deps``) every package it needs into ``out``, pinned to the
    versions installed here (``out/constraints.txt``), for a server of the same system without
    internet; returns the wheels. Uses pip, which the same pins resolve identically."""
    import sys
    from importlib import metadata

    from .. import __version__

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pins = sorted({f"{d.metadata['Name'].lower()}=={d.version}" for d in metadata.distributions()
                   if d.metadata["Name"] and d.metadata["Name"].lower() != "workbench"})
    (out / "constraints.txt").write_text("\n".join(pins) + "\n", encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    spec = str(root) if (root / "pyproject.toml").is_file() else f"workbench=={__version__}"
    cmd = [sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(out), "-c", str(out / "constraints.txt"),
           spec] + ([] if deps else ["--no-deps"])
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        errors = [line.strip() for line in res.stderr.splitlines() if "error" in line.lower()]
        detail = (errors or [_last_line(res.stderr)])[0]
        raise WorkbenchError(f"The wheels could not be written: {detail}", code="wheels_not_written", detail=detail)
    return sorted(out.glob("*.whl"))


def check(target: Target) -> dict[str, Any]:
    """Connect and report what a run there would meet: versions, Paddle's own check, devices,
    free disk in the work folder and free memory; ``problems`` lists what must be fixed."""
    wd = workdir(target)
    res = run(target, f"cd {q(wd)} && {q(target.python)} -m workbench.engine.envcheck --workdir {q(wd)}",
              timeout=300, check=False)
    # each problem is its English message with a code and fields (core.errors.coded)
    report: dict[str, Any] = {"target": target.name, "url": target.url, "workdir": wd, "problems": []}
    err = res.stderr.decode(errors="replace")
    if res.returncode != 0:
        if "No module named" in err or "not found" in err:
            report["problems"].append(coded(
                f"Workbench is not installed for {target.python} on the server. Install it with: "
                f"{install_command(target)}", "server_without_workbench", python=target.python,
                command=pip_command(target)))
            return report
        raise RemoteError(f"The check on server '{target.name}' failed: {_last_line(err)}",
                          code="server_check_failed", server=target.name, detail=_last_line(err))
    server = json.loads(res.stdout.decode().strip().splitlines()[-1])
    report["server"] = server
    local = local_versions()
    if server.get("workbench_version") != local["workbench"]:
        report["problems"].append(coded(
            f"The server has Workbench {server.get('workbench_version')}, this computer {local['workbench']}. "
            f"Install the same version there: {install_command(target)}", "server_other_version",
            there=str(server.get("workbench_version")), here=str(local["workbench"]), command=pip_command(target)))
    if not (server.get("run_check") or {}).get("ok"):
        detail = _last_line((server.get("run_check") or {}).get("output", ""))
        report["problems"].append(coded(f"Paddle's own check failed on the server: {detail}",
                                        "server_paddle_check_failed", detail=detail))
    wanted = target.devices.split(":")[0]
    found = [str(d) for d in server.get("devices", [])]
    if wanted != "cpu" and not any(d.startswith(wanted) for d in found):
        report["problems"].append(coded(
            f"The server's Paddle finds no {wanted} device (it finds: {', '.join(found) or 'none'}); install the "
            "Paddle build for that device, or register the server with --devices cpu.", "server_without_device",
            device=wanted, devices=found))
    return report


# ----- runs -----------------------------------------------------------------------------------


@dataclass
class RemoteRun:
    target: str
    project: str  # the project folder on the server
    run: str  # the run folder on the server, relative to the project

    def to_dict(self) -> dict[str, Any]:
        return {"target": self.target, "project": self.project, "run": self.run}


def remote_info(run_dir: str | os.PathLike) -> RemoteRun | None:
    """How a run that trains on a server is reached, or None for a local run."""
    try:
        data = json.loads((Path(run_dir) / REMOTE_FILE).read_text(encoding="utf-8"))
        return RemoteRun(target=data["target"], project=data["project"], run=data["run"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _project_dir(wd: str, project: Project) -> str:
    # one folder per local project and computer, under the project's own name (quoted in every
    # command, whatever it holds), so a person recognises it on the server
    digest = hashlib.sha256(f"{socket.gethostname()}\0{project.root.resolve()}".encode()).hexdigest()[:10]
    name = project.root.name.replace("\n", " ")[:80].lstrip("-") or "project"
    return f"{wd}/projects/{name}-{digest}"


def upload(target: Target, dest: str, files: dict[str, Path | bytes]) -> None:
    """Copy ``files`` (name in ``dest`` -> local file or bytes) over the SSH connection, as a tar
    stream (a 1 GB model never sits in memory whole)."""
    argv = ssh_argv(target, f"umask 077 && mkdir -p {q(dest)} && tar -x -f - -C {q(dest)}")
    errors = tempfile.TemporaryFile()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=errors)
    except FileNotFoundError as exc:
        raise RemoteError("The OpenSSH client (ssh) is not installed on this computer.", code="ssh_missing") from exc
    try:
        assert proc.stdin is not None
        with tarfile.open(fileobj=proc.stdin, mode="w|") as tar:
            for arcname, src in files.items():
                info = tarfile.TarInfo(arcname)
                info.mode, info.mtime = 0o600, int(time.time())
                if isinstance(src, bytes):
                    info.size = len(src)
                    tar.addfile(info, io.BytesIO(src))
                else:
                    info.size = Path(src).stat().st_size
                    with open(src, "rb") as fh:
                        tar.addfile(info, fh)
        proc.stdin.close()
    except BrokenPipeError:
        pass  # the server ended the connection: its message is read below
    code = proc.wait()
    errors.seek(0)
    message = errors.read().decode(errors="replace")
    errors.close()
    if code == 255:
        raise explain(target, message)
    if code != 0:
        raise RemoteError(f"Copying to server '{target.name}' failed: {_last_line(message)}",
                          code="server_copy_failed", server=target.name, detail=_last_line(message))


def _folder_hash(folder: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(f.relative_to(folder)).encode() + b"\0")
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:16]


def upload_model(target: Target, wd: str, folder: Path) -> str:
    """The base model's folder on the server, uploaded once per content hash."""
    dest = f"{wd}/models/{_folder_hash(folder)}"
    if run(target, f"test -f {q(dest + '/.complete')}", check=False).returncode == 0:
        return dest
    files = {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}
    upload(target, dest + ".part", files)
    run(target, f"rm -rf {q(dest)} && mv {q(dest + '.part')} {q(dest)} && touch {q(dest + '/.complete')}")
    return dest


def _start_line(target: Target, project_dir: str, run_rel: str) -> str:
    """The shell line that starts the run's worker on the server, detached from the SSH session
    (setsid, no terminal, none of its pipes) so that it outlives it and ssh returns at once
    ("cd … && worker &" would background a subshell that holds the session open). Several
    devices or hosts: under Paddle's launcher, one process per device."""
    py = q(target.python)
    log = q(run_rel + "/" + LOG_FILE)
    if target.device_count > 1 or target.hosts:
        kind, numbers = target.devices.split(":", 1) if ":" in target.devices else ("cpu", "0")
        spread = f"--nproc_per_node {len(numbers.split(','))}" if kind == "cpu" else f"--devices {q(numbers)}"
        ips = f" --ips {q(','.join(target.hosts))}" if target.hosts else ""
        script = f"\"$({py} -c 'import workbench.engine.worker as w; print(w.__file__)')\""
        command = (f"{py} -m paddle.distributed.launch {spread}{ips} --log_dir {q(run_rel + '/launch')} "
                   f"{script} {q(run_rel)}")
    else:
        command = f"{py} -m workbench.engine.worker {q(run_rel)}"
    return f"cd {q(project_dir)} || exit 1; setsid nohup {command} >> {log} 2>&1 < /dev/null &"


def _device(target: Target) -> str:
    """The job's device on the server: one device, or its kind under the launcher (each rank
    takes its own)."""
    if target.device_count > 1 or target.hosts:
        return target.devices.split(":", 1)[0]
    return target.device


def free_mb(target: Target, folder: str) -> float:
    res = run(target, f"df -Pk {q(folder)} | tail -1")
    return int(res.stdout.decode().split()[3]) / 1024


def start(project: Project, run_dir: Path, target: Target, need_mb: float = 0.0) -> RemoteRun:
    """Upload what the run in ``run_dir`` (its job.json written) needs and start its worker on
    the server; the local run folder records where it runs. A run that would not fit on the
    server's disk (``need_mb``: its checkpoints and weights) is refused before anything goes up."""
    job = read_job(run_dir)
    wd = workdir(target)
    free = free_mb(target, wd)
    if need_mb > free:
        raise RemoteError(
            f"This run needs about {need_mb / 1024:.1f} GB of disk on server '{target.name}' for its checkpoints and "
            f"weights, and its work folder {wd} has {free / 1024:.1f} GB free. Free some space there (runs you no "
            "longer need can be deleted with 'workbench runs --delete'), or keep fewer checkpoints "
            f"(--save-total-limit; now {job.save_total_limit}), then start again.",
            code="server_disk_small", server=target.name, need_gb=round(need_mb / 1024, 1), folder=wd,
            free_gb=round(free / 1024, 1), keep=job.save_total_limit)
    rp = _project_dir(wd, project)
    remote_job = job.model_copy(update={"project": rp, "device": _device(target)})
    base = Path(job.base_model)
    # a preference run starts from another run's model, which trained there (core/operations/preference.py)
    if not job.base_model.startswith("builtin:") and job.method != "dpo" and base.is_dir():
        remote_job = remote_job.model_copy(update={"base_model": upload_model(target, wd, base)})
    info = RemoteRun(target=target.name, project=rp, run=f"runs/{run_dir.name}")
    files: dict[str, Path | bytes] = {PROJECT_FILE: project.root / PROJECT_FILE}
    versioned = project.at_version(job.data_version)  # the server reads the run's own version too
    for split in SPLITS:
        path = versioned.split_path(split)
        if path.is_file():  # a corrections version's splits, made from its base's, go as whole files
            where = version_dir(project.data_dir, versioned.version) / path.name if versioned.version else path
            files[where.relative_to(project.root).as_posix()] = path
    for f in run_dir.iterdir():
        if f.is_file() and f.name not in (EVENTS_FILE, REMOTE_FILE, LOG_FILE, JOB_FILE) and (
                f.suffix == ".json" or f.name == RUN_PAIRS_FILE):  # a preference run's pairs go with it
            files[f"{info.run}/{f.name}"] = f
    files[f"{info.run}/{JOB_FILE}"] = remote_job.model_dump_json(indent=2).encode()
    upload(target, rp, files)
    atomic_write_text(run_dir / REMOTE_FILE, json.dumps({**info.to_dict(), "server_status": "running"}))
    run(target, _start_line(target, rp, info.run))
    return info


def _info_and_target(run_dir: Path) -> tuple[RemoteRun, Target]:
    info = remote_info(run_dir)
    if info is None:
        raise WorkbenchError(f"Run '{run_dir.name}' trains on this computer, not on a server.", code="run_is_local",
                             run=run_dir.name)
    return info, get_target(info.target)


def _complete_prefix(path: Path) -> int:
    """The size of ``path`` up to its last complete line (a cut line is dropped)."""
    if not path.is_file():
        return 0
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end != len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return end


def _append_at(path: Path, start: int, chunk: bytes) -> int:
    """Write the complete lines of ``chunk``, which begins at byte ``start`` of the server's
    file, beyond what ``path`` already holds; returns the bytes taken (up to the last newline).
    Several mirrors of one run (the window and a command) may append: under a lock, each
    writes only what the file lacks, so nothing is doubled."""
    from filelock import FileLock

    end = chunk.rfind(b"\n") + 1
    if not end:
        return 0
    with FileLock(str(path.parent / ".mirror.lock")):
        have = path.stat().st_size if path.exists() else 0
        if start <= have < start + end:
            with open(path, "ab") as fh:
                fh.write(chunk[have - start:end])
                fh.flush()
    return end


def server_status(run_dir: str | os.PathLike) -> str:
    """The run's status as the server sees it now (its lock says whether a worker writes it),
    recorded in the local run folder."""
    run_dir = Path(run_dir)
    info, target = _info_and_target(run_dir)
    res = run(target, _workbench_there(target, info.project, "runs", "--project", ".", "--json"), timeout=120)
    return _record_status(run_dir, info, res.stdout)


def _record_status(run_dir: Path, info: RemoteRun, listing: bytes) -> str:
    status = "crashed"  # a run the server does not list has lost its folder there
    for r in json.loads(listing.decode()).get("runs", []):
        if r.get("id") == run_dir.name:
            status = r.get("status", "crashed")
    atomic_write_text(run_dir / REMOTE_FILE, json.dumps({**info.to_dict(), "server_status": status,
                                                         "checked": time.time()}))
    return status


def sync(run_dir: str | os.PathLike) -> str:
    """Bring the local events up to the server's and record the server's view of the run;
    returns that status (running, completed, stopped, failed, crashed)."""
    run_dir = Path(run_dir)
    info, target = _info_and_target(run_dir)
    offset = _complete_prefix(run_dir / EVENTS_FILE)
    rd = f"{info.project}/{info.run}"
    res = run(target, f"tail -c +{offset + 1} {q(rd + '/' + EVENTS_FILE)} 2>/dev/null; "
                      + _workbench_there(target, info.project, "runs", "--project", ".", "--json"), timeout=120)
    out = res.stdout
    # the events' new bytes, then the runs listing as one JSON line: split at the listing
    cut = out.rfind(b'{"runs"')
    if cut < 0:
        raise RemoteError(f"Server '{target.name}' did not list its runs; check it with 'workbench targets check "
                          f"{target.name}'.", code="server_runs_unlisted", server=target.name)
    _append_at(run_dir / EVENTS_FILE, offset, out[:cut])
    return _record_status(run_dir, info, out[cut:])


class Mirror:
    """Follows the server's events into the local file until the worker's ``end``: one
    ``ssh … tail -F`` whose output is appended line by line. ``poll()`` is None while it
    mirrors (it stands in for the worker process of a local run)."""

    WATCH_S = 30.0  # with no new line for this long, ask the server whether its worker still lives
    RETRY_S = 10.0  # a server that cannot be reached is tried again this often, until the mirror closes

    def __init__(self, run_dir: str | os.PathLike):
        self.run_dir = Path(run_dir)
        self._last_line = time.monotonic()
        self.info, self.target = _info_and_target(self.run_dir)
        self.proc: subprocess.Popen | None = None
        self.error: str | None = None  # why mirroring ended early
        self.last_error: str | None = None  # what the last connection said as it closed
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._follow, name=f"mirror-{self.run_dir.name}", daemon=True)

    def start(self) -> Mirror:
        self._thread.start()
        threading.Thread(target=self._watch, name=f"mirror-watch-{self.run_dir.name}", daemon=True).start()
        return self

    def _watch(self) -> None:
        # tail -F waits forever for a worker killed without its end line: the server's lock tells
        while not self._done.wait(5.0):
            if time.monotonic() - self._last_line < self.WATCH_S:
                continue
            self._last_line = time.monotonic()
            try:
                if server_status(self.run_dir) != "running" and self.proc is not None:
                    self.proc.terminate()  # the follow loop then catches up and ends
            except WorkbenchError as exc:
                self.last_error = str(exc)

    def poll(self) -> int | None:
        return 0 if self._done.is_set() else None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
        self._done.set()

    def _sessions_ended(self) -> bool:
        events = read_events(self.run_dir)
        starts = sum(1 for e in events if e.get("event") == "start")
        ends = sum(1 for e in events if e.get("event") == "end")
        return bool(events) and ends >= max(starts, 1) and events[-1].get("event") == "end"

    def _follow(self) -> None:
        path = self.run_dir / EVENTS_FILE
        rd = f"{self.info.project}/{self.info.run}"
        try:
            while not self._done.is_set():
                offset = _complete_prefix(path)
                cmd = f"tail -c +{offset + 1} -F {q(rd + '/' + EVENTS_FILE)} 2>/dev/null"
                errors = tempfile.TemporaryFile()
                self.proc = subprocess.Popen(ssh_argv(self.target, cmd), stdin=subprocess.DEVNULL,
                                             stdout=subprocess.PIPE, stderr=errors)
                rest, pos = b"", offset
                assert self.proc.stdout is not None
                while True:
                    chunk = self.proc.stdout.read1(65536) if hasattr(self.proc.stdout, "read1") else \
                        self.proc.stdout.readline()
                    if not chunk:
                        break
                    rest += chunk
                    taken = _append_at(path, pos, rest)
                    pos, rest = pos + taken, rest[taken:]
                    self._last_line = time.monotonic()
                    if b'"event": "end"' in chunk and self._sessions_ended():
                        break
                if self.proc.poll() is None:
                    self.proc.terminate()
                self.proc.wait()
                errors.seek(0)
                self.last_error = _last_line(errors.read().decode(errors="replace"))
                errors.close()
                if self._sessions_ended():
                    break
                # the connection dropped: the server's file is the truth, catch up from our size
                try:
                    status = sync(self.run_dir)
                except RemoteError as exc:  # unreachable for now (the laptop slept): try again later
                    self.last_error = str(exc)
                    self._done.wait(self.RETRY_S)
                    continue
                if status != "running":
                    break
                self._done.wait(2.0)
        except Exception as exc:  # reported to whoever watches; the run itself goes on on the server
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self._done.set()


def stop(run_dir: str | os.PathLike) -> None:
    run_dir = Path(run_dir)
    info, target = _info_and_target(run_dir)
    run(target, _workbench_there(target, info.project, "stop", "--project", ".", run_dir.name))


def delete(run_dir: str | os.PathLike) -> int:
    """Delete the run's folder on its server (the server refuses while a worker writes it);
    returns the bytes freed there."""
    run_dir = Path(run_dir)
    info, target = _info_and_target(run_dir)
    res = run(target, _workbench_there(target, info.project, "runs", "--project", ".", "--delete", run_dir.name,
                                       "--json"), check=False)
    if res.returncode != 0:
        err = res.stderr.decode(errors="replace")
        if "does not exist" in err:
            return 0  # already gone there
        raise RemoteError(f"Server '{target.name}' did not delete run {run_dir.name}: {_last_line(err)}",
                          code="server_delete_failed", server=target.name, run=run_dir.name, detail=_last_line(err))
    return int(json.loads(res.stdout.decode().strip().splitlines()[-1]).get("freed_bytes", 0))


def resume(project: Project, run_dir: Path, checkpoint: str) -> RemoteRun:
    """Resume on the server from ``checkpoint`` (which stays there)."""
    info, target = _info_and_target(run_dir)
    job = read_job(run_dir).model_copy(update={"resume_from": checkpoint})
    write_job(run_dir, job)
    remote = _remote_job(target, info)
    upload(target, info.project, {f"{info.run}/{JOB_FILE}": remote.model_copy(
        update={"resume_from": checkpoint}).model_dump_json(indent=2).encode()})
    atomic_write_text(run_dir / REMOTE_FILE, json.dumps({**info.to_dict(), "server_status": "running"}))
    run(target, _start_line(target, info.project, info.run))
    return info


def _remote_job(target: Target, info: RemoteRun) -> JobSpec:
    res = run(target, f"cat {q(info.project + '/' + info.run + '/' + JOB_FILE)}")
    return JobSpec.model_validate_json(res.stdout.decode())


# what evaluation, export and the playground read of a run: weights, not the optimizer's state
_NOT_FETCHED = ("optimizer_state", "master_weight", "*.pth", "training_args.bin", "scheduler.pdparams")


def fetch_weights(run_dir: str | os.PathLike) -> list[str]:
    """Bring down what of the server's run folder is not here yet: ``final/``, the built-in
    model it started from and the checkpoints' weights (their optimizer state stays there).
    Checkpoints and ``final/`` are never changed once written, so a name present here is whole.
    Returns the names fetched."""
    run_dir = Path(run_dir)
    info, target = _info_and_target(run_dir)
    rd = f"{info.project}/{info.run}"
    listed = run(target, f"cd {q(rd)} && ls -d final base_model checkpoints/checkpoint-* 2>/dev/null", check=False)
    names = [n for n in listed.stdout.decode().split() if n and not (run_dir / n).exists()]
    if not names:
        return []
    with _downloaded(target, rd, names, beside=run_dir, excludes=_NOT_FETCHED) as staging:
        for name in names:
            if (staging / name).exists():
                (run_dir / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / name, run_dir / name)
    return names


@contextlib.contextmanager
def _downloaded(target: Target, base: str, names: list[str], *, beside: Path, excludes: tuple[str, ...] = ()):
    """The server's ``base/NAMES`` brought over SSH as a tar stream and unpacked into a staging
    folder beside ``beside`` (removed afterwards), from which the caller moves what it keeps."""
    import shutil

    ex = "".join(f"--exclude={q(x)} " for x in excludes)
    res = run(target, f"cd {q(base)} && tar -c -f - {ex}{q(*names)}", timeout=3600)
    staging = Path(tempfile.mkdtemp(prefix=".fetch-", dir=beside))
    try:
        with tarfile.open(fileobj=io.BytesIO(res.stdout), mode="r:") as tar:
            tar.extractall(staging, filter="data")  # no absolute paths, links out or devices
        yield staging
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# ----- mirrors a front end keeps while it shows runs --------------------------------------------

_MIRRORS: dict[Path, Mirror] = {}
_MIRRORS_LOCK = threading.Lock()


def ensure_mirror(run_dir: str | os.PathLike) -> Mirror | None:
    """A mirror following the run on its server, started unless one runs already; None for a
    local run or one whose events have ended. Starting costs no network on the caller's thread."""
    run_dir = Path(run_dir)
    if remote_info(run_dir) is None:
        return None
    events = read_events(run_dir)
    if events and events[-1].get("event") == "end":
        try:
            status = json.loads((run_dir / REMOTE_FILE).read_text(encoding="utf-8")).get("server_status")
        except (OSError, ValueError, AttributeError):
            status = None
        if status != "running":
            return None
    with _MIRRORS_LOCK:
        mirror = _MIRRORS.get(run_dir)
        if mirror is None or mirror.poll() is not None:
            try:
                mirror = _MIRRORS[run_dir] = Mirror(run_dir).start()
            except WorkbenchError:  # a server no longer registered: the run shows its last state
                return None
        return mirror


# ----- evaluation, export and the playground where the run trained ---------------------------


def _fetch_tree(target: Target, base: str, name: str, dest: Path) -> None:
    """Replace ``dest`` by the server's ``base/name`` folder."""
    import shutil

    with _downloaded(target, base, [name], beside=dest.parent) as staging:
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staging / name, dest)


def run_command_there(run_dir: str | os.PathLike, argv: list[str], out: Path | None = None) -> int:
    """Run a ``workbench`` command (``argv``, its project given as ``.``) on the server the run
    trained on, its output streamed here, then bring down what it wrote: the run's ``eval/``, or
    the folder of ``--out`` (which the command on the server writes under the project there)
    into ``out``. Returns the command's exit status."""
    run_dir = Path(run_dir)
    info, target = _info_and_target(run_dir)
    code = subprocess.run(ssh_argv(target, _workbench_there(target, info.project, *argv)),
                          stdin=subprocess.DEVNULL).returncode
    if code == 255:
        raise explain(target, "Connection closed")
    if code != 0:
        return code
    if argv and argv[0] == "eval":
        _fetch_tree(target, f"{info.project}/{info.run}", "eval", run_dir / "eval")
    elif out is not None and "--out" in argv:
        remote_out = argv[argv.index("--out") + 1]
        parent, name = remote_out.rsplit("/", 1) if "/" in remote_out else (".", remote_out)
        out.parent.mkdir(parents=True, exist_ok=True)
        _fetch_tree(target, f"{info.project}/{parent}", name, out)
    return 0
