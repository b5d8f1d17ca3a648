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

The shared table is not even copied: the sessions read it from a read-only map of the
fp32 build's file (issue 30: the daemon 216 -> 172 MB RSS after start at 10k, start-up
peak 290 -> 245), and heap.trim drops the pages runs have read from the process. The
build is only ever replaced by a rename (build8.py), never written in place, so the
map stays the bytes that were compared.
"""

from __future__ import annotations

import contextlib
import mmap
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnxruntime as ort

from .. import heap
from . import matmul8 as m8
from . import protowire as pw

MIN_BYTES = 1 << 20  # smaller tensors are not worth a shared copy


def common(a: Path, b: Path) -> dict[str, ort.OrtValue]:
    """Each float initializer of at least MIN_BYTES that `a` and `b` hold alike (name,
    shape and bytes), as an OrtValue over `b`'s bytes where they lie 4-byte aligned in
    the file (mapped read-only: only the rows a run reads are paged in), else over a copy
    (the OrtValue keeps either alive)."""
    # Compared on maps closed afterwards: the comparison reads every byte of both, and a
    # page read through a map that stays open would stay in the daemon's RSS.
    with a.open("rb") as fa, b.open("rb") as fb:
        ma = mmap.mmap(fa.fileno(), 0, access=mmap.ACCESS_READ)
        mb = mmap.mmap(fb.fileno(), 0, access=mmap.ACCESS_READ)
        kept = mmap.mmap(fb.fileno(), 0, access=mmap.ACCESS_READ)
    heap.drop_pages_on_trim(kept)
    try:
        return _common(memoryview(ma), memoryview(mb), kept)
    finally:
        # The views into the maps are gone once _common returns (its arrays are copies or
        # over `kept`); closing would raise if one were left, so the maps are left to the
        # collector then.
        for m in (ma, mb):
            with contextlib.suppress(BufferError):
                m.close()


def _common(a: memoryview, b: memoryview, kept: mmap.mmap) -> dict[str, ort.OrtValue]:
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
        out[name] = ort.OrtValue.ortvalue_from_numpy(_in_place(kept, b, other[1], dims))
    return out


def _in_place(
    kept: mmap.mmap, whole: memoryview, raw: bytes | memoryview, dims: list[int]
) -> npt.NDArray[np.float32]:
    """The tensor `raw` (a slice of `whole`) read from the same offset of `kept`, a map of
    the same file that nothing has read through yet; a copy if it is not 4-byte aligned
    there (onnxruntime's kernels read floats in place) or not a slice of `whole`.

    Why: the 47 MB token-embedding table as a copy is 47 MB of the daemon's anonymous
    memory for good; mapped, it costs the pages of the rows the texts' tokens read
    (clean file pages, shared with the page cache: the kernel can drop them and read
    them again), a few MB after start."""
    view = np.frombuffer(raw, dtype=np.uint8)
    start = view.ctypes.data - np.frombuffer(whole, dtype=np.uint8).ctypes.data
    inside = 0 <= start <= len(whole) - len(raw)
    if sys.byteorder == "little" and isinstance(raw, memoryview) and inside and start % 4 == 0:
        table = np.frombuffer(kept, dtype=np.float32, count=len(raw) // 4, offset=start)
        return table.reshape(dims)
    return np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(dims)


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
