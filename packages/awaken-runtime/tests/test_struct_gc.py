"""Structs built with ``gc=False`` (not tracked by the cyclic GC) must not be able to form
reference cycles: every field holds only scalars, enums or such structs (no list, dict or
``Any``), for the class and for every subclass. This guards the rule when a field is added."""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
import types
import typing

import awaken_contract
import awaken_runtime
import msgspec

_SCALARS = (str, int, float, bool, bytes, type(None), msgspec.UnsetType)


def _acyclic(tp: object, depth: int = 0) -> bool:
    if tp in _SCALARS or (inspect.isclass(tp) and issubclass(tp, enum.Enum)):
        return True
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return True
    if origin in (typing.Union, types.UnionType):
        return all(_acyclic(arg, depth) for arg in typing.get_args(tp))
    if inspect.isclass(tp) and issubclass(tp, msgspec.Struct) and depth < 4:
        hints = typing.get_type_hints(tp)
        return all(_acyclic(hints[name], depth + 1) for name in tp.__struct_fields__)
    return False


def _structs() -> list[type[msgspec.Struct]]:
    found: dict[type[msgspec.Struct], None] = {}
    for package in (awaken_contract, awaken_runtime):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if inspect.isclass(value) and issubclass(value, msgspec.Struct):
                    found[value] = None
    return list(found)


def test_untracked_structs_have_only_acyclic_fields() -> None:
    structs = _structs()
    untracked = [c for c in structs if not c.__struct_config__.gc]
    assert len(untracked) > 50, "the hot-path leaf structs are expected to use gc=False"
    bad = [c.__qualname__ for c in untracked if not _acyclic(c)]
    assert not bad, f"gc=False structs with fields that could form cycles: {bad}"
