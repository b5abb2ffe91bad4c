"""LLM compaction: boundaries, savings, summaries in the history, and real runs."""

from typing import Any

import pytest
from awaken_contract.contract.event import Error, RunFinish
from awaken_contract.contract.event_sink import VecEventSink
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import StreamResult
from awaken_contract.contract.lifecycle import TerminationKind
from awaken_contract.contract.message import Message, Role, ToolCall, Visibility
from awaken_contract.contract.request import RunRequest
from awaken_contract.registry_spec import (
    DEFAULT_COMPACTION_SYSTEM_PROMPT,
    AgentSpec,
    CompactionConfig,
    CompactionConfigKey,
    ContextCompactionMode,
    ContextWindowPolicy,
    ModelSpec,
)
from awaken_runtime import AgentRuntimeBuilder
from awaken_runtime.context import (
    CompactionStateKey,
    ContextSummarizer,
    DefaultSummarizer,
    EmptySummary,
    compact_history,
    find_compaction_boundary,
    is_summary_message,
    render_transcript,
    summary_message,
    summary_text,
)
from awaken_runtime.engine import text_step
from awaken_stores import InMemoryStore

BIG = "lorem ipsum " * 100  # ~300 tokens


class FakeSummarizer(ContextSummarizer):
    def __init__(self, summary: str = "short summary") -> None:
        self.summary = summary
        self.calls: list[tuple[str, str | None]] = []

    async def summarize(self, transcript: str, previous_summary: str | None) -> str:
        self.calls.append((transcript, previous_summary))
        return self.summary


def chat(n: int) -> list[Message]:
    return [
        Message.user(f"q{i} {BIG}") if i % 2 == 0 else Message.assistant(f"a{i} {BIG}")
        for i in range(n)
    ]


def window(threshold: int | None = 1000, **extra: Any) -> ContextWindowPolicy:
    return ContextWindowPolicy(autocompact_threshold=threshold, **extra)


def test_boundary_never_splits_tool_calls() -> None:
    messages = [
        Message.user("u"),
        Message.assistant_with_tool_calls("", [ToolCall("c1", "t", {})]),
        Message.tool("c1", "r"),
        Message.assistant("a"),
        Message.user("u2"),
    ]
    assert find_compaction_boundary(messages, 5) == 4
    assert find_compaction_boundary(messages, 3) == 3
    assert find_compaction_boundary(messages, 2) is None  # the next message is a tool result
    unanswered = [Message.user("u"), *messages[1:2], Message.user("x"), Message.user("y")]
    assert find_compaction_boundary(unanswered, 4) is None


def test_transcript_skips_internal_and_empty_messages() -> None:
    messages = [
        Message.user("hello"),
        Message.internal_system("secret"),
        Message.assistant_with_tool_calls("", [ToolCall("c", "t", {})]),
        Message.tool("c", "result"),
    ]
    assert render_transcript(messages) == "[User]: hello\n\n[Tool]: result"


async def test_keep_recent_raw_suffix_inserts_the_summary_after_the_prefix() -> None:
    messages = chat(10)
    original = list(messages)
    summarizer = FakeSummarizer()
    done = await compact_history(
        messages, window(compaction_raw_suffix_messages=3), CompactionConfig(), summarizer
    )
    assert done is not None
    index, boundary = done
    assert index == 7  # 10 - 3 raw suffix messages
    assert messages[:7] == original[:7] and messages[8:] == original[7:]
    assert is_summary_message(messages[7]) and summary_text(messages[7]) == "short summary"
    assert messages[7].visibility is Visibility.INTERNAL
    transcript, previous = summarizer.calls[0]
    assert transcript.startswith("[User]: q0") and "q6" in transcript and "a7" not in transcript
    assert previous is None
    assert boundary.pre_tokens > boundary.post_tokens and boundary.summary == "short summary"


async def test_safe_frontier_compacts_up_to_the_newest_message() -> None:
    messages = chat(9)
    mode = ContextCompactionMode.COMPACT_TO_SAFE_FRONTIER
    done = await compact_history(
        messages, window(compaction_mode=mode), CompactionConfig(), FakeSummarizer()
    )
    assert done is not None and done[0] == 8


