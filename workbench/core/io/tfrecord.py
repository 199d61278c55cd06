"""TFRecord files of tf.train.Example records, read without TensorFlow."""

from __future__ import annotations

import base64
import gzip
import json
import struct
import zlib
from pathlib import Path

from ..errors import DataError
from .base import FileInfo, _frame, _records_to_columns, _Reporter, _text

_EXAMPLE_CLASS = None


def _example_class():
    global _EXAMPLE_CLASS
    if _EXAMPLE_CLASS is not None:
        return _EXAMPLE_CLASS
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="workbench_tf_example.proto", package="tensorflow", syntax="proto3")

    def message(name, fields, parent=None):
        msg = (parent.nested_type if parent is not None else proto.message_type).add(name=name)
        for number, (field_name, ftype, label, type_name, oneof) in enumerate(fields, 1):
            field = msg.field.add(name=field_name, number=number, type=ftype, label=label)
            if type_name:
                field.type_name = type_name
            if oneof is not None:
                field.oneof_index = oneof
        return msg

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    message("BytesList", [("value", F.TYPE_BYTES, rep, None, None)])
    message("FloatList", [("value", F.TYPE_FLOAT, rep, None, None)])
    message("Int64List", [("value", F.TYPE_INT64, rep, None, None)])
    feature = message("Feature", [
        ("bytes_list", F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", 0),
        ("float_list", F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", 0),
        ("int64_list", F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", 0),
    ])
    feature.oneof_decl.add(name="kind")
    # map<string, Feature> is, on the wire, a repeated (key=1, value=2) entry message.
    features = message("Features", [("feature", F.TYPE_MESSAGE, rep, ".tensorflow.Features.Entry", None)])
    message("Entry", [("key", F.TYPE_STRING, opt, None, None),
                      ("value", F.TYPE_MESSAGE, opt, ".tensorflow.Feature", None)], parent=features)
    message("Example", [("features", F.TYPE_MESSAGE, opt, ".tensorflow.Features", None)])

    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    _EXAMPLE_CLASS = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.Example"))
    return _EXAMPLE_CLASS


def _masked_crc(data: bytes) -> int:
    import crc32c

    crc = crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def looks_like_tfrecord(head: bytes) -> bool:
    """Whether a file's first bytes (gzip-compressed or not) are a TFRecord record's header:
    a length and its checksum, which no text and no other format has by chance."""
    if head.startswith(b"\x1f\x8b"):
        try:
            head = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(head, 12)
        except zlib.error:
            return False
    if len(head) < 12:
        return False
    return _masked_crc(head[:8]) == struct.unpack("<I", head[8:12])[0]


def _feature_value(feature, key: str, binary: set[str]) -> str:
    kind = feature.WhichOneof("kind")
    if kind is None:
        return ""
    values = list(getattr(feature, kind).value)
    if kind == "bytes_list":
        out = []
        for v in values:
            try:
                out.append(v.decode("utf-8"))
            except UnicodeDecodeError:
                binary.add(key)
                out.append(base64.b64encode(v).decode("ascii"))
        values = out
    elif kind == "float_list":
        import numpy as np

        values = [float(str(np.float32(v))) for v in values]  # shortest text of the float32
    if len(values) == 1:
        return _text(values[0])
    return json.dumps(values, ensure_ascii=False) if values else ""


def _read_tfrecord(path: Path, size: int, report: _Reporter, notes: list[str]):
    name = path.name
    from google.protobuf.message import DecodeError

    Example = _example_class()
    with open(path, "rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if compressed else open
    records: list[dict[str, str]] = []
    binary: set[str] = set()

    def damaged(why: str) -> DataError:
        if not records:
            return DataError(
                f"'{name}' is not a TFRecord file of tf.train.Example records ({why}). "
                "Check that you picked the right file, and that it was written with "
                "tf.io.TFRecordWriter.",
                code="tfrecord_not_examples", name=name, detail=why,
            )
        return DataError(
            f"'{name}' is damaged at record {len(records) + 1} ({why}); the {len(records)} records "
            "before it are fine. Write or copy the file again and import it again.",
            code="tfrecord_damaged", name=name, record=len(records) + 1, good=len(records), detail=why,
        )

    with opener(path, "rb") as fh:
        try:
            while True:
                header = fh.read(12)
                if not header:
                    break
                if len(header) < 12:
                    raise damaged("the file ends in the middle of a record")
                length, length_crc = struct.unpack("<QI", header)
                if _masked_crc(header[:8]) != length_crc:
                    raise damaged("record length checksum mismatch")
                if not compressed and length > size:
                    raise damaged("record length larger than the file")
                data = fh.read(length)
                footer = fh.read(4)
                if len(data) < length or len(footer) < 4:
                    raise damaged("the file ends in the middle of a record")
                if _masked_crc(data) != struct.unpack("<I", footer)[0]:
                    raise damaged("record data checksum mismatch")
                example = Example()
                try:
                    example.ParseFromString(data)
                except DecodeError:
                    raise damaged("the record is not a tf.train.Example") from None
                records.append({
                    entry.key: _feature_value(entry.value, entry.key, binary)
                    for entry in example.features.feature
                })
                if not compressed and len(records) % 1000 == 0:
                    report(0.9 * fh.tell() / size)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            raise damaged(f"compressed data is damaged: {exc}") from None
    if not records:
        raise DataError(f"'{name}' has no data rows: it holds no records. Choose a file with data.",
                        code="tfrecord_empty", name=name)
    if binary:
        notes.append("features holding non-text bytes were kept as base64: " + ", ".join(sorted(binary)))
    columns = _records_to_columns(records)
    if not columns:
        raise DataError(f"'{name}' has no columns: its records hold no features.",
                        code="tfrecord_without_features", name=name)
    if compressed:
        notes.append("file is gzip-compressed")
    return _frame(columns), FileInfo(path=str(path), format="tfrecord")
