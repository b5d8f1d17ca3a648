"""The large weights two model files hold alike, loaded once for both sessions.

The daemon runs two builds of the model (build8.py): 8-bit for short texts, fp32 for
long ones. Both are made from the same folded graph, so the 47 MB token-embedding table
is the same initializer, under the same name, in both; the build keeps it once, in a
data file beside them that both reference (external_data.py). onnxruntime would load a
copy for each session; a tensor handed to both with `SessionOptions.add_initializer` is
read in place by both instead (measured: two sessions 213 -> 169 MB RSS, against 126
for the 8-bit build alone), and onnxruntime then never reads the data file itself. A
tensor is shared only when both files reference the same bytes of the same file under
the same name and shape, so sharing never changes what a session computes.

The shared table is not even copied: the sessions read it from a read-only map of the
data file (issue 30: the daemon 216 -> 172 MB RSS after start at 10k), and heap.trim
drops the pages runs have read from the process. The data file is only ever replaced
by a rename (build8.py), never written in place, so the map stays the bytes the builds
were checked with.
"""

from __future__ import annotations

import contextlib
import mmap
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

from .. import heap
from . import external_data


def common(a: Path, b: Path) -> dict[str, ort.OrtValue]:
    """Each float initializer that `a` and `b` both keep at the same place of the same
    data file (name, shape, offset and length alike), as an OrtValue over a read-only map
    of that file (only the rows a run reads are paged in; the OrtValue keeps the map
    alive). `a` may be `b`: one build's tables, mapped here rather than by onnxruntime,
    so that heap.trim drops their pages. Nothing where the place is not 4-byte aligned
    or the file is shorter than the references say: onnxruntime then reads that data
    itself."""
    mine = _references(a)
    theirs = mine if b == a else _references(b)  # one build alone: its own table, mapped
    maps: dict[Path, mmap.mmap] = {}
    out: dict[str, ort.OrtValue] = {}
    for name, ref in mine.items():
        path = a.parent / ref.location
        if theirs.get(name) != ref or b.parent / ref.location != path or ref.offset % 4:
            continue
        if path not in maps:
            try:
                with path.open("rb") as f:
                    maps[path] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):  # missing or empty: the sessions fail and say so
                continue
            heap.drop_pages_on_trim(maps[path])
        kept = maps[path]
        whole = ref.length == 4 * int(np.prod(ref.dims))
        if sys.byteorder != "little" or not whole or ref.offset + ref.length > len(kept):
            continue
        table = np.frombuffer(kept, dtype=np.float32, count=ref.length // 4, offset=ref.offset)
        out[name] = ort.OrtValue.ortvalue_from_numpy(table.reshape(ref.dims))
    return out


def _references(model: Path) -> dict[str, external_data.Reference]:
    """external_data.references of `model`, read through a map closed afterwards: read
    whole into the heap, the fp32 build's 43 MB would stay in the daemon's RSS."""
    with model.open("rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        return external_data.references(memoryview(m))
    finally:
        # No view into the map outlives references() (it returns names and numbers);
        # were one left, closing would raise, and the map is left to the collector.
        with contextlib.suppress(BufferError):
            m.close()
