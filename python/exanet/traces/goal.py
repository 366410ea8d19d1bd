"""Import GOAL schedules (LogGOPSim's text format, also written by ATLAHS and Schedgen).

The grammar, as LogGOPSim's txt2bin reads it, one item per line:

    num_ranks <N>
    rank <R> {
      [<label>:] send <size>b to <rank> [tag <t>] [cpu <c>] [nic <n>]
      [<label>:] recv <size>b from <rank|-1> [tag <t|-1>] [cpu <c>] [nic <n>]
      [<label>:] calc <time> [cpu <c>]
      <label> requires <label>
      <label> irequires <label>
    }

Comments run from `//` to the end of the line or between `/*` and `*/`. Labels are local to their
rank block; tags default to 0; -1 means any source or any tag. `calc` times are taken to be
nanoseconds (LogGOPSim's time unit). cpu and nic numbers are accepted and ignored.

Matching follows MPI, as the schedule's source program did: Schedgen writes the point-to-point
messages of MPI collectives with tags from 1,000,000 up (`SCHEDGEN_COLLECTIVE_TAG_BASE`), and an
MPI_ANY_TAG receive never takes a collective's message. So sends and receives with a tag from
the base up are put on communicator 1, a matching context of their own, and a receive for any
tag (-1) on communicator 0 matches only the others. `collective_tag_base = 2**31` (above every
tag) turns this off: a wildcard then matches every tag, as in LogGOPSim, where a schedule like
Schedgen's can hang when a collective's message arrives before the user message a wildcard
receive was meant for.

Each rank's dependency graph becomes a sequential program (see `exanet.traces._dag`): send and
recv become isend and irecv, an operation waits for the sends and receives it `requires` before it
runs, and a final waitall completes the rest. This serializes what GOAL lets run concurrently on
several CPUs or NICs of a rank, and a rank can block on one wait while another ready operation
could have run; it is exact for schedules whose waits come in an order the DAG allows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from exanet.errors import ConfigError
from exanet.program import (
    MAX_JOB_TIME_PS,
    MAX_MESSAGE_BYTES,
    MAX_RANKS,
    Op,
    Program,
    check_operation_count,
)
from exanet.traces._dag import DagNode, sequentialize

_LABEL = r"[A-Za-z][A-Za-z0-9_]*"
_OPERATION = re.compile(
    rf"(?:(?P<label>{_LABEL})\s*:\s*)?(?:"
    r"(?P<kind>send|recv)\s+(?P<bytes>\d+)\s*b\s+(?P<direction>to|from)\s+(?P<peer>-1|\d+)"
    r"(?:\s+tag\s+(?P<tag>-1|\d+))?(?:\s+cpu\s+\d+)?(?:\s+nic\s+\d+)?"
    r"|calc\s+(?P<calc_ns>\d+)(?:\s+cpu\s+\d+)?)"
)
_DEPENDENCY = re.compile(rf"(?P<child>{_LABEL})\s+(?P<kind>i?requires)\s+(?P<parent>{_LABEL})")
_NUM_RANKS = re.compile(r"num_ranks\s+(?P<ranks>\d+)")
_RANK = re.compile(r"rank\s+(?P<rank>\d+)\s*\{")
_MAX_TAG = 2**31 - 1  # tags are int32
#: Schedgen numbers the messages of the collectives it expands from this tag up.
SCHEDGEN_COLLECTIVE_TAG_BASE = 1_000_000

_EXPECTED_OUTSIDE = '"num_ranks <N>" or "rank <R> {"'
_EXPECTED_INSIDE = (
    'an operation ("[<label>:] send <size>b to <rank> [tag <t>] [cpu <c>] [nic <n>]", '
    '"[<label>:] recv <size>b from <rank|-1> [tag <t|-1>] [cpu <c>] [nic <n>]" or '
    '"[<label>:] calc <ns> [cpu <c>]"), a dependency ("<label> requires|irequires <label>") or "}"'
)


@dataclass(frozen=True)
class _Line:
    key: str
    path: Path
    number: int
    content: str

    def error(self, expected: str) -> ConfigError:
        return ConfigError(
            self.key, f"{self.path} line {self.number}: {json.dumps(self.content)}", expected
        )

    def parse(self, digits: str, most: int, expected: str) -> int:
        """The number written `digits` on this line, if at most `most`."""
        if len(digits) > len(str(most)) or int(digits) > most:
            raise self.error(expected)
        return int(digits)


@dataclass
class _RankBlock:
    rank: int
    nodes: list[DagNode] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # label -> index in nodes
    dependencies: list[tuple[_Line, re.Match]] = field(default_factory=list)


def read_goal(
    path: str | Path,
    *,
    key: str = "trace",
    collective_tag_base: int = SCHEDGEN_COLLECTIVE_TAG_BASE,
) -> Program:
    """The program of the GOAL schedule at `path` (not validated: call `validate` on it), its
    messages tagged `collective_tag_base` and up on communicator 1 (see the module doc).
    Errors name `key` (e.g. `traffic.jobs[0].trace`) and give the file and line in their value."""
    path = Path(path)
    try:
        if not path.is_file():
            raise FileNotFoundError(f"{path} is not a file")
        text = path.read_text()
    except (OSError, ValueError) as exc:  # ValueError: undecodable text, a NUL in the path
        raise ConfigError(key, str(path), f"a readable GOAL text file ({exc})") from None
    num_ranks: int | None = None
    block: _RankBlock | None = None
    programs: dict[int, list[Op]] = {}
    operations = 0
    for number, raw in enumerate(_without_block_comments(text, key, path).splitlines(), start=1):
        line = _Line(key, path, number, raw.split("//", 1)[0].strip())
        if not line.content:
            continue
        if block is None:
            if match := _NUM_RANKS.fullmatch(line.content):
                expected = f"a single num_ranks line with num_ranks in 1..{MAX_RANKS}"
                if num_ranks is not None:
                    raise line.error(expected)
                num_ranks = line.parse(match["ranks"], MAX_RANKS, expected)
                if num_ranks < 1:
                    raise line.error(expected)
            elif match := _RANK.fullmatch(line.content):
                if num_ranks is None:
                    raise line.error('"num_ranks <N>" before the first rank block')
                expected = f"a rank in 0..{num_ranks - 1} without a block yet"
                rank = line.parse(match["rank"], num_ranks - 1, expected)
                if rank in programs:
                    raise line.error(expected)
                block = _RankBlock(rank)
            else:
                raise line.error(_EXPECTED_OUTSIDE)
        elif line.content == "}":
            programs[block.rank] = _close(block, key, path)
            block = None
        elif match := _OPERATION.fullmatch(line.content):
            operations += 1
            check_operation_count(operations, key, f"{path} up to line {number}")
            _add_operation(block, match, line, num_ranks)
        elif match := _DEPENDENCY.fullmatch(line.content):
            block.dependencies.append((line, match))
        else:
            raise line.error(_EXPECTED_INSIDE)
    if block is not None:
        raise ConfigError(
            key, f"{path}: end of file", f'a "}}" closing the block of rank {block.rank}'
        )
    if num_ranks is None:
        raise ConfigError(key, f"{path}: no num_ranks line", '"num_ranks <N>" and rank blocks')
    program = Program.from_ops(programs, num_ranks, key=key)
    ops = program.ops
    collective = ops["op"].isin(("isend", "irecv")) & (ops["tag"] >= collective_tag_base)
    ops.loc[collective, "communicator"] = 1
    return program


def _without_block_comments(text: str, key: str, path: Path) -> str:
    """`text` with each /* ... */ comment replaced by its line breaks, in one pass (a regular
    expression would rescan the rest of the file at every unclosed "/*")."""
    parts = []
    position = 0
    while (start := text.find("/*", position)) >= 0:
        end = text.find("*/", start + 2)
        if end < 0:
            line = text.count("\n", 0, start) + 1
            raise ConfigError(key, f"{path} line {line}: /*", 'a "*/" closing the comment')
        parts += [text[position:start], "\n" * text.count("\n", start, end)]
        position = end + 2
    parts.append(text[position:])
    return "".join(parts)


def _add_operation(block: _RankBlock, match: re.Match, line: _Line, num_ranks: int) -> None:
    label = match["label"]
    if label in block.labels:
        raise line.error(f"a label not already used in the block of rank {block.rank}")
    if match["calc_ns"] is not None:
        most_ns = MAX_JOB_TIME_PS // 1000
        calc_ns = line.parse(match["calc_ns"], most_ns, f"a calc time of at most {most_ns} ns")
        op = Op("compute", compute_ns=float(calc_ns))
    else:
        kind = match["kind"]
        if match["direction"] != {"send": "to", "recv": "from"}[kind]:
            raise line.error('"send <size>b to <rank>" or "recv <size>b from <rank>"')
        wildcard = "" if kind == "send" else " or -1"
        expected = f"a rank in 0..{num_ranks - 1}{wildcard} and a tag in 0..{_MAX_TAG}{wildcard}"
        peer, tag = match["peer"], match["tag"] or "0"
        if kind == "send" and "-1" in (peer, tag):
            raise line.error(expected)
        size_expected = f"a size of at most {MAX_MESSAGE_BYTES} bytes (1TiB)"
        op = Op(
            "isend" if kind == "send" else "irecv",
            peer=-1 if peer == "-1" else line.parse(peer, num_ranks - 1, expected),
            bytes=line.parse(match["bytes"], MAX_MESSAGE_BYTES, size_expected),
            tag=-1 if tag == "-1" else line.parse(tag, _MAX_TAG, expected),
        )
    if label is not None:
        block.labels[label] = len(block.nodes)
    block.nodes.append(DagNode(label or f"line {line.number}", op))


def _close(block: _RankBlock, key: str, path: Path) -> list[Op]:
    for line, match in block.dependencies:
        child, kind, parent = match.group("child", "kind", "parent")
        if child not in block.labels or parent not in block.labels:
            raise line.error(f"labels defined in the block of rank {block.rank}")
        node = block.nodes[block.labels[child]]
        (node.requires if kind == "requires" else node.irequires).append(block.labels[parent])
    return sequentialize(block.nodes, key, f"{path} rank {block.rank}")
