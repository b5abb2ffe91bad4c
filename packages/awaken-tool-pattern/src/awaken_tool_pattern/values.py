"""The string form of a JSON value that patterns compare against."""

from __future__ import annotations

import json
from typing import Any


def value_to_string(value: Any) -> str:
    """String form of a decoded JSON value.

    Strings are themselves, ``null`` is ``""``, booleans are ``true``/``false``, numbers are their
    JSON text, arrays and objects are compact JSON with sorted keys and unescaped non-ASCII.
    """
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
