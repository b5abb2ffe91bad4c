"""A.5/A.7/A.8 end to end: AgentRuntimeBuilder, a scripted model, real SQLite stores."""

import json
from pathlib import Path
from typing import Any

import pytest
from awaken_contract.contract.executor import InferenceRequest
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.storage import ProfileOwner
from awaken_contract.contract.tool import (
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolOutput,
    ToolResult,
)
from awaken_contract.registry_spec import AgentSpec, ModelSpec
from awaken_ext_deferred_tools import (
    DEFERRED_LIST_HEADER,
    DeferredToolsPlugin,
    defer_and_promote,
)
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.engine import ScriptedLlm, text_step, tool_step
from awaken_stores import SqliteStore


class Echo(Tool):
    """A tool with ``fields`` string parameters that echoes its arguments."""

    def __init__(self, tool_id: str, description: str = "", fields: int = 30) -> None:
        self.tool_id = tool_id
        self.description = description or f"The {tool_id} tool"
        self.fields = fields
        self.calls: list[Any] = []

    def descriptor(self) -> ToolDescriptor:
        props = {f"{self.tool_id}_arg_{i}": {"type": "string"} for i in range(self.fields)}
        return ToolDescriptor(self.tool_id, self.tool_id, self.description).with_parameters(
            {"type": "object", "properties": props}
        )

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.calls.append(args)
        return ToolResult.success(self.tool_id, {"echo": args})


PLUGIN = "ext-deferred-tools"


def tool_ids(request: InferenceRequest) -> list[str]:
    return sorted(t.id for t in request.tools)


def deferred_list(request: InferenceRequest) -> str | None:
    for message in request.messages:
        if message.role is Role.SYSTEM and message.text().startswith(DEFERRED_LIST_HEADER):
            return message.text().split("\n", 1)[1]
    return None


def call(call_id: str, name: str, args: dict | None = None) -> ToolCall:
    return ToolCall(call_id, name, args or {})


def build(
    llm: ScriptedLlm,
    tools: list[Echo],
    *,
    seeds: bool = True,
    section: dict | None = None,
    store: SqliteStore | None = None,
):
    spec = AgentSpec("ops").with_model("m").with_plugin(PLUGIN).with_max_rounds(30)
    if section is not None:
        spec = spec.with_section("deferred_tools", section)
    seed = [t.descriptor() for t in tools] if seeds else None
    builder = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_plugin(PLUGIN, DeferredToolsPlugin(seed))
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
    )
    for tool in tools:
        builder = builder.with_tool(tool.tool_id, tool)
    if store is not None:
        builder = builder.with_profile_store(store.profiles).with_thread_run_store(store)
    return builder.build()


EAGER_WEATHER = {"enabled": True, "rules": [{"tool": "get_weather", "mode": "eager"}]}


@pytest.mark.parametrize("seeds", [True, False], ids=["seed-tools", "ctx-tools"])
async def test_deferred_schemas_are_hidden_listed_and_promoted_by_toolsearch(seeds: bool) -> None:
    tools = [Echo("get_weather"), Echo("debug_dump", "Dump debug state"), Echo("big_report")]
    llm = ScriptedLlm(
        [
            tool_step([call("c1", "ToolSearch", {"query": "debug dump"})]),
            tool_step([call("c2", "debug_dump", {"x": 1})]),
            text_step("dumped"),
        ]
    )
    runtime = build(llm, tools, seeds=seeds, section=EAGER_WEATHER)
    result = await runtime.run(RunRequest("t", [Message.user("dump")]).with_agent_id("ops"))
    assert result.response == "dumped"
    first, second, third = llm.requests
    assert tool_ids(first) == ["ToolSearch", "get_weather"]
    assert deferred_list(first) == "big_report, debug_dump"
    assert tool_ids(second) == ["ToolSearch", "debug_dump", "get_weather"]
    assert deferred_list(second) == "big_report"
    assert tool_ids(third) == tool_ids(second)
    assert tools[1].calls == [{"x": 1}]
    search_result = next(m for m in third.messages if m.role is Role.TOOL)
    assert '"name": "debug_dump"' in json.loads(search_result.text())["tools"]


async def test_disabled_or_unprofitable_deferral_sends_every_tool() -> None:
    tools = [Echo("a"), Echo("b")]
    for section in ({"enabled": False}, {"beta_overhead": 1e9}):
        llm = ScriptedLlm([text_step("ok")])
        await build(llm, tools, section=section).run(
            RunRequest("t", [Message.user("x")]).with_agent_id("ops")
        )
        assert tool_ids(llm.requests[0]) == ["ToolSearch", "a", "b"]
        assert deferred_list(llm.requests[0]) is None


async def test_auto_mode_enables_when_savings_exceed_the_overhead() -> None:
    tools = [Echo(f"tool_{i}", fields=40) for i in range(10)]
    llm = ScriptedLlm([text_step("ok")])
    await build(llm, tools).run(RunRequest("t", [Message.user("x")]).with_agent_id("ops"))
    assert tool_ids(llm.requests[0]) == ["ToolSearch"]


