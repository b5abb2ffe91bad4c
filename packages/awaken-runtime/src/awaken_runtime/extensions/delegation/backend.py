"""``AgentBackend`` — where a delegated run executes — and the local implementation.

:class:`LocalBackend` runs the delegate in-process through the agent resolver: a fresh state
store, the prompt as the only message (no parent history), a new run id used as thread id,
lineage (``parent_run_id``, ``parent_thread_id``, ``parent_tool_call_id``) from the parent,
origin ``subagent``, no storage and no decision channel (a suspension ends the child run as
``suspended``). The parent's cancellation token is shared, so cancelling the parent cancels
its delegates.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.identity import RunIdentity, RunOrigin
from awaken_contract.contract.message import Message
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.errors import ExecutionFailed
from awaken_contract.ids import new_id

from awaken_runtime.extensions.delegation.types import (
    DelegateOutput,
    DelegateRunResult,
    DelegateRunStatus,
)
from awaken_runtime.loop_runner.loop import run_agent_loop
from awaken_runtime.loop_runner.params import AgentLoopParams
from awaken_runtime.loop_runner.run_state import new_run_state
from awaken_runtime.registry.resolved import AgentResolver
from awaken_runtime.state.remote_tasks import RemoteTaskRef

__all__ = ["AgentBackend", "LocalBackend"]


class AgentBackend(ABC):
    """Runs a delegated agent and reports a :class:`DelegateRunResult`.

    Errors that prevent the run (unknown agent, unreachable endpoint) are raised; the calling
    tool turns them into an error result.

    A backend with ``continues_remote_tasks`` reports the remote task it used
    (``DelegateRunResult.remote_task``); the tool persists it in the parent's state, passes it
    back as ``remote_task`` on the parent run's next call, and on resume hands the parent's
    decision to :meth:`resume`, which continues that remote task.
    """

    continues_remote_tasks: ClassVar[bool] = False

    @abstractmethod
    async def execute(
        self,
        agent_id: str,
        messages: Sequence[Message],
        event_sink: EventSink,
        parent_run_id: str | None,
        parent_tool_call_id: str | None,
        *,
        parent_thread_id: str | None = None,
        cancellation_token: CancellationToken | None = None,
        remote_task: RemoteTaskRef | None = None,
    ) -> DelegateRunResult:
        """Run ``agent_id`` on ``messages``, sending its events to ``event_sink``.

        ``remote_task`` (passed only to backends with ``continues_remote_tasks``) is the remote
        task this parent run used last."""

    async def resume(
        self,
        agent_id: str,
        remote_task: RemoteTaskRef,
        decision: ToolCallResume,
        event_sink: EventSink,
        *,
        cancellation_token: CancellationToken | None = None,
    ) -> DelegateRunResult:
        """Continue the interrupted ``remote_task`` with the parent's ``decision``."""
        raise ExecutionFailed(f"{type(self).__name__} cannot continue remote tasks")


class LocalBackend(AgentBackend):
    """Runs delegates in this process, resolved by ``resolver``."""

    def __init__(self, resolver: AgentResolver) -> None:
        self.resolver = resolver

    async def execute(
        self,
        agent_id: str,
        messages: Sequence[Message],
        event_sink: EventSink,
        parent_run_id: str | None,
        parent_tool_call_id: str | None,
        *,
        parent_thread_id: str | None = None,
        cancellation_token: CancellationToken | None = None,
        remote_task: RemoteTaskRef | None = None,
    ) -> DelegateRunResult:
        agent = self.resolver.resolve(agent_id)
        phase = new_run_state(agent)
        run_id = new_id()
        identity = RunIdentity(
            thread_id=run_id,
            run_id=run_id,
            agent_id=agent_id,
            origin=RunOrigin.SUBAGENT,
            parent_thread_id=parent_thread_id,
            parent_run_id=parent_run_id,
            parent_tool_call_id=parent_tool_call_id,
        )
        history = list(messages)
        result = await run_agent_loop(
            AgentLoopParams(
                resolver=self.resolver,
                agent_id=agent_id,
                runtime=phase,
                sink=event_sink,
                checkpoint_store=None,
                messages=history,
                run_identity=identity,
                cancellation_token=cancellation_token,
                input_message_count=len(history),
                resolved=agent,
                wait_for_decisions=False,
            )
        )
        return DelegateRunResult(
            agent_id=agent_id,
            status=DelegateRunStatus.from_termination(result.termination),
            response=result.response,
            output=DelegateOutput(text=result.response or None),
            steps=result.steps,
            run_id=result.run_id,
            termination=result.termination,
        )
