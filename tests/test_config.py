"""config.toml with ENYAL_* over it, `enyal config show`, and `enyal mcp config`."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.embedder.model_files import packaged_tokenizer
from enyal_protocol import config
from service_support import BIN, env_for, enyal


def _show(env: dict[str, str]) -> dict[str, dict[str, object]]:
    r = enyal("config", "show", "--json", env=env)
    assert r.code == 0, r.err
    return {k["key"]: k for k in r.json()["keys"]}


def test_defaults_without_a_file(home: Path) -> None:
    keys = _show(env_for(home))
    assert list(keys) == [k.name for k in config.KEYS]
    assert {k["source"] for k in keys.values()} == {"default"}
    assert keys["daemon.idle_timeout"]["value"] == 900.0
    assert keys["model.url"]["value"] == (
        "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/main"
    )


def test_file_values_and_env_overrides_with_their_sources(home: Path) -> None:
    home.mkdir()
    (home / "config.toml").write_text(
        '[daemon]\nidle_timeout = 60\nlog_level = "debug"\n[model]\nurl = "https://mirror.example/m/"\n'
    )
    keys = _show(env_for(home, ENYAL_LOG_LEVEL="warning"))
    assert keys["daemon.idle_timeout"]["value"] == 60.0
    assert keys["daemon.idle_timeout"]["from"] == str(home / "config.toml")
    assert keys["daemon.log_level"]["value"] == "WARNING"
    assert keys["daemon.log_level"]["from"] == "env ENYAL_LOG_LEVEL"
    assert keys["model.url"]["value"] == "https://mirror.example/m"
    assert keys["model.dir"]["source"] == "default"
    text = enyal("config", env=env_for(home, ENYAL_LOG_LEVEL="warning")).out
    assert re.search(r'^daemon\.log_level +=\s"WARNING"', text, re.M), text  # keys aligned
    assert "# env ENYAL_LOG_LEVEL" in text
    assert enyal("config", "path", env=env_for(home)).out.strip() == str(home / "config.toml")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[daemon]\nidle_timout = 5\n", "unknown key 'daemon.idle_timout'"),
        ("[daemon]\nidle_timeout = -1\n", "daemon.idle_timeout must be a number of seconds"),
        ("[daemon\n", "config.toml: "),
        ("idle_timeout = 5\n", "'idle_timeout' must be a [section]"),
        ("[decay]\nfact = 0\n", "decay.fact must be a number of days, more than 0"),
        ("[decay]\nfact = true\n", "decay.fact must be a number of days"),
        ("[decay]\nrumour = 3\n", "unknown key 'decay.rumour'"),
        ("[consolidate]\nevery_hours = -2\n", "consolidate.every_hours must be a number of hours"),
    ],
)
def test_a_bad_file_is_refused_naming_the_key(home: Path, toml: str, message: str) -> None:
    home.mkdir()
    (home / "config.toml").write_text(toml)
    r = enyal("config", "show", env=env_for(home))
    assert r.code == 1 and message in r.err


def test_a_bad_env_value_names_the_variable(home: Path) -> None:
    r = enyal("config", "show", env=env_for(home, ENYAL_IDLE_TIMEOUT="soon"))
    assert r.code == 1 and "ENYAL_IDLE_TIMEOUT must be a number of seconds" in r.err


def test_model_dir_from_the_file_reaches_the_model_locator(home: Path, tmp_path: Path) -> None:
    # Keys read through the environment by deeper modules get the file's value too.
    from enyal_daemon.embedder.model_files import locate

    src = locate(Path("/nonexistent"))
    mine = tmp_path / "my model"
    mine.mkdir()
    shutil.copy(src.model, mine / "model.onnx")
    shutil.copy(packaged_tokenizer(), mine / "tokenizer.json")
    home.mkdir()
    (home / "config.toml").write_text(f'[model]\ndir = "{mine}"\n')
    r = enyal("model", "path", "--json", env=env_for(home))
    assert r.code == 0, r.err
    assert r.json()["source"] == "ENYAL_MODEL_DIR"
    assert r.json()["model"] == str(mine / "model.onnx")


# --- enyal mcp config ---------------------------------------------------------------------


def test_mcp_config_prints_the_entry_with_absolute_paths(home: Path, tmp_path: Path) -> None:
    env = env_for(home, HOME=str(tmp_path / "user"))
    r = enyal("mcp", "config", "--client", "claude-code", env=env)
    assert r.code == 0, r.err
    assert f"# add to {tmp_path / 'user' / '.claude.json'}" in r.out
    mcp = BIN / "enyal-mcp"
    assert f"claude mcp add --scope user enyal --env=ENYAL_HOME={home} -- {mcp}" in r.out
    j = enyal("mcp", "config", "--client", "cursor", "--json", env=env).json()
    assert j["file"] == str(tmp_path / "user" / ".cursor" / "mcp.json")
    entry = {"command": str(mcp), "args": [], "env": {"ENYAL_HOME": str(home)}}
    assert j["config"] == {"mcpServers": {"enyal": entry}}
    assert not (tmp_path / "user").exists()  # printing changes nothing


def test_mcp_config_install_merges_keeps_the_rest_and_backs_up(home: Path, tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    target = user / ".claude.json"
    before = {
        "numStartups": 3,
        "projects": {"/src/x": {"mcpServers": {"local": {"command": "x"}}}},
        "mcpServers": {"other": {"type": "stdio", "command": "/bin/other", "args": []}},
    }
    target.write_text(json.dumps(before))
    target.chmod(0o600)
    env = env_for(home, HOME=str(user))
    r = enyal("mcp", "config", "--client", "claude-code", "--install", "--json", env=env)
    assert r.code == 0, r.err
    res = r.json()
    assert res["action"] == "added"
    after = json.loads(target.read_text())
    assert after["numStartups"] == 3 and after["projects"] == before["projects"]
    assert after["mcpServers"]["other"] == before["mcpServers"]["other"]
    assert after["mcpServers"]["enyal"] == {
        "type": "stdio",
        "command": str(BIN / "enyal-mcp"),
        "args": [],
        "env": {"ENYAL_HOME": str(home)},
    }
    assert json.loads(Path(res["backup"]).read_text()) == before
    assert target.stat().st_mode & 0o777 == 0o600
    again = enyal("mcp", "config", "--client", "claude-code", "--install", "--json", env=env)
    assert again.json()["action"] == "unchanged" and again.json()["backup"] is None


def test_mcp_config_install_refuses_a_file_it_cannot_parse(home: Path, tmp_path: Path) -> None:
    user = tmp_path / "user"
    (user / ".cursor").mkdir(parents=True)
    target = user / ".cursor" / "mcp.json"
    target.write_text("{ not json")
    r = enyal("mcp", "config", "--client", "cursor", "--install", env=env_for(home, HOME=str(user)))
    assert r.code == 1 and "is not valid JSON" in r.err
    assert target.read_text() == "{ not json"
    assert [p.name for p in (user / ".cursor").iterdir()] == ["mcp.json"]


def test_mcp_config_install_creates_claude_desktops_file(home: Path, tmp_path: Path) -> None:
    user = tmp_path / "user"
    env = env_for(home, HOME=str(user), XDG_CONFIG_HOME=None)
    r = enyal("mcp", "config", "--client", "claude-desktop", "--install", "--json", env=env)
    assert r.code == 0, r.err
    path = Path(r.json()["file"])
    assert path.is_file() and r.json()["backup"] is None
    assert json.loads(path.read_text())["mcpServers"]["enyal"]["command"] == str(BIN / "enyal-mcp")


def test_show_prints_each_value_as_config_toml_would_hold_it(home: Path) -> None:
    """What `config show` prints can be pasted back into config.toml: TOML, not Python."""
    import tomllib

    home.mkdir()
    written = (
        '[secrets]\nallow = ["AKIAPUBLIC"]\n'
        'patterns = [{ kind = "acme", pattern = "acme_[a-z0-9]{20}", keywords = ["acme_"] }]\n'
        "[index]\nwatch = true\n"
    )
    (home / "config.toml").write_text(written)
    r = enyal("config", "show", env=env_for(home))
    assert r.code == 0, r.err
    shown = {}
    for line in r.out.splitlines()[1:]:
        m = re.match(r"([a-z_]+\.[a-z_]+) += (.*?) +# ", line)
        if m:
            shown[m.group(1)] = m.group(2)
    assert len(shown) == len(config.KEYS)
    assert shown["decay.fact"] == "(built in)"  # unset: the daemon's half-life applies
    section = tomllib.loads(written)
    for key, text in shown.items():
        if text == "(built in)":
            continue
        value = tomllib.loads(f"v = {text}")["v"]  # every other value parses as TOML
        group, name = key.split(".")
        if name in section.get(group, {}):
            assert value == section[group][name], key


def test_load_reads_the_environment_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config.load() runs on every hook; os.environ decodes each lookup (and raises inside
    for a name it lacks), so a load reads each ENYAL_* variable once, in one copy, and
    looks up no name that is unset; HOME once more, for the XDG folders (expanduser's
    check and read). It read every key's variable again, and HOME for each folder (0.3 ms
    a load). What it returns is what that copy gives. os.environ is wrapped only to
    count its reads; every read goes through to it."""
    from collections.abc import Iterator, Mapping

    for name in ("ENYAL_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ENYAL_LOG_LEVEL", "DEBUG")
    real = dict(__import__("os").environ)

    reads: list[str] = []

    class Counted(Mapping[str, str]):
        def __getitem__(self, name: str) -> str:
            reads.append(name)
            return real[name]

        def __iter__(self) -> Iterator[str]:
            return iter(real)

        def __len__(self) -> int:
            return len(real)

    with monkeypatch.context() as m:  # undone before pytest sets its own variable
        m.setattr("os.environ", Counted())
        loaded = config.load()
    enyal = [name for name in reads if name.startswith("ENYAL_")]
    assert enyal == [name for name in real if name.startswith("ENYAL_")], reads
    assert reads.count("HOME") <= 3, reads
    assert loaded == config.load(None, real)
    assert loaded.get("daemon.log_level") == "DEBUG"
    assert loaded.file == str(tmp_path / ".config" / "enyal" / "config.toml")


