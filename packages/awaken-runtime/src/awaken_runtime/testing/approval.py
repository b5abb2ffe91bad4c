"""A tool gate that parks calls until a decision arrives — the usual human-in-the-loop setup
of a test (:class:`ConfirmGate`, registered by :class:`ConfirmPlugin`)."""

from __future__ import annotations

from awaken_contract.actions import InterceptSuspend, ToolInterceptPayload
from awaken_contract.contract.suspension import (
    PendingToolCall,
    SuspendTicket,
    Suspension,
    ToolCallResumeMode,
)
from awaken_contract.plugin import (
    PhaseContext,
    Plugin,
    PluginDescriptor,
    PluginRegistrar,
    ToolGateHook,
)

__all__ = ["ConfirmGate", "ConfirmPlugin"]


class ConfirmGate(ToolGateHook):
    """Suspends every call (only calls of ``tool`` when given) with a ``confirm`` suspension
    ``ok-<call id>`` until a decision resumes it."""

    def __init__(
        self,
        tool: str | None = None,
        *,
        resume_mode: ToolCallResumeMode = ToolCallResumeMode.REPLAY_TOOL_CALL,
    ) -> None:
        self.tool = tool
        self.resume_mode = resume_mode

    async def run(self, ctx: PhaseContext) -> ToolInterceptPayload | None:
        if ctx.resume_input is not None or (self.tool is not None and ctx.tool_name != self.tool):
            return None
        return InterceptSuspend(
            SuspendTicket(
                suspension=Suspension(id=f"ok-{ctx.tool_call_id}", action="confirm"),
                pending=PendingToolCall(
                    id=ctx.tool_call_id or "", name=ctx.tool_name or "", arguments=ctx.tool_args
                ),
                resume_mode=self.resume_mode,
            )
        )


class ConfirmPlugin(Plugin):
    """Registers a :class:`ConfirmGate` under ``plugin_id``."""

    def __init__(self, plugin_id: str = "confirm", gate: ConfirmGate | None = None) -> None:
        self._id = plugin_id
        self.gate = gate if gate is not None else ConfirmGate()

    def descriptor(self) -> PluginDescriptor:
        return PluginDescriptor(self._id)

    def register(self, registrar: PluginRegistrar) -> None:
        registrar.register_tool_gate_hook(self._id, self.gate)
