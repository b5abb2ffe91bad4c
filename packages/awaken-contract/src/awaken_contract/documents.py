"""Config documents: JSON/YAML parsing and the loaders of user-written configuration.

``parse_document`` / ``parse_config_text`` / ``read_config_text`` turn text into plain data
(``ConfigLoadError`` "parse error: …" / "io error: …"); ``ConfigSection`` is the mixin of a
plugin's config section (``from_file`` / ``from_str`` / ``validate_section``); ``Document`` is
the mixin of the top-level documents in ``registry_spec`` (``from_json`` / ``from_yaml`` /
``from_file`` / ``to_json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ValidationError

from awaken_contract.errors import ConfigLoadError

__all__ = [
    "ConfigSection",
    "Document",
    "describe_validation_error",
    "parse_config_text",
    "parse_document",
    "read_config_text",
]


# ---------------------------------------------------------------------------
# Document parsing (JSON / YAML)
# ---------------------------------------------------------------------------


def _load_yaml(text: str, source: str) -> Any:
    try:
        import yaml  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigLoadError(
            f"parse error: {source}: YAML support needs pyyaml "
            "(install pyyaml or awaken-contract[yaml])"
        ) from exc
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigLoadError(f"parse error: {source}: invalid YAML: {exc}") from exc


def _load_json(text: str | bytes, source: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigLoadError(f"parse error: {source}: invalid JSON: {exc}") from exc


def parse_document(text: str | bytes, fmt: str, source: str = "<document>") -> Any:
    """Parse a JSON (``fmt="json"``) or YAML (``fmt="yaml"``) document into plain data."""
    if fmt == "json":
        return _load_json(text, source)
    if fmt in ("yaml", "yml"):
        raw = text.decode("utf-8") if isinstance(text, bytes) else text
        return _load_yaml(raw, source)
    raise ConfigLoadError(f"parse error: {source}: unsupported format {fmt!r} (use json or yaml)")


def parse_config_text(text: str, ext: str = "json", source: str = "config") -> Any:
    """Plain data of a user-written config text: YAML for a ``yaml``/``yml`` hint and for text
    that does not start with ``{`` or ``[``, else JSON (``ConfigLoadError`` "parse error: …")."""
    yaml_hint = ext.lower().lstrip(".") in ("yaml", "yml")
    fmt = "yaml" if yaml_hint or not text.lstrip().startswith(("{", "[")) else "json"
    return parse_document(text, fmt, source)


def read_config_text(path: str | Path) -> tuple[str, str]:
    """``(text, extension)`` of a config file (``ConfigLoadError`` "io error: …")."""
    file = Path(path)
    try:
        return file.read_text(encoding="utf-8"), file.suffix.lstrip(".")
    except OSError as exc:
        raise ConfigLoadError(f"io error: {exc}") from exc


class ConfigSection(BaseModel):
    """Mixin of a plugin's user-written config section: ``from_file`` / ``from_str`` /
    ``validate_section`` raising ``CONFIG_ERROR`` with every problem named
    (``invalid <CONFIG_LABEL>: rules.0.tool: …``)."""

    CONFIG_ERROR: ClassVar[type[ConfigLoadError]] = ConfigLoadError
    CONFIG_LABEL: ClassVar[str] = "config"

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """Load a JSON or YAML file (chosen by its extension; JSON text is always JSON)."""
        try:
            text, ext = read_config_text(path)
        except ConfigLoadError as exc:
            raise cls.CONFIG_ERROR(str(exc)) from None
        return cls.from_str(text, ext)

    @classmethod
    def from_str(cls, text: str, ext: str = "json") -> Self:
        """Parse configuration text; ``ext`` (``json``, ``yaml``, ``yml``) hints the format.

        JSON is always accepted; YAML is used for YAML hints and for text that does not start
        with ``{`` or ``[``.
        """
        try:
            data = parse_config_text(text, ext, cls.CONFIG_LABEL)
        except ConfigLoadError as exc:
            raise cls.CONFIG_ERROR(str(exc)) from None
        return cls.validate_section({} if data is None else data)

    @classmethod
    def validate_section(cls, data: Any) -> Self:
        """Validate plain data."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            problems = []
            for error in exc.errors():
                # union members tagged by a callable discriminator are not places
                loc = [str(p) for p in error["loc"] if p not in ("text", "structured")]
                message = str(error["msg"]).removeprefix("Value error, ")
                problems.append(f"{'.'.join(loc) or 'config'}: {message}")
            raise cls.CONFIG_ERROR(f"invalid {cls.CONFIG_LABEL}: " + "; ".join(problems)) from None


def _read_file(path: str | Path) -> tuple[Any, str]:
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".json", ".yaml", ".yml"):
        raise ConfigLoadError(
            f"parse error: {p}: unsupported config file extension {suffix or '(none)'!r} "
            "(expected .json, .yaml or .yml)"
        )
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigLoadError(f"io error: {p}: {exc.strerror or exc}") from exc
    return parse_document(text, suffix.lstrip("."), str(p)), str(p)


M = TypeVar("M", bound=BaseModel)


def _validate_document(cls: type[M], data: Any, source: str) -> M:
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        raise ConfigLoadError(f"parse error: {source}: {describe_validation_error(exc)}") from exc


def describe_validation_error(exc: ValidationError) -> str:
    """Every error of ``exc`` as ``loc: message``, joined by ``; ``."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "<root>"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


class Document(BaseModel):
    """Mixin with JSON/YAML/file loaders for top-level config documents."""

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        """Parse and validate a JSON document (raises ``ConfigLoadError``)."""
        return _validate_document(cls, parse_document(text, "json"), cls.__name__)

    @classmethod
    def from_yaml(cls, text: str) -> Self:
        """Parse and validate a YAML document (raises ``ConfigLoadError``)."""
        return _validate_document(cls, parse_document(text, "yaml"), cls.__name__)

    @classmethod
    def from_file(cls, path: str | Path) -> Self:
        """Load a ``.json``/``.yaml``/``.yml`` file (raises ``ConfigLoadError``)."""
        data, source = _read_file(path)
        return _validate_document(cls, data, source)

    def to_json(self) -> str:
        """Serialize to a JSON string with the spec's output rules."""
        return self.model_dump_json()
