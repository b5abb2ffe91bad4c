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

from awaken_contract.errors import ConfigLoadError
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec

__all__ = ["PLUGIN_ENTRY_POINT_GROUP", "PluginCatalog", "discover_plugins"]

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
