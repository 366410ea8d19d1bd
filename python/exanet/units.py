"""SST-style quantity strings ("100ns", "25GB/s", "4KiB") to and from core units.

Core units (docs/architecture.md §2): time in integer picoseconds, bandwidth in integer bytes
per second, sizes in integer bytes, each held by the core in 64 bits. Parsing is exact for
decimal inputs (no binary floating point).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

#: The largest count of core units (ps, B/s, B) the core holds.
U64_MAX = 2**64 - 1
#: Decimal exponents beyond these are out of range or round away; checked before the exact
#: value is built, which for "1e999999999ns" would take forever.
_LARGEST_EXPONENT = 30
_SMALLEST_EXPONENT = -30

_QUANTITY_RE = re.compile(
    r"^\s*(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>[^\s\d.].*?)\s*$"
)


class QuantityError(ValueError):
    """A quantity string that cannot be parsed; `expected` says what would be valid."""

    def __init__(self, kind: str, value: object, expected: str) -> None:
        self.kind = kind
        self.value = value
        self.expected = expected
        super().__init__(f"invalid {kind} {value!r}: expected {expected}")

    def __reduce__(self):
        return type(self), (self.kind, self.value, self.expected)


@dataclass(frozen=True)
class _QuantityKind:
    name: str
    factors: dict[str, Fraction]
    expected: str
    largest: str  # U64_MAX core units, written with a unit

    @property
    def too_large(self) -> str:
        return f"a {self.name} of at most {self.largest}: the core holds it in 64 bits"


def _scaled(prefixes: dict[str, int], suffix: str, divisor: int = 1) -> dict[str, Fraction]:
    return {prefix + suffix: Fraction(factor, divisor) for prefix, factor in prefixes.items()}


_DECIMAL_PREFIXES = {"": 1, "K": 10**3, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_BINARY_PREFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}

_TIME = _QuantityKind(
    name="time",
    factors={
        "ps": Fraction(1),
        "ns": Fraction(10**3),
        "us": Fraction(10**6),
        "\u00b5s": Fraction(10**6),  # micro sign
        "\u03bcs": Fraction(10**6),  # Greek small letter mu
        "ms": Fraction(10**9),
        "s": Fraction(10**12),
    },
    expected='a non-negative number with a time unit (ps, ns, us or µs, ms, s), e.g. "100ns" '
    'or "1.5us"',
    largest="18446744.073709551615s (2^64 - 1 ps, about 213 days)",
)

_BANDWIDTH = _QuantityKind(
    name="bandwidth",
    factors={
        **_scaled(_DECIMAL_PREFIXES, "B/s"),
        **_scaled(_BINARY_PREFIXES, "B/s"),
        **_scaled(_DECIMAL_PREFIXES, "b/s", divisor=8),
    },
    expected="a non-negative number with a bandwidth unit in bytes (B/s, KB/s, MB/s, GB/s, TB/s; "
    "KiB/s, MiB/s, GiB/s, TiB/s; 1 GB = 1e9 B) or bits (b/s, Kb/s, Mb/s, Gb/s, Tb/s) per second, "
    'e.g. "25GB/s" or "200Gb/s"',
    largest="2^64 - 1 B/s (about 18.4 EB/s)",
)

_PACKET_RATE = _QuantityKind(
    name="packet rate",
    factors={prefix + "pps": Fraction(factor) for prefix, factor in _DECIMAL_PREFIXES.items()},
    expected="a non-negative number with a packet-rate unit (pps, Kpps, Mpps, Gpps, Tpps: "
    'packets per second), e.g. "150Mpps"',
    largest="2^64 - 1 pps",
)

_FREQUENCY = _QuantityKind(
    name="frequency",
    factors={prefix + "Hz": Fraction(factor) for prefix, factor in _DECIMAL_PREFIXES.items()},
    expected='a non-negative number with a frequency unit (Hz, KHz, MHz, GHz, THz), e.g. "2GHz"',
    largest="2^64 - 1 Hz",
)

_SIZE = _QuantityKind(
    name="size",
    factors={**_scaled(_DECIMAL_PREFIXES, "B"), **_scaled(_BINARY_PREFIXES, "B")},
    expected="a whole, non-negative number of bytes: an integer or a number with a size unit "
    '(B, KB, MB, GB, TB; KiB, MiB, GiB, TiB; 1 KB = 1000 B), e.g. 256, "256B" or "4KiB"',
    largest="2^64 - 1 bytes (16 EiB)",
)


def _parse_exact(value: object, kind: _QuantityKind) -> Fraction:
    if not isinstance(value, str):
        raise QuantityError(kind.name, value, kind.expected)
    match = _QUANTITY_RE.match(value)
    factor = kind.factors.get(match["unit"]) if match else None
    if factor is None:
        raise QuantityError(kind.name, value, kind.expected)
    number = Decimal(match["number"])
    if number and number.adjusted() > _LARGEST_EXPONENT:
        raise QuantityError(kind.name, value, kind.too_large)
    if number and number.adjusted() < _SMALLEST_EXPONENT:
        # Far below one core unit whatever the unit: rounds to 0 and is not a whole byte,
        # as the exact value would.
        number = Decimal(1).scaleb(_SMALLEST_EXPONENT)
    return Fraction(number) * factor


def quantity_json_schema(kind: str) -> dict[str, Any]:
    """The JSON Schema of a quantity of `kind` ("time", "bandwidth" or "size") as a config
    file writes it: a string of a number and one of the kind's units (a size may also be a
    plain integer of bytes), for editors that validate configs."""
    quantity = {
        "time": _TIME,
        "bandwidth": _BANDWIDTH,
        "packet_rate": _PACKET_RATE,
        "frequency": _FREQUENCY,
        "size": _SIZE,
    }[kind]
    units = "|".join(re.escape(unit) for unit in sorted(quantity.factors, key=len, reverse=True))
    string = {
        "type": "string",
        "pattern": rf"^\s*(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*({units})\s*$",
        "description": quantity.expected,
    }
    if kind == "size":
        return {"anyOf": [{"type": "integer", "minimum": 0}, string]}
    return string


def _round_half_up(value: Fraction) -> int:
    """Nearest integer of a non-negative value, halves rounded up."""
    return int(value + Fraction(1, 2))


def _in_core_range(count: int, value: object, kind: _QuantityKind) -> int:
    if count > U64_MAX:
        raise QuantityError(kind.name, value, kind.too_large)
    return count


def parse_time_ps(value: str) -> int:
    """Parse a time such as "100ns" or "1.5us" into picoseconds (rounded to the nearest ps)."""
    return _in_core_range(_round_half_up(_parse_exact(value, _TIME)), value, _TIME)


def parse_bandwidth_bytes_per_s(value: str) -> int:
    """Parse a bandwidth such as "25GB/s" or "200Gb/s" into bytes per second (nearest integer)."""
    bandwidth = _round_half_up(_parse_exact(value, _BANDWIDTH))
    return _in_core_range(bandwidth, value, _BANDWIDTH)


def parse_packet_rate_per_s(value: str) -> int:
    """Parse a packet rate such as "150Mpps" into packets per second (nearest integer)."""
    rate = _round_half_up(_parse_exact(value, _PACKET_RATE))
    return _in_core_range(rate, value, _PACKET_RATE)


def parse_frequency_hz(value: str) -> int:
    """Parse a clock frequency such as "2GHz" into hertz (nearest integer)."""
    return _in_core_range(_round_half_up(_parse_exact(value, _FREQUENCY)), value, _FREQUENCY)


def parse_size_bytes(value: str | int) -> int:
    """Parse a size such as "256B" or "4KiB" (or a plain integer count of bytes) into bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise QuantityError(_SIZE.name, value, _SIZE.expected)
        return _in_core_range(value, value, _SIZE)
    size = _parse_exact(value, _SIZE)
    if size.denominator != 1:
        raise QuantityError(_SIZE.name, value, _SIZE.expected)
    return _in_core_range(int(size), value, _SIZE)


