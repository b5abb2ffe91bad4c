"""The core scheduled actions plugins schedule: context message, inference override, tool
exclusion and allow-list (tool interception: see ``intercept``)."""

from __future__ import annotations

from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.model import Phase, ScheduledActionSpec
from awaken_contract.registry_spec import InferenceOverride


class AddContextMessage(ScheduledActionSpec[ContextMessage]):
    """Inject a context message into the next inference (throttled by ``cooldown_turns``)."""

    KEY = "runtime.add_context_message"
    PHASE = Phase.BEFORE_INFERENCE


class SetInferenceOverride(ScheduledActionSpec[InferenceOverride]):
    """Override inference parameters for the current step (field-wise, last non-null wins)."""

    KEY = "runtime.set_inference_override"
    PHASE = Phase.BEFORE_INFERENCE


class ExcludeTool(ScheduledActionSpec[str]):
    """Remove a tool id from the current step's tool list."""

    KEY = "runtime.exclude_tool"
    PHASE = Phase.BEFORE_INFERENCE


class IncludeOnlyTools(ScheduledActionSpec[list[str]]):
    """Restrict the current step's tools to these ids (several lists → their union)."""

    KEY = "runtime.include_only_tools"
    PHASE = Phase.BEFORE_INFERENCE
