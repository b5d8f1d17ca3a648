"""An ONNX model's MatMuls with constant weights, rewritten as 8-bit MatMulNBits.

The same rewrite as onnxruntime's `MatMulNBitsQuantizer` with 8 bits, symmetric blocks
and accuracy level 4 (what build8.py ran before): each MatMul whose second input is a
2-D float initializer [K, N] becomes a `com.microsoft` MatMulNBits node that reads the
weight as blocks of `block_size` 8-bit values with one float scale each. The numbers
come from onnxruntime's own kernel (`quantize_matmul_8bits`, the one its quantizer
calls); only the graph surgery is done here, on the wire format (protowire.py), so a
build needs neither `onnx` nor `onnx-ir`.
"""

from __future__ import annotations

import numpy as np

from . import protowire as pw

# onnx.proto's field numbers, for the fields this rewrite reads or writes
MODEL_GRAPH, MODEL_OPSET = 7, 8
OPSET_DOMAIN, OPSET_VERSION = 1, 2
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_INPUT = 1, 5, 11
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP, NODE_ATTR, NODE_DOMAIN = 1, 2, 3, 4, 5, 7
ATTR_NAME, ATTR_INT, ATTR_TYPE = 1, 3, 20
TENSOR_DIMS, TENSOR_TYPE, TENSOR_FLOATS, TENSOR_NAME, TENSOR_RAW = 1, 2, 4, 8, 9
TENSOR_LOCATION = 14  # 1: the data is in another file
# enum values
FLOAT, UINT8 = 1, 2  # TensorProto.DataType
INT = 2  # AttributeProto.AttributeType

CONTRIB = "com.microsoft"


def quantize(model: bytes, block_size: int, accuracy_level: int) -> tuple[bytes, int]:
    """The rewritten model, and how many MatMul nodes were rewritten."""
    m = pw.decode(model)
    graph_field = pw.first(m, MODEL_GRAPH)
    if graph_field is None:
        raise ValueError("the model has no graph")
    graph = pw.decode(_payload(graph_field))
    weights = {
        pw.text(t, TENSOR_NAME): t
        for t in (pw.decode(_payload(f)) for f in pw.each(graph, GRAPH_INITIALIZER))
    }
    out: list[pw.Field] = []
    added: list[pw.Field] = []
    replaced: set[str] = set()
    rewritten = 0
    for f in graph:
        node = pw.decode(_payload(f)) if f.number == GRAPH_NODE else None
        weight = _constant_weight(node, weights) if node is not None else None
        if node is None or weight is None:
            out.append(f)
            continue
        name, k, n = weight
        if name not in replaced:
            q, scales = _blocks(_float_matrix(weights[name], k, n), block_size)
            added.append(pw.child(GRAPH_INITIALIZER, _tensor(f"{name}_Q8", UINT8, q)))
            added.append(pw.child(GRAPH_INITIALIZER, _tensor(f"{name}_scales", FLOAT, scales)))
            replaced.add(name)
        out.append(pw.child(GRAPH_NODE, _nbits(node, name, k, n, block_size, accuracy_level)))
        rewritten += 1
    # A replaced weight that another node still reads stays; the rest go, with their
    # graph-input entries (older exports list initializers among the inputs too).
    read = {
        i
        for f in out
        if f.number == GRAPH_NODE
        for i in pw.texts(pw.decode(_payload(f)), NODE_INPUT)
    }
    gone = replaced - read
    out = [
        f for f in out if f.number not in (GRAPH_INITIALIZER, GRAPH_INPUT) or _name(f) not in gone
    ]
    last = max((i for i, f in enumerate(out) if f.number == GRAPH_INITIALIZER), default=-1)
    out[last + 1 : last + 1] = added
    m = [pw.child(MODEL_GRAPH, out) if f.number == MODEL_GRAPH else f for f in m]
    domains = [pw.text(pw.decode(_payload(f)), OPSET_DOMAIN) for f in pw.each(m, MODEL_OPSET)]
    if CONTRIB not in domains:
        opset = [pw.string(OPSET_DOMAIN, CONTRIB), pw.varint(OPSET_VERSION, 1)]
        m.append(pw.child(MODEL_OPSET, opset))
    return pw.encode(m), rewritten


