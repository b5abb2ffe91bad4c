"""Agent cards generated from the registered agent specs."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from starlette.requests import Request

from awaken_server.protocols.a2a.wire import (
    A2A_PROTOCOL_VERSION,
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentProvider,
    AgentSkill,
)
from awaken_server.security.hosts import server_origin

__all__ = ["EXTENDED_CARD_SCHEME", "INPUT_MODES", "OUTPUT_MODES", "build_card", "request_origin"]

INPUT_MODES = ["text/plain", "application/json"]
OUTPUT_MODES = ["text/plain"]
EXTENDED_CARD_SCHEME = "awakenExtendedCardBearer"


def _server_version() -> str:
    try:
        return version("awaken-server")
    except PackageNotFoundError:
        return "0.0.0"


def request_origin(request: Request) -> str:
    """The base URL cards advertise: ``server.security.public_url`` when configured, else the
    address of the socket the request arrived on — never the ``Host`` or ``X-Forwarded-*``
    headers, which any client (or a DNS-rebinding page) chooses."""
    public_url = request.app.state.awaken.config.security.public_url
    if public_url:
        return str(public_url).rstrip("/")
    return server_origin(request.scope)


def build_card(
    agent_id: str, origin: str, *, tenant: bool = False, extended_card: bool = False
) -> AgentCard:
    """The card of ``agent_id``: the JSON-RPC interface (``POST /v1/a2a``, preferred) and the
    HTTP+JSON one; tenant cards name the agent as ``tenant`` (HTTP+JSON: ``/v1/a2a/<agent_id>``)."""
    url = f"{origin}/v1/a2a" + (f"/{agent_id}" if tenant else "")
    card = AgentCard(
        name=agent_id,
        description=f"Awaken AI agent '{agent_id}'",
        supported_interfaces=[
            AgentInterface(
                url=f"{origin}/v1/a2a",
                protocol_binding="JSONRPC",
                protocol_version=A2A_PROTOCOL_VERSION,
                tenant=agent_id if tenant else None,
            ),
            AgentInterface(
                url=url,
                protocol_binding="HTTP+JSON",
                protocol_version=A2A_PROTOCOL_VERSION,
                tenant=agent_id if tenant else None,
            ),
        ],
        provider=AgentProvider(organization="Awaken", url=origin),
        version=_server_version(),
        capabilities=AgentCapabilities(
            streaming=True, push_notifications=True, extended_agent_card=extended_card
        ),
        default_input_modes=list(INPUT_MODES),
        default_output_modes=list(OUTPUT_MODES),
        skills=[
            AgentSkill(
                id=agent_id,
                name=agent_id,
                description=f"Interact with the '{agent_id}' Awaken agent.",
                tags=["awaken", "agent"],
                input_modes=list(INPUT_MODES),
                output_modes=list(OUTPUT_MODES),
            )
        ],
    )
    if extended_card:
        card.security_schemes = {
            EXTENDED_CARD_SCHEME: {"httpAuthSecurityScheme": {"scheme": "Bearer"}}
        }
        card.security_requirements = [{"schemes": {EXTENDED_CARD_SCHEME: {"list": []}}}]
        card.security = [{EXTENDED_CARD_SCHEME: []}]
    return card