async def test_previous_summary_is_updated_not_resent() -> None:
    messages = [*chat(4), summary_message("old summary"), *chat(8)]
    summarizer = FakeSummarizer("merged")
    done = await compact_history(messages, window(), CompactionConfig(), summarizer)
    assert done is not None
    transcript, previous = summarizer.calls[0]
    assert previous == "old summary"
    assert "old summary" not in transcript
    assert summary_text(messages[done[0]]) == "merged"


async def test_compaction_is_skipped_when_not_worth_it() -> None:
    config = CompactionConfig()
    fake = FakeSummarizer()
    assert await compact_history(chat(10), window(None), config, fake) is None  # disabled
    assert await compact_history(chat(10), window(100_000), config, fake) is None  # below
    assert await compact_history(chat(3), window(10), config, fake) is None  # tiny prefix
    strict = CompactionConfig(min_savings_ratio=0.99)
    assert await compact_history(chat(10), window(), strict, fake) is None
    verbose = FakeSummarizer(BIG * 6)  # the summary would be larger than what it replaces
    messages = chat(10)
    assert await compact_history(messages, window(), config, verbose) is None
    assert len(messages) == 10 and verbose.calls
    assert fake.calls == []


async def test_default_summarizer_request() -> None:
    class Capture(LlmExecutor):
        def __init__(self, reply: str) -> None:
            self.reply = reply
            self.requests: list[InferenceRequest] = []

        async def execute(self, request: InferenceRequest) -> StreamResult:
            self.requests.append(request)
            return text_step(self.reply)

        def name(self) -> str:
            return "capture"

    llm = Capture("  a summary  ")
    summarizer = DefaultSummarizer(llm, "agent-model")
    assert await summarizer.summarize("[User]: hi", None) == "a summary"
    request = llm.requests[0]
    assert request.upstream_model == "agent-model" and request.tools == []
    assert request.messages[0].text() == DEFAULT_COMPACTION_SYSTEM_PROMPT
    assert request.messages[1].text().endswith("[User]: hi")
    assert request.overrides.max_tokens == 1024
    config = CompactionConfig(summary_model="cheap", summary_max_tokens=50)
    await DefaultSummarizer(llm, "agent-model", config).summarize("[User]: x", "before")
    update = llm.requests[1]
    assert update.upstream_model == "cheap" and update.overrides.max_tokens == 50
    text = update.messages[1].text()
    assert "<existing-summary>\nbefore\n</existing-summary>" in text
    assert "<new-conversation>\n[User]: x\n</new-conversation>" in text
    with pytest.raises(EmptySummary):
        await DefaultSummarizer(Capture(" "), "m").summarize("x", None)


class Agentish(LlmExecutor):
    """Answers summary requests with a summary and chat requests with text."""

    def __init__(self, fail_summary: bool = False) -> None:
        self.fail_summary = fail_summary
        self.summaries: list[InferenceRequest] = []
        self.chats: list[InferenceRequest] = []

    async def execute(self, request: InferenceRequest) -> StreamResult:
        if request.messages[0].text() == DEFAULT_COMPACTION_SYSTEM_PROMPT:
            self.summaries.append(request)
            if self.fail_summary:
                raise RuntimeError("summarizer down")
            return text_step(f"SUMMARY #{len(self.summaries)}")
        self.chats.append(request)
        return text_step(f"answer #{len(self.chats)}")

    def name(self) -> str:
        return "agentish"


def runtime_for(llm: LlmExecutor, store: InMemoryStore, policy: ContextWindowPolicy) -> Any:
    spec = AgentSpec("a", model="m", system_prompt="You are terse.", context_policy=policy)
    spec = spec.with_config(CompactionConfigKey, CompactionConfig(min_savings_ratio=0.3))
    return (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_provider("p", llm)
        .with_model("m", ModelSpec(id="m", provider="p", model="model-1"))
        .with_thread_run_store(store)
        .build()
    )


