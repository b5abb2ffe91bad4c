"""Plugin registration: registrar duplicates, ExecutionEnv structural vs behavioural
components, and the runtime's loop plugins driven through a real PhaseRuntime."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_contract.actions import (
    AddContextMessage,
    ContextMessageStoreKey,
    ContextThrottleKey,
    ExcludeTool,
    IncludeOnlyTools,
    InferenceOverrideKey,
    InterceptBlock,
    InterceptSuspend,
    RunLifecycleKey,
    RunLifecycleUpdate,
    SetInferenceOverride,
    ToolCallStatesKey,
    ToolFilterKey,
    ToolInterceptAction,
    ToolInterceptKey,
)
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.contract.message import Message
from awaken_contract.contract.suspension import SuspendTicket
from awaken_contract.contract.tool import Tool, ToolCallContext, ToolDescriptor, ToolResult
from awaken_contract.errors import (
    EffectHandlerAlreadyRegistered,
    HandlerAlreadyRegistered,
    KeyAlreadyRegistered,
    ToolAlreadyRegistered,
)
from awaken_contract.model import (
    EffectSpec,
    Phase,
    ScheduledActionHandler,
    ScheduledActionSpec,
    TypedEffectHandler,
)
from awaken_contract.plugin import (
    InferenceRequestTransform,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
    TransformOutput,
)
from awaken_contract.registry_spec import InferenceOverride
from awaken_contract.state import KeyScope, MutationBatch, Snapshot, StateCommand, StateKey
from awaken_runtime.phase import PhaseRuntime
from awaken_runtime.plugins import (
    ExecutionEnv,
    LoopActionHandlersPlugin,
    LoopStatePlugin,
    RuntimePluginRegistrar,
    loop_state_registrations,
)
from awaken_runtime.state import StateStore


class Flag(StateKey[bool, bool]):
    KEY = "flag"


class Ping(ScheduledActionSpec[str]):
    KEY = "test.ping"
    PHASE = Phase.STEP_START


class PingHandler(ScheduledActionHandler[str]):
    async def handle(self, payload: str, snapshot: Snapshot) -> StateCommand:
        return StateCommand().update(Flag, True)


class Note(EffectSpec[str]):
    KEY = "test.note"


class NoteHandler(TypedEffectHandler[str]):
    async def handle_typed(self, payload: str, snapshot: Snapshot) -> None:
        return None


class NoopHook(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        return StateCommand()


class NoopGate(ToolGateHook):
    async def run(self, ctx: PhaseContext) -> None:
        return None


class Identity(InferenceRequestTransform):
    def transform(self, messages: list[Message], tools: list[ToolDescriptor]) -> TransformOutput:
        return TransformOutput(messages)


class Echo(Tool):
    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor("echo", "echo", "Echo")

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        return ToolResult.success("echo", args)


class FullPlugin(Plugin):
    """Registers one of everything."""

    def __init__(self, name: str, *, handlers: bool = True, tool: bool = True) -> None:
        self.name, self.handlers, self.tool = name, handlers, tool

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(self.name)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_key(Flag)
        if self.handlers:
            registrar.register_scheduled_action(Ping, PingHandler())
            registrar.register_effect(Note, NoteHandler())
        registrar.register_phase_hook(self.name, Phase.STEP_START, NoopHook())
        registrar.register_phase_hook(self.name, Phase.STEP_START, NoopHook())
        registrar.register_tool_gate_hook(self.name, NoopGate())
        registrar.register_request_transform(self.name, Identity())
        if self.tool:
            registrar.register_tool("echo", Echo())


def test_registrar_rejects_duplicates_within_one_plugin() -> None:
    r = RuntimePluginRegistrar("p")
    r.register_key(Flag)
    with pytest.raises(KeyAlreadyRegistered):
        r.register_key(Flag)
    r.register_scheduled_action(Ping, PingHandler())
    with pytest.raises(HandlerAlreadyRegistered) as err:
        r.register_scheduled_action(Ping, PingHandler())
    assert str(err.value) == "scheduled action handler already registered: test.ping"
    r.register_effect(Note, NoteHandler())
    with pytest.raises(EffectHandlerAlreadyRegistered):
        r.register_effect(Note, NoteHandler())
    r.register_tool("echo", Echo())
    with pytest.raises(ToolAlreadyRegistered) as tool_err:
        r.register_tool("echo", Echo())
    assert str(tool_err.value) == "tool already registered: echo"

    class Profile:
        KEY = "profile.prefs"

    r.register_profile_key(Profile)
    with pytest.raises(KeyAlreadyRegistered):
        r.register_profile_key(Profile)
    # Hooks may repeat.
    r.register_phase_hook("p", Phase.RUN_END, NoopHook())
    r.register_phase_hook("p", Phase.RUN_END, NoopHook())
    assert len(r.phase_hooks) == 2
    assert r.keys[0].owner == "p" and r.keys[0].scope is KeyScope.RUN


def test_env_collects_everything_from_active_plugins() -> None:
    env = ExecutionEnv.from_plugins([FullPlugin("full")])
    assert [h.plugin_id for h in env.hooks_for_phase(Phase.STEP_START)] == ["full", "full"]
    assert env.hooks_for_phase(Phase.RUN_END) == []
    assert list(env.action_handlers) == ["test.ping"]
    assert list(env.effect_handlers) == ["test.note"]
    assert len(env.tool_gate_hooks) == 1 and len(env.transforms()) == 1
    assert list(env.tools) == ["echo"]
    assert [r.key_name for r in env.key_registrations] == ["flag"]


def test_inactive_plugins_keep_structural_components_only() -> None:
    env = ExecutionEnv.from_plugins([FullPlugin("full")], active_filter={"someone-else"})
    assert env.plugin_ids() == ["full"]
    assert list(env.action_handlers) == ["test.ping"]
    assert list(env.effect_handlers) == ["test.note"]
    assert [r.key_name for r in env.key_registrations] == ["flag"]
    assert env.hooks_for_phase(Phase.STEP_START) == []
    assert env.tool_gate_hooks == [] and env.transforms() == [] and env.tools == {}


def test_duplicates_across_plugins() -> None:
    with pytest.raises(HandlerAlreadyRegistered):
        ExecutionEnv.from_plugins([FullPlugin("a", tool=False), FullPlugin("b", tool=False)])
    with pytest.raises(ToolAlreadyRegistered):
        ExecutionEnv.from_plugins([FullPlugin("a"), FullPlugin("b", handlers=False)])
    # The same tool id from an inactive plugin does not clash.
    env = ExecutionEnv.from_plugins(
        [FullPlugin("a"), FullPlugin("b", handlers=False)], active_filter={"a"}
    )
    assert list(env.tools) == ["echo"]
    # Keys registered by several plugins are merged.
    assert [r.key_name for r in env.key_registrations] == ["flag"]


class EffectOnly(Plugin):
    """An infrastructure plugin: works without being in the active filter."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("logger")

    def register(self, registrar: PluginRegistrar) -> None:
        seen = self.seen

        class Recorder(TypedEffectHandler[str]):
            async def handle_typed(self, payload: str, snapshot: Snapshot) -> None:
                seen.append(payload)

        registrar.register_effect(Note, Recorder())


