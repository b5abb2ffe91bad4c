"""Resolution of a skill resource path, confined to the skill's directory."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from awaken_ext_skills.errors import (
    InvalidSkillPath,
    PathEscapesRoot,
    SkillIoError,
    UnsupportedPath,
)

__all__ = ["normalize_relative", "resolve_in_skill"]


def normalize_relative(raw: str) -> list[str]:
    """The components of a relative path: non-empty, no NUL, not absolute, no ``..``;
    ``.`` components dropped (raises :class:`InvalidSkillPath`)."""
    if not raw or not raw.strip() or "\x00" in raw:
        raise InvalidSkillPath("invalid relative path")
    if "\\" in raw:
        raise InvalidSkillPath("invalid relative path (backslashes are not allowed)")
    pure = PurePosixPath(raw)
    if pure.is_absolute() or raw.startswith("~"):
        raise InvalidSkillPath("invalid relative path (absolute paths are not allowed)")
    parts = [p for p in pure.parts if p not in (".", "")]
    if ".." in parts:
        raise InvalidSkillPath("invalid relative path ('..' is not allowed)")
    if not parts:
        raise InvalidSkillPath("invalid relative path")
    return parts


def resolve_in_skill(skill_dir: Path, raw: str, expected_dir: str) -> Path:
    """The real path of ``raw`` inside ``skill_dir/expected_dir``.

    Rejects invalid paths, paths outside ``expected_dir`` (:class:`UnsupportedPath`), targets
    whose real location (after symlinks) is outside the skill directory
    (:class:`PathEscapesRoot`) and anything that is not a regular file (:class:`SkillIoError`).
    """
    parts = normalize_relative(raw)
    if parts[0] != expected_dir or len(parts) < 2:
        raise UnsupportedPath(f"expected under {expected_dir}/")
    root = skill_dir.resolve()
    candidate = root.joinpath(*parts)
    try:
        real = candidate.resolve(strict=True)
    except FileNotFoundError:
        raise SkillIoError(f"not found: {raw}") from None
    except (OSError, RuntimeError) as exc:
        raise SkillIoError(f"cannot access {raw}: {exc}") from None
    if not real.is_relative_to(root):
        raise PathEscapesRoot("path is outside skill root")
    if not real.is_file():
        raise SkillIoError(f"not a regular file: {raw}")
    return real
