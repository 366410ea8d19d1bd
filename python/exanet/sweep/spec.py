"""The sweep specification: the `[sweep]` section of a config file, or `Sweep(...)` arguments.

Every axis names config keys as dotted keys, the way `--set` overrides do (`traffic.load`).
A bad specification raises one ConfigError whose key starts with `sweep.`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, Field, StrictInt, StrictStr, ValidationError, model_validator

from exanet._types import _Section
from exanet._validation import FieldError, format_value, to_config_error
from exanet.config import OVERRIDE_KEY_RE
from exanet.errors import ConfigError

MAX_POINTS = 100_000
"""The most points a sweep may have: every point's config is validated and kept in memory
before the first one runs (about 0.4 ms and 6 KB each), so a larger sweep would spend minutes
and gigabytes before starting, or never start. Split such a design space into several sweeps."""


def _dotted(key: str) -> str:
    if not OVERRIDE_KEY_RE.fullmatch(key):
        raise ValueError("a dotted config key as in --set overrides, e.g. traffic.load")
    return key


DottedKey = Annotated[StrictStr, AfterValidator(_dotted)]


class GridAxis(_Section):
    """One axis of the Cartesian product: `key` takes each of `values` in turn."""

    key: DottedKey
    values: list[Any] = Field(min_length=1, description="the values the key takes, at least one")


class ZipAxis(_Section):
    """Keys that move in lock-step: row i of `values` sets `keys[j]` to `values[i][j]`."""

    keys: list[DottedKey] = Field(min_length=1, description="the keys set together")
    values: list[list[Any]] = Field(
        min_length=1, description="rows of values, one value per key in each row"
    )

    @model_validator(mode="after")
    def _rows_match_keys(self) -> ZipAxis:
        for row in self.values:
            if len(row) != len(self.keys):
                raise FieldError(
                    "values",
                    f"rows of {len(self.keys)} values, one per key of {self.keys}; "
                    f"a row has {len(row)}",
                )
        return self


class SweepSpec(_Section):
    """The axes of a sweep; its points are the product of the grid axes, the zip axes, the
    explicit points (when given) and the repetitions."""

    grid: list[GridAxis] = Field(
        default_factory=list,
        description='[[sweep.grid]] axes, or the mapping grid = {"traffic.load" = [0.1, 0.2]}',
    )
    zip: list[ZipAxis] = Field(default_factory=list, description="[[sweep.zip]] axes")
    points: list[dict[str, Any]] = Field(
        default_factory=list,
        description="[[sweep.points]] tables of dotted keys, each one explicit variant",
    )
    repetitions: Annotated[StrictInt, Field(ge=1)] = Field(
        1, description="runs of every point, with seeds seed, seed + 1, ..."
    )


def parse_spec(raw: Any) -> SweepSpec:
    """Validate the `[sweep]` table; a problem is a ConfigError naming `sweep.KEY`.

    `grid` is a list of {key, values} tables or the compact mapping {dotted key: values} (the
    form `Sweep(grid=...)` takes); errors in the compact form name `sweep.grid."KEY"`."""
    if not isinstance(raw, Mapping):
        raise ConfigError("sweep", repr(raw), "a table of sweep axes (grid, zip, points)")
    grid = raw.get("grid")
    if not isinstance(grid, Mapping):
        return _validated(raw)
    keys = list(grid)
    axes = [{"key": key, "values": _as_list(values)} for key, values in grid.items()]
    try:
        return _validated({**raw, "grid": axes})
    except ConfigError as error:
        raise ConfigError.of(
            [tuple(_compact_names(text, keys) for text in e) for e in error.errors]
        ) from None


def _validated(raw: Mapping[str, Any]) -> SweepSpec:
    try:
        spec = SweepSpec.model_validate(raw)
    except ValidationError as exc:
        error = to_config_error(exc, SweepSpec, raw)
        raise ConfigError.of([(f"sweep.{k}", v, e) for k, v, e in error.errors]) from None
    _check_keys_set_once(spec)
    _check_point_count(spec)
    return spec


def _as_list(values: Any) -> Any:
    """A grid axis's values as a list when they are a sequence (a tuple, a NumPy array);
    anything else stays as given, for validation to refuse."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        return values
    return list(values)


_GRID_AXIS = re.compile(r"sweep\.grid\[(\d+)\](?:\.key\b|\.values\b)?")


def _compact_names(text: str, keys: list[Any]) -> str:
    """`text` with `sweep.grid[i].values` (or `.key`) named as in the compact grid form."""
    return _GRID_AXIS.sub(lambda match: f'sweep.grid."{keys[int(match[1])]}"', text)


def _check_point_count(spec: SweepSpec) -> None:
    """Refuse a sweep of more than MAX_POINTS points from its axes' lengths, before expanding."""
    factors = [(f"sweep.grid[{i}]", len(axis.values)) for i, axis in enumerate(spec.grid)]
    factors += [(f"sweep.zip[{i}]", len(axis.values)) for i, axis in enumerate(spec.zip)]
    factors += [("sweep.points", len(spec.points) or 1), ("sweep.repetitions", spec.repetitions)]
    count = math.prod(n for _, n in factors)
    if count <= MAX_POINTS:
        return
    expected = f"at most {MAX_POINTS:,} points in a sweep (docs/sweeps.md); split it into several"
    if spec.repetitions > MAX_POINTS:
        raise ConfigError("sweep.repetitions", str(spec.repetitions), expected)
    product = " x ".join(f"{n:,} ({key})" for key, n in factors if n > 1)
    raise ConfigError("sweep", f"{count:,} points = {product}", expected)


def _check_keys_set_once(spec: SweepSpec) -> None:
    """Two axes setting one key would silently hide one of them."""
    owners: dict[str, str] = {}
    axes = [(f"sweep.grid[{i}].key", [axis.key]) for i, axis in enumerate(spec.grid)]
    axes += [(f"sweep.zip[{i}].keys", axis.keys) for i, axis in enumerate(spec.zip)]
    for field, keys in axes:
        for key in keys:
            if key in owners:
                raise ConfigError(
                    field, format_value(key), f"a key no other axis sets; {owners[key]} sets it"
                )
            owners[key] = field
    if spec.repetitions > 1 and "seed" in owners:
        raise ConfigError(
            "sweep.repetitions",
            str(spec.repetitions),
            f"1 while 'seed' is an axis ({owners['seed']}): repetitions set the seeds themselves",
        )
