"""The shared PostgreSQL fixture: skips locally, fails in CI, finds the installed server."""

from __future__ import annotations

import pytest
from awaken_contract.testing import postgres as pg


def test_unavailable_skips_without_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no server"):
        pg._unavailable("no server")


def test_unavailable_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception, match="PostgreSQL required in CI: no server"):
        pg._unavailable("no server")


def test_finds_installed_binaries() -> None:
    bindir = pg.find_postgres_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL server binaries are not installed here")
    assert (bindir / "initdb").exists() and (bindir / "pg_ctl").exists()
