"""Links cut by exanet's own partitioners and by KaHIP (the `partition` extra): the bisection
bound of `describe` and the parallel engine's partition into 2, 4 and 8 workers, on a Slim Fly,
a Jellyfish, a custom graph and a torus (docs/topologies.md, docs/parallel.md).

    PYTHONPATH=python python3 examples/partitioner_cuts.py
"""

import networkx

import exanet
from exanet import partitioning

SMALL_WORLD = networkx.connected_watts_strogatz_graph(256, 6, 0.1, seed=1)
NETWORKS = {
    "Slim Fly q = 5": {"kind": "slim_fly", "q": 5},
    "Jellyfish 200 x 8": {"kind": "jellyfish", "routers": 200, "degree": 8, "p": 4, "seed": 1},
    "custom small world 256": {"kind": "custom", "edges": [list(e) for e in SMALL_WORLD.edges]},
    "torus 8 x 8": {"kind": "torus", "dims": [8, 8]},
}
PARTS = (2, 4, 8)


def main() -> None:
    if not partitioning.available():
        print(f"KaHIP is not installed ({partitioning.INSTALL_HINT}): exanet's figures only")
    print("bisection: exanet | kahip | kept (whose)")
    for name, topology in NETWORKS.items():
        info = exanet.topology(topology).describe()
        print(
            f"  {name:24} {info['bisection_partitioner_links']} | "
            f"{info['bisection_kahip_links']} | {info['bisection_links']} "
            f"({info['bisection_partitioner'] or info['bisection_method']})"
        )
    print("parallel partition, links cut for " + " / ".join(map(str, PARTS)) + " parts")
    for name, topology in NETWORKS.items():
        config = {"topology": topology, "traffic": {"load": 0.1}}
        for partitioner in ("exanet", "kahip"):
            if partitioner == "kahip" and not partitioning.available():
                continue
            splits = [exanet.partition({**config, "partitioner": partitioner}, n) for n in PARTS]
            cuts = " / ".join(str(s["cut_links"]) for s in splits)
            print(f"  {name:24} {partitioner:6} {cuts} ({splits[-1]['method']})")


if __name__ == "__main__":
    main()
