"""``A2aBackend``: a remote agent reached over A2A v1.0 (HTTP+JSON) as a delegate backend.

An :class:`~awaken_contract.registry_spec.AgentSpec` with an ``endpoint`` of backend ``a2a``
becomes an ``agent_run_<id>`` tool whose runs go through this backend: the delegate's prompt
is sent with ``POST <base>/message:send`` (``returnImmediately`` by default), then the task is
polled with ``GET <base>/tasks/<id>`` every ``poll_interval_ms`` until it completes, fails,
is canceled/rejected or needs input/auth, or until ``timeout_ms`` passes. Every observation is
reported as an ``a2a-task-progress`` activity; cancelling the parent run cancels the remote
task. Within one parent run, later calls stay in the remote conversation (same
``contextId``) and continue a remote task that asked for input or authentication (same
``taskId``). The remote task is reported as ``DelegateRunResult.remote_task``; the delegation
tool persists it in the parent's thread state (``DelegateRemoteTasksKey``), so a parent
resumed with a decision — in a fresh runtime sharing the store — hands the decision to the
same remote task (:meth:`A2aBackend.resume`). Transport errors and non-2xx answers raise
:class:`ExecutionFailed`, which the delegation tool turns into an error tool result.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from awaken_contract.codec import encode_json
from awaken_contract.contract.cancellation import CancellationToken
from awaken_contract.contract.content import (
    AnyContentBlock,
    AudioBlock,
    DocumentBlock,
    ImageBlock,
    TextBlock,
    UrlSource,
    VideoBlock,
)
from awaken_contract.contract.event import ActivitySnapshot
from awaken_contract.contract.event_sink import EventSink
from awaken_contract.contract.message import Message, Role
from awaken_contract.contract.suspension import ResumeDecisionAction, ToolCallResume
from awaken_contract.errors import ExecutionFailed
from awaken_contract.ids import new_id
from awaken_contract.registry_spec import RemoteEndpoint

from awaken_runtime.extensions.delegation.backend import AgentBackend
from awaken_runtime.extensions.delegation.types import (
    DelegateOutput,
    DelegateRunResult,
    DelegateRunStatus,
    DelegateStatus,
)
from awaken_runtime.state.remote_tasks import RemoteTaskRef

__all__ = [
    "A2A_TASK_PROGRESS",
    "A2aBackend",
    "A2aEndpointConfig",
    "RemoteTaskRef",
    "a2a_backend_factory",
]

A2A_TASK_PROGRESS = "a2a-task-progress"
"""Activity type of the progress snapshots emitted while a remote task runs."""
DEFAULT_POLL_INTERVAL_MS = 2000
ACCEPTED_OUTPUT_MODES = ["text/plain", "application/json", "application/octet-stream"]
_INTERRUPTED = frozenset({"TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"})
_REMEMBERED_RUNS = 1024
"""How many parent runs' remote task references a backend keeps (oldest dropped first)."""
_DONE = frozenset(
    {
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_REJECTED",
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_AUTH_REQUIRED",
    }
)


@dataclass(frozen=True, slots=True)
class A2aEndpointConfig:
    """A validated ``RemoteEndpoint`` of backend ``a2a``."""

    base_url: str
    """Interface URL including the target tenant segment."""
    bearer_token: str | None
    timeout_ms: int
    poll_interval_ms: int
    history_length: int | None
    return_immediately: bool

    @classmethod
    def from_endpoint(cls, endpoint: RemoteEndpoint) -> A2aEndpointConfig:
        """Validate ``endpoint`` (raises ``ValueError`` naming the bad field)."""
        if endpoint.backend != "a2a":
            raise ValueError(f"backend must be 'a2a', got {endpoint.backend!r}")
        base = endpoint.base_url.strip().rstrip("/")
        if not base.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL")
        token = None
        if endpoint.auth is not None:
            if endpoint.auth.type != "bearer":
                raise ValueError(f"unsupported auth type {endpoint.auth.type!r} (only 'bearer')")
            raw = endpoint.auth.params.get("token")
            if not isinstance(raw, str) or not raw.strip():
                raise ValueError("bearer auth needs a non-empty string 'token'")
            token = raw.strip()
        if endpoint.target is not None and endpoint.target.strip():
            base = f"{base}/{endpoint.target.strip().strip('/')}"
        options = dict(endpoint.options)
        poll = options.pop("poll_interval_ms", DEFAULT_POLL_INTERVAL_MS)
        if isinstance(poll, bool) or not isinstance(poll, int) or poll < 0:
            raise ValueError("options.poll_interval_ms must be a non-negative integer")
        history = options.pop("history_length", None)
        if history is not None and (
            isinstance(history, bool) or not isinstance(history, int) or history < 0
        ):
            raise ValueError("options.history_length must be a non-negative integer")
        immediately = options.pop("return_immediately", True)
        if not isinstance(immediately, bool):
            raise ValueError("options.return_immediately must be a boolean")
        return cls(base, token, endpoint.timeout_ms, poll, history, immediately)


