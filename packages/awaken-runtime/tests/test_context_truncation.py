"""Token estimates, artifact compaction, truncation and the summary view."""

import random

from awaken_contract.contract.content import ContentBlock
from awaken_contract.contract.message import Message, Role, ToolCall
from awaken_contract.contract.tool import ToolDescriptor
from awaken_contract.registry_spec import ContextWindowPolicy
from awaken_runtime.context import (
    INTERRUPTED_TOOL_RESULT,
    ContextTransform,
    compact_artifact,
    compact_tool_artifacts,
    estimate_message_tokens,
    estimate_tokens,
    estimate_tool_tokens,
    repair_dangling_tool_calls,
    summary_message,
    summary_view,
    trim_to_compaction_boundary,
    truncate_messages,
)


def test_token_estimates() -> None:
    assert estimate_message_tokens(Message.user("abcd" * 10)) == 4 + 10
    # UTF-8 bytes, not characters
    assert estimate_message_tokens(Message.user("é" * 8)) == 4 + 4
    image = Message.user_with_content([ContentBlock.image_url("http://x/y.png")])
    assert estimate_message_tokens(image) == 4 + 50 // 4
    thinking = Message(role=Role.ASSISTANT, content=[ContentBlock.thinking("t" * 40)])
    assert estimate_message_tokens(thinking) == 14
    call = Message.assistant_with_tool_calls("", [ToolCall("c", "abcd", {"k": "v"})])
    assert estimate_message_tokens(call) == 4 + (4 + len('{"k":"v"}')) // 4
    assert estimate_tokens([Message.user("abcd")] * 3) == 15
    tool = ToolDescriptor("t", "tool", "d" * 36).with_parameters({"type": "object"})
    assert estimate_tool_tokens(tool) == (4 + 36 + len('{"type":"object"}')) // 4 + 10


def test_artifact_compaction_threshold_and_preview() -> None:
    assert compact_artifact("x" * 8191) is None
    big = "x" * 8192
    preview = compact_artifact(big)
    assert preview is not None
    assert preview.startswith("x" * 1600 + "\n\n[Content compacted: original ~2048 tokens")
    assert preview.endswith("showing first 1600 chars]")
    lines = "\n".join(f"line {i}" for i in range(2000))
    compacted = compact_artifact(lines)
    assert compacted is not None
    kept = compacted.split("\n\n[Content compacted")[0]
    assert kept.count("\n") == 24 and kept.endswith("line 23\n")


def test_only_tool_results_are_compacted() -> None:
    big = "y" * 10_000
    messages = [Message.user(big), Message.tool("c1", big), Message.assistant(big)]
    out = compact_tool_artifacts(messages)
    assert out[0] is messages[0] and out[2] is messages[2]
    assert "[Content compacted" in out[1].text() and out[1].tool_call_id == "c1"
    assert messages[1].text() == big  # the original is untouched


def policy(max_context: int, recent: int = 2) -> ContextWindowPolicy:
    return ContextWindowPolicy(
        max_context_tokens=max_context, max_output_tokens=0, min_recent_messages=recent
    )


def conversation() -> list[Message]:
    filler = "w" * 400  # ~100 tokens per message
    return [
        Message.system("You are helpful."),
        Message.user("first " + filler),
        Message.assistant_with_tool_calls(
            "calling", [ToolCall("a1", "search", {"q": 1}), ToolCall("a2", "search", {"q": 2})]
        ),
        Message.tool("a1", "r1 " + filler),
        Message.tool("a2", "r2 " + filler),
        Message.assistant("answer " + filler),
        Message.user("second " + filler),
        Message.assistant_with_tool_calls("again", [ToolCall("b1", "search", {"q": 3})]),
        Message.tool("b1", "r3 " + filler),
        Message.user("third " + filler),
    ]


def assert_pairs_intact(messages: list[Message]) -> None:
    calls = {c.id for m in messages if m.tool_calls for c in m.tool_calls}
    results = [m.tool_call_id for m in messages if m.role is Role.TOOL]
    assert set(results) == calls  # every call answered, no orphan result
    first_history = next(m for m in messages if m.role is not Role.SYSTEM)
    assert first_history.role is not Role.TOOL


def test_no_truncation_within_budget() -> None:
    messages = conversation()
    assert truncate_messages(messages, [], policy(100_000)) == messages


