"""RouteTable: the server's routes, matched once per request through an index.

Starlette's router tries every route's regex in order until one matches, and the request guard
needs the route before the router runs: a request deep in the list paid two linear scans. The
table indexes the routes by the literal first two segments of their path (a route whose path
starts with a parameter, or that has no path, is a candidate for every request), tries only the
candidates in their original order (first full match wins, else the first partial match: the
router's own rule), and remembers the answer in the request scope so that the router, which
sees the whole table as one route, does not match again. A full match of a route without path
parameters depends only on the path and the method: it is remembered for the next request
(bounded: such a route's pattern matches its one literal path).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette._utils import get_route_path  # the routes' own rule: index and regexes agree
from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound, Route
from starlette.types import Receive, Scope, Send

__all__ = ["RouteTable", "TableMatch"]

_MATCH_KEY = "awaken.route_match"
"""Scope key of the remembered match (with the path and method it was made for)."""
_ROUTE_KEY = "awaken.route"
"""Scope key of the route the router hands the request to."""

TableMatch = tuple[Match, BaseRoute | None, Scope]
"""How a request matched: the kind of match, the route (``None``: no route) and its child scope."""

_NO_MATCH: TableMatch = (Match.NONE, None, {})


def _literal_key(route: BaseRoute) -> tuple[str, ...]:
    """The literal leading segments (at most two) of the route's path."""
    path = getattr(route, "path", None)
    if not isinstance(path, str):
        return ()
    segments: list[str] = []
    for segment in path.split("/")[1:3]:
        if "{" in segment:
            break
        segments.append(segment)
    return tuple(segments)


def _matches_by_path_and_method(route: BaseRoute) -> bool:
    """``route`` matches with Starlette's own rule for a plain route: by path and method."""
    return isinstance(route, Route) and type(route).matches is Route.matches


def _depends_on_path_and_method(route: BaseRoute, child: Scope) -> bool:
    """A full match of ``route`` (child scope ``child``) repeats for the same path and method."""
    return (
        _matches_by_path_and_method(route)
        and isinstance(route, Route)
        and not route.param_convertors
        and route.methods is not None  # (a route for every method: the key set is unbounded)
        and child.keys() == {"endpoint", "path_params"}
        and not child["path_params"]
    )


class RouteTable(BaseRoute):
    """The routes of an app as one route (see the module docstring)."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes = list(routes)
        keys = [_literal_key(route) for route in self.routes]
        firsts = {key[:1] for key in keys if key}
        seconds = {key for key in keys if len(key) == 2}

        def candidates(prefixes: set[tuple[str, ...]]) -> tuple[BaseRoute, ...]:
            return tuple(r for r, k in zip(self.routes, keys, strict=True) if k in prefixes)

        self._literal: dict[tuple[str, str | None], tuple[BaseRoute, object]] = {}
        """(path, method) → the route that matched it in full and its endpoint (only routes
        whose match is the path and the method: no parameters, Starlette's own matching)."""
        self._any = candidates({()})
        self._by_first = {first: candidates({(), first}) for first in firsts}
        self._by_second = {second: candidates({(), second[:1], second}) for second in seconds}

    def _candidates(self, path: str) -> tuple[BaseRoute, ...]:
        parts = path.split("/", 3)
        if len(parts) > 2:
            found = self._by_second.get((parts[1], parts[2]))
            if found is not None:
                return found
        if len(parts) > 1:
            found = self._by_first.get((parts[1],))
            if found is not None:
                return found
        return self._any

    def match(self, scope: Scope) -> TableMatch:
        """The route serving ``scope`` (remembered in the scope for the router)."""
        path = get_route_path(scope)
        method = scope.get("method")
        remembered = scope.get(_MATCH_KEY)
        if remembered is not None and remembered[0] == path and remembered[1] == method:
            result: TableMatch = remembered[2]
            return result
        plain = scope["type"] == "http" and "path_params" not in scope  # (not mounted deeper)
        literal = self._literal.get((path, method)) if plain else None
        if literal is not None:
            route, endpoint = literal
            result = (Match.FULL, route, {"endpoint": endpoint, "path_params": {}})
            scope[_MATCH_KEY] = (path, method, result)
            return result
        result = _NO_MATCH
        for route in self._candidates(path):
            found, child = route.matches(scope)
            if found is Match.FULL:
                result = (found, route, child)
                if plain and _depends_on_path_and_method(route, child):
                    self._literal[path, method] = (route, child["endpoint"])
                break
            # (a route whose answer may depend on more than the path and the method, tried
            # before the match, makes the match one that cannot be remembered)
            plain = plain and _matches_by_path_and_method(route)
            if found is Match.PARTIAL and result[0] is Match.NONE:
                result = (found, route, child)
        scope[_MATCH_KEY] = (path, method, result)
        return result

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        found, route, child = self.match(scope)
        if route is None:
            return Match.NONE, {}
        return found, {**child, _ROUTE_KEY: route}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        route: BaseRoute = scope[_ROUTE_KEY]
        await route.handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        for route in self.routes:
            try:
                return route.url_path_for(name, **path_params)
            except NoMatchFound:
                pass
        raise NoMatchFound(name, path_params)
