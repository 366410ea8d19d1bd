"""One rank's dependency graph (GOAL, Chakra) as a sequential program of non-blocking operations.

Point-to-point operations become isend/irecv with one request each; an operation waits (`wait`)
for each point-to-point operation it `requires` (must follow its completion) before it runs;
`irequires` (must follow its start) only orders. Compute and collectives block, so depending on
them needs no wait. Operations are issued in a topological order: among the ready ones, those that
need no wait first, then file order; a final `waitall` completes what is still outstanding.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, field

from exanet.errors import ConfigError
from exanet.program import Op, wait, waitall


@dataclass
class DagNode:
    """An operation (None: no operation, only dependencies) and the nodes it depends on;
    `label` names it in errors."""

    label: object
    op: Op | None
    requires: list[int] = field(default_factory=list)
    irequires: list[int] = field(default_factory=list)


def sequentialize(nodes: list[DagNode], key: str, where: str) -> list[Op]:
    """The operations of `nodes` (indices in file order) as one rank's sequential program;
    errors name `key` and, in their value, `where` the nodes come from (a file and rank)."""
    children: list[list[int]] = [[] for _ in nodes]
    unmet = [0] * len(nodes)
    for i, node in enumerate(nodes):
        for parent in dict.fromkeys(node.requires + node.irequires):
            children[parent].append(i)
            unmet[i] += 1
    request_of: dict[int, int] = {}  # node -> request id of its isend/irecv
    outstanding: set[int] = set()
    unwaited = [0] * len(nodes)  # ready node -> requests it still needs waited
    waiters: dict[int, list[int]] = defaultdict(list)  # request -> ready nodes needing it
    free: list[int] = []  # ready, no wait needed
    blocked: list[int] = []  # ready, needs a wait
    done = [False] * len(nodes)
    program: list[Op] = []

    def make_ready(i: int) -> None:
        needed = [request_of[d] for d in nodes[i].requires if request_of.get(d) in outstanding]
        unwaited[i] = len(needed)
        for request in needed:
            waiters[request].append(i)
        heapq.heappush(blocked if needed else free, i)

    for i in range(len(nodes)):
        if unmet[i] == 0:
            make_ready(i)
    while free or blocked:
        i = heapq.heappop(free or blocked)
        if done[i]:
            continue  # already issued from the other heap
        done[i] = True
        for parent in dict.fromkeys(nodes[i].requires):
            request = request_of.get(parent)
            if request in outstanding:
                outstanding.remove(request)
                program.append(wait(request))
                for waiter in waiters.pop(request, ()):
                    unwaited[waiter] -= 1
                    if unwaited[waiter] == 0 and not done[waiter]:
                        heapq.heappush(free, waiter)
        op = nodes[i].op
        if op is not None:
            if op.op in ("isend", "irecv"):
                request_of[i] = len(request_of)
                outstanding.add(request_of[i])
                op = op._replace(request=request_of[i])
            program.append(op)
        for child in children[i]:
            unmet[child] -= 1
            if unmet[child] == 0:
                make_ready(child)
    if not all(done):
        stuck = next(str(node.label) for node, done_ in zip(nodes, done, strict=True) if not done_)
        raise ConfigError(
            key,
            f"{where}: {stuck}",
            "dependencies without a cycle: this operation is on, or after, a cycle",
        )
    if outstanding:
        program.append(waitall())
    return program
