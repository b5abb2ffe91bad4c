"""Skills compiled into the application: SKILL.md text plus in-memory references and assets."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Iterable, Sequence

import msgspec

from awaken_ext_skills.errors import DuplicateSkillId, InvalidSkillMd, UnsupportedOperation
from awaken_ext_skills.frontmatter import parse_skill_md
from awaken_ext_skills.meta import SkillContextMode, SkillMeta
from awaken_ext_skills.skill import LoadedAsset, LoadedReference, ScriptResult, Skill

__all__ = ["EmbeddedAsset", "EmbeddedReference", "EmbeddedSkill", "EmbeddedSkillData"]


class EmbeddedReference(msgspec.Struct, frozen=True):
    """A text reference: ``path`` (e.g. ``references/guide.md``) and its text."""

    path: str
    text: str


class EmbeddedAsset(msgspec.Struct, frozen=True):
    """A binary asset given as base64 text, with an optional media type."""

    path: str
    base64_text: str
    media_type: str | None = None


class EmbeddedSkillData(msgspec.Struct, frozen=True):
    """Everything an :class:`EmbeddedSkill` needs. ``references`` / ``assets`` accept the
    structs or plain ``(path, text)`` / ``(path, base64, media_type?)`` tuples."""

    skill_md: str
    references: Sequence[EmbeddedReference | tuple[str, str]] = ()
    assets: Sequence[EmbeddedAsset | tuple[str, str] | tuple[str, str, str | None]] = ()


class EmbeddedSkill(Skill):
    """A skill held in memory. Scripts are not supported."""

    def __init__(self, data: EmbeddedSkillData) -> None:
        parsed = parse_skill_md(data.skill_md)
        front = parsed.frontmatter
        self._skill_md = data.skill_md
        # Only id, name, description and allowed-tools are taken from the frontmatter.
        self._meta = SkillMeta(
            id=front.name,
            name=front.name,
            description=front.description,
            allowed_tools=[t.raw for t in front.allowed_tools],
            user_invocable=True,
            model_invocable=True,
            context=SkillContextMode.INLINE,
        )
        self._references: dict[str, LoadedReference] = {}
        for ref in data.references:
            path, text = (ref.path, ref.text) if isinstance(ref, EmbeddedReference) else ref
            raw = text.encode("utf-8")
            self._references[path] = LoadedReference(
                skill=front.name,
                path=path,
                sha256=hashlib.sha256(raw).hexdigest(),
                truncated=False,
                content=text,
                bytes=len(raw),
            )
        self._assets: dict[str, LoadedAsset] = {}
        for item in data.assets:
            asset = item if isinstance(item, EmbeddedAsset) else EmbeddedAsset(*item)
            try:
                decoded = base64.b64decode(asset.base64_text, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise InvalidSkillMd(
                    f"invalid base64 asset '{asset.path}' for skill '{front.name}': {exc}"
                ) from None
            self._assets[asset.path] = LoadedAsset(
                skill=front.name,
                path=asset.path,
                sha256=hashlib.sha256(decoded).hexdigest(),
                truncated=False,
                bytes=len(decoded),
                media_type=asset.media_type,
                content=base64.b64encode(decoded).decode("ascii"),
            )

    @classmethod
    def new(cls, data: EmbeddedSkillData) -> EmbeddedSkill:
        """The book's ``EmbeddedSkill::new``."""
        return cls(data)

    @classmethod
    def from_static_slice(cls, items: Iterable[EmbeddedSkillData]) -> list[Skill]:
        """Build several skills; a repeated id is :class:`DuplicateSkillId`."""
        skills: list[Skill] = []
        seen: set[str] = set()
        for data in items:
            skill = cls(data)
            if skill.id in seen:
                raise DuplicateSkillId(skill.id)
            seen.add(skill.id)
            skills.append(skill)
        return skills

    def meta(self) -> SkillMeta:
        """Metadata (id = name = frontmatter name)."""
        return self._meta

    async def read_instructions(self) -> str:
        """The embedded SKILL.md text."""
        return self._skill_md

    async def load_reference(self, path: str) -> LoadedReference:
        """The reference stored under exactly ``path``."""
        try:
            return self._references[path]
        except KeyError:
            raise UnsupportedOperation(f"reference not available: {path}") from None

    async def load_asset(self, path: str) -> LoadedAsset:
        """The asset stored under exactly ``path``."""
        try:
            return self._assets[path]
        except KeyError:
            raise UnsupportedOperation(f"asset not available: {path}") from None

    async def run_script(self, script: str, args: list[str]) -> ScriptResult:
        """Always fails: embedded skills have no scripts."""
        raise UnsupportedOperation(f"embedded skills do not support script execution: {script}")
