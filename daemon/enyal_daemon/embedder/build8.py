"""The model the daemon runs: two builds of the verified model file, 8-bit and fp32.

Why: a query is ~11 tokens, so each of the model's 42 MatMuls multiplies an 11-row
activation by a weight matrix, and a run is bound by reading the weights (42 MB of
fp32: the shipped int8 file is dequantized at load), not by arithmetic. Kept as 8-bit
blocks of 64 weights with one scale each, onnxruntime's MatMulNBits kernel reads a
quarter of the bytes. Measured on this 2-core machine (docs/ARCHITECTURE.md): a query
embeds in ~3.4 ms instead of ~5.3, batches go 150 -> 194 texts/s, and the vectors agree
with the source model's at cosine >= 0.999. That is as close as the int8 and fp32
exports agree with each other, so vectors already stored stay valid and the model id
is the source's.

Past a query's length the 8-bit build is the slower one on a processor without an int8
dot-product instruction (AVX2 alone, where this was measured): its int8 kernel costs more
arithmetic than fp32's, and from ~16 tokens up a
run is bound by arithmetic, not by reading weights. So the child also writes the fp32
build (the source with its int8 weights folded to fp32: the graph the 8-bit build is
made from), and the embedder runs texts of more than onnx.SHORT_TOKENS tokens on it:
1.15-1.55x less CPU a text from 16 to 256 tokens, alone or in runs (docs/ARCHITECTURE.md,
"The model"). The same 8-bit weights with fp32 compute (accuracy level 0) are no
answer: that kernel dequantizes every block on every run (~20 ms a run).
It agrees with the source to float noise (it is what onnxruntime runs of the source),
so the model id stays the source's for both builds. On a processor with an int8
dot-product instruction (AVX-VNNI, AVX-512 VNNI, Arm's dot product: cpu.py) the 8-bit
kernel is the cheaper at every width, so there it runs every text and the fp32 build
is not loaded. Thread CPU a text on an EPYC with AVX-512 VNNI, 8-bit against fp32,
min of 15 runs: 16 tokens alone 2.22 against 4.26 ms, 32 tokens 3.86 against 6.50,
128 tokens 16.2 against 19.5, 256 tokens 35.0 against 41.3; in runs of 8 x 24 tokens
2.71 against 3.26, 8 x 64 7.43 against 8.76 (docs/ARCHITECTURE.md, "The model").
Where it is loaded, its MatMul weights cost ~43 MB more RSS than the 8-bit build alone;
the embedding table both hold is kept once, in a tables file both reference
(external_data.py), and loaded once (shared_weights.py).

The build is onnxruntime's own 8-bit block quantization kernel with the graph rewritten
by matmul8.py (the rewrite onnxruntime's MatMulNBitsQuantizer makes, without the onnx
and onnx-ir packages it needs: ~120 MB installed for one rewrite per model file). It
runs in a child process (the memory the build touches is not left in the daemon's
heap), once per source file, onnxruntime version and recipe, into the cache dir; the
child checks the result against the source on fixed sentences before it is put in
place. A build failing leaves the source model running its texts and says why in the
log: a build is a speed-up, never a reason not to start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from ..errors import ModelUnavailable
from . import cpu, external_data
from .model_files import ModelFiles
from .onnx import Embedder, Vectors

log = logging.getLogger("enyal.model")

# A recipe names its build's file, so a build made by another recipe is made again. The
# "-x" is where the shared token table is kept: in the TABLES file beside both builds
# (external_data.py), not in each; builds that held their own copy are not reused. The
# "a": each layer's attention trimmed (attention_trim.py), the same vectors bit for bit
# as the builds before it ("-x"), at ~4% less CPU.
RECIPE = "mmnb8-b64-xa"  # MatMulNBits, 8 bits, blocks of 64, int8 compute (accuracy level 4)
LONG_RECIPE = "fp32-xa"  # the source's int8 weights folded to fp32, as onnxruntime runs them
# What each recipe's vectors are, for a cache of vectors (the bench's): a recipe whose
# builds compute the vectors of an earlier one, bit for bit, names that one.
SAME_VECTORS = {RECIPE: "mmnb8-b64-x", LONG_RECIPE: "fp32-x"}
TABLES = "tables-x"  # the tensors both builds hold alike (the token-embedding table)
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
WRITE_PIECE = 1 << 16  # bytes a write of the tables file (_write_in_pieces)
OFF_ENV = "ENYAL_MODEL_BUILD"  # "source" runs the verified file itself


def build_path(
    files: ModelFiles, cache_dir: Path, recipe: str = RECIPE, suffix: str = ".onnx"
) -> Path:
    import onnxruntime as ort

    name = f"{files.model_sha256[:16]}-ort{ort.__version__}-{recipe}{suffix}"
    return cache_dir / "models" / name


def vectors_name(path: Path) -> str:
    """A build's file name as the vectors it computes: that of the recipe whose vectors
    its recipe's are, bit for bit (SAME_VECTORS), so a cache of vectors keyed by it holds."""
    for recipe, same in SAME_VECTORS.items():
        if path.name.endswith(f"-{recipe}.onnx"):
            return path.name.removesuffix(f"-{recipe}.onnx") + f"-{same}.onnx"
    return path.name


