"""`--json` means one JSON document on stdout, whatever happens (issue 24): usage errors
argparse finds, values the protocol's types refuse, values the daemon refuses and
errors from Enyal each print {"error": {code, message}} there, besides the message on
stderr and the exit code (2 usage, 1 error). `enyal --version` says the release. And a
time to live of zero is refused by the daemon, not taken as "delete at once"."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from daemon_support import RunningDaemon
from enyal_client.transport import RpcError
from enyal_protocol import __version__
from enyal_protocol import wire as p


def one_error(out: str) -> dict[str, object]:
    """The single JSON document on stdout, which must be an error."""
    doc = json.loads(out)  # fails on nothing, on text, or on two documents
    assert set(doc) == {"error"} and doc["error"]["message"], doc
    return dict(doc["error"])


@pytest.mark.parametrize(
    "argv",
    [
        ["--json"],  # no verb
        ["--json", "bogus"],  # no such verb
        ["remember", "--json"],  # a required argument missing
        ["recall", "x", "--limit", "abc", "--json"],  # a value argparse refuses
        ["remember", "x", "--ttl", "5x", "--json"],  # a value the wire types refuse
        ["export", "--project", "/tmp", "--json"],  # a mistake only the verb sees
    ],
)
def test_a_usage_error_with_json_prints_one_error_document(argv: list[str]) -> None:
    r = run_cli(*argv)
    assert r.code == 2, r
    one_error(r.out)
    assert r.err.strip(), "the message is still on stderr for people"


def test_usage_errors_without_json_print_nothing_on_stdout() -> None:
    r = run_cli("bogus")
    assert r.code == 2 and r.out == "" and "bogus" in r.err


def test_help_with_json_is_one_document_too() -> None:
    r = run_cli("remember", "--help", "--json")
    assert r.code == 0 and "usage: enyal remember" in json.loads(r.out)["help"]
    plain = run_cli("remember", "--help")
    assert plain.code == 0 and plain.out.startswith("usage: enyal remember")


def test_version() -> None:
    r = run_cli("--version")
    assert (r.code, r.out.strip()) == (0, f"enyal {__version__}")
    j = run_cli("--version", "--json")
    assert j.code == 0 and json.loads(j.out) == {"version": __version__}


@pytest.mark.usefixtures("autostarted")
def test_errors_from_enyal_with_json_print_one_error_document() -> None:
    r = run_cli("get", "no-such-entry", "--json")
    assert r.code == 1
    assert one_error(r.out)["code"] == p.NOT_FOUND


@pytest.mark.parametrize("ttl", ["0m", "0s", "000d"])
def test_a_ttl_of_zero_is_refused(d: RunningDaemon, ttl: str) -> None:
    with pytest.raises(RpcError) as err:
        d.call("remember", {"content": "Scratch note.", "scope": "global", "ttl": ttl})
    assert err.value.code == p.INVALID_VALUE and "ttl" in err.value.message
    assert d.call("list", {})["entries"] == [], "nothing was stored"
    made = d.call("remember", {"content": "Kept note.", "scope": "global"})
    with pytest.raises(RpcError):
        d.call("update", {"id": made["id"], "ttl": ttl})
    assert d.call("get", {"id": made["id"]})["expires_at"] is None
    r = run_cli("remember", "Scratch note.", "--ttl", ttl, "--json")
    assert r.code == 2 and "ttl" in str(one_error(r.out)["message"])
