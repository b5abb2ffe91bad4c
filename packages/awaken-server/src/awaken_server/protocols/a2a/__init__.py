"""A2A v1.0 (JSON-RPC and HTTP+JSON bindings): agent cards, messages, tasks, streaming and push
notifications.

Mount with ``create_app(state, extra_routes=a2a_routes())``.
"""

from awaken_server.protocols.a2a.card import build_card
from awaken_server.protocols.a2a.errors import A2aError
from awaken_server.protocols.a2a.routes import a2a_routes
from awaken_server.protocols.a2a.service import A2aService
from awaken_server.protocols.a2a.tasks import TaskService, job_state, run_state
from awaken_server.protocols.a2a.wire import A2A_PROTOCOL_VERSION, TaskState

__all__ = [
    "A2A_PROTOCOL_VERSION",
    "A2aError",
    "A2aService",
    "TaskService",
    "TaskState",
    "a2a_routes",
    "build_card",
    "job_state",
    "run_state",
]
