"""From a config file, a store URL and the environment to a served application.

Used by ``awaken serve`` / ``awaken run``:

- :func:`open_store` turns ``sqlite:///path``, ``postgres://…``, ``file://dir`` or ``memory://``
  into a store (SQLite at ``./.awaken/awaken.db`` by default).
- :func:`load_serve_file` reads a YAML/JSON file with ``providers``/``models``/``agents``/
  ``mcp_servers`` plus an optional ``server:`` section (:class:`ServerConfig`).
- :func:`default_system_config` serves one agent ``assistant`` on the first provider found in
  the environment, or on the offline demo model when there is no key at all.
- :func:`build_runtime` builds an ``AgentRuntime`` for a config (also used by the config API to
  publish a new runtime after a write).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.storage import ProfileStore
from awaken_contract.contract.tool import Tool
from awaken_contract.errors import ConfigLoadError, InvalidPluginConfig
from awaken_contract.host import NeedsAgentRunner
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import (
    AgentSpec,
    AgentSystemConfig,
    ModelSpec,
    ProviderSpec,
    parse_document,
)
from awaken_runtime.runtime import AgentRuntime
from pydantic import ValidationError

from awaken_server.demo import DEMO_MODEL_ID, DEMO_PROVIDER_ID, DemoLlm, demo_tools
from awaken_server.plugin_discovery import PluginCatalog, discover_plugins
from awaken_server.state import ServerConfig

__all__ = [
    "DEFAULT_STORE_URL",
    "ServeSetup",
    "build_runtime",
    "check_plugins",
    "default_system_config",
    "load_serve_file",
    "open_store",
    "setup_from_file",
    "store_label",
]

DEFAULT_STORE_URL = "sqlite:///.awaken/awaken.db"
DEFAULT_AGENT_ID = "assistant"
DEFAULT_SYSTEM_PROMPT = "You are a helpful assistant."


@dataclass(slots=True)
class ServeSetup:
    """What ``awaken serve`` runs: the agent system, extra executors/tools and a description."""

    system: AgentSystemConfig
    server: ServerConfig = field(default_factory=ServerConfig)
    executors: dict[str, LlmExecutor] = field(default_factory=dict)
    tools: dict[str, Tool] = field(default_factory=dict)
    model_label: str = ""
    demo: bool = False


def open_store(url: str | None) -> Any:
    """A store for ``url`` (``sqlite:///path``, ``postgres://…``, ``file://dir``, ``memory://``).

    Relative SQLite paths are relative to the working directory; parent folders are created.
    """
    url = (url or DEFAULT_STORE_URL).strip()
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ConfigLoadError(f"invalid store URL {url!r}: expected scheme://…")
    scheme = scheme.lower()
    if scheme == "memory":
        from awaken_stores import InMemoryStore

        return InMemoryStore()
    if scheme == "sqlite":
        from awaken_stores import SqliteStore

        path = rest[1:] if rest.startswith("/") and not rest.startswith("//") else rest
        if rest.startswith("//"):
            path = rest[1:]
        if not path:
            raise ConfigLoadError("sqlite store URL needs a path: sqlite:///path/to/awaken.db")
        Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        return SqliteStore(str(Path(path).expanduser()))
    if scheme in ("postgres", "postgresql"):
        from awaken_stores import PostgresStore

        return PostgresStore(url)
    if scheme == "file":
        from awaken_stores import FileStore

        if not rest:
            raise ConfigLoadError("file store URL needs a directory: file:///path/to/dir")
        Path(rest).expanduser().mkdir(parents=True, exist_ok=True)
        return FileStore(str(Path(rest).expanduser()))
    raise ConfigLoadError(
        f"unsupported store URL scheme {scheme!r} (sqlite, postgres, file, memory)"
    )


def store_label(url: str | None) -> str:
    """The store URL with any password masked (for logs)."""
    url = url or DEFAULT_STORE_URL
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest:
        creds, _, host = rest.rpartition("@")
        user = creds.split(":", 1)[0]
        return f"{scheme}://{user}:***@{host}"
    return url


def load_serve_file(path: str | Path) -> tuple[AgentSystemConfig, ServerConfig]:
    """The agent system and server settings of a YAML/JSON file."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigLoadError(f"{file}: cannot read ({exc.strerror or exc})") from None
    fmt = "json" if file.suffix.lower() == ".json" else "yaml"
    data = parse_document(text, fmt, str(file)) or {}
    if not isinstance(data, dict):
        raise ConfigLoadError(f"{file}: expected a mapping at the top level")
    server_raw = data.pop("server", None) or {}
    try:
        server = ServerConfig.model_validate(server_raw)
        system = AgentSystemConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ConfigLoadError(f"{file}: {where}: {first['msg']}") from None
    return system, server


def setup_from_file(path: str | Path) -> ServeSetup:
    """The setup of a config file. A file without agents/models/providers (e.g. only a
    ``server:`` section) serves the default agent; providers with ``adapter: demo`` use the
    offline demo model and tools."""
    system, server = load_serve_file(path)
    if not (system.agents or system.models or system.providers):
        setup = default_system_config()
        setup.server = server
        setup.system = setup.system.model_copy(update={"mcp_servers": system.mcp_servers})
        return setup
    setup = ServeSetup(system=system, server=server)
    for provider in system.providers:
        if provider.adapter == "demo":
            setup.executors[provider.id] = DemoLlm()
            setup.tools.update(demo_tools())
            setup.demo = True
    labels = [f"{m.id} ({m.provider}/{m.model})" for m in system.models]
    setup.model_label = ", ".join(labels) or "(none)"
    return setup


def default_system_config(environ: Mapping[str, str] | None = None) -> ServeSetup:
    """One agent ``assistant`` on the first provider in the environment, else the demo model."""
    from awaken_runtime.engine import provider_from_env

    found = provider_from_env(dict(os.environ if environ is None else environ))
    if found is not None:
        provider, model = found
        system = AgentSystemConfig(
            providers=[provider],
            models=[ModelSpec(id=model, provider=provider.id, model=model)],
            agents=[_default_agent(model)],
        )
        return ServeSetup(system=system, model_label=f"{provider.id}/{model}")
    system = AgentSystemConfig(
        models=[ModelSpec(id=DEMO_MODEL_ID, provider=DEMO_PROVIDER_ID, model="demo-scripted")],
        agents=[_default_agent(DEMO_MODEL_ID)],
    )
    return ServeSetup(
        system=system,
        executors={DEMO_PROVIDER_ID: DemoLlm()},
        tools=demo_tools(),
        model_label="offline demo model (scripted, no LLM; set a provider API key for a real one)",
        demo=True,
    )


def _default_agent(model: str) -> AgentSpec:
    return AgentSpec(DEFAULT_AGENT_ID).with_model(model).with_system_prompt(DEFAULT_SYSTEM_PROMPT)


def _builder_class() -> Any:
    from awaken_runtime import AgentRuntimeBuilder

    return AgentRuntimeBuilder


def build_runtime(
    system: AgentSystemConfig,
    *,
    store: Any,
    executors: Mapping[str, LlmExecutor] | None = None,
    tools: Mapping[str, Tool] | None = None,
    plugins: list[Plugin] | None = None,
    catalog: PluginCatalog | None = None,
    environ: Mapping[str, str] | None = None,
) -> AgentRuntime:
    """An ``AgentRuntime`` for ``system`` persisting to ``store``.

    Providers come from ``executors`` (by provider id) or are built from their ``ProviderSpec``
    with :class:`GenaiExecutor`. The installed plugins (``catalog``, else
    :func:`discover_plugins`) and ``plugins`` are registered so agents can enable them with
    ``plugin_ids``; an agent naming a plugin that is neither raises :class:`ConfigLoadError`.
    """
    from awaken_runtime.engine import GenaiExecutor

    builder = _builder_class()()
    executors = dict(executors or {})
    for provider in system.providers:
        if provider.id not in executors:
            executors[provider.id] = _genai(GenaiExecutor, provider, environ)
    for provider_id, executor in executors.items():
        builder = builder.with_provider(provider_id, executor)
    for model in system.models:
        builder = builder.with_model(model.id, model)
    for agent in system.agents:
        builder = builder.with_agent_spec(agent)
    for tool_id, tool in (tools or {}).items():
        builder = builder.with_tool(tool_id, tool)
    available = (catalog or discover_plugins()).with_plugins(plugins or [])
    check_plugins(system, available)
    for plugin_id, plugin in available.plugins.items():
        builder = builder.with_plugin(plugin_id, plugin)
    builder = builder.with_thread_run_store(store)
    profiles = getattr(store, "profiles", None)
    if isinstance(profiles, ProfileStore):
        builder = builder.with_profile_store(profiles)
    runtime: AgentRuntime = builder.build()
    windows = {m.id: m.context_window for m in system.models if m.context_window is not None}
    for plugin in available.plugins.values():
        if isinstance(plugin, NeedsAgentRunner):
            plugin.bind_agent_runner(runtime, windows)
    return runtime


def check_plugins(system: AgentSystemConfig, catalog: PluginCatalog) -> None:
    """Every agent's ``plugin_ids`` are known and its plugin sections valid (else
    :class:`ConfigLoadError` naming the agent)."""
    from awaken_runtime.registry import default_plugins, validate_sections

    catalog.check_agents(system.agents)
    for agent in system.agents:
        plugins = [catalog.plugins[plugin_id] for plugin_id in agent.plugin_ids]
        try:
            validate_sections(agent, [*plugins, *default_plugins(agent)])
        except InvalidPluginConfig as exc:
            raise ConfigLoadError(f"agent {agent.id!r}: {exc}") from None


def _genai(cls: Any, provider: ProviderSpec, environ: Mapping[str, str] | None) -> LlmExecutor:
    executor: LlmExecutor = cls.from_spec(provider, environ=environ)
    return executor