async def test_effect_handler_of_an_inactive_plugin_still_fires() -> None:
    logger = EffectOnly()

    class Emitter(PhaseHook):
        async def run(self, ctx: PhaseContext) -> StateCommand:
            return StateCommand().emit(Note, "hello")

    class EmitterPlugin(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("emitter")

        def register(self, registrar: PluginRegistrar) -> None:
            registrar.register_phase_hook("emitter", Phase.RUN_START, Emitter())

    env = ExecutionEnv.from_plugins([logger, EmitterPlugin()], active_filter={"emitter"})
    runtime = PhaseRuntime(StateStore())
    ctx = PhaseContext.test_default()
    await runtime.run_phase(env, ctx.replace(agent_spec=ctx.agent_spec.with_hook_filter("emitter")))
    assert logger.seen == ["hello"]


# --------------------------------------------------------------------------- loop plugins


def _loop() -> tuple[StateStore, PhaseRuntime, ExecutionEnv]:
    store = StateStore()
    runtime = PhaseRuntime(store)
    store.install_plugin(LoopStatePlugin())
    env = ExecutionEnv.from_plugins([LoopActionHandlersPlugin()])
    store.register_keys(env.key_registrations)
    return store, runtime, env


def test_loop_state_keys_and_scopes() -> None:
    store, _, _ = _loop()
    tool_calls = store.registration(ToolCallStatesKey.KEY)
    lifecycle = store.registration(RunLifecycleKey.KEY)
    assert tool_calls is not None and tool_calls.scope is KeyScope.THREAD
    assert lifecycle is not None and lifecycle.scope is KeyScope.RUN


async def _schedule(
    runtime: PhaseRuntime, env: ExecutionEnv, *actions: tuple[type[ScheduledActionSpec[Any]], Any]
) -> None:
    cmd = StateCommand()
    for spec, payload in actions:
        cmd.schedule_action(spec, payload)
    await runtime.submit_command(env, cmd)
    await runtime.run_execute_loop(env, PhaseContext.test_default(Phase.BEFORE_INFERENCE))


async def test_core_actions_update_tool_filter_and_overrides() -> None:
    store, runtime, env = _loop()
    await _schedule(
        runtime,
        env,
        (ExcludeTool, "rm"),
        (IncludeOnlyTools, ["ls", "rm"]),
        (SetInferenceOverride, InferenceOverride(temperature=0.1, max_tokens=5)),
        (SetInferenceOverride, InferenceOverride(temperature=0.9)),
    )
    tool_filter = store.read(ToolFilterKey)
    assert tool_filter is not None and tool_filter.filter_ids(["cat", "ls", "rm"]) == ["ls"]
    override = store.read(InferenceOverrideKey)
    assert override is not None and override.overrides is not None
    assert (override.overrides.temperature, override.overrides.max_tokens) == (0.9, 5)


async def test_context_message_throttle_by_cooldown() -> None:
    store, runtime, env = _loop()
    store.commit(MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.start("r1")))
    hint = ContextMessage.system("hint", "check the docs").with_cooldown(2)

    async def inject_at_step(completed_steps: int, message: ContextMessage) -> bool:
        while (
            store.read(RunLifecycleKey) or RunLifecycleKey.default()
        ).step_count < completed_steps:
            store.commit(
                MutationBatch().update(RunLifecycleKey, RunLifecycleUpdate.step_completed_at())
            )
        store.commit(MutationBatch().update(ContextMessageStoreKey, _remove_all(store)))
        await _schedule(runtime, env, (AddContextMessage, message))
        messages = store.read(ContextMessageStoreKey)
        return messages is not None and message.key in messages.messages

    assert await inject_at_step(0, hint)  # step 1: first time
    assert not await inject_at_step(1, hint)  # step 2: within cooldown, same content
    assert await inject_at_step(1, ContextMessage.system("hint", "changed").with_cooldown(2))
    assert not await inject_at_step(2, ContextMessage.system("hint", "changed").with_cooldown(2))
    assert await inject_at_step(3, ContextMessage.system("hint", "changed").with_cooldown(2))
    throttle = store.read(ContextThrottleKey)
    assert throttle is not None and throttle.entries["hint"].last_step == 4
    # cooldown 0 always injects
    assert await inject_at_step(3, ContextMessage.system("always", "x"))
    assert await inject_at_step(3, ContextMessage.system("always", "x"))


