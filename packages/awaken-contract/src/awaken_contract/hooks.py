"""The hooks a plugin implements and what they receive: ``PhaseContext``, ``PhaseHook``,
``ToolGateHook``, request transforms, plus the plugin descriptor and config schema.

Hooks are pure: they read a frozen :class:`PhaseContext` and return a ``StateCommand``; the
runtime may re-run a hook when its writes conflict with another hook's.
"""

from __future__ import annotations

import enum
import functools
import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from awaken_contract.contract.identity import RunIdentity
from awaken_contract.errors.loop import InvalidObserverHook
from awaken_contract.model import Phase
from awaken_contract.profile import ProfileAccess
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import KeyOf, Snapshot, StateCommand, StateMap

if TYPE_CHECKING:
    from awaken_contract.actions import ToolInterceptPayload
    from awaken_contract.contract.cancellation import CancellationToken
    from awaken_contract.contract.inference import StreamResult
    from awaken_contract.contract.lifecycle import TerminationReason
    from awaken_contract.contract.message import Message
    from awaken_contract.contract.storage import ProfileStore
    from awaken_contract.contract.suspension import ToolCallResume
    from awaken_contract.contract.tool import ToolDescriptor, ToolResult
    from awaken_contract.errors import AwakenError
    from awaken_contract.registry_spec import AgentSpec, PluginConfigKey

__all__ = [
    "ConfigSchema",
    "InferenceRequestTransform",
    "ObserveFn",
    "ObserverHook",
    "PhaseContext",
    "PhaseHook",
    "PhaseHookFn",
    "PluginDescriptor",
    "ToolGateHook",
    "ToolKind",
    "TransformOutput",
    "apply_transforms",
]

V = TypeVar("V")


class ToolKind(enum.StrEnum):
    """Coarse kind of a tool, inferred from its name (used by policies and UIs)."""

    EXECUTE = "execute"
    READ = "read"
    EDIT = "edit"
    SEARCH = "search"
    OTHER = "other"

    @classmethod
    def infer(cls, tool_name: str) -> ToolKind:
        """Infer from the lowercase name by substring; first match wins (edit, search, read,
        execute), else ``OTHER`` (memoised: it runs before every tool call)."""
        return _infer_kind(tool_name)


@functools.lru_cache(maxsize=1024)
def _infer_kind(tool_name: str) -> ToolKind:
    name = tool_name.lower()
    for kind, needles in _KIND_NEEDLES:
        if any(n in name for n in needles):
            return kind
    return ToolKind.OTHER


_KIND_NEEDLES: tuple[tuple[ToolKind, tuple[str, ...]], ...] = (
    (
        ToolKind.EDIT,
        (
            "edit",
            "write",
            "patch",
            "apply_patch",
            "replace",
            "create",
            "delete",
            "remove",
            "move",
            "rename",
        ),
    ),
    (ToolKind.SEARCH, ("search", "grep", "find", "rg")),
    (
        ToolKind.READ,
        ("read", "cat", "view", "open", "list", "ls", "glob", "fetch", "http", "curl"),
    ),
    (ToolKind.EXECUTE, ("bash", "shell", "exec", "execute", "run", "command", "terminal")),
)


class PluginDescriptor(msgspec.Struct, frozen=True, gc=False):
    """A plugin's identity; ``name`` is the id used by ``active_hook_filter``."""

    name: str


class ConfigSchema(msgspec.Struct, frozen=True):
    """A JSON Schema validated against ``AgentSpec.sections[key]`` at resolve time."""

    key: str
    json_schema: dict[str, Any]

    @classmethod
    def for_key(cls, config_key: type[PluginConfigKey[Any]]) -> ConfigSchema:
        """The schema of a typed config section."""
        return cls(config_key.KEY, config_key.json_schema())


# --------------------------------------------------------------------------- PhaseContext


