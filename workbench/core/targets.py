"""Where runs can train besides this computer: servers reached over SSH, as pure data.

A target names an SSH destination (``ssh://[user@]host[:port]``), the folder on the server
that holds Workbench's projects and models (private to the user), the Python that has
Workbench installed there, and the devices a run uses. No password or key is stored: the
system's OpenSSH client authenticates as the user already does (agent, ``~/.ssh/config``,
ProxyJump, known_hosts). The transport is :mod:`workbench.core.remote`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationError, field_validator

from .errors import WorkbenchError
from .fsutil import atomic_write_text
from .paths import user_data_dir

TARGETS_FILE = "targets.json"
DEFAULT_WORKDIR = "workbench-server"  # relative: under the user's home on the server
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_DEVICES = re.compile(r"^(cpu|(gpu|npu|xpu|[a-z_]+):\d+(,\d+)*)$")


class Target(BaseModel):
    name: str
    url: str
    workdir: str = DEFAULT_WORKDIR
    python: str = "python3"
    devices: str = "cpu"  # "cpu", "gpu:0,1", "npu:0"; "cpu:0,1": two data-parallel CPU processes
    hosts: list[str] = Field(default_factory=list)  # several hosts sharing the work folder
    ssh_config: str | None = None  # a separate ssh config file (ssh -F)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError("use letters, digits, '.', '_' or '-' (at most 64), starting with a letter or digit")
        return v

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        parts = urlsplit(v)
        if parts.scheme != "ssh" or not parts.hostname or parts.path not in ("", "/") or parts.password:
            raise ValueError("write it as ssh://[user@]host[:port], with no password")
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
        return v

    @field_validator("devices")
    @classmethod
    def _devices(cls, v: str) -> str:
        if not _DEVICES.match(v):
            raise ValueError("write cpu, or a device kind and numbers such as gpu:0,1 or npu:0")
        return v

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""

    @property
    def user(self) -> str | None:
        return urlsplit(self.url).username

    @property
    def port(self) -> int | None:
        return urlsplit(self.url).port

    @property
    def destination(self) -> str:
        return f"{self.user}@{self.host}" if self.user else self.host

    @property
    def device(self) -> str:
        """The device a single-process run uses: the first listed, or the CPU."""
        if self.devices == "cpu":
            return "cpu"
        kind, numbers = self.devices.split(":", 1)
        return f"{kind}:{numbers.split(',')[0]}"

    @property
    def device_count(self) -> int:
        return 1 if self.devices == "cpu" else len(self.devices.split(":", 1)[1].split(","))


def _path() -> Path:
    return user_data_dir() / TARGETS_FILE


def list_targets() -> list[Target]:
    path = _path()
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [Target.model_validate(t) for t in data.get("targets", [])]
    except (ValueError, ValidationError, AttributeError) as exc:
        raise WorkbenchError(f"The list of servers in {path} cannot be read ({exc}). Fix or delete the file.",
                             code="servers_unreadable", path=str(path)) from exc


def _save(targets: list[Target]) -> None:
    path = _path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps({"targets": [t.model_dump() for t in targets]}, indent=2))


def get_target(name: str) -> Target:
    for t in list_targets():
        if t.name == name:
            return t
    known = [t.name for t in list_targets()]
    raise WorkbenchError(f"No server is registered as '{name}' (registered: {', '.join(known) or 'none yet'}). Add "
                         "it with 'workbench targets add NAME ssh://user@host'.",
                         code="server_not_registered", server=name, known=known)


def add_target(name: str, url: str, **fields) -> Target:
    """Register a server; a name already taken is refused."""
    try:
        target = Target(name=name, url=url, **{k: v for k, v in fields.items() if v is not None})
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "target"
        raise WorkbenchError(f"The server's {field} is not valid: {err['msg']}.", code="server_field_invalid",
                             field=field, detail=str(err["msg"])) from exc
    targets = list_targets()
    if any(t.name == name for t in targets):
        raise WorkbenchError(f"A server named '{name}' is already registered; remove it first or choose another name.",
                             code="server_name_taken", server=name)
    _save([*targets, target])
    return target


def remove_target(name: str) -> Target:
    target = get_target(name)
    _save([t for t in list_targets() if t.name != name])
    return target