def _remove_all(store: StateStore) -> Any:
    from awaken_contract.actions import RemoveContextMessages

    current = store.read(ContextMessageStoreKey)
    return RemoveContextMessages(list(current.messages) if current is not None else [])


async def test_tool_intercept_action_keeps_the_highest_priority() -> None:
    store, runtime, env = _loop()

    class Deny(PhaseHook):
        async def run(self, ctx: PhaseContext) -> StateCommand:
            return StateCommand().schedule_action(ToolInterceptAction, InterceptBlock("denied"))

    class Ask(PhaseHook):
        async def run(self, ctx: PhaseContext) -> StateCommand:
            ticket = SuspendTicket()
            return StateCommand().schedule_action(ToolInterceptAction, InterceptSuspend(ticket))

    class Gatekeepers(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("gates")

        def register(self, registrar: PluginRegistrar) -> None:
            registrar.register_phase_hook("gates", Phase.BEFORE_TOOL_EXECUTE, Ask())
            registrar.register_phase_hook("gates", Phase.BEFORE_TOOL_EXECUTE, Deny())

    env = ExecutionEnv.from_plugins([LoopActionHandlersPlugin(), Gatekeepers()])
    ctx = PhaseContext.test_default(Phase.BEFORE_TOOL_EXECUTE).replace(
        tool_name="rm", tool_call_id="c1", tool_args={}
    )
    cmd = await runtime.collect_commands(env, ctx)
    await runtime.submit_command(env, cmd)
    report = await runtime.run_execute_loop(env, ctx)
    assert report.processed_scheduled_actions == 2
    intercept = store.read(ToolInterceptKey)
    assert intercept is not None and intercept.payload == InterceptBlock("denied")
    store.commit(MutationBatch().update(ToolInterceptKey, None))
    assert (store.read(ToolInterceptKey) or intercept).payload is None


async def test_async_functions_are_accepted_as_phase_hooks() -> None:
    async def count(ctx: PhaseContext) -> StateCommand:
        return StateCommand().update(Flag, ctx.phase is Phase.RUN_END)

    class FnHookPlugin(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("fn")

        def register(self, registrar: PluginRegistrar) -> None:
            registrar.register_key(Flag)
            registrar.register_phase_hook("fn", Phase.RUN_END, count)

    env = ExecutionEnv.from_plugins([FnHookPlugin()])
    (tagged,) = env.hooks_for_phase(Phase.RUN_END)
    assert isinstance(tagged.hook, PhaseHook)
    store = StateStore()
    runtime = PhaseRuntime(store)
    store.register_keys(env.key_registrations)
    await runtime.run_phase(env, PhaseContext.test_default(Phase.RUN_END))
    assert store.read(Flag) is True


def test_loop_state_registrations_match_the_plugin() -> None:
    installed = StateStore()
    installed.install_plugin(LoopStatePlugin())
    fast = StateStore()
    fast.register_keys(loop_state_registrations())
    names = [r.name for r in loop_state_registrations()]
    assert names == [
        "__runtime.run_lifecycle",
        "__runtime.tool_call_states",
        "__runtime.context_throttle",
        "__runtime.context_message_store",
        "__runtime.pending_work",
        "__runtime.delegate_remote_tasks",
    ]
    for name in names:
        assert installed.registration(name) == fast.registration(name)


async def test_tool_policy_hooks_become_gate_hooks() -> None:
    from awaken_contract.tool_policy import ToolPolicyContext, ToolPolicyDecision, ToolPolicyHook

    class NoDeletes(ToolPolicyHook):
        async def evaluate(self, ctx: ToolPolicyContext) -> ToolPolicyDecision:
            if ctx.tool_name.startswith("delete"):
                return ToolPolicyDecision.deny("deletes are disabled")
            return ToolPolicyDecision.allow()

    class PolicyPlugin(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("policy")

        def register(self, registrar: PluginRegistrar) -> None:
            registrar.register_tool_policy_hook("policy", NoDeletes())

    env = ExecutionEnv.from_plugins([PolicyPlugin()])
    (gate,) = env.tool_gate_hooks
    assert gate.plugin_id == "policy"
    ctx = PhaseContext.test_default(Phase.TOOL_GATE)
    assert await gate.hook.run(ctx.replace(tool_name="delete_file")) == InterceptBlock(
        "deletes are disabled"
    )
    assert await gate.hook.run(ctx.replace(tool_name="read_file")) is None
    assert ExecutionEnv.from_plugins([PolicyPlugin()], active_filter={"x"}).tool_gate_hooks == []


async def test_async_functions_are_accepted_as_action_and_effect_handlers() -> None:
    notes: list[str] = []

    async def on_ping(payload: str, snapshot: Snapshot) -> StateCommand:
        return StateCommand().update(Flag, payload == "on").emit(Note, payload)

    async def on_note(payload: str, snapshot: Snapshot) -> None:
        notes.append(f"{payload}:{snapshot.get(Flag)}")

    class FnHandlers(Plugin):
        def descriptor(self) -> PluginDescriptor:
            return PluginDescriptor("fn-handlers")

        def register(self, registrar: PluginRegistrar) -> None:
            registrar.register_key(Flag)
            registrar.register_scheduled_action(Ping, on_ping)
            registrar.register_effect(Note, on_note)

    env = ExecutionEnv.from_plugins([FnHandlers()])
    store = StateStore()
    runtime = PhaseRuntime(store)
    store.register_keys(env.key_registrations)
    await runtime.submit_command(env, StateCommand().schedule_action(Ping, "on"))
    report = await runtime.run_execute_loop(env, PhaseContext.test_default(Phase.STEP_START))
    assert report.processed_scheduled_actions == 1
    assert store.read(Flag) is True
    assert notes == ["on:True"]
