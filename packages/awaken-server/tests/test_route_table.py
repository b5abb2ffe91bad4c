"""RouteTable picks exactly the route Starlette's linear scan picks, and matches only once."""

from __future__ import annotations

from typing import Any

from awaken_server.route_table import RouteTable
from starlette.endpoints import HTTPEndpoint
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.testclient import TestClient


async def _ok(_: Any) -> Any:
    return PlainTextResponse("ok")


def _linear(routes: list[BaseRoute], scope: dict[str, Any]) -> BaseRoute | None:
    partial = None
    for route in routes:
        found, _ = route.matches(scope)
        if found is Match.FULL:
            return route
        if found is Match.PARTIAL and partial is None:
            partial = route
    return partial


def _counting(calls: list[str]) -> type[Route]:
    """A route class that records the path of every ``matches`` call in ``calls``."""

    class Counting(Route):
        def matches(self, scope: Any) -> Any:
            calls.append(self.path)
            return super().matches(scope)

    return Counting


def _scope(method: str, path: str) -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "root_path": "", "headers": []}


ROUTES: list[BaseRoute] = [
    Route("/", _ok, methods=["GET"]),
    Route("/health", _ok, methods=["GET"]),
    Route("/health/live", _ok, methods=["GET"]),
    Route("/v1/runs", _ok, methods=["GET"]),
    Route("/v1/runs", _ok, methods=["POST"]),
    Route("/v1/runs/{id}", _ok, methods=["GET"]),
    Route("/v1/{kind}/x", _ok, methods=["GET"]),
    Route("/v1/runs/{id}/events", _ok, methods=["GET"]),
    Route("/v1/a2a/{tail:path}", _ok, methods=["GET", "POST"]),
    Route("/{anything}/deep", _ok, methods=["GET"]),
    Route("/playground/", _ok, methods=["GET"]),
    Route("/.well-known/agent-card.json", _ok, methods=["GET"]),
    Mount("/playground/assets", app=PlainTextResponse("ok")),
    Route("/v1/ru{n}s", _ok, methods=["DELETE"]),
]
PATHS = [
    "/",
    "",
    "/health",
    "/health/",
    "/health/live",
    "/v1/runs",
    "/v1/runs/",
    "/v1/runs/r1",
    "/v1/runs/r1/events",
    "/v1/runs/x/y/z",
    "/v1/threads/x",
    "/v1/a2a/a/b/c",
    "/v1/a2a",
    "/zzz/deep",
    "/health/deep",
    "/playground",
    "/playground/",
    "/playground/assets/app.js",
    "/.well-known/agent-card.json",
    "//v1/runs",
    "/v1/rups",
    "/made/up/1",
]
METHODS = ["GET", "POST", "DELETE", "PATCH", "INVENTED"]


def test_the_table_picks_the_route_a_linear_scan_picks() -> None:
    table = RouteTable(ROUTES)
    for _ in range(2):  # (the second time from the matches the table remembered)
        for path in PATHS:
            for method in METHODS:
                scope = _scope(method, path)
                found, route, child = table.match(dict(scope))
                assert route is _linear(ROUTES, scope), (method, path)
                if route is not None:
                    assert (found, child) == route.matches(dict(scope)), (method, path)


def test_the_servers_own_routes_match_as_before() -> None:
    from awaken_server.routes import native_routes

    routes = native_routes()
    table = RouteTable(routes)
    paths = {
        getattr(r, "path", "/").replace("{id}", "x").replace("{namespace}", "n") for r in routes
    }
    for path in sorted(paths | {p + "/" for p in paths} | {"/v1", "/v1/threads/x/nope"}):
        for method in METHODS:
            scope = _scope(method, path)
            assert table.match(dict(scope))[1] is _linear(routes, scope), (method, path)


def test_the_table_remembers_its_match_for_the_router() -> None:
    calls: list[str] = []
    Counting = _counting(calls)

    routes: list[BaseRoute] = [
        Counting("/v1/runs", _ok, methods=["GET"]),
        Counting("/v1/runs/{id}", _ok, methods=["GET"]),
    ]
    table = RouteTable(routes)
    scope = _scope("GET", "/v1/runs/r1")
    first = table.match(scope)
    assert table.matches(scope)[0] is Match.FULL and table.match(scope) is first
    assert calls == ["/v1/runs", "/v1/runs/{id}"]  # matched once, by the first call
    scope["path"] = "/v1/runs"  # a rewritten path is matched afresh
    assert table.match(scope)[1] is routes[0]


def test_an_app_routes_through_the_table() -> None:
    from starlette.applications import Starlette

    app = Starlette(routes=[RouteTable(ROUTES)])
    with TestClient(app) as client:
        assert client.get("/v1/runs/r1").text == "ok"
        assert client.post("/v1/runs").text == "ok"
        assert client.put("/v1/runs").status_code == 405  # partial match: method not allowed
        assert client.get("/made/up").status_code == 404
        assert client.get("/playground/assets/app.js").text == "ok"
    assert app.url_path_for("_ok", id="r1") == "/v1/runs/r1"


def test_a_literal_route_is_matched_once_across_requests() -> None:
    calls: list[str] = []
    Counting = _counting(calls)

    plain = Route("/v1/runs", _ok, methods=["POST"])
    table = RouteTable([Route("/v1/runs", _ok, methods=["GET"]), plain])
    children = [table.match(_scope("POST", "/v1/runs"))[2] for _ in range(3)]
    assert children[0] == {"endpoint": _ok, "path_params": {}}
    assert children[1]["path_params"] is not children[2]["path_params"]  # (fresh per request)
    # A route with its own matching rule tried first: every request is matched afresh.
    guarded = RouteTable([Counting("/v1/runs", _ok, methods=["GET"]), plain])
    for _ in range(3):
        assert guarded.match(_scope("POST", "/v1/runs"))[1] is plain
    assert calls == ["/v1/runs"] * 3
    # Mounted under a route that set path parameters: matched afresh, parameters kept.
    mounted = {**_scope("POST", "/v1/runs"), "path_params": {"tenant": "t"}}
    assert table.match(mounted)[2]["path_params"] == {"tenant": "t"}


def test_a_route_for_every_method_is_not_remembered_per_method() -> None:
    """A client chooses the method: remembering such a route per method would grow without
    bound, so its full matches are found afresh (and stay right)."""

    class AnyMethod(HTTPEndpoint):
        async def get(self, request: Any) -> PlainTextResponse:
            return PlainTextResponse("ok")

    every = Route("/v1/anything", AnyMethod)  # (a class endpoint: every method matches)
    assert every.methods is None
    table = RouteTable([every])
    for method in ("GET", "BREW", "X-1", "X-2"):
        assert table.match(_scope(method, "/v1/anything"))[:2] == (Match.FULL, every)
    assert table._literal == {}
