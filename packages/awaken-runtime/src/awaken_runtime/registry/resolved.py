"""``ResolvedAgent`` — a fully assembled agent — and the ``AgentResolver`` interface.

A resolver turns an agent id into a :class:`ResolvedAgent`: the agent spec, the upstream model
name, the LLM executor, the final tool set, the tool executor and the :class:`ExecutionEnv`
built from the agent's plugins plus the runtime's default plugins (:func:`build_agent_env`).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping, Sequence

from awaken_contract.contract.content import TextBlock
from awaken_contract.contract.executor import LlmExecutor
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.tool import Tool, ToolDescriptor, ToolExecutionMode
from awaken_contract.model import Phase
from awaken_contract.plugin import Plugin
from awaken_contract.registry_spec import AgentSpec, ModelSpec

from awaken_runtime.context.truncation import ContextTransformPlugin
from awaken_runtime.execution.executor import (
    SequentialToolExecutor,
    ToolExecutor,
    executor_for_mode,
)
from awaken_runtime.phase.immediate import (
    ImmediatePhaseHook,
    ObservingPhase,
    immediate_hooks,
    observing_phases,
)
from awaken_runtime.plugins.env import ExecutionEnv
from awaken_runtime.plugins.loop_actions import LoopActionHandlersPlugin
from awaken_runtime.plugins.registrar import TaggedPhaseHook
from awaken_runtime.policies.plugin import MaxRoundsPlugin

__all__ = ["AgentResolver", "ResolvedAgent", "build_agent_env", "default_plugins"]

_SYSTEM = Role.SYSTEM


class ResolvedAgent:
    """Everything a run of one agent needs, resolved from the registries.

    ``ResolvedAgent.new("test", "model", "You are helpful.", llm).with_tool(GetWeather())``
    """

    __slots__ = (
        "_descriptors",
        "_hooks",
        "_system",
        "env",
        "llm_executor",
        "model",
        "plugins",
        "spec",
        "tool_executor",
        "tools",
        "upstream_model",
    )

    def __init__(
        self,
        spec: AgentSpec,
        upstream_model: str,
        llm_executor: LlmExecutor,
        *,
        tools: dict[str, Tool] | None = None,
        tool_executor: ToolExecutor | None = None,
        env: ExecutionEnv | None = None,
        plugins: list[Plugin] | None = None,
        model: ModelSpec | None = None,
    ) -> None:
        self.spec = spec
        self.upstream_model = upstream_model
        self.llm_executor = llm_executor
        self.tools: dict[str, Tool] = dict(tools or {})
        self.tool_executor: ToolExecutor = tool_executor or SequentialToolExecutor()
        self.plugins: list[Plugin] = list(plugins or [])
        self.env = env if env is not None else build_agent_env(self.plugins, self)
        self.model = model
        self._descriptors: tuple[ToolDescriptor, ...] | None = None
        self._hooks: ActiveHooks | None = None
        self._system: tuple[str, Message] | None = None

    @classmethod
    def new(
        cls, agent_id: str, upstream_model: str, system_prompt: str, llm: LlmExecutor
    ) -> ResolvedAgent:
        """A minimal agent: id, upstream model name, system prompt and executor."""
        spec = AgentSpec(agent_id).with_model(upstream_model).with_system_prompt(system_prompt)
        return cls(spec, upstream_model, llm)

    # ------------------------------------------------------------------ builder
    def with_tool(self, tool: Tool, tool_id: str | None = None) -> ResolvedAgent:
        """Add a tool (keyed by its descriptor id unless ``tool_id`` is given)."""
        self.tools[tool_id or tool.descriptor().id] = tool
        self._descriptors = None
        return self

    def with_tools(self, tools: Iterable[Tool]) -> ResolvedAgent:
        """Add several tools."""
        for tool in tools:
            self.with_tool(tool)
        return self

    def with_tool_executor(self, executor: ToolExecutor | ToolExecutionMode) -> ResolvedAgent:
        """Use another tool executor (or the executor of a :class:`ToolExecutionMode`)."""
        self.tool_executor = (
            executor_for_mode(executor) if isinstance(executor, ToolExecutionMode) else executor
        )
        return self

    def with_plugin(self, plugin: Plugin) -> ResolvedAgent:
        """Add a plugin and rebuild the environment."""
        self.plugins.append(plugin)
        self.env = build_agent_env(self.plugins, self)
        return self

    def with_spec(self, spec: AgentSpec) -> ResolvedAgent:
        """Replace the agent spec (rebuilds the environment's hook filter)."""
        self.spec = spec
        self.env = build_agent_env(self.plugins, self)
        return self

    # ------------------------------------------------------------------ views
    @property
    def id(self) -> str:
        """The agent id."""
        return self.spec.id

    @property
    def system_prompt(self) -> str:
        """The agent's system prompt."""
        return self.spec.system_prompt

    def system_message(self) -> Message | None:
        """The system prompt as the message the agent's requests start with (``None``
        without a prompt): made once per prompt and shared by the agent's runs, which never
        change it (ADR 0034)."""
        prompt = self.spec.system_prompt
        if not prompt:
            return None
        cached = self._system
        if cached is None or cached[0] != prompt:
            message = Message(role=_SYSTEM, content=[TextBlock(text=prompt)])
            cached = self._system = (prompt, message)
        return cached[1]

    def tool_descriptors(self) -> list[ToolDescriptor]:
        """Descriptors of every tool, sorted by id (cached; a fresh list each call)."""
        return list(self._cached_descriptors())

    def shared_tool_descriptors(self) -> tuple[ToolDescriptor, ...]:
        """Descriptors of every tool, sorted by id: the cached tuple itself (shared, immutable;
        no list per run)."""
        return self._cached_descriptors()

    def _cached_descriptors(self) -> tuple[ToolDescriptor, ...]:
        if self._descriptors is None:
            self._descriptors = tuple(
                sorted((t.descriptor() for t in self.tools.values()), key=lambda d: d.id)
            )
        return self._descriptors

    def active_phase_hooks(self) -> Mapping[Phase, Sequence[TaggedPhaseHook]]:
        """The hooks that run per phase: the environment's, filtered by the spec's
        ``active_hook_filter`` as the phase engine filters them (phases without one are
        absent). Computed once per environment and spec, shared by copies."""
        return self.hook_views().by_phase

    def hook_views(self) -> ActiveHooks:
        """:meth:`active_phase_hooks`, :meth:`immediate_phase_hooks` and
        :meth:`observing_phase_hooks` in one (cached like them): what a run activating the
        agent reads, with one call."""
        cached = self._hooks
        if cached is None or cached.env is not self.env or cached.spec is not self.spec:
            cached = self._hooks = ActiveHooks(self.env, self.spec)
        return cached

    def immediate_phase_hooks(self) -> Mapping[Phase, ImmediatePhaseHook]:
        """The phases whose only active hook is an :class:`ImmediatePhaseHook` (run in place
        by the loop), with that hook; cached like :meth:`active_phase_hooks`."""
        return self.hook_views().immediate

    def observing_phase_hooks(self) -> Mapping[Phase, ObservingPhase]:
        """The phases whose active hooks all only observe, with their observers; cached like
        :meth:`active_phase_hooks`."""
        return self.hook_views().observing

    def copy(self) -> ResolvedAgent:
        """A shallow copy whose tool map can be changed independently (the descriptor cache is
        kept: resolving an agent per run does not rebuild its tools' descriptors)."""
        clone = ResolvedAgent(
            self.spec,
            self.upstream_model,
            self.llm_executor,
            tools=self.tools,
            tool_executor=self.tool_executor,
            env=self.env,
            plugins=self.plugins,
            model=self.model,
        )
        clone._descriptors = self._cached_descriptors()  # same tools: still valid
        clone._hooks = self.hook_views()  # same env and spec (checked on use)
        clone._system = self._system  # (checked against the prompt on use)
        return clone

    def __repr__(self) -> str:
        return (
            f"ResolvedAgent(id={self.spec.id!r}, model={self.upstream_model!r}, "
            f"tools={sorted(self.tools)}, executor={self.tool_executor.name()!r})"
        )


class ActiveHooks:
    """The active hooks of one (env, spec) pair: per phase (``by_phase``), the phases run in
    place (``immediate``) and the phases that only observe (``observing``)."""

    __slots__ = ("by_phase", "env", "immediate", "observing", "spec")

    def __init__(self, env: ExecutionEnv, spec: AgentSpec) -> None:
        self.env = env
        self.spec = spec
        active = spec.active_hook_filter
        by_phase: dict[Phase, Sequence[TaggedPhaseHook]] = {}
        for phase, hooks in env.phase_hooks.items():
            kept = [h for h in hooks if h.plugin_id in active] if active else hooks
            if kept:
                by_phase[phase] = kept
        self.by_phase = by_phase
        self.immediate = immediate_hooks(by_phase)
        self.observing = observing_phases(by_phase)


def default_plugins(agent: ResolvedAgent | AgentSpec) -> list[Plugin]:
    """The plugins the runtime adds to every agent: the loop's action handlers and
    ``MaxRoundsPlugin(spec.max_rounds)``; with a context policy also ``context_transform`` (the
    truncation transform, registered last)."""
    spec = agent.spec if isinstance(agent, ResolvedAgent) else agent
    plugins: list[Plugin] = [LoopActionHandlersPlugin(), MaxRoundsPlugin(spec.max_rounds)]
    policy = spec.context_policy
    if policy is not None:
        plugins.append(ContextTransformPlugin(policy))
    return plugins


def build_agent_env(plugins: Iterable[Plugin], agent: ResolvedAgent | AgentSpec) -> ExecutionEnv:
    """``ExecutionEnv`` of ``plugins`` followed by the default plugins, filtered by the agent's
    ``active_hook_filter``."""
    spec = agent.spec if isinstance(agent, ResolvedAgent) else agent
    return ExecutionEnv.from_plugins([*plugins, *default_plugins(agent)], spec.active_hook_filter)


class AgentResolver(abc.ABC):
    """Resolves an agent id into a :class:`ResolvedAgent` (fresh on every call)."""

    @abc.abstractmethod
    def resolve(self, agent_id: str) -> ResolvedAgent:
        """Resolve ``agent_id``; failures raise a ``ResolveError`` / ``AgentRuntimeError``."""

    def resolve_for_run(self, agent_id: str) -> ResolvedAgent:
        """The agent one run starts with; the run only reads it, so a resolver may hand every
        run the same instance (default: :meth:`resolve`)."""
        return self.resolve(agent_id)
