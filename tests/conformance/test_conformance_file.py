"""The conformance suite against the file stores (a fresh directory per test)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from awaken_contract.contract.mailbox import MailboxStore
from awaken_contract.contract.storage import ConfigStore, ProfileStore, ThreadRunStore
from awaken_contract.testing import (
    ConfigStoreContract,
    JournaledStoreContract,
    MailboxStoreContract,
    ProfileStoreContract,
    ThreadRunStoreContract,
)
from awaken_stores import FileStore


@pytest.fixture
async def file_store(tmp_path: Path) -> AsyncIterator[FileStore]:
    store = FileStore(tmp_path / "data")
    yield store
    await store.close()


class TestFileJournaledStore(JournaledStoreContract):
    @pytest.fixture
    def store(self, file_store: FileStore) -> FileStore:
        return file_store

    @pytest.fixture
    async def other_instance(self, tmp_path: Path) -> AsyncIterator[FileStore]:
        second = FileStore(tmp_path / "data")  # a second store object on the same directory
        yield second
        await second.close()


class TestFileThreadRunStore(ThreadRunStoreContract):
    @pytest.fixture
    def store(self, file_store: FileStore) -> ThreadRunStore:
        return file_store


class TestFileProfileStore(ProfileStoreContract):
    @pytest.fixture
    def store(self, file_store: FileStore) -> ProfileStore:
        return file_store.profiles


class TestFileConfigStore(ConfigStoreContract):
    @pytest.fixture
    def store(self, file_store: FileStore) -> ConfigStore:
        return file_store.config


class TestFileMailboxStore(MailboxStoreContract):
    @pytest.fixture
    def store(self, file_store: FileStore) -> MailboxStore:
        return file_store.mailbox
