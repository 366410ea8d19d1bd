"""Router graphs from the files other tools write: BookSim `anynet` listings, InfiniBand
`ibnetdiscover` output, SST's JSON config graph (`sst --output-json`), GraphML and GML (networkx
reads both). Each reader gives the links as
(router, router, link class) with routers numbered 0..n-1 in the order the file first names them,
and the endpoints per router where the file says them. docs/topologies.md describes each
format and what is taken from it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from exanet.units import QuantityError, format_time_ps, parse_time_ps

FORMATS = ("auto", "edges", "anynet", "ibnetdiscover", "sst", "graphml", "gml")
"""Values of `topology.format`; "auto" tells them apart by their content."""


class TopologyFileError(ValueError):
    """A problem in a topology file: where (e.g. "line 4") and what would be valid."""

    def __init__(self, where: str, expected: str) -> None:
        super().__init__(f"{where}: {expected}")
        self.where = where
        self.expected = expected


@dataclass(frozen=True)
class ForeignGraph:
    """Links between routers 0..routers-1, and the endpoints of each router when the file
    says them (None otherwise)."""

    routers: int
    links: list[tuple[int, int, str]]
    endpoints: list[int] | None


class _Numbering:
    """Router names in the order they first appear, numbered from 0."""

    def __init__(self) -> None:
        self.ids: dict[object, int] = {}

    def __call__(self, name: object) -> int:
        return self.ids.setdefault(name, len(self.ids))


def detect(text: str) -> str:
    """The format of a topology file's text: one of FORMATS other than "auto"."""
    head = text.lstrip()[:4096]
    if head.startswith("{") and '"components"' in text:
        return "sst"
    if head.startswith("<?xml") or "<graphml" in head:
        return "graphml"
    if re.match(r"(?s)(?:(?:#|Creator|Version)[^\n]*\n\s*)*graph\s*\[", head):
        return "gml"
    if re.search(r'(?m)^(Switch|Ca|Rt)\s+\d+\s+"', head):
        return "ibnetdiscover"
    if re.match(r"(?i)router\s+\S+", head):
        return "anynet"
    return "edges"


def read_anynet(text: str) -> ForeignGraph:
    """BookSim's anynet listing: `router R node N ... router R2 [cycles] ...` per line (keywords
    in any case). A link listed from both ends is one link; a latency in cycles after a router
    makes the link's class `cyclesN` (give it a latency under [links.classes]); two different
    latencies for one link are refused (exanet's links are the same both ways). Each node is
    an endpoint of its router."""
    number = _Numbering()
    endpoints: dict[int, int] = {}
    cycles_of: dict[tuple[int, int], int | None] = {}
    cycles_line: dict[tuple[int, int], int] = {}
    nodes: dict[str, int] = {}
    for line_number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split("//", 1)[0].split("#", 1)[0].split()
        if not tokens:
            continue
        where = f"line {line_number}"
        if len(tokens) < 2 or tokens[0].lower() != "router":
            raise TopologyFileError(
                where, 'a line "router R" followed by "node N" and "router R2 [cycles]" entries'
            )
        router = number(tokens[1])
        endpoints.setdefault(router, 0)
        i = 2
        while i < len(tokens):
            kind = tokens[i].lower()
            if kind not in ("router", "node") or i + 1 >= len(tokens):
                raise TopologyFileError(
                    where, f'"node N" or "router R [cycles]" entries, not {tokens[i]!r}'
                )
            name = tokens[i + 1]
            i += 2
            if kind == "node":
                if nodes.setdefault(name, router) != router:
                    raise TopologyFileError(
                        where, f"node {name} on one router only (it is also on another)"
                    )
                endpoints[router] += 1
                continue
            cycles = None
            if i < len(tokens) and tokens[i].isdigit():
                cycles = int(tokens[i])
                i += 1
            peer = number(name)
            endpoints.setdefault(peer, 0)
            if peer == router:
                raise TopologyFileError(where, f"a link to another router, not router {name}")
            pair = (min(router, peer), max(router, peer))
            known = cycles_of.get(pair)
            if cycles is None:
                cycles_of.setdefault(pair, None)
                continue
            if known is not None and known != cycles:
                raise TopologyFileError(
                    where,
                    f"one latency for the link between routers {tokens[1]} and {name} (line "
                    f"{cycles_line[pair]} gives {known} cycles): exanet's links have the same "
                    "latency both ways",
                )
            cycles_of[pair] = cycles
            cycles_line[pair] = line_number
    return ForeignGraph(
        len(number.ids),
        [
            (a, b, "network" if cycles is None else f"cycles{cycles}")
            for (a, b), cycles in cycles_of.items()
        ],
        [endpoints.get(r, 0) for r in range(len(number.ids))],
    )


