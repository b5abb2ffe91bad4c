"""A real MCP server for the tests, written with the SDK's MCPServer (formerly FastMCP).

Usage: ``python mcp_demo_server.py stdio``, ``python mcp_demo_server.py http PORT`` (Streamable
HTTP at ``http://127.0.0.1:PORT/mcp``) or ``python mcp_demo_server.py sse PORT`` (legacy SSE at
``/sse``); the HTTP modes print ``READY <port>`` once listening (PORT 0 = any free port).
"""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import EmbeddedResource, TextContent, TextResourceContents

server = MCPServer("demo", log_level="WARNING")

PNG_BYTES = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg=="
)


@server.tool(description="Echo the text back.")
def echo(text: str) -> str:
    return text


@server.tool(description="The server's process id.")
def pid() -> int:
    return os.getpid()


@server.tool(description="Always fails with the given message.")
def fail(msg: str) -> str:
    raise ToolError(msg)


@server.tool(name="my.dotted-tool", title="Dotted Tool", description="A tool with a dotted name.")
def dotted() -> str:
    return "dotted"


@server.tool(description="Returns a 1x1 PNG and a caption.", structured_output=False)
def picture() -> list[object]:
    return [
        TextContent(type="text", text="a pixel"),
        Image(data=PNG_BYTES, format="png").to_image_content(),
    ]


@server.tool(description="Returns an embedded text resource.", structured_output=False)
def document() -> list[object]:
    return [
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="file:///notes.txt", mime_type="text/plain", text="release notes"
            ),
        )
    ]


@server.tool(description="Reports progress in `steps` steps, then answers.")
async def work(steps: int, ctx: Context) -> str:
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}/{steps}")
    return f"worked {steps} steps"


@server.tool(description="Sleeps for `seconds`.")
async def sleepy(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "awake"


def _make_dynamic(name: str) -> None:
    def dynamic() -> str:
        return f"dynamic {name}"

    server.add_tool(dynamic, name=name, description=f"Dynamically added {name}.")


@server.tool(description="Adds a tool named `name` at runtime.")
def add_tool(name: str) -> str:
    _make_dynamic(name)
    return f"added {name}"


@server.tool(description="Removes the tool named `name`.")
def remove_tool(name: str) -> str:
    server.remove_tool(name)
    return f"removed {name}"


@server.tool(description="Shows a UI card.", meta={"ui": {"resourceUri": "ui://card"}})
def card() -> str:
    return "card shown"


@server.resource("ui://card", mime_type="text/html")
def card_html() -> str:
    return "<b>card</b>"


@server.resource("file:///readme.txt", mime_type="text/plain")
def readme() -> str:
    return "read me"


@server.prompt(description="Greets someone.")
def greet(name: str) -> str:
    return f"Say hello to {name}."


async def _serve_http(port: int, transport: str) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(64)
    app = server.sse_app() if transport == "sse" else server.streamable_http_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    uv_server = uvicorn.Server(config)
    print(f"READY {sock.getsockname()[1]}", flush=True)
    await uv_server.serve(sockets=[sock])


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in ("http", "sse"):
        asyncio.run(_serve_http(int(sys.argv[2]) if len(sys.argv) > 2 else 0, sys.argv[1]))
    else:
        server.run("stdio")
