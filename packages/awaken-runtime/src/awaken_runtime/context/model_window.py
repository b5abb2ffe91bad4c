"""The context-window policy clamped to what the model declares.

A ``ContextWindowPolicy`` written for a large model (the default budget is 200k tokens) must
not let requests to a smaller model overflow it: at resolve time the policy's
``max_context_tokens`` and ``max_output_tokens`` are lowered to the ``ModelSpec``'s
``context_window`` and ``max_output_tokens`` when those are known.
"""

from __future__ import annotations

from awaken_contract.registry_spec import AgentSpec, ContextWindowPolicy, ModelSpec

__all__ = ["clamp_policy", "spec_for_model"]


def clamp_policy(policy: ContextWindowPolicy, model: ModelSpec) -> ContextWindowPolicy:
    """``policy`` within ``model``'s window and output limit (the same object if it fits)."""
    update: dict[str, int] = {}
    if model.context_window is not None and policy.max_context_tokens > model.context_window:
        update["max_context_tokens"] = model.context_window
    if model.max_output_tokens is not None and policy.max_output_tokens > model.max_output_tokens:
        update["max_output_tokens"] = model.max_output_tokens
    return policy.model_copy(update=update) if update else policy


def spec_for_model(spec: AgentSpec, model: ModelSpec) -> AgentSpec:
    """``spec`` with its context policy clamped to ``model`` (the same object if unchanged)."""
    policy = spec.context_policy
    if policy is None:
        return spec
    clamped = clamp_policy(policy, model)
    return spec if clamped is policy else spec.with_context_policy(clamped)
