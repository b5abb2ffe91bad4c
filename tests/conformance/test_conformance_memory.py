"""The conformance suite against the in-memory stores."""

from __future__ import annotations

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
from awaken_stores import InMemoryMailboxStore, InMemoryStore


class TestMemoryJournaledStore(JournaledStoreContract):
    @pytest.fixture
    def store(self) -> InMemoryStore:
        return InMemoryStore()

    @pytest.fixture
    def other_instance(self, store: InMemoryStore) -> InMemoryStore:
        return store


class TestMemoryThreadRunStore(ThreadRunStoreContract):
    @pytest.fixture
    def store(self) -> ThreadRunStore:
        return InMemoryStore()


class TestMemoryProfileStore(ProfileStoreContract):
    @pytest.fixture
    def store(self) -> ProfileStore:
        return InMemoryStore().profiles


class TestMemoryConfigStore(ConfigStoreContract):
    @pytest.fixture
    def store(self) -> ConfigStore:
        return InMemoryStore().config


class TestMemoryMailboxStore(MailboxStoreContract):
    @pytest.fixture
    def store(self) -> MailboxStore:
        return InMemoryMailboxStore()


class TestMemoryJobCheckpoints(JobCheckpointStoreContract):
    @pytest.fixture
    def store(self) -> InMemoryStore:
        return InMemoryStore()
