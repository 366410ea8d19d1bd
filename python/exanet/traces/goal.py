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
from exanet.program import Op, Program
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
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)

_EXPECTED_OUTSIDE = '"num_ranks <N>" or "rank <R> {"'
_EXPECTED_INSIDE = (
    'an operation ("[<label>:] send <size>b to <rank> [tag <t>] [cpu <c>] [nic <n>]", '
    '"[<label>:] recv <size>b from <rank|-1> [tag <t|-1>] [cpu <c>] [nic <n>]" or '
    '"[<label>:] calc <ns> [cpu <c>]"), a dependency ("<label> requires|irequires <label>") or "}"'
)


@dataclass(frozen=True)
class _Line:
    path: Path
    number: int
    content: str

    def error(self, expected: str) -> ConfigError:
        return ConfigError(f"{self.path} line {self.number}", json.dumps(self.content), expected)


@dataclass
class _RankBlock:
    rank: int
    nodes: list[DagNode] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # label -> index in nodes
    dependencies: list[tuple[_Line, re.Match]] = field(default_factory=list)


def read_goal(path: str | Path) -> Program:
    """The program of the GOAL schedule at `path` (not validated: call `validate` on it)."""
    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("trace", str(path), f"a readable GOAL text file ({exc})") from None
    text = _BLOCK_COMMENT.sub(lambda m: "\n" * m.group().count("\n"), text)
    num_ranks: int | None = None
    block: _RankBlock | None = None
    programs: dict[int, list[Op]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = _Line(path, number, raw.split("//", 1)[0].strip())
        if not line.content:
            continue
        if block is None:
            if match := _NUM_RANKS.fullmatch(line.content):
                if num_ranks is not None or int(match["ranks"]) < 1:
                    raise line.error("a single num_ranks line with num_ranks >= 1")
                num_ranks = int(match["ranks"])
            elif match := _RANK.fullmatch(line.content):
                if num_ranks is None:
                    raise line.error('"num_ranks <N>" before the first rank block')
                if int(match["rank"]) >= num_ranks or int(match["rank"]) in programs:
                    raise line.error(f"a rank in 0..{num_ranks - 1} without a block yet")
                block = _RankBlock(int(match["rank"]))
            else:
                raise line.error(_EXPECTED_OUTSIDE)
        elif line.content == "}":
            programs[block.rank] = _close(block, path)
            block = None
        elif match := _OPERATION.fullmatch(line.content):
            _add_operation(block, match, line, num_ranks)
        elif match := _DEPENDENCY.fullmatch(line.content):
            block.dependencies.append((line, match))
        else:
            raise line.error(_EXPECTED_INSIDE)
    if block is not None:
        raise ConfigError(
            str(path), "end of file", f'a "}}" closing the block of rank {block.rank}'
        )
    if num_ranks is None:
        raise ConfigError(str(path), "no num_ranks line", '"num_ranks <N>" and rank blocks')
    return Program.from_ops([programs.get(r, []) for r in range(num_ranks)], num_ranks)


def _add_operation(block: _RankBlock, match: re.Match, line: _Line, num_ranks: int) -> None:
    label = match["label"]
    if label in block.labels:
        raise line.error(f"a label not already used in the block of rank {block.rank}")
    if match["calc_ns"] is not None:
        op = Op("compute", compute_ns=float(match["calc_ns"]))
    else:
        kind, peer, tag = match["kind"], int(match["peer"]), int(match["tag"] or 0)
        if match["direction"] != {"send": "to", "recv": "from"}[kind]:
            raise line.error('"send <size>b to <rank>" or "recv <size>b from <rank>"')
        lowest = 0 if kind == "send" else -1
        if not lowest <= peer < num_ranks or tag < lowest:
            wildcard = "" if kind == "send" else " or -1"
            raise line.error(f"a rank in 0..{num_ranks - 1}{wildcard} and a tag >= 0{wildcard}")
        op_name = "isend" if kind == "send" else "irecv"
        op = Op(op_name, peer=peer, bytes=int(match["bytes"]), tag=tag)
    if label is not None:
        block.labels[label] = len(block.nodes)
    block.nodes.append(DagNode(label or f"line {line.number}", op))


def _close(block: _RankBlock, path: Path) -> list[Op]:
    for line, match in block.dependencies:
        child, kind, parent = match.group("child", "kind", "parent")
        if child not in block.labels or parent not in block.labels:
            raise line.error(f"labels defined in the block of rank {block.rank}")
        node = block.nodes[block.labels[child]]
        (node.requires if kind == "requires" else node.irequires).append(block.labels[parent])
    return sequentialize(block.nodes, f"{path} rank {block.rank}")
