"""Skill errors: one subclass per failure, each with the machine-readable ``code`` that the
skill tools report to the model (``[<code>] <message>``)."""

from __future__ import annotations

from typing import ClassVar

from awaken_contract.errors import AwakenError

__all__ = [
    "DuplicateSkillId",
    "InvalidSkillArguments",
    "InvalidSkillMd",
    "InvalidSkillPath",
    "PathEscapesRoot",
    "ScriptTimeout",
    "SkillError",
    "SkillIoError",
    "UnknownSkill",
    "UnsupportedOperation",
    "UnsupportedPath",
    "UnsupportedRuntime",
]


class SkillError(AwakenError):
    """Base class of skill failures; ``str()`` is ``<prefix>: <message>``."""

    code: ClassVar[str] = "skill_error"
    prefix: ClassVar[str] = "skill error"

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"{self.prefix}: {message}")


class UnknownSkill(SkillError):
    code = "unknown_skill"
    prefix = "unknown skill"


class InvalidSkillMd(SkillError):
    code = "invalid_skill_md"
    prefix = "invalid SKILL.md"


class InvalidSkillArguments(SkillError):
    code = "invalid_arguments"
    prefix = "invalid arguments"


class InvalidSkillPath(SkillError):
    code = "invalid_path"
    prefix = "invalid path"


class PathEscapesRoot(SkillError):
    code = "path_escapes_root"
    prefix = "path escapes root"


class UnsupportedPath(SkillError):
    code = "unsupported_path"
    prefix = "unsupported path"


class SkillIoError(SkillError):
    code = "io_error"
    prefix = "io error"


class UnsupportedRuntime(SkillError):
    code = "unsupported_runtime"
    prefix = "unsupported runtime"


class ScriptTimeout(SkillError):
    code = "script_timeout"
    prefix = "script timeout"


class DuplicateSkillId(SkillError):
    code = "duplicate_skill_id"
    prefix = "duplicate skill id"


class UnsupportedOperation(SkillError):
    code = "unsupported_operation"
    prefix = "unsupported operation"
