"""A third-party Awaken plugin, installed only through its ``awaken.plugins`` entry point.

Its ``hello`` section names a greeting; before every inference it adds that greeting as a
system context message, so a test can see its hook ran from what the model received.
"""

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
from awaken_contract.registry_spec import PluginConfigKey
from awaken_contract.state import StateCommand
from pydantic import BaseModel, ConfigDict


class HelloConfig(BaseModel):
    """Section ``hello``."""

    model_config = ConfigDict(extra="forbid")
    greeting: str = "hello"


class HelloConfigKey(PluginConfigKey[HelloConfig]):
    KEY = "hello"
    CONFIG = HelloConfig


class _Greet(PhaseHook):
    async def run(self, ctx: PhaseContext) -> StateCommand:
        config = ctx.agent_spec.config(HelloConfigKey)
        command = StateCommand()
        message = ContextMessage.system("hello", f"third-party plugin says: {config.greeting}")
        command.schedule_action(AddContextMessage, message)
        return command


class HelloPlugin(Plugin):
    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor("hello")

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_phase_hook("hello", Phase.BEFORE_INFERENCE, _Greet())

    def config_schemas(self) -> list[ConfigSchema]:
        return [ConfigSchema.for_key(HelloConfigKey)]
