"""Protocol adapters: pure encoders from ``AgentEvent`` to protocol frames, plus their routes.

Each sub-package (``ai_sdk_v6``, ``ag_ui``, …) owns one wire protocol. Encoders know nothing
of HTTP or the loop; routes know nothing of event internals beyond the encoder they use.
``protocol_routes()`` returns the routes of every adapter here, for
``create_app(state, extra_routes=protocol_routes())``.
"""

from __future__ import annotations

from starlette.routing import BaseRoute


def protocol_routes() -> list[BaseRoute]:
    """The routes of the AI SDK v6, AG-UI, A2A and MCP (Streamable HTTP) adapters."""
    from awaken_server.protocols.a2a.routes import a2a_routes
    from awaken_server.protocols.ag_ui.routes import ag_ui_routes
    from awaken_server.protocols.ai_sdk_v6.routes import ai_sdk_routes
    from awaken_server.protocols.mcp_http.routes import mcp_routes

    return [*ai_sdk_routes(), *ag_ui_routes(), *a2a_routes(), *mcp_routes()]


__all__ = ["protocol_routes"]
