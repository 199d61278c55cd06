"""What the built application carries beyond the modules PyInstaller finds by itself, derived from
the code that needs it, so that the two cannot drift apart (installer/workbench.spec reads these).

* Package metadata. An export pins the bundle's requirements from the installed metadata of
  every package the bundle needs, recursively (``pinned_closure``); the application must carry
  that metadata, for every platform a bundle is written for, or its export fails ("The package
  aiohttp, which the bundle needs, is not installed here"). Besides those, the packages whose own
  code asks ``importlib.metadata`` for a version at run time.
* The bundle's files, copied into every export from ``workbench/engine/bundle`` and ``core/io``.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# packages whose code asks importlib.metadata for its own (or a dependency's) version
ASKS_ITS_VERSION = ("paddlepaddle", "paddleformers", "paddle2onnx", "onnxruntime", "onnx", "tokenizers",
                    "transformers", "huggingface_hub", "safetensors", "numpy", "pandas", "pyarrow", "pydantic",
                    "PySide6_Essentials", "shiboken6", "pyqtgraph", "scikit-learn", "scipy", "sacrebleu",
                    "visualdl", "tqdm", "regex", "requests", "packaging", "filelock", "PyYAML", "datasets",
                    "fsspec", "Jinja2", "aistudio_sdk", "modelscope", "protobuf", "psutil", "workbench")


def bundle_closure() -> list[str]:
    """Every installed package an export pins, for every platform a bundle is written for."""
    from workbench.core.operations.export import BUNDLE_TARGETS
    from workbench.engine.export.environment import bundle_needs, pinned_closure, target_environment

    names: set[str] = set()
    for target in BUNDLE_TARGETS.values():
        names.update(n for n, _ in pinned_closure(bundle_needs(), target_environment(target), unmet=[]))
    return sorted(names, key=str.lower)


def metadata_distributions() -> list[str]:
    """The installed distributions whose metadata the application carries."""
    wanted = dict.fromkeys([*ASKS_ITS_VERSION, *bundle_closure()])
    installed = []
    for name in wanted:
        try:
            distribution(name)
        except PackageNotFoundError:  # an optional one (modelscope, aistudio_sdk) not installed here
            continue
        installed.append(name)
    return installed


def bundle_files() -> list[tuple[str, str]]:
    """``(source file, folder in the application)`` of every file an export copies into a bundle."""
    from workbench.engine.export.bundle import BUNDLE_SCRIPTS, BUNDLE_SOURCES

    files = []
    for name in BUNDLE_SCRIPTS:
        source = BUNDLE_SOURCES.get(name, ROOT / "workbench" / "engine" / "bundle" / name)
        files.append((str(source), str(Path(source).parent.relative_to(ROOT))))
    return files
