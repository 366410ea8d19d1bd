//! Routing is behaviour-preserving across changes of how routes are computed: for every family
//! and scheme on a small instance, the fewest VCs the scheme accepts and every routing decision
//! on every route from every endpoint router to every other (several random draws each) hash to
//! the digest the all-pairs-table implementation produced. A change of a digest is a change of
//! routes, which must be deliberate and stated.

use crate::common;

use common::{families, with};
use exanet_core::routing::{self, Candidates, RouteQuery, RouteState, RoutingFunction};
use exanet_core::topology::{self, Peer, Topology};
use serde_json::{json, Value};
use std::collections::HashSet;

/// Every family's small instance, and a few more shapes (a 4-level fat-tree, a dragonfly with
/// several links per group pair, HyperX, torus, mesh, a custom graph with endpoint-free routers).
fn instances() -> Vec<(&'static str, Value)> {
    let mut all: Vec<(&'static str, Value)> = families()
        .into_iter()
        .map(|(name, t, _)| (name, t))
        .collect();
    all.extend([
        (
            "fat_tree4",
            json!({"kind": "fat_tree", "levels": 4, "radix": 4, "pods": 3, "taper": [1, 1]}),
        ),
        (
            "dragonfly_small_g",
            json!({"kind": "dragonfly", "p": 1, "a": 4, "h": 2, "g": 5, "arrangement": "absolute"}),
        ),
        (
            "hyperx",
            json!({"kind": "express_mesh", "dims": [3, 4], "gap": 1, "concentration": 1}),
        ),
        (
            "torus",
            json!({"kind": "torus", "dims": [4, 3], "concentration": 1}),
        ),
        (
            "mesh",
            json!({"kind": "mesh", "dims": [3, 4], "concentration": 2}),
        ),
        (
            "custom",
            json!({"kind": "custom", "graph": {"routers": 6, "class_names": ["local"],
                   "links": [[0, 1, 0], [1, 2, 0], [2, 3, 0], [3, 4, 0], [4, 5, 0], [5, 0, 0],
                             [0, 3, 0]]},
                   "endpoints": [1, 0, 2, 1, 0, 1]}),
        ),
    ]);
    all
}

fn schemes() -> Vec<(&'static str, Value)> {
    vec![
        ("minimal_adaptive", json!({"kind": "minimal"})),
        (
            "minimal_random",
            json!({"kind": "minimal", "selection": "random"}),
        ),
        (
            "minimal_destination",
            json!({"kind": "minimal", "selection": "destination"}),
        ),
        ("valiant", json!({"kind": "valiant"})),
        ("ugal_l", json!({"kind": "ugal_l"})),
        ("ugal_g", json!({"kind": "ugal_g"})),
        ("par", json!({"kind": "par"})),
        ("fishnet_adaptive", json!({"kind": "fishnet_adaptive"})),
        ("dor", json!({"kind": "dor", "allow_unsafe": false})),
        ("source", json!({"kind": "source", "paths": []})),
    ]
}

/// FNV-1a over 64-bit words: stable across runs and platforms.
struct Digest(u64);

impl Digest {
    fn add(&mut self, word: u64) {
        for byte in word.to_le_bytes() {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// The fewest VCs (up to 16) the scheme accepts on the topology, and its routing there.
fn fewest(topology: &Value, scheme: &Value) -> Option<(u32, Box<dyn RoutingFunction>)> {
    (1..=16).find_map(|vcs| {
        let config = with(&[
            ("topology", topology.clone()),
            ("routing", scheme.clone()),
            ("router.vcs", json!(vcs)),
        ]);
        let t = topology::build(&config.topology).unwrap();
        routing::build(&config.routing, t.as_ref(), vcs)
            .ok()
            .map(|r| (vcs, r))
    })
}

/// Every decision on every route from every endpoint router to every other, for random draws
/// 0..8 and a few large ones, in a fixed order.
fn digest(t: &dyn Topology, routing: &dyn RoutingFunction, vcs: u32) -> u64 {
    let mut d = Digest(0xcbf2_9ce4_8422_2325);
    d.add(u64::from(vcs));
    let hosts: Vec<(u32, u16, u32)> = (0..t.num_routers())
        .filter_map(|r| {
            (0..t.ports_per_router()).find_map(|p| match t.peer(r, p) {
                Peer::Endpoint(e) => Some((r, p, e)),
                _ => None,
            })
        })
        .collect();
    let draws: Vec<u32> = (0..8).chain([97, 12_345, 0xdead_beef]).collect();
    let mut candidates = Candidates::new();
    for &(src, src_port, _) in &hosts {
        for &(dst, dst_port, dst_endpoint) in &hosts {
            for &random in &draws {
                let mut stack = vec![(src, src_port, 0u8, true, RouteState::FRESH)];
                let mut seen = HashSet::new();
                while let Some((router, in_port, in_vc, injected, state)) = stack.pop() {
                    let query = RouteQuery {
                        router,
                        in_port,
                        in_vc,
                        injected,
                        dst_router: dst,
                        dst_port,
                        dst: dst_endpoint,
                        state,
                        random,
                    };
                    candidates.clear();
                    routing.route(&query, &mut candidates);
                    for c in candidates.as_slice() {
                        for word in [
                            u64::from(router),
                            u64::from(in_port),
                            u64::from(c.port),
                            u64::from(c.vc_mask),
                            u64::from(c.next.phase) << 32 | u64::from(c.next.via),
                            u64::from(c.hops),
                        ] {
                            d.add(word);
                        }
                        let Peer::Router { router: next, port } = t.peer(router, c.port) else {
                            continue;
                        };
                        for vc in routing::vcs_in(c.vc_mask).filter(|&vc| vc < vcs) {
                            if seen.insert((next, port, vc as u8, c.next)) {
                                stack.push((next, port, vc as u8, false, c.next));
                            }
                        }
                    }
                }
            }
        }
    }
    d.0
}

/// Digests of the all-pairs-table implementation (None: the scheme does not apply), but for the
/// changes marked, and for `ugal_l`, `ugal_g` and `par` everywhere: their detour is never the
/// source's or the destination's group (router), so there is always a non-minimal way to weigh;
/// and on the families with groups (dragonflies, Fishnets), for every scheme but `source`: a
/// hop inside the destination's group, past the source router, may take any higher VC class
/// that leaves one per local hop still to come (`Paths::toward_vcs`), so the VCs offered there
/// changed, not the ports (on the all-to-all dragonfly this reaches minimal routing not at
/// all: its hops there already take the top class).
const EXPECTED: &[(&str, &str, Option<u64>)] = &[
    // Changed on purpose (this and the next two): one VC class on up*/down* trees (every VC on
    // every hop, fewest VCs 1); the ports are those of before.
    ("fat_tree", "minimal_adaptive", Some(15584441584584127524)),
    ("fat_tree", "minimal_random", Some(9569792897185051748)),
    (
        "fat_tree",
        "minimal_destination",
        Some(13289203743507712836),
    ),
    // Changed on purpose (this and the next two): a VC class per leg on up*/down* trees (fewest
    // VCs 2), and the second leg's up-ports follow other digits of the destination (D-mod-k);
    // before that, Valiant's intermediate became a router with endpoints (was any router).
    ("fat_tree", "valiant", Some(7396308437177192455)),
    ("fat_tree", "ugal_l", Some(11650944293476791111)),
    ("fat_tree", "ugal_g", Some(11650944293476791111)),
    ("fat_tree", "par", None),
    ("fat_tree", "fishnet_adaptive", None),
    ("fat_tree", "dor", None),
    ("fat_tree", "source", Some(9595298009805446465)),
    // Changed on purpose (this and the next two): one VC class on up*/down* trees (every VC on
    // every hop, fewest VCs 1); the ports are those of before.
    ("fat_tree4", "minimal_adaptive", Some(12834087920757775756)),
    ("fat_tree4", "minimal_random", Some(5637445347673345956)),
    (
        "fat_tree4",
        "minimal_destination",
        Some(7581547481882939492),
    ),
    // Changed on purpose (this and the next two): a VC class per leg on up*/down* trees (fewest
    // VCs 2), and the second leg's up-ports follow other digits of the destination (D-mod-k);
    // before that, Valiant's intermediate became a router with endpoints (was any router).
    ("fat_tree4", "valiant", Some(3288724260023848239)),
    ("fat_tree4", "ugal_l", Some(3901378448246774415)),
    ("fat_tree4", "ugal_g", Some(3901378448246774415)),
    ("fat_tree4", "par", None),
    ("fat_tree4", "fishnet_adaptive", None),
    ("fat_tree4", "dor", None),
    ("fat_tree4", "source", Some(2829365690431052043)),
    ("dragonfly", "minimal_adaptive", Some(9190776117663658647)),
    ("dragonfly", "minimal_random", Some(9190776117663658647)),
    (
        "dragonfly",
        "minimal_destination",
        Some(9190776117663658647),
    ),
    ("dragonfly", "valiant", Some(9694026391776953526)),
    ("dragonfly", "ugal_l", Some(6313670535032239411)),
    ("dragonfly", "ugal_g", Some(6313670535032239411)),
    ("dragonfly", "par", Some(10079430831814414467)),
    // New: the Fishnet scheme applies to every family with groups.
    ("dragonfly", "fishnet_adaptive", Some(7277964693704647270)),
    ("dragonfly", "dor", None),
    ("dragonfly", "source", Some(1853038539007889062)),
    (
        "dragonfly_small_g",
        "minimal_adaptive",
        Some(12235366665515645199),
    ),
    (
        "dragonfly_small_g",
        "minimal_random",
        Some(12749990015749284998),
    ),
    (
        "dragonfly_small_g",
        "minimal_destination",
        Some(615363877961318982),
    ),
    ("dragonfly_small_g", "valiant", Some(727601464486345070)),
    ("dragonfly_small_g", "ugal_l", Some(853360423279018390)),
    ("dragonfly_small_g", "ugal_g", Some(853360423279018390)),
    ("dragonfly_small_g", "par", Some(15306812662238236129)),
    // New: the Fishnet scheme applies to every family with groups.
    (
        "dragonfly_small_g",
        "fishnet_adaptive",
        Some(1416963229066547558),
    ),
    ("dragonfly_small_g", "dor", None),
    ("dragonfly_small_g", "source", Some(4022449599133435966)),
    (
        "dragonfly_rc",
        "minimal_adaptive",
        Some(2894929594688829760),
    ),
    ("dragonfly_rc", "minimal_random", Some(8375353780735364376)),
    (
        "dragonfly_rc",
        "minimal_destination",
        Some(6156358956482959800),
    ),
    ("dragonfly_rc", "valiant", Some(6585070754030164543)),
    ("dragonfly_rc", "ugal_l", Some(429621437654280220)),
    ("dragonfly_rc", "ugal_g", Some(429621437654280220)),
    ("dragonfly_rc", "par", Some(7475040107704595387)),
    // New: the Fishnet scheme applies to every family with groups.
    (
        "dragonfly_rc",
        "fishnet_adaptive",
        Some(16317465770593284665),
    ),
    ("dragonfly_rc", "dor", None),
    ("dragonfly_rc", "source", Some(16621029359591085777)),
    (
        "dragonfly_plus",
        "minimal_adaptive",
        Some(14366635761549433967),
    ),
    (
        "dragonfly_plus",
        "minimal_random",
        Some(9616453711781680127),
    ),
    (
        "dragonfly_plus",
        "minimal_destination",
        Some(9355968018384247503),
    ),
    ("dragonfly_plus", "valiant", Some(17690525093177211069)),
    ("dragonfly_plus", "ugal_l", Some(6559730750954051028)),
    ("dragonfly_plus", "ugal_g", Some(6559730750954051028)),
    ("dragonfly_plus", "par", Some(8033081727912936343)),
    // New: the Fishnet scheme applies to every family with groups.
    (
        "dragonfly_plus",
        "fishnet_adaptive",
        Some(18313676179676766765),
    ),
    ("dragonfly_plus", "dor", None),
    ("dragonfly_plus", "source", Some(1289951762481967304)),
    ("slim_fly", "minimal_adaptive", Some(4423681989673950198)),
    ("slim_fly", "minimal_random", Some(4423681989673950198)),
    ("slim_fly", "minimal_destination", Some(4423681989673950198)),
    ("slim_fly", "valiant", Some(2118639736327849128)),
    ("slim_fly", "ugal_l", Some(614904679889871951)),
    ("slim_fly", "ugal_g", Some(614904679889871951)),
    ("slim_fly", "par", None),
    ("slim_fly", "fishnet_adaptive", None),
    ("slim_fly", "dor", None),
    ("slim_fly", "source", Some(4423681989673950198)),
    ("polarfly", "minimal_adaptive", Some(13314621497141227775)),
    ("polarfly", "minimal_random", Some(13314621497141227775)),
    (
        "polarfly",
        "minimal_destination",
        Some(13314621497141227775),
    ),
    ("polarfly", "valiant", Some(4227824113738018590)),
    ("polarfly", "ugal_l", Some(13269598057981360677)),
    ("polarfly", "ugal_g", Some(13269598057981360677)),
    ("polarfly", "par", None),
    ("polarfly", "fishnet_adaptive", None),
    ("polarfly", "dor", None),
    ("polarfly", "source", Some(13314621497141227775)),
    ("jellyfish", "minimal_adaptive", Some(13669519363081275145)),
    ("jellyfish", "minimal_random", Some(17893566968205318791)),
    (
        "jellyfish",
        "minimal_destination",
        Some(15446384736158425123),
    ),
    ("jellyfish", "valiant", Some(2742352629440195095)),
    ("jellyfish", "ugal_l", Some(9079693276544092640)),
    ("jellyfish", "ugal_g", Some(9079693276544092640)),
    ("jellyfish", "par", None),
    ("jellyfish", "fishnet_adaptive", None),
    ("jellyfish", "dor", None),
    ("jellyfish", "source", Some(13669519363081275145)),
    ("fishnet", "minimal_adaptive", Some(14660177906084539216)),
    ("fishnet", "minimal_random", Some(8403860990180698852)),
    ("fishnet", "minimal_destination", Some(17855731453378652267)),
    ("fishnet", "valiant", Some(1660727807181026322)),
    ("fishnet", "ugal_l", Some(909996432260560718)),
    ("fishnet", "ugal_g", Some(909996432260560718)),
    ("fishnet", "par", Some(12529086216148377118)),
    ("fishnet", "fishnet_adaptive", Some(4057693082778936027)),
    ("fishnet", "dor", None),
    ("fishnet", "source", Some(5194190824771932632)),
    (
        "fishnet_lite",
        "minimal_adaptive",
        Some(6531694343516994768),
    ),
    ("fishnet_lite", "minimal_random", Some(6531694343516994768)),
    (
        "fishnet_lite",
        "minimal_destination",
        Some(6531694343516994768),
    ),
    ("fishnet_lite", "valiant", Some(16770047070478584118)),
    ("fishnet_lite", "ugal_l", Some(14548958130773728326)),
    ("fishnet_lite", "ugal_g", Some(14548958130773728326)),
    ("fishnet_lite", "par", Some(15269109692463361874)),
    (
        "fishnet_lite",
        "fishnet_adaptive",
        Some(15389036387798249875),
    ),
    ("fishnet_lite", "dor", None),
    ("fishnet_lite", "source", Some(17812972931319318761)),
    (
        "express_mesh",
        "minimal_adaptive",
        Some(3383594724326702081),
    ),
    ("express_mesh", "minimal_random", Some(11365218548287717557)),
    (
        "express_mesh",
        "minimal_destination",
        Some(10420417306471598899),
    ),
    ("express_mesh", "valiant", Some(9930499627220486383)),
    ("express_mesh", "ugal_l", Some(14318509236995942368)),
    ("express_mesh", "ugal_g", Some(14318509236995942368)),
    ("express_mesh", "par", None),
    ("express_mesh", "fishnet_adaptive", None),
    ("express_mesh", "dor", Some(3066512876535065153)),
    ("express_mesh", "source", Some(3383594724326702081)),
    ("hyperx", "minimal_adaptive", Some(1774124354512144047)),
    ("hyperx", "minimal_random", Some(13909329814873167955)),
    ("hyperx", "minimal_destination", Some(88347132645369955)),
    ("hyperx", "valiant", Some(14248742288846714113)),
    ("hyperx", "ugal_l", Some(15230297561490211036)),
    ("hyperx", "ugal_g", Some(15230297561490211036)),
    ("hyperx", "par", None),
    ("hyperx", "fishnet_adaptive", None),
    ("hyperx", "dor", Some(14864166826811249820)),
    ("hyperx", "source", Some(1774124354512144047)),
    ("torus", "minimal_adaptive", Some(10846524960287815446)),
    ("torus", "minimal_random", Some(18298092810598013942)),
    ("torus", "minimal_destination", Some(5091721612322440720)),
    ("torus", "valiant", Some(10173163019902181635)),
    ("torus", "ugal_l", Some(9421200677971077573)),
    ("torus", "ugal_g", Some(9421200677971077573)),
    ("torus", "par", None),
    ("torus", "fishnet_adaptive", None),
    ("torus", "dor", Some(13993438355371818439)),
    ("torus", "source", Some(10846524960287815446)),
    ("mesh", "minimal_adaptive", Some(437786261809526744)),
    ("mesh", "minimal_random", Some(17032298503680942814)),
    ("mesh", "minimal_destination", Some(10872948692402966558)),
    ("mesh", "valiant", Some(6511769475654103315)),
    ("mesh", "ugal_l", Some(10445399841552698355)),
    ("mesh", "ugal_g", Some(10445399841552698355)),
    ("mesh", "par", None),
    ("mesh", "fishnet_adaptive", None),
    ("mesh", "dor", Some(9396441852777277980)),
    ("mesh", "source", Some(437786261809526744)),
    ("custom", "minimal_adaptive", Some(1290924562958475802)),
    ("custom", "minimal_random", Some(1406066959832520344)),
    ("custom", "minimal_destination", Some(533760932612168358)),
    // Changed on purpose: Valiant's intermediate is a router with endpoints (was any router).
    ("custom", "valiant", Some(11319895472664063299)),
    ("custom", "ugal_l", Some(18282409426991289632)),
    ("custom", "ugal_g", Some(18282409426991289632)),
    ("custom", "par", None),
    ("custom", "fishnet_adaptive", None),
    ("custom", "dor", None),
    ("custom", "source", Some(1290924562958475802)),
    // Midimews came after the all-pairs implementation: their digests as first recorded (the
    // graph's shortest paths), so that a change in their routes shows.
    ("midimew", "minimal_adaptive", Some(6656027545363034343)),
    ("midimew", "minimal_random", Some(5404193118943352438)),
    ("midimew", "minimal_destination", Some(9220387643398778579)),
    ("midimew", "valiant", Some(5091181055067711626)),
    ("midimew", "ugal_l", Some(15430686693879292871)),
    ("midimew", "ugal_g", Some(15430686693879292871)),
    ("midimew", "par", None),
    ("midimew", "fishnet_adaptive", None),
    ("midimew", "dor", None),
    ("midimew", "source", Some(6656027545363034343)),
];

#[test]
fn routes_equal_those_of_the_all_pairs_table_implementation() {
    let mut found = Vec::new();
    for (name, topology) in instances() {
        let t = topology::build(&serde_json::from_value(topology.clone()).unwrap()).unwrap();
        for (scheme_name, scheme) in schemes() {
            let got =
                fewest(&topology, &scheme).map(|(vcs, r)| digest(t.as_ref(), r.as_ref(), vcs));
            found.push((name, scheme_name, got));
        }
    }
    let listing: String = found
        .iter()
        .map(|(n, s, d)| format!("    (\"{n}\", \"{s}\", {d:?}),\n"))
        .collect();
    let mismatches: Vec<_> = found
        .iter()
        .filter(|f| !EXPECTED.contains(f))
        .map(|(n, s, d)| format!("{n}/{s}: {d:?}"))
        .collect();
    assert!(mismatches.is_empty(), "{mismatches:?}\n{listing}");
}
