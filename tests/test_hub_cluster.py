"""The hub's tests need PostgreSQL's binaries. Without them they skip (a developer's
machine), except where ENYAL_REQUIRE_PG=1 says they must run (CI: .ci/run sets it, and
scripts/test installs Debian's postgresql): there a missing initdb fails here, by name,
instead of every hub test quietly skipping."""

from __future__ import annotations

import os

import pytest

from harnesslib.pg_cluster import pg_bin


def test_postgresql_is_there_when_the_hub_tests_are_required() -> None:
    found = pg_bin()
    if os.environ.get("ENYAL_REQUIRE_PG") != "1":
        pytest.skip("ENYAL_REQUIRE_PG is not 1: the hub's tests may skip here")
    assert found is not None, "ENYAL_REQUIRE_PG=1 but no initdb: apt-get install postgresql"
    assert (found / "initdb").is_file() and (found / "pg_ctl").is_file()