def _part(block: AnyContentBlock) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"text": block.text} if block.text else None
    if isinstance(block, ImageBlock | AudioBlock | VideoBlock | DocumentBlock):
        source = block.source
        part: dict[str, Any]
        if isinstance(source, UrlSource):
            part = {"url": source.url}
        else:
            part = {"raw": source.data, "mediaType": source.media_type}
        if isinstance(block, DocumentBlock) and block.title:
            part["filename"] = block.title
        return part
    return None


def decision_part(decision: ToolCallResume) -> dict[str, Any]:
    """The A2A part answering an interrupted remote task with a parent's decision: a
    rejection is ``{"data": {"approved": false, "reason"?}}``, a text result a text part, an
    object result a data part, anything else ``{"data": {"approved": true, "result"?}}``."""
    result = decision.result
    if decision.action is ResumeDecisionAction.CANCEL:
        data = dict(result) if isinstance(result, dict) else {}
        data["approved"] = False
        if decision.reason:
            data.setdefault("reason", decision.reason)
        return {"data": data}
    if isinstance(result, str) and result:
        return {"text": result}
    if isinstance(result, dict):
        return {"data": result}
    data = {"approved": True}
    if result is not None and result is not True:
        data["result"] = result
    return {"data": data}


def _texts(parts: Any) -> list[str]:
    out: list[str] = []
    for part in parts or []:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            out.append(part["text"])
        elif "data" in part:
            out.append(encode_json(part["data"]).decode())
    return out


def _message_text(message: Any) -> str | None:
    if not isinstance(message, dict):
        return None
    text = "\n\n".join(_texts(message.get("parts")))
    return text or None


def task_text(task: dict[str, Any]) -> str | None:
    """The answer of a task: first artifact with text, else the status message, else the last
    history message with text."""
    for artifact in task.get("artifacts") or []:
        joined = "\n\n".join(_texts(artifact.get("parts") if isinstance(artifact, dict) else None))
        if joined:
            return joined
    status_text = _message_text((task.get("status") or {}).get("message"))
    if status_text:
        return status_text
    for message in reversed(task.get("history") or []):
        found = _message_text(message)
        if found:
            return found
    return None


