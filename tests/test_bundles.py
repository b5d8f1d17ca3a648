"""How Enyal is installed besides pip (issue 29): the MCP Bundle for Claude Desktop
(scripts/build_mcpb) and the MCP Registry's server.json at the repository's root.

Each is validated offline against its published schema, stored in tests/data (the
MCPB manifest 0.3 schema from npm's @anthropic-ai/mcpb, the registry's server.json
schema), and the bundle with the real `mcpb` CLI where scripts/install.sh put it
(.tools/mcpb). What they run is run: the bundle's launcher and `enyal mcp serve`
answer an MCP initialize."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import BIN
from enyal_client.mcp.tools import TOOLS
from enyal_protocol import __version__

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
MCPB = ROOT / ".tools" / "mcpb" / "node_modules" / ".bin" / "mcpb"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}


def errors(schema_file: Path, document: Any) -> list[str]:
    schema = json.loads(schema_file.read_text())
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    return [e.message for e in validator.iter_errors(document)]


def initialize(command: list[str], env: dict[str, str]) -> Any:
    if "PYTHONPATH" in os.environ:  # the server runs this tree's code
        env = {**env, "PYTHONPATH": os.environ["PYTHONPATH"]}
    r = subprocess.run(
        command,
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[0])


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mcpb")
    r = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_mcpb"), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return Path(r.stdout.strip().splitlines()[-1])


def test_the_bundle_manifest_is_valid_and_says_what_the_shim_offers(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as z:
        assert {"manifest.json", "server/launch.py"} <= set(z.namelist())
        manifest = json.loads(z.read("manifest.json"))
    schema = DATA / "mcpb" / "manifest-v0.3.schema.json"
    assert errors(schema, manifest) == []
    assert manifest["version"] == __version__
    assert [t["name"] for t in manifest["tools"]] == [t.name for t in TOOLS]
    # The schema does hold: a manifest without its server fails it.
    assert errors(schema, {k: v for k, v in manifest.items() if k != "server"})


@pytest.mark.skipif(not MCPB.exists(), reason=f"mcpb is not at {MCPB} (scripts/install.sh)")
def test_mcpb_validates_and_reads_the_bundle(bundle: Path, tmp_path: Path) -> None:
    def mcpb(*args: str) -> str:
        r = subprocess.run([str(MCPB), *args], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout

    # The packed file, as Claude Desktop gets it: unpacked by mcpb, its manifest valid.
    mcpb("unpack", str(bundle), str(tmp_path / "out"))
    assert "validation passes" in mcpb("validate", str(tmp_path / "out" / "manifest.json"))
    assert (tmp_path / "out" / "server" / "launch.py").is_file()


def test_the_bundle_runs_the_installed_enyal_mcp(bundle: Path, home: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(bundle) as z:
        z.extractall(tmp_path / "unpacked")
    launch = tmp_path / "unpacked" / "server" / "launch.py"
    base = {"HOME": str(tmp_path / "user"), "ENYAL_HOME": str(home), "PATH": "/usr/bin:/bin"}
    reply = initialize([sys.executable, str(launch)], {**base, "ENYAL_MCP": str(BIN / "enyal-mcp")})
    assert reply["result"]["serverInfo"]["name"] == "enyal"
    missing = subprocess.run(
        [sys.executable, str(launch)],
        capture_output=True,
        text=True,
        env={**base, "PATH": "/nowhere"},
    )
    assert missing.returncode == 1 and "enyal-mcp was not found" in missing.stderr


def test_server_json_is_valid_and_runs_enyal_mcp_serve(home: Path, tmp_path: Path) -> None:
    server = json.loads((ROOT / "server.json").read_text())
    schema = DATA / "mcp-registry" / "server.schema.json"
    assert errors(schema, server) == []
    assert server["$schema"] == json.loads(schema.read_text())["$id"]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (package,) = server["packages"]
    assert server["version"] == package["version"] == project["version"] == __version__
    assert package["identifier"] == project["name"]
    broken = {**server, "name": "enyal", "packages": [{**package, "version": "latest"}]}
    assert len(errors(schema, broken)) == 2
    # What a client runs from it: the package's command with those arguments.
    args = [a["value"] for a in package["packageArguments"]]
    env = {"HOME": str(tmp_path), "ENYAL_HOME": str(home), "PATH": "/usr/bin:/bin"}
    reply = initialize([str(BIN / "enyal"), *args], env)
    assert reply["result"]["serverInfo"]["name"] == "enyal"