def tables_path(files: ModelFiles, cache_dir: Path) -> Path:
    """The data file both builds reference for the tensors they hold alike."""
    return build_path(files, cache_dir, TABLES, ".data")


def load(files: ModelFiles, cache_dir: Path, int8_dot: bool | None = None) -> Embedder:
    """The embedder for `files`, on their builds when there are. A cached build that
    onnxruntime cannot load (a disk error, an edited file) is removed, to be made again
    at the next start, and the source model runs the texts it was for. `int8_dot`: the
    processor's (cpu.py) unless a test says."""
    built = with_build(files, cache_dir, int8_dot)
    try:
        return Embedder(built)
    except Exception as e:  # onnxruntime raises its own unexported exception types
        failed = e
    for path in (built.runtime, built.long_runtime):
        if path is not None and not _loads(path):
            log.warning("removing %s, which does not load (%s)", path, failed)
            path.unlink(missing_ok=True)
    built = dataclasses.replace(
        built,
        runtime=built.runtime if built.runtime and built.runtime.is_file() else None,
        long_runtime=built.long_runtime
        if built.long_runtime and built.long_runtime.is_file()
        else None,
    )
    try:
        return Embedder(built)
    except Exception as e:  # both load alone, not together: run the source
        log.warning("running the source model (%s): %s", files.model, e)
        return Embedder(files)


def _loads(path: Path) -> bool:
    import onnxruntime as ort

    try:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception:  # onnxruntime raises its own unexported exception types
        return False
    return True


def with_build(files: ModelFiles, cache_dir: Path, int8_dot: bool | None = None) -> ModelFiles:
    """`files` with `runtime` set to the 8-bit build and `long_runtime` to the fp32 one
    (to the 8-bit one too where the processor has an int8 dot product: `int8_dot`, the
    processor's unless a test says), made now if they are not cached; either left None
    (the source runs its texts) if it is turned off or cannot be made."""
    if os.environ.get(OFF_ENV) == "source":
        return files
    target = build_path(files, cache_dir)
    long_target = build_path(files, cache_dir, LONG_RECIPE)
    tables = tables_path(files, cache_dir)
    if not (target.is_file() and long_target.is_file() and tables.is_file()):
        failed = _build_in_child(files, target, long_target, tables)
        if failed is not None:
            log.warning("running the source model (%s): %s", files.model, failed)
        else:
            log.info("built %s and %s from %s", target, long_target, files.model)
            _remove_other_builds(files, (target, long_target, tables))
    if not (target.is_file() or long_target.is_file()):
        return files
    if (cpu.int8_dot() if int8_dot is None else int8_dot) and target.is_file():
        long_target = target
    return dataclasses.replace(
        files,
        runtime=target if target.is_file() else None,
        long_runtime=long_target if long_target.is_file() else None,
    )


def _remove_other_builds(files: ModelFiles, keep: tuple[Path, ...]) -> None:
    """Once this version has made its builds, the ones other recipes or onnxruntime
    versions made of the same model are ~150 MB nothing here runs: removed (a daemon
    still running one keeps its open file; a downgrade makes them again)."""
    for path in keep[0].parent.glob(f"{files.model_sha256[:16]}-ort*"):
        if path not in keep:
            with contextlib.suppress(OSError):
                path.unlink()
                log.info("removed %s, a build this version does not run", path)


