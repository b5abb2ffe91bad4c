"""A2A v1.0 wire types (HTTP+JSON and JSON-RPC bindings): camelCase JSON, proto-style enum names.

Requests are decoded leniently (unknown fields ignored, as ProtoJSON parsers do); responses
omit absent and empty fields. Shapes follow the official A2A v1.0 specification.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec

__all__ = [
    "A2A_PROTOCOL_VERSION",
    "A2aMessage",
    "AgentCapabilities",
    "AgentCard",
    "AgentInterface",
    "AgentProvider",
    "AgentSkill",
    "Artifact",
    "AuthenticationInfo",
    "CancelTaskRequest",
    "GetExtendedAgentCardRequest",
    "GetTaskRequest",
    "ListTaskPushNotificationConfigsRequest",
    "ListTaskPushNotificationConfigsResponse",
    "ListTasksRequest",
    "ListTasksResponse",
    "Part",
    "PushNotificationConfig",
    "SendMessageConfiguration",
    "SendMessageRequest",
    "StreamResponse",
    "SubscribeToTaskRequest",
    "Task",
    "TaskArtifactUpdateEvent",
    "TaskPushNotificationConfigRequest",
    "TaskState",
    "TaskStatus",
    "TaskStatusUpdateEvent",
]

A2A_PROTOCOL_VERSION = "1.0"
"""The protocol version this server speaks (``A2A-Version`` header, card interfaces)."""


class TaskState(enum.StrEnum):
    """Lifecycle state of a task."""

    SUBMITTED = "TASK_STATE_SUBMITTED"
    WORKING = "TASK_STATE_WORKING"
    INPUT_REQUIRED = "TASK_STATE_INPUT_REQUIRED"
    AUTH_REQUIRED = "TASK_STATE_AUTH_REQUIRED"
    COMPLETED = "TASK_STATE_COMPLETED"
    FAILED = "TASK_STATE_FAILED"
    CANCELED = "TASK_STATE_CANCELED"
    REJECTED = "TASK_STATE_REJECTED"

    @property
    def is_terminal(self) -> bool:
        """Completed, failed, canceled and rejected tasks never change again."""
        return self in _TERMINAL

    @property
    def is_interrupted(self) -> bool:
        """The task waits for the client (input or authentication)."""
        return self in (TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED)

    @property
    def ends_stream(self) -> bool:
        """Terminal or interrupted: a blocking send / stream stops here."""
        return self.is_terminal or self.is_interrupted


_TERMINAL = frozenset(
    {TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED}
)


class _Wire(msgspec.Struct, rename="camel", omit_defaults=True):
    """Base of every wire struct: camelCase keys, defaults omitted."""


class Part(_Wire):
    """One piece of content: exactly one of ``text``, ``raw`` (base64), ``url``, ``data``."""

    text: str | None = None
    raw: str | None = None
    url: str | None = None
    data: Any | None = msgspec.field(default=None)
    media_type: str | None = None
    filename: str | None = None
    metadata: dict[str, Any] | None = None

    def payload_count(self) -> int:
        """How many payload keys are set (valid parts have exactly one)."""
        return sum(v is not None for v in (self.text, self.raw, self.url, self.data))


class A2aMessage(_Wire):
    """A message between user and agent."""

    message_id: str = ""
    role: str = ""
    parts: list[Part] = msgspec.field(default_factory=list)
    task_id: str | None = None
    context_id: str | None = None
    metadata: dict[str, Any] | None = None
    extensions: list[str] | None = None
    reference_task_ids: list[str] | None = None


class TaskStatus(_Wire):
    """State of a task, with the agent message explaining it."""

    state: TaskState
    message: A2aMessage | None = None
    timestamp: str | None = None


class Artifact(_Wire):
    """An output of a task."""

    artifact_id: str
    parts: list[Part]
    name: str | None = None
    description: str | None = None
    metadata: dict[str, Any] | None = None


class Task(_Wire):
    """A unit of work: a run of an Awaken agent on a thread (``contextId``)."""

    id: str
    context_id: str
    status: TaskStatus
    artifacts: list[Artifact] | None = None
    history: list[A2aMessage] | None = None
    metadata: dict[str, Any] | None = None


class TaskStatusUpdateEvent(_Wire):
    """Streamed: the task's status changed."""

    task_id: str
    context_id: str
    status: TaskStatus
    metadata: dict[str, Any] | None = None


class TaskArtifactUpdateEvent(_Wire):
    """Streamed: an artifact was produced or replaced."""

    task_id: str
    context_id: str
    artifact: Artifact
    append: bool | None = None
    last_chunk: bool | None = None
    metadata: dict[str, Any] | None = None


