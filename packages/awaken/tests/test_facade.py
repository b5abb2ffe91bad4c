"""The facade exposes every package at the book's module paths and never drifts from them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_facade_modules_are_in_sync_with_the_packages() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_facade.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_book_module_paths_resolve_to_the_contract_types() -> None:
    from awaken.contract.event import RunFinish
    from awaken.contract.event_sink import VecEventSink
    from awaken.contract.tool import InvalidArguments, Tool, ToolResult
    from awaken_contract.contract import event, event_sink, tool

    assert Tool is tool.Tool and ToolResult is tool.ToolResult
    assert InvalidArguments is tool.InvalidArguments
    assert RunFinish is event.RunFinish and VecEventSink is event_sink.VecEventSink


def test_cli_version(capsys: object) -> None:
    from awaken.cli import main

    assert main(["version"]) == 0
