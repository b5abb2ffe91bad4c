"""B.5: prompt configuration, the built-in instructions and the injecting hook."""

import pytest
from awaken_contract.actions import AddContextMessage
from awaken_contract.contract.context_message import ContextMessageTarget
from awaken_contract.errors import KeyDecode
from awaken_contract.model import Phase
from awaken_contract.plugin import PhaseContext
from awaken_contract.registry_spec import AgentSpec
from awaken_ext_generative_ui import (
    A2UI_INSTRUCTIONS_KEY,
    DEFAULT_CATALOG_ID,
    A2uiInstructionsHook,
    A2uiPlugin,
    A2uiPromptConfig,
    render_instructions,
)


def test_builtin_text_conveys_every_rule() -> None:
    text = render_instructions(A2uiPromptConfig())
    assert DEFAULT_CATALOG_ID in text and "{{CATALOG_ID}}" not in text
    for needle in (
        "render_a2ui",
        "exactly one message key",
        "no other wrapper",
        "surfaceUpdate (the components), dataModelUpdate (the data, if any), then beginRendering",
        '"surfaceUpdate": {"surfaceId": "order-form"',
        '"dataModelUpdate": {"surfaceId": "order-form"',
        '"beginRendering": {"surfaceId": "order-form", "root": "root"}',
        "flat",
        "`id` and a `component` object with exactly one key",
        "Text copy goes under `text`",
        '"explicitList"',
        "TextField binds its value through `text` (not `value`)",
        "`options`",
        "`selections`",
        "`maxAllowedSelections`",
        "It has no `label`",
        'keys are "0", "1"',
        "2026-04-10T09:00",
        "without a timezone",
        '"action": {"name": "place_order", "context": [',
        "no `event` wrapper",
        '"valueString" | "valueNumber" | "valueBoolean" | "valueMap"',
        "only once its root component exists",
        "deleteSurface",
        "resend every value that is still visible",
        "`A2UI action:`",
        '"MultipleChoice"',
        '"Card"',
        '"Column"',
        '"TextField"',
        '"Button"',
    ):
        assert needle in text, needle


def test_catalog_examples_and_custom_instructions() -> None:
    text = render_instructions(A2uiPromptConfig(catalog_id="my-catalog", examples="EX"))
    assert "my-catalog" in text and DEFAULT_CATALOG_ID not in text
    assert text.endswith("\n\n---BEGIN A2UI EXAMPLES---\nEX\n---END A2UI EXAMPLES---")
    custom = A2uiPromptConfig(instructions="Only this.", catalog_id="ignored", examples="ignored")
    assert render_instructions(custom) == "Only this."


def test_constructors() -> None:
    assert A2uiPlugin().config == A2uiPromptConfig()
    assert A2uiPlugin.with_catalog_id("c").config.catalog_id == "c"
    both = A2uiPlugin.with_catalog_and_examples("c", "e").config
    assert (both.catalog_id, both.examples) == ("c", "e")
    assert A2uiPlugin.with_custom_instructions("x").config.instructions == "x"
    config = A2uiPromptConfig(examples="e")
    assert A2uiPlugin.with_prompt_config(config).config is config
    assert A2uiPlugin().plugin_id == "generative-ui"
    [schema] = A2uiPlugin().config_schemas()
    assert schema.key == "generative-ui"


def test_section_overlays_plugin_defaults_field_by_field() -> None:
    plugin = A2uiPlugin.with_catalog_and_examples("plugin-catalog", "plugin examples")
    assert plugin.config_for(AgentSpec("a")) == plugin.config
    spec = AgentSpec("a").with_section("generative-ui", {"catalog_id": "agent-catalog"})
    merged = plugin.config_for(spec)
    assert (merged.catalog_id, merged.examples) == ("agent-catalog", "plugin examples")
    cleared = plugin.config_for(AgentSpec("a").with_section("generative-ui", {"examples": None}))
    assert (cleared.catalog_id, cleared.examples) == ("plugin-catalog", None)
    with pytest.raises(KeyDecode, match="generative-ui"):
        plugin.config_for(AgentSpec("a").with_section("generative-ui", {"catalog": "x"}))


async def run_hook(plugin: A2uiPlugin, spec: AgentSpec) -> list:
    ctx = PhaseContext.test_default(Phase.BEFORE_INFERENCE).replace(agent_spec=spec)
    command = await A2uiInstructionsHook(plugin).run(ctx)
    return [a for a in command.scheduled_actions if a.key == AddContextMessage.KEY]


async def test_hook_injects_an_ephemeral_system_message_unless_blank() -> None:
    [action] = await run_hook(A2uiPlugin.with_catalog_id("cat"), AgentSpec("a"))
    message = AddContextMessage.decode_payload(action.payload)
    assert message.key == A2UI_INSTRUCTIONS_KEY and message.target is ContextMessageTarget.SYSTEM
    assert message.persistent is False and "cat" in message.content[0].text
    assert await run_hook(A2uiPlugin.with_custom_instructions("  \n"), AgentSpec("a")) == []
    blank = AgentSpec("a").with_section("generative-ui", {"instructions": ""})
    assert await run_hook(A2uiPlugin(), blank) == []
