"""The GGUF container read quickly: metadata as Python values, tensors as memory-mapped arrays.

gguf.GGUFReader builds a memory-mapped view per array element, which takes 31 s on Gemma 3's
262k-token vocabulary on these machines; reading the same header sequentially takes well
under a second. The tensors come out exactly as GGUFReader gives them (same dtypes and
shapes), so gguf.quants.dequantize reads them unchanged. Little-endian files of GGUF
version 2 and 3, which is what llama.cpp writes.
"""
from __future__ import annotations

import mmap
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32

# GGUF value types -> struct format of one scalar
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_NUMPY = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "?", 10: "<u8", 11: "<i8",
          12: "<f8"}
_STRING, _ARRAY = 8, 9


class GGUFFormatError(ValueError):
    """The bytes are not a GGUF file this reader understands."""


@dataclass
class Tensor:
    name: str
    shape: tuple[int, ...]  # ggml order: innermost (row length) first
    tensor_type: Any  # gguf.GGMLQuantizationType
    data_offset: int  # from the start of the file
    n_bytes: int
    data: np.ndarray | None = None  # set when the file holds all of it


class GGUFFile:
    """Metadata (``.metadata``: key -> value) and tensors (``.tensors``) of one GGUF file."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        with open(self.path, "rb") as fh:
            self.size = os.fstat(fh.fileno()).st_size
            if self.size < 24:
                raise GGUFFormatError("the file is too short to be a GGUF file")
            self._buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        self._pos = 0
        if self._buf[:4] != MAGIC:
            raise GGUFFormatError("the file does not start with the GGUF signature")
        self._pos = 4
        version = self._scalar(4)
        if version not in (2, 3):
            raise GGUFFormatError(f"GGUF version {version} is not supported (2 and 3 are)")
        n_tensors, n_kv = self._scalar(10), self._scalar(10)
        self.metadata: dict[str, Any] = {}
        for _ in range(n_kv):
            key = self._string()
            self.metadata[key] = self._value(self._scalar(4))
        infos = []
        for _ in range(n_tensors):
            name = self._string()
            dims = tuple(self._scalar(10) for _ in range(self._scalar(4)))
            infos.append((name, dims, self._scalar(4), self._scalar(10)))
        alignment = int(self.metadata.get("general.alignment", DEFAULT_ALIGNMENT))
        start = -(-self._pos // alignment) * alignment
        self.tensors = [self._tensor(name, dims, kind, start + offset) for name, dims, kind, offset in infos]

    # ----- header parsing (struct over the memory map, one pass) -----

    def _need(self, n: int) -> None:
        if self._pos + n > self.size:
            raise GGUFFormatError("the file ends inside its header")

    def _scalar(self, kind: int):
        fmt = _SCALARS[kind]
        size = struct.calcsize(fmt)
        self._need(size)
        (value,) = struct.unpack_from(fmt, self._buf, self._pos)
        self._pos += size
        return value

    def _string(self) -> str:
        n = self._scalar(10)
        self._need(n)
        raw = self._buf[self._pos:self._pos + n]
        self._pos += n
        return raw.decode("utf-8", errors="replace")

    def _value(self, kind: int) -> Any:
        if kind in _SCALARS:
            return self._scalar(kind)
        if kind == _STRING:
            return self._string()
        if kind == _ARRAY:
            item, count = self._scalar(4), self._scalar(10)
            if item in _NUMPY:
                dtype = np.dtype(_NUMPY[item])
                self._need(count * dtype.itemsize)
                values = np.frombuffer(self._buf, dtype=dtype, count=count, offset=self._pos)
                self._pos += count * dtype.itemsize
                return values.tolist()
            return [self._value(item) for _ in range(count)]
        raise GGUFFormatError(f"unknown metadata value type {kind}")

    # ----- tensors -----

    def _tensor(self, name: str, dims: tuple[int, ...], kind: int, offset: int) -> Tensor:
        from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType
        from gguf.quants import quant_shape_to_byte_shape

        try:
            qtype = GGMLQuantizationType(kind)
        except ValueError:
            raise GGUFFormatError(f"the tensor {name} has an unknown storage type {kind}") from None
        block, type_size = GGML_QUANT_SIZES[qtype]
        count = int(np.prod(dims)) if dims else 1
        n_bytes = count // block * type_size
        tensor = Tensor(name, dims, qtype, offset, n_bytes)
        if offset + n_bytes <= self.size:
            shape = tuple(reversed(dims))  # numpy order, as GGUFReader shapes them
            raw = np.frombuffer(self._buf, dtype=np.uint8, count=n_bytes, offset=offset)
            plain = {GGMLQuantizationType.F32: np.float32, GGMLQuantizationType.F16: np.float16}
            if qtype in plain:
                tensor.data = raw.view(plain[qtype]).reshape(shape)
            else:
                tensor.data = raw.reshape(quant_shape_to_byte_shape(shape, qtype))
        return tensor
