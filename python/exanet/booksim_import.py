"""A BookSim 2 configuration file as an exanet config (`exanet import booksim`).

BookSim configs are `key = value;` statements with `//` comments; a value is a number, a word
(`torus`, `hotspot({0,5})`) or a per-class list in braces. BookSim counts cycles and flits and
has no physical units, so the import takes the length of a cycle and the width of a flit: a
link then carries one flit per cycle. Keys the file leaves out take BookSim's own defaults
(`booksim_config.cpp`). docs/configuration.md ("Importing a BookSim experiment") lists every
mapping.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exanet import topology_files
from exanet._validation import format_value
from exanet.errors import ConfigError
from exanet.units import (
    QuantityError,
    format_bandwidth_bytes_per_s,
    format_size_bytes,
    format_time_ps,
    parse_size_bytes,
    parse_time_ps,
)

DEFAULT_CYCLE = "1ns"
"""The length of one BookSim cycle unless told otherwise."""
DEFAULT_FLIT = "16B"
"""The width of one BookSim flit unless told otherwise."""

#: BookSim's defaults (booksim_config.cpp) of the keys the import reads.
BOOKSIM_DEFAULTS: dict[str, str] = {
    "topology": "torus",
    "k": "8",
    "n": "2",
    "c": "1",
    "routing_function": "none",
    "use_noc_latency": "1",
    "num_vcs": "16",
    "vc_buf_size": "8",
    "routing_delay": "1",
    "vc_alloc_delay": "1",
    "sw_alloc_delay": "1",
    "st_prepare_delay": "0",
    "st_final_delay": "1",
    "classes": "1",
    "traffic": "uniform",
    "injection_rate": "0.1",
    "injection_rate_uses_flits": "0",
    "packet_size": "1",
    "injection_process": "bernoulli",
    "sim_type": "latency",
    "warmup_periods": "3",
    "sample_period": "1000",
    "batch_size": "1000",
    "batch_count": "1",
    "seed": "0",
    "network_file": "",
}

_DOR = {"kind": "dor"}
_ADAPTIVE_ESCAPE_DOR = {"kind": "minimal", "selection": "adaptive", "escape": "dor"}
_MINIMAL_RANDOM = {"kind": "minimal", "selection": "random"}
_MINIMAL_ADAPTIVE = {"kind": "minimal", "selection": "adaptive"}
_VALIANT = {"kind": "valiant"}
_UGAL_L = {"kind": "ugal_l"}

#: Per BookSim topology, its routing functions (the name before "_<topology>") as exanet routing.
ROUTING: dict[str, dict[str, dict[str, str]]] = {
    "torus": {
        "dim_order": _DOR,
        "dim_order_ni": _DOR,
        "dim_order_bal": _DOR,
        "min_adapt": _ADAPTIVE_ESCAPE_DOR,
        "valiant": _VALIANT,
        "valiant_ni": _VALIANT,
    },
    "mesh": {
        "dim_order": _DOR,
        "dor": _DOR,
        "dim_order_ni": _DOR,
        "dim_order_pni": _DOR,
        "min_adapt": _ADAPTIVE_ESCAPE_DOR,
        "valiant": _VALIANT,
    },
    "flatfly": {
        "ran_min": _MINIMAL_RANDOM,
        "xyyx": _MINIMAL_RANDOM,
        "adaptive_xyyx": _MINIMAL_ADAPTIVE,
        "valiant": _VALIANT,
        "ugal": _UGAL_L,
        "ugal_pni": _UGAL_L,
        "ugal_xyyx": _UGAL_L,
    },
    "dragonflynew": {"min": {"kind": "minimal"}, "ugal": _UGAL_L},
    "fattree": {"nca": _MINIMAL_RANDOM, "anca": _MINIMAL_ADAPTIVE},
    "anynet": {"min": _MINIMAL_RANDOM},
}

#: BookSim traffic patterns (traffic.cpp) and their exanet names.
PATTERNS = {
    "uniform": "uniform",
    "transpose": "transpose",
    "bitcomp": "bit_complement",
    "bitrev": "bit_reverse",
    "shuffle": "shuffle",
    "tornado": "tornado",
    "neighbor": "neighbor",
    "randperm": "random_permutation",
    "hotspot": "hotspot",
}

SIM_TYPES = ("latency", "throughput", "batch")
INJECTION_PROCESSES = ("bernoulli",)

#: Dragonfly channel latencies in cycles (dragonfly.cpp, DRAGON_LATENCY).
DRAGONFLY_LOCAL_CYCLES = 10
DRAGONFLY_GLOBAL_CYCLES = 100

_STATEMENT_FORMAT = "BookSim statements 'key = value;' ('//' comments)"


@dataclass(frozen=True)
class BookSimImport:
    """An imported BookSim config: the exanet config (a mapping `exanet.config.load` takes),
    what was left out or changed (one line each, naming the BookSim key and its value), and the
    units the import assumed."""

    config: dict[str, Any]
    warnings: list[str]
    source: Path
    cycle_ps: int
    flit_bytes: int

    def to_toml(self) -> str:
        """The config as a TOML file whose header comment says where it came from, the units
        assumed and every warning."""
        cycle, flit = format_time_ps(self.cycle_ps), format_size_bytes(self.flit_bytes)
        header = [
            f"# Imported from the BookSim config {self.source.name} by exanet import booksim.",
            f"# BookSim has no physical units: 1 cycle = {cycle} (--cycle), 1 flit = {flit} "
            "(--flit),",
            f"# so a link carries one flit per cycle ({self.config['links']['bandwidth']}).",
        ]
        if self.warnings:
            header.append("# Not imported or changed:")
            header.extend(f"#   {warning}" for warning in self.warnings)
        return "\n".join(header) + "\n\n" + _toml(self.config)


def parse(text: str) -> dict[str, str]:
    """The `key = value` settings of a BookSim config, the last of a repeated key winning."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    settings: dict[str, str] = {}
    line = 1
    for statement in text.split(";"):
        leading = statement[: len(statement) - len(statement.lstrip())]
        start = line + leading.count("\n")
        line += statement.count("\n")
        if not statement.strip():
            continue
        key, equals, value = statement.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not re.fullmatch(r"[A-Za-z_]\w*", key) or not value:
            raise ConfigError(f"line {start}", format_value(statement.strip()), _STATEMENT_FORMAT)
        settings[key] = value.strip('"')
    return settings