_IB_DEVICE = re.compile(r'^(Switch|Ca|Rt)\s+\d+\s+"([^"]+)"')
_IB_PORT = re.compile(r'^\[(\d+)\][^"]*"([^"]+)"\[(\d+)\]')


def read_ibnetdiscover(text: str) -> ForeignGraph:
    """`ibnetdiscover` output: every switch is a router, every cable between two switches a
    link (listed from both ends, counted once), every channel adapter (host) cabled to a
    switch an endpoint of that switch. Routers are numbered in the order the switches appear."""
    number = _Numbering()
    kinds: dict[str, str] = {}
    cables: set[tuple[tuple[str, int], tuple[str, int]]] = set()
    device = None
    for line_number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        head = _IB_DEVICE.match(line)
        if head:
            kind, device = head.group(1), head.group(2)
            kinds[device] = kind
            if kind == "Switch":
                number(device)
            continue
        port = _IB_PORT.match(line)
        if port and device is not None:
            ends = ((device, int(port.group(1))), (port.group(2), int(port.group(3))))
            cables.add((min(ends), max(ends)))
            continue
        if "=" in line or line.startswith(
            ("vendid", "devid", "sysimgguid", "switchguid", "caguid")
        ):
            continue
        raise TopologyFileError(
            f"line {line_number}",
            'a device line (Switch/Ca N "GUID") or a port line ([P] "GUID"[P]) of ibnetdiscover',
        )
    links: list[tuple[int, int, str]] = []
    endpoints = [0] * len(number.ids)
    for (a, _), (b, _) in sorted(cables):
        switch_a, switch_b = kinds.get(a) == "Switch", kinds.get(b) == "Switch"
        if switch_a and switch_b:
            links.append((number(a), number(b), "network"))
        elif switch_a or switch_b:
            endpoints[number(a if switch_a else b)] += 1
    if not number.ids:
        raise TopologyFileError("the file", "at least one Switch")
    return ForeignGraph(len(number.ids), links, endpoints)


_SST_ROUTER = re.compile(r"merlin\.\w*router\w*")
"""Component types that are routers in an SST config graph (merlin.hr_router)."""


def _sst_latency_class(end: object, where: str) -> str:
    """The link class of a latency as SST writes it ("10 ns"): `latency_10ns` (a "." in the
    time becomes "p": `latency_1p5ns`)."""
    latency = end.get("latency") if isinstance(end, dict) else None
    try:
        if not isinstance(latency, str):
            raise QuantityError("time", latency, "a time")
        time = format_time_ps(parse_time_ps("".join(latency.split())))
    except QuantityError:
        raise TopologyFileError(where, 'a "latency" on both ends, a time such as "10 ns"') from None
    return "latency_" + time.replace(".", "p")


