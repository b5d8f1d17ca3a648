"""The model the daemon runs: an 8-bit build of the verified model file.

Why: a query is ~11 tokens, so each of the model's 42 MatMuls multiplies an 11-row
activation by a weight matrix, and a run is bound by reading the weights (42 MB of
fp32: the shipped int8 file is dequantized at load), not by arithmetic. Kept as 8-bit
blocks of 64 weights with one scale each, onnxruntime's MatMulNBits kernel reads a
quarter of the bytes. Measured on this 2-core machine (docs/ARCHITECTURE.md): a query
embeds in ~3.4 ms instead of ~5.3, batches go 150 -> 194 texts/s, and the vectors agree
with the source model's at cosine >= 0.999. That is as close as the int8 and fp32
exports agree with each other, so vectors already stored stay valid and the model id
is the source's.

The build is onnxruntime's own 8-bit block quantization kernel with the graph rewritten
by matmul8.py (the rewrite onnxruntime's MatMulNBitsQuantizer makes, without the onnx
and onnx-ir packages it needs: ~120 MB installed for one rewrite per model file). It
runs in a child process (the memory the build touches is not left in the daemon's
heap), once per source file, onnxruntime version and recipe, into the cache dir; the
child checks the result against the source on fixed sentences before it is put in
place. Anything failing leaves the source model in use and says why in the log: the
build is a speed-up, never a reason not to start.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import ModelUnavailable
from .model_files import ModelFiles
from .onnx import Embedder

log = logging.getLogger("enyal.model")

RECIPE = "mmnb8-b64"  # MatMulNBits, 8 bits, blocks of 64, int8 compute (accuracy level 4)
BLOCK_SIZE = 64
ACCURACY_LEVEL = 4
BUILD_TIMEOUT_S = 300.0
# The build is rejected if any check sentence's vector is further than this from the
# source model's (measured: min 0.9992 over 700 texts).
MIN_AGREEMENT = 0.995
CHECK_TEXTS = (
    "Use ruff format, never black, for this repository.",
    "The deploy script lives in scripts/deploy.sh and needs AWS_PROFILE set.",
    "We chose SQLite in WAL mode so that readers never block the single writer.",
    "Tabs vs spaces: this project indents Python with four spaces and Go with tabs. "
    "Line length is 100. Imports are sorted by ruff's isort rules, first party last.",
)
OFF_ENV = "ENYAL_MODEL_BUILD"  # "source" runs the verified file itself


def build_path(files: ModelFiles, cache_dir: Path) -> Path:
    import onnxruntime as ort

    name = f"{files.model_sha256[:16]}-ort{ort.__version__}-{RECIPE}.onnx"
    return cache_dir / "models" / name


def load(files: ModelFiles, cache_dir: Path) -> Embedder:
    """The embedder for `files`, on their 8-bit build when there is one. A cached build
    that onnxruntime cannot load (a disk error, an edited file) is removed, to be made
    again at the next start, and the source model is run."""
    built = with_build(files, cache_dir)
    if built.runtime is None:
        return Embedder(files)
    try:
        return Embedder(built)
    except Exception as e:  # onnxruntime raises its own unexported exception types
        log.warning("removing %s, which does not load (%s)", built.runtime, e)
        built.runtime.unlink(missing_ok=True)
        return Embedder(files)


def with_build(files: ModelFiles, cache_dir: Path) -> ModelFiles:
    """`files` with `runtime` set to the 8-bit build, made now if it is not cached; `files`
    unchanged if it is turned off or cannot be made."""
    if os.environ.get(OFF_ENV) == "source":
        return files
    target = build_path(files, cache_dir)
    if not target.is_file():
        failed = _build_in_child(files, target)
        if failed is not None:
            log.warning("running the source model (%s): %s", files.model, failed)
            return files
        log.info("built %s from %s", target, files.model)
    return dataclasses.replace(files, runtime=target)


def _build_in_child(files: ModelFiles, target: Path) -> str | None:
    """None once `target` is made, else why it was not."""
    cmd = [sys.executable, "-m", __name__, str(files.model), str(files.tokenizer), str(target)]
    try:
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return lines[-1] if lines else f"exit status {done.returncode}"
    return None


def build(model: Path, tokenizer: Path, target: Path) -> float:
    """Writes the 8-bit build of `model` to `target` (atomically) and returns its worst
    cosine against the source on CHECK_TEXTS. Runs in the child process."""
    import numpy as np
    import onnxruntime as ort

    from . import matmul8

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        # Constant folding turns the int8 file's Cast+Mul dequantization into plain fp32
        # weights: the MatMuls' constant inputs that matmul8 rewrites.
        folded = Path(tmp) / "folded.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        built, rewritten = matmul8.quantize(folded.read_bytes(), BLOCK_SIZE, ACCURACY_LEVEL)
        if not rewritten:
            raise ModelUnavailable("the model has no MatMul with a constant weight to rewrite")
        out = Path(tmp) / "model.onnx"
        out.write_bytes(built)

        source = ModelFiles(model, tokenizer, "", "", "")
        ref = Embedder(source).embed_many(list(CHECK_TEXTS))
        got = Embedder(dataclasses.replace(source, runtime=out)).embed_many(list(CHECK_TEXTS))
        worst = float(np.min(np.sum(ref * got, axis=1)))
        if worst < MIN_AGREEMENT:
            raise ModelUnavailable(f"the build disagrees with the source model ({worst:.4f})")
        with out.open("rb") as f:
            os.fsync(f.fileno())
        os.replace(out, target)
    return worst


if __name__ == "__main__":
    print(f"{build(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])):.5f}")
