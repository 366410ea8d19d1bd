"""Shared by the examples: the environment variable EXANET_EXAMPLES_QUICK=1 runs every example
at reduced sizes (fewer points, fewer packets, shorter windows), so that the tests
(tests/python/test_readme.py) run all of them in seconds. The tables keep their shape, but
their figures are then too short-run to read anything from. Unset or 0: the documented sizes."""

from __future__ import annotations

import os
from typing import TypeVar

T = TypeVar("T")

VARIABLE = "EXANET_EXAMPLES_QUICK"


def _quick() -> bool:
    value = os.environ.get(VARIABLE, "0")
    if value not in ("0", "1"):
        raise SystemExit(f"error: {VARIABLE}={value!r} is invalid: expected 0 or 1")
    return value == "1"


QUICK = _quick()


def sized(full: T, quick: T) -> T:
    """`full`, or `quick` when EXANET_EXAMPLES_QUICK=1."""
    return quick if QUICK else full