def _artifacts(task: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for artifact in task.get("artifacts") or []:
        if not isinstance(artifact, dict):
            continue
        out.append(
            {
                "id": artifact.get("artifactId"),
                "name": artifact.get("name"),
                "media_type": "text/plain",
                "content": [p for p in artifact.get("parts") or [] if isinstance(p, dict)],
            }
        )
    return out


class A2aBackend(AgentBackend):
    """Runs a delegate on a remote A2A server."""

    continues_remote_tasks = True

    def __init__(
        self,
        agent_id: str,
        config: A2aEndpointConfig,
        *,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.config = config
        self._client = client
        self._remote: OrderedDict[str, RemoteTaskRef] = OrderedDict()

    def remote_task(self, parent_run_id: str) -> RemoteTaskRef | None:
        """The remote task the parent run used last (``None`` before its first call)."""
        return self._remote.get(parent_run_id)

    def _remember(self, parent_run_id: str | None, result: DelegateRunResult) -> None:
        """Attach the remote task to ``result`` and keep it for the parent run."""
        task = result.output.raw
        if not isinstance(task, dict) or not isinstance(task.get("id"), str):
            return
        context = task.get("contextId")
        state = str((task.get("status") or {}).get("state", ""))
        ref = RemoteTaskRef(
            task["id"], context if isinstance(context, str) else None, state, parent_run_id
        )
        result.remote_task = ref
        if not parent_run_id:
            return
        self._remote[parent_run_id] = ref
        self._remote.move_to_end(parent_run_id)
        while len(self._remote) > _REMEMBERED_RUNS:
            self._remote.popitem(last=False)

    @classmethod
    def from_endpoint(cls, agent_id: str, endpoint: RemoteEndpoint) -> A2aBackend:
        """A backend for ``endpoint`` (raises ``ValueError`` when it is invalid)."""
        return cls(agent_id, A2aEndpointConfig.from_endpoint(endpoint))

    def _headers(self) -> dict[str, str]:
        headers = {"A2A-Version": "1.0", "Accept": "application/json"}
        if self.config.bearer_token:
            headers["Authorization"] = f"Bearer {self.config.bearer_token}"
        return headers

    async def _request(
        self, client: httpx.AsyncClient, method: str, path: str, body: Any | None = None
    ) -> dict[str, Any]:
        url = f"{self.config.base_url}{path}"
        try:
            response = await client.request(method, url, json=body, headers=self._headers())
        except httpx.HTTPError as exc:
            raise ExecutionFailed(f"A2A request {method} {url} failed: {exc}") from exc
        if response.status_code >= 300:
            raise ExecutionFailed(
                f"A2A {method} {url} answered HTTP {response.status_code}: {response.text[:500]}"
            )
        try:
            data = response.json()
        except ValueError as exc:
            raise ExecutionFailed(f"A2A {method} {url} answered invalid JSON") from exc
        if not isinstance(data, dict):
            raise ExecutionFailed(f"A2A {method} {url} answered a non-object")
        return data

    def _send_body(
        self, messages: Sequence[Message], previous: RemoteTaskRef | None = None
    ) -> dict[str, Any]:
        parts = [
            p
            for m in messages
            if m.role is Role.USER and not m.is_internal
            for p in (_part(b) for b in m.content)
            if p is not None
        ]
        if not parts:
            raise ExecutionFailed("no user message content to send")
        return self._body(parts, previous)

    def _body(self, parts: list[dict[str, Any]], previous: RemoteTaskRef | None) -> dict[str, Any]:
        configuration: dict[str, Any] = {
            "acceptedOutputModes": list(ACCEPTED_OUTPUT_MODES),
            "returnImmediately": self.config.return_immediately,
        }
        if self.config.history_length is not None:
            configuration["historyLength"] = self.config.history_length
        message: dict[str, Any] = {"messageId": new_id(), "role": "ROLE_USER", "parts": parts}
        if previous is not None:
            # Same remote conversation; an interrupted remote task is continued (A2A §multi-turn).
            if previous.context_id:
                message["contextId"] = previous.context_id
            if previous.last_state in _INTERRUPTED:
                message["taskId"] = previous.task_id
        return {"message": message, "configuration": configuration}

    async def _progress(self, sink: EventSink, task: dict[str, Any]) -> None:
        status = task.get("status") or {}
        state = status.get("state", "")
        failure = None
        if state in ("TASK_STATE_FAILED", "TASK_STATE_REJECTED"):
            failure = _message_text(status.get("message"))
        content = {
            "schema": "a2a-task-progress.v1",
            "task_id": task.get("id"),
            "context_id": task.get("contextId"),
            "state": state,
            "text": task_text(task),
            "artifacts": task.get("artifacts") or [],
            "failure_message": failure,
        }
        await sink.emit(
            ActivitySnapshot(
                message_id=str(task.get("id") or ""),
                activity_type=A2A_TASK_PROGRESS,
                content=content,
                replace=True,
            )
        )

    async def execute(
        self,
        agent_id: str,
        messages: Sequence[Message],
        event_sink: EventSink,
        parent_run_id: str | None,
        parent_tool_call_id: str | None,
        *,
        parent_thread_id: str | None = None,
        cancellation_token: CancellationToken | None = None,
        remote_task: RemoteTaskRef | None = None,
    ) -> DelegateRunResult:
        previous = remote_task
        if previous is None and parent_run_id:
            previous = self._remote.get(parent_run_id)
        body = self._send_body(messages, previous)
        return await self._exchange(agent_id, body, event_sink, parent_run_id, cancellation_token)

    async def resume(
        self,
        agent_id: str,
        remote_task: RemoteTaskRef,
        decision: ToolCallResume,
        event_sink: EventSink,
        *,
        cancellation_token: CancellationToken | None = None,
    ) -> DelegateRunResult:
        """Send the parent's decision to the interrupted remote task (its ``taskId``)."""
        if remote_task.last_state not in _INTERRUPTED:
            raise ExecutionFailed(
                f"remote task {remote_task.task_id} is {remote_task.last_state}, not interrupted"
            )
        body = self._body([decision_part(decision)], remote_task)
        return await self._exchange(
            agent_id, body, event_sink, remote_task.parent_run_id, cancellation_token
        )

    async def _exchange(
        self,
        agent_id: str,
        body: dict[str, Any],
        sink: EventSink,
        parent_run_id: str | None,
        token: CancellationToken | None,
    ) -> DelegateRunResult:
        timeout = self.config.timeout_ms / 1000
        client = self._client or httpx.AsyncClient(timeout=httpx.Timeout(timeout))
        try:
            result = await self._run(client, agent_id, body, sink, token)
            self._remember(parent_run_id, result)
            return result
        finally:
            if self._client is None:
                await client.aclose()

    async def _run(
        self,
        client: httpx.AsyncClient,
        agent_id: str,
        body: dict[str, Any],
        sink: EventSink,
        token: CancellationToken | None,
    ) -> DelegateRunResult:
        deadline = time.monotonic() + self.config.timeout_ms / 1000
        answer = await self._request(client, "POST", "/message:send", body)
        if isinstance(answer.get("message"), dict):
            message = answer["message"]
            text = _message_text(message) or ""
            extra = [
                p for p in message.get("parts") or [] if isinstance(p, dict) and "text" not in p
            ]
            artifacts = [{"id": "message", "name": "message", "content": extra}] if extra else []
            return DelegateRunResult(
                agent_id=agent_id,
                status=DelegateRunStatus(DelegateStatus.COMPLETED),
                response=text,
                output=DelegateOutput(text=text or None, artifacts=artifacts, raw=answer),
                steps=1,
            )
        task = answer.get("task")
        if not isinstance(task, dict) or not isinstance(task.get("id"), str):
            raise ExecutionFailed("A2A message:send answered neither a task nor a message")
        task_id = task["id"]
        await self._progress(sink, task)
        while (task.get("status") or {}).get("state") not in _DONE:
            if token is not None and token.is_cancelled:
                await self._cancel_remote(client, task_id)
                return self._result(agent_id, task, DelegateRunStatus(DelegateStatus.CANCELLED))
            if time.monotonic() >= deadline:
                return self._result(
                    agent_id,
                    task,
                    DelegateRunStatus(DelegateStatus.TIMEOUT, "polling timeout exceeded"),
                )
            await self._sleep(token)
            if token is not None and token.is_cancelled:
                continue
            task = await self._request(client, "GET", f"/tasks/{task_id}")
            await self._progress(sink, task)
        return self._result(agent_id, task, self._status_of(task))

    async def _sleep(self, token: CancellationToken | None) -> None:
        delay = self.config.poll_interval_ms / 1000
        if token is None:
            await asyncio.sleep(delay)
            return
        try:
            await asyncio.wait_for(token.wait(), delay)
        except TimeoutError:
            return

    async def _cancel_remote(self, client: httpx.AsyncClient, task_id: str) -> None:
        try:
            await self._request(client, "POST", f"/tasks/{task_id}:cancel", {})
        except ExecutionFailed:
            return

    @staticmethod
    def _status_of(task: dict[str, Any]) -> DelegateRunStatus:
        status = task.get("status") or {}
        state = status.get("state")
        message = _message_text(status.get("message"))
        if state == "TASK_STATE_COMPLETED":
            return DelegateRunStatus(DelegateStatus.COMPLETED)
        if state == "TASK_STATE_CANCELED":
            return DelegateRunStatus(DelegateStatus.CANCELLED)
        if state == "TASK_STATE_FAILED":
            return DelegateRunStatus(DelegateStatus.FAILED, message or "remote agent run failed")
        if state == "TASK_STATE_REJECTED":
            return DelegateRunStatus(
                DelegateStatus.FAILED, message or "remote agent rejected the task"
            )
        if state == "TASK_STATE_INPUT_REQUIRED":
            return DelegateRunStatus(
                DelegateStatus.WAITING_INPUT, message or "remote agent requires additional input"
            )
        if state == "TASK_STATE_AUTH_REQUIRED":
            return DelegateRunStatus(
                DelegateStatus.WAITING_AUTH, message or "remote agent requires authentication"
            )
        return DelegateRunStatus(DelegateStatus.FAILED, f"remote task ended in {state}")

    @staticmethod
    def _result(
        agent_id: str, task: dict[str, Any], status: DelegateRunStatus
    ) -> DelegateRunResult:
        text = task_text(task) if status.kind is DelegateStatus.COMPLETED else None
        return DelegateRunResult(
            agent_id=agent_id,
            status=status,
            response=text or "",
            output=DelegateOutput(text=text, artifacts=_artifacts(task), raw=task),
            steps=1,
            run_id=str(task.get("id")),
        )


def a2a_backend_factory(agent_id: str, endpoint: RemoteEndpoint) -> A2aBackend:
    """The ``a2a`` backend factory for the runtime's backend registry."""
    return A2aBackend.from_endpoint(agent_id, endpoint)
