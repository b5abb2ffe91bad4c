"""JSON request bodies: the nesting limit holds whether or not the body needs the depth walk."""

from __future__ import annotations

import json

import pytest
from awaken_server.errors import BadRequest
from awaken_server.wire import MAX_JSON_DEPTH, decode_json


def _nested(depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()


def test_the_nesting_limit_is_enforced() -> None:
    assert decode_json(_nested(MAX_JSON_DEPTH)) is not None
    with pytest.raises(BadRequest, match="nested deeper"):
        decode_json(_nested(MAX_JSON_DEPTH + 1))
    deep_object = b'{"a":' * (MAX_JSON_DEPTH + 1) + b"1" + b"}" * (MAX_JSON_DEPTH + 1)
    with pytest.raises(BadRequest, match="nested deeper"):
        decode_json(deep_object)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    # more brackets than the limit, all in a string: the walk runs and finds depth 2
    body = json.dumps({"messages": [{"content": "[{" * MAX_JSON_DEPTH}]}).encode()
    assert decode_json(body)["messages"][0]["content"].startswith("[{")
    shallow = json.dumps({"agentId": "a", "messages": [{"role": "user", "content": "hi"}]})
    assert decode_json(shallow.encode())["agentId"] == "a"