async def test_idle_promoted_tool_is_redeferred_and_the_list_message_follows() -> None:
    tools = [Echo("get_weather"), Echo("report", fields=60)]
    section = {
        **EAGER_WEATHER,
        "disc_beta": {"defer_after": 2, "gamma": 100.0, "thresh_mult": 1.0},
    }
    script = [tool_step([call("s", "ToolSearch", {"query": "select:report"})])]
    script += [tool_step([call(f"w{i}", "get_weather")]) for i in range(5)]
    script.append(text_step("done"))
    llm = ScriptedLlm(script)
    await build(llm, tools, section=section).run(
        RunRequest("t", [Message.user("x")]).with_agent_id("ops")
    )
    has_report = ["report" in tool_ids(r) for r in llm.requests]
    lists = [deferred_list(r) for r in llm.requests]
    # promoted by the search of step 1 and never called: idle = the step count, so it is
    # re-deferred at the third BeforeInference (idle 2 >= defer_after); while nothing is
    # deferred the stale list message is removed
    assert has_report == [False, True, False, False, False, False, False]
    assert lists == ["report", None, "report", "report", "report", "report", "report"]


async def test_configured_eager_tools_are_never_redeferred() -> None:
    tools = [Echo("get_weather")]
    section = {
        "enabled": True,
        "default_mode": "eager",
        "disc_beta": {"defer_after": 0, "gamma": 1.0, "thresh_mult": 100.0},
    }
    llm = ScriptedLlm([tool_step([call("w", "get_weather")]), text_step("a")] * 2)
    await build(llm, tools, section=section).run(
        RunRequest("t", [Message.user("x")]).with_agent_id("ops")
    )
    assert all("get_weather" in tool_ids(r) for r in llm.requests)


async def test_defer_and_promote_actions() -> None:
    class Toggle(Tool):
        def descriptor(self) -> ToolDescriptor:
            return ToolDescriptor("toggle", "toggle", "swap tools")

        async def execute(self, args: dict, ctx: ToolCallContext) -> ToolOutput:
            command = defer_and_promote(defer=["a", "b"], promote=["b"])
            return ToolOutput.with_command(ToolResult.success("toggle", {}), command)

    a, b = Echo("a"), Echo("b")
    llm = ScriptedLlm(
        [tool_step([call("t1", "toggle")]), tool_step([call("b1", "b")]), text_step("ok")]
    )
    spec_tools: list[Echo] = [a, b]
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(
            AgentSpec("ops")
            .with_model("m")
            .with_plugin(PLUGIN)
            .with_section("deferred_tools", {"enabled": True, "default_mode": "eager"})
        )
        .with_plugin(PLUGIN, DeferredToolsPlugin([t.descriptor() for t in spec_tools]))
        .with_tool("a", a)
        .with_tool("b", b)
        .with_tool("toggle", Toggle())
        .with_provider("llm", llm)
        .with_model("m", ModelSpec(id="m", provider="llm", model="m-1"))
        .build()
    )
    await runtime.run(RunRequest("t", [Message.user("x")]).with_agent_id("ops"))
    assert tool_ids(llm.requests[0]) == ["ToolSearch", "a", "b", "toggle"]
    # the actions run at the next BeforeInference, after that phase's hooks: the modes are
    # changed for the step after (defers first, then promotes: b stays eager)
    assert tool_ids(llm.requests[1]) == ["ToolSearch", "a", "b", "toggle"]
    assert tool_ids(llm.requests[2]) == ["ToolSearch", "b", "toggle"]
    assert deferred_list(llm.requests[2]) == "a"


async def test_priors_are_learned_per_agent_and_initialise_the_next_run(tmp_path: Path) -> None:
    db = tmp_path / "awaken.db"
    tools = [Echo("get_weather"), Echo("report")]
    section = {"enabled": True, "rules": [{"tool": "get_weather", "mode": "eager"}]}
    store = SqliteStore(db)
    llm = ScriptedLlm(
        [
            tool_step([call("w1", "get_weather")]),
            tool_step([call("w2", "get_weather")]),
            text_step("first"),
        ]
    )
    await build(llm, tools, section=section, store=store).run(
        RunRequest("t-1", [Message.user("x")]).with_agent_id("ops")
    )
    owner = ProfileOwner.agent("ops")
    entry = await store.profiles.get(owner, "deferred_tools.agent_priors")
    assert entry is not None
    # three steps, get_weather called in two of them (λ = 1 for the first session)
    assert entry.value == {"tools": {"get_weather": pytest.approx(2 / 3)}, "session_count": 1}
    await store.close()

    reopened = SqliteStore(db)
    llm2 = ScriptedLlm([text_step("second")])
    await build(llm2, tools, section=section, store=reopened).run(
        RunRequest("t-2", [Message.user("x")]).with_agent_id("ops")
    )
    run = await reopened.latest_run("t-2")
    assert run is not None and run.state is not None
    disc = run.state.extensions["deferred_tools.disc_beta"]["tools"]
    # RunStart set alpha/beta from p = 2/3 (n0 = 5), then one unobserved step discounted them
    assert disc["get_weather"]["alpha"] == pytest.approx(5 * 2 / 3 * 0.95)
    assert disc["get_weather"]["beta_param"] == pytest.approx(5 / 3 * 0.95 + 1)
    assert disc["report"]["alpha"] == pytest.approx(0.05 * 0.95)
    entry = await reopened.profiles.get(owner, "deferred_tools.agent_priors")
    assert entry is not None and entry.value["session_count"] == 2
    # λ = 1/2: get_weather unused this run → untouched (only used tools are blended)
    assert entry.value["tools"] == {"get_weather": pytest.approx(2 / 3)}
    await reopened.close()
