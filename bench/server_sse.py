"""Throughput of ``POST /v1/runs`` SSE next to a bare Starlette SSE endpoint (the floor).

Both servers run in this process on loopback uvicorn sockets and are read with httpx. The agent's
model streams ``DELTAS`` text deltas per run; the floor endpoint streams the very same
pre-encoded frames (captured from one Awaken run) with nothing else going on. Prints events/s,
p50/p99 per-event gap for both, and the ratio to the floor writing the frames 64 per chunk, as
Awaken does (target: Awaken ≥ 50% of that batched floor).

    uv run python bench/server_sse.py [--runs 20] [--deltas 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator

import httpx
import uvicorn
from awaken_contract.contract.executor import InferenceRequest, LlmExecutor
from awaken_contract.contract.inference import (
    LlmStreamEvent,
    StopChunk,
    StopReason,
    StreamResult,
    TextDeltaChunk,
)
from awaken_contract.registry_spec import AgentSpec, AgentSystemConfig, ModelSpec
from awaken_server.app import ServerConfig
from awaken_server.bootstrap import ServeSetup
from awaken_server.serve import prepare_app
from awaken_stores import InMemoryStore
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route


class StreamingLlm(LlmExecutor):
    """Streams ``deltas`` small text deltas as fast as possible."""

    def __init__(self, deltas: int) -> None:
        self.deltas = deltas

    async def execute(self, request: InferenceRequest) -> StreamResult:
        raise NotImplementedError("stream only")  # pragma: no cover - never called

    async def stream(self, request: InferenceRequest) -> AsyncIterator[LlmStreamEvent]:
        for i in range(self.deltas):
            yield TextDeltaChunk(f"tok{i} ")
        yield StopChunk(StopReason.END_TURN)


async def _serve(app: object) -> tuple[uvicorn.Server, asyncio.Task[None], str]:
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")  # type: ignore[arg-type]
    )
    task = asyncio.create_task(server.serve())
    while not server.started:  # noqa: ASYNC110 - uvicorn exposes a flag, not an event
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, task, f"http://127.0.0.1:{port}"


async def _read(
    client: httpx.AsyncClient, method: str, path: str, body: object
) -> tuple[int, float, list[float], list[bytes]]:
    gaps: list[float] = []
    frames: list[bytes] = []
    count = 0
    start = last = time.perf_counter()
    async with client.stream(method, path, json=body) as response:
        buffer = b""
        async for chunk in response.aiter_raw():
            buffer += chunk
            while b"\n\n" in buffer:
                frame, buffer = buffer.split(b"\n\n", 1)
                if frame.startswith(b":"):
                    continue
                now = time.perf_counter()
                gaps.append(now - last)
                last = now
                frames.append(frame + b"\n\n")
                count += 1
    return count, time.perf_counter() - start, gaps, frames


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)] * 1e6


async def main(runs: int, deltas: int) -> None:
    system = AgentSystemConfig(
        models=[ModelSpec(id="m", provider="bench", model="bench-1")],
        agents=[AgentSpec("bench").with_model("m").with_max_rounds(2)],
    )
    setup = ServeSetup(system=system, executors={"bench": StreamingLlm(deltas)})
    app, _ = await prepare_app(
        setup, InMemoryStore(), ServerConfig(max_concurrent_requests=0, default_agent_id="bench")
    )
    awaken_server, awaken_task, awaken_url = await _serve(app)
    body = {"agentId": "bench", "messages": [{"role": "user", "content": "go"}]}

    async with httpx.AsyncClient(base_url=awaken_url, timeout=120) as client:
        _, _, _, captured = await _read(client, "POST", "/v1/runs", body)  # warm-up + capture
        payload = b"".join(captured)

        async def floor_endpoint(request: Request) -> StreamingResponse:
            batch = int(request.query_params.get("batch", "1"))

            async def frames() -> AsyncIterator[bytes]:
                for i in range(0, len(captured), batch):
                    yield b"".join(captured[i : i + batch])

            return StreamingResponse(frames(), media_type="text/event-stream")

        floor_app = Starlette(routes=[Route("/sse", floor_endpoint, methods=["POST"])])
        floor_server, floor_task, floor_url = await _serve(floor_app)
        async with httpx.AsyncClient(base_url=floor_url, timeout=120) as floor_client:
            results: dict[str, tuple[int, float, list[float]]] = {
                "awaken": (0, 0.0, []),
                "floor64": (0, 0.0, []),
                "floor1": (0, 0.0, []),
            }
            for _ in range(runs):
                for name, c, method, path in (
                    ("awaken", client, "POST", "/v1/runs"),
                    ("floor64", floor_client, "POST", "/sse?batch=64"),
                    ("floor1", floor_client, "POST", "/sse"),
                ):
                    n, secs, gaps, _ = await _read(c, method, path, body)
                    total_n, total_s, all_gaps = results[name]
                    results[name] = (total_n + n, total_s + secs, all_gaps + gaps)
        floor_server.should_exit = True
        await floor_task
    awaken_server.should_exit = True
    await awaken_task

    print(f"server SSE bench: {runs} runs x {len(captured)} events ({len(payload)} bytes/run)")
    rates = {}
    for name, (n, secs, gaps) in results.items():
        rates[name] = n / secs
        print(
            f"  {name:7s} {rates[name]:>10,.0f} events/s   per-event gap p50 "
            f"{_pct(gaps, 0.5):7.1f} us  p99 {_pct(gaps, 0.99):8.1f} us"
        )
    a_gaps, f_gaps = results["awaken"][2], results["floor64"][2]
    print(
        f"  added latency per event: p50 {_pct(a_gaps, 0.5) - _pct(f_gaps, 0.5):.1f} us, "
        f"p99 {_pct(a_gaps, 0.99) - _pct(f_gaps, 0.99):.1f} us"
    )
    ratio = rates["awaken"] / rates["floor64"]
    print(
        f"  awaken / floor = {ratio:.0%} (target >= 50%; floor = the same frames written 64 per "
        f"chunk, like Awaken's default sse_buffer_size)   mean "
        f"{statistics.fmean(a_gaps) * 1e6:.1f} us/event"
    )
    print(
        f"  (one frame per write, as a naive SSE endpoint does: "
        f"awaken / floor1 = {rates['awaken'] / rates['floor1']:.0%})"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--deltas", type=int, default=2000)
    args = parser.parse_args()
    asyncio.run(main(args.runs, args.deltas))
