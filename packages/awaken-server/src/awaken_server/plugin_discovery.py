"""Plugin discovery through the ``awaken.plugins`` entry-point group.

Every installed distribution may declare plugins in its ``pyproject.toml``::

    [project.entry-points."awaken.plugins"]
    reminder = "awaken_ext_reminder:ReminderPlugin"

The entry-point name is the plugin id agents list in ``plugin_ids``; the value is a zero-argument
callable (usually the plugin class) returning an :class:`~awaken_contract.plugin.Plugin` whose
``descriptor().name`` is that id. Per-agent configuration comes from the agent's ``sections``.

A plugin that fails to load (import error, factory raising, wrong type or id, two distributions
claiming one id) does not stop the server: it is left out with the reason recorded, and an agent
naming it gets that reason in its :class:`~awaken_contract.errors.ConfigLoadError`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from awaken_contract.errors import ConfigLoadError
from awaken_contract.host import HostedPlugin
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig

__all__ = [
    "PLUGIN_ENTRY_POINT_GROUP",
    "PluginCatalog",
    "describe",
    "discover_plugins",
    "with_plugin_capabilities",
]

PLUGIN_ENTRY_POINT_GROUP = "awaken.plugins"

_log = logging.getLogger("awaken.server.plugins")


@dataclass(slots=True)
class PluginCatalog:
    """The plugins found: ``plugins`` by id, and ``failures`` (id → why it is unavailable)."""

    plugins: dict[str, Plugin] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)

    def with_plugins(self, plugins: Iterable[Plugin]) -> PluginCatalog:
        """A catalog with ``plugins`` added under their ids (they win over the found ones)."""
        extra = {plugin.descriptor().name: plugin for plugin in plugins}
        failures = {k: v for k, v in self.failures.items() if k not in extra}
        return PluginCatalog({**self.plugins, **extra}, failures)

    def hosted(self, system: AgentSystemConfig) -> list[HostedPlugin]:
        """The plugins with host resources that an agent of ``system`` enables."""
        used = {plugin_id for agent in system.agents for plugin_id in agent.plugin_ids}
        return [
            plugin
            for plugin_id, plugin in sorted(self.plugins.items())
            if plugin_id in used and isinstance(plugin, HostedPlugin)
        ]

    async def start(self, system: AgentSystemConfig) -> None:
        """Start (or re-configure) the hosted plugins ``system`` uses."""
        for plugin in self.hosted(system):
            await plugin.start(system)

    async def close(self) -> None:
        """Close every hosted plugin."""
        for plugin in self.plugins.values():
            if isinstance(plugin, HostedPlugin):
                await plugin.close()

    def check_agents(self, agents: Iterable[AgentSpec], *, builtin: Iterable[str] = ()) -> None:
        """Raise :class:`ConfigLoadError` naming the first agent that lists an unknown plugin id
        (``builtin``: ids the runtime provides itself)."""
        known = set(self.plugins) | set(builtin)
        for agent in agents:
            for plugin_id in agent.plugin_ids:
                if plugin_id in known:
                    continue
                if plugin_id in self.failures:
                    reason = f"plugin {plugin_id!r} failed to load: {self.failures[plugin_id]}"
                else:
                    installed = ", ".join(sorted(known)) or "none"
                    reason = (
                        f"unknown plugin id {plugin_id!r} (installed: {installed}; plugins "
                        f"are found through the {PLUGIN_ENTRY_POINT_GROUP!r} entry-point group)"
                    )
                raise ConfigLoadError(f"agent {agent.id!r}: {reason}")


def discover_plugins(found: Iterable[EntryPoint] | None = None) -> PluginCatalog:
    """Load every plugin of the ``awaken.plugins`` group (or of ``found``)."""
    points = list(entry_points(group=PLUGIN_ENTRY_POINT_GROUP) if found is None else found)
    catalog = PluginCatalog()
    sources: dict[str, str] = {}
    for point in points:
        source = _source(point)
        if point.name in sources and sources[point.name] != source:
            catalog.plugins.pop(point.name, None)
            catalog.failures[point.name] = f"declared by both {sources[point.name]} and {source}"
            continue
        sources[point.name] = source
        if point.name in catalog.failures:
            continue
        try:
            catalog.plugins[point.name] = _load(point)
        except Exception as exc:  # a broken third-party package must not stop the server
            _log.warning("plugin %s (%s) unavailable: %s", point.name, source, exc)
            catalog.failures[point.name] = str(exc)
    return catalog


def _load(point: EntryPoint) -> Plugin:
    factory = point.load()
    if not callable(factory):
        raise TypeError(f"{point.value} is not callable")
    plugin = factory()
    if not isinstance(plugin, Plugin):
        raise TypeError(f"{point.value}() returned {type(plugin).__name__}, not a Plugin")
    name = plugin.descriptor().name
    if name != point.name:
        raise ValueError(f"{point.value}() is plugin {name!r}, not {point.name!r}")
    return plugin


def _source(point: EntryPoint) -> str:
    dist = point.dist
    return f"{dist.name} ({point.value})" if dist is not None else point.value


def describe(catalog: PluginCatalog) -> list[dict[str, Any]]:
    """The capabilities entries of the plugins: ``{"id", "config_schemas": [{"key", "schema"}],
    "status"?}`` (sorted by id; the schemas are the JSON Schemas of the agent sections each
    plugin reads; ``status`` is a hosted plugin's report, e.g. MCP server states)."""
    entries = []
    for plugin_id, plugin in sorted(catalog.plugins.items()):
        entry: dict[str, Any] = {
            "id": plugin_id,
            "config_schemas": [
                {"key": schema.key, "schema": schema.json_schema}
                for schema in plugin.config_schemas()
            ],
        }
        if isinstance(plugin, HostedPlugin):
            entry["status"] = plugin.status()
        entries.append(entry)
    return entries


def with_plugin_capabilities(base: dict[str, Any], catalog: PluginCatalog) -> dict[str, Any]:
    """``base`` capabilities with the real plugins, plus the skills and tools hosted plugins
    report (``status()["skills"]`` / ``status()["tools"]``)."""
    plugins = describe(catalog)
    skills = list(base.get("skills", []))
    tools = list(base.get("tools", []))
    for entry in plugins:
        status = entry.get("status") or {}
        skills.extend(status.get("skills", []))
        tools.extend(status.get("tools", []))
    return {**base, "plugins": plugins, "skills": skills, "tools": tools}
