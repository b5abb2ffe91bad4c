"""The ``awaken`` command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``awaken`` command."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["version"]:
        from importlib.metadata import version

        print(f"awaken {version('awaken')}")
        return 0
    print("usage: awaken version", file=sys.stderr)
    return 2
