"""The plugin contract: PhaseContext, hooks, transforms, ToolKind, ConfigSchema."""

from __future__ import annotations

import pydantic
from awaken_contract.contract.message import Message
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    ConfigSchema,
    InferenceRequestTransform,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    ToolKind,
    TransformOutput,
    apply_transforms,
)
from awaken_contract.registry_spec import PluginConfigKey
from awaken_contract.state import MutationBatch, Snapshot, StateCommand, StateKey, StateMap


class AuditLogKey(StateKey[list[str], list[str]]):
    KEY = "audit_log"


class AuditHook(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        log = list(ctx.state(AuditLogKey) or [])
        log.append(f"Phase executed at {ctx.phase}")
        return StateCommand().update(AuditLogKey, log)


class AuditPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(name="audit")


async def test_hook_runs_against_default_context() -> None:
    ctx = PhaseContext.test_default()
    assert ctx.phase is Phase.RUN_START
    assert ctx.snapshot.revision == 0
    assert ctx.agent_spec.id == "default"
    assert ctx.messages == ()
    assert not ctx.is_cancelled
    cmd = await AuditHook().run(ctx)
    assert not cmd.is_empty
    assert cmd.patch.ops[0][2] == ["Phase executed at run_start"]


def test_context_copies_are_cheap_and_frozen() -> None:
    ctx = PhaseContext.test_default(Phase.AFTER_INFERENCE)
    snap = Snapshot(3, StateMap({"audit_log": ["x"]}))
    other = ctx.with_snapshot(snap)
    assert other.state(AuditLogKey) == ["x"]
    assert ctx.state(AuditLogKey) is None
    tool_ctx = other.replace(phase=Phase.BEFORE_TOOL_EXECUTE, tool_name="bash", tool_args={})
    assert tool_ctx.tool_name == "bash" and tool_ctx.snapshot is snap
    assert other.with_phase(Phase.STEP_END).phase is Phase.STEP_END


def test_plugin_defaults() -> None:
    plugin = AuditPlugin()
    assert plugin.plugin_id == "audit"
    assert plugin.config_schemas() == []
    batch = MutationBatch()
    plugin.on_activate(PhaseContext.test_default().agent_spec, batch)
    plugin.on_deactivate(batch)
    assert batch.is_empty


def test_tool_kind_inference_order() -> None:
    assert ToolKind.infer("edit_file") is ToolKind.EDIT
    assert ToolKind.infer("delete_file") is ToolKind.EDIT
    assert ToolKind.infer("grep") is ToolKind.SEARCH
    assert ToolKind.infer("read_file") is ToolKind.READ
    assert ToolKind.infer("Bash") is ToolKind.EXECUTE
    assert ToolKind.infer("get_weather") is ToolKind.OTHER


class Prepend(InferenceRequestTransform):
    def __init__(self, text: str) -> None:
        self.text = text

    def transform(self, messages: list[Message], tools: list[ToolDescriptor]) -> TransformOutput:
        return TransformOutput([Message.system(self.text), *messages])


class DropTools(InferenceRequestTransform):
    def transform(self, messages: list[Message], tools: list[ToolDescriptor]) -> TransformOutput:
        return TransformOutput(messages, [t for t in tools if t.id != "secret"])


def test_apply_transforms_chains_in_order() -> None:
    tools = [ToolDescriptor("a", "a", "A"), ToolDescriptor("secret", "s", "S")]
    messages, out_tools = apply_transforms(
        [Message.user("hello")], tools, [Prepend("first"), DropTools(), Prepend("second")]
    )
    assert [m.text() for m in messages] == ["second", "first", "hello"]
    assert [t.id for t in out_tools] == ["a"]


class Limits(pydantic.BaseModel):
    max_calls: int = 3


class LimitsKey(PluginConfigKey[Limits]):
    KEY = "limits"
    CONFIG = Limits


def test_config_schema_for_typed_section() -> None:
    schema = ConfigSchema.for_key(LimitsKey)
    assert schema.key == "limits"
    assert schema.json_schema["properties"]["max_calls"]["default"] == 3
