"""Exceptions raised by exanet."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from exanet import _core

_MAX_STUCK_CHANNELS_SHOWN = 20


class ExanetError(Exception):
    """Base class of every error exanet raises on purpose."""


class ConfigError(ExanetError, ValueError):
    """An invalid configuration value: names the dotted key, the value and what would be valid.

    `key`, `value` and `expected` describe the first problem; `errors` lists every problem found
    as (key, value, expected) tuples, the first included, and the message has one line each.
    """

    def __init__(
        self, key: str, value: str, expected: str, more: Sequence[tuple[str, str, str]] = ()
    ) -> None:
        self.key = key
        self.value = value
        self.expected = expected
        self.errors = [(key, value, expected), *(tuple(error) for error in more)]
        lines = [f"config key '{k}' = {v} is invalid: {e}" for k, v, e in self.errors]
        if len(lines) > 1:
            lines = [f"{len(lines)} problems in the config:", *(f"  {line}" for line in lines)]
        super().__init__("\n".join(lines))

    @classmethod
    def of(cls, errors: Sequence[tuple[str, str, str]]) -> ConfigError:
        """One error for every (key, value, expected) of `errors` (at least one)."""
        (key, value, expected), *more = errors
        return cls(key, value, expected, more)

    def __reduce__(self):
        return type(self), (self.key, self.value, self.expected, self.errors[1:])


class DeadlockError(ExanetError):
    """A simulation stopped making progress with packets in flight.

    `report` is the core's deadlock report (time, packets in the network, stuck channels and a
    wait-for cycle when one was found); `summary` holds the statistics up to the deadlock when the
    core provided them, else None.
    """

    def __init__(
        self, message: str, report: dict[str, Any], summary: dict[str, Any] | None = None
    ) -> None:
        self.report = report
        self.summary = summary
        super().__init__(message)

    def __reduce__(self):
        return type(self), (str(self), self.report, self.summary)

    def format_report(self) -> str:
        """A readable multi-line description of the deadlock: the cycle, then the stuck channels."""
        report = self.report
        lines = [
            f"deadlock at {report['time_ns']:,.3f} ns: no progress with "
            f"{report['packets_in_network']:,} packets in the network"
        ]
        cycle = report["cycle"]
        if cycle:
            lines.append(f"  wait-for cycle ({len(cycle)} channels, each waits on the next):")
            lines.extend(f"    {_format_channel(channel)}" for channel in cycle)
            lines.append(f"    -> back to {cycle[0]['name']}")
        else:
            lines.append("  no wait-for cycle found")
        stuck = report["stuck_channels"]
        lines.append(f"  stuck channels ({len(stuck)}):")
        lines.extend(f"    {_format_channel(c)}" for c in stuck[:_MAX_STUCK_CHANNELS_SHOWN])
        if len(stuck) > _MAX_STUCK_CHANNELS_SHOWN:
            lines.append(f"    ... and {len(stuck) - _MAX_STUCK_CHANNELS_SHOWN} more")
        return "\n".join(lines)


class ProgramStalledError(ExanetError):
    """A message-passing workload that can never finish (a receive without its send, a
    collective some ranks never call). `report` lists the waiting ranks: {"job", "rank",
    "operation", "waiting_for"}."""

    def __init__(self, message: str, report: dict[str, Any]) -> None:
        self.report = report
        super().__init__(message)

    def __reduce__(self):
        return type(self), (str(self), self.report)


class DistributedError(ExanetError):
    """The processes of a run across processes could not go on together: an MPI collective
    failed, a process sent state the others cannot read (another exanet build), or the
    processes were given different configs. Some processes may be waiting for the others, so
    the command line ends the whole MPI job on it."""


class OutputError(ExanetError):
    """Results could not be written to `path`: `reason` is the operating system's (ENOSPC
    reads "disk full"). The writer removed what it had written, so nothing partial is left."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot write {path}: {reason}")

    def __reduce__(self):
        return type(self), (self.path, self.reason)


class InternalError(ExanetError):
    """A bug in exanet, not in the input: the core stopped where it never should (a Rust
    panic). The message says what failed and where; `config` is the core JSON of the config
    that triggered it (None when not known), which the command line writes to a bug report."""

    def __init__(self, message: str, config: dict[str, Any] | None = None) -> None:
        self.config = config
        super().__init__(message)

    def __reduce__(self):
        return type(self), (str(self), self.config)


@contextmanager
def core_errors(config: dict[str, Any] | None = None) -> Iterator[None]:
    """Re-raise the core's exceptions as exanet's; `config` (core JSON) goes with an
    InternalError for its bug report."""
    try:
        yield
    except _core.ConfigError as exc:
        key, value, expected = exc.args
        raise ConfigError(key, value, expected) from None
    except _core.DeadlockError as exc:
        message, report = exc.args
        raise DeadlockError(message, report) from None
    except _core.StalledError as exc:
        message, report = exc.args
        raise ProgramStalledError(message, report) from None
    except _core.TransportError as exc:
        raise DistributedError(str(exc)) from None
    except _core.InternalError as exc:
        raise InternalError(str(exc), config) from None


def _format_channel(channel: dict[str, Any]) -> str:
    return (
        f"{channel['name']}: {channel['queued_packets']} packets queued, "
        f"{channel['credits_bytes']} B of credit"
    )