def import_booksim(
    path: str | os.PathLike[str], cycle: str = DEFAULT_CYCLE, flit: str | int = DEFAULT_FLIT
) -> BookSimImport:
    """The exanet config of the BookSim config file at `path`, with one cycle lasting `cycle`
    and one flit `flit` wide. A value exanet cannot express (an unknown topology, routing
    function or traffic pattern) is a ConfigError naming the BookSim key, its value and the
    valid ones; keys with no exanet meaning become warnings."""
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError("booksim", str(source), f"a readable file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError("booksim", str(source), "a UTF-8 text file") from None
    try:
        cycle_ps = parse_time_ps(cycle)
        flit_bytes = parse_size_bytes(flit)
    except QuantityError as exc:
        name = "--cycle" if exc.kind == "time" else "--flit"
        raise ConfigError(name, format_value(exc.value), exc.expected) from None
    if cycle_ps <= 0 or flit_bytes <= 0:
        raise ConfigError(
            "--cycle" if cycle_ps <= 0 else "--flit",
            format_value(cycle if cycle_ps <= 0 else flit),
            "more than zero",
        )
    reader = _Settings(parse(text))
    config = _Converter(reader, cycle_ps, flit_bytes, source.parent).config()
    reader.warn_unused()
    return BookSimImport(config, reader.warnings, source, cycle_ps, flit_bytes)


class _Settings:
    """The file's settings over BookSim's defaults; remembers which keys were read and collects
    warnings."""

    def __init__(self, given: dict[str, str]) -> None:
        self.given = given
        self.used: set[str] = set()
        self.warnings: list[str] = []

    def warn(self, key: str, text: str) -> None:
        self.warnings.append(f"{key} = {self.given.get(key, BOOKSIM_DEFAULTS.get(key))}: {text}")

    def text(self, key: str) -> str:
        """The value of `key`; class 0's of a per-class list {a, b, ...} (with a warning)."""
        self.used.add(key)
        value = self.given.get(key, BOOKSIM_DEFAULTS.get(key, ""))
        if value.startswith("{") and value.endswith("}"):
            items = [item.strip() for item in value[1:-1].split(",") if item.strip()]
            if len(items) > 1:
                self.warn(key, f"a value per traffic class; class 0's ({items[0]}) is taken")
            value = items[0] if items else ""
        return value

    def number(self, key: str, kind: type[int] | type[float] = int) -> Any:
        value = self.text(key)
        try:
            return kind(value)
        except ValueError:
            expected = "an integer" if kind is int else "a number"
            raise ConfigError(key, format_value(value), expected) from None

    def has(self, key: str) -> bool:
        return key in self.given

    def warn_unused(self) -> None:
        for key in self.given:
            if key not in self.used:
                self.warn(key, "no exanet meaning; left out")


class _Converter:
    def __init__(self, settings: _Settings, cycle_ps: int, flit_bytes: int, base: Path) -> None:
        self.s = settings
        self.cycle_ps = cycle_ps
        self.flit_bytes = flit_bytes
        self.base = base

    def cycles(self, count: int) -> str:
        return format_time_ps(count * self.cycle_ps)

    def config(self) -> dict[str, Any]:
        s = self.s
        topology, links = self.topology()
        packet_flits = s.number("packet_size")
        if s.has("const_flits_per_packet") and not s.has("packet_size"):
            packet_flits = s.number("const_flits_per_packet")  # BookSim's older name
        if packet_flits < 1:
            raise ConfigError("packet_size", str(packet_flits), "at least 1 flit")
        packet_bytes = packet_flits * self.flit_bytes
        pipeline = sum(
            s.number(key)
            for key in (
                "routing_delay",
                "vc_alloc_delay",
                "sw_alloc_delay",
                "st_prepare_delay",
                "st_final_delay",
            )
        )
        config: dict[str, Any] = {
            "seed": self.seed(),
            "topology": topology,
            "routing": self.routing(),
            "router": {
                "vcs": s.number("num_vcs"),
                "vc_buffer": format_size_bytes(
                    self.vc_buffer_flits(packet_flits) * self.flit_bytes
                ),
                "latency": self.cycles(pipeline),
            },
            "links": links,
            "nic": {
                "injection_latency": self.cycles(1),
                "mtu": format_size_bytes(packet_bytes),
                "header": "0B",
            },
        }
        if s.number("classes") > 1:
            s.warn("classes", "exanet imports traffic class 0 only")
        config.update(self.traffic(packet_flits, packet_bytes))
        return config

    def vc_buffer_flits(self, packet_flits: int) -> int:
        """vc_buf_size, raised to a whole packet: BookSim's wormhole routers take part of a
        packet, exanet's virtual cut-through admits only whole packets."""
        flits = self.s.number("vc_buf_size")
        if flits < packet_flits:
            self.s.warn(
                "vc_buf_size",
                f"smaller than a packet ({packet_flits} flits); exanet's virtual cut-through "
                "buffers whole packets, so each VC buffer holds one packet",
            )
        return max(flits, packet_flits)

    def seed(self) -> int:
        value = self.s.text("seed")
        if not value.isdigit():
            raise ConfigError(
                "seed", format_value(value), "an integer (exanet runs are reproducible, not 'time')"
            )
        return int(value)

    def topology(self) -> tuple[dict[str, Any], dict[str, Any]]:
        s = self.s
        kind = s.text("topology")
        one_cycle = {
            "latency": self.cycles(1),
            "bandwidth": format_bandwidth_bytes_per_s(self.flit_bytes * 10**12 // self.cycle_ps),
        }
        if kind not in ROUTING:
            raise ConfigError(
                "topology",
                format_value(kind),
                f"a BookSim topology exanet has: {', '.join(ROUTING)} (fly, cmesh, qtree and "
                "tree4 have no exanet family)",
            )
        if kind == "anynet":
            return self.anynet(one_cycle)
        k, n = s.number("k"), s.number("n")
        if kind in ("torus", "mesh"):
            if s.has("c") and s.number("c") != 1:
                s.warn("c", f"BookSim's {kind} ignores it (one node per router)")
            noc = s.number("use_noc_latency") == 1
            wrapped = kind == "torus" and noc  # BookSim's torus channels take 2 cycles
            return {"kind": kind, "dims": [k] * n}, {
                **one_cycle,
                "latency": self.cycles(2 if wrapped else 1),
            }
        if kind == "flatfly":
            if s.number("use_noc_latency") == 1:
                s.warn(
                    "use_noc_latency",
                    "BookSim's on-chip channel lengths are not imported; every link takes 1 cycle",
                )
            return {"kind": "hyperx", "dims": [k] * n, "concentration": s.number("c")}, one_cycle
        if kind == "dragonflynew":
            if n != 1:
                raise ConfigError("n", str(n), "1 (BookSim's dragonflynew has one dimension)")
            topology = {"kind": "dragonfly", "p": k, "a": 2 * k, "h": k}
            return topology, {
                **one_cycle,
                "local": {"latency": self.cycles(DRAGONFLY_LOCAL_CYCLES)},
                "global": {"latency": self.cycles(DRAGONFLY_GLOBAL_CYCLES)},
            }
        if not 2 <= n <= 4 or k < 2:
            raise ConfigError(
                "k" if k < 2 else "n",
                str(k if k < 2 else n),
                "k >= 2 and n from 2 to 4 (exanet's fat trees have 2 to 4 levels)",
            )
        s.warn(
            "topology",
            f"the same {k}^{n} nodes and bisection; exanet's top routers use all {2 * k} ports, "
            f"so there are half as many ({k}^{n - 1}/2)",
        )
        return {"kind": "fat_tree", "levels": n, "radix": 2 * k, "pods": k}, one_cycle

    def anynet(self, links: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The anynet file as a custom topology; its latencies in cycles (link classes
        `cyclesN`) get their times, links without one take BookSim's 1 cycle."""
        name = self.s.text("network_file")
        if not name:
            raise ConfigError("network_file", '""', "the anynet file of topology = anynet")
        path = (self.base / name).resolve()
        try:
            graph = topology_files.read_anynet(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(
                "network_file", str(path), f"a readable anynet file ({exc.strerror})"
            ) from None
        except topology_files.TopologyFileError as exc:
            raise ConfigError("network_file", f"{path} {exc.where}", exc.expected) from None
        classes = sorted({cls for _, _, cls in graph.links if cls != "network"})
        for name in classes:
            links[name] = {"latency": self.cycles(int(name.removeprefix("cycles")))}
        return {"kind": "custom", "edges": str(path), "format": "anynet"}, links

    def routing(self) -> dict[str, Any]:
        s = self.s
        kind = s.text("topology")
        name = s.text("routing_function")
        valid = ROUTING[kind]
        if name not in valid:
            raise ConfigError(
                "routing_function",
                format_value(name),
                f"a routing function of BookSim's {kind} that exanet has: {', '.join(valid)}",
            )
        return dict(valid[name])

    def traffic(self, packet_flits: int, packet_bytes: int) -> dict[str, Any]:
        s = self.s
        process = s.text("injection_process")
        if process not in INJECTION_PROCESSES:
            raise ConfigError(
                "injection_process",
                format_value(process),
                f"{', '.join(INJECTION_PROCESSES)} (exanet has no on/off process)",
            )
        traffic: dict[str, Any] = {**self.pattern(), "packet": format_size_bytes(packet_bytes)}
        sim_type = s.text("sim_type")
        if sim_type not in SIM_TYPES:
            raise ConfigError("sim_type", format_value(sim_type), ", ".join(SIM_TYPES))
        if sim_type == "batch":
            if s.has("injection_rate"):
                s.warn("injection_rate", "exanet's bursts inject as fast as the network accepts")
            s.used.add("injection_rate")
            burst = {
                "kind": "burst",
                "packets_per_burst": s.number("batch_size"),
                "bursts": s.number("batch_count"),
                "restart_delay": self.cycles(1),
            }
            return {"traffic": {**burst, **traffic}}
        rate = s.number("injection_rate", float)
        flits_per_cycle = rate if s.number("injection_rate_uses_flits") else rate * packet_flits
        if not 0 < flits_per_cycle <= 1:
            raise ConfigError(
                "injection_rate",
                format_value(s.text("injection_rate")),
                f"an offered load above 0 and at most 1 flit per cycle per node (it is "
                f"{flits_per_cycle:g} with packet_size = {packet_flits})",
            )
        sample = s.number("sample_period")
        return {
            "traffic": {
                "kind": "synthetic",
                "process": process,
                "load": flits_per_cycle,
                **traffic,
            },
            "run": {
                "warmup": self.cycles(s.number("warmup_periods") * sample),
                "measure": self.cycles(sample),
            },
        }

    def pattern(self) -> dict[str, Any]:
        s = self.s
        value = s.text("traffic")
        name, _, params = value.partition("(")
        params = params.rstrip(")").strip()
        if name not in PATTERNS:
            raise ConfigError(
                "traffic",
                format_value(value),
                f"a BookSim traffic pattern exanet has: {', '.join(PATTERNS)}",
            )
        pattern: dict[str, Any] = {"pattern": PATTERNS[name]}
        if name == "hotspot":
            lists = re.findall(r"\{([^}]*)\}", params) or [params]
            nodes = [item.strip() for item in lists[0].split(",") if item.strip()]
            if not nodes or not all(node.isdigit() for node in nodes):
                raise ConfigError(
                    "traffic",
                    format_value(value),
                    "hotspot({n1,n2,...}) naming its nodes (a random node is not reproducible)",
                )
            rates = {item.strip() for item in lists[1].split(",")} if len(lists) > 1 else set()
            if len(rates) > 1:
                s.warn("traffic", "per-hotspot rates are not imported; every hotspot is equal")
            return {
                **pattern,
                "hotspot_endpoints": [int(n) for n in nodes],
                "hotspot_fraction": 1.0,
            }
        if params:
            s.warn("traffic", f"the parameters ({params}) are not imported; exanet derives them")
        return pattern


def _toml(config: dict[str, Any]) -> str:
    """`config` (tables of numbers, strings and lists) as TOML."""
    lines: list[str] = []

    def table(prefix: str, mapping: dict[str, Any]) -> None:
        scalars = {key: value for key, value in mapping.items() if not isinstance(value, dict)}
        if prefix:
            lines.append(f"\n[{prefix}]")
        lines.extend(f"{key} = {_toml_value(value)}" for key, value in scalars.items())
        for key, value in mapping.items():
            if isinstance(value, dict):
                table(f"{prefix}.{key}" if prefix else key, value)

    table("", config)
    return "\n".join(lines).lstrip("\n") + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    return json.dumps(str(value))
