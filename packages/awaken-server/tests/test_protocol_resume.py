"""Every protocol's resume route replays from the run journal: after a restart, from any instance.

``awaken serve`` runs as a real subprocess on a SQLite file (the offline demo model). Runs
complete on one process; the process is killed; a fresh process on the same file answers the
AI SDK stream resume and the AG-UI reconnect with exactly the frames the live stream sent after
the client's last id, and an A2A task interrupted by the kill is followed to completion by the
a2a-sdk's ``SubscribeToTask`` (JSON-RPC and HTTP+JSON) on the new process. On PostgreSQL the
resume route of an instance that does not execute the run streams it live and after
completion. Finished runs keep no in-memory buffer.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.types import a2a_pb2 as pb
from awaken_contract.contract.journal import kind_of
from awaken_contract.testing.postgres import fresh_database
from awaken_runtime.testing import wait_until
from awaken_server.sse import EventHubRegistry
from awaken_server.testing import (
    ServeProcess,
    read_journal,
    serve_processes,
    serving,
    start_server,
)

AI_SDK = "/v1/ai-sdk"


def _chat_body(thread_id: str, text: str) -> dict[str, Any]:
    return {
        "threadId": thread_id,
        "messages": [
            {"id": f"{thread_id}-u", "role": "user", "parts": [{"type": "text", "text": text}]}
        ],
    }


def _ag_ui_body(thread_id: str, text: str) -> dict[str, Any]:
    return {
        "threadId": thread_id,
        "runId": "client-run",
        "agentId": "assistant",
        "messages": [{"id": f"{thread_id}-u", "role": "user", "content": text}],
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {},
    }


def _ids(text: str) -> list[int]:
    return [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]


def _after(text: str, seq: int) -> str:
    """The live stream's bytes after the frame carrying ``id: seq``."""
    return text.split(f"id: {seq}\n", 1)[1].split("\n\n", 1)[1]


async def _sdk_subscribe(base_url: str, task_id: str, binding: str) -> list[int]:
    """The task states the a2a-sdk client sees through ``SubscribeToTask`` on ``binding``."""
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, base_url).get_agent_card()
    config = ClientConfig(streaming=True, supported_protocol_bindings=[binding])
    client = ClientFactory(config).create(card)
    states: list[int] = []
    try:
        async for frame in client.subscribe(pb.SubscribeToTaskRequest(id=task_id)):
            if frame.HasField("task"):
                states.append(frame.task.status.state)
            elif frame.HasField("status_update"):
                states.append(frame.status_update.status.state)
    finally:
        await client.close()
    return states


def _data(text: str) -> list[Any]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


