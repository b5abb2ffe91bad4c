"""``AgentOverlay``: the parts of the base agent a handoff target replaces."""

from __future__ import annotations

from awaken_contract.registry_spec import AgentSpec
from pydantic import AliasChoices, BaseModel, ConfigDict, Field

__all__ = ["AgentOverlay"]


class AgentOverlay(BaseModel):
    """A handoff persona on top of the base agent: a set field replaces the base value.

    ``model`` is a model registry id (input key ``model_id`` accepted).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    system_prompt: str | None = None
    model: str | None = Field(default=None, validation_alias=AliasChoices("model", "model_id"))
    allowed_tools: list[str] | None = None
    excluded_tools: list[str] | None = None

    @property
    def model_id(self) -> str | None:
        """The spec's name for ``model``."""
        return self.model

    def apply(self, base: AgentSpec, agent_id: str) -> AgentSpec:
        """The base spec with this overlay applied, renamed ``agent_id``."""
        changes: dict[str, object] = {"id": agent_id}
        if self.system_prompt is not None:
            changes["system_prompt"] = self.system_prompt
        if self.model is not None:
            changes["model"] = self.model
        if self.allowed_tools is not None:
            changes["allowed_tools"] = list(self.allowed_tools)
        if self.excluded_tools is not None:
            changes["excluded_tools"] = list(self.excluded_tools)
        return base.model_copy(update=changes, deep=True)
