"""Turn a pydantic ValidationError on the config schema into one ConfigError listing every problem.

Each problem names the user-facing dotted key (tags of unions and inline tables removed from
pydantic's location), the value as the user wrote it, and what would be valid, with the nearest
valid key or kind when the user misspelled one.
"""

from __future__ import annotations

import difflib
import json
import types
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from exanet.errors import ConfigError
from exanet.units import QuantityError

_MISSING_TEXT = "(missing)"
_MISSING = object()

#: Tables and arrays nested deeper than this are refused before validation: no config needs
#: more, and deeper ones would exhaust Python's recursion limit on the way.
MAX_NESTING = 32
NESTED_TOO_DEEP = f"(tables or arrays nested more than {MAX_NESTING} deep)"
#: Values longer than this are cut in messages (an inline matrix of a million entries).
_LONGEST_VALUE_TEXT = 200


class FieldError(ValueError):
    """Raised by a model validator to blame one field of that model."""

    def __init__(self, field: str, expected: str) -> None:
        self.field = field
        self.expected = expected
        super().__init__(f"{field}: {expected}")


def inline_tables_field(model: type[BaseModel]) -> str | None:
    """The field of `model` whose entries are written as tables directly inside its section."""
    return getattr(model, "_inline_tables_field", None)


def format_value(value: Any, depth: int = 0) -> str:
    """Write a config value the way it would appear in a TOML file."""
    if depth > MAX_NESTING:
        return "..."
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_value(item, depth + 1) for item in value) + "]"
    if isinstance(value, Mapping):
        items = (f"{k} = {format_value(v, depth + 1)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    return str(value)


def format_key(path: Iterable[str | int]) -> str:
    """Dotted key of a path: ["topology", "dims", 0] -> "topology.dims[0]"."""
    key = ""
    for part in path:
        key += f"[{part}]" if isinstance(part, int) else f"{'.' if key else ''}{part}"
    return key


def nearest(given: Any, valid: Iterable[str]) -> str | None:
    """The valid name nearest a misspelled one, if any is near."""
    close = difflib.get_close_matches(given, list(valid), n=1) if isinstance(given, str) else []
    return close[0] if close else None


def did_you_mean(given: Any, valid: Iterable[str], quote: str = "'") -> str:
    """ "did you mean 'X'? " for the valid name nearest `given`, or "" when none is near."""
    name = nearest(given, valid)
    return f"did you mean {quote}{name}{quote}? " if name else ""


def check_nesting(raw: Any) -> None:
    """Refuse tables and arrays nested more than MAX_NESTING deep (or nested in themselves),
    naming the key where they go too deep. Walks level by level without recursion, fast over
    long arrays of scalars (an inline edge list of a million links)."""
    level = [raw] if _is_container(raw) else []
    for _ in range(MAX_NESTING + 1):  # level k: the containers k levels below raw
        level = _containers_in(_values(node) for node in level)
        if not level:
            return
    raise ConfigError(
        format_key(_path_below(raw, MAX_NESTING + 1)),
        NESTED_TOO_DEEP,
        f"at most {MAX_NESTING} levels of nested tables and arrays",
    )


_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


_CONTAINER_TYPES = (list, tuple, Mapping)  # the common ones first: Mapping is a slow check


def _is_container(value: Any) -> bool:
    return type(value) not in _SCALAR_TYPES and isinstance(value, _CONTAINER_TYPES)


def _values(node: Any) -> Iterable[Any]:
    return node.values() if isinstance(node, Mapping) else node


def _containers_in(groups: Iterable[Iterable[Any]]) -> list[Any]:
    """The containers among the values of each group, each object once (a table nested in
    itself stays one object per level)."""
    found = {
        id(value): value
        for group in groups
        for value in group
        if type(value) not in _SCALAR_TYPES and isinstance(value, _CONTAINER_TYPES)
    }
    return list(found.values())


def _path_below(raw: Any, depth: int) -> list[str | int]:
    """The path of a container `depth` levels below `raw` (one is known to exist)."""
    stack: list[tuple[Any, list[str | int]]] = [(raw, [])]
    while stack:
        node, path = stack.pop()
        items = node.items() if isinstance(node, Mapping) else enumerate(node)
        for part, child in items:
            if _is_container(child):
                child_path = [*path, part if isinstance(part, int) else str(part)]
                if len(child_path) == depth:
                    return child_path
                stack.append((child, child_path))
    raise AssertionError("no container that deep")


def to_config_error(exc: ValidationError, root: type[BaseModel], raw: Any) -> ConfigError:
    """The ConfigError listing every error of `exc`, raised validating `raw` as `root`.

    A ConfigError raised during validation (by a model's own `__init__` or validator) brings
    its problems unchanged.
    """
    problems: list[_Problem] = []
    for error in exc.errors():
        problems.extend(_problems(error, root, raw))
    problems = _merge_alternatives(problems)
    _put_misspellings_first(problems)
    errors = []
    for problem in problems:
        error = (problem.key, _shorten(problem.value), problem.expected)
        if error not in errors:
            errors.append(error)
    return ConfigError.of(errors)


@dataclass
class _Location:
    path: list[str | int]
    model: type[BaseModel]
    field: FieldInfo | None
    annotation: Any
    #: The untagged unions passed (their dotted key) and the location items after each tag.
    unions: dict[str, int] = field(default_factory=dict)


@dataclass
class _Problem:
    key: str
    value: str
    text: str  # what would be valid, without the field's description
    description: str | None = None
    unions: dict[str, int] = field(default_factory=dict)
    suggestion: str | None = None  # the valid key nearest an unknown one

    @property
    def expected(self) -> str:
        return f"{self.text} ({self.description})" if self.description else self.text


def _problems(error: Any, root: type[BaseModel], raw: Any) -> list[_Problem]:
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, ConfigError):
        return [_Problem(key, value, expected) for key, value, expected in cause.errors]
    location = _locate(root, error["loc"])
    path = location.path
    value = _lookup(raw, path, default=error.get("input", _MISSING))
    description = location.field.description if location.field else None
    suggestion = None
    kind = error["type"]
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        path = [*path, "kind"]
        value = _lookup(raw, path, default=_MISSING)
        tags = _tagged_members(location.annotation)
        kinds = ", ".join(f'"{tag}"' for tag in tags)
        text = f"{did_you_mean(value, tags, quote=chr(34))}the kind must be one of {kinds}"
        description = None
    elif kind == "extra_forbidden":
        suggestion = nearest(path[-1], _field_names(location.model))
        hint = f"did you mean '{suggestion}'? " if suggestion else ""
        text = f"unknown key — {hint}valid keys here are {_valid_keys(location.model)}"
        description = None
    elif kind == "missing":
        value = _MISSING
        text = "a value is required"
    elif kind == "literal_error":
        allowed = _literal_values(location.annotation)
        text = did_you_mean(value, allowed, quote=chr(34)) + _lower_first(error["msg"])
    elif kind == "value_error":
        if isinstance(cause, FieldError):
            path = [*path, cause.field]
            value = _lookup(raw, path, default=_MISSING)
        text = cause.expected if isinstance(cause, (FieldError, QuantityError)) else str(cause)
        description = None
    else:
        text = _lower_first(error["msg"])
    value_text = _MISSING_TEXT if value is _MISSING else format_value(value)
    key = format_key(path) or "config"
    return [_Problem(key, value_text, text, description, location.unions, suggestion)]


