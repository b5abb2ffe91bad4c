"""ConfigRuntimeManager: managed config documents → a freshly built runtime, without restart.

The config API persists agents, models, providers and MCP servers in a :class:`ConfigStore`;
after every write the manager merges those documents over the base configuration (the YAML
file / programmatic setup), builds a new runtime with ``build_runtime`` and returns it; the
server publishes it so the next run uses it (runs in flight keep theirs).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from awaken_contract.contract.storage import ConfigStore
from awaken_contract.registry_spec import (
    AgentSpec,
    AgentSystemConfig,
    McpServerSpec,
    ModelSpec,
    ProviderSpec,
)
from awaken_contract.runtime import AgentRuntimeApi
from awaken_runtime.engine import KNOWN_ADAPTERS
from pydantic import BaseModel

__all__ = ["NAMESPACES", "ConfigRuntimeManager", "namespace_model"]

NAMESPACES: dict[str, type[BaseModel]] = {
    "agents": AgentSpec,
    "models": ModelSpec,
    "providers": ProviderSpec,
    "mcp-servers": McpServerSpec,
}
"""Config namespaces and the pydantic model validating their documents."""

_FIELDS = {
    "agents": "agents",
    "models": "models",
    "providers": "providers",
    "mcp-servers": "mcp_servers",
}

RuntimeFactory = Callable[[AgentSystemConfig], AgentRuntimeApi | Awaitable[AgentRuntimeApi]]


def _digest(stored: dict[str, list[tuple[str, Any]]]) -> str:
    return hashlib.sha256(msgspec.json.encode(stored, order="sorted")).hexdigest()


def namespace_model(namespace: str) -> type[BaseModel] | None:
    """The model of ``namespace`` or ``None`` when unknown."""
    return NAMESPACES.get(namespace)


class ConfigRuntimeManager:
    """Rebuilds the runtime from base config + stored documents (one apply at a time)."""

    def __init__(
        self,
        config_store: ConfigStore,
        build_runtime: RuntimeFactory,
        *,
        base: AgentSystemConfig | None = None,
        tools: list[dict[str, Any]] | None = None,
        plugins: list[dict[str, Any]] | None = None,
    ) -> None:
        self.config_store = config_store
        self.build_runtime = build_runtime
        self.base = base or AgentSystemConfig()
        self.tools = list(tools or [])
        self.plugins = list(plugins or [])
        self.lock = asyncio.Lock()
        self.current: AgentSystemConfig = self.base
        self.applied_digest: str | None = None
        """Digest of the stored documents of the last successful :meth:`apply`."""

    async def stored_documents(self) -> dict[str, list[tuple[str, Any]]]:
        """Every stored document per namespace, ordered by id."""
        stored: dict[str, list[tuple[str, Any]]] = {}
        for namespace in _FIELDS:
            docs: list[tuple[str, Any]] = []
            offset = 0
            while True:
                page = await self.config_store.list(namespace, offset, 500)
                docs.extend(page)
                if len(page) < 500:
                    break
                offset += 500
            stored[namespace] = docs
        return stored

    async def stored_digest(self) -> str:
        """A digest of the stored documents (equal digests: nothing to re-apply)."""
        return _digest(await self.stored_documents())

    async def effective_config(self) -> AgentSystemConfig:
        """Base config with every stored document added (stored documents win by id)."""
        return self._merge(await self.stored_documents())

    def _merge(self, stored: dict[str, list[tuple[str, Any]]]) -> AgentSystemConfig:
        merged: dict[str, dict[str, Any]] = {}
        for namespace, attr in _FIELDS.items():
            items = {item.id: item for item in getattr(self.base, attr)}
            model = NAMESPACES[namespace]
            for doc_id, doc in stored[namespace]:
                items[doc_id] = model.model_validate(doc)
            merged[attr] = items
        return AgentSystemConfig(
            providers=list(merged["providers"].values()),
            models=list(merged["models"].values()),
            agents=list(merged["agents"].values()),
            mcp_servers=list(merged["mcp_servers"].values()),
        )

    async def apply(self) -> AgentRuntimeApi:
        """Build a runtime from the effective config; raises whatever the build raises."""
        stored = await self.stored_documents()
        config = self._merge(stored)
        built = self.build_runtime(config)
        runtime = await built if isinstance(built, Awaitable) else built
        self.current = config
        self.applied_digest = _digest(stored)
        return runtime

    def capabilities(self) -> dict[str, Any]:
        """Agents, tools, plugins, models and providers of the last applied config."""
        cfg = self.current
        return {
            "agents": [a.id for a in cfg.agents],
            "tools": list(self.tools),
            "plugins": list(self.plugins),
            "skills": [],
            "models": [
                {"id": m.id, "provider_id": m.provider, "upstream_model": m.model}
                for m in cfg.models
            ],
            "providers": [{"id": p.id} for p in cfg.providers],
            "supported_adapters": sorted(KNOWN_ADAPTERS),
            "namespaces": [
                {"namespace": ns, "schema": model.model_json_schema()}
                for ns, model in NAMESPACES.items()
            ],
        }
