"""ConfigSync in-process: the digest fallback (SQLite, no notifications) and re-subscribing
after the PostgreSQL LISTEN connection dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.storage import ConfigStore
from awaken_contract.registry_spec import AgentSystemConfig
from awaken_contract.runtime import AgentRuntimeApi
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.testing import wait_until
from awaken_server.config_manager import ConfigRuntimeManager
from awaken_server.config_sync import ConfigSync, ConfigSyncConfig
from awaken_stores import SqliteStore

AGENT = {"id": "helper", "model_id": "m", "system_prompt": "Help."}


class Published:
    """The runtimes a ConfigSync published and the agent ids each was built with."""

    def __init__(self) -> None:
        self.agents: list[list[str]] = []
        self.runtimes: list[AgentRuntimeApi] = []

    def build(self, config: AgentSystemConfig) -> AgentRuntimeApi:
        self.agents.append([a.id for a in config.agents])
        return AgentRuntimeBuilder().build()

    def publish(self, runtime: AgentRuntimeApi) -> None:
        self.runtimes.append(runtime)


async def _sync_for(store: ConfigStore, config: ConfigSyncConfig) -> tuple[ConfigSync, Published]:
    published = Published()
    manager = ConfigRuntimeManager(store, published.build)
    await manager.apply()
    sync = ConfigSync(manager, published.publish, config)
    await sync.start()
    return sync, published


async def test_digest_poll_picks_up_a_write_by_another_process_on_sqlite(tmp_path: Path) -> None:
    db = tmp_path / "cfg.db"
    async with SqliteStore(db) as mine, SqliteStore(db) as theirs:
        sync, published = await _sync_for(mine.config, ConfigSyncConfig(poll_interval=0.05))
        try:
            await theirs.config.put("agents", "helper", AGENT)
            await wait_until(
                lambda: sync.applies == 1, 30, message="the digest poll re-applied the config"
            )
            assert published.agents[-1] == ["helper"] and len(published.runtimes) == 1
            # unchanged documents: no further applies however often the poll runs
            checks = sync.checks
            await wait_until(lambda: sync.checks >= checks + 5, 30, message="five more polls")
            assert sync.applies == 1 and len(published.agents) == 2  # the initial apply + one
        finally:
            await sync.stop()


async def test_a_failing_apply_keeps_the_current_runtime(tmp_path: Path) -> None:
    async with SqliteStore(tmp_path / "bad.db") as store:
        calls: list[Any] = []

        def build(config: AgentSystemConfig) -> AgentRuntimeApi:
            calls.append(config)
            if config.agents:
                raise ValueError("unknown model m")
            return AgentRuntimeBuilder().build()

        manager = ConfigRuntimeManager(store.config, build)
        await manager.apply()
        published: list[AgentRuntimeApi] = []
        sync = ConfigSync(manager, published.append)
        await store.config.put("agents", "helper", AGENT)
        assert await sync.sync_once() is False
        assert published == [] and len(calls) == 2


@pytest.mark.postgres
async def test_listener_resubscribes_after_its_connection_is_killed(postgres_dsn: str) -> None:
    asyncpg = pytest.importorskip("asyncpg")
    from awaken_stores.postgres import PostgresStore

    store = PostgresStore(postgres_dsn, prefix="cfgsync")
    writer = PostgresStore(postgres_dsn, prefix="cfgsync")
    await store.config.delete("agents", "helper")
    config = ConfigSyncConfig(poll_interval=3600, reconnect_initial=0.05)
    sync, published = await _sync_for(store.config, config)
    try:
        await wait_until(lambda: sync.subscriptions == 1, 30, message="the listener attached")
        conn = await asyncpg.connect(postgres_dsn)
        try:
            killed = await conn.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE query LIKE $1 AND pid <> pg_backend_pid()",
                f'LISTEN "{store.config.channel}"%',
            )
        finally:
            await conn.close()
        assert killed >= 1
        await wait_until(lambda: sync.subscriptions >= 2, 30, message="the listener re-subscribed")
        await writer.config.put("agents", "helper", AGENT)
        await wait_until(
            lambda: ["helper"] in published.agents, 30, message="the change applied after the drop"
        )
    finally:
        await sync.stop()
        await writer.config.delete("agents", "helper")
        await store.close()
        await writer.close()
