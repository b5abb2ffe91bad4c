"""Fixtures of the awaken-stores tests."""

from awaken_contract.testing.postgres import postgres_dsn

__all__ = ["postgres_dsn"]
