"""A reader in one process tails a run journal that another process appends to (one SQLite
file, or one file-store directory).

The follow poll fallback is switched off (an hour), so only the store's cross-process change
check can deliver the entries: each must arrive (generous timeout, no latency assert).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

import pytest
from awaken_contract.contract.event import TextDelta
from awaken_contract.contract.journal import EventRecord
from awaken_stores import FileStore, SqliteStore

WRITER = """
import asyncio, sys
from awaken_contract.contract.event import TextDelta
from awaken_contract.contract.journal import EventRecord
from awaken_stores import FileStore, SqliteStore

async def main() -> None:
    store = (SqliteStore if sys.argv[2] == "sqlite" else FileStore)(sys.argv[1])
    for line in sys.stdin:
        await store.append("run-x", [EventRecord(TextDelta(delta=line.strip()))])
        print("appended", flush=True)
    await store.close()

asyncio.run(main())
"""


@pytest.mark.parametrize("kind", ["sqlite", "file"])
async def test_entries_appended_by_another_process_reach_a_follower(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / ("shared.db" if kind == "sqlite" else "shared")
    store = SqliteStore(path) if kind == "sqlite" else FileStore(path)
    await store.append("run-x", [EventRecord(TextDelta(delta="first"))])
    writer = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        WRITER,
        str(path),
        kind,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert writer.stdin is not None and writer.stdout is not None
    seen: list[str] = []
    try:
        async with contextlib.aclosing(store.follow("run-x", 0, poll_seconds=3600)) as entries:
            first = await asyncio.wait_for(anext(entries), 30)
            seen.append(first.record.event.delta)
            for word in ("second", "third"):
                writer.stdin.write(f"{word}\n".encode())
                await writer.stdin.drain()
                assert await asyncio.wait_for(writer.stdout.readline(), 30) == b"appended\n"
                entry = await asyncio.wait_for(anext(entries), 30)
                seen.append(entry.record.event.delta)
    finally:
        writer.stdin.close()
        await asyncio.wait_for(writer.wait(), 30)
        await store.close()
    assert seen == ["first", "second", "third"]
    assert writer.returncode == 0