def _merge_alternatives(problems: list[_Problem]) -> list[_Problem]:
    """One problem per key for the members of an untagged union (a string or a list): the
    members the value got furthest into, and at one key, what each member would take."""
    went_deeper = {key for problem in problems for key, depth in problem.unions.items() if depth}
    kept = [
        problem
        for problem in problems
        if not any(problem.unions.get(key) == 0 for key in went_deeper)
    ]
    merged: list[_Problem] = []
    for problem in kept:
        alternative = problem.unions.get(problem.key) == 0
        same = next((m for m in merged if m.key == problem.key), None) if alternative else None
        if same is None:
            merged.append(problem)
        elif problem.text not in same.text:
            same.text += " or " + problem.text.removeprefix("input should be ")
    return merged


def _put_misspellings_first(problems: list[_Problem]) -> None:
    """An unknown key that looks like a missing one goes just before it: it explains it."""
    for problem in [p for p in problems if p.suggestion]:
        parent = problem.key.rpartition(".")[0]
        missing_key = f"{parent}.{problem.suggestion}" if parent else problem.suggestion
        missing = [i for i, p in enumerate(problems) if p.key == missing_key]
        if missing and missing[0] < problems.index(problem):
            problems.remove(problem)
            problems.insert(missing[0], problem)


def _locate(root: type[BaseModel], loc: tuple[str | int, ...]) -> _Location:
    """Follow pydantic's error location through the schema."""
    location = _Location(path=[], model=root, field=None, annotation=root)
    for item in loc:
        for key in location.unions:
            location.unions[key] += 1
        annotation = _unwrap(location.annotation)
        members = _tagged_members(annotation)
        if item in members:
            location.annotation = members[item]
        elif _is_union(annotation) and isinstance(item, str):
            # pydantic names the member of an untagged union it tried ("str", "list[...]")
            location.unions[format_key(location.path)] = 0
            location.annotation = _union_member(annotation, item)
        elif item == "[key]":
            continue  # pydantic's marker of a dict key: the key is already in the path
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


def _is_union(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType)


def _union_member(annotation: Any, tag: str) -> Any:
    """The member of an untagged union pydantic's tag names, when it can be told."""
    for member in get_args(annotation):
        plain = _unwrap(member)
        name = getattr(get_origin(plain) or plain, "__name__", "")
        if name and tag.startswith(name):
            return member
    return None


def _tagged_members(annotation: Any) -> dict[str, type[BaseModel]]:
    """Members of a union of models tagged by `kind`, by tag; empty for anything else."""
    annotation = _unwrap(annotation)
    if not _is_union(annotation):
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


def _literal_values(annotation: Any) -> list[str]:
    annotation = _unwrap(annotation)
    if get_origin(annotation) is not Literal:
        return []
    return [value for value in get_args(annotation) if isinstance(value, str)]


def _lookup(raw: Any, path: list[str | int], default: Any) -> Any:
    node = raw
    for part in path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return default
    return node


def _field_names(model: type[BaseModel]) -> list[str]:
    inline = inline_tables_field(model)
    return [name for name in model.model_fields if name != inline]


def _valid_keys(model: type[BaseModel]) -> str:
    keys = ", ".join(_field_names(model))
    inline = inline_tables_field(model)
    if inline is None:
        return keys
    return f"{keys}; or {model.model_fields[inline].description}"


def _shorten(text: str) -> str:
    if len(text) <= _LONGEST_VALUE_TEXT:
        return text
    return f"{text[: _LONGEST_VALUE_TEXT - 25]}... ({len(text):,} characters)"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]
