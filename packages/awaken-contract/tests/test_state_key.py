"""StateKey: type inference, defaults, reducers and the JSON codec (msgspec and pydantic)."""

from __future__ import annotations

import msgspec
import pydantic
import pytest
from awaken_contract.errors import KeyDecode, KeyEncode
from awaken_contract.state import (
    KeyScope,
    MergeStrategy,
    StateKey,
    StateKeyOptions,
    decode_value,
    encode_value,
)


class HitCounter(StateKey[int, int]):
    KEY = "test.hit_counter"
    MERGE = MergeStrategy.COMMUTATIVE

    @classmethod
    def apply(cls, value: int, update: int) -> int:
        return value + update


class AuditLog(msgspec.Struct):
    entries: list[str] = msgspec.field(default_factory=list)


class AuditLogKey(StateKey[AuditLog, AuditLog]):
    KEY = "audit_log"


class Prefs(pydantic.BaseModel):
    theme: str = "light"
    font_size: int = 12


class PrefsKey(StateKey[Prefs, Prefs]):
    KEY = "prefs"
    SCOPE = KeyScope.THREAD


class Tags(StateKey[list[str], str]):
    KEY = "tags"

    @classmethod
    def apply(cls, value: list[str], update: str) -> list[str]:
        return [*value, update]


class MaybeName(StateKey[str | None, str | None]):
    KEY = "maybe_name"


def test_class_attributes_default_to_exclusive_run() -> None:
    assert AuditLogKey.MERGE is MergeStrategy.EXCLUSIVE
    assert AuditLogKey.SCOPE is KeyScope.RUN
    assert HitCounter.MERGE is MergeStrategy.COMMUTATIVE
    assert PrefsKey.SCOPE is KeyScope.THREAD


def test_value_type_is_inferred_from_the_type_parameters() -> None:
    assert HitCounter.value_type is int
    assert AuditLogKey.value_type is AuditLog
    assert Tags.value_type == list[str]


def test_defaults_come_from_the_value_type() -> None:
    assert HitCounter.default() == 0
    assert AuditLogKey.default() == AuditLog()
    assert PrefsKey.default() == Prefs()
    assert Tags.default() == []
    assert MaybeName.default() is None


def test_apply_increments_counter() -> None:
    value = HitCounter.default()
    value = HitCounter.apply(value, 5)
    assert value == 5
    assert HitCounter.apply(value, 3) == 8


def test_default_apply_replaces_the_value() -> None:
    old = AuditLog(["old"])
    new = AuditLogKey.apply(old, AuditLog(["new"]))
    assert new.entries == ["new"]
    assert old.entries == ["old"]


def test_functional_apply_does_not_mutate_input() -> None:
    before = ["a"]
    after = Tags.apply(before, "b")
    assert after == ["a", "b"]
    assert before == ["a"]


def test_struct_round_trip() -> None:
    data = AuditLogKey.encode(AuditLog(["x", "y"]))
    assert data == {"entries": ["x", "y"]}
    assert AuditLogKey.decode(data) == AuditLog(["x", "y"])


def test_pydantic_round_trip() -> None:
    data = PrefsKey.encode(Prefs(theme="dark"))
    assert data == {"theme": "dark", "font_size": 12}
    assert PrefsKey.decode(data) == Prefs(theme="dark")


def test_decode_failure_raises_key_decode_naming_the_key() -> None:
    with pytest.raises(KeyDecode) as err:
        HitCounter.decode("not a number")
    assert err.value.key == "test.hit_counter"
    assert str(err.value).startswith("failed to decode key test.hit_counter:")
    with pytest.raises(KeyDecode):
        PrefsKey.decode({"font_size": "huge"})


def test_encode_failure_raises_key_encode() -> None:
    class Opaque:
        pass

    with pytest.raises(KeyEncode) as err:
        encode_value(Opaque(), key="k")
    assert "failed to encode key k" in str(err.value)


def test_nested_pydantic_inside_struct_round_trips() -> None:
    class Holder(msgspec.Struct):
        prefs: Prefs | None = None

    data = encode_value(Holder(Prefs(font_size=3)), key="h")
    assert data == {"prefs": {"theme": "light", "font_size": 3}}
    assert decode_value(data, Holder, key="h") == Holder(Prefs(font_size=3))


def test_key_options_scope_defaults_to_the_key_scope() -> None:
    assert StateKeyOptions().scope_for(PrefsKey) is KeyScope.THREAD
    assert StateKeyOptions().scope_for(HitCounter) is KeyScope.RUN
    assert StateKeyOptions(scope=KeyScope.RUN).scope_for(PrefsKey) is KeyScope.RUN
    assert StateKeyOptions().persistent is True
    assert StateKeyOptions().retain_on_uninstall is False


def test_enums_use_pascal_wire_values() -> None:
    assert msgspec.json.encode(KeyScope.THREAD) == b'"Thread"'
    assert msgspec.json.encode(MergeStrategy.COMMUTATIVE) == b'"Commutative"'
    assert msgspec.json.decode(b'"Run"', type=KeyScope) is KeyScope.RUN
