"""``CompactPlugin``: a BeforeInference hook that keeps the request within the context window.

Each inference, for the run's thread:

1. the newest summary (the thread's ``compact.summary`` state, or a background job that has
   finished since) covers the history up to a message; the rest is *uncovered*;
2. when the summary plus the uncovered messages reach the trigger — estimated tokens when the
   window is known, else the count of uncovered messages — a background job (one per thread)
   has the compactor agent summarise the uncovered prefix up to a safe boundary, keeping the
   last ``keep_recent_messages`` raw;
3. the request carries ``[system…, summary, bridge…, tail…]``: the summary as a ``session``
   context message, then every uncovered message. Only a request whose estimate reaches the
   window itself waits for the in-flight summary.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from awaken_contract.actions import AddContextMessage
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.tokens import estimate_tokens, text_tokens
from awaken_contract.host import AgentRunner, JsonValue
from awaken_contract.ids import now_ms
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    ConfigSchema,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig
from awaken_contract.state import MutationBatch, StateCommand, StateKeyOptions

from awaken_ext_compact.compactor import AgentCompactor, Compactor
from awaken_ext_compact.config import CompactConfig, CompactConfigKey
from awaken_ext_compact.jobs import SummaryJobs
from awaken_ext_compact.prefix import find_compaction_boundary, render_transcript
from awaken_ext_compact.state import CompactSummary, CompactSummaryKey
from awaken_ext_compact.view import HistoryCut

__all__ = [
    "COMPACT_PLUGIN_ID",
    "SUMMARY_CONTEXT_KEY",
    "CompactPlugin",
    "CompactorUnavailable",
    "summary_context_message",
]

COMPACT_PLUGIN_ID = "compact"
SUMMARY_CONTEXT_KEY = "compact.summary"

_log = logging.getLogger("awaken.ext.compact")


class CompactorUnavailable(ValueError):
    """The agent enables compaction but no compactor can run (none given, no agent named,
    or no runtime bound to run the named agent)."""


def summary_context_message(summary: CompactSummary) -> ContextMessage:
    """The request-only message carrying ``summary`` (internal, after the system prompt)."""
    text = f"<conversation-summary>\n{summary.text}\n</conversation-summary>"
    return ContextMessage.session(SUMMARY_CONTEXT_KEY, Role.SYSTEM, text)


def _start_of_uncovered(history: Sequence[Message], summary: CompactSummary | None) -> int | None:
    """Index after the summary's last message (0 without a summary; ``None``: not found)."""
    if summary is None:
        return 0
    for index in range(len(history) - 1, -1, -1):
        if history[index].id == summary.through_id:
            return index + 1
    return None


class _CompactHook(PhaseHook):
    def __init__(self, plugin: CompactPlugin) -> None:
        self.plugin = plugin

    async def run(self, ctx: PhaseContext) -> StateCommand:
        plugin = self.plugin
        config = ctx.agent_spec.config(CompactConfigKey)
        thread_id = ctx.run_identity.thread_id
        history = list(ctx.messages)
        command = StateCommand()
        summary = self._newest(ctx, thread_id, command)
        start = _start_of_uncovered(history, summary)
        if start is None:  # the summary belongs to another history: ignore it
            summary, start = None, 0
        uncovered = history[start:]
        window = config.window(ctx.agent_spec, plugin.model_windows.get(ctx.agent_spec.model))
        trigger = config.token_trigger(ctx.agent_spec, window)
        size = estimate_tokens(uncovered) + (text_tokens(summary.text) if summary else 0)
        due = size >= trigger if trigger is not None else len(uncovered) >= config.trigger_messages
        if due:
            self._start(ctx, config, thread_id, summary, start, uncovered)
        if window is not None and size >= window and plugin.jobs.running(thread_id):
            _log.info("thread %s would overflow its window: waiting for the summary", thread_id)
            waited = await plugin.jobs.wait(thread_id)
            if waited is not None and (summary is None or waited.covered > summary.covered):
                command.update(CompactSummaryKey, waited)
                summary = waited
        through = summary.through_id if summary is not None else None
        plugin.cut.set(thread_id, through)
        if summary is not None:
            command.schedule_action(AddContextMessage, summary_context_message(summary))
        return command

    def _newest(
        self, ctx: PhaseContext, thread_id: str, command: StateCommand
    ) -> CompactSummary | None:
        stored = ctx.state(CompactSummaryKey)
        finished = self.plugin.jobs.latest(thread_id)
        if finished is not None and (stored is None or finished.covered > stored.covered):
            command.update(CompactSummaryKey, finished)
            return finished
        return stored

    def _start(
        self,
        ctx: PhaseContext,
        config: CompactConfig,
        thread_id: str,
        summary: CompactSummary | None,
        start: int,
        uncovered: list[Message],
    ) -> None:
        length = find_compaction_boundary(uncovered, len(uncovered) - config.keep_recent_messages)
        if length is None:
            return
        prefix = uncovered[:length]
        through_id = prefix[-1].id
        transcript = render_transcript(prefix)
        if through_id is None or not transcript:
            return
        compactor = self.plugin.compactor_for(ctx.agent_spec, config, thread_id)
        previous = summary.text if summary is not None else None
        covered = start + length

        async def job() -> CompactSummary:
            text = await compactor.summarize(transcript, previous)
            return CompactSummary(text, through_id, covered, now_ms())

        if self.plugin.jobs.start(thread_id, job):
            _log.info("thread %s: summarising %d messages in the background", thread_id, length)


