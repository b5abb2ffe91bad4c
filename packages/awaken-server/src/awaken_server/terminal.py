"""``awaken run``: one run streamed to a terminal, with human approvals asked at the prompt.

Text streams as it arrives and tool calls are shown in brackets. When a tool call suspends
for a human decision:

- in a terminal (stdin is a TTY) the call and its arguments are shown and the user answers
  approve / deny; the run continues in place;
- without a TTY the command exits with :data:`EXIT_WAITING` and a message saying how to
  answer; the run stays waiting in the store (SQLite by default), so
  ``awaken run --thread THREAD`` in a terminal, or the HTTP decision route, resumes it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

from awaken_contract.contract.event import (
    AgentEvent,
    Error,
    RunFinish,
    RunStart,
    TextDelta,
    ToolCallDone,
    ToolCallReady,
)
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.run_plan import find_waiting_run
from awaken_contract.contract.storage import RunRecord
from awaken_contract.contract.suspension import ToolCallResume
from awaken_contract.ids import new_id

from awaken_server.bootstrap import ServeSetup, build_runtime, open_store

__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_USAGE",
    "EXIT_WAITING",
    "PromptDecider",
    "TerminalSink",
    "run_once",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_WAITING = 3
"""The run waits for a human decision that could not be asked (no terminal)."""

Ask = Callable[[str], Awaitable[str]]

_APPROVE = frozenset({"y", "yes", "a", "approve"})
_DENY = frozenset({"n", "no", "d", "deny"})


class TerminalSink(EventSink):
    """Prints a run: text as it streams, tool calls and outcomes in brackets. Remembers the
    run id and each call's arguments for the approval prompt."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.run_id: str | None = None
        self.arguments: dict[str, Any] = {}

    async def emit(self, event: AgentEvent) -> None:
        out = self.out
        if isinstance(event, RunStart):
            self.run_id = event.run_id
        elif isinstance(event, TextDelta):
            out.write(event.delta)
        elif isinstance(event, ToolCallReady):
            self.arguments[event.id] = event.arguments
            out.write(f"\n[tool {event.name}({event.arguments})]\n")
        elif isinstance(event, ToolCallDone):
            out.write(f"[{event.outcome.value}: {event.result.to_llm_text()}]\n")
        elif isinstance(event, Error):
            out.write(f"\n[error: {event.message}]\n")
        elif isinstance(event, RunFinish):
            out.write(f"\n[{event.termination.type.value}]\n")
        out.flush()


async def _ask_stdin(prompt: str) -> str:
    """One line from stdin (read in a worker thread so the loop keeps running)."""
    return await asyncio.to_thread(input, prompt)


class PromptDecider:
    """Asks approve / deny for each suspended call, showing its tool and arguments.

    Approve resumes the call with ``{"approved": true}``; deny (or end of input) cancels it,
    so the tool does not run.
    """

    def __init__(self, sink: TerminalSink, tickets: dict[str, Any], ask: Ask = _ask_stdin):
        self.sink = sink
        self.tickets = tickets
        self.ask = ask

    async def __call__(self, done: ToolCallDone) -> ToolCallResume:
        arguments = self.sink.arguments.get(done.id, self.tickets.get(done.id))
        out = self.sink.out
        out.write(f"\n{done.result.tool_name} needs your approval (call {done.id})\n")
        out.write(f"  arguments: {json.dumps(arguments, ensure_ascii=False, default=str)}\n")
        out.flush()
        while True:
            try:
                answer = (await self.ask("approve? [y/n] ")).strip().lower()
            except EOFError:
                answer = "n"
            if answer in _APPROVE:
                return ToolCallResume.resume({"approved": True})
            if answer in _DENY:
                return ToolCallResume.cancel("denied at the terminal")
            out.write("please answer y (approve) or n (deny)\n")


def _waiting_message(record: RunRecord | None, thread_id: str) -> str:
    calls = ""
    if record is not None and record.waiting is not None:
        calls = ", ".join(f"{t.tool_name} (call {t.tool_call_id})" for t in record.waiting.tickets)
    run = record.run_id if record is not None else "?"
    return (
        f"awaken: run {run} is waiting for a decision on {calls or 'a tool call'}; no terminal "
        f"to ask. Answer it with `awaken run --thread {thread_id}` in a terminal (same --store), "
        f"or POST /v1/runs/{run}/decision on `awaken serve`."
    )


async def run_once(
    setup: ServeSetup,
    prompt: str | None,
    *,
    store_url: str | None,
    agent_id: str | None = None,
    thread_id: str | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    interactive: bool | None = None,
    ask: Ask = _ask_stdin,
) -> int:
    """Stream one run (or, without ``prompt``, resume the thread's waiting run) to ``out``.

    Returns :data:`EXIT_OK`, :data:`EXIT_ERROR` (the run failed), :data:`EXIT_USAGE` or
    :data:`EXIT_WAITING`.
    """
    out = out or sys.stdout
    err = err or sys.stderr
    if interactive is None:
        interactive = sys.stdin.isatty()
    if prompt is None and not thread_id:
        err.write("awaken: give a prompt, or --thread THREAD to resume its waiting run\n")
        return EXIT_USAGE
    thread = thread_id or f"cli-{new_id()}"
    store = open_store(store_url)
    try:
        runtime = build_runtime(
            setup.system, store=store, executors=setup.executors, tools=setup.tools
        )
        tickets: dict[str, Any] = {}
        if prompt is None:
            waiting = await find_waiting_run(store, thread)
            if waiting is None or waiting.waiting is None:
                err.write(f"awaken: thread {thread} has no run waiting for a decision\n")
                return EXIT_USAGE
            tickets = {t.tool_call_id: t.arguments for t in waiting.waiting.tickets}
        agent = agent_id or (setup.system.agents[0].id if setup.system.agents else "default")
        messages = [Message.user(prompt)] if prompt is not None else []
        request = RunRequest(thread, messages).with_agent_id(agent)
        sink = TerminalSink(out)
        if interactive:
            decide = PromptDecider(sink, tickets, ask)
            result = await runtime.run_to_completion(request, sink, decide=decide)
        else:
            result = await runtime.run(request, sink, wait_for_decisions=False)
        kind = result.termination.type
        if kind is TerminationKind.SUSPENDED:
            record = await store.load_run(sink.run_id) if sink.run_id else None
            err.write(_waiting_message(record, thread) + "\n")
            return EXIT_WAITING
        if prompt is not None and thread_id is None:
            err.write(f"thread: {thread}\n")
        return EXIT_ERROR if kind is TerminationKind.ERROR else EXIT_OK
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            await close()
