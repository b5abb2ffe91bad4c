"""The shared id rule (``awaken_contract.ids``) as the stores apply it: ``StorageIoError``."""

from __future__ import annotations

from awaken_contract.errors import StorageIoError
from awaken_contract.ids import id_problem

__all__ = ["validate_id"]


def validate_id(label: str, value: str) -> str:
    """``value`` when it follows the shared id rule, else ``StorageIoError("<label> <why>")``.

    The file store names files after ids and the SQLite store keys rows by them; both apply the
    same rule, so every store accepts (and lists) the same ids."""
    problem = id_problem(value)
    if problem is not None:
        raise StorageIoError(f"{label} {problem}")
    return value
