"""Live protocol streams (AI SDK, AG-UI) over HTTP: heartbeats while the run is idle, the
protocol's terminal frame last, and a client that leaves mid-run frees its stream slot."""

from __future__ import annotations

from typing import Any

import pytest


def _ai_sdk(prompt: str) -> dict[str, Any]:
    return {"messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": prompt}]}]}


def _ag_ui(prompt: str) -> dict[str, Any]:
    return {
        "threadId": f"t-{prompt.split()[0]}",  # (a thread per prompt: no run to interrupt)
        "runId": "client-run",
        "messages": [{"id": f"u-{prompt.split()[0]}", "role": "user", "content": prompt}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


ROUTES = [
    ("/v1/ai-sdk/agents/assistant/runs", _ai_sdk, '"type":"finish"'),
    ("/v1/ag-ui/agents/assistant/runs", _ag_ui, '"type":"RUN_FINISHED"'),
]


@pytest.mark.parametrize(("path", "body", "terminal"), ROUTES)
async def test_an_idle_protocol_stream_sends_heartbeats_and_ends_with_its_terminal_frame(
    make_server: Any, server_config: Any, path: str, body: Any, terminal: str
) -> None:
    live = await make_server(config=server_config(heartbeat_interval_secs=0.1))
    async with live.client.stream("POST", path, json=body("wait 1")) as response:
        assert response.status_code == 200
        raw = [line async for line in response.aiter_lines()]
    assert ": heartbeat" in raw
    data = [line for line in raw if line.startswith("data: ")]
    assert not raw[0].startswith(":")  # the run's first frames come before any heartbeat
    assert any(terminal in line for line in data[-2:])  # (AI SDK ends with [DONE] after it)


@pytest.mark.parametrize(("path", "body", "terminal"), ROUTES)
async def test_a_client_leaving_a_protocol_stream_frees_its_slot(
    make_server: Any, server_config: Any, until: Any, path: str, body: Any, terminal: str
) -> None:
    config = server_config(max_concurrent_streams=1, heartbeat_interval_secs=60)
    live = await make_server(config=config)
    async with live.client.stream("POST", path, json=body("wait 30")) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                break  # the client goes away while the run would go on for 30 s

    async def streams_closed() -> bool:
        return "awaken_sse_connections 0.0" in (await live.client.get("/metrics")).text

    await until(streams_closed)  # noticed by the stream's disconnect watcher, not the run's end
    async with live.client.stream("POST", path, json=body("hello")) as again:
        assert again.status_code == 200  # the only stream slot is free again
        text = "".join([chunk async for chunk in again.aiter_text()])
    assert terminal in text