def read_sst_json(text: str) -> ForeignGraph:
    """SST's config graph as `sst --output-json` writes it: every component whose type is a
    merlin router (`merlin.hr_router`) is a router, numbered in the order of "components";
    every link between two routers a link (parallel links kept), of class `latency_<time>` by
    its latency ("10 ns": `latency_10ns`), two different latencies at its ends refused; every
    link from a router to another component (a NIC, or a subcomponent such as `nic.0:rtr`) an
    endpoint of that router. Links between two other components are left out."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TopologyFileError(f"line {exc.lineno}", f"valid JSON ({exc.msg})") from None
    components = document.get("components") if isinstance(document, dict) else None
    if not isinstance(components, list):
        raise TopologyFileError(
            "the file", 'a JSON object with a "components" list, as sst --output-json writes'
        )
    number = _Numbering()
    for index, component in enumerate(components):
        if not isinstance(component, dict) or not all(
            isinstance(component.get(key), str) for key in ("name", "type")
        ):
            raise TopologyFileError(f"component {index}", 'an object with "name" and "type"')
        if _SST_ROUTER.fullmatch(component["type"]):
            number(component["name"])
    if not number.ids:
        raise TopologyFileError("the file", "at least one component of type merlin.hr_router")
    endpoints = [0] * len(number.ids)
    links: list[tuple[int, int, str]] = []
    for index, link in enumerate(document.get("links") or []):
        where = f"link {link.get('name', index) if isinstance(link, dict) else index}"
        ends = [link.get(side) if isinstance(link, dict) else None for side in ("left", "right")]
        if not all(isinstance(end, dict) and isinstance(end.get("component"), str) for end in ends):
            raise TopologyFileError(
                where,
                '"left" and "right" objects naming a "component" (a graph written by one rank: '
                "links to other ranks are not supported)",
            )
        routers = [number.ids.get(end["component"].split(":", 1)[0]) for end in ends]
        if routers[0] is None and routers[1] is None:
            continue
        if routers[0] is None or routers[1] is None:
            endpoints[routers[0] if routers[1] is None else routers[1]] += 1
            continue
        if routers[0] == routers[1]:
            raise TopologyFileError(where, "a link between two different routers")
        classes = {_sst_latency_class(end, where) for end in ends}
        if len(classes) > 1:
            raise TopologyFileError(
                where, "one latency at both ends: exanet's links have the same latency both ways"
            )
        links.append((routers[0], routers[1], classes.pop()))
    return ForeignGraph(len(number.ids), links, endpoints)


def _read_networkx(read: Callable[[str], nx.Graph], text: str, fmt: str) -> ForeignGraph:
    try:
        graph = read(text)
    except (nx.NetworkXError, SyntaxError, ValueError, KeyError) as exc:
        raise TopologyFileError("the file", f"a {fmt} graph networkx can read ({exc})") from None
    number = _Numbering()
    for node in graph.nodes:
        number(node)
    links = [
        (number(a), number(b), str(data.get("class", "network")))
        for a, b, data in graph.edges(data=True)
    ]
    for a, b, _ in links:
        if a == b:
            raise TopologyFileError("the file", f"no self-loop (node {list(graph.nodes)[a]!r})")
    given = [graph.nodes[node].get("endpoints") for node in graph.nodes]
    endpoints = None
    if any(count is not None for count in given):
        if not all(isinstance(count, int) and count >= 0 for count in given):
            raise TopologyFileError(
                "the file", 'an integer "endpoints" attribute (0 or more) on every node, or on none'
            )
        endpoints = [int(count) for count in given]
    return ForeignGraph(len(number.ids), links, endpoints)


def read_graphml(text: str) -> ForeignGraph:
    """GraphML: every node a router (numbered in file order), every edge a link (its `class`
    attribute the link class); an integer `endpoints` node attribute gives endpoints per router."""
    return _read_networkx(nx.parse_graphml, text, "GraphML")


def read_gml(text: str) -> ForeignGraph:
    """GML: as GraphML."""
    return _read_networkx(lambda t: nx.parse_gml(t, label=None), text, "GML")


READERS: dict[str, Callable[[str], ForeignGraph]] = {
    "anynet": read_anynet,
    "ibnetdiscover": read_ibnetdiscover,
    "sst": read_sst_json,
    "graphml": read_graphml,
    "gml": read_gml,
}
