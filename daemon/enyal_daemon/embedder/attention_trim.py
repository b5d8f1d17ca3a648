"""The model's attention without two pieces of work that never change a vector.

The exported graph of all-MiniLM-L6-v2 (torch's scaled_dot_product_attention) does, in
each of its six layers:

- `Where(IsNaN(p), 0, p)` on the Softmax's output p: a row of attention whose every key
  is masked out is all NaN, and the guard makes it zeros. The embedder never feeds such a
  row (every text has its [CLS] token, unmasked, and padding only ever masks keys past a
  text's end), so the guard reads and writes the layer's batch x 12 x width x width
  attention weights twice for nothing: ~3% of a passage run's kernel time.
- the key transposed for the scores as Transpose(0,2,1,3), Reshape to 3-D, Transpose
  (0,2,1), Reshape back: two copies of the layer's keys where one Transpose(0,2,3,1)
  makes the same tensor.

Both rewrites move the same floats to the same places, so every vector is the same bit
for bit (tests/test_attention_trim.py; docs/ARCHITECTURE.md, "Where an import's time
goes": a SciFact abstract's passages ~4% less model CPU). build8.py makes both builds
from the trimmed graph. Done on the wire format (protowire.py), as matmul8.py is.
"""

from __future__ import annotations

from collections import Counter

from . import matmul8 as m8
from . import protowire as pw

GRAPH_OUTPUT = 12  # onnx.proto's GraphProto.output
ATTR_INTS = 8  # AttributeProto.ints
INTS = 7  # AttributeProto.AttributeType


def trim(model: bytes) -> tuple[bytes, int]:
    """The model with each layer's NaN guard dropped and its key's transposes made one,
    and how many of the two were rewritten (the model as it is when none matches)."""
    m = pw.decode(model)
    graph_field = pw.first(m, m8.MODEL_GRAPH)
    if graph_field is None:
        raise ValueError("the model has no graph")
    graph = pw.decode(m8._payload(graph_field))
    nodes = {
        at: pw.decode(m8._payload(f)) for at, f in enumerate(graph) if f.number == m8.GRAPH_NODE
    }
    made_by = {out: at for at, node in nodes.items() for out in _outputs(node)}
    readers = Counter(name for node in nodes.values() for name in pw.texts(node, m8.NODE_INPUT))
    # The graph's outputs are read too (ValueInfoProto's name is its field 1).
    readers.update(pw.text(pw.decode(m8._payload(f)), 1) for f in pw.each(graph, GRAPH_OUTPUT))
    drop: set[int] = set()
    replace: dict[int, pw.Message] = {}
    rewritten = 0
    for at, node in nodes.items():
        guard = _nan_guard(at, node, nodes, made_by)
        if guard is not None:
            softmax, isnan = guard
            # The Softmax writes the guard's output itself: its readers are unchanged.
            replace[softmax] = _renamed_output(nodes[softmax], _outputs(node)[0])
            drop |= {at, isnan}
            rewritten += 1
            continue
        chain = _key_chain(node, nodes, made_by, readers)
        if chain is not None:
            first, middle = chain
            source = pw.texts(nodes[first], m8.NODE_INPUT)[0]
            replace[at] = _transpose(source, _outputs(node)[0], pw.text(node, m8.NODE_NAME))
            drop |= set(middle)
            if readers[_outputs(nodes[first])[0]] == 1:  # else another node reads it: kept
                drop.add(first)
            rewritten += 1
    if not rewritten:
        return model, 0
    kept = [
        pw.child(m8.GRAPH_NODE, replace[at]) if at in replace else f
        for at, f in enumerate(graph)
        if at not in drop
    ]
    m = [pw.child(m8.MODEL_GRAPH, kept) if f.number == m8.MODEL_GRAPH else f for f in m]
    return pw.encode(m), rewritten


def _nan_guard(
    at: int, node: pw.Message, nodes: dict[int, pw.Message], made_by: dict[str, int]
) -> tuple[int, int] | None:
    """(the Softmax, the IsNaN) when `node` is Where(IsNaN(p), _, p) of a Softmax's p."""
    if _op(node) != "Where":
        return None
    cond, _, p = pw.texts(node, m8.NODE_INPUT)
    isnan, softmax = made_by.get(cond), made_by.get(p)
    if isnan is None or softmax is None or isnan == at:
        return None
    if _op(nodes[isnan]) != "IsNaN" or pw.texts(nodes[isnan], m8.NODE_INPUT) != [p]:
        return None
    if _op(nodes[softmax]) != "Softmax":
        return None
    return softmax, isnan


def _key_chain(
    node: pw.Message,
    nodes: dict[int, pw.Message],
    made_by: dict[str, int],
    readers: Counter[str],
) -> tuple[int, list[int]] | None:
    """(the first Transpose, the Reshape and Transpose between) when `node` is
    Reshape(Transpose(Reshape(Transpose(x, 0213)), 021)): x's last two axes swapped
    and its heads brought forward, which one Transpose(x, 0231) does."""
    if _op(node) != "Reshape":
        return None
    steps: list[int] = []
    want = [("Transpose", [0, 2, 1]), ("Reshape", None), ("Transpose", [0, 2, 1, 3])]
    here = node
    for op, perm in want:
        up = made_by.get(pw.texts(here, m8.NODE_INPUT)[0])
        if up is None or _op(nodes[up]) != op or (perm is not None and _perm(nodes[up]) != perm):
            return None
        steps.append(up)
        here = nodes[up]
    *middle, first = steps
    # What is reshaped and transposed in between is read by nothing else.
    if any(readers[out] != 1 for x in middle for out in _outputs(nodes[x])):
        return None
    return first, middle


def _op(node: pw.Message) -> str:
    if pw.text(node, m8.NODE_DOMAIN) not in ("", "ai.onnx"):
        return ""
    return pw.text(node, m8.NODE_OP)


def _outputs(node: pw.Message) -> list[str]:
    return pw.texts(node, m8.NODE_OUTPUT)


def _perm(node: pw.Message) -> list[int] | None:
    for f in pw.each(node, m8.NODE_ATTR):
        attr = pw.decode(m8._payload(f))
        if pw.text(attr, m8.ATTR_NAME) == "perm":
            return pw.integers(attr, ATTR_INTS)
    return None


def _renamed_output(node: pw.Message, name: str) -> pw.Message:
    return [pw.string(m8.NODE_OUTPUT, name) if f.number == m8.NODE_OUTPUT else f for f in node]


def _transpose(source: str, out: str, name: str) -> pw.Message:
    perm = [pw.string(m8.ATTR_NAME, "perm"), pw.packed(ATTR_INTS, [0, 2, 3, 1])]
    return [
        pw.string(m8.NODE_INPUT, source),
        pw.string(m8.NODE_OUTPUT, out),
        pw.string(m8.NODE_NAME, f"{name}_keys"),
        pw.string(m8.NODE_OP, "Transpose"),
        pw.child(m8.NODE_ATTR, [*perm, pw.varint(m8.ATTR_TYPE, INTS)]),
    ]
