"""Spec §3.3 output matchers, §3.4 message targets and §3.6 the AfterToolExecute hook."""

from __future__ import annotations

from typing import Any

import pytest
from awaken_contract.actions import AddContextMessage
from awaken_contract.contract.context_message import ContextMessageTarget
from awaken_contract.contract.message import Role, Visibility
from awaken_contract.contract.tool import ToolResult, ToolStatus
from awaken_contract.errors import KeyDecode
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext
from awaken_contract.registry_spec import AgentSpec
from awaken_ext_reminder import ReminderHook, ReminderRule, ReminderRulesConfig


def _compile(output: Any = "any", tool: str = "*", **message: Any) -> ReminderRule:
    entry = {"tool": tool, "output": output, "message": {"target": "system", "content": "hint"}}
    entry["message"].update(message)  # type: ignore[attr-defined]
    return ReminderRulesConfig.validate_section({"rules": [entry]}).into_rules()[0]


def _result(status: ToolStatus, data: Any, message: str | None = None) -> ToolResult:
    return ToolResult("t", status, data, message)


OK = ToolStatus.SUCCESS
ERR = ToolStatus.ERROR
PENDING = ToolStatus.PENDING


@pytest.mark.parametrize("output", ["any", {}, {"status": "any"}])
@pytest.mark.parametrize("status", [OK, ERR, PENDING])
def test_any_matchers_hold_for_every_result(output: Any, status: ToolStatus) -> None:
    assert _compile(output).output.matches(_result(status, None))


@pytest.mark.parametrize(
    ("wanted", "status", "holds"),
    [("success", OK, True), ("success", ERR, False), ("error", ERR, True),
     ("error", PENDING, False), ("pending", PENDING, True), ("pending", OK, False)],
)  # fmt: skip
def test_status_matcher(wanted: str, status: ToolStatus, holds: bool) -> None:
    assert _compile({"status": wanted}).output.matches(_result(status, {"x": 1})) is holds


def test_text_content_globs_the_string_form_of_data_never_the_message() -> None:
    matcher = _compile({"content": "*permission denied*"}).output
    assert matcher.matches(_result(OK, "open: permission denied (13)"))
    assert not matcher.matches(_result(OK, "ok"))
    # ToolResult.error puts the text into ``message``; data is null → "" → no match (quirk).
    assert not matcher.matches(ToolResult.error("t", "permission denied"))
    # Objects are compared as compact JSON with sorted keys.
    sorted_json = _compile({"content": '*"a":1,"b":"x"*'}).output
    assert sorted_json.matches(_result(OK, {"b": "x", "a": 1}))
    assert _compile({"content": ""}).output.matches(_result(OK, None))


def test_fields_content_needs_every_condition_and_non_null_data() -> None:
    fields = {
        "fields": [
            {"path": "error.code", "op": "exact", "value": "403"},
            {"path": "error.reason", "value": "*token*"},
        ]
    }
    matcher = _compile({"status": "success", "content": fields}).output
    assert matcher.matches(_result(OK, {"error": {"code": 403, "reason": "bad token"}}))
    assert not matcher.matches(_result(OK, {"error": {"code": 404, "reason": "bad token"}}))
    assert not matcher.matches(_result(OK, {"error": {"code": 403}}))
    assert not matcher.matches(_result(ERR, {"error": {"code": 403, "reason": "bad token"}}))
    assert not matcher.matches(_result(OK, None))
    negated = _compile({"content": {"fields": [{"path": "a", "op": "not_exact", "value": "1"}]}})
    assert negated.output.matches(_result(OK, {"a": 2}))
    assert not negated.output.matches(_result(OK, {"b": 2}))  # absent path: false for any op


@pytest.mark.parametrize(
    ("target", "visibility"),
    [
        (ContextMessageTarget.SYSTEM, Visibility.INTERNAL),
        (ContextMessageTarget.SESSION, Visibility.INTERNAL),
        (ContextMessageTarget.CONVERSATION, Visibility.ALL),
        (ContextMessageTarget.SUFFIX_SYSTEM, Visibility.INTERNAL),
    ],
)
def test_message_targets(target: ContextMessageTarget, visibility: Visibility) -> None:
    message = _compile(target=target.value, cooldown_turns=2).message
    assert message.target is target and message.visibility is visibility
    assert message.role is Role.SYSTEM and message.priority == 0
    assert not message.persistent and not message.consume_after_emit
    assert message.cooldown_turns == 2 and [b.text for b in message.content] == ["hint"]  # type: ignore[union-attr]


def test_tool_patterns_match_name_and_arguments() -> None:
    rule = _compile(tool="Edit(file_path ~ '*.toml')")
    ok = _result(OK, None)
    assert rule.matches("Edit", {"file_path": "Cargo.toml"}, ok)
    assert not rule.matches("Edit", {"file_path": "main.rs"}, ok)
    assert not rule.matches("Write", {"file_path": "Cargo.toml"}, ok)
    primary = _compile(tool="Bash(rm *)")
    assert primary.matches("Bash", {"command": "rm -rf build"}, ok)
    assert not primary.matches("Bash", None, ok)


def _ctx(spec: AgentSpec, **fields: Any) -> PhaseContext:
    return PhaseContext.test_default(Phase.AFTER_TOOL_EXECUTE).replace(agent_spec=spec, **fields)


def _scheduled(command: Any) -> list[str]:
    return [
        action.payload["key"]
        for action in command.scheduled_actions
        if action.key == AddContextMessage.KEY
    ]


async def test_hook_runs_plugin_rules_first_then_section_rules() -> None:
    plugin_rules = ReminderRulesConfig.validate_section(
        {"rules": [
            {"name": "p", "tool": "*", "message": {"target": "system", "content": "a"}},
            {"name": "never", "tool": "other", "message": {"target": "system", "content": "b"}},
        ]}
    ).into_rules()  # fmt: skip
    spec = AgentSpec("a").model_copy(
        update={"sections": {"reminder": {"rules": [
            {"name": "s", "tool": "Bash", "message": {"target": "session", "content": "c"}},
            {"name": "p2", "tool": "*", "output": {"status": "error"},
             "message": {"target": "system", "content": "d"}},
        ]}}}
    )  # fmt: skip
    hook = ReminderHook(plugin_rules)
    command = await hook.run(
        _ctx(spec, tool_name="Bash", tool_args={"command": "ls"}, tool_result=_result(OK, 1))
    )
    assert _scheduled(command) == ["reminder.p", "reminder.s"]


async def test_hook_is_a_no_op_without_tool_name_or_result() -> None:
    hook = ReminderHook([_compile()])
    spec = AgentSpec("a")
    assert _scheduled(await hook.run(_ctx(spec, tool_name="Bash"))) == []
    assert _scheduled(await hook.run(_ctx(spec, tool_result=_result(OK, 1)))) == []
    assert _scheduled(await hook.run(_ctx(spec, tool_name="x", tool_result=_result(OK, 1)))) == [
        "reminder.rule-0-*"
    ]


async def test_hook_fails_with_a_decode_error_for_an_invalid_section() -> None:
    spec = AgentSpec("a").model_copy(update={"sections": {"reminder": {"rules": [{"tool": "("}]}}})
    with pytest.raises(KeyDecode) as err:
        await ReminderHook([]).run(_ctx(spec, tool_name="x", tool_result=_result(OK, 1)))
    assert err.value.key == "reminder"
