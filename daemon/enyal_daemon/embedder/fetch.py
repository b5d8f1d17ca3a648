"""`enyal model fetch`: download the model's two files, prove them, then put them in place.

Only the user runs this; nothing in the daemon downloads. Each file streams to a
temporary file beside its destination while being hashed, and is checked against
the pins in model_files (the tokenizer's one hash; any pinned model.onnx). Only
when both files pass are they moved into <data dir>/models/<name>/ (os.replace on
the same filesystem), so a tampered or truncated download never becomes the model.

The default source is the Hugging Face hub's sentence-transformers/all-MiniLM-L6-v2
(its `onnx/model.onnx` fp32 export and `tokenizer.json`). A mirror (--url, or
model.url in config.toml) must serve the same layout under its base URL; file://
URLs work for offline copies.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from enyal_protocol import __version__
from enyal_protocol.private import make_private_dirs

from ..errors import FetchError
from .model_files import MODEL_NAME, MODEL_PINS, TOKENIZER_SHA256, ModelFiles, verify

# (path under the base URL, file name in the model folder)
REMOTE_FILES = (("onnx/model.onnx", "model.onnx"), ("tokenizer.json", "tokenizer.json"))
MAX_BYTES = 512 * 1024 * 1024  # the fp32 export is 90 MB; anything this big is not it
CHUNK = 1 << 20
TIMEOUT_SECONDS = 60

Progress = Callable[[str, int, int | None], None]  # (file name, bytes so far, total or None)


@dataclass(frozen=True)
class Downloaded:
    name: str
    temp: Path
    sha256: str
    size: int


def model_dir(data_dir: Path) -> Path:
    return data_dir / "models" / MODEL_NAME


def _download(url: str, dest_dir: Path, name: str, progress: Progress | None) -> Downloaded:
    req = urllib.request.Request(url, headers={"User-Agent": f"enyal/{__version__}"})
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=dest_dir)
    temp = Path(tmp)
    h = hashlib.sha256()
    size = 0
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(req, timeout=TIMEOUT_SECONDS) as r:
            length = r.headers.get("Content-Length") if hasattr(r, "headers") else None
            total = int(length) if length and length.isdigit() else None
            if total is not None and total > MAX_BYTES:
                raise FetchError(f"{url} is {total} bytes, more than any all-MiniLM-L6-v2 export")
            while chunk := r.read(CHUNK):
                size += len(chunk)
                if size > MAX_BYTES:
                    raise FetchError(f"{url} sent more than {MAX_BYTES} bytes; stopped")
                h.update(chunk)
                out.write(chunk)
                if progress is not None:
                    progress(name, size, total)
            if total is not None and size != total:
                raise FetchError(f"{url}: got {size} of {total} bytes (connection cut?)")
            out.flush()
            os.fsync(out.fileno())
    except urllib.error.HTTPError as exc:
        temp.unlink(missing_ok=True)
        raise FetchError(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        temp.unlink(missing_ok=True)
        raise FetchError(f"{url}: {exc.reason}") from None
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return Downloaded(name, temp, h.hexdigest(), size)


def _check(d: Downloaded, url: str) -> None:
    if d.name == "tokenizer.json":
        ok, expected = d.sha256 == TOKENIZER_SHA256, TOKENIZER_SHA256
    else:
        ok, expected = d.sha256 in MODEL_PINS, " or ".join(sorted(MODEL_PINS))
    if not ok:
        raise FetchError(
            f"{url} has sha256 {d.sha256}, which is not the pinned {d.name} ({expected}); "
            "refused, nothing was installed"
        )


def fetch(data_dir: Path, base_url: str, progress: Progress | None = None) -> ModelFiles:
    """Download, verify, and only then install both files. Returns what the daemon will load."""
    dest = model_dir(data_dir)
    make_private_dirs(dest)  # under the data dir, which holds the database
    got: list[Downloaded] = []
    try:
        for remote, name in REMOTE_FILES:
            url = f"{base_url.rstrip('/')}/{remote}"
            d = _download(url, dest, name, progress)
            got.append(d)
            _check(d, url)
        for d in got:
            os.replace(d.temp, dest / d.name)
        with contextlib.suppress(OSError):  # make the renames durable too
            dir_fd = os.open(dest, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
    finally:
        for d in got:
            d.temp.unlink(missing_ok=True)
    return verify("user data dir", dest / "model.onnx", dest / "tokenizer.json")
