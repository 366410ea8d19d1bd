"""Message-passing traces: the exanet trace format and importers, all giving a `Program`.

- `.parquet`, `.csv`: the exanet trace format (`exanet_format`);
- `.goal`: GOAL schedules of LogGOPSim / ATLAHS (`goal`);
- `<prefix>` with files `<prefix>.0.et`, `<prefix>.1.et`, ...: Chakra execution traces (`chakra`);
- `.otf2`: OTF2 archives of MPI programs, by their anchor file (`otf2`; needs `exanet[otf2]`).

docs/traces.md describes the format and each importer's mapping.
"""

from __future__ import annotations

from pathlib import Path

from exanet.errors import ConfigError
from exanet.program import MAX_MESSAGE_BYTES, Program
from exanet.traces.chakra import read_chakra, write_chakra
from exanet.traces.exanet_format import read_trace, write_trace
from exanet.traces.goal import SCHEDGEN_COLLECTIVE_TAG_BASE, read_goal
from exanet.traces.otf2 import read_otf2, write_otf2

__all__ = [
    "load_trace",
    "read_chakra",
    "read_goal",
    "read_otf2",
    "read_trace",
    "write_chakra",
    "write_otf2",
    "write_trace",
]

FORMATS = (
    "a .parquet or .csv exanet trace, a .goal GOAL schedule, an OTF2 archive (its .otf2 anchor "
    "file), or a Chakra trace (the prefix of, or one of, the files <prefix>.0.et, <prefix>.1.et, "
    "...)"
)


#: LogGOPSim's default S: messages up to 65,535 bytes go eagerly, larger ones by rendezvous.
LOGGOPSIM_EAGER_LIMIT_BYTES = 65535


def load_trace(
    path: str | Path,
    ranks: int | None = None,
    *,
    key: str = "trace",
    goal_collective_tag_base: int = SCHEDGEN_COLLECTIVE_TAG_BASE,
    comm_groups: str | Path | None = None,
    comm_groups_key: str = "comm_groups",
) -> Program:
    """Read the trace at `path`, choosing the reader by its name; `ranks`, if given, must match
    the trace's rank count. Errors name `key` (e.g. `traffic.jobs[0].trace`) and give the file
    in their value. The program is not validated: call `validate(key)` on it.

    The program's `eager_limit` is the protocol the trace's producer assumed: every message
    eager for Chakra (ASTRA-sim completes a send without waiting for its receive), LogGOPSim's
    default S for GOAL, None (the job's) for MPI traces and exanet's own format.

    `comm_groups` (Chakra only, errors under `comm_groups_key`): ASTRA-sim's
    communicator-group file, which places collectives on the groups their pg_name names."""
    path = Path(path)
    eager_limit = None
    chakra = path.suffix == ".et" or (
        path.suffix not in (".parquet", ".csv", ".goal", ".otf2")
        and _is_file(Path(f"{path}.0.et"), key)
    )
    if comm_groups is not None and not chakra:
        raise ConfigError(comm_groups_key, str(comm_groups), "only with a Chakra trace")
    if path.suffix in (".parquet", ".csv"):
        program = read_trace(path, key=key)
    elif path.suffix == ".goal":
        program = read_goal(path, key=key, collective_tag_base=goal_collective_tag_base)
        eager_limit = LOGGOPSIM_EAGER_LIMIT_BYTES
    elif path.suffix == ".otf2":
        program = read_otf2(path, ranks, key=key)
    elif chakra:
        program = read_chakra(
            path, ranks, key=key, comm_groups=comm_groups, comm_groups_key=comm_groups_key
        )
        eager_limit = MAX_MESSAGE_BYTES
    else:
        raise ConfigError(key, str(path), FORMATS)
    if ranks is not None and program.ranks != ranks:
        raise ConfigError(key, f"{path} ({program.ranks} ranks)", f"a trace of {ranks} ranks")
    program.eager_limit = eager_limit
    return program


def _is_file(path: Path, key: str) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError) as exc:  # a name too long, a NUL character
        raise ConfigError(key, repr(str(path)), f"a readable trace file ({exc})") from None
