"""``@tool``: build a :class:`Tool` from a typed Python function.

The JSON Schema of the arguments and their validation come from the function's signature
(via pydantic); the docstring's first paragraph becomes the description and its ``Args:``
section describes each parameter. A parameter named ``ctx`` (or annotated
:class:`ToolCallContext`) receives the call context. Sync and async functions both work.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any, get_type_hints, overload

import pydantic

from awaken_contract.contract.tool_base import Tool
from awaken_contract.contract.tool_context import ToolCallContext
from awaken_contract.contract.tool_result import ToolDescriptor, ToolOutput, ToolResult
from awaken_contract.errors import InvalidArguments

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters)\s*:\s*$")
_ARG_LINE = re.compile(r"^\s+(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into its summary paragraph and per-argument descriptions."""
    if not doc:
        return "", {}
    text = inspect.cleandoc(doc)
    lines = text.splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _ARGS_HEADER.match(line):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    in_args = False
    current: str | None = None
    for line in lines:
        if _ARGS_HEADER.match(line):
            in_args = True
            continue
        if not in_args:
            continue
        if line.strip() and not line.startswith((" ", "\t")):
            break  # next section
        match = _ARG_LINE.match(line)
        if match and (len(line) - len(line.lstrip())) <= 4:
            current = match.group(1).lstrip("*")
            params[current] = match.group(2).strip()
        elif current and line.strip():
            params[current] = f"{params[current]} {line.strip()}".strip()
    return " ".join(summary), params


class FunctionTool(Tool):
    """A :class:`Tool` backed by a typed function (built by :func:`tool`)."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        id: str | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        self.fn = fn
        self._is_async = inspect.iscoroutinefunction(fn)
        summary, arg_docs = _parse_docstring(fn.__doc__)
        tool_id = id or fn.__name__
        hints = get_type_hints(fn, include_extras=True)
        fields: dict[str, Any] = {}
        self._ctx_param: str | None = None
        for param in inspect.signature(fn).parameters.values():
            annotation = hints.get(param.name, Any)
            if param.name == "ctx" or annotation is ToolCallContext:
                self._ctx_param = param.name
                continue
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError(f"@tool function {fn.__name__}: *args/**kwargs are not supported")
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (
                annotation,
                pydantic.Field(default, description=arg_docs.get(param.name)),
            )
        self.args_model: type[pydantic.BaseModel] = pydantic.create_model(
            f"{tool_id}_args", __config__=pydantic.ConfigDict(extra="forbid"), **fields
        )
        schema = self.args_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)
        schema.setdefault("properties", {})
        self._descriptor = ToolDescriptor(
            tool_id,
            name or tool_id.replace("_", " ").title(),
            description if description is not None else summary,
            parameters=schema,
        )

    def descriptor(self) -> ToolDescriptor:
        """The descriptor generated from the function."""
        return self._descriptor

    def _parse(self, args: Any) -> pydantic.BaseModel:
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise InvalidArguments(
                f"expected a JSON object of arguments, got {type(args).__name__}"
            )
        try:
            return self.args_model.model_validate(args)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first.get("loc", ())) or None
            details = "; ".join(
                f"{'.'.join(str(p) for p in e.get('loc', ())) or '<root>'}: {e['msg']}"
                for e in exc.errors()
            )
            raise InvalidArguments(details, field=field) from None

    def validate_args(self, args: Any) -> None:
        """Validate ``args`` against the signature; raises :class:`InvalidArguments`."""
        self._parse(args)

    async def execute(self, args: Any, ctx: ToolCallContext) -> ToolResult | ToolOutput:
        """Call the function with validated arguments and wrap its return value."""
        parsed = self._parse(args)
        kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        if self._ctx_param is not None:
            kwargs[self._ctx_param] = ctx
        value = await self.fn(**kwargs) if self._is_async else self.fn(**kwargs)
        if isinstance(value, ToolResult | ToolOutput):
            return value
        if isinstance(value, pydantic.BaseModel):
            value = value.model_dump(mode="json")
        return ToolResult.success(self._descriptor.id, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly."""
        return self.fn(*args, **kwargs)


@overload
def tool(fn: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *, id: str | None = None, name: str | None = None, description: str | None = None
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    id: str | None = None,
    name: str | None = None,
    description: str | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Turn a typed function into a :class:`Tool`.

    ``@tool`` or ``@tool(id="weather", description="...")``. The tool id defaults to the
    function name.
    """
    if fn is not None:
        return FunctionTool(fn)

    def wrap(f: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(f, id=id, name=name, description=description)

    return wrap