async def test_autocompaction_in_a_run_keeps_the_full_log_and_sends_the_summary() -> None:
    llm = Agentish()
    store = InMemoryStore()
    runtime = runtime_for(llm, store, window(2000, compaction_raw_suffix_messages=2))
    sink = VecEventSink()
    request = RunRequest("t", [*chat(12), Message.user("final question")]).with_agent_id("a")
    result = await runtime.run(request, sink)
    assert result.response == "answer #1"
    # the summarizer used the agent's model and saw the older messages only
    assert len(llm.summaries) == 1
    assert llm.summaries[0].upstream_model == "model-1"
    transcript = llm.summaries[0].messages[1].text()
    assert "[User]: q0" in transcript and "final question" not in transcript
    # the model saw: prompt, summary, the raw suffix
    sent = llm.chats[0].messages
    assert sent[0].text() == "You are terse."
    assert summary_text(sent[1]) == "SUMMARY #1"
    assert [m.text().split()[0] for m in sent[2:]] == ["a11", "final"]
    # the thread log keeps everything, plus the summary and the answer
    log = await store.load_messages("t")
    assert log is not None and len(log) == 13 + 2
    assert log[0].text().startswith("q0") and is_summary_message(log[11])
    assert log[-1].role is Role.ASSISTANT and log[-1].text() == "answer #1"
    snapshot = [e for e in sink.take() if type(e).__name__ == "StateSnapshot"][-1].snapshot
    state = snapshot.extensions[CompactionStateKey.KEY]
    assert state["total_compactions"] == 1 and state["boundaries"][0]["summary"] == "SUMMARY #1"

    # the next run only sends the history from the summary on (load-time trim)
    await runtime.run(RunRequest("t", [Message.user("and then?")]).with_agent_id("a"))
    sent = llm.chats[1].messages
    assert summary_text(sent[1]) == "SUMMARY #1"
    assert not any(m.text().startswith("q0") for m in sent)
    assert sent[-1].text() == "and then?"


async def test_compaction_failure_ends_the_run_with_an_error() -> None:
    llm = Agentish(fail_summary=True)
    runtime = runtime_for(llm, InMemoryStore(), window(2000))
    sink = VecEventSink()
    result = await runtime.run(RunRequest("t", chat(12)).with_agent_id("a"), sink)
    assert result.termination.type is TerminationKind.ERROR
    assert "compaction failed" in (result.termination.message or "")
    events = sink.take()
    assert any(isinstance(e, Error) and "summarizer down" in e.message for e in events)
    assert isinstance(events[-1], RunFinish)
    assert llm.chats == []


async def test_a_custom_summarizer_plugin_replaces_the_default() -> None:
    from awaken_runtime.context import CompactionPlugin

    llm = Agentish()
    custom = FakeSummarizer("custom summary")
    spec = AgentSpec(
        "a",
        model="m",
        system_prompt="You are terse.",
        context_policy=window(2000),
        plugin_ids=["my-compaction"],
    )
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_plugin("my-compaction", CompactionPlugin(summarizer=custom))
        .with_provider("p", llm)
        .with_model("m", ModelSpec(id="m", provider="p", model="model-1"))
        .build()
    )
    await runtime.run(RunRequest("t", chat(12)).with_agent_id("a"))
    assert len(custom.calls) == 1 and llm.summaries == []
    assert summary_text(llm.chats[0].messages[1]) == "custom summary"


async def test_cancelling_during_compaction_ends_the_run_cancelled() -> None:
    import asyncio

    class Stuck(ContextSummarizer):
        def __init__(self) -> None:
            self.started = asyncio.Event()

        async def summarize(self, transcript: str, previous_summary: str | None) -> str:
            self.started.set()
            await asyncio.Event().wait()
            return "never"

    from awaken_runtime.context import CompactionPlugin

    stuck = Stuck()
    llm = Agentish()
    spec = AgentSpec(
        "a", model="m", system_prompt="s", context_policy=window(2000), plugin_ids=["stuck"]
    )
    store = InMemoryStore()
    runtime = (
        AgentRuntimeBuilder()
        .with_agent_spec(spec)
        .with_plugin("stuck", CompactionPlugin(summarizer=stuck))
        .with_provider("p", llm)
        .with_model("m", ModelSpec(id="m", provider="p", model="model-1"))
        .with_thread_run_store(store)
        .build()
    )
    sink = VecEventSink()
    task = asyncio.create_task(runtime.run(RunRequest("t", chat(12)).with_agent_id("a"), sink))
    await asyncio.wait_for(stuck.started.wait(), timeout=10)
    assert runtime.cancel("t")
    result = await asyncio.wait_for(task, timeout=10)
    assert result.termination.type is TerminationKind.CANCELLED
    names = [type(e).__name__ for e in sink.take()]
    assert names[-1] == "RunFinish" and names.count("StepStart") == names.count("StepEnd") == 1
    assert llm.chats == []
    log = await store.load_messages("t")
    assert log is not None and not any(is_summary_message(m) for m in log)
