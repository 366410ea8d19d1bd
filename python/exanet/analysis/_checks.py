"""Input checks shared by the analysis modules: each raises ConfigError naming what was wrong."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from exanet.errors import ConfigError


def require_columns(df: pd.DataFrame, columns: Iterable[str], key: str) -> None:
    """Raise ConfigError when `df` is not a DataFrame or lacks any of `columns`."""
    columns = list(columns)
    if not isinstance(df, pd.DataFrame):
        raise ConfigError(key, type(df).__name__, f"a DataFrame with columns {columns}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ConfigError(
            key, f"columns {list(df.columns)}", f"a DataFrame that also has columns {missing}"
        )


def require_nonempty(df: pd.DataFrame, key: str) -> None:
    if df.empty:
        raise ConfigError(key, "an empty DataFrame", "at least one row")


def square_matrix(matrix: object, key: str) -> np.ndarray:
    """`matrix` as a float N x N array (N >= 2) of finite values >= 0."""
    array = np.asarray(matrix, dtype=float)
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] < 2:
        raise ConfigError(key, f"shape {array.shape}", "a square N x N array with N >= 2")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ConfigError(key, "negative or non-finite entries", "finite traffic values >= 0")
    return array


def positive(value: float, key: str) -> float:
    """`value` as a float, which must be finite and > 0."""
    number = float(value)
    if not np.isfinite(number) or number <= 0:
        raise ConfigError(key, repr(value), "a finite number > 0")
    return number


def node_count(n: int, key: str) -> int:
    """`n` as a node count >= 2 (the n/(n-1) corrections divide by n - 1)."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 2:
        raise ConfigError(key, repr(n), "an integer node count >= 2")
    return int(n)
