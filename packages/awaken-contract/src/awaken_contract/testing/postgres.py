"""A throwaway PostgreSQL server for tests (pytest fixture ``postgres_dsn``, session scoped).

Order of preference:

1. ``AWAKEN_TEST_POSTGRES_DSN`` — use that server as is;
2. the installed server binaries (``pg_config --bindir`` or ``/usr/lib/postgresql/*/bin``) —
   ``initdb`` a cluster in a temporary folder and start it on a unix socket inside it (as the
   ``postgres`` OS user when running as root, since PostgreSQL refuses to run as root);
3. otherwise the tests are skipped — unless the ``CI`` environment variable is set, in which case
   they fail, so CI can never silently skip the PostgreSQL suite.

Use it from a ``conftest.py``::

    from awaken_contract.testing.postgres import postgres_dsn  # noqa: F401
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["PostgresCluster", "find_postgres_bindir", "fresh_database", "postgres_dsn"]

DSN_ENV = "AWAKEN_TEST_POSTGRES_DSN"


def find_postgres_bindir() -> Path | None:
    """Directory holding ``initdb`` and ``pg_ctl``, or ``None`` when PostgreSQL isn't installed."""
    candidates: list[Path] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=10
            ).stdout.strip()
            candidates.append(Path(out))
        except (OSError, subprocess.SubprocessError):
            pass

    def version(path: str) -> tuple[int, ...]:
        name = Path(path).parent.name
        return tuple(int(p) for p in name.split(".") if p.isdigit())

    for found in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True):
        candidates.append(Path(found))
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(initdb).parent)
    for candidate in candidates:
        if (candidate / "initdb").exists() and (candidate / "pg_ctl").exists():
            return candidate
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class PostgresCluster:
    """A PostgreSQL cluster living in a temporary directory, reachable over a unix socket."""

    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="awaken-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user = "postgres" if os.geteuid() == 0 else None
        self.started = False

    @property
    def dsn(self) -> str:
        """Connection string (superuser ``postgres``, database ``postgres``, unix socket)."""
        return f"postgresql://postgres@/postgres?host={self.root}&port={self.port}"

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            user=self.user,
            timeout=120,
            cwd=self.root,
        )
        if result.returncode != 0:
            raise RuntimeError(
                f"{args[0]} failed ({result.returncode}): {result.stdout}\n{result.stderr}"
            )

    def start(self) -> None:
        """initdb + pg_ctl start (waits until the server accepts connections)."""
        if self.user is not None:
            shutil.chown(self.root, user=self.user)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        options = (
            f"-k {self.root} -p {self.port} -c listen_addresses='' -c fsync=on"
            " -c max_connections=200"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )
        self.started = True

    def stop(self) -> None:
        """Stop the server and delete the directory."""
        try:
            if self.started:
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """DSN of a PostgreSQL server for the whole test session (see module docstring)."""
    configured = os.environ.get(DSN_ENV)
    if configured:
        yield configured
        return
    bindir = find_postgres_bindir()
    if bindir is None:
        _unavailable(f"no PostgreSQL server binaries found and {DSN_ENV} is not set")
        return
    cluster = PostgresCluster(bindir)
    try:
        cluster.start()
    except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
        cluster.stop()
        _unavailable(f"could not start PostgreSQL from {bindir}: {exc}")
        return
    try:
        yield cluster.dsn
    finally:
        cluster.stop()


async def fresh_database(dsn: str, name: str) -> str:
    """(Re)create the empty database ``name`` on the server of ``dsn``; its DSN."""
    asyncpg = pytest.importorskip("asyncpg")
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    head, sep, query = dsn.partition("?")
    base = head.rpartition("/")[0]
    return f"{base}/{name}{sep}{query}"
