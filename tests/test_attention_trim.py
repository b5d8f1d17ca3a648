"""Each layer's attention trimmed in the model's builds (embedder/attention_trim.py): the
NaN guard after the Softmax dropped, the key's two transposes made one, and every vector
the same bit for bit, alone and in padded runs, on both builds."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest

from enyal_daemon.embedder import attention_trim, build8, matmul8, passages
from enyal_daemon.embedder import protowire as pw
from enyal_daemon.embedder.build8 import ACCURACY_LEVEL, BLOCK_SIZE
from enyal_daemon.embedder.model_files import ModelFiles, locate
from enyal_daemon.embedder.onnx import Embedder

DATA = Path(__file__).resolve().parent.parent / "scripts" / "data"
LAYERS = 6  # all-MiniLM-L6-v2's


def _ops(model: bytes) -> list[str]:
    graph = pw.decode(matmul8._payload(pw.first(pw.decode(model), matmul8.MODEL_GRAPH)))
    return [
        pw.text(pw.decode(matmul8._payload(f)), matmul8.NODE_OP)
        for f in pw.each(graph, matmul8.GRAPH_NODE)
    ]


def _texts() -> list[str]:
    """Short memories and queries, long ones past the model's window, and passages of
    long texts as the daemon cuts them: runs of every kind, padded and alone."""
    rows = (DATA / "agent_memories.jsonl").read_text().splitlines()
    memories = [json.loads(line)["content"] for line in rows]
    long = [" ".join(memories[i : i + 12]) for i in range(0, 120, 12)]
    cut = [p for ps in passages.split_many(long, _counter()) for p in ps]
    return memories[:80] + long + cut + ["", "a"]


def _counter() -> Any:
    return Embedder(locate(Path("/nonexistent"))).count_tokens


@pytest.fixture(scope="module")
def graphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The source's folded graph (what build8 makes both builds of), its 8-bit build, and
    both trimmed, as files."""
    source = locate(Path("/nonexistent"))
    out = tmp_path_factory.mktemp("graphs")
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.optimized_model_filepath = str(out / "folded.onnx")
    ort.InferenceSession(str(source.model), sess_options=opts, providers=["CPUExecutionProvider"])
    fp32 = (out / "folded.onnx").read_bytes()
    trimmed, rewritten = attention_trim.trim(fp32)
    assert rewritten == 2 * LAYERS  # a guard and a key chain a layer
    made = {"fp32": fp32, "fp32 trimmed": trimmed}
    for name in ("fp32", "fp32 trimmed"):
        made[name.replace("fp32", "8-bit")] = matmul8.quantize(
            made[name], BLOCK_SIZE, ACCURACY_LEVEL
        )[0]
    paths = {}
    for name, model in made.items():
        paths[name] = out / f"{name.replace(' ', '-')}.onnx"
        paths[name].write_bytes(model)
    return paths


def _on(path: Path) -> Embedder:
    files: ModelFiles = replace(locate(Path("/nonexistent")), runtime=path, long_runtime=path)
    return Embedder(files)


@pytest.mark.parametrize("build", ["fp32", "8-bit"])
def test_a_trimmed_build_makes_every_vector_bit_for_bit(
    graphs: dict[str, Path], build: str
) -> None:
    before, after = _on(graphs[build]), _on(graphs[f"{build} trimmed"])
    texts = _texts()
    made = after.embed_many(texts)  # in padded runs, sorted by length
    assert np.array_equal(made, before.embed_many(texts))
    assert not np.isnan(made).any()
    alone = texts[:20] + texts[-2:]
    assert np.array_equal(
        np.stack([after.embed(t) for t in alone]), np.stack([before.embed(t) for t in alone])
    )


def test_the_trim_drops_the_guards_and_a_transpose_a_layer(graphs: dict[str, Path]) -> None:
    ops = {name: _ops(path.read_bytes()) for name, path in graphs.items()}
    for build in ("fp32", "8-bit"):
        before, after = ops[build], ops[f"{build} trimmed"]
        assert before.count("IsNaN") == LAYERS and after.count("IsNaN") == 0
        assert after.count("Where") == before.count("Where") - LAYERS
        # Transpose, Reshape, Transpose, Reshape: one Transpose
        assert after.count("Transpose") == before.count("Transpose") - LAYERS
        assert after.count("Reshape") == before.count("Reshape") - 2 * LAYERS
    # A graph with nothing to trim is handed back as it was.
    again, rewritten = attention_trim.trim(graphs["fp32 trimmed"].read_bytes())
    assert rewritten == 0 and again == graphs["fp32 trimmed"].read_bytes()


def test_the_daemon_runs_trimmed_builds(embedder: Any) -> None:
    for path in {embedder.files.runtime, embedder.files.long_runtime}:
        ops = _ops(path.read_bytes())
        assert "IsNaN" not in ops, f"{path.name} is not trimmed"
        # Its vectors are the untrimmed recipe's, bit for bit: a cache of vectors says so.
        name = build8.vectors_name(path)
        assert name != path.name and name.endswith(("-mmnb8-b64-x.onnx", "-fp32-x.onnx"))
