"""The Awaken agent behind an ACP connection (``agent-client-protocol`` SDK ``Agent``).

Sessions map to threads (a new UUID v7 thread per session, fixed agent); each
``session/prompt`` is one direct runtime run (no mailbox) whose events are encoded by
:class:`AcpEncoder` and sent as ``session/update`` notifications (each awaited). A permission
suspension (``tool:PermissionConfirm``) becomes ``session/request_permission``; the client's
choice is delivered to the live run as the tool call's decision.
"""

from __future__ import annotations

import asyncio
import contextlib
import posixpath
import secrets
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any
from urllib.parse import urlparse

from acp import RequestError
from acp.schema import (
    AgentCapabilities,
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ResourceContentBlock,
    SessionNotification,
    TextContentBlock,
    TextResourceContents,
    ToolCallUpdate,
)
from awaken_contract.contract.content import (
    AnyContentBlock,
    Base64Source,
    DocumentBlock,
    TextBlock,
    UrlSource,
)
from awaken_contract.contract.event import AgentEvent
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.identity import AdapterKind
from awaken_contract.contract.message import Message
from awaken_contract.contract.request import RunRequest
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume
from awaken_contract.errors import AwakenError
from awaken_contract.ids import new_id, now_ms
from awaken_contract.runtime import AgentRuntimeApi

from awaken_server.protocols.acp.encoder import (
    AcpEncoder,
    PermissionRequest,
    PromptFailed,
    PromptFinished,
    SessionUpdate,
)
from awaken_server.protocols.agent_directory import local_agent_ids

__all__ = ["PERMISSION_OPTIONS", "AwakenAcpAgent", "decision_for", "prompt_blocks"]

AGENT_NAME = "awaken-acp"

PERMISSION_OPTIONS = [
    PermissionOption(option_id="opt_allow_once", name="Allow once", kind="allow_once"),
    PermissionOption(option_id="opt_allow_always", name="Allow always", kind="allow_always"),
    PermissionOption(option_id="opt_reject_once", name="Reject once", kind="reject_once"),
    PermissionOption(option_id="opt_reject_always", name="Reject always", kind="reject_always"),
]
_POLICIES = {
    "opt_allow_once": (True, "allow_once"),
    "opt_allow_always": (True, "allow_always"),
    "opt_reject_once": (False, "reject_once"),
    "opt_reject_always": (False, "reject_always"),
}
_SUFFIX_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".pdf": "application/pdf",
}


def _version() -> str:
    try:
        return version("awaken-server")
    except PackageNotFoundError:
        return "0.0.0"


def decision_for(outcome: Any) -> ToolCallResume:
    """The HITL decision for a ``session/request_permission`` outcome (-32602 if unknown)."""
    if getattr(outcome, "outcome", None) != "selected":
        result = {"kind": "permission_decision", "approved": False, "cancelled": True}
        return ToolCallResume(
            action=ResumeDecisionAction.CANCEL,
            result=result,
            reason="permission request cancelled",
            updated_at=now_ms(),
        )
    option_id = str(getattr(outcome, "option_id", ""))
    policy = _POLICIES.get(option_id)
    if policy is None:
        raise RequestError(-32602, f"unsupported ACP permission option id: {option_id}")
    approved, name = policy
    result = {"kind": "permission_decision", "approved": approved, "policy": name}
    if approved:
        return ToolCallResume.resume(result)
    return ToolCallResume(
        action=ResumeDecisionAction.CANCEL, result=result, reason=name, updated_at=now_ms()
    )


def _file_name(uri: str) -> str | None:
    name = posixpath.basename(urlparse(uri).path or uri)
    return name or None


def prompt_blocks(prompt: list[Any]) -> list[AnyContentBlock]:
    """Message content for ACP prompt blocks (-32602 for unsupported or no content)."""
    blocks: list[AnyContentBlock] = []
    for item in prompt:
        if isinstance(item, TextContentBlock):
            blocks.append(TextBlock(text=item.text))
        elif isinstance(item, ResourceContentBlock):
            blocks.append(
                DocumentBlock(source=UrlSource(url=item.uri), title=item.title or item.name)
            )
        elif isinstance(item, EmbeddedResourceContentBlock):
            resource = item.resource
            if isinstance(resource, TextResourceContents):
                blocks.append(TextBlock(text=resource.text))
            elif isinstance(resource, BlobResourceContents):
                suffix = posixpath.splitext(urlparse(resource.uri).path)[1].lower()
                media = resource.mime_type or _SUFFIX_TYPES.get(suffix, "application/octet-stream")
                source = Base64Source(media_type=media, data=resource.blob)
                blocks.append(DocumentBlock(source=source, title=_file_name(resource.uri)))
        else:
            kind = getattr(item, "type", "unknown")
            if kind in ("image", "audio"):
                raise RequestError(
                    -32602, f"{kind} prompt content is not supported by this ACP server"
                )
            raise RequestError(-32602, f"unsupported prompt content block: {kind}")
    if not blocks:
        raise RequestError(-32602, "prompt must contain at least one supported content block")
    return blocks


@dataclass(slots=True)
class _Session:
    session_id: str
    thread_id: str
    agent_id: str | None
    run: asyncio.Task[Any] | None = None
    permissions: set[asyncio.Task[None]] = field(default_factory=set)


