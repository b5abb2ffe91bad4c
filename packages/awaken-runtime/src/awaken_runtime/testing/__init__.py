"""Test doubles and helpers shipped with the runtime (used by every test folder of Awaken).

* the scripted model — :class:`ScriptedLlm` (the engine's, re-exported) and the step builders
  :func:`text_step`, :func:`tool_step`, :func:`tool_call_step`;
* :func:`wait_until` — poll a condition, fail loudly with a message when it never holds;
* one SSE client parser — :func:`iter_sse` / :func:`collect_sse` (:class:`SseFrame`);
* an embedded uvicorn server that leaves signal handlers alone —
  :mod:`awaken_runtime.testing.asgi` (needs ``uvicorn``, the ``[testing]`` extra);
* a pytest plugin (entry point ``pytest11``) with the fixtures ``serve``, ``until`` and ``sse``;
* :func:`assert_runs_replay` — every finished run of a store replays identical;
* :class:`ConfirmGate` / :class:`ConfirmPlugin` — park tool calls until a decision arrives.

```python
from awaken_runtime.testing import ScriptedLlm, text_step, tool_call_step

llm = ScriptedLlm([tool_call_step("c1", "get_weather", {"city": "Tokyo"}), text_step("Sunny.")])
```
"""

from awaken_runtime.engine.mock import MockLlmExecutor, ScriptedLlm, text_step, tool_step
from awaken_runtime.testing.approval import ConfirmGate, ConfirmPlugin
from awaken_runtime.testing.polling import wait_until
from awaken_runtime.testing.replay import assert_runs_replay
from awaken_runtime.testing.scripted import tool_call_step
from awaken_runtime.testing.sse import (
    SseFrame,
    collect_sse,
    iter_sse,
    iter_sse_lines,
    parse_sse_text,
)

__all__ = [
    "ConfirmGate",
    "ConfirmPlugin",
    "MockLlmExecutor",
    "ScriptedLlm",
    "SseFrame",
    "assert_runs_replay",
    "collect_sse",
    "iter_sse",
    "iter_sse_lines",
    "parse_sse_text",
    "text_step",
    "tool_call_step",
    "tool_step",
    "wait_until",
]
