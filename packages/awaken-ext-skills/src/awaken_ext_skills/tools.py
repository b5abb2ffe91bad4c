"""The tools the discovery plugin offers: ``skill``, ``load_skill_resource``, ``skill_script``.

Failures are error results with ``data = {"error": {"code", "message"}}`` and the message
``[<code>] <message>`` so the model can react.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolOutput,
    ToolResult,
)
from awaken_contract.state import StateCommand

from awaken_ext_skills.errors import (
    InvalidSkillArguments,
    SkillError,
    UnknownSkill,
    UnsupportedPath,
)
from awaken_ext_skills.paths import normalize_relative
from awaken_ext_skills.registry import RegistrySource, SkillRegistry, registry_for
from awaken_ext_skills.skill import Skill
from awaken_ext_skills.state import ActivateSkill, SkillStateKey

__all__ = [
    "LOAD_SKILL_RESOURCE_TOOL_ID",
    "SKILL_SCRIPT_TOOL_ID",
    "SKILL_TOOL_ID",
    "SKILL_TOOL_IDS",
    "LoadSkillResourceTool",
    "SkillActivateTool",
    "SkillScriptTool",
]

SKILL_TOOL_ID = "skill"
LOAD_SKILL_RESOURCE_TOOL_ID = "load_skill_resource"
SKILL_SCRIPT_TOOL_ID = "skill_script"
SKILL_TOOL_IDS = (SKILL_TOOL_ID, LOAD_SKILL_RESOURCE_TOOL_ID, SKILL_SCRIPT_TOOL_ID)


def _error(tool_id: str, error: SkillError) -> ToolResult:
    return ToolResult.error_with_code(tool_id, error.code, error.message)


def _lookup(registry: SkillRegistry, args: Any) -> Skill:
    key = args.get("skill") if isinstance(args, dict) else None
    if not isinstance(key, str) or not key.strip():
        raise InvalidSkillArguments("missing 'skill'")
    skill = registry.get(key.strip())
    if skill is None:
        raise UnknownSkill(f"Unknown skill: {key.strip()}")
    return skill


async def _guarded(
    tool_id: str, body: Callable[[], Awaitable[ToolResult | ToolOutput]]
) -> ToolResult | ToolOutput:
    try:
        return await body()
    except SkillError as exc:
        return _error(tool_id, exc)


class SkillActivateTool(Tool):
    """``skill``: activate a skill; its instructions are injected from the next inference on."""

    def __init__(self, registry: RegistrySource) -> None:
        self._registry = registry

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(
            SKILL_TOOL_ID,
            "Skill",
            "Activate a skill from the available_skills catalog. Its instructions are added "
            "to your context for the rest of the run.",
        ).with_parameters(
            {
                "type": "object",
                "properties": {
                    "skill": {"type": "string", "description": "Skill id"},
                    "args": {"oneOf": [{"type": "string"}, {"type": "object"}]},
                    "arguments": {"type": "object", "additionalProperties": True},
                },
                "required": ["skill"],
            }
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult | ToolOutput:
        async def body() -> ToolOutput:
            skill = _lookup(registry_for(self._registry, ctx.agent_spec), args)
            arguments = args.get("arguments")
            if arguments is None:
                arguments = args.get("args")
            await skill.activate(arguments)
            result = ToolResult.success_with_message(
                SKILL_TOOL_ID,
                {"activated": True, "skill_id": skill.id},
                f"Launching skill: {skill.id}",
            )
            return ToolOutput.with_command(
                result, StateCommand().update(SkillStateKey, ActivateSkill(skill.id))
            )

        return await _guarded(SKILL_TOOL_ID, body)


class LoadSkillResourceTool(Tool):
    """``load_skill_resource``: read a file under ``references/`` or ``assets/``."""

    def __init__(self, registry: RegistrySource) -> None:
        self._registry = registry

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(
            LOAD_SKILL_RESOURCE_TOOL_ID,
            "Load Skill Resource",
            "Load a skill resource: a text file under references/ or a file under assets/ "
            "(returned base64-encoded).",
        ).with_parameters(
            {
                "type": "object",
                "properties": {
                    "skill": {"type": "string"},
                    "path": {"type": "string"},
                    "kind": {"type": "string", "enum": ["reference", "asset"]},
                },
                "required": ["skill", "path"],
            }
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult | ToolOutput:
        async def body() -> ToolResult:
            skill = _lookup(registry_for(self._registry, ctx.agent_spec), args)
            path = args.get("path")
            if not isinstance(path, str):
                raise InvalidSkillArguments("missing 'path'")
            kind = _resource_kind(path, args.get("kind"))
            if kind == "reference":
                ref = await skill.load_reference(path)
                data: dict[str, Any] = {
                    "loaded": True,
                    "skill_id": skill.id,
                    "kind": "reference",
                    "path": ref.path,
                    "bytes": ref.bytes,
                    "truncated": ref.truncated,
                    "content": ref.content,
                }
            else:
                asset = await skill.load_asset(path)
                data = {
                    "loaded": True,
                    "skill_id": skill.id,
                    "kind": "asset",
                    "path": asset.path,
                    "bytes": asset.bytes,
                    "truncated": asset.truncated,
                    "media_type": asset.media_type,
                    "encoding": asset.encoding,
                    "content": asset.content,
                }
            return ToolResult.success(LOAD_SKILL_RESOURCE_TOOL_ID, data)

        return await _guarded(LOAD_SKILL_RESOURCE_TOOL_ID, body)


def _resource_kind(path: str, explicit: Any) -> str:
    parts = normalize_relative(path)
    by_prefix = {"references": "reference", "assets": "asset"}.get(parts[0])
    if explicit is not None:
        if explicit not in ("reference", "asset"):
            raise InvalidSkillArguments("kind must be 'reference' or 'asset'")
        if by_prefix is not None and by_prefix != explicit:
            raise InvalidSkillArguments(f"kind '{explicit}' does not match path '{path}'")
    kind = by_prefix or explicit
    if kind is None:
        raise UnsupportedPath("expected under references/ or assets/")
    return str(kind)


class SkillScriptTool(Tool):
    """``skill_script``: run a script under ``scripts/``."""

    def __init__(self, registry: RegistrySource) -> None:
        self._registry = registry

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(
            SKILL_SCRIPT_TOOL_ID,
            "Skill Script",
            "Run a skill script (scripts/<file>: .sh, .py or .js) with optional arguments.",
        ).with_parameters(
            {
                "type": "object",
                "properties": {
                    "skill": {"type": "string"},
                    "script": {"type": "string"},
                    "args": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["skill", "script"],
            }
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult | ToolOutput:
        async def body() -> ToolResult:
            skill = _lookup(registry_for(self._registry, ctx.agent_spec), args)
            script = args.get("script")
            if not isinstance(script, str):
                raise InvalidSkillArguments("missing 'script'")
            raw_args = args.get("args")
            script_args = (
                [a for a in raw_args if isinstance(a, str)] if isinstance(raw_args, list) else []
            )
            out = await skill.run_script(script, script_args)
            return ToolResult.success(
                SKILL_SCRIPT_TOOL_ID,
                {
                    "ok": out.exit_code == 0,
                    "skill_id": skill.id,
                    "script": out.script,
                    "exit_code": out.exit_code,
                    "stdout_truncated": out.truncated_stdout,
                    "stderr_truncated": out.truncated_stderr,
                    "stdout": out.stdout,
                    "stderr": out.stderr,
                },
            )

        return await _guarded(SKILL_SCRIPT_TOOL_ID, body)
