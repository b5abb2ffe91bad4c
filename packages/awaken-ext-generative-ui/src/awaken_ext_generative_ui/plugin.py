"""The generative-UI plugin: the ``render_a2ui`` tool and the A2UI instructions."""

from __future__ import annotations

from awaken_contract.actions import AddContextMessage
from awaken_contract.contract.context_message import ContextMessage
from awaken_contract.model import Phase
from awaken_contract.plugin import (
    ConfigSchema,
    PhaseContext,
    PhaseHook,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
)
from awaken_contract.registry_spec import AgentSpec
from awaken_contract.state import StateCommand

from awaken_ext_generative_ui.prompt import (
    A2uiPromptConfig,
    A2uiPromptConfigKey,
    render_instructions,
)
from awaken_ext_generative_ui.tool import RENDER_A2UI_TOOL_ID, RenderA2uiTool

__all__ = ["A2UI_INSTRUCTIONS_KEY", "GENERATIVE_UI_PLUGIN_ID", "A2uiInstructionsHook", "A2uiPlugin"]

#: Plugin id and config section.
GENERATIVE_UI_PLUGIN_ID = "generative-ui"
#: Key of the (ephemeral, system) instructions context message.
A2UI_INSTRUCTIONS_KEY = "generative_ui.instructions"


class A2uiPlugin(Plugin):
    """Registers ``render_a2ui`` and injects the A2UI instructions before every inference.

    ``A2uiPlugin()`` uses the standard v0.8 catalog; the classmethods set a catalog,
    examples or custom instructions. The agent's ``generative-ui`` section overrides them
    field by field.
    """

    def __init__(self, config: A2uiPromptConfig | None = None) -> None:
        self.config = config if config is not None else A2uiPromptConfig()

    @classmethod
    def with_catalog_id(cls, catalog_id: str) -> A2uiPlugin:
        """Name another component catalog in the instructions."""
        return cls(A2uiPromptConfig(catalog_id=catalog_id))

    @classmethod
    def with_catalog_and_examples(cls, catalog_id: str, examples: str) -> A2uiPlugin:
        """A catalog plus examples appended to the instructions."""
        return cls(A2uiPromptConfig(catalog_id=catalog_id, examples=examples))

    @classmethod
    def with_custom_instructions(cls, instructions: str) -> A2uiPlugin:
        """Replace the built-in instructions."""
        return cls(A2uiPromptConfig(instructions=instructions))

    @classmethod
    def with_prompt_config(cls, config: A2uiPromptConfig) -> A2uiPlugin:
        """Use a full prompt configuration."""
        return cls(config)

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(GENERATIVE_UI_PLUGIN_ID)

    def config_for(self, agent_spec: AgentSpec) -> A2uiPromptConfig:
        """This plugin's values overlaid by the agent's section (fields present win)."""
        if agent_spec.section(A2uiPromptConfigKey.KEY) is None:
            return self.config
        return self.config.overlaid_by(agent_spec.config(A2uiPromptConfigKey))

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_tool(RENDER_A2UI_TOOL_ID, RenderA2uiTool())
        registrar.register_phase_hook(
            GENERATIVE_UI_PLUGIN_ID, Phase.BEFORE_INFERENCE, A2uiInstructionsHook(self)
        )

    def config_schemas(self) -> list[ConfigSchema]:
        return [ConfigSchema.for_key(A2uiPromptConfigKey)]


class A2uiInstructionsHook(PhaseHook):
    """Adds the instructions as an ephemeral system context message (nothing when blank)."""

    __slots__ = ("plugin",)

    def __init__(self, plugin: A2uiPlugin) -> None:
        self.plugin = plugin

    async def run(self, ctx: PhaseContext) -> StateCommand:
        text = render_instructions(self.plugin.config_for(ctx.agent_spec))
        command = StateCommand()
        if text.strip():
            message = ContextMessage.system(A2UI_INSTRUCTIONS_KEY, text)
            command.schedule_action(AddContextMessage, message)
        return command
