"""The stable key of a sweep point: a hash of its full, normalized config."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from exanet.config import Config

KEY_HEX_DIGITS = 16
"""64 bits: collisions are negligible for any sweep that fits on a disk."""


def _digest(document: Any) -> str:
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:KEY_HEX_DIGITS]


def config_key(config: Config) -> str:
    """The key of a valid config: a hash of its core form, which has every default filled in
    and every quantity in core units, so the order of keys, a default written explicitly or
    "1us" versus "1000ns" leave the key unchanged."""
    return _digest(config.to_core())


def invalid_config_key(raw: Any) -> str:
    """The key of a config that fails validation: there is no core form, so hash what was
    written (as written; such points fail fast, so a spurious rerun costs nothing)."""
    return "x" + _digest({"invalid": raw})[1:]
