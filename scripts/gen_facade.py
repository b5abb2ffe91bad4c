"""Generate the ``awaken`` facade modules from the packages they re-export.

The facade exposes every public name at the book's module paths (``awaken.contract.tool``,
``awaken.engine``, ``awaken.stores`` …). Its modules are generated so they never drift from
the packages: run ``uv run python scripts/gen_facade.py`` after adding public names;
``--check`` (used by the tests) fails when a facade module is stale.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FACADE = ROOT / "packages" / "awaken" / "src" / "awaken"

# facade module (relative to ``awaken``) -> source modules whose public names it re-exports.
# A source module that cannot be imported (its optional distribution is not installed) is skipped.
CONTRACT_MODULES = sorted(
    m.name
    for m in pkgutil.iter_modules(
        [str(ROOT / "packages/awaken-contract/src/awaken_contract/contract")]
    )
)
MAPPING: dict[str, list[str]] = {
    **{f"contract.{m}": [f"awaken_contract.contract.{m}"] for m in CONTRACT_MODULES},
    "contract": [f"awaken_contract.contract.{m}" for m in CONTRACT_MODULES],
    "errors": ["awaken_contract.errors"],
    "registry_spec": ["awaken_contract.registry_spec"],
    "model": ["awaken_contract.model"],
    "plugin": ["awaken_contract.plugin"],
    "profile": ["awaken_contract.profile"],
    "actions": ["awaken_contract.actions"],
    "tool_policy": ["awaken_contract.tool_policy"],
    "state": ["awaken_contract.state", "awaken_runtime.state"],
    "engine": ["awaken_runtime.engine"],
    "registry": ["awaken_runtime.registry"],
    "runtime": ["awaken_runtime.runtime"],
    "loop_runner": ["awaken_runtime.loop_runner"],
    "execution": ["awaken_runtime.execution"],
    "phase": ["awaken_runtime.phase"],
    "plugins": ["awaken_runtime.plugins"],
    "policies": ["awaken_runtime.policies"],
    "extensions": ["awaken_runtime.extensions"],
    "extensions.handoff": ["awaken_runtime.extensions.handoff"],
    "extensions.delegation": ["awaken_runtime.extensions.delegation"],
    "context": ["awaken_runtime.context"],
    "evals": ["awaken_runtime.evals"],
    "output": ["awaken_contract.output_schema", "awaken_runtime.structured"],
    "stores": ["awaken_stores"],
    "server": ["awaken_server", "awaken_server.protocols"],
    "ext_permission": ["awaken_ext_permission"],
    "ext_mcp": ["awaken_ext_mcp"],
    "ext_skills": ["awaken_ext_skills"],
    "ext_observability": ["awaken_ext_observability"],
    "log_context": ["awaken_contract.log_context"],
    "ext_deferred_tools": ["awaken_ext_deferred_tools"],
    "ext_generative_ui": ["awaken_ext_generative_ui"],
    "ext_reminder": ["awaken_ext_reminder"],
    "ext_compact": ["awaken_ext_compact"],
    "tool_pattern": ["awaken_tool_pattern"],
}
# The top-level ``awaken`` namespace: the names the book imports as ``awaken::X``.
TOP_LEVEL = [
    "awaken_contract.registry_spec",
    "awaken_contract.state",
    "awaken_contract.model",
    "awaken_contract.plugin",
    "awaken_contract.errors",
    "awaken_contract.contract.request",
    "awaken_runtime",
]


def _assigned_names(module: types.ModuleType) -> set[str]:
    """Names bound by top-level assignments in the module's own source."""
    source_file = getattr(module, "__file__", None)
    if not source_file:
        return set()
    tree = ast.parse(Path(source_file).read_text())
    names: set[str] = set()
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def public_names(module_name: str) -> list[str] | None:
    """Public names a module defines or explicitly exports; None when it can't be imported."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return None
    explicit = getattr(module, "__all__", None)
    if explicit is not None:
        return sorted(set(explicit))
    assigned = _assigned_names(module)
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, types.ModuleType):
            continue
        if inspect.isclass(value) or inspect.isfunction(value):
            if getattr(value, "__module__", None) != module_name:
                continue
        elif name not in assigned:
            continue  # imported constants/aliases belong to their own module
        names.append(name)
    return sorted(names)


def render(facade_name: str, sources: list[str]) -> str | None:
    seen: set[str] = set()
    blocks: list[str] = []
    for source in sources:
        names = public_names(source)
        if names is None:
            continue
        names = [n for n in names if n not in seen]
        seen.update(names)
        if names:
            blocks.append(f"from {source} import {', '.join(names)}\n")
    if not blocks:
        return None
    doc = f'"""``awaken.{facade_name}``: generated re-exports (see scripts/gen_facade.py)."""'
    all_names = ", ".join(f'"{n}"' for n in sorted(seen))
    return (
        f"{doc}\n\n# Generated by scripts/gen_facade.py — do not edit.\n\n"
        + "".join(blocks)
        + f"\n__all__ = [{all_names}]\n"
    )


def target_path(facade_name: str) -> Path:
    parts = facade_name.split(".")
    if facade_name == "contract":
        return FACADE / "contract" / "__init__.py"
    return FACADE.joinpath(*parts[:-1], parts[-1] + ".py")


def expected_files() -> dict[Path, str]:
    files: dict[Path, str] = {}
    for facade_name, sources in MAPPING.items():
        text = render(facade_name, sources)
        if text is not None:
            files[target_path(facade_name)] = text
    top = render("__init__", TOP_LEVEL)
    assert top is not None
    top = top.replace(
        '"""``awaken.__init__``: generated re-exports',
        '"""Awaken for Python. Top-level names are the book\'s ``awaken::X``;\n'
        "submodules mirror the book's module paths. Generated re-exports",
    )
    files[FACADE / "__init__.py"] = top
    return files


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in expected_files().items():
        current = path.read_text() if path.exists() else None
        if current != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if check and stale:
        print("stale facade modules (run scripts/gen_facade.py):", *stale, sep="\n  ")
        return 1
    if not check:
        print(f"wrote {len(stale)} facade module(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
