"""Multi-file commits through a rollback journal (``<base>/.checkpoint_pending``): stage, record
the undo, swap and splice, delete the journal; ``recover`` undoes an interrupted commit."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

import msgspec
from awaken_contract.ids import new_id

from awaken_stores.file.files import JOURNAL, _atomic_write, _fsync_dir, _stage


def _recover(base: Path) -> None:
    """Roll back a checkpoint interrupted mid-commit (no-op without a journal)."""
    journal = base / JOURNAL
    if not journal.exists():
        return
    try:
        pending = json.loads(journal.read_text())
        writes, splices = pending["writes"], pending.get("splices", [])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        journal.unlink(missing_ok=True)
        return
    for splice in reversed(splices):
        _undo_splice(base / splice["target"], splice["offset"], splice["tail"].encode())
    for write in reversed(writes):
        target, tmp, backup = (base / write[k] for k in ("target", "tmp", "backup"))
        if write["had_target"] and backup.exists():
            os.replace(backup, target)
        elif not write["had_target"] and target.exists():
            target.unlink()
        elif backup.exists():
            backup.unlink()
        tmp.unlink(missing_ok=True)
        _fsync_dir(target.parent)
    journal.unlink(missing_ok=True)
    _fsync_dir(base)


def _undo_splice(target: Path, offset: int, tail: bytes) -> None:
    """Cut ``target`` back to ``offset`` and restore the ``tail`` bytes it had there (a file
    that did not exist, offset 0 and no tail, is removed)."""
    if not target.exists():
        return
    if offset == 0 and not tail:
        target.unlink()
    else:
        with open(target, "r+b") as fh:
            fh.truncate(offset)
            fh.seek(offset)
            fh.write(tail)
            fh.flush()
            os.fsync(fh.fileno())
    _fsync_dir(target.parent)


def _splice(target: Path, offset: int, data: bytes) -> None:
    """Write ``data`` at ``offset`` (creating the file), cut anything after it, fsync."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "r+b" if target.exists() else "wb") as fh:
        fh.seek(offset)
        fh.write(data)
        fh.truncate()
        fh.flush()
        os.fsync(fh.fileno())


class _Splice(msgspec.Struct, frozen=True):
    """Bytes to write at ``offset`` of ``target``; ``tail`` is what the file held from there."""

    target: Path
    offset: int
    tail: bytes
    data: bytes


def commit_files(
    base: Path, files: list[tuple[Path, bytes]], splices: Sequence[_Splice] = ()
) -> None:
    """Swap in several files and splice others at once through the rollback journal (see
    module docs)."""
    staged: list[Path] = []
    try:
        for target, data in files:
            staged.append(_stage(target, data))
    except BaseException:
        for tmp in staged:
            tmp.unlink(missing_ok=True)
        raise
    tx_id = new_id().replace("-", "")
    writes: list[dict[str, Any]] = [
        {
            "target": str(target.relative_to(base)),
            "tmp": str(tmp.relative_to(base)),
            "backup": str((target.parent / f".{target.name}.{tx_id}.bak").relative_to(base)),
            "had_target": target.exists(),
        }
        for (target, _), tmp in zip(files, staged, strict=True)
    ]
    undo = [
        {
            "target": str(splice.target.relative_to(base)),
            "offset": splice.offset,
            "tail": splice.tail.decode(),
        }
        for splice in splices
    ]
    journal = base / JOURNAL
    try:
        _atomic_write(journal, json.dumps({"writes": writes, "splices": undo}).encode())
        for write in writes:
            target = base / write["target"]
            if write["had_target"]:
                os.replace(target, base / write["backup"])
            os.replace(base / write["tmp"], target)
        for splice in splices:
            _splice(splice.target, splice.offset, splice.data)
        touched = [base / w["target"] for w in writes] + [s.target for s in splices]
        for directory in {path.parent for path in touched}:
            _fsync_dir(directory)
        journal.unlink()
        _fsync_dir(base)
    except Exception:
        _recover(base)
        for tmp in staged:
            tmp.unlink(missing_ok=True)
        raise
    for write in writes:
        with suppress(OSError):
            (base / write["backup"]).unlink(missing_ok=True)
