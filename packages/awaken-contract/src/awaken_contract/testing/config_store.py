"""Conformance tests every ``ConfigStore`` must pass (override the ``store`` fixture)."""

from __future__ import annotations

import pytest

from awaken_contract.contract.storage import ConfigStore
from awaken_contract.registry_spec import AgentSpec, ModelSpec, ProviderSpec

__all__ = ["ConfigStoreContract"]

AGENT = {"id": "assistant", "model": "gpt", "system_prompt": "Be helpful. 你好", "max_rounds": 5}


class ConfigStoreContract:
    """Namespaced JSON documents."""

    pytestmark = pytest.mark.asyncio

    async def test_put_get_exists(self, store: ConfigStore) -> None:
        assert await store.get("agents", "assistant") is None
        assert not await store.exists("agents", "assistant")
        await store.put("agents", "assistant", AGENT)
        await store.put("providers", "openai", {"adapter": "openai", "api_key": None})
        await store.put("models", "gpt", {"provider": "openai", "model": "gpt-4o"})
        assert await store.exists("agents", "assistant")
        assert await store.get("agents", "assistant") == AGENT
        assert await store.get("providers", "openai") == {"adapter": "openai", "api_key": None}
        assert await store.list("agents", 0, 10) == [("assistant", AGENT)]

    async def test_specs_round_trip(self, store: ConfigStore) -> None:
        agent = AgentSpec("assistant").with_model("gpt").with_system_prompt("Be helpful.")
        model = ModelSpec(id="gpt", provider="openai", model="gpt-4o")
        provider = ProviderSpec(id="openai", adapter="openai", api_key_env="OPENAI_API_KEY")
        for namespace, spec in (("agents", agent), ("models", model), ("providers", provider)):
            await store.put(namespace, spec.id, spec.model_dump(mode="json"))
        assert AgentSpec.model_validate(await store.get("agents", "assistant")) == agent
        assert ModelSpec.model_validate(await store.get("models", "gpt")) == model
        assert ProviderSpec.model_validate(await store.get("providers", "openai")) == provider

    async def test_put_overwrites(self, store: ConfigStore) -> None:
        await store.put("agents", "a", {"v": 1})
        await store.put("agents", "a", {"v": 2})
        assert await store.get("agents", "a") == {"v": 2}

    async def test_list_ordered_and_paged(self, store: ConfigStore) -> None:
        assert await store.list("unknown", 0, 10) == []
        for doc_id in ("c", "a", "b", "d"):
            await store.put("ns", doc_id, {"id": doc_id})
        await store.put("other", "a", {"id": "other"})
        assert [i for i, _ in await store.list("ns", 0, 10)] == ["a", "b", "c", "d"]
        assert [i for i, _ in await store.list("ns", 1, 2)] == ["b", "c"]
        assert await store.list("ns", 10, 2) == []
        assert len(await store.list("ns", 0, 2**63 - 1)) == 4

    async def test_delete(self, store: ConfigStore) -> None:
        await store.put("agents", "a", {"v": 1})
        await store.delete("agents", "a")
        await store.delete("agents", "a")
        await store.delete("nowhere", "x")
        assert await store.get("agents", "a") is None
        assert await store.list("agents", 0, 10) == []
