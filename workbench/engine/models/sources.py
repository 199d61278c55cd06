"""Where a base model comes from: a local folder, or a model id downloaded from a hub when one is
reachable (with a clear message when none is)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from urllib.parse import urlparse

from workbench.engine.families import ModelLoadError

HUB_HOSTS = {
    "huggingface": "https://huggingface.co",
    "aistudio": "https://aistudio.baidu.com",
    "modelscope": "https://www.modelscope.cn",
}


def _looks_like_path(name: str) -> bool:
    return (
        os.path.isabs(name) or name.startswith((".", "~")) or "\\" in name or name.count("/") != 1
        or os.path.exists(name)
    )


def hub_reachable(hub: str = "huggingface", timeout: float = 3.0) -> bool:
    """Quick TCP check that a model hub answers, so that an offline machine fails fast."""
    if os.environ.get("HF_HUB_OFFLINE", "") in ("1", "true", "True") and hub == "huggingface":
        return False
    base = HUB_HOSTS.get(hub, HUB_HOSTS["huggingface"])
    if hub == "huggingface":
        base = os.environ.get("HF_ENDPOINT", base)
    url = urlparse(base)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=timeout):
            return True
    except OSError:
        return False


def resolve_model_source(name_or_path: str | os.PathLike, *, allow_pickle: bool = False,
                         hub: str | None = None, timeout: float = 3.0) -> Path:
    """A local folder for a folder path or a model id (downloaded through the hub).

    A model id ("org/name") already in the local cache loads offline; otherwise the hub
    (``DOWNLOAD_SOURCE``: huggingface, aistudio or modelscope) is probed first, so an
    offline machine gets a clear error within ``timeout`` seconds instead of hanging.
    """
    name = str(name_or_path)
    path = Path(name).expanduser()
    if path.is_dir() or _looks_like_path(name):
        return path
    hub = hub or os.environ.get("DOWNLOAD_SOURCE") or "huggingface"
    patterns = ["*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken", "*.jinja"]
    if allow_pickle:
        patterns += ["*.bin", "*.pdparams"]
    cached = _snapshot(hub, name, patterns, local_files_only=True)
    if cached is not None:
        return cached
    if not hub_reachable(hub, timeout=timeout):
        raise ModelLoadError(
            f"'{name}' is not a folder on this computer and the model hub ({hub}) cannot be reached. "
            "This computer looks offline: add a model you have with 'workbench models add FILE.gguf|FOLDER', "
            "or get the registry's with 'workbench models get gemma-3-270m'.",
            code="model_hub_offline", name=str(name), hub=str(hub),
        )
    try:
        folder = _snapshot(hub, name, patterns, local_files_only=False)
    except Exception as exc:
        raise ModelLoadError(
            f"Downloading '{name}' from {hub} failed ({type(exc).__name__}: {exc}). Check the model id, or "
            "choose a local model folder.",
            code="model_download_failed", name=str(name), hub=str(hub), detail=f"{type(exc).__name__}: {exc}",
        ) from None
    if folder is None:
        raise ModelLoadError(f"'{name}' could not be downloaded from {hub}. Check the model id, or choose a "
                             "local model folder.", code="model_not_on_hub", name=str(name), hub=str(hub))
    return folder


def _snapshot(hub: str, repo_id: str, patterns: list[str], *, local_files_only: bool) -> Path | None:
    try:
        if hub == "aistudio":
            from aistudio_sdk.snapshot_download import snapshot_download

            out = snapshot_download(repo_id=repo_id, allow_patterns=patterns, local_files_only=local_files_only)
        elif hub == "modelscope":
            from modelscope import snapshot_download

            out = snapshot_download(model_id=repo_id, allow_patterns=patterns, local_files_only=local_files_only)
        else:
            from huggingface_hub import snapshot_download

            out = snapshot_download(repo_id=repo_id, allow_patterns=patterns, local_files_only=local_files_only,
                                    etag_timeout=10)
    except Exception:
        if local_files_only:
            return None
        raise
    return Path(out) if out else None
