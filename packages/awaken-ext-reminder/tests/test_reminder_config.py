"""Spec §3.2: the reminder config section — loading, defaults and every validation error."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
from awaken_contract.contract.context_message import ContextMessageTarget
from awaken_ext_reminder import (
    OutputStatus,
    ReminderConfigError,
    ReminderConfigKey,
    ReminderRulesConfig,
)
from awaken_tool_pattern import MatchOp

SPEC_JSON = """{"rules":[
  {"name":"toml-edit","tool":"Edit(file_path ~ \\"*.toml\\")","output":"any",
   "message":{"target":"system","content":"TOML changed: run the checker.","cooldown_turns":3}},
  {"tool":"*","output":{"status":"error","content":"*permission denied*"},
   "message":{"target":"suffix_system","content":"Access was refused; check ownership."}},
  {"tool":"http_get","output":{"status":"success",
     "content":{"fields":[{"path":"error.code","op":"exact","value":"403"}]}},
   "message":{"target":"suffix_system","content":"Got 403: verify credentials."}}]}"""

SPEC_YAML = """
rules:
  - tool: "*"
    output: {status: error, content: "*permission denied*"}
    message: {target: suffix_system, content: "Access was refused; check ownership."}
"""


def _rule(**fields: object) -> dict[str, object]:
    return {"tool": "x", "message": {"target": "system", "content": "hint"}, **fields}


def test_the_spec_json_example_loads_and_compiles() -> None:
    config = ReminderRulesConfig.from_str(SPEC_JSON, "json")
    rules = config.into_rules()
    assert [r.name for r in rules] == ["toml-edit", "rule-1-*", "rule-2-http_get"]
    assert rules[0].message.cooldown_turns == 3
    assert rules[0].message.target is ContextMessageTarget.SYSTEM
    assert rules[1].output.status is OutputStatus.ERROR
    assert rules[1].output.text == "*permission denied*"
    condition = rules[2].output.fields[0]  # type: ignore[index]
    assert (str(condition), condition.op) == ('error.code = "403"', MatchOp.EXACT)


def test_the_spec_yaml_example_loads_from_text_and_file(tmp_path: Path) -> None:
    from_text = ReminderRulesConfig.from_str(SPEC_YAML, "yaml")
    file = tmp_path / "reminders.yaml"
    file.write_text(SPEC_YAML, encoding="utf-8")
    assert ReminderRulesConfig.from_file(file) == from_text
    json_file = tmp_path / "reminders.json"
    json_file.write_text(SPEC_JSON, encoding="utf-8")
    assert len(ReminderRulesConfig.from_file(json_file).rules) == 3
    # JSON text is accepted whatever the hint; YAML is used for text that is not JSON.
    assert len(ReminderRulesConfig.from_str(SPEC_JSON, "yaml").rules) == 3
    assert ReminderRulesConfig.from_str(SPEC_YAML, "json") == from_text


def test_defaults() -> None:
    assert ReminderRulesConfig.from_str("", "yaml").rules == []
    entry = ReminderRulesConfig.validate_section({"rules": [_rule()]}).rules[0]
    assert entry.output == "any" and entry.name is None and entry.message.cooldown_turns == 0
    rule = ReminderRulesConfig.validate_section({"rules": [_rule(), _rule()]}).into_rules()[1]
    assert rule.name == "rule-1-x" and rule.message.key == "reminder.rule-1-x"
    assert ReminderConfigKey.default() == ReminderRulesConfig()


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (
            _rule(tool="Bash("),
            "rules.0.tool: invalid pattern `Bash(`: parse error at 5",
        ),
        (
            _rule(output="some"),
            "rules.0.output: invalid output matcher: unknown output matcher: 'some', "
            "expected 'any' or structured",
        ),
        (_rule(output=None), "rules.0.output: invalid output matcher: null is not a matcher"),
        (
            _rule(output={"status": "weird"}),
            "rules.0.output.status: invalid output matcher: unknown status: 'weird'",
        ),
        (
            {"tool": "x", "message": {"target": "top", "content": "hint"}},
            "rules.0.message.target: invalid message target: top",
        ),
        (
            _rule(output={"content": {"fields": [{"path": "a", "op": "like", "value": "1"}]}}),
            "rules.0.output.content.fields.0.op: invalid match op: like",
        ),
        (
            _rule(output={"content": {"fields": [{"path": "a", "value": 403}]}}),
            "rules.0.output.content.fields.0.value: Input should be a valid string",
        ),
        (
            _rule(output={"content": {"fields": [{"op": "glob", "value": "1"}]}}),
            "rules.0.output.content.fields.0.path: Field required",
        ),
        (
            {"tool": "x", "message": {"target": "system", "content": "h", "cooldown_turns": -1}},
            "rules.0.message.cooldown_turns: Input should be greater than or equal to 0",
        ),
        ({"tool": "x"}, "rules.0.message: Field required"),
        ({"message": {"target": "system", "content": "h"}}, "rules.0.tool: Field required"),
        (
            {"tool": "x", "message": {"target": "system"}},
            "rules.0.message.content: Field required",
        ),
        (_rule(output={"status": "error", "colour": "red"}), "rules.0.output.colour: Extra"),
    ],
)
def test_every_validation_error_names_its_place(rule: dict[str, object], message: str) -> None:
    with pytest.raises(ReminderConfigError) as err:
        ReminderRulesConfig.validate_section({"rules": [rule]})
    assert str(err.value).startswith("invalid reminder config: ")
    assert message in str(err.value)


def test_unreadable_and_unparsable_files_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ReminderConfigError, match="io error"):
        ReminderRulesConfig.from_file(tmp_path / "missing.json")
    with pytest.raises(ReminderConfigError, match="parse error"):
        ReminderRulesConfig.from_str('{"rules": [', "json")
    with pytest.raises(ReminderConfigError, match="rules: Input should be a valid list"):
        ReminderRulesConfig.from_str("rules: 3", "yaml")


def test_the_json_schema_accepts_the_spec_examples_and_rejects_bad_sections() -> None:
    schema = ReminderConfigKey.json_schema()
    jsonschema.validate(ReminderRulesConfig.from_str(SPEC_JSON).model_dump(mode="json"), schema)
    import json

    jsonschema.validate(json.loads(SPEC_JSON), schema)
    for bad in (
        {"rules": [_rule(output=None)]},
        {"rules": [{"tool": "x", "message": {"target": "top", "content": "h"}}]},
        {"rules": [_rule(output={"content": {"fields": [{"path": "a", "value": 1}]}})]},
        {"rules": [], "extra": True},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
