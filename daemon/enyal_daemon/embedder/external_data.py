"""The model builds' big shared tensors, kept in one file beside them (ONNX external data).

Why: both builds (build8.py) hold the same 47 MB token-embedding table, and the daemon
hands both sessions one read-only map of it (shared_weights.py). Held inside each
.onnx file, onnxruntime still read and parsed that copy whenever it loaded the file,
only to drop it for the map: the fp32 build's load peaked 145 MB over the process
(issue 30). Kept once in a data file that the builds reference (an initializer whose
`data_location` is EXTERNAL, with `location`, `offset` and `length` entries), a session
handed the tensor never reads that file, and one loaded alone (a build checked against
the source, a cached build tested by build8._loads) reads it as onnxruntime reads any
external data.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import matmul8 as m8
from . import protowire as pw

MIN_BYTES = 1 << 20  # smaller tensors are not worth a file of their own
# Each tensor starts on a page in the data file: a map of it reads floats in place.
ALIGN = 4096
# onnx.proto's TensorProto fields for external data (StringStringEntryProto: key, value)
TENSOR_EXTERNAL, ENTRY_KEY, ENTRY_VALUE = 13, 1, 2
EXTERNAL = 1  # TensorProto.DataLocation


@dataclass(frozen=True)
class Reference:
    """Where a tensor's bytes are: `length` bytes at `offset` of the file `location`
    (a name relative to the model file's folder)."""

    dims: tuple[int, ...]
    location: str
    offset: int
    length: int


def split(models: list[bytes], location: str) -> tuple[list[bytes], bytes]:
    """`models` with each float initializer of at least MIN_BYTES that all of them hold
    alike (name, shape and bytes) moved to the data file `location`, and that file's
    bytes. Other tensors, and the models' other fields, are left byte for byte."""
    held = [inline_floats(m) for m in models]
    data = bytearray()
    moved: dict[str, Reference] = {}
    for name, (dims, raw) in held[0].items():
        if len(raw) < MIN_BYTES or any(h.get(name) != (dims, raw) for h in held[1:]):
            continue
        data += bytes(-len(data) % ALIGN)
        moved[name] = Reference(tuple(dims), location, len(data), len(raw))
        data += raw
    return [_externalized(m, moved) for m in models], bytes(data)


def references(model: bytes | memoryview) -> dict[str, Reference]:
    """name -> where its bytes are, for each float initializer `model` keeps as
    external data."""
    out: dict[str, Reference] = {}
    for t in _initializers(pw.decode(model)):
        if pw.integer(t, m8.TENSOR_TYPE) != m8.FLOAT:
            continue
        if pw.integer(t, m8.TENSOR_LOCATION) != EXTERNAL:
            continue
        entries = {
            pw.text(e, ENTRY_KEY): pw.text(e, ENTRY_VALUE)
            for e in (
                pw.decode(f.value)
                for f in pw.each(t, TENSOR_EXTERNAL)
                if not isinstance(f.value, int)
            )
        }
        try:
            offset, length = int(entries.get("offset", "0")), int(entries["length"])
        except (KeyError, ValueError):
            continue  # not a reference this module wrote: onnxruntime reads it itself
        dims = tuple(pw.integers(t, m8.TENSOR_DIMS))
        out[pw.text(t, m8.TENSOR_NAME)] = Reference(dims, entries["location"], offset, length)
    return out


def _initializers(model: pw.Message) -> list[pw.Message]:
    graph = pw.first(model, m8.MODEL_GRAPH)
    if graph is None or isinstance(graph.value, int):
        return []
    fields = pw.each(pw.decode(graph.value), m8.GRAPH_INITIALIZER)
    return [pw.decode(f.value) for f in fields if not isinstance(f.value, int)]


def inline_floats(model: bytes | memoryview) -> dict[str, tuple[list[int], bytes]]:
    """name -> (dims, bytes) of each float initializer `model` holds inline as raw data."""
    out: dict[str, tuple[list[int], bytes]] = {}
    for t in _initializers(pw.decode(model)):
        raw = pw.first(t, m8.TENSOR_RAW)
        if pw.integer(t, m8.TENSOR_TYPE) != m8.FLOAT or raw is None or isinstance(raw.value, int):
            continue
        out[pw.text(t, m8.TENSOR_NAME)] = (pw.integers(t, m8.TENSOR_DIMS), bytes(raw.value))
    return out


def _externalized(model: bytes, moved: dict[str, Reference]) -> bytes:
    m = pw.decode(model)
    graph_field = pw.first(m, m8.MODEL_GRAPH)
    if graph_field is None or isinstance(graph_field.value, int) or not moved:
        return model
    graph = pw.decode(graph_field.value)
    for f in pw.each(graph, m8.GRAPH_INITIALIZER):
        if isinstance(f.value, int):
            continue
        t = pw.decode(f.value)
        ref = moved.get(pw.text(t, m8.TENSOR_NAME))
        if ref is None:
            continue
        t = [x for x in t if x.number != m8.TENSOR_RAW]
        for key, value in (
            ("location", ref.location),
            ("offset", ref.offset),
            ("length", ref.length),
        ):
            t.append(
                pw.child(
                    TENSOR_EXTERNAL, [pw.string(ENTRY_KEY, key), pw.string(ENTRY_VALUE, str(value))]
                )
            )
        t.append(pw.varint(m8.TENSOR_LOCATION, EXTERNAL))
        f.value = pw.encode(t)
    graph_field.value = pw.encode(graph)
    return pw.encode(m)
