"""Turn a pydantic ValidationError on the config schema into one ConfigError.

The error names the user-facing dotted key (tags of tagged unions and inline tables removed from
pydantic's location), the value as the user wrote it, and what would be valid.
"""

from __future__ import annotations

import json
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from exanet.errors import ConfigError
from exanet.units import QuantityError

_MISSING_TEXT = "(missing)"
_MISSING = object()


class FieldError(ValueError):
    """Raised by a model validator to blame one field of that model."""

    def __init__(self, field: str, expected: str) -> None:
        self.field = field
        self.expected = expected
        super().__init__(f"{field}: {expected}")


def inline_tables_field(model: type[BaseModel]) -> str | None:
    """The field of `model` whose entries are written as tables directly inside its section."""
    return getattr(model, "_inline_tables_field", None)


def format_value(value: Any) -> str:
    """Write a config value the way it would appear in a TOML file."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(item) for item in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {format_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def format_key(path: list[str | int]) -> str:
    """Dotted key of a path: ["topology", "dims", 0] -> "topology.dims[0]"."""
    key = ""
    for part in path:
        key += f"[{part}]" if isinstance(part, int) else f"{'.' if key else ''}{part}"
    return key


def to_config_error(exc: ValidationError, root: type[BaseModel], raw: Any) -> ConfigError:
    """The ConfigError for the first error of `exc`, raised validating `raw` as `root`.

    A ConfigError raised during validation (by a model's own `__init__`) is returned unchanged.
    """
    error = exc.errors()[0]
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, ConfigError):
        return cause
    location = _locate(root, error["loc"])
    path = location.path
    value = _lookup(raw, path, default=error.get("input", _MISSING))
    kind = error["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        path = [*path, "kind"]
        value = _lookup(raw, path, default=_MISSING)
        kinds = ", ".join(f'"{tag}"' for tag in _tagged_members(location.annotation))
        expected = f"the kind must be one of {kinds}"
    elif kind == "extra_forbidden":
        expected = f"unknown key; valid keys here are {_valid_keys(location.model)}"
    elif kind == "missing":
        value = _MISSING
        expected = _with_description("a value is required", location.field)
    elif kind == "value_error":
        if isinstance(cause, FieldError):
            path = [*path, cause.field]
            value = _lookup(raw, path, default=_MISSING)
        expected = cause.expected if isinstance(cause, (FieldError, QuantityError)) else str(cause)
    else:
        expected = _with_description(_lower_first(error["msg"]), location.field)
    value_text = _MISSING_TEXT if value is _MISSING else format_value(value)
    return ConfigError(format_key(path), value_text, expected)


@dataclass
class _Location:
    path: list[str | int]
    model: type[BaseModel]
    field: FieldInfo | None
    annotation: Any


def _locate(root: type[BaseModel], loc: tuple[str | int, ...]) -> _Location:
    """Follow pydantic's error location through the schema."""
    location = _Location(path=[], model=root, field=None, annotation=root)
    for item in loc:
        annotation = _unwrap(location.annotation)
        members = _tagged_members(annotation)
        if item in members:
            location.annotation = members[item]
        elif isinstance(annotation, type) and issubclass(annotation, BaseModel):
            location.model = annotation
            location.field = annotation.model_fields.get(str(item))
            if item != inline_tables_field(annotation):
                location.path.append(item)
            location.annotation = location.field.annotation if location.field else None
        else:
            location.path.append(item)
            item_types = get_args(annotation)
            location.annotation = item_types[-1] if item_types else None
    return location


def _unwrap(annotation: Any) -> Any:
    """Strip Annotated and Optional."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
            continue
        if origin in (Union, types.UnionType):
            members = [arg for arg in get_args(annotation) if arg is not type(None)]
            if len(members) == 1:
                annotation = members[0]
                continue
        return annotation


def _tagged_members(annotation: Any) -> dict[str, type[BaseModel]]:
    """Members of a union of models tagged by `kind`, by tag; empty for anything else."""
    annotation = _unwrap(annotation)
    if get_origin(annotation) not in (Union, types.UnionType):
        return {}
    members = {}
    for member in get_args(annotation):
        is_model = isinstance(member, type) and issubclass(member, BaseModel)
        kind_field = member.model_fields.get("kind") if is_model else None
        if kind_field is None:
            return {}
        (tag,) = get_args(kind_field.annotation)
        members[tag] = member
    return members


def _lookup(raw: Any, path: list[str | int], default: Any) -> Any:
    node = raw
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return default
    return node


def _valid_keys(model: type[BaseModel]) -> str:
    inline = inline_tables_field(model)
    keys = ", ".join(name for name in model.model_fields if name != inline)
    if inline is None:
        return keys
    return f"{keys}; or {model.model_fields[inline].description}"


def _with_description(text: str, field: FieldInfo | None) -> str:
    if field is None or not field.description:
        return text
    return f"{text} ({field.description})"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]
