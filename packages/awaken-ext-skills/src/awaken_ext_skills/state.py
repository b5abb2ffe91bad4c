"""State keys of the skills subsystem: active skills and catalog visibility (run scoped)."""

from __future__ import annotations

import enum

import msgspec
from awaken_contract.state import KeyScope, MergeStrategy, StateKey

__all__ = [
    "ActivateSkill",
    "HideSkill",
    "SetSkillVisibilityBatch",
    "ShowSkill",
    "ShowSkillBatch",
    "SkillState",
    "SkillStateKey",
    "SkillVisibilityAction",
    "SkillVisibilityKey",
    "SkillVisibilityMode",
    "SkillVisibilityState",
]


class SkillState(msgspec.Struct):
    """``{"active": [ids]}`` — the skills activated in this run (a sorted set)."""

    active: list[str] = msgspec.field(default_factory=list)


class ActivateSkill(msgspec.Struct, frozen=True):
    """Add a skill id to the active set."""

    skill_id: str


class SkillStateKey(StateKey[SkillState, ActivateSkill]):
    """``skills``: grow-only set of activated skills (commutative; registered run scoped)."""

    KEY = "skills"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(cls, value: SkillState, update: ActivateSkill) -> SkillState:
        if update.skill_id in value.active:
            return value
        return SkillState(sorted([*value.active, update.skill_id]))


class SkillVisibilityMode(enum.StrEnum):
    """Whether a skill is listed in the catalog."""

    VISIBLE = "visible"
    HIDDEN = "hidden"


class SkillVisibilityState(msgspec.Struct):
    """``{"modes": {id: "visible" | "hidden"}}`` (absent = visible)."""

    modes: dict[str, SkillVisibilityMode] = msgspec.field(default_factory=dict)

    def is_hidden(self, skill_id: str) -> bool:
        """Whether ``skill_id`` is hidden."""
        return self.modes.get(skill_id) is SkillVisibilityMode.HIDDEN


class ShowSkill(msgspec.Struct, frozen=True, tag="show", tag_field="type"):
    """Make one skill visible."""

    skill_id: str


class HideSkill(msgspec.Struct, frozen=True, tag="hide", tag_field="type"):
    """Hide one skill."""

    skill_id: str


class ShowSkillBatch(msgspec.Struct, frozen=True, tag="show_batch", tag_field="type"):
    """Make several skills visible."""

    skill_ids: list[str]


class SetSkillVisibilityBatch(msgspec.Struct, frozen=True, tag="set_batch", tag_field="type"):
    """Set the mode of several skills: ``[[id, mode], …]``."""

    entries: list[tuple[str, SkillVisibilityMode]]


SkillVisibilityAction = ShowSkill | HideSkill | ShowSkillBatch | SetSkillVisibilityBatch


class SkillVisibilityKey(StateKey[SkillVisibilityState, SkillVisibilityAction]):
    """``skills.visibility`` (run scoped, not persisted, commutative)."""

    KEY = "skills.visibility"
    MERGE = MergeStrategy.COMMUTATIVE
    SCOPE = KeyScope.RUN

    @classmethod
    def apply(
        cls, value: SkillVisibilityState, update: SkillVisibilityAction
    ) -> SkillVisibilityState:
        modes = dict(value.modes)
        if isinstance(update, ShowSkill):
            modes[update.skill_id] = SkillVisibilityMode.VISIBLE
        elif isinstance(update, HideSkill):
            modes[update.skill_id] = SkillVisibilityMode.HIDDEN
        elif isinstance(update, ShowSkillBatch):
            for skill_id in update.skill_ids:
                modes[skill_id] = SkillVisibilityMode.VISIBLE
        else:
            for skill_id, mode in update.entries:
                modes[skill_id] = mode
        return SkillVisibilityState(modes)
