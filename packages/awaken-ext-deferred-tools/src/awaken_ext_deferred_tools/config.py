"""The ``deferred_tools`` agent section: load rules, auto-enable overhead, priors, DiscBeta."""

from __future__ import annotations

import enum
from typing import Any

from awaken_contract.registry_spec import PluginConfigKey
from awaken_tool_pattern import wildcard_match
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

__all__ = [
    "DEFAULT_PRIOR",
    "DeferralRule",
    "DeferredToolsConfig",
    "DeferredToolsConfigKey",
    "DiscBetaParams",
    "ToolLoadMode",
]

#: Per-step usage probability assumed for a tool without a configured prior.
DEFAULT_PRIOR = 0.01


class ToolLoadMode(enum.StrEnum):
    """``EAGER``: the schema is sent every step; ``DEFERRED``: only the name is listed."""

    EAGER = "eager"
    DEFERRED = "deferred"


class DeferralRule(BaseModel):
    """One rule: a tool id or glob (``debug_*``) and the mode it gets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(min_length=1, description="Exact tool id or a glob (wildcard_match)")
    mode: ToolLoadMode

    def matches(self, tool_id: str) -> bool:
        """``tool == id`` or the glob matches the id."""
        return self.tool == tool_id or wildcard_match(self.tool, tool_id)


class DiscBetaParams(BaseModel):
    """Discounted-Beta parameters of re-deferral (``deferred_tools.disc_beta``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    omega: float = Field(0.95, gt=0.0, le=1.0, description="Per-step discount (memory 1/(1-ω))")
    n0: float = Field(5.0, gt=0.0, description="Prior strength in pseudo-observations")
    defer_after: int = Field(5, ge=0, description="Minimum idle steps before re-deferral")
    thresh_mult: float = Field(0.5, ge=0.0, description="Multiplier on the break-even rate")
    gamma: float = Field(2000.0, ge=0.0, description="Token cost of one ToolSearch round-trip")


class DeferredToolsConfig(BaseModel):
    """The ``deferred_tools`` section.

    ```yaml
    enabled: null          # true: always; false: never; null: when it saves tokens
    default_mode: deferred
    rules:
      - {tool: get_weather, mode: eager}
      - {tool: "debug_*", mode: deferred}
    agent_priors: {get_weather: 0.03}
    disc_beta: {omega: 0.95, n0: 5.0, defer_after: 5, thresh_mult: 0.5, gamma: 2000.0}
    ```
    """

    model_config = ConfigDict(extra="forbid")

    enabled: bool | None = None
    rules: list[DeferralRule] = Field(default_factory=list)
    default_mode: ToolLoadMode = ToolLoadMode.DEFERRED
    beta_overhead: float = Field(
        1136.0, ge=0.0, description="Per-step tokens of the ToolSearch schema and deferred list"
    )
    agent_priors: dict[str, float] = Field(
        default_factory=dict, description="Prior per-step usage probability per tool id (0..1)"
    )
    disc_beta: DiscBetaParams = Field(default_factory=DiscBetaParams)

    @field_validator("agent_priors")
    @classmethod
    def _priors_are_probabilities(cls, priors: dict[str, float]) -> dict[str, float]:
        for tool_id, prior in priors.items():
            if not 0.0 <= prior <= 1.0:
                raise ValueError(f"prior of `{tool_id}` must be between 0 and 1, got {prior}")
        return priors

    @model_serializer(mode="wrap")
    def _omit_empty_priors(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not data.get("agent_priors"):
            data.pop("agent_priors", None)
        return data

    def resolve_mode(self, tool_id: str) -> ToolLoadMode:
        """The mode of the first matching rule, else ``default_mode``."""
        for rule in self.rules:
            if rule.matches(tool_id):
                return rule.mode
        return self.default_mode

    def prior(self, tool_id: str) -> float:
        """The configured prior of ``tool_id`` (``DEFAULT_PRIOR`` when missing)."""
        return self.agent_priors.get(tool_id, DEFAULT_PRIOR)


class DeferredToolsConfigKey(PluginConfigKey[DeferredToolsConfig]):
    """Agent-spec section ``deferred_tools`` → :class:`DeferredToolsConfig`."""

    KEY = "deferred_tools"
    CONFIG = DeferredToolsConfig
