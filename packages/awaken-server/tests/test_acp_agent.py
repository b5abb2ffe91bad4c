"""AwakenAcpAgent without a client connection: agent selection, session and prompt errors."""

from __future__ import annotations

from typing import Any

import pytest
from acp import RequestError
from acp.schema import (
    BlobResourceContents,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)
from awaken_contract.contract.content import Base64Source, DocumentBlock, TextBlock, UrlSource
from awaken_contract.registry_spec import AgentSpec
from awaken_server.bootstrap import build_runtime, default_system_config
from awaken_server.demo import DEMO_MODEL_ID
from awaken_server.protocols.acp import AwakenAcpAgent
from awaken_server.protocols.acp.agent import prompt_blocks
from awaken_stores import InMemoryStore


def _runtime(*extra: str) -> Any:
    setup = default_system_config({})
    agents = [*setup.system.agents, *(AgentSpec(a).with_model(DEMO_MODEL_ID) for a in extra)]
    system = setup.system.model_copy(update={"agents": agents})
    return build_runtime(
        system, store=InMemoryStore(), executors=setup.executors, tools=setup.tools
    )


async def test_session_agent_selection() -> None:
    only = AwakenAcpAgent(_runtime())
    session = await only.new_session(cwd="/work", mcp_servers=[])
    assert only.sessions[session.session_id].agent_id == "assistant"
    with_default = AwakenAcpAgent(_runtime("default"))
    session = await with_default.new_session(cwd="/work", mcp_servers=[])
    assert with_default.sessions[session.session_id].agent_id == "default"
    ambiguous = AwakenAcpAgent(_runtime("other"))
    with pytest.raises(RequestError) as failure:
        await ambiguous.new_session(cwd="/work", mcp_servers=[])
    assert failure.value.code == -32603
    chosen = AwakenAcpAgent(_runtime("other"), agent_id="other")
    session = await chosen.new_session(cwd="/work", mcp_servers=[])
    assert chosen.sessions[session.session_id].agent_id == "other"
    missing = AwakenAcpAgent(_runtime(), agent_id="ghost")
    with pytest.raises(RequestError):
        await missing.new_session(cwd="/work", mcp_servers=[])


async def test_session_and_prompt_validation() -> None:
    agent = AwakenAcpAgent(_runtime())
    with pytest.raises(RequestError) as relative:
        await agent.new_session(cwd="work", mcp_servers=[])
    assert relative.value.code == -32602
    with pytest.raises(RequestError) as servers:
        await agent.new_session(cwd="/work", mcp_servers=[object()])
    assert servers.value.code == -32602
    with pytest.raises(RequestError) as unknown:
        await agent.prompt(prompt=[TextContentBlock(type="text", text="hi")], session_id="sess_x")
    assert unknown.value.code == -32002
    first = await agent.new_session(cwd="/work", mcp_servers=[])
    second = await agent.new_session(cwd="/work", mcp_servers=[])
    assert first.session_id != second.session_id
    assert agent.sessions[first.session_id].thread_id != agent.sessions[second.session_id].thread_id


def test_prompt_blocks() -> None:
    blocks = prompt_blocks(
        [
            TextContentBlock(type="text", text="read this"),
            ResourceContentBlock(type="resource_link", uri="file:///a/b.txt", name="b.txt"),
            EmbeddedResourceContentBlock(
                type="resource", resource=TextResourceContents(uri="file:///n.md", text="notes")
            ),
            EmbeddedResourceContentBlock(
                type="resource", resource=BlobResourceContents(uri="file:///x/pic.png", blob="AAA")
            ),
        ]
    )
    assert blocks == [
        TextBlock(text="read this"),
        DocumentBlock(source=UrlSource(url="file:///a/b.txt"), title="b.txt"),
        TextBlock(text="notes"),
        DocumentBlock(source=Base64Source(media_type="image/png", data="AAA"), title="pic.png"),
    ]
    with pytest.raises(RequestError) as image:
        prompt_blocks([ImageContentBlock(type="image", data="AAA", mime_type="image/png")])
    assert image.value.code == -32602
    assert str(image.value) == "image prompt content is not supported by this ACP server"
    with pytest.raises(RequestError) as empty:
        prompt_blocks([])
    assert str(empty.value) == "prompt must contain at least one supported content block"
