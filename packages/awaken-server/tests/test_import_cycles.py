"""No import cycles inside any awaken distribution — counting every import, also the ones
inside functions and ``TYPE_CHECKING`` blocks (a cycle hidden that way is still a cycle)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

PACKAGES = (
    "awaken",
    "awaken_contract",
    "awaken_ext_compact",
    "awaken_ext_deferred_tools",
    "awaken_ext_generative_ui",
    "awaken_ext_mcp",
    "awaken_ext_observability",
    "awaken_ext_permission",
    "awaken_ext_reminder",
    "awaken_ext_skills",
    "awaken_runtime",
    "awaken_server",
    "awaken_stores",
    "awaken_tool_pattern",
)


def _modules(package: str) -> dict[str, Path]:
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations
    root = Path(next(iter(spec.submodule_search_locations)))
    found = {}
    for path in root.rglob("*.py"):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    def target(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            imported: list[str] = []
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported = [f"{node.module}.{alias.name}" for alias in node.names]
            for full in imported:
                found = target(full)
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_detector_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles(package: str) -> None:
    modules = _modules(package)
    assert len(modules) > 1  # the package was found, with its submodules
    assert _cycles(_graph(modules)) == []
