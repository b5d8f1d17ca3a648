"""`enyal model fetch | status | verify | path` against a real HTTP server on 127.0.0.1.

The server serves real pinned files (the installed int8 model.onnx and the vendored
tokenizer.json, laid out as on the hub: onnx/model.onnx, tokenizer.json) and
tampered copies, which must be refused with nothing put in place.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from enyal_daemon.embedder.model_files import (
    MODEL_PINS,
    TOKENIZER_SHA256,
    locate,
    packaged_tokenizer,
    sha256_file,
)
from service_support import env_for, enyal

HUB_FP32_SHA256 = "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452"


class Server:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: list[str] = []
        requests = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                requests.append(self.path)

        handler = functools.partial(Handler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def _layout(root: Path, model: Path, tokenizer: Path) -> None:
    (root / "onnx").mkdir(parents=True)
    shutil.copy(model, root / "onnx" / "model.onnx")
    shutil.copy(tokenizer, root / "tokenizer.json")


def _flip_a_byte(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def mirror(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("mirror")
    model, tok = locate(Path("/nonexistent")).model, packaged_tokenizer()
    _layout(root / "good", model, tok)
    _layout(root / "bad-model", model, tok)
    _flip_a_byte(root / "bad-model" / "onnx" / "model.onnx", 1_000_000)
    _layout(root / "bad-tokenizer", model, tok)
    _flip_a_byte(root / "bad-tokenizer" / "tokenizer.json", 10_000)
    (root / "half").mkdir()
    shutil.copy(tok, root / "half" / "tokenizer.json")  # no onnx/model.onnx: a 404
    server = Server(root)
    yield server
    server.close()


def _model_dir(home: Path) -> Path:
    return home / "models" / "all-MiniLM-L6-v2"


def test_the_hub_export_is_pinned_and_is_the_default_source() -> None:
    assert MODEL_PINS[HUB_FP32_SHA256] == "all-MiniLM-L6-v2/onnx-fp32"
    assert sha256_file(packaged_tokenizer()) == TOKENIZER_SHA256


def test_fetch_downloads_verifies_and_installs(home: Path, mirror: Server) -> None:
    env = env_for(home)
    mirror.requests.clear()
    r = enyal("model", "fetch", "--url", f"{mirror.url}/good", "--json", env=env)
    assert r.code == 0, r.err
    res = r.json()
    assert res["fetched"] and res["model_id"] == "all-MiniLM-L6-v2/onnx-int8"
    # Exactly the hub's layout under the base URL.
    assert mirror.requests == ["/good/onnx/model.onnx", "/good/tokenizer.json"]
    d = _model_dir(home)
    assert sorted(p.name for p in d.iterdir()) == ["model.onnx", "tokenizer.json"]
    assert sha256_file(d / "model.onnx") == res["sha256"]
    assert sha256_file(d / "tokenizer.json") == TOKENIZER_SHA256
    st = enyal("model", "status", "--json", env=env).json()
    selected = [s for s in st["sources"] if s["selected"]]
    assert [s["source"] for s in selected] == ["user data dir"] and selected[0]["ok"]
    assert enyal("model", "verify", env=env).code == 0
    assert enyal("model", "path", env=env).out.strip() == str(d / "model.onnx")
    again = enyal("model", "fetch", "--url", f"{mirror.url}/good", env=env)
    assert again.code == 0 and "already holds all-MiniLM-L6-v2/onnx-int8" in again.out


@pytest.mark.parametrize(
    ("source", "refused"), [("bad-model", "model.onnx"), ("bad-tokenizer", "tokenizer.json")]
)
def test_a_tampered_download_is_refused_and_nothing_is_installed(
    home: Path, mirror: Server, source: str, refused: str
) -> None:
    r = enyal("model", "fetch", "--url", f"{mirror.url}/{source}", env=env_for(home))
    assert r.code == 1
    assert f"which is not the pinned {refused}" in r.err and "nothing was installed" in r.err
    assert list(_model_dir(home).iterdir()) == []  # no file, no leftover .part


def test_a_missing_file_is_an_http_error(home: Path, mirror: Server) -> None:
    r = enyal("model", "fetch", "--url", f"{mirror.url}/half", env=env_for(home))
    assert r.code == 1 and "HTTP 404" in r.err
    assert list(_model_dir(home).iterdir()) == []


def test_a_file_url_mirror_works_offline(home: Path, mirror: Server) -> None:
    r = enyal("model", "fetch", "--url", (mirror.root / "good").as_uri(), env=env_for(home))
    assert r.code == 0, r.err
    assert (_model_dir(home) / "model.onnx").is_file()


@pytest.mark.usefixtures("autostarted")
def test_an_installed_file_tampered_later_is_refused_not_skipped(
    home: Path, mirror: Server
) -> None:
    env = env_for(home)
    assert enyal("model", "fetch", "--url", f"{mirror.url}/good", env=env).code == 0
    _flip_a_byte(_model_dir(home) / "model.onnx", 2_000_000)
    v = enyal("model", "verify", "--json", env=env)
    assert v.code == 1
    user = next(s for s in v.json()["sources"] if s["source"] == "user data dir")
    assert not user["ok"] and "is not a pinned all-MiniLM-L6-v2 export" in user["error"]
    # The daemon refuses to start on it rather than falling through to the package's model.
    r = enyal("stats", env=env)
    assert r.code == 1 and "is not a pinned all-MiniLM-L6-v2 export" in r.err
    fixed = enyal("model", "fetch", "--url", f"{mirror.url}/good", env=env)
    assert fixed.code == 0, fixed.err  # a failing file is fetched again without --force
    assert enyal("stats", env=env).code == 0


@pytest.mark.usefixtures("autostarted")
def test_nothing_downloads_at_run_time(home: Path, mirror: Server) -> None:
    home.mkdir()
    (home / "config.toml").write_text(f'[model]\nurl = "{mirror.url}/good"\n')
    mirror.requests.clear()
    assert enyal("remember", "a fact", "--scope", "global", env=env_for(home)).code == 0
    assert enyal("recall", "fact", env=env_for(home)).code == 0
    assert mirror.requests == []
