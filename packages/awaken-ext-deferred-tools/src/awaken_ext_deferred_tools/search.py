"""ToolSearch: find deferred tools by query and promote them (their schemas come back eager).

Query forms (after trimming):

* ``select:A,B`` — exactly these ids, in this order (unknown ids skipped);
* ``+word rest…`` — tools containing ``word``, ranked by every word;
* ``plain keywords`` — tools hit by at least one keyword, ranked by hits.

A keyword hits when it is a case-insensitive substring of ``id name description``. Ties keep
id order. The result lists the schemas in a ``<functions>`` block and names the ids to
promote under ``__promote`` (the plugin's AfterToolExecute hook promotes them).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from awaken_contract.contract.tool import (
    InvalidArguments,
    Tool,
    ToolCallContext,
    ToolDescriptor,
    ToolResult,
)

from awaken_ext_deferred_tools.state import (
    DeferralRegistry,
    DeferralRegistryKey,
    StoredToolDescriptor,
)

__all__ = [
    "DEFAULT_MAX_RESULTS",
    "NO_MATCH_TEXT",
    "PROMOTE_FIELD",
    "TOOL_SEARCH_ID",
    "KeywordQuery",
    "RequiredQuery",
    "SearchQuery",
    "SelectQuery",
    "ToolSearchTool",
    "format_functions",
    "parse_query",
    "search",
]

#: Id and display name of the search tool.
TOOL_SEARCH_ID = "ToolSearch"
#: Result field listing the ids to promote.
PROMOTE_FIELD = "__promote"
#: ``max_results`` when the call gives none.
DEFAULT_MAX_RESULTS = 5
#: ``tools`` text when nothing matched.
NO_MATCH_TEXT = "No matching tools found in the deferred tool registry."

_DESCRIPTION = (
    "Fetch the full schema of deferred tools (listed by name in the system context) so you "
    "can call them. Query forms: `select:A,B` loads exactly the named tools; `+word rest` "
    "requires `word` and ranks by the other words; plain keywords rank tools by how many "
    "keywords appear in their id, name or description. Matching tools become callable from "
    "the next step on."
)

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "select:A,B | +required rest | plain keywords"},
        "max_results": {"type": "number", "default": DEFAULT_MAX_RESULTS},
    },
    "required": ["query"],
}


class SelectQuery(msgspec.Struct, frozen=True):
    """``select:A,B``."""

    ids: list[str]


class RequiredQuery(msgspec.Struct, frozen=True):
    """``+word rest…``."""

    required: str
    rest: list[str]


class KeywordQuery(msgspec.Struct, frozen=True):
    """Whitespace-separated keywords (possibly none)."""

    keywords: list[str]


SearchQuery = SelectQuery | RequiredQuery | KeywordQuery


def parse_query(text: str) -> SearchQuery:
    """Parse a ToolSearch query (``select:`` is case-sensitive; a bare ``+`` is a keyword)."""
    query = text.strip()
    if query.startswith("select:"):
        ids = [part.strip() for part in query.removeprefix("select:").split(",")]
        return SelectQuery([i for i in ids if i])
    words = query.split()
    if query.startswith("+") and len(words[0]) > 1:
        return RequiredQuery(words[0][1:], words[1:])
    return KeywordQuery(words)


def _haystack(tool: StoredToolDescriptor) -> str:
    return f"{tool.id.lower()} {tool.name.lower()} {tool.description.lower()}"


def _score(haystack: str, words: list[str]) -> int:
    return sum(1 for word in words if word.lower() in haystack)


def _ranked(scored: list[tuple[int, StoredToolDescriptor]]) -> list[StoredToolDescriptor]:
    scored.sort(key=lambda pair: (-pair[0], pair[1].id))
    return [tool for _, tool in scored]


def search(
    registry: DeferralRegistry, query: SearchQuery, max_results: int
) -> list[StoredToolDescriptor]:
    """The registry's tools matching ``query``, best first, at most ``max_results``."""
    tools = registry.tools
    if isinstance(query, SelectQuery):
        hits = [tools[i] for i in query.ids if i in tools]
    elif isinstance(query, RequiredQuery):
        words = [query.required, *query.rest]
        needle = query.required.lower()
        hits = _ranked(
            [
                (_score(hay, words), tool)
                for tool in tools.values()
                if needle in (hay := _haystack(tool))
            ]
        )
    else:
        scored = [(_score(_haystack(tool), query.keywords), tool) for tool in tools.values()]
        hits = _ranked([pair for pair in scored if pair[0] > 0])
    return hits[:max_results]


def compact_json(value: Any) -> str:
    """JSON without spaces, keys sorted, UTF-8 kept (the cost estimate and result format)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def format_functions(tools: list[StoredToolDescriptor]) -> str:
    """The ``<functions>`` block of ``tools``."""
    bodies = [
        "<function>{"
        f'"description": {json.dumps(tool.description, ensure_ascii=False)}, '
        f'"name": {json.dumps(tool.name, ensure_ascii=False)}, '
        f'"parameters": {compact_json(tool.parameters)}'
        "}</function>"
        for tool in tools
    ]
    return "<functions>\n" + "\n".join(bodies) + "\n</functions>"


def _max_results(args: dict[str, Any]) -> int:
    value = args.get("max_results", DEFAULT_MAX_RESULTS)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidArguments(
            f"invalid arguments: max_results must be a non-negative integer, got {value!r}"
        )
    return value


class ToolSearchTool(Tool):
    """The ``ToolSearch`` tool over ``deferred_tools.registry``."""

    def descriptor(self) -> ToolDescriptor:
        return ToolDescriptor(TOOL_SEARCH_ID, TOOL_SEARCH_ID, _DESCRIPTION).with_parameters(
            _PARAMETERS
        )

    def validate_args(self, args: Any) -> None:
        if not isinstance(args, dict):
            raise InvalidArguments("invalid arguments: expected an object")
        if not isinstance(args.get("query"), str):
            raise InvalidArguments("invalid arguments: `query` (a string) is required")
        _max_results(args)

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult:
        self.validate_args(args)
        registry = ctx.state(DeferralRegistryKey) or DeferralRegistry()
        hits = search(registry, parse_query(args["query"]), _max_results(args))
        text = format_functions(hits) if hits else NO_MATCH_TEXT
        return ToolResult.success(
            TOOL_SEARCH_ID, {"tools": text, PROMOTE_FIELD: [tool.id for tool in hits]}
        )
