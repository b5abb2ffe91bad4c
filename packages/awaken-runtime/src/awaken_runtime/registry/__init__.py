"""Registries and agent resolution: ``RegistrySet``, ``AgentResolver``, ``ResolvedAgent``."""

from awaken_runtime.registry.registries import (
    AgentBackendFactory,
    ModelEntry,
    Registry,
    RegistrySet,
)
from awaken_runtime.registry.resolved import (
    AgentResolver,
    ResolvedAgent,
    build_agent_env,
    default_plugins,
)
from awaken_runtime.registry.resolver import KNOWN_SECTIONS, RegistryResolver, validate_sections

__all__ = [
    "KNOWN_SECTIONS",
    "AgentBackendFactory",
    "AgentResolver",
    "ModelEntry",
    "Registry",
    "RegistryResolver",
    "RegistrySet",
    "ResolvedAgent",
    "build_agent_env",
    "default_plugins",
    "validate_sections",
]
