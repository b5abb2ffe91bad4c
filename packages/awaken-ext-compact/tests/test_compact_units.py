"""The ``compact`` section, the safe prefix, the transcript, the request cut and activation."""

from __future__ import annotations

import asyncio

import pytest
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.errors import KeyDecode
from awaken_contract.host import HostedPlugin
from awaken_contract.registry_spec import AgentSpec, ContextWindowPolicy
from awaken_contract.state import MutationBatch
from awaken_ext_compact import (
    CompactConfig,
    CompactConfigKey,
    CompactorUnavailable,
    CompactPlugin,
    CompactSummary,
    CompactSummaryKey,
    HistoryCut,
    compactor_prompt,
    find_compaction_boundary,
    render_transcript,
    summary_context_message,
)
from pydantic import ValidationError


def test_section_defaults_and_every_validation_error() -> None:
    config = CompactConfigKey.decode({})
    assert (config.compactor, config.trigger_ratio, config.trigger_messages) == (None, 0.75, 40)
    assert config.keep_recent_messages == 6
    for bad, where in [
        ({"compactor": ""}, "compactor"),
        ({"trigger_ratio": 0}, "trigger_ratio"),
        ({"trigger_ratio": 1.5}, "trigger_ratio"),
        ({"trigger_messages": 1}, "trigger_messages"),
        ({"keep_recent_messages": 0}, "keep_recent_messages"),
        ({"context_window_tokens": 0}, "context_window_tokens"),
        ({"trigger_tokens": 0}, "trigger_tokens"),
        ({"colour": "red"}, "colour"),
    ]:
        with pytest.raises(KeyDecode) as err:
            CompactConfigKey.decode(bad)
        assert err.value.key == "compact" and where in err.value.message


def test_the_window_and_the_token_trigger() -> None:
    plain = AgentSpec("a")
    assert CompactConfig().window(plain, None) is None  # unknown: count messages
    assert CompactConfig().token_trigger(plain, None) is None
    assert CompactConfig().window(plain, 8000) == 8000  # the model's window
    assert CompactConfig().token_trigger(plain, 8000) == 6000
    policy = plain.model_copy(
        update={"context_policy": ContextWindowPolicy(max_context_tokens=4000)}
    )
    assert CompactConfig().window(policy, 8000) == 4000  # the agent's policy wins
    assert CompactConfig(context_window_tokens=1000).window(policy, 8000) == 1000
    threshold = plain.model_copy(
        update={"context_policy": ContextWindowPolicy(autocompact_threshold=1234)}
    )
    assert CompactConfig().token_trigger(threshold, 200_000) == 1234
    assert CompactConfig(trigger_tokens=99).token_trigger(threshold, 200_000) == 99


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
    assert find_compaction_boundary(messages, 2) == 1  # 2 would leave a tool result first
    unanswered = [Message.user("u"), *messages[1:2], Message.user("x"), Message.user("y")]
    assert find_compaction_boundary(unanswered, 4) == 1
    assert find_compaction_boundary(messages, 0) is None


def test_transcript_skips_internal_and_empty_messages() -> None:
    messages = [
        Message.user("hello"),
        Message.internal_system("secret"),
        Message.assistant_with_tool_calls("", [ToolCall("c", "t", {})]),
        Message.tool("c", "result"),
    ]
    assert render_transcript(messages) == "[User]: hello\n\n[Tool]: result"


def test_compactor_prompt_updates_a_previous_summary() -> None:
    assert "[User]: hi" in compactor_prompt("[User]: hi", None)
    updated = compactor_prompt("[User]: more", "old facts")
    assert "<existing-summary>\nold facts\n</existing-summary>" in updated
    assert "<new-conversation>\n[User]: more\n</new-conversation>" in updated


def test_history_cut_keeps_the_leading_system_block_and_what_follows_the_boundary() -> None:
    history = [Message.user(f"m{i}") for i in range(5)]
    summary = summary_context_message(CompactSummary("S", history[2].id or "", 3, 0))
    request = [Message.system("prompt"), Message.internal_system(summary.content[0].text)]  # type: ignore[union-attr]
    request += [*history, Message.internal_system("suffix")]
    cut = HistoryCut()
    assert cut.transform(request, []).messages == request  # no boundary known
    cut.set("t", history[2].id)
    kept = [m.text() for m in cut.transform(request, []).messages]
    assert kept[0] == "prompt" and kept[1].startswith("<conversation-summary>\nS")
    assert kept[2:] == ["m3", "m4", "suffix"]
    cut.set("t", None)
    assert cut.transform(request, []).messages == request
    assert summary.role is Role.SYSTEM and summary.target.value == "session"


def test_summary_key_keeps_the_summary_covering_more() -> None:
    old, new = CompactSummary("a", "x", 3, 0), CompactSummary("b", "y", 5, 1)
    assert CompactSummaryKey.apply(None, old) is old
    assert CompactSummaryKey.apply(new, old) is new
    assert CompactSummaryKey.apply(old, new) is new


def test_activation_fails_without_a_compactor() -> None:
    none_named = AgentSpec("a").with_config(CompactConfigKey, CompactConfig())
    with pytest.raises(CompactorUnavailable, match="names no compactor agent"):
        CompactPlugin().on_activate(none_named, MutationBatch())
    named = AgentSpec("a").with_config(CompactConfigKey, CompactConfig(compactor="s"))
    with pytest.raises(CompactorUnavailable, match="needs a runtime"):
        CompactPlugin().on_activate(named, MutationBatch())
    with pytest.raises(ValidationError):
        CompactConfig(trigger_ratio=2)


async def test_close_cancels_summaries_in_flight_and_refuses_new_ones() -> None:
    plugin = CompactPlugin()
    assert isinstance(plugin, HostedPlugin)  # the host closes it at shutdown
    entered, ended = asyncio.Event(), asyncio.Event()

    async def blocked() -> CompactSummary:
        entered.set()
        try:
            await asyncio.Event().wait()  # a summary that never finishes by itself
        finally:
            ended.set()
        raise AssertionError("unreachable")

    assert plugin.jobs.start("t", blocked)
    await entered.wait()
    assert plugin.status() == {"started": 1, "in_flight": 1, "waiting": 0}
    await plugin.close()
    assert ended.is_set() and not plugin.jobs.running("t")
    assert not plugin.jobs.start("t", blocked)  # closed: nothing new starts
    assert plugin.status()["in_flight"] == 0
