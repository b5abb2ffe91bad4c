"""Filesystem skills: ``<root>/<skill-name>/SKILL.md`` plus ``references/``, ``assets/`` and
``scripts/`` folders.

Discovery reads only the frontmatter; a bad skill becomes a :class:`SkillWarning` instead of
failing the whole discovery. Resources are read on demand and can never leave the skill's
directory (``..``, absolute paths and symlinks pointing outside are rejected).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import signal
from collections.abc import Iterable
from pathlib import Path

import msgspec

from awaken_ext_skills.errors import (
    DuplicateSkillId,
    InvalidSkillArguments,
    InvalidSkillMd,
    ScriptTimeout,
    SkillIoError,
    UnsupportedRuntime,
)
from awaken_ext_skills.frontmatter import parse_skill_md, validate_skill_name
from awaken_ext_skills.meta import SkillMeta
from awaken_ext_skills.paths import resolve_in_skill
from awaken_ext_skills.skill import (
    LoadedAsset,
    LoadedReference,
    ScriptResult,
    Skill,
    media_type_for,
)

__all__ = [
    "MAX_ASSET_BYTES",
    "MAX_REFERENCE_BYTES",
    "MAX_SCRIPT_OUTPUT_BYTES",
    "SCRIPT_TIMEOUT_SECS",
    "DiscoveryResult",
    "FsSkill",
    "SkillWarning",
]

SKILL_FILE = "SKILL.md"
MAX_REFERENCE_BYTES = 256 * 1024
MAX_ASSET_BYTES = 512 * 1024
MAX_SCRIPT_OUTPUT_BYTES = 32 * 1024
SCRIPT_TIMEOUT_SECS = 60.0
MAX_SCRIPT_ARGS = 64
MAX_SCRIPT_ARG_BYTES = 8 * 1024
MAX_SCRIPT_ARGS_TOTAL = 64 * 1024

_INTERPRETERS = {".sh": "bash", ".py": "python3", ".js": "node"}


class SkillWarning(msgspec.Struct, frozen=True):
    """A skipped skill directory or file and why."""

    path: str
    reason: str


class DiscoveryResult(msgspec.Struct):
    """Discovered skills (sorted by id) and warnings (sorted by path)."""

    skills: list[FsSkill]
    warnings: list[SkillWarning]


def _read_limited(path: Path, limit: int) -> tuple[bytes, int]:
    size = path.stat().st_size
    with path.open("rb") as fh:
        data = fh.read(limit)
    return data, size


class FsSkill(Skill):
    """A skill stored in a directory. ``script_timeout`` (seconds, default 60) bounds scripts."""

    script_timeout: float = SCRIPT_TIMEOUT_SECS

    def __init__(self, directory: Path, meta: SkillMeta) -> None:
        self.directory = directory
        self._meta = meta

    def meta(self) -> SkillMeta:
        """Metadata from the frontmatter (``id = name``)."""
        return self._meta

    @property
    def skill_md(self) -> Path:
        """Path of the SKILL.md file."""
        return self.directory / SKILL_FILE

    # ------------------------------------------------------------------ discovery
    @classmethod
    def from_dir(cls, directory: str | os.PathLike[str]) -> FsSkill:
        """Load one skill directory (raises :class:`SkillError`)."""
        path = Path(directory).resolve()
        try:
            text = (path / SKILL_FILE).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SkillIoError(f"failed to read {path / SKILL_FILE}: {exc}") from None
        front = parse_skill_md(text).frontmatter
        return cls(path, front.to_meta())

    @classmethod
    def discover(cls, root: str | os.PathLike[str]) -> DiscoveryResult:
        """Discover the skills under one root."""
        return cls.discover_roots([root])

    @classmethod
    def discover_roots(cls, roots: Iterable[str | os.PathLike[str]]) -> DiscoveryResult:
        """Discover the skills under several roots; the same id twice is
        :class:`DuplicateSkillId`, an unreadable root is :class:`SkillIoError`."""
        skills: dict[str, FsSkill] = {}
        warnings: list[SkillWarning] = []
        for root in roots:
            try:
                base = Path(root).resolve(strict=True)
                entries = sorted(base.iterdir())
            except OSError as exc:
                raise SkillIoError(f"failed to access skills root: {root}: {exc}") from None
            for entry in entries:
                skill = cls._discover_entry(entry, warnings)
                if skill is None:
                    continue
                if skill.id in skills:
                    raise DuplicateSkillId(skill.id)
                skills[skill.id] = skill
        return DiscoveryResult(
            skills=[skills[k] for k in sorted(skills)],
            warnings=sorted(warnings, key=lambda w: w.path),
        )

    @classmethod
    def _discover_entry(cls, entry: Path, warnings: list[SkillWarning]) -> FsSkill | None:
        if entry.name.startswith(".") or entry.is_symlink() or not entry.is_dir():
            return None
        try:
            dir_name = validate_skill_name(entry.name, "directory name")
        except ValueError as exc:
            warnings.append(SkillWarning(str(entry), str(exc)))
            return None
        skill_md = entry / SKILL_FILE
        if not skill_md.is_file():
            warnings.append(SkillWarning(str(entry), f"missing {SKILL_FILE}"))
            return None
        try:
            text = skill_md.read_text(encoding="utf-8")
            front = parse_skill_md(text).frontmatter
        except (OSError, UnicodeDecodeError) as exc:
            warnings.append(SkillWarning(str(skill_md), f"io error: {exc}"))
            return None
        except InvalidSkillMd as exc:
            warnings.append(SkillWarning(str(skill_md), exc.message))
            return None
        if front.name != dir_name:
            warnings.append(
                SkillWarning(
                    str(skill_md),
                    f"frontmatter name '{front.name}' does not match directory '{dir_name}'",
                )
            )
            return None
        return cls(entry.resolve(), front.to_meta())

    @staticmethod
    def into_arc_skills(skills: Iterable[Skill]) -> list[Skill]:
        """The discovered skills as a list of :class:`Skill` (the book's ``into_arc_skills``)."""
        return list(skills)

    # ------------------------------------------------------------------ content
    async def read_instructions(self) -> str:
        """The SKILL.md text, read now (so edits are picked up)."""
        try:
            return await asyncio.to_thread(self.skill_md.read_text, encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SkillIoError(f"failed to read {self.skill_md}: {exc}") from None

    async def load_reference(self, path: str) -> LoadedReference:
        """A UTF-8 text file under ``references/`` (first 256 KiB)."""
        real = resolve_in_skill(self.directory, path, "references")
        data, size = await asyncio.to_thread(_read_limited, real, MAX_REFERENCE_BYTES)
        content = _decode_utf8(data, truncated=size > MAX_REFERENCE_BYTES, path=path)
        return LoadedReference(
            skill=self.id,
            path=path,
            sha256=hashlib.sha256(data).hexdigest(),
            truncated=size > MAX_REFERENCE_BYTES,
            content=content,
            bytes=size,
        )

    async def load_asset(self, path: str) -> LoadedAsset:
        """A file under ``assets/`` (first 512 KiB), base64-encoded."""
        real = resolve_in_skill(self.directory, path, "assets")
        data, size = await asyncio.to_thread(_read_limited, real, MAX_ASSET_BYTES)
        return LoadedAsset(
            skill=self.id,
            path=path,
            sha256=hashlib.sha256(data).hexdigest(),
            truncated=size > MAX_ASSET_BYTES,
            bytes=size,
            media_type=media_type_for(path),
            content=base64.b64encode(data).decode("ascii"),
        )

    async def run_script(self, script: str, args: list[str]) -> ScriptResult:
        """Run a ``.sh`` / ``.py`` / ``.js`` file under ``scripts/`` in the skill directory
        (stdin closed, 60 s timeout, outputs truncated to 32 KiB each)."""
        _check_script_args(args)
        real = resolve_in_skill(self.directory, script, "scripts")
        interpreter = _INTERPRETERS.get(real.suffix.lower())
        if interpreter is None:
            raise UnsupportedRuntime(f"script runtime not supported for: {script}")
        try:
            proc = await asyncio.create_subprocess_exec(
                interpreter,
                str(real),
                *args,
                cwd=str(self.directory),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise SkillIoError(f"failed to start {interpreter}: {exc}") from None
        try:
            stdout, stderr = await asyncio.wait_for(proc.communicate(), self.script_timeout)
        except TimeoutError:
            _kill_group(proc.pid)
            await proc.wait()
            raise ScriptTimeout(f"script timed out after {self.script_timeout:g}s") from None
        except asyncio.CancelledError:
            _kill_group(proc.pid)
            raise
        code = proc.returncode if proc.returncode is not None and proc.returncode >= 0 else -1
        limit = MAX_SCRIPT_OUTPUT_BYTES
        return ScriptResult(
            skill=self.id,
            script=script,
            sha256=hashlib.sha256(stdout + stderr).hexdigest(),
            truncated_stdout=len(stdout) > limit,
            truncated_stderr=len(stderr) > limit,
            exit_code=code,
            stdout=stdout[:limit].decode("utf-8", errors="replace"),
            stderr=stderr[:limit].decode("utf-8", errors="replace"),
        )


def _decode_utf8(data: bytes, *, truncated: bool, path: str) -> str:
    """Strict UTF-8; a truncated file may end inside a character, which is dropped."""
    for cut in range(4 if truncated else 1):
        try:
            return data[: len(data) - cut].decode("utf-8")
        except UnicodeDecodeError as exc:
            error = exc
    raise SkillIoError(f"reference is not valid UTF-8: {path}: {error}") from None


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _check_script_args(args: list[str]) -> None:
    if len(args) > MAX_SCRIPT_ARGS:
        raise InvalidSkillArguments(f"invalid script arguments: more than {MAX_SCRIPT_ARGS}")
    total = 0
    for arg in args:
        if "\x00" in arg:
            raise InvalidSkillArguments("invalid script arguments: NUL byte in argument")
        size = len(arg.encode("utf-8"))
        if size > MAX_SCRIPT_ARG_BYTES:
            raise InvalidSkillArguments("invalid script arguments: argument longer than 8 KiB")
        total += size
    if total > MAX_SCRIPT_ARGS_TOTAL:
        raise InvalidSkillArguments("invalid script arguments: more than 64 KiB in total")
