"""Shared fixtures of the repository-level tests (conformance, e2e)."""

from awaken_contract.testing.postgres import postgres_dsn

__all__ = ["postgres_dsn"]