def _constant_weight(
    node: pw.Message, weights: dict[str, pw.Message]
) -> tuple[str, int, int] | None:
    """(name, K, N) of a MatMul's 2-D float weight held in the file; None for any other node."""
    if pw.text(node, NODE_OP) != "MatMul" or pw.text(node, NODE_DOMAIN) not in ("", "ai.onnx"):
        return None
    inputs = pw.texts(node, NODE_INPUT)
    if len(inputs) != 2 or inputs[1] not in weights:
        return None
    t = weights[inputs[1]]
    dims = pw.integers(t, TENSOR_DIMS)
    if pw.integer(t, TENSOR_TYPE) != FLOAT or len(dims) != 2 or pw.integer(t, TENSOR_LOCATION):
        return None
    return inputs[1], dims[0], dims[1]


def _float_matrix(t: pw.Message, k: int, n: int) -> np.ndarray:
    raw = pw.first(t, TENSOR_RAW)
    if raw is not None:
        data = np.frombuffer(_payload(raw), dtype="<f4")
    else:  # float_data: one packed field, or one fixed32 field a value
        data = np.frombuffer(b"".join(_payload(f) for f in pw.each(t, TENSOR_FLOATS)), "<f4")
    return np.ascontiguousarray(data.reshape(k, n), dtype=np.float32)


def _blocks(w: np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """onnxruntime's symmetric 8-bit block quantization of w [K, N]: the weight as
    [N, ceil(K / block_size), block_size] uint8, and a float scale a block [N, blocks]."""
    from onnxruntime.capi._pybind_state import quantize_matmul_8bits

    k, n = w.shape
    blocks = -(-k // block_size)
    if blocks * block_size != k:
        w = np.pad(w, ((0, blocks * block_size - k), (0, 0)))
    packed = np.zeros((n, blocks, block_size), dtype=np.uint8)
    scales = np.zeros((n, blocks), dtype=np.float32)
    zero_points = np.zeros((n, blocks), dtype=np.uint8)  # not written when symmetric
    quantize_matmul_8bits(packed, w, scales, zero_points, block_size, n, k, True)
    return packed, scales


def _nbits(
    node: pw.Message, weight: str, k: int, n: int, block_size: int, accuracy_level: int
) -> pw.Message:
    a = pw.texts(node, NODE_INPUT)[0]
    attrs = {"K": k, "N": n, "bits": 8, "block_size": block_size}
    if accuracy_level:  # left out at 0, as onnxruntime does: most providers lack it
        attrs["accuracy_level"] = accuracy_level
    return [
        *(pw.string(NODE_INPUT, i) for i in (a, f"{weight}_Q8", f"{weight}_scales")),
        *(pw.string(NODE_OUTPUT, o) for o in pw.texts(node, NODE_OUTPUT)),
        pw.string(NODE_NAME, f"{pw.text(node, NODE_NAME)}_Q8"),
        pw.string(NODE_OP, "MatMulNBits"),
        *(pw.child(NODE_ATTR, _int_attr(name, v)) for name, v in attrs.items()),
        pw.string(NODE_DOMAIN, CONTRIB),
    ]


def _tensor(name: str, dtype: int, data: np.ndarray) -> pw.Message:
    return [
        pw.packed(TENSOR_DIMS, list(data.shape)),
        pw.varint(TENSOR_TYPE, dtype),
        pw.string(TENSOR_NAME, name),
        pw.string(TENSOR_RAW, data.astype(data.dtype.newbyteorder("<")).tobytes()),
    ]


def _int_attr(name: str, value: int) -> pw.Message:
    return [pw.string(ATTR_NAME, name), pw.varint(ATTR_INT, value), pw.varint(ATTR_TYPE, INT)]


def _name(f: pw.Field) -> str:
    """The name of an initializer (TensorProto field 8) or a graph input (ValueInfoProto 1)."""
    return pw.text(pw.decode(_payload(f)), TENSOR_NAME if f.number == GRAPH_INITIALIZER else 1)


def _payload(f: pw.Field) -> bytes | memoryview:
    if isinstance(f.value, int):
        raise ValueError(f"field {f.number} is not a message")
    return f.value