def _format_decimal(count: int, unit_factors: list[tuple[str, int]]) -> str:
    """Write `count` base units exactly, using the largest unit it reaches."""
    for unit, factor in unit_factors:
        if count >= factor:
            return f"{(Decimal(count) / factor).normalize():f}{unit}"
    smallest_unit = unit_factors[-1][0]
    return f"{count}{smallest_unit}"


def format_time_ps(picoseconds: int) -> str:
    """Write picoseconds as an exact time string, e.g. 1_500_000 -> "1.5us"."""
    return _format_decimal(
        picoseconds, [("s", 10**12), ("ms", 10**9), ("us", 10**6), ("ns", 10**3), ("ps", 1)]
    )


def format_bandwidth_bytes_per_s(bytes_per_s: int) -> str:
    """Write bytes per second as an exact bandwidth string, e.g. 25e9 -> "25GB/s"."""
    return _format_decimal(
        bytes_per_s,
        [("TB/s", 10**12), ("GB/s", 10**9), ("MB/s", 10**6), ("KB/s", 10**3), ("B/s", 1)],
    )


def format_packet_rate_per_s(per_s: int) -> str:
    """Write packets per second as an exact packet-rate string, e.g. 15e7 -> "150Mpps"."""
    return _format_decimal(
        per_s, [("Tpps", 10**12), ("Gpps", 10**9), ("Mpps", 10**6), ("Kpps", 10**3), ("pps", 1)]
    )


def format_frequency_hz(hertz: int) -> str:
    """Write hertz as an exact frequency string, e.g. 2e9 -> "2GHz"."""
    return _format_decimal(
        hertz, [("THz", 10**12), ("GHz", 10**9), ("MHz", 10**6), ("KHz", 10**3), ("Hz", 1)]
    )


def format_size_bytes(size_bytes: int) -> str:
    """Write bytes as a size string, in the largest binary unit that divides it exactly."""
    for unit, factor in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size_bytes and size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return f"{size_bytes}B"
