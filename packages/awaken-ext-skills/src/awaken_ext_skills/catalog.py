"""Rendering of the skill catalog injected into the model's context."""

from __future__ import annotations

from collections.abc import Iterable

from awaken_ext_skills.meta import SkillMeta

__all__ = [
    "DEFAULT_MAX_CATALOG_CHARS",
    "DEFAULT_MAX_CATALOG_ENTRIES",
    "render_catalog",
    "truncate_utf8",
]

DEFAULT_MAX_CATALOG_ENTRIES = 32
DEFAULT_MAX_CATALOG_CHARS = 16_384

SKILLS_USAGE = (
    "<skills_usage>\n"
    'When a listed skill is relevant, call the tool "skill" with {"skill": "<id or name>"} '
    "before answering; its instructions are then added to your context.\n"
    'Skill resources are not loaded automatically: call "load_skill_resource" with '
    '{"skill": "<id>", "path": "references/<file>"} or {"skill": "<id>", "path": '
    '"assets/<file>"} when the instructions point to them.\n'
    'Run a skill script with "skill_script" and {"skill": "<id>", "script": '
    '"scripts/<file>", "args": ["..."]}.\n'
    "</skills_usage>"
)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def truncate_utf8(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` UTF-8 bytes on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")


def _description(meta: SkillMeta) -> str:
    desc = meta.description.strip()
    name = meta.name.strip()
    if name and name != meta.id:
        desc = f"{name}: {desc}" if desc else name
    when = (meta.when_to_use or "").strip()
    if when:
        desc = f"{desc} — When: {when}" if desc else f"When: {when}"
    return desc


def render_catalog(
    metas: Iterable[SkillMeta],
    *,
    max_entries: int = DEFAULT_MAX_CATALOG_ENTRIES,
    max_chars: int = DEFAULT_MAX_CATALOG_CHARS,
) -> str | None:
    """The ``<available_skills>`` block plus usage notes, or ``None`` when there is nothing
    to list. At most ``max_entries`` entries; entries stop once ``max_chars`` bytes are
    reached; the whole text is cut to ``max_chars`` bytes."""
    ordered = sorted(metas, key=lambda m: m.id)
    if not ordered:
        return None
    lines = ["<available_skills>"]
    size = len(lines[0]) + 1
    shown = 0
    for meta in ordered[:max_entries]:
        if size >= max_chars:
            break
        entry = ["<skill>", f"<name>{_escape(meta.id)}</name>"]
        desc = _description(meta)
        if desc:
            entry.append(f"<description>{_escape(desc)}</description>")
        entry.append("</skill>")
        lines.extend(entry)
        size += sum(len(line.encode("utf-8")) + 1 for line in entry)
        shown += 1
    lines.append("</available_skills>")
    if shown < len(ordered):
        lines.append(f"Note: available_skills truncated (total={len(ordered)}, shown={shown}).")
    lines.append(SKILLS_USAGE)
    return truncate_utf8("\n".join(lines), max_chars).rstrip()
