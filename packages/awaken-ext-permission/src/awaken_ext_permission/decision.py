"""Human decisions on permission prompts: approve (optionally remembered) or deny."""

from __future__ import annotations

import enum
from typing import Any

import msgspec
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume

#: The decision policy name of an "always allow" answer (ACP permission option).
ALLOW_ALWAYS_POLICY = "allow_always"


class RememberScope(enum.StrEnum):
    """How long a remembered approval lasts."""

    THREAD = "thread"
    SESSION = "session"


class PermissionDecision(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a resume decision's ``result`` may say about remembering an approval.

    ``{"approved": true, "remember": true}`` allows the tool for the rest of the thread;
    ``"pattern": "Bash(npm *)"`` remembers that pattern instead of the tool id;
    ``"scope": "session"`` remembers it for the current run only. ``"policy": "allow_always"``
    (an ACP client's "always allow" answer) also remembers.
    """

    approved: bool = True
    remember: bool = False
    pattern: str | None = None
    scope: RememberScope = RememberScope.THREAD
    policy: str | None = None

    @property
    def remembers(self) -> bool:
        """Whether the approval should be kept beyond this call."""
        return self.approved and (self.remember or self.policy == ALLOW_ALWAYS_POLICY)

    @classmethod
    def from_result(cls, result: Any) -> PermissionDecision:
        """Read a decision result; anything that is not such an object remembers nothing."""
        if not isinstance(result, dict):
            return cls(approved=result is not False)
        try:
            return msgspec.convert(result, cls, strict=False)
        except msgspec.ValidationError:
            return cls()

    @classmethod
    def of(cls, resume: ToolCallResume | None) -> PermissionDecision | None:
        """The decision carried by a *resume* (approval) input, ``None`` otherwise."""
        if resume is None or resume.action is not ResumeDecisionAction.RESUME:
            return None
        return cls.from_result(resume.result)


def approve(
    *,
    remember: bool = False,
    pattern: str | None = None,
    scope: RememberScope | str = RememberScope.THREAD,
    decision_id: str = "",
) -> ToolCallResume:
    """A decision approving a permission prompt (``remember`` keeps the approval)."""
    result: dict[str, Any] = {"approved": True}
    if remember:
        result["remember"] = True
    if pattern is not None:
        result["pattern"] = pattern
    if RememberScope(scope) is not RememberScope.THREAD:
        result["scope"] = RememberScope(scope).value
    return ToolCallResume.resume(result, decision_id=decision_id)


def deny(reason: str | None = None, *, decision_id: str = "") -> ToolCallResume:
    """A decision rejecting a permission prompt; the tool never runs."""
    resume = ToolCallResume.cancel(reason, decision_id=decision_id)
    resume.result = {"approved": False, "reason": reason} if reason else {"approved": False}
    return resume
