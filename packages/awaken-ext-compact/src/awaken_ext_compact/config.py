"""The ``compact`` agent section: which compactor agent, when to trigger, what to keep raw."""

from __future__ import annotations

from awaken_contract.registry_spec import AgentSpec, PluginConfigKey
from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CompactConfig", "CompactConfigKey"]


class CompactConfig(BaseModel):
    """Section ``compact``.

    ```yaml
    compact:
      compactor: summarizer        # the agent that writes summaries
      trigger_ratio: 0.75          # window known: start at 75 % of it (estimated tokens)
      trigger_messages: 40         # window unknown: start at 40 uncovered messages
      keep_recent_messages: 6      # the tail that always stays raw
    ```

    The window is ``context_window_tokens``, else the agent's ``context_policy``
    ``max_context_tokens``, else the model's ``context_window`` (when the host tells the
    plugin); ``trigger_tokens`` (or the policy's ``autocompact_threshold``) sets the token
    trigger directly.
    """

    model_config = ConfigDict(extra="forbid")

    compactor: str | None = Field(
        default=None, min_length=1, description="Agent id of the compactor agent"
    )
    context_window_tokens: int | None = Field(default=None, ge=1)
    trigger_tokens: int | None = Field(default=None, ge=1)
    trigger_ratio: float = Field(default=0.75, gt=0.0, le=1.0)
    trigger_messages: int = Field(default=40, ge=2)
    keep_recent_messages: int = Field(default=6, ge=1)

    def window(self, spec: AgentSpec, model_window: int | None) -> int | None:
        """The context window in tokens, when known."""
        if self.context_window_tokens is not None:
            return self.context_window_tokens
        if spec.context_policy is not None:
            return spec.context_policy.max_context_tokens
        return model_window

    def token_trigger(self, spec: AgentSpec, window: int | None) -> int | None:
        """Estimated tokens at which summarising starts (``None``: count messages instead)."""
        if self.trigger_tokens is not None:
            return self.trigger_tokens
        policy = spec.context_policy
        if policy is not None and policy.autocompact_threshold is not None:
            return policy.autocompact_threshold
        return int(window * self.trigger_ratio) if window is not None else None


class CompactConfigKey(PluginConfigKey[CompactConfig]):
    """Agent-spec section ``compact`` → :class:`CompactConfig`."""

    KEY = "compact"
    CONFIG = CompactConfig
