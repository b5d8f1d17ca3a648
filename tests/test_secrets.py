"""Secrets never stored (issue 10): the detector on its corpus of fake secrets and of
benign look-alikes (tests/data/secrets/, written by generate.py there).

The corpus was written alongside the rules, so its rates are a floor against
regressions, not a measure of unseen text; scripts/eval_secrets prints them per kind
with timings."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from enyal_daemon.hygiene.secrets import (
    RULES,
    Redactor,
    custom_rule,
    merge_found,
    redact,
    redact_metadata,
    redact_tags,
)

DATA = Path(__file__).parent / "data" / "secrets"


def load(name: str) -> list[dict[str, Any]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


POSITIVES = load("positives.jsonl")
BENIGN = load("benign.jsonl")


def secrets_of(row: dict[str, Any]) -> list[str]:
    s = row["secret"]
    return [s] if isinstance(s, str) else list(s)


def caught(row: dict[str, Any]) -> bool:
    r = redact(row["text"])
    return all(s not in r.text for s in secrets_of(row)) and set(row["kinds"]) <= set(r.found)


def test_corpus_size_and_spread() -> None:
    assert len(POSITIVES) >= 120 and len(BENIGN) >= 60
    kinds = {k for row in POSITIVES for k in row["kinds"]}
    assert len(kinds) >= 40, sorted(kinds)
    assert len(RULES) >= 50  # formats, several of which share a kind


def test_rates() -> None:
    detected = sum(caught(row) for row in POSITIVES) / len(POSITIVES)
    altered = [row["text"] for row in BENIGN if redact(row["text"]).text != row["text"]]
    false_positive_rate = len(altered) / len(BENIGN)
    print(
        f"\nsecrets: detection {detected:.1%} of {len(POSITIVES)} positives, "
        f"false positives {false_positive_rate:.1%} of {len(BENIGN)} benign"
    )
    assert detected >= 0.98
    assert altered == []


@pytest.mark.parametrize("row", POSITIVES, ids=lambda r: ",".join(r["kinds"]))
def test_each_positive(row: dict[str, Any]) -> None:
    r = redact(row["text"])
    for secret in secrets_of(row):
        assert secret not in r.text
    assert set(row["kinds"]) <= set(r.found)
    # Counts say kinds and numbers only: no found key or value carries the secret.
    assert all(re.fullmatch(r"[a-z0-9-]+", k) and isinstance(n, int) for k, n in r.found.items())
    assert not any(s in json.dumps(r.found) for s in secrets_of(row))
    # Each placeholder is typed by a kind the result reports.
    assert set(re.findall(r"\[REDACTED:([a-z0-9-]+)\]", r.text)) == set(r.found)
    assert sum(r.found.values()) == r.text.count("[REDACTED:")


@pytest.mark.parametrize("row", BENIGN, ids=lambda r: r["why"])
def test_each_benign_unchanged(row: dict[str, Any]) -> None:
    r = redact(row["text"])
    assert r.text == row["text"]
    assert r.found == {} and not r.changed


@pytest.mark.parametrize("row", POSITIVES[::7] + BENIGN[::7])
def test_idempotent(row: dict[str, Any]) -> None:
    once = redact(row["text"])
    twice = redact(once.text)
    assert twice.text == once.text
    assert twice.found == {}


def test_only_the_secret_part_goes() -> None:
    r = redact("staging: postgres://app:Zq8!vR2mK0pW@db:5432/x (read/write)")
    assert r.text == "staging: postgres://app:[REDACTED:url-password]@db:5432/x (read/write)"
    assert r.found == {"url-password": 1}
    r = redact(
        "DB_PASSWORD=Zq8vR2mK0pW1 and GITHUB_TOKEN=ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    )
    assert r.text == "DB_PASSWORD=[REDACTED:password] and GITHUB_TOKEN=[REDACTED:github-token]"
    assert r.found == {"github-token": 1, "password": 1}


def test_counts_add_up() -> None:
    keys = ["ghp_" + c * 2 + "Xy7Qm2Lp9Rt4Vw6Zb8Nc1Jd3Hf5Gk0Ms2P" for c in "abc"]
    r = redact(" ".join(f"token {i}: {k}" for i, k in enumerate(keys)))
    assert r.found == {"github-token": 3}
    assert merge_found({"a": 1}, {"a": 2, "b": 1}) == {"a": 3, "b": 1}


def test_extra_rules() -> None:
    rule = custom_rule("acme-key", r"\bACME-(?P<secret>[0-9A-F]{16})\b", keywords=("acme-",))
    text = "internal key ACME-0123456789ABCDEF for the billing API"
    assert redact(text).text == text  # not a built-in format
    r = redact(text, extra_rules=[rule])
    assert r.text == "internal key ACME-[REDACTED:acme-key] for the billing API"
    assert r.found == {"acme-key": 1}
    # Without a `secret` group the whole match goes.
    whole = custom_rule("ticket-secret", r"TKS_[a-z0-9]{12}")
    assert redact("x TKS_ab12cd34ef56 y", [whole]).text == "x [REDACTED:ticket-secret] y"
    with pytest.raises(ValueError):
        custom_rule("Bad Kind", "x")


def test_allow_list() -> None:
    token = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
    text = f"the demo repo's throwaway token {token} (revoked)"
    assert redact(text).found == {"github-token": 1}
    kept = redact(text, allow=[token])
    assert kept.text == text and kept.found == {}
    # The allow-list is by value: another token in the same text still goes.
    other = "ghp_" + "Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0Kk1Ll2"
    r = Redactor(allow=[token]).redact(f"{text} and {other}")
    assert token in r.text and other not in r.text


def test_aws_documentation_examples_are_kept() -> None:
    text = "docs: AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert redact(text).text == text


def test_tags_and_metadata() -> None:
    gh = "ghp_" + "Mn4Bv6Cx8Zl1Kj3Hg5Fd7Sa9Qw2Er4Ty6Ui8O"
    tags, found = redact_tags(["deploy", f"token:{gh}", "ci"])
    assert tags == ["deploy", "token:[REDACTED:github-token]", "ci"]
    assert found == {"github-token": 1}
    # Each tag's redaction is kept (secrets.Redactor._tag): the same again, counted again
    tags, found = redact_tags([f"token:{gh}", "deploy", f"token:{gh}"])
    assert tags == ["token:[REDACTED:github-token]", "deploy", "token:[REDACTED:github-token]"]
    assert found == {"github-token": 2}

    meta = {
        "ticket": "ENG-12",
        "db": {"password": "hunter2!x", "host": "db.internal", "port": 5432},
        "env": ["A=1", f"GITHUB_TOKEN={gh}"],
        "api_key": "${API_KEY}",
        f"note {gh}": True,
        "reviewed": True,
        "count": 3,
        "none": None,
    }
    out, found = redact_metadata(meta)
    assert out["ticket"] == "ENG-12"
    assert out["db"] == {"password": "[REDACTED:password]", "host": "db.internal", "port": 5432}
    assert out["env"] == ["A=1", "GITHUB_TOKEN=[REDACTED:github-token]"]
    assert out["api_key"] == "${API_KEY}"  # a placeholder, not a secret
    assert "note [REDACTED:github-token]" in out
    assert out["reviewed"] is True and out["count"] == 3 and out["none"] is None
    assert found == {"github-token": 2, "password": 1}
    assert gh not in json.dumps(out)
    # Metadata is not modified in place, and a second pass finds nothing.
    assert meta["db"]["password"] == "hunter2!x"  # type: ignore[index]
    assert redact_metadata(out) == (out, {})


def test_placeholders_are_not_matched_inside_or_across() -> None:
    for text in (
        "password=[REDACTED:password]",
        "postgres://app:[REDACTED:url-password]@db/x",
        "api key is [REDACTED:high-entropy-secret] and token: [REDACTED:token]",
    ):
        assert redact(text).text == text


def test_speed() -> None:
    """Well under a millisecond for a typical memory (about 500 characters)."""
    memory = (
        "Decided to keep the retry logic in the HTTP client rather than the service layer: "
        "the token refresh happens there and moving it would duplicate the backoff. The "
        "staging database is reached through the bastion; see docs/ops.md for the tunnel. "
        "Tests for the auth middleware live in tests/test_auth.py and need the fake IdP "
        "fixture. Commit 3f9a1c2 added the secret rotation job; it runs nightly at 02:00 "
        "UTC and posts to #ops. Remember: pydantic 2.8 changed the validator signature."
    )
    redact(memory)
    times = []
    for _ in range(300):
        start = time.perf_counter()
        redact(memory)
        times.append(time.perf_counter() - start)
    times.sort()
    median = times[len(times) // 2]
    print(f"\nredact: median {median * 1e6:.0f} µs for {len(memory)} characters")
    # Generous for slow CI machines; typical figures are ~0.1 ms.
    assert median < 0.002


# --- issue 24: the held-out corpus of real-format secrets (scripts/data/secrets_heldout) ---

HELDOUT = Path(__file__).parent.parent / "scripts" / "data" / "secrets_heldout" / "samples.jsonl"
HELDOUT_ROWS = [json.loads(line) for line in HELDOUT.read_text(encoding="utf-8").splitlines()]


def test_heldout_corpus_secrets_never_kept_and_lookalikes_mostly_untouched() -> None:
    """The issue's goal, on the half never looked at while the rules were tuned: no
    secret stored verbatim, at most 2 of 58 look-alikes altered (scaled to the half)."""
    rows = [r for r in HELDOUT_ROWS if r["half"] == "heldout"]
    secrets = [r for r in rows if r["label"] == "secret"]
    lookalikes = [r for r in rows if r["label"] == "lookalike"]
    assert len(secrets) >= 40 and len(lookalikes) >= 25
    verbatim = [r["text"] for r in secrets if any(s in redact(r["text"]).text for s in r["secret"])]
    altered = [r["text"] for r in lookalikes if redact(r["text"]).text != r["text"]]
    print(f"\nheld-out half: {len(verbatim)}/{len(secrets)} verbatim, {len(altered)} altered")
    assert verbatim == []
    assert len(altered) / len(lookalikes) <= 2 / 58


def test_pragma_allowlist_secret_keeps_its_line_only() -> None:
    key = "ghp_" + "Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0Lz9Xc8Vb7N"
    other = "ghp_" + "Mn1Bv2Cx3Zl4Kj5Hg6Fd7Sa8Qw9Er0Ty1Ui2O"
    line = f"FAKE_TOKEN = '{key}'  # pragma: allowlist secret"
    assert redact(line).text == line
    r = redact(f"{line}\nREAL_TOKEN = '{other}'")
    assert key in r.text and other not in r.text and r.found == {"github-token": 1}
    # detect-secrets' nextline form exempts the line after the comment.
    r = redact(f"# pragma: allowlist nextline secret\nTOKEN={key}\nTOKEN2={other}")
    assert key in r.text and other not in r.text
    # Without the pragma the same line is redacted.
    assert key not in redact(line.split("  #")[0]).text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("the staging db password is Zq8!vLm2#Rt5", "Zq8!vLm2#Rt5"),
        ("staging db pass: Zq8vLm2Rt5xx", "Zq8vLm2Rt5xx"),
        ("root pw Kx81mQ2vz9 on the old box", "Kx81mQ2vz9"),
        ("pwd hunter22 for the admin panel", "hunter22"),
        ("password for grafana: Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("Login as admin with password letmein42.", "letmein42"),
        ("use Qx7!pLm2 as the password for the vpn", "Qx7!pLm2"),
        ("password for the build vault: `hKzPqWmRtY`", "hKzPqWmRtY"),
        ("the test account is dev@acme.io / Pq9#zzLm", "Pq9#zzLm"),
        ("I set the password to Vb8%kLm2q yesterday", "Vb8%kLm2q"),
    ],
)
def test_passwords_in_prose(text: str, secret: str) -> None:
    r = redact(text)
    assert secret not in r.text and r.found == {"password": 1}


@pytest.mark.parametrize(
    "text",
    [
        "the password policy is strict: 14 characters minimum",
        "password reset flow sends a signed link",
        "the password is in the team vault, not here",
        "pass: see 1Password vault 'staging'",
        "pwd shows /home/dev/src/enyal in the hook's env",
        "Passwords are hashed with bcrypt (cost 12).",
        "the pass rate went from 91% to 97.5% after the fix",
        "set the password to expire after 90 days",
        "use 1Password as the password manager",
        "password for the vault: `see-the-runbook`",
        "mail alice@acme.io / bob@acme.io about the outage",
    ],
)
def test_prose_about_passwords_is_kept(text: str) -> None:
    assert redact(text).text == text


def test_account_and_password_pair() -> None:
    r = redact("Jenkins admin / gFzIO7@86 on ci.internal")
    assert "gFzIO7@86" not in r.text and r.found == {"password": 1}
    for text in ("read/write", "admin / settings page", "see src / main / app.py", "user / v2.1"):
        assert redact(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "GET /api/recall?query=which+linter+do+we+use&limit=3 answers in 40 ms",
        "run stripe listen --forward-to localhost:8040/v1/webhooks/stripe first",
        "COMMIT_SHA=3f9a1c2b7d4e5f60718293a4b5c6d7e8f9012345",
        "PROJECT_ID=0f165600-7d24-437a-826b-3c87398d4017",
        '{"nodeId": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", "fullName": "octocat/Hello-World"}',
        'INT8 = "all-MiniLM-L6-v2/onnx-int8"',
        # Code and data files people paste into notes (found by redacting the lines of
        # installed packages: these were altered before the fixes that keep them).
        "TestVFS.xCurrentTime = TestVFS.xCurrentTime1",
        "Argon2d = rust_openssl.kdf.Argon2d",
        "KERNEL32.ReOpenFile.argtypes = [wintypes.HANDLE, wintypes.DWORD]",
        '"Cryptography_HAS_TLSv1_3_FUNCTIONS": cryptography_has_tls_v1_3_functions,',
        "parser = make_f2py_compile_parser()",
        "values = imputed_value_int64s",
        '"meta4": "application/metalink4+xml",',
        'UNRESERVED = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"',
        "group_order = 0x8CB91E82A3386D280F5D6F7E50E641DF152F7109ED5456B31F166E6CAC0425A7",
        '...     collection_slug="username/iccv-2023-64f9a55bb3115b4f513ec026",',
        '...     model="HuggingFaceH4/zephyr-orpo-141b-A35b-v0.1",',
        "[![CI](https://github.com/a/b/actions?query=event%3Apush+branch%3Amain+workflow%3ACI)]",
        "- uses: astral-sh/ruff-action@v3",
        "Pass `verbosity=0` to get a shorter report.",
        "return BasicAuth(username=auth[0], password=auth[1])",
        'password = enforce_bytes(proxy_auth[1], name="proxy_auth")',
        "units = {energy: kilogram*meter**2/second**2, mass: kilogram}",
        "v1 = x1*frame_a.x+x2*frame_a.y+x3*frame_a.z",
        "tendon_force_length=TendonForceLengthDeGroote2016,",
        "obj.dtype = _float8_e4m3b11fnuz_dtype",
        "ir.DataType.FLOAT8E4M3FNUZ: torch.float8_e4m3fnuz,",
        '"s2clientprotocol": "types-s2clientprotocol",',
        '"DBProxyArn": "arn:aws:rds:us-east-1:123456789012:db-proxy:prx-0123a01b12345c0ab",',
        '"AlarmName": "TargetTracking-service/default/web-app-AlarmLow-1b437334-d19b-4a63",',
        '"Id": "dt_2xVInRKCfUzQHgxosDs9hiLk1AB",',
        "fun:_ZN4node16NodeMainInstance21CreateMainEnvironmentEPi",
        "o LANG-1027: org.apache.commons.lang3.SystemUtils#isJavaVersionAtLeast should",
        "= vendor/github.com/evanphx/json-patch/LICENSE 96ae735ca1b4dcdb6b26f4ca4b8ba645",
        '"Endpoint": "search-cli-example-1-1a2a3a4a5a6a7a8a9a0a.us-east-1.es.amazonaws.com",',
        '"vulnerable-dep": "github:username/patched-fork#v2.0.1"',
        "s390x/msa_x2/aes256-set-encrypt-key.asm s390x/msa_x2/sha512-compress.asm",
        # A certificate body pasted without its header: wrapped base64, not a key.
        "MIICiTCCAfICCQD6m7oRw0uXOjANBgkqhkiG9w0BAQUFADCBiDELMAkGA1UEBhMC\n"
        "VVMxCzAJBgNVBAgTAldBMRAwDgYDVQQHEwdTZWF0dGxlMQ8wDQYDVQQKEwZBbWF6\n"
        "b24xFDASBgNVBAsTC0lBTSBDb25zb2xlMRIwEAYDVQQDEwlUZXN0Q2lsYWMxHzAd",
        "MODEL=meta-llama/Llama-3.1-8B-Instruct-Q4_K_M",
        "The jwt.io sample eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmF"
        "tZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ],
)
def test_config_and_urls_that_look_assigned_are_kept(text: str) -> None:
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "[service]\nauth_blob = wNmm26LXTZTl0JPa1onMy3qZX0OfhESK",
            "wNmm26LXTZTl0JPa1onMy3qZX0OfhESK",
        ),
        ("echo 'MAPS_CLIENT=K0g1qntZXVT083RTmWRCAvSdtB-k' >> .env", "K0g1qntZXVT083RTmWRCAvSdtB-k"),
        (
            "prod.env: DD_SITE_KEY=0a9f3c2e1b7d4a5f8e6c9b2a1d3f5e7c",
            "0a9f3c2e1b7d4a5f8e6c9b2a1d3f5e7c",
        ),
        (
            "saw Xk29fLq8ZpR3vN7wYb2cT5mH0jD4sG6e in the crash dump",
            "Xk29fLq8ZpR3vN7wYb2cT5mH0jD4sG6e",
        ),
        # One line of base64 alone is a key, not a block.
        (
            "signing:\nUvImZaYMEtKJGF2VDuiBNgkWb2sRPReNbA/TkB/yOaGglfIPk5VlDPk4C47bIkpr",
            "UvImZaYMEtKJGF2VDuiBNgkWb2sRPReNbA/TkB/yOaGglfIPk5VlDPk4C47bIkpr",
        ),
        (
            "AKIAFU0Y8570ZOSTXSJV / icHb1ZYLI5WVObYc97ivDqB5rwgokgEd+gxQNnxo",
            "icHb1ZYLI5WVObYc97ivDqB5rwgokgEd+gxQNnxo",
        ),
    ],
)
def test_random_values_without_a_secret_word(text: str, secret: str) -> None:
    assert secret not in redact(text).text
