"""MCP client extension: connect Model Context Protocol servers and expose their tools.

```python
from awaken_ext_mcp import McpPlugin, McpServerConnectionConfig, McpToolRegistryManager

manager = await McpToolRegistryManager.connect([
    McpServerConnectionConfig.stdio("files", "python", ["files_server.py"]),
    McpServerConnectionConfig.http("remote", "http://127.0.0.1:8080/mcp"),
])
builder.with_plugin("mcp", McpPlugin(manager))
```
"""

from awaken_ext_mcp.config import (
    McpServerConnectionConfig,
    McpTransport,
    McpTransportKind,
    default_restart_policy,
)
from awaken_ext_mcp.connection import McpCallFailure, McpConnection, McpFailureKind
from awaken_ext_mcp.convert import (
    META_RESULT_CONTENT,
    META_RESULT_STRUCTURED,
    META_SERVER,
    META_TOOL,
    META_TRANSPORT,
    call_result_to_tool_result,
)
from awaken_ext_mcp.errors import McpError
from awaken_ext_mcp.health import (
    FAILURE_THRESHOLD,
    McpPromptEntry,
    McpRefreshHealth,
    McpResourceEntry,
    McpServerState,
)
from awaken_ext_mcp.manager import McpToolRegistryManager
from awaken_ext_mcp.naming import TOOL_ID_PREFIX, mcp_tool_id, sanitize_component
from awaken_ext_mcp.plugin import MCP_PLUGIN_ID, McpAgentConfig, McpAgentConfigKey, McpPlugin
from awaken_ext_mcp.progress import ProgressForwarder, normalize_progress
from awaken_ext_mcp.registry import McpToolRegistry
from awaken_ext_mcp.tool import McpTool, descriptor_from_definition

__all__ = [
    "FAILURE_THRESHOLD",
    "MCP_PLUGIN_ID",
    "META_RESULT_CONTENT",
    "META_RESULT_STRUCTURED",
    "META_SERVER",
    "META_TOOL",
    "META_TRANSPORT",
    "TOOL_ID_PREFIX",
    "McpAgentConfig",
    "McpAgentConfigKey",
    "McpCallFailure",
    "McpConnection",
    "McpError",
    "McpFailureKind",
    "McpPlugin",
    "McpPromptEntry",
    "McpRefreshHealth",
    "McpResourceEntry",
    "McpServerConnectionConfig",
    "McpServerState",
    "McpTool",
    "McpToolRegistry",
    "McpToolRegistryManager",
    "McpTransport",
    "McpTransportKind",
    "ProgressForwarder",
    "call_result_to_tool_result",
    "default_restart_policy",
    "descriptor_from_definition",
    "mcp_tool_id",
    "normalize_progress",
    "sanitize_component",
]
