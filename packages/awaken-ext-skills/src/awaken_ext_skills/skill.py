"""The :class:`Skill` interface and the resources a skill returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import msgspec

from awaken_ext_skills.frontmatter import parse_skill_md, substitute_arguments
from awaken_ext_skills.meta import SkillMeta

__all__ = [
    "LoadedAsset",
    "LoadedReference",
    "ScriptResult",
    "Skill",
    "SkillActivation",
    "media_type_for",
]

_MEDIA_TYPES = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    "pdf": "application/pdf",
    "json": "application/json",
    "md": "text/markdown",
    "txt": "text/plain",
    "csv": "text/csv",
    "yaml": "application/yaml",
    "yml": "application/yaml",
}


def media_type_for(path: str) -> str | None:
    """Media type by file extension (case-insensitive), or ``None``."""
    _, dot, ext = path.rpartition(".")
    return _MEDIA_TYPES.get(ext.lower()) if dot else None


class LoadedReference(msgspec.Struct, frozen=True):
    """A text file under ``references/`` (``sha256`` of the kept bytes, ``bytes`` = size)."""

    skill: str
    path: str
    sha256: str
    truncated: bool
    content: str
    bytes: int


class LoadedAsset(msgspec.Struct, frozen=True):
    """A file under ``assets/``, base64-encoded."""

    skill: str
    path: str
    sha256: str
    truncated: bool
    bytes: int
    media_type: str | None
    content: str
    encoding: str = "base64"


class ScriptResult(msgspec.Struct, frozen=True):
    """The outcome of a script under ``scripts/`` (exit code -1 when killed by a signal)."""

    skill: str
    script: str
    sha256: str
    truncated_stdout: bool
    truncated_stderr: bool
    exit_code: int
    stdout: str
    stderr: str


class SkillActivation(msgspec.Struct, frozen=True):
    """What activating a skill yields: its instructions with arguments substituted."""

    instructions: str


class Skill(ABC):
    """A skill: metadata, instructions (the SKILL.md body) and resources."""

    @abstractmethod
    def meta(self) -> SkillMeta:
        """The skill's metadata."""

    @property
    def id(self) -> str:
        """``meta().id``."""
        return self.meta().id

    @abstractmethod
    async def read_instructions(self) -> str:
        """The full SKILL.md text."""

    @abstractmethod
    async def load_reference(self, path: str) -> LoadedReference:
        """Load ``references/<file>``."""

    @abstractmethod
    async def load_asset(self, path: str) -> LoadedAsset:
        """Load ``assets/<file>``."""

    @abstractmethod
    async def run_script(self, script: str, args: list[str]) -> ScriptResult:
        """Run ``scripts/<file>`` with ``args``."""

    async def activate(self, arguments: Any = None) -> SkillActivation:
        """The instructions body with every ``${key}`` replaced from ``arguments``."""
        parsed = parse_skill_md(await self.read_instructions())
        return SkillActivation(substitute_arguments(parsed.body, arguments))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r})"
