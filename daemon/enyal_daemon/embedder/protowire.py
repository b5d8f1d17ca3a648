"""Protocol Buffers' wire format, just enough to edit an ONNX model's graph.

Why not the `onnx` package: the 8-bit build (build8.py) only swaps MatMul nodes and
their weights, and `onnx` with `onnx-ir` (which onnxruntime's own quantizer needs)
installs ~120 MB, sympy among it, to do that once per model file. A message here is
its fields in file order, each kept as read, so whatever this module does not touch
is written back byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

VARINT, I64, LEN, I32 = 0, 1, 2, 5


@dataclass
class Field:
    number: int
    wire: int
    # an int for VARINT; the payload for LEN / I64 / I32: a view into the decoded
    # buffer (no copy: a model's weights are most of it), or bytes for a new field
    value: int | bytes | memoryview


Message = list[Field]


def _varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint longer than 64 bits")


def decode(data: bytes | memoryview) -> Message:
    view = memoryview(data)
    fields: Message = []
    pos = 0
    while pos < len(view):
        key, pos = _varint(view, pos)
        number, wire = key >> 3, key & 7
        value: int | memoryview
        if wire == VARINT:
            value, pos = _varint(view, pos)
        elif wire == LEN:
            size, pos = _varint(view, pos)
            if pos + size > len(view):
                raise ValueError("truncated field")
            value, pos = view[pos : pos + size], pos + size
        elif wire in (I64, I32):
            width = 8 if wire == I64 else 4
            value, pos = view[pos : pos + width], pos + width
        else:
            raise ValueError(f"unsupported wire type {wire}")
        fields.append(Field(number, wire, value))
    return fields


def _put_varint(out: bytearray, n: int) -> None:
    n &= (1 << 64) - 1  # negative int64s are ten bytes of two's complement
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return


def encode(message: Message) -> bytes:
    out = bytearray()
    for f in message:
        _put_varint(out, (f.number << 3) | f.wire)
        if f.wire == VARINT:
            assert isinstance(f.value, int)
            _put_varint(out, f.value)
        else:
            assert not isinstance(f.value, int)
            if f.wire == LEN:
                _put_varint(out, len(f.value))
            out += f.value
    return bytes(out)


def each(message: Message, number: int) -> Iterator[Field]:
    return (f for f in message if f.number == number)


def first(message: Message, number: int) -> Field | None:
    return next(each(message, number), None)


def text(message: Message, number: int) -> str:
    f = first(message, number)
    return bytes(f.value).decode() if f is not None and not isinstance(f.value, int) else ""


def texts(message: Message, number: int) -> list[str]:
    return [bytes(f.value).decode() for f in each(message, number) if not isinstance(f.value, int)]


def integer(message: Message, number: int) -> int | None:
    f = first(message, number)
    return f.value if f is not None and isinstance(f.value, int) else None


def integers(message: Message, number: int) -> list[int]:
    """A repeated integer field, packed or not (proto2 files may use either)."""
    out: list[int] = []
    for f in each(message, number):
        if isinstance(f.value, int):
            out.append(f.value)
        else:
            pos = 0
            while pos < len(f.value):
                n, pos = _varint(f.value, pos)
                out.append(n)
    return out


def string(number: int, value: str | bytes) -> Field:
    return Field(number, LEN, value.encode() if isinstance(value, str) else value)


def varint(number: int, value: int) -> Field:
    return Field(number, VARINT, value)


def packed(number: int, values: list[int]) -> Field:
    out = bytearray()
    for v in values:
        _put_varint(out, v)
    return Field(number, LEN, bytes(out))


def child(number: int, message: Message) -> Field:
    return Field(number, LEN, encode(message))