def _build_in_child(files: ModelFiles, target: Path, long_target: Path, tables: Path) -> str | None:
    """None once `target`, `long_target` and their `tables` are made, else why not."""
    cmd = [sys.executable, "-m", __name__, str(files.model), str(files.tokenizer)]
    cmd += [str(target), str(long_target), str(tables)]
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


def build(model: Path, tokenizer: Path, target: Path, long_target: Path, tables: Path) -> float:
    """Writes the fp32 build of `model` to `long_target` and the 8-bit build to `target`
    (each atomically, once checked, unless it is there already), the tensors both hold
    alike to `tables` (a sibling of both), and returns the builds' worst cosine against
    the source on CHECK_TEXTS. Runs in the child process."""
    import onnxruntime as ort

    from . import attention_trim, matmul8

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        # Constant folding turns the int8 file's Cast+Mul dequantization into plain fp32
        # weights: the MatMuls' constant inputs that matmul8 rewrites.
        folded = Path(tmp) / "folded.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        # Each layer's attention without the work that never changes a vector
        # (attention_trim.py): both builds are made from the trimmed graph.
        fp32, _ = attention_trim.trim(folded.read_bytes())
        built, rewritten = matmul8.quantize(fp32, BLOCK_SIZE, ACCURACY_LEVEL)
        if not rewritten:
            raise ModelUnavailable("the model has no MatMul with a constant weight to rewrite")
        # The table both hold goes to one data file they reference by its name (a sibling
        # in the cache dir, and in `tmp` while they are checked). Made the same way from
        # the same source, it is the same bytes as one already in place.
        (long_built, built), data = external_data.split([fp32, built], tables.name)
        scratch = Path(tmp)
        _write_in_pieces(scratch / tables.name, data)
        source = ModelFiles(model, tokenizer, "", "", "")
        ref = Embedder(source).embed_many(list(CHECK_TEXTS))
        worst = 1.0
        # The folded graph is the fp32 build: what onnxruntime runs of the source. A
        # build already in place is left as it is (the daemon loads it, or removes it).
        outs: list[tuple[Path, Path]] = []
        for out, want, made in (
            (scratch / "fp32.onnx", long_target, long_built),
            (scratch / "model.onnx", target, built),
        ):
            if not want.is_file():
                out.write_bytes(made)
                worst = min(worst, _check(out, want, source, ref))
                outs.append((out, want))
        # The data file first: a build in place always finds its tables.
        for out, want in [(scratch / tables.name, tables), *outs]:
            with out.open("rb") as f:
                os.fsync(f.fileno())
            os.replace(out, want)
        return worst


def _write_in_pieces(path: Path, data: bytes) -> None:
    """`data` to `path` a WRITE_PIECE at a time. Why: the page cache keeps the file in
    folios as large as the writes that made them, and a fault on a row of the daemon's
    map of the table maps that row's whole folio. Written in one 47 MB write, 200 random
    rows mapped 39 MB of it (Linux 6.18), 64 KB at a time 10 MB; the daemon's RSS after
    540 recalls held 44 MB of the table until the next trim (docs/ARCHITECTURE.md)."""
    with path.open("wb") as f:
        for start in range(0, len(data), WRITE_PIECE):
            f.write(data[start : start + WRITE_PIECE])


def _check(out: Path, target: Path, source: ModelFiles, ref: Vectors) -> float:
    """The worst cosine of the build `out` against the source's vectors `ref` on
    CHECK_TEXTS; raises if it is under MIN_AGREEMENT."""
    import numpy as np

    # `out` runs every text: as `runtime` alone it would get only those of at most
    # onnx.SHORT_TOKENS tokens, and the source would run the rest.
    alone = dataclasses.replace(source, runtime=out, long_runtime=out)
    got = Embedder(alone).embed_many(list(CHECK_TEXTS))
    worst = float(np.min(np.sum(ref * got, axis=1)))
    if worst < MIN_AGREEMENT:
        raise ModelUnavailable(f"{target.name} disagrees with the source model ({worst:.4f})")
    return worst


if __name__ == "__main__":
    paths = [Path(a) for a in sys.argv[1:6]]
    print(f"{build(*paths):.5f}")