class CompactPlugin(Plugin):
    """Plugin ``compact`` (section ``compact``).

    ``CompactPlugin()`` runs the agent named by the section's ``compactor`` once a runtime is
    bound (:meth:`bind_agent_runner`, done by ``awaken serve``); ``CompactPlugin(compactor)``
    uses the given :class:`Compactor` for every agent.
    """

    def __init__(
        self,
        compactor: Compactor | None = None,
        *,
        runner: AgentRunner | None = None,
        model_windows: Mapping[str, int] | None = None,
    ) -> None:
        self.compactor = compactor
        self.runner = runner
        self.model_windows: dict[str, int] = dict(model_windows or {})
        self.jobs = SummaryJobs()
        self.cut = HistoryCut()

    def bind_agent_runner(
        self, runner: AgentRunner, model_windows: Mapping[str, int] | None = None
    ) -> None:
        """Run compactor agents on ``runner``; ``model_windows``: context window by model id."""
        self.runner = runner
        self.model_windows.update(model_windows or {})

    async def start(self, system: AgentSystemConfig) -> None:
        """Nothing to start (a host calls this before each runtime build)."""

    async def close(self) -> None:
        """Cancel the background summaries in flight and wait for them (the host calls this at
        shutdown, before it closes the store the summaries write to)."""
        await self.jobs.close()

    def status(self) -> dict[str, JsonValue]:
        """Background summaries: started so far, in flight, runs waiting for one."""
        jobs = self.jobs
        return {"started": jobs.started, "in_flight": jobs.in_flight(), "waiting": jobs.waiting}

    def descriptor(self) -> PluginDescriptor:
        """``compact``."""
        return PluginDescriptor(COMPACT_PLUGIN_ID)

    def register(self, registrar: PluginRegistrar) -> None:
        """The summary key (Thread scope, persisted), the hook and the request cut."""
        registrar.register_key(CompactSummaryKey, StateKeyOptions(persistent=True))
        registrar.register_phase_hook(COMPACT_PLUGIN_ID, Phase.BEFORE_INFERENCE, _CompactHook(self))
        registrar.register_request_transform(COMPACT_PLUGIN_ID, self.cut)

    def config_schemas(self) -> list[ConfigSchema]:
        """The ``compact`` section."""
        return [ConfigSchema.for_key(CompactConfigKey)]

    def on_activate(self, agent_spec: AgentSpec, patch: MutationBatch) -> None:
        """Fail early when this agent could never summarise."""
        self.compactor_for(agent_spec, agent_spec.config(CompactConfigKey), "")

    def compactor_for(self, spec: AgentSpec, config: CompactConfig, thread_id: str) -> Compactor:
        """The compactor of ``spec`` for ``thread_id`` (raises :class:`CompactorUnavailable`)."""
        if self.compactor is not None:
            return self.compactor
        if config.compactor is None:
            raise CompactorUnavailable(
                f"agent {spec.id!r}: section compact.compactor names no compactor agent"
            )
        if self.runner is None:
            raise CompactorUnavailable(
                f"agent {spec.id!r}: compactor agent {config.compactor!r} needs a runtime "
                "(CompactPlugin.bind_agent_runner)"
            )
        return AgentCompactor(self.runner, config.compactor, thread_id)
