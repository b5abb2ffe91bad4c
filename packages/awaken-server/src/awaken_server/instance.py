"""A server instance's persistent identity (its mailbox consumer id).

A restarted instance takes back the identity of its previous life, so at start-up it can
reclaim the claims that life left behind at once instead of waiting for their leases to expire.
Identities live in ``<data dir>/instances/<slot>.id``; a running instance holds an exclusive
lock on its slot file, so a second instance sharing the directory (two servers on one host)
takes the next slot and never reclaims the claims of a live process. The kernel drops the lock
when the process dies, however it dies.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from awaken_contract.errors import ConfigLoadError
from awaken_contract.ids import new_id

__all__ = ["InstanceIdentity", "claim_instance_identity"]

_MAX_SLOTS = 64


class InstanceIdentity:
    """A locked identity slot; keep it referenced for the life of the process."""

    __slots__ = ("_fd", "instance_id", "path")

    def __init__(self, instance_id: str, path: Path, fd: int) -> None:
        self.instance_id = instance_id
        self.path = path
        self._fd = fd

    def release(self) -> None:
        """Unlock the slot (another process may take the identity)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def claim_instance_identity(data_dir: str | Path) -> InstanceIdentity:
    """Lock the first free identity slot under ``data_dir`` (creating its id on first use)."""
    folder = Path(data_dir).expanduser() / "instances"
    folder.mkdir(parents=True, exist_ok=True)
    for slot in range(_MAX_SLOTS):
        path = folder / f"{slot}.id"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        text = os.pread(fd, 256, 0).decode("ascii", errors="ignore").strip()
        if not text:
            text = f"awaken-{new_id()}"
            os.ftruncate(fd, 0)
            os.pwrite(fd, text.encode("ascii"), 0)
            os.fsync(fd)
        return InstanceIdentity(text, path, fd)
    raise ConfigLoadError(f"no free instance identity slot under {folder}")
