"""GGUF model files: converted into model folders (reader) and written from them (writer)."""
from __future__ import annotations


def convert_gguf(path, out_dir, *, name=None, progress=None, cancel=None) -> dict:
    """Convert one GGUF file into a model folder at ``out_dir``; see reader.convert_gguf."""
    from workbench.engine.gguf.reader import convert_gguf as _convert

    return _convert(path, out_dir, name=name, progress=progress, cancel=cancel)


__all__ = ["convert_gguf"]