def test_current_reuses_its_load_until_the_file_or_the_environment_changes(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook event in a long-lived process (the daemon's HTTP endpoint, the MCP shim)
    takes the config from config.current(): loaded once, loaded again only once
    config.toml (its stat) or the environment changed. Loads are counted by wrapping
    config.load, which still does the loading."""
    monkeypatch.setenv("ENYAL_HOME", str(home))
    monkeypatch.delenv("ENYAL_LOG_LEVEL", raising=False)
    loads: list[object] = []
    real = config.load

    def counted(*a: Any, **k: Any) -> config.Config:
        loads.append(a)
        return real(*a, **k)

    monkeypatch.setattr(config, "load", counted)
    first = config.current()
    assert config.current() is first and len(loads) == 1
    assert not first.file_exists and first.hook_enabled("prompt-submit")
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text("[hooks]\nprompt_submit = false\n")
    off = config.current()
    assert not off.hook_enabled("prompt-submit") and len(loads) == 2
    assert config.current() is off and len(loads) == 2
    (home / "config.toml").write_text("[hooks]\nprompt_submit = true\n\n")  # another size
    assert config.current().hook_enabled("prompt-submit") and len(loads) == 3
    monkeypatch.setenv("ENYAL_LOG_LEVEL", "warning")
    assert config.current().get("daemon.log_level") == "WARNING" and len(loads) == 4
