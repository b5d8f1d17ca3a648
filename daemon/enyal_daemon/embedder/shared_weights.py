"""The large weights two model files hold alike, loaded once for both sessions.

The daemon runs two builds of the model (build8.py): 8-bit for short texts, fp32 for
long ones. Both are made from the same folded graph, so the 47 MB token-embedding table
is the same initializer, under the same name, in both files (the other tensors both
hold are under MIN_BYTES). onnxruntime would load each file's copy; a tensor handed
to both sessions with `SessionOptions.add_initializer` is read in place by both
instead (measured: two sessions 213 -> 169 MB RSS, against 126 for the 8-bit build
alone). A tensor is shared
only when both files hold it byte for byte, so sharing never changes what a session
computes.
"""

from __future__ import annotations

import contextlib
import mmap
from pathlib import Path

import numpy as np
import onnxruntime as ort

from . import matmul8 as m8
from . import protowire as pw

MIN_BYTES = 1 << 20  # smaller tensors are not worth a shared copy


def common(a: Path, b: Path) -> dict[str, ort.OrtValue]:
    """Each float initializer of at least MIN_BYTES that `a` and `b` hold alike (name,
    shape and bytes), as an OrtValue over its own array (the OrtValue keeps it alive)."""
    # Mapped, not read: only the headers and the tensors compared are paged in, so the
    # daemon's start does not peak at both files' size (+150 MB) for a 47 MB table.
    with a.open("rb") as fa, b.open("rb") as fb:
        ma = mmap.mmap(fa.fileno(), 0, access=mmap.ACCESS_READ)
        mb = mmap.mmap(fb.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return _common(memoryview(ma), memoryview(mb))
    finally:
        # The views into the maps are gone once _common returns (its arrays are copies);
        # closing would raise if one were left, so the maps are left to the collector then.
        for m in (ma, mb):
            with contextlib.suppress(BufferError):
                m.close()


def _common(a: memoryview, b: memoryview) -> dict[str, ort.OrtValue]:
    mine = _float_initializers(a)
    theirs = _float_initializers(b)
    out: dict[str, ort.OrtValue] = {}
    for name, (dims, raw) in mine.items():
        other = theirs.get(name)
        if other is None or other[0] != dims or len(raw) < MIN_BYTES:
            continue
        arr = np.frombuffer(raw, dtype="<f4")
        if not np.array_equal(arr.view(np.uint32), np.frombuffer(other[1], dtype="<u4")):
            continue
        arr = arr.astype(np.float32).reshape(dims)  # a copy: the files' bytes are let go
        out[name] = ort.OrtValue.ortvalue_from_numpy(arr)
    return out


def _float_initializers(model: memoryview) -> dict[str, tuple[list[int], bytes | memoryview]]:
    """name -> (dims, little-endian bytes) of each float initializer stored as raw data."""
    graph_field = pw.first(pw.decode(model), m8.MODEL_GRAPH)
    if graph_field is None or isinstance(graph_field.value, int):
        return {}
    out: dict[str, tuple[list[int], bytes | memoryview]] = {}
    for f in pw.each(pw.decode(graph_field.value), m8.GRAPH_INITIALIZER):
        if isinstance(f.value, int):
            continue
        t = pw.decode(f.value)
        raw = pw.first(t, m8.TENSOR_RAW)
        if pw.integer(t, m8.TENSOR_TYPE) != m8.FLOAT or raw is None or isinstance(raw.value, int):
            continue
        out[pw.text(t, m8.TENSOR_NAME)] = (pw.integers(t, m8.TENSOR_DIMS), raw.value)
    return out
