"""Classification at activation: each tool's mode and costs, and whether deferral pays off.

Costs are token estimates: ``c = max(bytes(compact parameters) / 4, 10)`` for the full schema
and ``c_bar = max(bytes(display name) / 4, 1)`` for the listed name. Auto mode
(``enabled: null``) turns deferral on when the deferred tools save more than
``beta_overhead`` tokens per step.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.plugin import PhaseContext
from awaken_contract.state import MutationBatch, StateCommand

from awaken_ext_deferred_tools.config import DeferredToolsConfig, ToolLoadMode
from awaken_ext_deferred_tools.disc_beta import DiscBetaEntry
from awaken_ext_deferred_tools.search import TOOL_SEARCH_ID, compact_json
from awaken_ext_deferred_tools.state import (
    DeferralRegistryKey,
    DeferralStateKey,
    DiscBetaKey,
    InitBatch,
    RegisterBatch,
    SetBatch,
    StoredToolDescriptor,
)

__all__ = ["Classification", "classify", "deferral_enabled", "name_cost", "schema_cost"]


def schema_cost(descriptor: ToolDescriptor) -> float:
    """Estimated tokens of a tool's full schema."""
    return max(len(compact_json(descriptor.parameters).encode()) / 4, 10.0)


def name_cost(descriptor: ToolDescriptor) -> float:
    """Estimated tokens of listing a tool by name."""
    return max(len(descriptor.name.encode()) / 4, 1.0)


@dataclass(frozen=True, slots=True)
class Classification:
    """Modes, registry entries and DiscBeta entries of one agent's tools."""

    enabled: bool
    modes: list[tuple[str, ToolLoadMode]]
    deferred: list[StoredToolDescriptor]
    entries: list[tuple[str, DiscBetaEntry]]
    total_savings: float

    def write(self, target: MutationBatch | StateCommand) -> None:
        """Add the state writes (nothing when deferral is off)."""
        if not self.enabled:
            return
        target.update(DeferralStateKey, SetBatch(self.modes))
        target.update(DeferralRegistryKey, RegisterBatch(self.deferred))
        target.update(DiscBetaKey, InitBatch(self.entries))


def classify(tools: Iterable[ToolDescriptor], config: DeferredToolsConfig) -> Classification:
    """Classify ``tools`` (``ToolSearch`` itself excluded) under ``config``."""
    modes: list[tuple[str, ToolLoadMode]] = []
    deferred: list[StoredToolDescriptor] = []
    entries: list[tuple[str, DiscBetaEntry]] = []
    savings = 0.0
    n0 = config.disc_beta.n0
    for tool in tools:
        if tool.id == TOOL_SEARCH_ID:
            continue
        mode = config.resolve_mode(tool.id)
        c, c_bar = schema_cost(tool), name_cost(tool)
        modes.append((tool.id, mode))
        if mode is ToolLoadMode.DEFERRED:
            deferred.append(StoredToolDescriptor.of(tool))
            savings += max(c - c_bar, 0.0)
        entries.append((tool.id, DiscBetaEntry.from_prior(config.prior(tool.id), n0, c, c_bar)))
    enabled = config.enabled if config.enabled is not None else savings > config.beta_overhead
    return Classification(enabled, modes, deferred, entries, savings)


def deferral_enabled(ctx: PhaseContext, config: DeferredToolsConfig) -> bool:
    """The hooks' switch: the configured flag, else whether classification stored modes."""
    if config.enabled is not None:
        return config.enabled
    state = ctx.state(DeferralStateKey)
    return state is not None and bool(state.modes)
