"""SKILL.md parsing: YAML frontmatter between ``---`` fences, then the instructions body."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import msgspec
import yaml

from awaken_ext_skills.allowed_tools import AllowedToolToken, parse_allowed_tools
from awaken_ext_skills.errors import InvalidSkillMd
from awaken_ext_skills.meta import SkillArgument, SkillContextMode, SkillMeta

__all__ = [
    "ParsedSkillMd",
    "SkillFrontmatter",
    "parse_skill_md",
    "substitute_arguments",
    "validate_frontmatter",
    "validate_skill_name",
]

MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_COMPATIBILITY_CHARS = 500


class SkillFrontmatter(msgspec.Struct, frozen=True, omit_defaults=True):
    """The validated frontmatter of a SKILL.md (keys are kebab-case in the file)."""

    name: str
    description: str
    allowed_tools: list[AllowedToolToken] = msgspec.field(default_factory=list)
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = msgspec.field(default_factory=dict)
    when_to_use: str | None = None
    arguments: list[SkillArgument] = msgspec.field(default_factory=list)
    argument_hint: str | None = None
    user_invocable: bool = True
    disable_model_invocation: bool = False
    model: str | None = None
    context: SkillContextMode = SkillContextMode.INLINE
    paths: list[str] = msgspec.field(default_factory=list)

    def to_meta(self, skill_id: str | None = None) -> SkillMeta:
        """The :class:`SkillMeta` of a skill with this frontmatter (id defaults to ``name``)."""
        return SkillMeta(
            id=skill_id or self.name,
            name=self.name,
            description=self.description,
            allowed_tools=[t.raw for t in self.allowed_tools],
            user_invocable=self.user_invocable,
            model_invocable=not self.disable_model_invocation,
            context=self.context,
            when_to_use=self.when_to_use,
            arguments=list(self.arguments),
            argument_hint=self.argument_hint,
            model_override=self.model,
            paths=list(self.paths),
        )


class ParsedSkillMd(msgspec.Struct, frozen=True):
    """A parsed SKILL.md: frontmatter and the raw body."""

    frontmatter: SkillFrontmatter
    body: str


def validate_skill_name(raw: str, label: str = "name") -> str:
    """Normalise (trim + NFKC) and validate a skill name; raises ``ValueError`` whose text
    starts with ``label`` (``name must be lowercase`` …)."""
    name = unicodedata.normalize("NFKC", raw.strip())
    if not name:
        raise ValueError(f"{label} must be non-empty")
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"{label} must be <= {MAX_NAME_CHARS} characters")
    if name != name.lower():
        raise ValueError(f"{label} must be lowercase")
    if name.startswith("-"):
        raise ValueError(f"{label} must not start with '-'")
    if name.endswith("-"):
        raise ValueError(f"{label} must not end with '-'")
    if "--" in name:
        raise ValueError(f"{label} must not contain consecutive '-'")
    if not all(c.isalnum() or c == "-" for c in name):
        raise ValueError(
            f"{label} contains invalid characters (only letters, digits, and '-' are allowed)"
        )
    return name


def _fail(reason: str) -> InvalidSkillMd:
    return InvalidSkillMd(f"invalid frontmatter: {reason}")


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _fail(f"{key} must be a string")
    return value


def _bool(data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise _fail(f"{key} must be a boolean")
    return value


def _arguments(value: Any) -> list[SkillArgument]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise _fail("arguments must be a list")
    out: list[SkillArgument] = []
    for item in value:
        if not isinstance(item, dict):
            raise _fail("each argument must be a mapping with a 'name'")
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            raise _fail("argument name must be non-empty")
        description = item.get("description")
        required = item.get("required", False)
        if description is not None and not isinstance(description, str):
            raise _fail(f"argument '{name}' description must be a string")
        if not isinstance(required, bool):
            raise _fail(f"argument '{name}' required must be a boolean")
        out.append(SkillArgument(name.strip(), description, required))
    return out


def _paths(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, str):
        raise _fail("paths must be a string of comma or newline separated globs")
    return [p for p in (part.strip() for part in re.split(r"[,\n]", value)) if p and p != "**"]


def validate_frontmatter(data: Any) -> SkillFrontmatter:
    """Validate a decoded frontmatter mapping (raises :class:`InvalidSkillMd`)."""
    if not isinstance(data, dict):
        raise InvalidSkillMd("invalid YAML frontmatter: expected a mapping")
    raw_name = data.get("name")
    if not isinstance(raw_name, str):
        raise _fail("name must be non-empty")
    try:
        name = validate_skill_name(raw_name)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise _fail("description must be non-empty")
    description = description.strip()
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise _fail(f"description must be <= {MAX_DESCRIPTION_CHARS} characters")
    compatibility = _opt_str(data, "compatibility")
    if compatibility is not None:
        compatibility = compatibility.strip()
        if not compatibility:
            raise _fail("compatibility must be non-empty if provided")
        if len(compatibility) > MAX_COMPATIBILITY_CHARS:
            raise _fail(f"compatibility must be <= {MAX_COMPATIBILITY_CHARS} characters")
    metadata = data.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise _fail("metadata must be a mapping")
    for key, value in metadata.items():
        if not isinstance(value, str):
            raise _fail(f"metadata value for key '{key}' must be a string")
    allowed_raw = data.get("allowed-tools")
    if allowed_raw is not None and not isinstance(allowed_raw, str):
        raise _fail("allowed-tools must be a space-delimited string")
    try:
        allowed = parse_allowed_tools(allowed_raw or "")
    except ValueError as exc:
        raise _fail(str(exc)) from None
    when_to_use = _opt_str(data, "when-to-use")
    if when_to_use is not None:
        when_to_use = when_to_use.strip()
        if not when_to_use:
            raise _fail("when-to-use must be non-empty if provided")
    context = data.get("context", "inline")
    if context not in ("inline", "fork"):
        raise _fail('context must be "inline" or "fork"')
    return SkillFrontmatter(
        name=name,
        description=description,
        allowed_tools=allowed,
        license=_opt_str(data, "license"),
        compatibility=compatibility,
        metadata={str(k): v for k, v in metadata.items()},
        when_to_use=when_to_use,
        arguments=_arguments(data.get("arguments")),
        argument_hint=_opt_str(data, "argument-hint"),
        user_invocable=_bool(data, "user-invocable", True),
        disable_model_invocation=_bool(data, "disable-model-invocation", False),
        model=_opt_str(data, "model"),
        context=SkillContextMode(context),
        paths=_paths(data.get("paths")),
    )


def parse_skill_md(text: str) -> ParsedSkillMd:
    """Split and validate a SKILL.md document (raises :class:`InvalidSkillMd`)."""
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise InvalidSkillMd("missing YAML frontmatter (expected leading '---' fence)")
    lines = text[4:].split("\n")
    try:
        end = lines.index("---")
    except ValueError:
        raise InvalidSkillMd(
            "unterminated YAML frontmatter (missing closing '---' fence)"
        ) from None
    try:
        data = yaml.safe_load("\n".join(lines[:end]))
    except yaml.YAMLError as exc:
        raise InvalidSkillMd(f"invalid YAML frontmatter: {exc}") from None
    return ParsedSkillMd(validate_frontmatter(data), "\n".join(lines[end + 1 :]))


_PLACEHOLDER = re.compile(r"\$\{([^}]*)\}")


def substitute_arguments(body: str, arguments: Any) -> str:
    """Replace ``${key}`` with ``arguments[key]`` (strings as is, null → "", other JSON compact);
    unknown keys stay as written."""
    if not isinstance(arguments, dict):
        return body

    def repl(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in arguments:
            return match.group(0)
        value = arguments[key]
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        return msgspec.json.encode(value).decode()

    return _PLACEHOLDER.sub(repl, body)