async def test_resume_routes_replay_from_the_journal_after_a_restart(tmp_path: Path) -> None:
    store_url = f"sqlite:///{tmp_path / 'resume.db'}"
    first = ServeProcess(tmp_path, store_url, "first")
    try:
        await first.ready()
        async with httpx.AsyncClient(base_url=first.url, timeout=60) as c:
            ai_sdk = await c.post(f"{AI_SDK}/chat", json=_chat_body("t-ai", "weather in Paris"))
            ag_ui = await c.post("/v1/ag-ui/run", json=_ag_ui_body("t-ag", "weather in Oslo"))
            body = {
                "message": {
                    "messageId": "m-a2a",
                    "role": "ROLE_USER",
                    "parts": [{"text": "poll 4"}],
                },
                "configuration": {"returnImmediately": True},
            }
            task = (await c.post("/v1/a2a/message:send", json=body)).json()["task"]

            async def tool_running() -> bool:
                records = [e.record for e in await read_journal(store_url, task["id"])]
                return any(kind_of(r) == "tool_started" for r in records)

            await wait_until(tool_running, 60, interval=0.1)
    finally:
        first.kill()  # the A2A task is mid-tool; the chat runs are done
    assert ai_sdk.status_code == ag_ui.status_code == 200
    assert _data(ai_sdk.text)[-1] == {"type": "finish", "finishReason": "stop"}
    assert _data(ag_ui.text)[-1]["type"] == "RUN_FINISHED"

    second = ServeProcess(tmp_path, store_url, "second")
    try:
        await second.ready()
        async with httpx.AsyncClient(base_url=second.url, timeout=60) as c:
            # AI SDK: resume after a mid-stream id — the rest of the live stream, byte for byte.
            ids = _ids(ai_sdk.text)
            assert ids == sorted(set(ids))
            for seq in (ids[1], ids[len(ids) // 2], ids[-2]):
                resumed = await c.get(
                    f"{AI_SDK}/chat/t-ai/stream", headers={"Last-Event-ID": str(seq)}
                )
                assert resumed.status_code == 200
                assert resumed.headers["x-vercel-ai-ui-message-stream"] == "v1"
                assert resumed.text == _after(ai_sdk.text, seq)
            # Nothing left after the last id, and no active stream (the run finished): 204.
            last = {"Last-Event-ID": str(ids[-1])}
            assert (await c.get(f"{AI_SDK}/chat/t-ai/stream", headers=last)).status_code == 204
            assert (await c.get(f"{AI_SDK}/threads/t-ai/stream")).status_code == 204

            # AG-UI: the reconnect route, same contract.
            ag_ids = _ids(ag_ui.text)
            seq = ag_ids[len(ag_ids) // 2]
            replay = await c.get(
                "/v1/ag-ui/threads/t-ag/replay", headers={"Last-Event-ID": str(seq)}
            )
            assert replay.status_code == 200
            assert replay.text == _after(ag_ui.text, seq)
            assert (await c.get(f"/v1/ag-ui/threads/t-ag/replay?after={seq}")).text == replay.text

            # A2A: the task cut off by the kill resumes (idempotent tool) on the new process;
            # the a2a-sdk's subscribe, on both bindings, follows it there to completion.
            rpc, rest = await asyncio.gather(
                _sdk_subscribe(second.url, task["id"], "JSONRPC"),
                _sdk_subscribe(second.url, task["id"], "HTTP+JSON"),
            )
    finally:
        second.stop()
    for states in (rpc, rest):
        assert states[0] in (pb.TASK_STATE_SUBMITTED, pb.TASK_STATE_WORKING), states
        assert states[-1] == pb.TASK_STATE_COMPLETED, states


@pytest.mark.postgres
async def test_postgres_ai_sdk_resume_from_the_instance_not_running_the_run(
    tmp_path: Path, postgres_dsn: str
) -> None:
    dsn = await fresh_database(postgres_dsn, "awaken_protocol_resume")
    a, b = serve_processes(tmp_path, dsn, "a", "b")
    async with serving([a, b]) as (ca, cb):
        started = asyncio.Event()

        async def on_a() -> str:
            body = _chat_body("t-pg", "think 1 poll 1")
            text = ""
            async with ca.stream("POST", f"{AI_SDK}/chat", json=body) as r:
                async for chunk in r.aiter_text():
                    text += chunk
                    started.set()
            return text

        executing = asyncio.create_task(on_a())
        await asyncio.wait_for(started.wait(), 60)
        live_b = await cb.get(f"{AI_SDK}/chat/t-pg/stream")  # joins while A executes
        live_a = await executing
        first_id = _ids(live_a)[0]
        after_b = await cb.get(
            f"{AI_SDK}/chat/t-pg/stream", headers={"Last-Event-ID": str(first_id)}
        )
        assert [j for j, _ in a.job_starts()] and not b.job_starts()  # it ran on A only
    assert live_b.status_code == after_b.status_code == 200
    # B's stream: every frame of A's, in order and gap-free (JSONB may reorder keys inside
    # free-form payloads: compare decoded frames and their ids).
    assert _ids(live_b.text) == _ids(live_a)
    assert _data(live_b.text) == _data(live_a)
    assert _ids(after_b.text) == _ids(live_a)[1:]
    assert _data(after_b.text) == _data(_after(live_a, first_id))


async def test_a_finished_run_keeps_no_in_memory_stream_buffer() -> None:
    """With a journaled store only live runs have a hub: a finished run's streams are
    replayed from the journal, so its buffer is dropped as the run ends."""
    live = await start_server()
    try:
        response = await live.client.post(
            f"{AI_SDK}/chat", json=_chat_body("t-mem", "weather in Rome")
        )
        assert _data(response.text)[-1] == {"type": "finish", "finishReason": "stop"}

        async def dropped() -> bool:
            return len(live.state.hubs) == 0

        await wait_until(dropped, 30, interval=0.02)
        assert not any(isinstance(v, EventHubRegistry) for v in live.state.extra.values())
        seq = _ids(response.text)[2]
        resumed = await live.client.get(
            f"{AI_SDK}/chat/t-mem/stream", headers={"Last-Event-ID": str(seq)}
        )
        assert resumed.text == _after(response.text, seq)  # still resumable, from the journal
    finally:
        await live.close()
