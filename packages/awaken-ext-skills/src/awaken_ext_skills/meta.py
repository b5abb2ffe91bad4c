"""Skill metadata: what the catalog shows and the tools use."""

from __future__ import annotations

import enum

import msgspec

__all__ = ["SkillArgument", "SkillContextMode", "SkillMeta"]


class SkillContextMode(enum.StrEnum):
    """Whether a skill runs in the current conversation (``inline``) or a forked one."""

    INLINE = "inline"
    FORK = "fork"


class SkillArgument(msgspec.Struct, frozen=True, omit_defaults=True):
    """A declared activation argument."""

    name: str
    description: str | None = None
    required: bool = False


class SkillMeta(msgspec.Struct, frozen=True, omit_defaults=True):
    """Metadata of a skill. ``allowed_tools`` keeps the raw ``allowed-tools`` tokens."""

    id: str
    name: str
    description: str
    allowed_tools: list[str]
    user_invocable: bool
    model_invocable: bool
    context: SkillContextMode
    when_to_use: str | None = None
    arguments: list[SkillArgument] = msgspec.field(default_factory=list)
    argument_hint: str | None = None
    model_override: str | None = None
    paths: list[str] = msgspec.field(default_factory=list)