class PhaseContext(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a hook sees: the phase, a frozen snapshot, the active agent spec, the run
    identity, the messages, and — depending on the phase — the inference response or the tool
    call (name, id, arguments, kind, result, resume input).

    ``AFTER_INFERENCE`` also carries the upstream model, provider id and duration of the
    inference and, when it failed, ``inference_error`` (then ``llm_response`` is ``None``);
    ``RUN_END`` carries the ``termination`` (``suspended`` when the run parks).

    ``tools`` are the descriptors the agent offers the model this run (before per-step
    filters); ``profile`` gives typed access to the runtime's profile store, scoped to the
    active agent."""

    phase: Phase
    snapshot: Snapshot
    agent_spec: AgentSpec
    run_identity: RunIdentity
    messages: Sequence[Message] = ()
    cancellation_token: CancellationToken | None = None
    llm_response: StreamResult | None = None
    inference_cost: float | None = None
    """AfterInference: what the inference cost (``ModelSpec.cost``; ``None`` without prices)."""
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_args: Any = None
    tool_kind: ToolKind | None = None
    tool_result: ToolResult | None = None
    resume_input: ToolCallResume | None = None
    suspension_id: str | None = None
    suspension_reason: str | None = None
    inference_model: str | None = None
    inference_provider: str | None = None
    inference_duration_ms: int | None = None
    inference_error: AwakenError | None = None
    termination: TerminationReason | None = None
    profile_store: ProfileStore | None = None
    tools: Sequence[ToolDescriptor] = ()

    @classmethod
    def test_default(cls, phase: Phase = Phase.RUN_START) -> PhaseContext:
        """A context with an empty snapshot, a default spec and a test identity."""
        return cls(
            phase=phase,
            snapshot=Snapshot(0, StateMap()),
            agent_spec=AgentSpec("default"),
            run_identity=RunIdentity.for_test(),
        )

    def state(self, key: type[KeyOf[V]]) -> V | None:
        """The snapshot's value of ``key`` or ``None`` when absent."""
        return self.snapshot.get(key)

    def with_snapshot(self, snapshot: Snapshot) -> PhaseContext:
        """The same context over another snapshot."""
        return msgspec.structs.replace(self, snapshot=snapshot)

    def with_phase(self, phase: Phase) -> PhaseContext:
        """The same context for another phase."""
        return msgspec.structs.replace(self, phase=phase)

    def replace(self, **changes: Any) -> PhaseContext:
        """A copy with some fields changed."""
        return msgspec.structs.replace(self, **changes)

    @property
    def profile(self) -> ProfileAccess | None:
        """Profile entries of the active agent and the run's user (``None`` without a profile
        store)."""
        if self.profile_store is None:
            return None
        return ProfileAccess.for_agent(
            self.profile_store, self.agent_spec.id, self.run_identity.user_id
        )

    @property
    def is_cancelled(self) -> bool:
        """True when the run's cancellation token is cancelled."""
        token = self.cancellation_token
        return token is not None and token.is_cancelled


# --------------------------------------------------------------------------- hooks & transforms


class PhaseHook(ABC):
    """Runs at a phase; reads the context, returns the state changes it wants.

    Registrars also accept a plain ``async def hook(ctx) -> StateCommand`` function. A hook
    that only observes is cheaper as an :class:`ObserverHook` (``PhaseHook.observer(fn)``).
    """

    waits: bool = True
    """``False`` declares that :meth:`run` never suspends (no I/O, no awaiting other tasks):
    a finished tool's journal record may then wait across it for the step checkpoint."""

    @abstractmethod
    async def run(self, ctx: PhaseContext) -> StateCommand:
        """Return a command (an empty one when there is nothing to do)."""

    @staticmethod
    def of(hook: PhaseHook | PhaseHookFn, *, waits: bool = True) -> PhaseHook:
        """``hook`` itself, or a function wrapped into a :class:`PhaseHook` (``waits=False``:
        the function never suspends, see :attr:`waits`)."""
        if isinstance(hook, PhaseHook):
            return hook
        return _FnPhaseHook(hook, waits)

    @staticmethod
    def observer(fn: ObserveFn) -> ObserverHook:
        """A plain (not ``async``) function of the context that returns ``None`` wrapped into an
        :class:`ObserverHook`; an ``async`` function raises ``InvalidObserverHook``."""
        return _FnObserverHook(fn)

    def runner(self) -> PhaseHookFn:
        """What the phase engine awaits for this hook: :meth:`run` (a wrapped function itself,
        one coroutine less per call)."""
        return self.run


PhaseHookFn = Callable[[PhaseContext], Awaitable["StateCommand"]]
ObserveFn = Callable[[PhaseContext], None]


class ObserverHook(PhaseHook):
    """A hook that only observes: :meth:`observe` reads the context and returns ``None`` — no
    command, no state update, no scheduled action (so no tool interception), nothing awaited.

    A phase whose active hooks all observe is run without the phase engine's command
    collection and, at ``BEFORE_TOOL_EXECUTE``, without the tool-interception path: one context
    is built and every observer called with it, in registration order. Anywhere else
    :meth:`run` calls :meth:`observe` and returns an empty command. An exception from
    :meth:`observe` propagates exactly as one from a hook's ``run``; a value returned raises
    ``InvalidObserverHook``."""

    waits = False

    @abstractmethod
    def observe(self, ctx: PhaseContext) -> None:
        """Look at ``ctx`` (return nothing)."""

    def observer_fn(self) -> ObserveFn:
        """What the loop calls for this hook: :meth:`observe` (a wrapped function itself, one
        call less per phase)."""
        return self.observe

    def rejected(self, returned: object) -> InvalidObserverHook:
        """The error for a call that returned ``returned`` (a coroutine is closed)."""
        if inspect.iscoroutine(returned):
            returned.close()  # never awaited: no "was never awaited" warning
        problem = f"returned {type(returned).__name__} (observers return None)"
        return InvalidObserverHook(repr(self), problem)

    async def run(self, ctx: PhaseContext) -> StateCommand:
        returned: object = self.observer_fn()(ctx)
        if returned is not None:
            raise self.rejected(returned)
        return StateCommand()


class _FnObserverHook(ObserverHook):
    __slots__ = ("_fn",)

    def __init__(self, fn: ObserveFn) -> None:
        if inspect.iscoroutinefunction(fn) or isinstance(fn, PhaseHook):
            name = getattr(fn, "__qualname__", repr(fn))
            raise InvalidObserverHook(name, "must be a plain function returning None")
        self._fn = fn

    def observe(self, ctx: PhaseContext) -> None:
        self._fn(ctx)

    def observer_fn(self) -> ObserveFn:
        return self._fn

    def __repr__(self) -> str:
        return f"PhaseHook.observer({getattr(self._fn, '__qualname__', self._fn)!r})"


class _FnPhaseHook(PhaseHook):
    __slots__ = ("_fn", "waits")

    def __init__(self, fn: PhaseHookFn, waits: bool = True) -> None:
        self._fn = fn
        self.waits = waits

    async def run(self, ctx: PhaseContext) -> StateCommand:
        return await self._fn(ctx)

    def runner(self) -> PhaseHookFn:
        return self._fn

    def __repr__(self) -> str:
        return f"PhaseHook.of({getattr(self._fn, '__qualname__', self._fn)!r})"


class ToolGateHook(ABC):
    """Runs before a tool call executes; may block it, suspend it or supply its result."""

    @abstractmethod
    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        """``None`` lets the call proceed."""


class TransformOutput(msgspec.Struct):
    """A transform's result; ``tools=None`` keeps the tool list unchanged."""

    messages: list[Message]
    tools: list[ToolDescriptor] | None = None


class InferenceRequestTransform(ABC):
    """A synchronous, pure rewrite of the message list (and optionally tools) before inference.

    Transforms run in registration order, each receiving the previous one's output.
    """

    @abstractmethod
    def transform(self, messages: list[Message], tools: list[ToolDescriptor]) -> TransformOutput:
        """Return the rewritten request."""


def apply_transforms(
    messages: list[Message],
    tools: list[ToolDescriptor],
    transforms: Sequence[InferenceRequestTransform],
) -> tuple[list[Message], list[ToolDescriptor]]:
    """Apply ``transforms`` in order to ``(messages, tools)``."""
    for transform in transforms:
        out = transform.transform(messages, tools)
        messages = out.messages
        if out.tools is not None:
            tools = out.tools
    return messages, tools
