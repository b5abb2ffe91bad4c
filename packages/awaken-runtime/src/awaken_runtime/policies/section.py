"""Declarative stop conditions in an agent spec: the ``stop_conditions`` section.

``{"sections": {"stop_conditions": [{"type": "timeout", "seconds": 300}, …]}}`` on an agent that
lists the ``stop-condition`` plugin adds those policies to the plugin's own (so agents loaded
from YAML/JSON can declare their stop conditions). The section is validated at resolve time.
"""

from __future__ import annotations

from typing import Any

import msgspec
from awaken_contract.contract.lifecycle import AnyStopConditionSpec
from awaken_contract.errors import KeyDecode
from awaken_contract.plugin import ConfigSchema
from awaken_contract.registry_spec import AgentSpec

from awaken_runtime.policies.builtin import policies_from_specs
from awaken_runtime.policies.policy import StopPolicy

__all__ = ["STOP_CONDITIONS_SECTION", "section_policies", "stop_conditions_schema"]

STOP_CONDITIONS_SECTION = "stop_conditions"

_SPECS = list[AnyStopConditionSpec]


def stop_conditions_schema() -> ConfigSchema:
    """JSON Schema of the ``stop_conditions`` section (a list of ``StopConditionSpec``)."""
    schema: dict[str, Any] = msgspec.json.schema(_SPECS)
    return ConfigSchema(STOP_CONDITIONS_SECTION, schema)


def section_policies(spec: AgentSpec) -> list[StopPolicy]:
    """Policies declared in ``spec``'s ``stop_conditions`` section (``KeyDecode`` if invalid)."""
    raw = spec.sections.get(STOP_CONDITIONS_SECTION)
    if raw is None:
        return []
    try:
        return policies_from_specs(msgspec.convert(raw, _SPECS))
    except (msgspec.ValidationError, ValueError) as exc:
        raise KeyDecode(STOP_CONDITIONS_SECTION, str(exc)) from exc
