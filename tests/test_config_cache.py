"""config.toml is parsed once and kept as JSON in the cache folder (enyal_protocol/
config_cache.py: tomllib's import costs a command hook 43 M instructions), and the cache
never answers for a file that changed: the same size and the same second included."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from enyal_protocol import config, config_cache
from enyal_protocol.paths import resolve


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache folder of this test's (conftest's is the session's, shared)."""
    monkeypatch.setenv("ENYAL_CACHE_DIR", str(tmp_path / "cache"))


def write(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)
    return home / "config.toml"


def test_a_changed_file_is_read_again(home: Path) -> None:
    paths = resolve()
    paths.cache_dir.mkdir(parents=True, exist_ok=True)
    file = write(home, "[recall]\nfloor = 0.3\n")
    assert config.load().min_relevance == 0.3
    entry = config_cache.entry_path(paths.cache_dir, file)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert config.load().min_relevance == 0.3  # from the cache
    entry.write_text(entry.read_text().replace("0.3", "0.9"))  # as if planted
    entry.chmod(0o666)
    assert config.load().min_relevance == 0.3  # others could write it: not trusted
    entry.chmod(0o600)
    assert config.load().min_relevance == 0.3  # rewritten from the file
    before = file.stat()
    file.write_text("[recall]\nfloor = 0.4\n")  # same size, likely the same second
    os.utime(file, ns=(before.st_atime_ns, before.st_mtime_ns))  # even the same mtime
    assert config.load().min_relevance == 0.4  # its change time and inode still tell
    file.unlink()
    write(home, "[recall]\nfloor = 0.5\n")  # replaced, as editors save
    assert config.load().min_relevance == 0.5
    file.write_text("[recall]\nfloor = \n")
    for _ in range(2):  # a broken file is refused every time, never cached
        with pytest.raises(config.ConfigError, match=r"config\.toml"):
            config.load()


def test_without_a_cache_folder_it_parses_and_writes_nothing(home: Path) -> None:
    paths = resolve()
    write(home, "[recall]\nrelative = 0.25\n")
    assert not paths.cache_dir.exists()
    assert config.load().min_relative == 0.25
    assert not paths.cache_dir.exists()


def test_the_second_client_imports_no_tomllib(home: Path) -> None:
    """What the cache is for: a command hook's (or `enyal recall`'s) config read after the
    first imports no tomllib, in a fresh interpreter where sys.modules tells the truth."""
    resolve().cache_dir.mkdir(parents=True, exist_ok=True)
    write(home, "[hooks]\npre_tool_use = false\n")
    code = (
        "import sys\nfrom enyal_protocol import config\n"
        "print(config.load().hook_enabled('pre-tool-use'), 'tomllib' in sys.modules)"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)]
    runs.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True))
    assert [r.stdout.split() for r in runs] == [["False", "True"], ["False", "False"]], runs
