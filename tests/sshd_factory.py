"""A real OpenSSH server on 127.0.0.1 for the remote-run tests: its own host key, an authorized
key of the tests' own, a free port and a separate WORKBENCH_HOME as "the server"; the client
side gets its own ssh config (passed as -F) and known_hosts."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else None)


@dataclass
class SSHServer:
    port: int
    config: Path  # the client's ssh config (ssh -F)
    known_hosts: Path
    host_pub: Path
    server_home: Path  # WORKBENCH_HOME of the server's sessions
    proc: subprocess.Popen
    sshd_config: Path

    def start(self) -> None:
        """Start listening again (after :meth:`stop`), on the same port with the same keys."""
        self.proc = _listen(self.sshd_config, self.port, self.sshd_config.parent)

    @property
    def url(self) -> str:
        return f"ssh://{os.environ.get('USER') or 'root'}@127.0.0.1:{self.port}"

    def forget_host(self) -> None:
        self.known_hosts.write_text("")

    def trust_host(self) -> None:
        key = self.host_pub.read_text().split()
        self.known_hosts.write_text(f"[127.0.0.1]:{self.port} {key[0]} {key[1]}\n")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_sshd(root: Path) -> SSHServer:
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o700)
    host_key, user_key = root / "host_ed25519", root / "id_ed25519"
    for key in (host_key, user_key):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    auth = root / "authorized_keys"
    shutil.copy(user_key.with_suffix(".pub"), auth)
    os.chmod(auth, 0o600)
    server_home = root / "server-home"
    server_home.mkdir()
    port = _free_port()
    bindir = Path(sys.executable).parent
    sshd_config = root / "sshd_config"
    sshd_config.write_text("\n".join([
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {host_key}", f"AuthorizedKeysFile {auth}",
        f"PidFile {root / 'sshd.pid'}", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
        "PermitRootLogin prohibit-password", "UsePAM no", "StrictModes no",
        # the server's sessions: its own Workbench home, this Python first on the PATH, and the
        # Workbench the tests import (a checkout on PYTHONPATH, not only the one installed)
        f"SetEnv WORKBENCH_HOME={server_home} PYTHONUNBUFFERED=1 PATH={bindir}:/usr/local/bin:/usr/bin:/bin"
        + (f" PYTHONPATH={os.environ['PYTHONPATH']}" if os.environ.get("PYTHONPATH") else ""),
        "LogLevel ERROR", ""]))
    try:
        Path("/run/sshd").mkdir(exist_ok=True)  # the privilege separation folder sshd requires
    except OSError:
        pass  # not root: sshd runs without privilege separation
    proc = _listen(sshd_config, port, root)
    known = root / "known_hosts"
    config = root / "ssh_config"
    config.write_text("\n".join([
        "Host *", f"  IdentityFile {user_key}", "  IdentitiesOnly yes", f"  UserKnownHostsFile {known}",
        "  GlobalKnownHostsFile /dev/null", ""]))
    server = SSHServer(port=port, config=config, known_hosts=known, host_pub=host_key.with_suffix(".pub"),
                       server_home=server_home, proc=proc, sshd_config=sshd_config)
    server.trust_host()
    return server


def _listen(sshd_config: Path, port: int, root: Path) -> subprocess.Popen:
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(sshd_config)], stdout=subprocess.DEVNULL,
                            stderr=open(root / "sshd.log", "ab"))
    deadline = time.time() + 20
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        assert proc.poll() is None, (root / "sshd.log").read_text()
        time.sleep(0.1)
    raise AssertionError("sshd did not listen")
