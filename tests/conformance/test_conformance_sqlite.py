"""The conformance suite against the SQLite stores (a fresh database file per test)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from awaken_contract.contract.mailbox import MailboxStore
from awaken_contract.contract.storage import ConfigStore, ProfileStore, ThreadRunStore
from awaken_contract.testing import (
    ConfigStoreContract,
    JobCheckpointStoreContract,
    JournaledStoreContract,
    MailboxStoreContract,
    ProfileStoreContract,
    ThreadRunStoreContract,
)
from awaken_stores import SqliteStore


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    store = SqliteStore(tmp_path / "awaken.db")
    yield store
    await store.close()


class TestSqliteJournaledStore(JournaledStoreContract):
    @pytest.fixture
    def store(self, sqlite_store: SqliteStore) -> SqliteStore:
        return sqlite_store

    @pytest.fixture
    async def other_instance(self, tmp_path: Path) -> AsyncIterator[SqliteStore]:
        second = SqliteStore(tmp_path / "awaken.db")  # a second connection to the same file
        yield second
        await second.close()


class TestSqliteThreadRunStore(ThreadRunStoreContract):
    @pytest.fixture
    def store(self, sqlite_store: SqliteStore) -> ThreadRunStore:
        return sqlite_store


class TestSqliteProfileStore(ProfileStoreContract):
    @pytest.fixture
    def store(self, sqlite_store: SqliteStore) -> ProfileStore:
        return sqlite_store.profiles


class TestSqliteConfigStore(ConfigStoreContract):
    @pytest.fixture
    def store(self, sqlite_store: SqliteStore) -> ConfigStore:
        return sqlite_store.config


class TestSqliteMailboxStore(MailboxStoreContract):
    @pytest.fixture
    def store(self, sqlite_store: SqliteStore) -> MailboxStore:
        return sqlite_store.mailbox


class TestSqliteJobCheckpoints(JobCheckpointStoreContract):
    @pytest.fixture
    def store(self, sqlite_store: SqliteStore) -> SqliteStore:
        return sqlite_store
