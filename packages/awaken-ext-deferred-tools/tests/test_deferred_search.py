"""A.6: the ToolSearch tool: grammar, ranking, result format and argument errors."""

import json

import pytest
from awaken_contract.contract.tool import InvalidArguments, ToolCallContext, ToolStatus
from awaken_contract.state import Snapshot, StateMap
from awaken_ext_deferred_tools import (
    NO_MATCH_TEXT,
    DeferralRegistry,
    DeferralRegistryKey,
    KeywordQuery,
    RequiredQuery,
    SelectQuery,
    StoredToolDescriptor,
    ToolSearchTool,
    format_functions,
    parse_query,
    search,
)

WEATHER = StoredToolDescriptor(
    "get_weather",
    "Weather",
    "Get weather",
    {"type": "object", "properties": {"city": {"type": "string"}}},
)
FORECAST = StoredToolDescriptor("forecast", "Forecast", "Weather forecast for the week")
DUMP = StoredToolDescriptor("debug_dump", "Dump", "Dump debug state")
STOCKS = StoredToolDescriptor("stocks", "Stocks", "Stock quotes and market weather")
REGISTRY = DeferralRegistry({t.id: t for t in (WEATHER, FORECAST, DUMP, STOCKS)})


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("select:A,B", SelectQuery(["A", "B"])),
        ("  select: A , ,B  ", SelectQuery(["A", "B"])),
        ("select:", SelectQuery([])),
        ("Select:A", KeywordQuery(["Select:A"])),
        ("+weather week forecast", RequiredQuery("weather", ["week", "forecast"])),
        ("+", KeywordQuery(["+"])),
        ("weather   forecast", KeywordQuery(["weather", "forecast"])),
        ("   ", KeywordQuery([])),
    ],
)
def test_query_grammar(text: str, query: object) -> None:
    assert parse_query(text) == query


def ids(query: str, max_results: int = 5) -> list[str]:
    return [t.id for t in search(REGISTRY, parse_query(query), max_results)]


def test_select_keeps_listed_order_skips_unknown_and_limits() -> None:
    assert ids("select:stocks,nope,get_weather") == ["stocks", "get_weather"]
    assert ids("select:stocks,get_weather", 1) == ["stocks"]


def test_keywords_rank_by_hits_then_id_and_drop_zero_scores() -> None:
    # forecast: weather+forecast (2); get_weather: weather (1); stocks: weather (1)
    assert ids("WEATHER forecast") == ["forecast", "get_weather", "stocks"]
    assert ids("weather", 2) == ["forecast", "get_weather"]
    assert ids("nothing-matches") == []
    assert ids("") == []
    assert ids("weather", 0) == []


def test_required_word_filters_then_ranks_over_all_words() -> None:
    assert ids("+market weather") == ["stocks"]
    assert ids("+weather week") == ["forecast", "get_weather", "stocks"]
    assert ids("+dump") == ["debug_dump"]


def test_result_format_is_exact() -> None:
    text = format_functions([WEATHER, DUMP])
    assert text == (
        "<functions>\n"
        '<function>{"description": "Get weather", "name": "Weather", "parameters": '
        '{"properties":{"city":{"type":"string"}},"type":"object"}}</function>\n'
        '<function>{"description": "Dump debug state", "name": "Dump", "parameters": {}}'
        "</function>\n</functions>"
    )
    quoted = StoredToolDescriptor("q", 'Say "hi"', "天気 \n line")
    body = format_functions([quoted]).split("\n")[1]
    assert json.loads(body.removeprefix("<function>").removesuffix("</function>")) == {
        "description": "天気 \n line",
        "name": 'Say "hi"',
        "parameters": {},
    }


def ctx() -> ToolCallContext:
    values = StateMap()
    values.insert(DeferralRegistryKey, REGISTRY)
    return ToolCallContext(
        "c1",
        "ToolSearch",
        ToolCallContext.test_default().run_identity,
        snapshot=Snapshot(1, values),
    )


async def test_tool_returns_schemas_and_ids_to_promote() -> None:
    tool = ToolSearchTool()
    descriptor = tool.descriptor()
    assert (descriptor.id, descriptor.name) == ("ToolSearch", "ToolSearch")
    assert descriptor.parameters["required"] == ["query"]
    assert descriptor.parameters["properties"]["max_results"] == {"type": "number", "default": 5}
    result = await tool.execute({"query": "select:get_weather"}, ctx())
    assert result.status is ToolStatus.SUCCESS and result.tool_name == "ToolSearch"
    assert result.data == {"tools": format_functions([WEATHER]), "__promote": ["get_weather"]}
    none = await tool.execute({"query": "zzz", "max_results": 3}, ctx())
    assert none.data == {"tools": NO_MATCH_TEXT, "__promote": []}
    empty = await tool.execute({"query": "weather"}, ToolCallContext.test_default())
    assert empty.data["__promote"] == []


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"query": 3},
        {"query": "x", "max_results": -1},
        {"query": "x", "max_results": 2.5},
        {"query": "x", "max_results": "5"},
        {"query": "x", "max_results": True},
        "select:a",
    ],
)
async def test_invalid_arguments(args: object) -> None:
    with pytest.raises(InvalidArguments, match="invalid arguments"):
        ToolSearchTool().validate_args(args)
    with pytest.raises(InvalidArguments):
        await ToolSearchTool().execute(args, ctx())