def test_truncation_drops_oldest_and_keeps_tool_pairs_together() -> None:
    messages = conversation()
    for budget in range(50, 1200, 25):
        out = truncate_messages(messages, [], policy(budget))
        assert out[0].text() == "You are helpful."
        assert out[-2:] == messages[-2:]  # min_recent_messages
        assert_pairs_intact(out)
        assert estimate_tokens(out) <= max(budget, estimate_tokens([out[0], *out[-3:]]))


def test_split_inside_a_tool_group_moves_before_the_assistant_call() -> None:
    messages = conversation()
    # a budget that would keep only "r2" of the first group must keep the whole group or none
    out = truncate_messages(messages, [], policy(estimate_tokens(messages) - 60))
    ids = [m.tool_call_id for m in out if m.role is Role.TOOL]
    assert ids in (["a1", "a2", "b1"], ["b1"])
    assert_pairs_intact(out)


def test_tool_definitions_count_against_the_budget() -> None:
    messages = conversation()
    roomy = policy(estimate_tokens(messages))
    assert truncate_messages(messages, [], roomy) == messages
    tool = ToolDescriptor("big", "big", "d" * 4000)
    assert len(truncate_messages(messages, [tool], roomy)) < len(messages)


def test_dangling_tool_calls_are_answered() -> None:
    messages = [
        Message.assistant_with_tool_calls("", [ToolCall("x", "t", {}), ToolCall("y", "t", {})]),
        Message.tool("x", "ok"),
        Message.user("next"),
    ]
    out = repair_dangling_tool_calls(messages)
    assert [(m.role, m.tool_call_id) for m in out] == [
        (Role.ASSISTANT, None),
        (Role.TOOL, "x"),
        (Role.TOOL, "y"),
        (Role.USER, None),
    ]
    assert out[2].text() == INTERRUPTED_TOOL_RESULT


def test_summary_view_and_load_time_trim() -> None:
    old = [Message.user("old question"), Message.assistant("old answer")]
    summary = summary_message("they talked about old things")
    recent = [Message.user("new question")]
    history = [*old, summary, *recent]
    assert trim_to_compaction_boundary(history) == [summary, *recent]
    request = [Message.system("prompt"), *history]
    view = summary_view(request)
    assert view[0].text() == "prompt"
    assert view[1:] == [summary, *recent]
    no_summary = [Message.system("p"), *old]
    assert summary_view(no_summary) == no_summary


def test_context_transform_applies_view_compaction_and_truncation() -> None:
    summary = summary_message("S")
    request = [
        Message.system("prompt"),
        Message.user("summarized away"),
        summary,
        Message.user("q"),
        Message.assistant_with_tool_calls("", [ToolCall("c", "read", {})]),
        Message.tool("c", "z" * 20_000),
    ]
    out = ContextTransform(policy(100_000)).transform(request, [])
    assert out.tools is None
    texts = [m.text() for m in out.messages]
    assert "summarized away" not in texts
    assert out.messages[1] is summary
    assert "[Content compacted" in texts[-1]


def random_conversation(rng: random.Random) -> list[Message]:
    messages = [Message.system("sys")]
    call = 0
    for _ in range(rng.randint(1, 12)):
        messages.append(Message.user("u" * rng.randint(1, 600)))
        for _ in range(rng.randint(0, 3)):
            ids = [f"c{call + i}" for i in range(rng.randint(1, 3))]
            call += len(ids)
            messages.append(
                Message.assistant_with_tool_calls("", [ToolCall(i, "t", {}) for i in ids])
            )
            messages.extend(Message.tool(i, "r" * rng.randint(1, 600)) for i in ids)
        messages.append(Message.assistant("a" * rng.randint(1, 600)))
    return messages


def test_truncation_invariants_on_random_conversations() -> None:
    rng = random.Random(1234)
    for _ in range(300):
        messages = random_conversation(rng)
        recent = rng.randint(0, 4)
        budget = rng.randint(10, estimate_tokens(messages) + 50)
        out = truncate_messages(messages, [], policy(budget, recent))
        assert out[0] is messages[0]
        if len(out) > 1:
            assert_pairs_intact(out)
        kept = [m for m in out if m.text() != INTERRUPTED_TOOL_RESULT]
        # an ordered suffix of the original history
        assert kept[1:] == messages[len(messages) - len(kept) + 1 :]
        # the protected recent messages (at least the newest one) are always there
        protected = min(max(recent, 1), len(messages) - 1)
        assert messages[-protected:] == kept[-protected:]
