"""What the built application carries is derived from the code that needs it (installer/app_contents.py).

Seen in the built application: export failed with "The package aiohttp, which the bundle needs, is
not installed here", because the spec copied package metadata from a hand-kept list that the
service's move to aiohttp left behind, and serve_batcher.py and serve_requests.py were missing."""

from __future__ import annotations

import sys
from importlib.metadata import distribution
from pathlib import Path

from workbench.core.operations.export import BUNDLE_TARGETS
from workbench.engine.export.bundle import BUNDLE_SCRIPTS
from workbench.engine.export.environment import bundle_needs, pinned_closure, target_environment

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "installer"))

import app_contents  # noqa: E402


def test_the_application_carries_the_metadata_of_everything_an_export_pins():
    carried = {n.lower().replace("_", "-") for n in app_contents.metadata_distributions()}
    for target in BUNDLE_TARGETS.values():
        unmet: list = []
        pinned = {n.lower().replace("_", "-") for n, _ in pinned_closure(bundle_needs(), target_environment(target), unmet)}
        assert pinned <= carried, (target.key, sorted(pinned - carried))
    assert {"aiohttp", "paddlepaddle", "tokenizers", "numpy", "yarl", "multidict"} <= carried
    for name in app_contents.metadata_distributions():  # PyInstaller's copy_metadata finds each
        assert distribution(name).metadata["Name"]


def test_the_application_carries_every_file_an_export_copies():
    files = app_contents.bundle_files()
    names = [Path(src).name for src, _ in files]
    assert len(files) == len(BUNDLE_SCRIPTS) and all(Path(src).is_file() for src, _ in files)
    assert {"serve_batcher.py", "serve_requests.py", "textsniff.py", "header.py"} <= set(names)
    for src, folder in files:  # where the export looks for it in the installed application
        assert (ROOT / folder / Path(src).name).resolve() == Path(src).resolve()


def test_the_spec_reads_those_lists_and_keeps_no_hand_kept_copy():
    spec = (ROOT / "installer" / "workbench.spec").read_text(encoding="utf-8")
    assert "app_contents.metadata_distributions()" in spec and "app_contents.bundle_files()" in spec
    assert '"aiohttp"' not in spec and '"serve.py")' not in spec
