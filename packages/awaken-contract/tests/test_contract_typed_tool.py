"""The @tool decorator: schema from type hints, validation, context injection."""

from __future__ import annotations

import enum

import pydantic
import pytest
from awaken_contract.contract.tool import (
    InvalidArguments,
    ToolCallContext,
    ToolOutput,
    ToolResult,
    ToolStatus,
    tool,
)


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Location(pydantic.BaseModel):
    lat: float
    lon: float


@tool
async def get_weather(
    city: str, unit: Unit = Unit.CELSIUS, days: int | None = None, at: Location | None = None
) -> dict[str, object]:
    """Weather for a city.

    Args:
        city: The city to look up.
        unit: Temperature unit.
    """
    return {"city": city, "unit": unit.value, "days": days, "lat": at.lat if at else None}


@tool(id="add", name="Add", description="Add two numbers")
def add(a: int, b: int, ctx: ToolCallContext) -> ToolResult:
    return ToolResult.success("add", {"sum": a + b, "call": ctx.call_id})


def test_schema_from_type_hints() -> None:
    desc = get_weather.descriptor()
    assert desc.id == "get_weather" and desc.description == "Weather for a city."
    params = desc.parameters
    assert params["type"] == "object"
    assert params["required"] == ["city"]
    props = params["properties"]
    assert props["city"] == {"type": "string", "description": "The city to look up."}
    assert props["unit"]["default"] == "celsius"
    assert params["$defs"]["Unit"]["enum"] == ["celsius", "fahrenheit"]
    assert {"type": "integer"} in props["days"]["anyOf"]
    assert params["$defs"]["Location"]["required"] == ["lat", "lon"]
    assert params["additionalProperties"] is False


async def test_execute_validates_and_wraps() -> None:
    ctx = ToolCallContext.test_default()
    result = await get_weather.execute(
        {"city": "Tokyo", "unit": "fahrenheit", "at": {"lat": 1, "lon": 2}}, ctx
    )
    assert isinstance(result, ToolResult) and result.status is ToolStatus.SUCCESS
    assert result.data == {"city": "Tokyo", "unit": "fahrenheit", "days": None, "lat": 1.0}


async def test_sync_function_and_ctx_injection() -> None:
    assert "ctx" not in add.descriptor().parameters["properties"]
    out = await add.execute({"a": 1, "b": 2}, ToolCallContext.test_default(call_id="c9"))
    assert isinstance(out, ToolResult | ToolOutput)
    assert ToolOutput.of(out).result.data == {"sum": 3, "call": "c9"}


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({}, "city"),
        ({"city": 3}, "city"),
        ({"city": "x", "unit": "kelvin"}, "unit"),
        ({"city": "x", "at": {"lat": 1}}, "at.lon"),
        ({"city": "x", "extra": 1}, "extra"),
    ],
)
def test_invalid_arguments_name_the_field(args: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidArguments) as info:
        get_weather.validate_args(args)
    assert info.value.field == field
    assert field.split(".")[0] in str(info.value)


def test_non_object_arguments_are_rejected() -> None:
    with pytest.raises(InvalidArguments, match="JSON object"):
        get_weather.validate_args([1, 2])