class _PromptSink(EventSink):
    """Encodes the run's events and sends them to the client, in order, awaiting each."""

    def __init__(self, agent: AwakenAcpAgent, session: _Session) -> None:
        self.agent = agent
        self.session = session
        self.encoder = AcpEncoder()
        self.outcome: asyncio.Future[PromptFinished | PromptFailed] = (
            asyncio.get_running_loop().create_future()
        )

    def settle(self, value: PromptFinished | PromptFailed) -> None:
        """End the prompt turn with ``value`` (the first outcome wins)."""
        if not self.outcome.done():
            self.outcome.set_result(value)

    async def emit(self, event: AgentEvent) -> None:
        for output in self.encoder.encode(event):
            if isinstance(output, SessionUpdate):
                await self.agent.send_update(self.session.session_id, output.update)
            elif isinstance(output, PermissionRequest):
                task = asyncio.create_task(self.agent.ask_permission(self.session, output, self))
                self.session.permissions.add(task)
                task.add_done_callback(self.session.permissions.discard)
            else:
                self.settle(output)


class AwakenAcpAgent:
    """Implements the ACP agent methods over an Awaken runtime."""

    def __init__(self, runtime: AgentRuntimeApi, agent_id: str | None = None) -> None:
        self.runtime = runtime
        self.agent_id = agent_id
        self.sessions: dict[str, _Session] = {}
        self.conn: Any = None

    def on_connect(self, conn: Any) -> None:
        """Keep the client connection (for updates and permission requests)."""
        self.conn = conn

    # ------------------------------------------------------------------ client traffic
    async def send_update(self, session_id: str, update: dict[str, Any]) -> None:
        """Send one ``session/update`` notification."""
        notification = SessionNotification.model_validate(
            {"sessionId": session_id, "update": update}
        )
        await self.conn.session_update(session_id=session_id, update=notification.update)

    async def ask_permission(
        self, session: _Session, request: PermissionRequest, sink: _PromptSink
    ) -> None:
        """Ask the client, then deliver the decision to the live run."""
        try:
            response = await self.conn.request_permission(
                session_id=session.session_id,
                tool_call=ToolCallUpdate.model_validate(request.tool_call),
                options=PERMISSION_OPTIONS,
            )
            resume = decision_for(response.outcome)
        except RequestError as exc:
            sink.settle(PromptFailed(exc.code, str(exc)))
            self._cancel_run(session)
            return
        except Exception as exc:
            sink.settle(PromptFailed(-32603, f"permission request failed: {exc}"))
            self._cancel_run(session)
            return
        delivered = bool(
            self.runtime.send_decision(session.thread_id, request.tool_call_id, resume)
        )
        if not delivered:
            sink.settle(PromptFailed(-32603, "no active run for permission response"))
            self._cancel_run(session)

    def _cancel_run(self, session: _Session) -> None:
        with contextlib.suppress(Exception):
            self.runtime.cancel(session.thread_id)

    # ------------------------------------------------------------------ agent methods
    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **_: Any,
    ) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=AgentCapabilities(),
            auth_methods=[],
            agent_info=Implementation(name=AGENT_NAME, version=_version()),
        )

    async def authenticate(self, method_id: str, **_: Any) -> None:
        return None

    def _select_agent(self) -> str | None:
        if self.agent_id:
            if self.agent_id not in local_agent_ids(self.runtime):
                raise RequestError(-32603, f"agent not found: {self.agent_id}")
            return self.agent_id
        agents = local_agent_ids(self.runtime)
        if "default" in agents:
            return "default"
        if len(agents) == 1:
            return agents[0]
        if not agents:
            return None
        raise RequestError(
            -32603, "ACP stdio requires a `default` agent or exactly one registered agent"
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any
    ) -> NewSessionResponse:
        if not posixpath.isabs(cwd) and not (len(cwd) > 2 and cwd[1] == ":"):
            raise RequestError(-32602, "cwd must be an absolute path")
        if mcp_servers:
            raise RequestError(-32602, "mcpServers are not supported by this ACP stdio server")
        agent_id = self._select_agent()
        session_id = f"sess_{secrets.token_hex(16)}"
        self.sessions[session_id] = _Session(session_id, new_id(), agent_id)
        return NewSessionResponse(session_id=session_id)

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(-32002, f"session not found: {session_id}")
        message = Message.user_with_content(prompt_blocks(prompt))
        request = RunRequest(session.thread_id, [message], agent_id=session.agent_id)
        request.adapter = AdapterKind.ACP
        request.session_id = session_id
        sink = _PromptSink(self, session)
        run = asyncio.create_task(self.runtime.run(request, sink))
        session.run = run

        def finished(task: asyncio.Task[Any]) -> None:
            if task.cancelled():
                sink.settle(PromptFinished("cancelled"))
            elif task.exception() is not None:
                sink.settle(PromptFailed(-32603, str(task.exception())))
            else:
                sink.settle(PromptFinished("end_turn"))

        run.add_done_callback(finished)
        outcome = await sink.outcome
        if isinstance(outcome, PromptFailed):
            self._cancel_run(session)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await run
            raise RequestError(outcome.code, outcome.message, outcome.data)
        with contextlib.suppress(AwakenError):
            await run
        return PromptResponse(stop_reason=outcome.stop_reason)

    async def cancel(self, session_id: str, **_: Any) -> None:
        session = self.sessions.get(session_id)
        if session is None:
            return
        for task in list(session.permissions):
            task.cancel()
        self._cancel_run(session)
