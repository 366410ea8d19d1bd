"""Expanding a base config and a sweep specification into the points of the sweep."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from exanet.config import Config, set_dotted
from exanet.errors import ConfigError
from exanet.sweep.keys import config_key, invalid_config_key
from exanet.sweep.spec import SweepSpec


@dataclass(frozen=True)
class Point:
    """One run of a sweep: the axis values that made it, and its validated config (None, with
    `error` set, when the values make an invalid config)."""

    key: str
    axes: dict[str, Any]
    repetition: int
    config: Config | None
    error: str | None = None


def expand(base: Mapping[str, Any], spec: SweepSpec) -> list[Point]:
    """Every point: the product of the grid axes, the zip axes, the explicit points and the
    repetitions, in that order (the last varies fastest)."""
    choices = [[{axis.key: value} for value in axis.values] for axis in spec.grid]
    choices += [
        [dict(zip(axis.keys, row, strict=True)) for row in axis.values] for axis in spec.zip
    ]
    choices.append([_flatten(point) for point in spec.points] or [{}])
    points = []
    for combination in itertools.product(*choices):
        axes = {key: value for part in combination for key, value in part.items()}
        for repetition in range(spec.repetitions):
            points.append(_point(base, axes, repetition, spec.repetitions))
    return points


def _point(
    base: Mapping[str, Any], axes: dict[str, Any], repetition: int, repetitions: int
) -> Point:
    raw = copy.deepcopy(dict(base))
    try:
        for key, value in axes.items():
            set_dotted(raw, key.split("."), copy.deepcopy(value))
        seed = raw.get("seed", Config.model_fields["seed"].default)
        if repetitions > 1 and isinstance(seed, int):
            raw["seed"] = seed + repetition
        config = Config.from_dict(raw)
    except ConfigError as exc:
        return Point(invalid_config_key(raw), axes, repetition, None, str(exc))
    return Point(config_key(config), axes, repetition, config)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"links": {"latency": "10ns"}} -> {"links.latency": "10ns"}: a point's tables are read
    as dotted keys, so written either way they set single keys rather than replace tables."""
    flat: dict[str, Any] = {}
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{dotted}."))
        else:
            flat[dotted] = value
    return flat