class StreamResponse(_Wire):
    """One streamed frame: exactly one of the four members is set."""

    task: Task | None = None
    message: A2aMessage | None = None
    status_update: TaskStatusUpdateEvent | None = None
    artifact_update: TaskArtifactUpdateEvent | None = None


class AuthenticationInfo(_Wire):
    """Credentials a push notification is sent with."""

    scheme: str = ""
    credentials: str | None = None


class PushNotificationConfig(_Wire):
    """Where (and how) task updates are pushed (the v1.0 ``TaskPushNotificationConfig``)."""

    url: str = ""
    id: str | None = None
    task_id: str | None = None
    tenant: str | None = None
    token: str | None = None
    authentication: AuthenticationInfo | None = None


class SendMessageConfiguration(_Wire):
    """Options of ``message:send`` / ``message:stream``."""

    accepted_output_modes: list[str] | None = None
    task_push_notification_config: PushNotificationConfig | None = None
    push_notification_config: PushNotificationConfig | None = None
    history_length: int | None = None
    return_immediately: bool | None = None


class SendMessageRequest(_Wire):
    """Body of ``message:send`` / ``message:stream``."""

    message: A2aMessage | None = None
    tenant: str | None = None
    agent_id: str | None = None
    configuration: SendMessageConfiguration | None = None
    metadata: dict[str, Any] | None = None


class GetTaskRequest(_Wire):
    """Params of ``GetTask`` (JSON-RPC; HTTP+JSON puts them in the path and query)."""

    id: str = ""
    history_length: int | None = None
    tenant: str | None = None


class CancelTaskRequest(_Wire):
    """Params of ``CancelTask``."""

    id: str = ""
    tenant: str | None = None
    metadata: dict[str, Any] | None = None


class SubscribeToTaskRequest(_Wire):
    """Params of ``SubscribeToTask``."""

    id: str = ""
    tenant: str | None = None


class ListTasksRequest(_Wire):
    """Params of ``ListTasks`` (``status`` by wire name or short alias; offset page tokens)."""

    context_id: str | None = None
    status: str | None = None
    page_size: int | None = None
    page_token: str | None = None
    history_length: int | None = None
    include_artifacts: bool | None = None
    tenant: str | None = None


class TaskPushNotificationConfigRequest(_Wire):
    """Params of ``GetTaskPushNotificationConfig`` / ``DeleteTaskPushNotificationConfig``."""

    task_id: str = ""
    id: str = ""
    tenant: str | None = None


class ListTaskPushNotificationConfigsRequest(_Wire):
    """Params of ``ListTaskPushNotificationConfigs``."""

    task_id: str = ""
    page_size: int | None = None
    page_token: str | None = None
    tenant: str | None = None


class GetExtendedAgentCardRequest(_Wire):
    """Params of ``GetExtendedAgentCard``."""

    tenant: str | None = None


class ListTasksResponse(msgspec.Struct, rename="camel"):
    """A page of tasks (``tasks`` omitted when empty)."""

    total_size: int
    page_size: int
    next_page_token: str
    tasks: list[Task] | msgspec.UnsetType = msgspec.UNSET


class ListTaskPushNotificationConfigsResponse(msgspec.Struct, rename="camel"):
    """A page of push configs (``configs`` omitted when empty)."""

    next_page_token: str
    configs: list[PushNotificationConfig] | msgspec.UnsetType = msgspec.UNSET


class AgentInterface(_Wire):
    """Where and how the agent is reachable."""

    url: str
    protocol_binding: str
    protocol_version: str
    tenant: str | None = None


class AgentProvider(_Wire):
    """Who runs the agent."""

    organization: str
    url: str | None = None


class AgentCapabilities(msgspec.Struct, rename="camel"):
    """Optional protocol features (always all present). ``stateTransitionHistory`` is the
    book's field (always false); v1.0 clients ignore it."""

    streaming: bool
    push_notifications: bool
    extended_agent_card: bool
    state_transition_history: bool = False


class AgentSkill(_Wire):
    """Something the agent can do."""

    id: str
    name: str
    description: str | None = None
    tags: list[str] | None = None
    examples: list[str] | None = None
    input_modes: list[str] | None = None
    output_modes: list[str] | None = None


class AgentCard(_Wire):
    """Self-description of an agent (``/.well-known/agent-card.json``)."""

    name: str
    description: str
    supported_interfaces: list[AgentInterface]
    version: str
    capabilities: AgentCapabilities
    provider: AgentProvider | None = None
    documentation_url: str | None = None
    security_schemes: dict[str, Any] | None = None
    security_requirements: list[dict[str, Any]] | None = None
    security: list[dict[str, list[str]]] | None = None
    default_input_modes: list[str] | None = None
    default_output_modes: list[str] | None = None
    skills: list[AgentSkill] | None = None
    icon_url: str | None = None
