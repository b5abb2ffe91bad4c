"""The conformance suite against the PostgreSQL stores (a fresh table prefix per test)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

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
from awaken_stores import PostgresStore

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_prefix() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def pg_store(postgres_dsn: str, pg_prefix: str) -> AsyncIterator[PostgresStore]:
    store = PostgresStore(postgres_dsn, prefix=pg_prefix, max_size=25)
    yield store
    await store.drop_schema()
    await store.mailbox.close()
    await store.close()


class TestPostgresJournaledStore(JournaledStoreContract):
    @pytest.fixture
    def store(self, pg_store: PostgresStore) -> PostgresStore:
        return pg_store

    @pytest.fixture
    async def other_instance(
        self, postgres_dsn: str, pg_prefix: str, pg_store: PostgresStore
    ) -> AsyncIterator[PostgresStore]:
        second = PostgresStore(postgres_dsn, prefix=pg_prefix, max_size=10)  # its own pool
        yield second
        await second.close()


class TestPostgresThreadRunStore(ThreadRunStoreContract):
    @pytest.fixture
    def store(self, pg_store: PostgresStore) -> ThreadRunStore:
        return pg_store


class TestPostgresProfileStore(ProfileStoreContract):
    @pytest.fixture
    def store(self, pg_store: PostgresStore) -> ProfileStore:
        return pg_store.profiles


class TestPostgresConfigStore(ConfigStoreContract):
    @pytest.fixture
    def store(self, pg_store: PostgresStore) -> ConfigStore:
        return pg_store.config


class TestPostgresMailboxStore(MailboxStoreContract):
    @pytest.fixture
    def store(self, pg_store: PostgresStore) -> MailboxStore:
        return pg_store.mailbox


class TestPostgresJobCheckpoints(JobCheckpointStoreContract):
    @pytest.fixture
    def store(self, pg_store: PostgresStore) -> PostgresStore:
        return pg_store
