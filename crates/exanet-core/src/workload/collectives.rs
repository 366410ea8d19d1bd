//! MPI collectives expanded into point-to-point messages by MPICH's classic algorithms (and the
//! linear gather and scatter, ring reduce_scatter and distance-doubling scan of other MPIs).
//!
//! A rank goes through [`Collective::steps`] steps; in each it posts all of the step's sends and
//! receives at once and waits for all of them before the next. Steps are computed on demand, in
//! O(1) (O(log n) for Rabenseifner), so a 4096-rank ring allreduce (8190 steps per rank) is never
//! materialised. A step where a rank has nothing to do is empty.
//!
//! n ranks, p = the largest power of two ≤ n, rem = n − p, L = ⌈log2 n⌉. `bytes` is S, the buffer
//! each rank holds (bcast, reduce, allreduce, reduce_scatter, scan, exscan); B, one block
//! (allgather, gather: each rank's contribution; scatter: what each rank ends with; alltoall:
//! what goes to each other rank); T, all a rank sends (alltoallv). sub(r) = min(lowbit(r), n − r)
//! is the size of relative rank r's binomial subtree (r ≥ 1).
//!
//! | collective | algorithm | steps | messages sent per rank | bytes sent per rank |
//! |---|---|---|---|---|
//! | allreduce | recursive_doubling | log2 p, +2 if rem > 0 | log2 p | S·log2 p |
//! | allreduce | ring | 2(n−1) | 2(n−1) | 2S(n−1)/n |
//! | allreduce | rabenseifner | 2·log2 p, +2 if rem > 0 | 2·log2 p | 2S(p−1)/p |
//! | allreduce | tree | 2L | 1 + children(r), root L; 2(n − 1) in all | S per message |
//! | bcast | binomial | L | root L; n − 1 in all | S per message |
//! | bcast | scatter_ring_allgather | L + n − 1 | scatter's, then n − 1 | chunks: scatter's S/n·sub(r) to r, then S/n per message |
//! | bcast | scatter_doubling_allgather (n = 2^L) | 2L | scatter's, then L | scatter's, then S/n·2^k at step k |
//! | reduce | binomial | L | 1, root 0; n − 1 in all | S per message |
//! | reduce | rabenseifner | 2·log2 p, +2 if rem > 0 | log2 p, +1 off the root's side of the gather | S(p−1)/p, then the gather's S/p·2^k |
//! | gather | binomial | L | 1, root 0; n − 1 in all | B·sub(r); root gets B(n−1) |
//! | gather | linear | 1 | 1, root 0 (gets n − 1 at once) | B |
//! | scatter | binomial | L | root L; n − 1 in all | B·sub(r) to r; root sends B(n−1) |
//! | scatter | linear | 1 | root n − 1 at once, others 0 | B per message |
//! | reduce_scatter | ring | n − 1 | n − 1 | S − chunk(me) ≈ S(n−1)/n |
//! | reduce_scatter | pairwise | n − 1 | n − 1, step k to rank me + k | S − chunk(me) |
//! | reduce_scatter | recursive_halving | log2 p, +2 if rem > 0 | log2 p (folding as allreduce) | S(p−1)/p when n = p |
//! | scan, exscan | recursive_doubling | L | #{k < L : me + 2^k < n}, step k to me + 2^k | S per message |
//! | allgather | ring | n − 1 | n − 1 | B(n−1) |
//! | allgather | recursive_doubling (n = 2^L) | L | L, step k: B·2^k | B(n−1) |
//! | allgather | bruck | L | L, step k to rank me − 2^k: B·min(2^k, n − 2^k) | B(n−1) |
//! | alltoall | pairwise | n − 1 | n − 1, step k to rank me + k | B(n−1) |
//! | alltoall | bruck | L | L, step k to rank me + 2^k | B·Σ_{i<n} popcount(i) |
//! | alltoallv | pairwise | n − 1 | n − 1 | T |
//! | alltoallv | bruck | L | L | Σ_{i<n} share(i)·popcount(i) |
//! | barrier | dissemination | L | L, step k to rank me + 2^k | 0 |
//!
//! - Folding (recursive doubling and Rabenseifner allreduce when rem > 0): in the first step each
//!   even rank below 2·rem sends its S to the odd rank above it and sits out; the remaining p
//!   ranks run the power-of-two algorithm; in the last step each odd rank sends the result S back.
//!   An even folded rank thus sends 1 message and an odd one 1 more than the table says.
//! - Ring and Rabenseifner cut S into n resp. p chunks, the first S mod n (p) one byte larger;
//!   a chunk of 0 bytes is still a message, so message counts never depend on S. Every chunk of a
//!   ring goes round twice: 2(n−1)·S bytes in all, exactly.
//! - Tree (SST Ember's allreduce): reduce's binomial tree to rank 0 in the first L steps, then
//!   bcast's from rank 0 in the last L; children(r) = the ranks rank r sends to in the bcast.
//! - Scatter + allgather bcasts (van de Geijn; MPICH's for long messages) cut S into n chunks,
//!   chunk c being relative rank c's: binomial scatter's L steps carry each rank its subtree's
//!   chunks, then a ring (n − 1 steps) or recursive-doubling (L steps) allgather in relative
//!   ranks. As in MPICH, a rank counts only its own chunk as held after the scatter, so the
//!   allgather resends chunks a rank already has (all of them to the root).
//! - Bcast/reduce count ranks relative to `root`; the root sends (bcast) or receives (reduce) in
//!   every step. Binomial gather (scatter) is reduce's (bcast's) tree carrying blocks: relative
//!   rank r sends (receives) the blocks of its subtree, r..r + sub(r), once; block c is relative
//!   rank c's. Linear gather and scatter take one step: the root posts its n − 1 receives (sends)
//!   at once and the network serialises them at its link.
//! - Reduce_scatter cuts S into n chunks like the ring allreduce, and rank me ends with chunk me
//!   reduced: it sends every chunk but its own, S − chunk(me) bytes, (n−1)·S in all. Ring: the
//!   ring allreduce's first n − 1 steps, chunks renumbered by one (step s sends chunk me − 1 − s
//!   to me + 1). Pairwise: step k sends chunk me + k to rank me + k and receives chunk me from
//!   rank me − k. Recursive halving (MPICH's for short messages): folded onto p ranks as the
//!   allreduce is (an even folded rank gets only its own chunk back), newrank j holding the
//!   chunks of ranks 2j and 2j + 1 (j < rem) or j + rem; the farthest partner first, each
//!   step sending the half of the held chunks that the partner keeps.
//! - Scan and exscan (Hillis–Steele): step k sends the partial result of ranks me − 2^k + 1..=me
//!   to me + 2^k if it exists and receives from me − 2^k if it exists, so rank r hears from
//!   exactly the ranks r − 2^k ≥ 0; n·L − 2^L + 1 messages in all. Exscan moves the same
//!   messages (each rank keeps its own contribution apart).
//! - Bruck: step k carries the blocks whose offset i in 1..n (destination − source) has bit k set;
//!   blocks keep their offset, so each lands after L steps (n/2 blocks a step when n = 2^L).
//! - Alltoallv: the share to the i-th next rank is ⌊T/(n−1)⌋, +1 for i ≤ T mod (n−1). Receivers
//!   compute what they get from their own `bytes`, so all ranks must pass the same T.
//!
//! [`Algorithm::Auto`] is no algorithm of its own: [`Thresholds::choose`] resolves it when a
//! collective starts, from its kind, S (B, T) and n, by MPICH 3.2's default selection among the
//! algorithms above (docs/workloads.md, Collectives, lists each rule and where exanet lacks
//! MPICH's choice).

/// An MPI collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveKind {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Allgather,
    Alltoall,
    Alltoallv,
    Gather,
    Scatter,
    ReduceScatter,
    Scan,
    Exscan,
}

/// How a collective is expanded into messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    RecursiveDoubling,
    Ring,
    Rabenseifner,
    Binomial,
    Pairwise,
    Bruck,
    Dissemination,
    Linear,
    /// Binomial reduce to rank 0, then binomial bcast (allreduce).
    Tree,
    /// Bcast of long messages (van de Geijn): a binomial scatter of n chunks, then a ring
    /// allgather of them.
    ScatterRingAllgather,
    /// As `ScatterRingAllgather` with a recursive-doubling allgather (n = 2^k).
    ScatterDoublingAllgather,
    /// Reduce_scatter by recursive halving (MPICH's for commutative operations and short
    /// messages), folded onto a power of two as Rabenseifner's allreduce is.
    RecursiveHalving,
    /// Alltoall(v) of medium messages (MPICH's "scattered"): every exchange posted at once, in
    /// blocks of [`SCATTERED_BLOCK`] peers (receive from rank + d, send to rank − d) waited
    /// for one block at a time.
    Scattered,
    /// Chosen per call by message size and rank count ([`Thresholds::choose`]).
    Auto,
}

/// The message sizes and rank counts at which [`Algorithm::Auto`] changes algorithm, with
/// MPICH 3.2's defaults (its MPIR_CVAR_* control variables).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Thresholds {
    /// Allreduce: recursive doubling up to this S, Rabenseifner above
    /// (MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE).
    pub allreduce_short_bytes: u64,
    /// Allgather on a power-of-two count: recursive doubling below this n·B, ring from it
    /// (MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE).
    pub allgather_long_bytes: u64,
    /// Allgather otherwise: Bruck below this n·B, ring from it
    /// (MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE).
    pub allgather_short_bytes: u64,
    /// Alltoall: Bruck up to this B with at least `alltoall_min_ranks` ranks
    /// (MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE).
    pub alltoall_short_bytes: u64,
    /// Alltoall: fewer ranks never use Bruck (8, a constant of MPICH 3.2's alltoall.c).
    pub alltoall_min_ranks: u32,
    /// Alltoall otherwise: scattered up to this B, pairwise above
    /// (MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE).
    pub alltoall_medium_bytes: u64,
    /// Reduce_scatter: pairwise from this S, ring below
    /// (MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE).
    pub reduce_scatter_long_bytes: u64,
    /// Bcast: binomial below this S (MPIR_CVAR_BCAST_SHORT_MSG_SIZE) ...
    pub bcast_short_bytes: u64,
    /// ... or with fewer ranks (MPIR_CVAR_BCAST_MIN_PROCS); scatter + doubling allgather below
    /// `bcast_long_bytes` on 2^k ranks, scatter + ring allgather otherwise
    /// (MPIR_CVAR_BCAST_LONG_MSG_SIZE).
    pub bcast_min_ranks: u32,
    pub bcast_long_bytes: u64,
    /// Reduce: binomial up to this S (or while count < p), reduce_scatter + gather
    /// (rabenseifner) above (MPIR_CVAR_REDUCE_SHORT_MSG_SIZE).
    pub reduce_short_bytes: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            allreduce_short_bytes: 2048,
            allgather_long_bytes: 524_288,
            allgather_short_bytes: 81_920,
            alltoall_short_bytes: 256,
            alltoall_min_ranks: 8,
            alltoall_medium_bytes: 32_768,
            reduce_scatter_long_bytes: 524_288,
            bcast_short_bytes: 12_288,
            bcast_min_ranks: 8,
            bcast_long_bytes: 524_288,
            reduce_short_bytes: 2048,
        }
    }
}

/// Peers per block of the scattered alltoall (MPICH 3.2's MPIR_CVAR_ALLTOALL_THROTTLE).
pub const SCATTERED_BLOCK: u32 = 32;

/// The element MPICH's "count ≥ pof2" condition counts: an 8-byte double.
const REDUCTION_ELEMENT_BYTES: u64 = 8;

impl Thresholds {
    /// The algorithm MPICH 3.2 picks by default for a `kind` of `bytes` (S, B or T) over
    /// `ranks`, among those exanet implements (a built-in, commutative reduction operation).
    pub fn choose(&self, kind: CollectiveKind, bytes: u64, ranks: u32) -> Algorithm {
        use Algorithm as A;
        use CollectiveKind as K;
        match kind {
            // MPICH also keeps recursive doubling while count < pof2: Rabenseifner would leave
            // some of its pof2 chunks empty.
            K::Allreduce => {
                let count = bytes / REDUCTION_ELEMENT_BYTES;
                if bytes <= self.allreduce_short_bytes || count < u64::from(pof2(ranks.max(1))) {
                    A::RecursiveDoubling
                } else {
                    A::Rabenseifner
                }
            }
            K::Allgather => {
                let total = bytes.saturating_mul(u64::from(ranks));
                if ranks.is_power_of_two() && total < self.allgather_long_bytes {
                    A::RecursiveDoubling
                } else if total < self.allgather_short_bytes {
                    A::Bruck
                } else {
                    A::Ring
                }
            }
            K::Alltoall => {
                if bytes <= self.alltoall_short_bytes && ranks >= self.alltoall_min_ranks {
                    A::Bruck
                } else if bytes <= self.alltoall_medium_bytes {
                    A::Scattered
                } else {
                    A::Pairwise
                }
            }
            // MPICH 3.2's alltoallv posts every exchange, throttled, whatever the sizes.
            K::Alltoallv => A::Scattered,
            K::Bcast => {
                if bytes < self.bcast_short_bytes || ranks < self.bcast_min_ranks {
                    A::Binomial
                } else if bytes < self.bcast_long_bytes && ranks.is_power_of_two() {
                    A::ScatterDoublingAllgather
                } else {
                    A::ScatterRingAllgather
                }
            }
            K::ReduceScatter => {
                if bytes < self.reduce_scatter_long_bytes {
                    A::RecursiveHalving
                } else {
                    A::Pairwise
                }
            }
            K::Reduce => {
                let count = bytes / REDUCTION_ELEMENT_BYTES;
                if bytes > self.reduce_short_bytes && count >= u64::from(pof2(ranks.max(1))) {
                    A::Rabenseifner
                } else {
                    A::Binomial
                }
            }
            _ => kind.default_algorithm(),
        }
    }
}

/// One message of a step: to (in sends) or from (in receives) `peer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transfer {
    pub peer: u32,
    pub bytes: u64,
}

/// A collective as one rank sees it.
#[derive(Debug, Clone, Copy)]
pub struct Collective {
    pub kind: CollectiveKind,
    pub algorithm: Algorithm,
    /// Ranks in the communicator, numbered 0..ranks.
    pub ranks: u32,
    /// This rank.
    pub me: u32,
    /// Source of a bcast or scatter, destination of a reduce or gather; ignored by the others.
    pub root: u32,
    /// S, B or T of the module table, by kind.
    pub bytes: u64,
}

impl CollectiveKind {
    /// The name in configurations.
    pub fn name(self) -> &'static str {
        match self {
            Self::Barrier => "barrier",
            Self::Bcast => "bcast",
            Self::Reduce => "reduce",
            Self::Allreduce => "allreduce",
            Self::Allgather => "allgather",
            Self::Alltoall => "alltoall",
            Self::Alltoallv => "alltoallv",
            Self::Gather => "gather",
            Self::Scatter => "scatter",
            Self::ReduceScatter => "reduce_scatter",
            Self::Scan => "scan",
            Self::Exscan => "exscan",
        }
    }

    /// Whether the collective has a root (a rank of the communicator).
    pub fn rooted(self) -> bool {
        matches!(
            self,
            Self::Bcast | Self::Reduce | Self::Gather | Self::Scatter
        )
    }

    /// MPICH's usual choice for mid-sized messages.
    pub fn default_algorithm(self) -> Algorithm {
        self.algorithms()[0]
    }

    /// The algorithms implemented for this kind, the default first.
    pub fn algorithms(self) -> &'static [Algorithm] {
        use Algorithm as A;
        match self {
            Self::Barrier => &[A::Dissemination],
            Self::Bcast => &[
                A::Binomial,
                A::ScatterRingAllgather,
                A::ScatterDoublingAllgather,
            ],
            Self::Reduce => &[A::Binomial, A::Rabenseifner],
            Self::Allreduce => &[A::RecursiveDoubling, A::Ring, A::Rabenseifner, A::Tree],
            Self::Allgather => &[A::Ring, A::RecursiveDoubling, A::Bruck],
            Self::Alltoall | Self::Alltoallv => &[A::Pairwise, A::Bruck, A::Scattered],
            Self::Gather | Self::Scatter => &[A::Binomial, A::Linear],
            Self::ReduceScatter => &[A::Ring, A::Pairwise, A::RecursiveHalving],
            Self::Scan | Self::Exscan => &[A::RecursiveDoubling],
        }
    }
}

impl Algorithm {
    pub const ALL: [Algorithm; 14] = [
        Algorithm::RecursiveDoubling,
        Algorithm::Ring,
        Algorithm::Rabenseifner,
        Algorithm::Binomial,
        Algorithm::Pairwise,
        Algorithm::Bruck,
        Algorithm::Dissemination,
        Algorithm::Linear,
        Algorithm::Tree,
        Algorithm::ScatterRingAllgather,
        Algorithm::ScatterDoublingAllgather,
        Algorithm::RecursiveHalving,
        Algorithm::Scattered,
        Algorithm::Auto,
    ];

    /// The name in configurations.
    pub fn name(self) -> &'static str {
        match self {
            Self::RecursiveDoubling => "recursive_doubling",
            Self::Ring => "ring",
            Self::Rabenseifner => "rabenseifner",
            Self::Binomial => "binomial",
            Self::Pairwise => "pairwise",
            Self::Bruck => "bruck",
            Self::Dissemination => "dissemination",
            Self::Linear => "linear",
            Self::Tree => "tree",
            Self::ScatterRingAllgather => "scatter_ring_allgather",
            Self::ScatterDoublingAllgather => "scatter_doubling_allgather",
            Self::RecursiveHalving => "recursive_halving",
            Self::Scattered => "scattered",
            Self::Auto => "auto",
        }
    }
}

/// Direction of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Send,
    Recv,
}

/// The chunks of the buffer that a move carries; see [`Collective::chunking`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Blocks {
    /// Chunks lo..hi.
    Range(u32, u32),
    /// Bruck step k: the chunks c whose offset c + 1 has bit k set.
    Bit(u32),
    /// `count` chunks from `lo` on, wrapping past the last to chunk 0 (Bruck's allgather).
    Wrapped(u32, u32),
}

impl Collective {
    /// Err(text saying what is valid) when the algorithm does not implement this kind, or needs
    /// a power-of-two count (recursive doubling allgather).
    pub fn check(kind: CollectiveKind, algorithm: Algorithm, ranks: u32) -> Result<(), String> {
        let valid = kind.algorithms();
        if ranks == 0 {
            return Err(format!("{} needs at least one rank", kind.name()));
        }
        if !valid.contains(&algorithm) {
            let names: Vec<_> = valid.iter().map(|a| a.name()).collect();
            return Err(format!(
                "{} does not implement algorithm {}; valid: {}",
                kind.name(),
                algorithm.name(),
                names.join(", ")
            ));
        }
        if kind == CollectiveKind::Allgather
            && algorithm == Algorithm::RecursiveDoubling
            && !ranks.is_power_of_two()
        {
            return Err(format!(
                "recursive_doubling allgather needs a power-of-two number of ranks, not {ranks}; \
                 use ring"
            ));
        }
        if algorithm == Algorithm::ScatterDoublingAllgather && !ranks.is_power_of_two() {
            return Err(format!(
                "scatter_doubling_allgather bcast needs a power-of-two number of ranks, not \
                 {ranks}; use scatter_ring_allgather"
            ));
        }
        Ok(())
    }

    /// Number of steps this rank goes through, the same for all ranks; 0 for a single rank.
    ///
    /// # Panics
    /// If [`Collective::check`] refuses the collective.
    pub fn steps(&self) -> u32 {
        use Algorithm as A;
        if let Err(e) = Self::check(self.kind, self.algorithm, self.ranks) {
            panic!("{e}");
        }
        let n = self.ranks;
        let (lg, fold) = (n.ilog2(), u32::from(!n.is_power_of_two()));
        match (self.kind, self.algorithm) {
            (CollectiveKind::Allreduce, A::Ring) => 2 * (n - 1),
            (_, A::Ring | A::Pairwise) => n - 1,
            (_, A::Linear) => u32::from(n > 1),
            (CollectiveKind::Allreduce, A::RecursiveDoubling) => lg + 2 * fold,
            (_, A::Rabenseifner) => 2 * lg + 2 * fold,
            (_, A::RecursiveHalving) => lg + 2 * fold,
            (_, A::Tree) => 2 * ceil_log2(n),
            (_, A::ScatterRingAllgather) => ceil_log2(n) + n - 1,
            (_, A::ScatterDoublingAllgather) => 2 * ceil_log2(n),
            (_, A::Scattered) if n > 1 => n.div_ceil(SCATTERED_BLOCK),
            _ => ceil_log2(n),
        }
    }

    /// Fills `sends` and `recvs` (cleared first) with step `s`'s transfers for rank `me`.
    pub fn step(&self, s: u32, sends: &mut Vec<Transfer>, recvs: &mut Vec<Transfer>) {
        sends.clear();
        recvs.clear();
        self.moves(s, |side, peer, blocks| {
            let t = Transfer {
                peer,
                bytes: self.volume(blocks),
            };
            match side {
                Side::Send => sends.push(t),
                Side::Recv => recvs.push(t),
            }
        });
    }

    /// Bytes of `blocks`.
    fn volume(&self, blocks: Blocks) -> u64 {
        let (q, r) = self.chunking();
        match blocks {
            Blocks::Range(lo, hi) => {
                u64::from(hi - lo) * q + u64::from(r.min(hi).saturating_sub(lo))
            }
            Blocks::Bit(k) => q * ones(self.ranks - 1, k) + ones(r, k),
            Blocks::Wrapped(lo, count) => {
                let n = self.ranks;
                let end = lo + count;
                self.volume(Blocks::Range(lo, end.min(n)))
                    + self.volume(Blocks::Range(0, end.saturating_sub(n)))
            }
        }
    }

    /// (q, r): chunk c of the buffer has q + 1 bytes if c < r, else q.
    fn chunking(&self) -> (u64, u32) {
        let split = |m: u32| {
            (
                self.bytes / u64::from(m),
                (self.bytes % u64::from(m)) as u32,
            )
        };
        match (self.kind, self.algorithm) {
            (CollectiveKind::Barrier, _) => (0, 0),
            (CollectiveKind::Allreduce, Algorithm::Ring) | (CollectiveKind::ReduceScatter, _) => {
                split(self.ranks)
            }
            (CollectiveKind::Allreduce | CollectiveKind::Reduce, Algorithm::Rabenseifner) => {
                split(pof2(self.ranks))
            }
            (
                CollectiveKind::Bcast,
                Algorithm::ScatterRingAllgather | Algorithm::ScatterDoublingAllgather,
            ) => split(self.ranks),
            (CollectiveKind::Alltoallv, _) => split(self.ranks - 1),
            _ => (self.bytes, 0),
        }
    }

    /// Calls `f` for each of step `s`'s moves of rank `me`.
    fn moves(&self, s: u32, mut f: impl FnMut(Side, u32, Blocks)) {
        use Algorithm as A;
        use CollectiveKind as K;
        let (n, me) = (self.ranks, self.me);
        let right = |d: u32| (me + d) % n;
        let left = |d: u32| (me + n - d) % n;
        let one = |c: u32| Blocks::Range(c, c + 1);
        let mut exchange = |to, sent, from, received| {
            f(Side::Send, to, sent);
            f(Side::Recv, from, received);
        };
        match (self.kind, self.algorithm) {
            (K::Allreduce, A::RecursiveDoubling | A::Rabenseifner)
            | (K::Reduce, A::Rabenseifner)
            | (K::ReduceScatter, A::RecursiveHalving) => self.folded(s, f),
            (K::Allreduce, A::Tree) => {
                let lg = ceil_log2(n);
                let (kind, t) = if s < lg {
                    (K::Reduce, s)
                } else {
                    (K::Bcast, s - lg)
                };
                let half = Collective {
                    kind,
                    algorithm: A::Binomial,
                    root: 0,
                    ..*self
                };
                half.moves(t, f);
            }
            (K::Bcast, A::ScatterRingAllgather | A::ScatterDoublingAllgather) => {
                // In ranks relative to the root, chunk c being relative rank c's: the binomial
                // scatter's L steps, then the allgather's. As in MPICH, each rank counts only
                // its own chunk as held after the scatter, so the allgather sends a rank some
                // chunks it already has (the root all of them).
                let lg = ceil_log2(n);
                let (kind, algorithm, t) = match (s < lg, self.algorithm) {
                    (true, _) => (K::Scatter, A::Binomial, s),
                    (false, A::ScatterRingAllgather) => (K::Allgather, A::Ring, s - lg),
                    (false, _) => (K::Allgather, A::RecursiveDoubling, s - lg),
                };
                let relative = Collective {
                    kind,
                    algorithm,
                    me: (me + n - self.root) % n,
                    root: 0,
                    ..*self
                };
                // A trait object: a closure type per call would instantiate `moves` forever.
                let mut from_root = |side, peer, blocks| f(side, (peer + self.root) % n, blocks);
                relative.moves(t, &mut from_root as &mut dyn FnMut(Side, u32, Blocks));
            }
            (K::Allreduce | K::ReduceScatter, A::Ring) => {
                // Step t of a reduce-scatter sends chunk me + o − t: the allreduce's (o = 0)
                // leaves chunk me + 1 complete at me, which its allgather (o = 1) sends first; a
                // reduce_scatter's starts one chunk lower so rank me ends with chunk me.
                let (t, o) = match self.kind {
                    K::ReduceScatter => (s + 1, 0),
                    _ if s < n - 1 => (s, 0),
                    _ => (s - (n - 1), 1),
                };
                let c = (me + o + n - t) % n;
                exchange(right(1), one(c), left(1), one((c + n - 1) % n));
            }
            (K::ReduceScatter, A::Pairwise) => {
                exchange(right(s + 1), one(right(s + 1)), left(s + 1), one(me));
            }
            (K::Bcast | K::Reduce | K::Gather | K::Scatter, A::Binomial) => {
                // Bcast and scatter halve the distance each step; reduce and gather are their
                // mirror images in time. Gather and scatter move the blocks of the subtree of
                // the lower-distance end, relative ranks r..r + m.
                let down = matches!(self.kind, K::Bcast | K::Scatter);
                let m = if down {
                    1 << (ceil_log2(n) - 1 - s)
                } else {
                    1 << s
                };
                let rel = (me + n - self.root) % n;
                let abs = |r: u32| (r + self.root) % n;
                let blocks = |r: u32| match self.kind {
                    K::Gather | K::Scatter => Blocks::Range(r, (r + m).min(n)),
                    _ => one(0),
                };
                let (child, parent) = if down {
                    (Side::Recv, Side::Send)
                } else {
                    (Side::Send, Side::Recv)
                };
                let low = rel & (2 * m - 1);
                if low == m {
                    f(child, abs(rel - m), blocks(rel));
                } else if low == 0 && rel + m < n {
                    f(parent, abs(rel + m), blocks(rel + m));
                }
            }
            (K::Gather | K::Scatter, A::Linear) => {
                let rel = (me + n - self.root) % n;
                let (leaf, root) = if self.kind == K::Gather {
                    (Side::Send, Side::Recv)
                } else {
                    (Side::Recv, Side::Send)
                };
                if rel != 0 {
                    f(leaf, self.root, one(rel));
                } else {
                    for r in 1..n {
                        f(root, (r + self.root) % n, one(r));
                    }
                }
            }
            (K::Allgather, A::Ring) => {
                let b = (me + n - s) % n;
                exchange(right(1), one(b), left(1), one((b + n - 1) % n));
            }
            (K::Allgather, A::Bruck) => {
                // Before step s a rank holds the 2^s blocks from its own on; it sends them (no
                // more than the n − 2^s still missing below it) to the rank 2^s below.
                let count = (1 << s).min(n - (1 << s));
                exchange(
                    left(1 << s),
                    Blocks::Wrapped(me, count),
                    right(1 << s),
                    Blocks::Wrapped(right(1 << s), count),
                );
            }
            (K::Allgather, A::RecursiveDoubling) if n.is_power_of_two() => {
                // After step s a rank holds the blocks of its aligned group of 2^(s+1) ranks.
                let peer = me ^ (1 << s);
                let group = |r: u32| Blocks::Range(r >> s << s, (r >> s << s) + (1 << s));
                exchange(peer, group(me), peer, group(peer));
            }
            (K::Alltoall | K::Alltoallv, A::Pairwise) => {
                exchange(right(s + 1), one(s), left(s + 1), one(s));
            }
            (K::Alltoall | K::Alltoallv, A::Scattered) => {
                // Offsets d of this block; d = 0 is the rank's own block, copied locally. To
                // rank − d goes the block for the (n − d)-th next rank; from rank + d comes
                // the block for the rank d before it.
                let first = s * SCATTERED_BLOCK;
                for d in first.max(1)..(first + SCATTERED_BLOCK).min(n) {
                    f(Side::Send, left(d), one(n - d - 1));
                    f(Side::Recv, right(d), one(n - d - 1));
                }
            }
            (K::Alltoall | K::Alltoallv, A::Bruck) => {
                exchange(right(1 << s), Blocks::Bit(s), left(1 << s), Blocks::Bit(s));
            }
            (K::Barrier, A::Dissemination) => exchange(right(1 << s), one(0), left(1 << s), one(0)),
            (K::Scan | K::Exscan, A::RecursiveDoubling) => {
                let d = 1 << s;
                if me + d < n {
                    f(Side::Send, me + d, one(0));
                }
                if me >= d {
                    f(Side::Recv, me - d, one(0));
                }
            }
            _ => panic!("{self:?} is not implemented; see Collective::check"),
        }
    }

    /// Recursive doubling or Rabenseifner among p ranks, after MPICH's folding of the first
    /// 2·rem ranks onto their odd members (renumbered newrank = rank / 2; the others rank − rem).
    fn folded(&self, s: u32, mut f: impl FnMut(Side, u32, Blocks)) {
        let (n, me) = (self.ranks, self.me);
        let p = pof2(n);
        let (rem, lg) = (n - p, p.ilog2());
        let fold = u32::from(rem > 0);
        let rabenseifner = self.algorithm == Algorithm::Rabenseifner;
        let halving = self.algorithm == Algorithm::RecursiveHalving;
        let inner = if rabenseifner { 2 * lg } else { lg };
        let whole = Blocks::Range(
            0,
            match self.algorithm {
                Algorithm::Rabenseifner => p,
                Algorithm::RecursiveHalving => n,
                _ => 1,
            },
        );
        let reduce = self.kind == CollectiveKind::Reduce;
        // A reduce's root stands in for itself, or its odd partner when it is folded out.
        let (root, newroot) = (self.root, self.root.checked_sub(2 * rem));
        let newroot = newroot.map_or(root / 2, |d| d + rem);
        if reduce && fold == 1 && s > inner {
            // The result goes back only to a root that was folded out.
            if root < 2 * rem && root % 2 == 0 {
                if me == root + 1 {
                    f(Side::Send, root, whole);
                } else if me == root {
                    f(Side::Recv, root + 1, whole);
                }
            }
            return;
        }
        if fold == 1 && (s == 0 || s > inner) {
            if me < 2 * rem {
                // Even ranks give their buffer away first and get the result back last (a
                // reduce_scatter only its own chunk).
                let even = me % 2 == 0;
                let side = if even == (s == 0) {
                    Side::Send
                } else {
                    Side::Recv
                };
                let back = Blocks::Range(me & !1, (me & !1) + 1);
                f(side, me ^ 1, if halving && s > 0 { back } else { whole });
            }
            return;
        }
        let newrank = match me.checked_sub(2 * rem) {
            Some(d) => d + rem,
            None if me % 2 == 1 => me / 2,
            None => return,
        };
        let rank = |nr: u32| if nr < rem { 2 * nr + 1 } else { nr + rem };
        let k = s - fold;
        if halving {
            // Farthest partner first, as MPICH: newrank nr holds the chunks of the aligned
            // newranks around it, keeps the half holding its own and sends the other. Newrank
            // j's chunks are ranks 2j and 2j + 1 (j < rem) or j + rem: contiguous.
            let bit = lg - 1 - k;
            let partner = newrank ^ (1 << bit);
            let first = |j: u32| if j < rem { 2 * j } else { j + rem };
            let half = |j: u32| {
                let lo = j >> bit << bit;
                Blocks::Range(first(lo), first(lo + (1 << bit)))
            };
            f(Side::Send, rank(partner), half(partner));
            f(Side::Recv, rank(partner), half(newrank));
            return;
        }
        if !rabenseifner {
            let peer = rank(newrank ^ (1 << k));
            f(Side::Send, peer, whole);
            f(Side::Recv, peer, whole);
            return;
        }
        // Recursive halving over bits 0..lg (nearest partner first), then doubling back down:
        // among all (allreduce), or toward the root, each pair's member off the root's side
        // handing its chunks over and dropping out (reduce: a binomial gather).
        let (bit, halving) = if k < lg {
            (k, true)
        } else {
            (2 * lg - 1 - k, false)
        };
        let partner = newrank ^ (1 << bit);
        let (mine, theirs) = (window(newrank, bit + 1, p), window(partner, bit + 1, p));
        if reduce && !halving {
            let apart = newrank ^ newroot;
            if apart >> (bit + 1) == 0 {
                if apart >> bit & 1 == 1 {
                    f(Side::Send, rank(partner), mine);
                } else {
                    f(Side::Recv, rank(partner), theirs);
                }
            }
            return;
        }
        let (sent, received) = if halving {
            (theirs, mine)
        } else {
            (mine, theirs)
        };
        f(Side::Send, rank(partner), sent);
        f(Side::Recv, rank(partner), received);
    }
}

/// Chunks that newrank `nr` of `p` owns after `k` halving steps: bit j of `nr` picks the upper
/// half at step j.
fn window(nr: u32, k: u32, p: u32) -> Blocks {
    let lo = (0..k)
        .filter(|j| nr >> j & 1 == 1)
        .map(|j| p >> (j + 1))
        .sum();
    Blocks::Range(lo, lo + (p >> k))
}

/// How many of 0..=m have bit k set.
fn ones(m: u32, k: u32) -> u64 {
    let (m, half) = (u64::from(m) + 1, 1u64 << k);
    m / (2 * half) * half + (m % (2 * half)).saturating_sub(half)
}

/// The largest power of two ≤ n (n ≥ 1).
fn pof2(n: u32) -> u32 {
    1 << n.ilog2()
}

/// ⌈log2 n⌉ (n ≥ 1).
fn ceil_log2(n: u32) -> u32 {
    n.next_power_of_two().ilog2()
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;
    use Algorithm as A;
    use CollectiveKind as K;

    const KINDS: [K; 12] = [
        K::Barrier,
        K::Bcast,
        K::Reduce,
        K::Allreduce,
        K::Allgather,
        K::Alltoall,
        K::Alltoallv,
        K::Gather,
        K::Scatter,
        K::ReduceScatter,
        K::Scan,
        K::Exscan,
    ];
    const ALGORITHMS: [A; 14] = Algorithm::ALL;

    fn sizes() -> impl Iterator<Item = u32> {
        (1..=33).chain([64, 100])
    }

    /// Every supported (kind, algorithm) for n ranks.
    fn combos(n: u32) -> impl Iterator<Item = (K, A)> {
        KINDS
            .into_iter()
            .flat_map(|k| k.algorithms().iter().map(move |&a| (k, a)))
            .filter(move |&(k, a)| Collective::check(k, a, n).is_ok())
    }

    fn coll(kind: K, algorithm: A, ranks: u32, me: u32, root: u32, bytes: u64) -> Collective {
        Collective {
            kind,
            algorithm,
            ranks,
            me,
            root,
            bytes,
        }
    }

    /// (messages, bytes) that rank `c.me` sends over the whole collective.
    fn sent(c: Collective) -> (u64, u64) {
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        (0..c.steps()).fold((0, 0), |(m, b), s| {
            c.step(s, &mut sends, &mut recvs);
            (
                m + sends.len() as u64,
                b + sends.iter().map(|t| t.bytes).sum::<u64>(),
            )
        })
    }

    /// (messages, bytes) sent by all ranks.
    fn total(kind: K, algorithm: A, n: u32, root: u32, bytes: u64) -> (u64, u64) {
        (0..n)
            .map(|me| sent(coll(kind, algorithm, n, me, root, bytes)))
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// All ranks' moves of step `s`, keyed by (from, to), after checking that every send has
    /// its receive with the same blocks.
    fn all_moves(proto: Collective, s: u32) -> HashMap<(u32, u32), Blocks> {
        let (mut sends, mut recvs) = (HashMap::new(), HashMap::new());
        for me in 0..proto.ranks {
            Collective { me, ..proto }.moves(s, |side, peer, b| {
                let fresh = match side {
                    Side::Send => sends.insert((me, peer), b),
                    Side::Recv => recvs.insert((peer, me), b),
                }
                .is_none();
                assert!(fresh, "{proto:?} step {s}: two moves {me} {side:?} {peer}");
            });
        }
        assert_eq!(sends, recvs, "{proto:?} step {s}");
        sends
    }

    fn chunks(b: Blocks, n: u32) -> Vec<usize> {
        match b {
            Blocks::Range(lo, hi) => (lo as usize..hi as usize).collect(),
            Blocks::Wrapped(lo, count) => (lo..lo + count).map(|c| (c % n) as usize).collect(),
            Blocks::Bit(k) => (0..n as usize - 1)
                .filter(|c| (c + 1) >> k & 1 == 1)
                .collect(),
        }
    }

    /// Whether step `s` combines what it receives with what the receiver holds.
    fn reducing(c: &Collective, s: u32) -> bool {
        let n = c.ranks;
        let inner_end = n.ilog2() + u32::from(!n.is_power_of_two());
        match (c.kind, c.algorithm) {
            (K::Reduce, A::Rabenseifner) => s < inner_end,
            (K::Reduce, _) => true,
            (K::Allreduce, A::Ring) => s < n - 1,
            (K::Allreduce, A::Tree) => s < ceil_log2(n),
            (K::Allreduce, _) | (K::ReduceScatter, A::RecursiveHalving) => s < inner_end,
            (K::ReduceScatter, _) => true,
            _ => false,
        }
    }

    #[test]
    fn sends_match_receives_in_every_step() {
        let (mut sends, mut recvs) = (vec![Transfer { peer: 9, bytes: 9 }], Vec::new());
        for n in sizes() {
            for (kind, algorithm) in combos(n) {
                for bytes in [0, 1000, 12_347] {
                    let ranks: Vec<_> = (0..n)
                        .map(|me| coll(kind, algorithm, n, me, n / 3, bytes))
                        .collect();
                    let steps = ranks[0].steps();
                    assert!(ranks.iter().all(|c| c.steps() == steps));
                    assert_eq!(n == 1, steps == 0, "{kind:?}/{algorithm:?} n={n}");
                    for s in 0..steps {
                        let (mut out, mut ins) = (Vec::new(), Vec::new());
                        for c in &ranks {
                            c.step(s, &mut sends, &mut recvs);
                            for t in sends.iter().chain(&recvs) {
                                assert!(t.peer < n && t.peer != c.me, "{c:?} step {s}: {t:?}");
                            }
                            out.extend(sends.iter().map(|t| (c.me, t.peer, t.bytes)));
                            ins.extend(recvs.iter().map(|t| (t.peer, c.me, t.bytes)));
                        }
                        out.sort_unstable();
                        ins.sort_unstable();
                        assert_eq!(out, ins, "{kind:?}/{algorithm:?} n={n} S={bytes} step {s}");
                    }
                }
            }
        }
    }

    #[test]
    fn message_counts_and_volumes_follow_the_table() {
        // Rabenseifner reduce (reduce_scatter + binomial gather), chunks of S/p: on 8 ranks
        // the halving's 8 x 3 messages of 4, 2 and 1 chunks, then the gather's 4, 2 and 1
        // senders of 1, 2 and 4 chunks. On 12 to an even folded root: 4 folds of the whole
        // buffer first and its odd partner's whole result last.
        assert_eq!(
            total(K::Reduce, A::Rabenseifner, 8, 3, 8000),
            (24 + 7, 56_000 + 12_000)
        );
        assert_eq!(
            total(K::Reduce, A::Rabenseifner, 12, 2, 12_000),
            (4 + 24 + 7 + 1, 48_000 + 84_000 + 18_000 + 12_000)
        );
        assert_eq!(
            total(K::Reduce, A::Rabenseifner, 12, 9, 12_000),
            (4 + 24 + 7, 48_000 + 84_000 + 18_000)
        );
        // Recursive-halving reduce_scatter, chunks of 1000: on 8 ranks 4 + 2 + 1 chunks a rank
        // in 3 messages; on 12 (p = 8, rem = 4) 4 folds of all 12 chunks, halving steps of 48,
        // 24 and 12 chunks (newranks below 4 hold 2 ranks' chunks), and 4 chunks sent back.
        assert_eq!(
            total(K::ReduceScatter, A::RecursiveHalving, 8, 0, 8000),
            (24, 56_000)
        );
        assert_eq!(
            total(K::ReduceScatter, A::RecursiveHalving, 12, 0, 12_000),
            (4 + 24 + 4, 48_000 + 84_000 + 4_000)
        );
        // Bruck allgather of B = 100 on 12 ranks: steps of 1, 2, 4 and 4 blocks (12 − 8), 4
        // messages a rank, B(n − 1) bytes.
        assert_eq!(
            total(K::Allgather, A::Bruck, 12, 0, 100),
            (12 * 4, 12 * 11 * 100)
        );
        let mut sends = Vec::new();
        coll(K::Allgather, A::Bruck, 12, 5, 0, 100).step(3, &mut sends, &mut Vec::new());
        assert_eq!(
            sends,
            vec![Transfer {
                peer: 9,
                bytes: 400
            }]
        );
        // Scatter + allgather bcasts of S = 8000 on 8 ranks, chunks of 1000: the scatter sends
        // each relative rank r its subtree's sub(r) chunks (1, 2, 1, 4, 1, 2, 1: 12 in 7
        // messages); the ring allgather 8 x 7 chunks, one per message, the doubling one the
        // same chunks in 8 x 3 messages. Whatever the root.
        for root in [0, 5] {
            assert_eq!(
                total(K::Bcast, A::ScatterRingAllgather, 8, root, 8000),
                (7 + 56, 12_000 + 56_000)
            );
            assert_eq!(
                total(K::Bcast, A::ScatterDoublingAllgather, 8, root, 8000),
                (7 + 24, 12_000 + 56_000)
            );
        }
        // Allreduce.
        assert_eq!(
            total(K::Allreduce, A::RecursiveDoubling, 16, 0, 1000),
            (64, 64_000)
        );
        // p = 8, rem = 4: 8·3 exchanges, 4 folds, 4 unfolds.
        assert_eq!(
            total(K::Allreduce, A::RecursiveDoubling, 12, 0, 1000),
            (32, 32_000)
        );
        assert_eq!(
            total(K::Allreduce, A::Ring, 8, 0, 8000),
            (112, 2 * 7 * 8000)
        );
        assert_eq!(
            total(K::Allreduce, A::Ring, 8, 0, 8003),
            (112, 2 * 7 * 8003)
        );
        for me in 0..16 {
            let c = coll(K::Allreduce, A::Rabenseifner, 16, me, 0, 1600);
            assert_eq!(c.steps(), 8);
            assert_eq!(sent(c), (8, 2 * 1600 * 15 / 16));
        }
        assert_eq!(
            total(K::Allreduce, A::Rabenseifner, 12, 0, 1600),
            (8 * 6 + 8, 8 * 2 * 1600 * 7 / 8 + 8 * 1600)
        );
        let big = coll(K::Allreduce, A::Ring, 4096, 4095, 0, 4096 * 3);
        assert_eq!((big.steps(), sent(big)), (8190, (8190, 8190 * 3)));

        for n in sizes() {
            let n64 = u64::from(n);
            let lg = (n as f64).log2().ceil() as u64;
            for root in [0, n - 1] {
                for kind in [K::Bcast, K::Reduce] {
                    assert_eq!(
                        total(kind, A::Binomial, n, root, 10),
                        (n64 - 1, 10 * (n64 - 1))
                    );
                }
                let root_sends = sent(coll(K::Bcast, A::Binomial, n, root, root, 10));
                assert_eq!(root_sends, (lg, 10 * lg));
            }
            assert_eq!(total(K::Barrier, A::Dissemination, n, 0, 5), (n64 * lg, 0));
            assert_eq!(
                total(K::Allgather, A::Ring, n, 0, 5),
                (n64 * (n64 - 1), 5 * n64 * (n64 - 1))
            );
            assert_eq!(
                total(K::Alltoall, A::Pairwise, n, 0, 7),
                (n64 * (n64 - 1), 7 * n64 * (n64 - 1))
            );
            let popcounts: u64 = (0..n).map(|i| u64::from(i.count_ones())).sum();
            for me in [0, n - 1] {
                assert_eq!(
                    sent(coll(K::Alltoall, A::Bruck, n, me, 0, 3)),
                    (lg, 3 * popcounts)
                );
                assert_eq!(
                    sent(coll(K::Alltoallv, A::Pairwise, n, me, 0, 1000)).1,
                    if n > 1 { 1000 } else { 0 }
                );
            }
        }
        let rd = coll(K::Allgather, A::RecursiveDoubling, 16, 5, 0, 10);
        assert_eq!(sent(rd), (4, 150));
        assert_eq!(total(K::Alltoall, A::Bruck, 8, 0, 100), (24, 9600));
        assert_eq!(total(K::Alltoall, A::Bruck, 5, 0, 10), (15, 250));
        // T = 10 over 4 peers: shares 3, 3, 2, 2; steps carry offsets {1, 3}, {2, 3}, {4}.
        assert_eq!(total(K::Alltoallv, A::Bruck, 5, 0, 10), (15, 5 * 12));

        // Scattered: the same exchanges as pairwise, 32 peers per step (MPICH's throttle).
        for n in [2u32, 31, 32, 33, 70] {
            let n64 = u64::from(n);
            assert_eq!(
                total(K::Alltoall, A::Scattered, n, 0, 7),
                (n64 * (n64 - 1), 7 * n64 * (n64 - 1))
            );
            let c = coll(K::Alltoall, A::Scattered, n, 5 % n, 0, 7);
            assert_eq!(c.steps(), n.div_ceil(32));
        }
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        let c = coll(K::Alltoall, A::Scattered, 70, 3, 0, 7);
        let per_step: Vec<usize> = (0..3)
            .map(|s| {
                c.step(s, &mut sends, &mut recvs);
                assert_eq!(sends.len(), recvs.len());
                sends.len()
            })
            .collect();
        // Offsets 1..31 (0 is the rank's own block), 32..63, 64..69.
        assert_eq!(per_step, [31, 32, 6]);
        c.step(0, &mut sends, &mut recvs);
        assert_eq!((sends[0].peer, recvs[0].peer), (2, 4));
        // Alltoallv: every peer its share of T, as pairwise gives it.
        assert_eq!(
            sent(coll(K::Alltoallv, A::Scattered, 7, 2, 0, 1000)),
            sent(coll(K::Alltoallv, A::Pairwise, 7, 2, 0, 1000))
        );

        // Alltoallv pairwise, T = 1000 over 6 peers: the next 4 ranks get 167, the last 2 get 166.
        let c = coll(K::Alltoallv, A::Pairwise, 7, 2, 0, 1000);
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        let mut got = Vec::new();
        for s in 0..c.steps() {
            c.step(s, &mut sends, &mut recvs);
            assert_eq!(recvs.len(), 1);
            got.extend(sends.iter().map(|t| (t.peer, t.bytes)));
        }
        assert_eq!(
            got,
            [(3, 167), (4, 167), (5, 167), (6, 167), (0, 166), (1, 166)]
        );
    }

    /// Every message of the collective: (step, from, to, bytes), sorted.
    fn messages(proto: Collective) -> Vec<(u32, u32, u32, u64)> {
        let (mut sends, mut recvs) = (Vec::new(), Vec::new());
        let mut all = Vec::new();
        for me in 0..proto.ranks {
            let c = Collective { me, ..proto };
            for s in 0..c.steps() {
                c.step(s, &mut sends, &mut recvs);
                all.extend(sends.iter().map(|t| (s, me, t.peer, t.bytes)));
            }
        }
        all.sort_unstable();
        all
    }

    /// The binomial subtree size of relative rank r ≥ 1 among n.
    fn subtree(r: u32, n: u32) -> u64 {
        u64::from((1 << r.trailing_zeros()).min(n - r))
    }

    #[test]
    fn gather_and_scatter_move_each_block_once() {
        let b = 100;
        for n in sizes() {
            let (n64, lg) = (u64::from(n), u64::from(ceil_log2(n)));
            for root in [0, n / 3, n - 1] {
                let rel = |r: u32| (r + n - root) % n;
                for kind in [K::Gather, K::Scatter] {
                    let all = messages(coll(kind, A::Binomial, n, 0, root, b));
                    assert_eq!(all.len() as u64, n64 - 1, "{kind:?} n={n}");
                    // Every non-root sends (gather) or receives (scatter) its subtree once.
                    let mut leaves: Vec<_> = all
                        .iter()
                        .map(|&(_, from, to, bytes)| {
                            let leaf = if kind == K::Gather { from } else { to };
                            assert_eq!(bytes, b * subtree(rel(leaf), n), "{kind:?} n={n}");
                            leaf
                        })
                        .collect();
                    leaves.sort_unstable();
                    let others: Vec<_> = (0..n).filter(|&r| r != root).collect();
                    assert_eq!(leaves, others, "{kind:?} n={n} root={root}");
                    // The root gets (gives) (n − 1)·B over L messages, one a step.
                    let at_root = all.iter().filter(|&&(_, from, to, _)| {
                        root == if kind == K::Gather { to } else { from }
                    });
                    let (count, bytes) = at_root.fold((0, 0), |(m, v), t| (m + 1, v + t.3));
                    assert_eq!((count, bytes), (lg, (n64 - 1) * b), "{kind:?} n={n}");

                    let linear = messages(coll(kind, A::Linear, n, 0, root, b));
                    let want: Vec<_> = others
                        .iter()
                        .map(|&r| match kind {
                            K::Gather => (0, r, root, b),
                            _ => (0, root, r, b),
                        })
                        .collect();
                    let mut got = linear.clone();
                    got.sort_unstable_by_key(|&(_, from, to, _)| from + to);
                    assert_eq!(got, want, "{kind:?} linear n={n} root={root}");
                }
            }
        }
        // n = 6, root 0: relative ranks 1, 3, 5 send 1 block; 2 sends 2; 4 sends 2 (4, 5).
        let all = messages(coll(K::Gather, A::Binomial, 6, 0, 0, 10));
        assert_eq!(
            all,
            [
                (0, 1, 0, 10),
                (0, 3, 2, 10),
                (0, 5, 4, 10),
                (1, 2, 0, 20),
                (2, 4, 0, 20)
            ]
        );
    }

    #[test]
    fn tree_allreduce_is_a_binomial_reduce_then_a_binomial_bcast() {
        // 8 ranks: 7 messages up the tree, 7 down, each of S.
        let all = messages(coll(K::Allreduce, A::Tree, 8, 0, 0, 1000));
        assert_eq!(all.len(), 2 * 7);
        assert!(all.iter().all(|t| t.3 == 1000));
        assert_eq!(total(K::Allreduce, A::Tree, 8, 0, 1000), (14, 14_000));
        // Rank 0 receives from 1, 2, 4 and sends to 4, 2, 1; rank 6 sends to 4, then to 7.
        let per_rank: Vec<_> = (0..8)
            .map(|me| sent(coll(K::Allreduce, A::Tree, 8, me, 0, 1000)).0)
            .collect();
        assert_eq!(per_rank, [3, 1, 2, 1, 3, 1, 2, 1]);
        for n in sizes() {
            let c = coll(K::Allreduce, A::Tree, n, 0, 0, 64);
            assert_eq!(c.steps(), 2 * ceil_log2(n));
            let n64 = u64::from(n);
            assert_eq!(
                total(K::Allreduce, A::Tree, n, 0, 64),
                (2 * (n64 - 1), 128 * (n64 - 1))
            );
            // The reduce is reduce's steps and the bcast is bcast's, both rooted at rank 0.
            let (up, down): (Vec<_>, Vec<_>) =
                messages(c).into_iter().partition(|t| t.0 < ceil_log2(n));
            assert_eq!(
                up,
                messages(coll(K::Reduce, A::Binomial, n, 0, 0, 64)),
                "n={n}"
            );
            let shifted: Vec<_> = down
                .iter()
                .map(|&(s, from, to, b)| (s - ceil_log2(n), from, to, b))
                .collect();
            assert_eq!(
                shifted,
                messages(coll(K::Bcast, A::Binomial, n, 0, 0, 64)),
                "n={n}"
            );
        }
    }

    #[test]
    fn auto_follows_mpich_defaults() {
        let t = Thresholds::default();
        let kib = 1024;
        // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048: recursive doubling up to 2 KiB.
        assert_eq!(t.choose(K::Allreduce, kib, 16), A::RecursiveDoubling);
        assert_eq!(t.choose(K::Allreduce, 2048, 16), A::RecursiveDoubling);
        assert_eq!(t.choose(K::Allreduce, 2049 + 7, 16), A::Rabenseifner);
        assert_eq!(t.choose(K::Allreduce, kib * kib, 16), A::Rabenseifner);
        assert_eq!(t.choose(K::Allreduce, kib * kib, 12), A::Rabenseifner);
        // count < pof2 (8-byte elements): 4 KiB is 512 doubles, fewer than 1024 ranks' pof2.
        assert_eq!(t.choose(K::Allreduce, 4 * kib, 1024), A::RecursiveDoubling);
        assert_eq!(t.choose(K::Allreduce, 8 * kib, 1024), A::Rabenseifner);
        // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE = 524288 on n·B, power-of-two counts only.
        assert_eq!(
            t.choose(K::Allgather, 32 * kib - 1, 16),
            A::RecursiveDoubling
        );
        assert_eq!(t.choose(K::Allgather, 32 * kib, 16), A::Ring);
        // Otherwise MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE = 81920 on n·B: Bruck below, ring from.
        assert_eq!(t.choose(K::Allgather, 64, 12), A::Bruck);
        assert_eq!(t.choose(K::Allgather, 6826, 12), A::Bruck);
        assert_eq!(t.choose(K::Allgather, 6827, 12), A::Ring);
        // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256 with at least 8 ranks.
        assert_eq!(t.choose(K::Alltoall, 256, 8), A::Bruck);
        assert_eq!(t.choose(K::Alltoall, 257, 8), A::Scattered);
        assert_eq!(t.choose(K::Alltoall, 256, 7), A::Scattered);
        assert_eq!(t.choose(K::Alltoall, 32_768, 64), A::Scattered);
        assert_eq!(t.choose(K::Alltoall, 32_769, 64), A::Pairwise);
        // MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE = 524288.
        assert_eq!(
            t.choose(K::ReduceScatter, 512 * kib - 1, 8),
            A::RecursiveHalving
        );
        assert_eq!(t.choose(K::ReduceScatter, 512 * kib, 8), A::Pairwise);
        // MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288, MPIR_CVAR_BCAST_MIN_PROCS = 8,
        // MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288.
        assert_eq!(t.choose(K::Bcast, 12 * kib - 1, 64), A::Binomial);
        assert_eq!(t.choose(K::Bcast, 4 * kib * kib, 7), A::Binomial);
        assert_eq!(
            t.choose(K::Bcast, 12 * kib, 64),
            A::ScatterDoublingAllgather
        );
        assert_eq!(t.choose(K::Bcast, 12 * kib, 48), A::ScatterRingAllgather);
        assert_eq!(t.choose(K::Bcast, 512 * kib, 64), A::ScatterRingAllgather);
        // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE = 2048, and count = S/8 >= pof2.
        assert_eq!(t.choose(K::Reduce, 2 * kib, 16), A::Binomial);
        assert_eq!(t.choose(K::Reduce, 2 * kib + 8, 16), A::Rabenseifner);
        assert_eq!(t.choose(K::Reduce, 4 * kib, 1024), A::Binomial);
        for kind in [K::Gather, K::Scatter, K::Barrier, K::Scan] {
            assert_eq!(t.choose(kind, 4 * kib * kib, 64), kind.default_algorithm());
        }
        assert_eq!(t.choose(K::Alltoallv, 16, 64), A::Scattered);
        // A changed threshold changes the choice.
        let big = Thresholds {
            allreduce_short_bytes: 2 * kib * kib,
            ..t
        };
        assert_eq!(
            big.choose(K::Allreduce, kib * kib, 16),
            A::RecursiveDoubling
        );
        // Every choice is one the collective implements.
        for n in sizes() {
            for kind in KINDS {
                for bytes in [0, 1, 256, 4096, 1 << 20] {
                    let a = t.choose(kind, bytes, n);
                    assert!(
                        Collective::check(kind, a, n).is_ok(),
                        "{kind:?} {bytes} {n}"
                    );
                }
            }
        }
        assert!(Collective::check(K::Allreduce, A::Auto, 8).is_err());
    }

    #[test]
    fn reduce_scatter_is_the_first_half_of_the_ring_allreduce() {
        for n in sizes() {
            for bytes in [0, 1000, 12_347] {
                let (q, r) = (bytes / u64::from(n), (bytes % u64::from(n)) as u32);
                let chunk = |c: u32| q + u64::from(c < r);
                let ring = messages(coll(K::ReduceScatter, A::Ring, n, 0, 0, bytes));
                let pairwise = messages(coll(K::ReduceScatter, A::Pairwise, n, 0, 0, bytes));
                for me in 0..n {
                    // Every chunk but its own: (n − 1)·S/n with the rounding.
                    let want = (u64::from(n - 1), bytes - chunk(me));
                    for algorithm in [A::Ring, A::Pairwise] {
                        let c = coll(K::ReduceScatter, algorithm, n, me, 0, bytes);
                        assert_eq!(c.steps(), n - 1);
                        assert_eq!(sent(c), want, "{algorithm:?} n={n} S={bytes} me={me}");
                    }
                }
                let total = |all: &[(u32, u32, u32, u64)]| all.iter().map(|t| t.3).sum::<u64>();
                assert_eq!(total(&ring), u64::from(n - 1) * bytes);
                assert_eq!(total(&pairwise), u64::from(n - 1) * bytes);
                // The same messages as the allreduce's first n − 1 steps, and the same bytes
                // when no chunk is rounded.
                let allreduce: Vec<_> = messages(coll(K::Allreduce, A::Ring, n, 0, 0, bytes))
                    .into_iter()
                    .filter(|t| t.0 < n - 1)
                    .collect();
                let pairs = |all: &[(u32, u32, u32, u64)]| -> Vec<_> {
                    all.iter().map(|t| (t.0, t.1, t.2)).collect()
                };
                assert_eq!(pairs(&ring), pairs(&allreduce), "n={n}");
                assert_eq!(total(&ring), total(&allreduce), "n={n} S={bytes}");
                if r == 0 {
                    assert_eq!(ring, allreduce, "n={n} S={bytes}");
                }
                // Pairwise step k: rank me sends chunk me + k to rank me + k.
                for &(s, from, to, b) in &pairwise {
                    assert_eq!(to, (from + s + 1) % n);
                    assert_eq!(b, chunk(to));
                }
            }
        }
    }

    #[test]
    fn scan_rank_r_hears_from_exactly_r_minus_powers_of_two() {
        for n in sizes() {
            let lg = ceil_log2(n);
            for kind in [K::Scan, K::Exscan] {
                let all = messages(coll(kind, A::RecursiveDoubling, n, 0, 0, 64));
                let in_all = u64::from(n) * u64::from(lg) + 1 - (1u64 << lg);
                assert_eq!(all.len() as u64, in_all, "{kind:?} n={n}");
                assert!(all.iter().all(|t| t.3 == 64));
                for r in 0..n {
                    let mut from: Vec<_> = all
                        .iter()
                        .filter(|t| t.2 == r)
                        .map(|t| (t.0, t.1))
                        .collect();
                    from.sort_unstable();
                    let want: Vec<_> = (0..lg)
                        .filter(|&k| 1 << k <= r)
                        .map(|k| (k, r - (1 << k)))
                        .collect();
                    assert_eq!(from, want, "{kind:?} n={n} rank {r}");
                }
            }
        }
    }

    /// Runs each supported reduction-like collective symbolically: every chunk of every rank
    /// holds the set of ranks whose contribution it contains.
    #[test]
    fn contributions_reach_every_rank_that_needs_them() {
        for n in sizes() {
            let full = (1u128 << n) - 1;
            for (kind, algorithm) in
                combos(n).filter(|(k, _)| !matches!(k, K::Alltoall | K::Alltoallv))
            {
                let m = match (kind, algorithm) {
                    (K::Allreduce, A::Ring)
                    | (K::Bcast, A::ScatterRingAllgather | A::ScatterDoublingAllgather)
                    | (K::Allgather | K::Gather | K::Scatter | K::ReduceScatter, _) => n,
                    (K::Allreduce | K::Reduce, A::Rabenseifner) => pof2(n),
                    _ => 1,
                };
                for root in [0, n / 3, n - 1] {
                    let proto = coll(kind, algorithm, n, 0, root, 0);
                    let what = format!("{kind:?}/{algorithm:?} n={n} root={root}");
                    // Gather and scatter number blocks by rank relative to the root.
                    let rel = |r: u32| (r + n - root) % n;
                    let mut held: Vec<Vec<u128>> = (0..n)
                        .map(|r| {
                            (0..m)
                                .map(|c| match kind {
                                    K::Bcast | K::Scatter if r != root => 0,
                                    K::Allgather if c != r => 0,
                                    K::Gather if c != rel(r) => 0,
                                    _ => 1 << r,
                                })
                                .collect()
                        })
                        .collect();
                    for s in 0..proto.steps() {
                        let before = held.clone();
                        for ((from, to), b) in all_moves(proto, s) {
                            for c in chunks(b, n) {
                                let incoming = before[from as usize][c];
                                let mine = &mut held[to as usize][c];
                                assert_ne!(incoming, 0, "{what} step {s}: {from} sends nothing");
                                // A bcast's allgather after its scatter resends chunks, as
                                // MPICH's does (binomial bcasts end before step L).
                                let resent = kind == K::Bcast && s >= ceil_log2(n);
                                let copying =
                                    matches!(kind, K::Allreduce | K::Reduce | K::ReduceScatter)
                                        && !reducing(&proto, s);
                                if copying {
                                    assert_eq!(incoming, full, "{what} step {s}: copies a partial");
                                } else if kind != K::Barrier && !resent {
                                    assert_eq!(*mine & incoming, 0, "{what} step {s}: twice");
                                }
                                *mine |= incoming;
                            }
                        }
                    }
                    for (r, chunks) in (0..n).zip(&held) {
                        for (c, &h) in (0..n).zip(chunks) {
                            let want = match kind {
                                K::Allreduce | K::Barrier => Some(full),
                                K::Allgather => Some(1 << c),
                                K::Bcast => Some(1 << root),
                                K::Gather => (r == root).then_some(1 << ((c + root) % n)),
                                K::Scatter => (c == rel(r)).then_some(1 << root),
                                K::ReduceScatter => (c == r).then_some(full),
                                // Everything up to r; exscan's result leaves r's own out.
                                K::Scan | K::Exscan => Some((1 << (r + 1)) - 1),
                                _ => (r == root).then_some(full),
                            };
                            if let Some(w) = want {
                                assert_eq!(h, w, "{what}: rank {r} chunk {c}");
                            }
                        }
                    }
                }
            }
        }
    }

    /// Tracks every (source, destination) block through the slots of each rank's buffer.
    #[test]
    fn alltoall_blocks_reach_their_destinations() {
        for n in sizes() {
            for algorithm in [A::Pairwise, A::Bruck] {
                let proto = coll(K::Alltoall, algorithm, n, 0, 0, 1);
                // Slot c holds the block for offset c + 1.
                let mut slots: Vec<Vec<Option<(u32, u32)>>> = (0..n)
                    .map(|r| (0..n - 1).map(|c| Some((r, (r + c + 1) % n))).collect())
                    .collect();
                let mut pairs = HashSet::new();
                for s in 0..proto.steps() {
                    let before = slots.clone();
                    let moves = all_moves(proto, s);
                    for (&(from, to), &b) in &moves {
                        assert!(pairs.insert((from, to)) || algorithm == A::Bruck);
                        for c in chunks(b, n) {
                            assert!(
                                slots[from as usize][c].take().is_some(),
                                "{algorithm:?} n={n} step {s}"
                            );
                        }
                    }
                    for (&(from, to), &b) in &moves {
                        for c in chunks(b, n) {
                            let slot = &mut slots[to as usize][c];
                            assert!(slot.is_none(), "{algorithm:?} n={n} step {s}: overwrites");
                            *slot = before[from as usize][c];
                        }
                    }
                }
                if algorithm == A::Pairwise {
                    assert_eq!(pairs.len() as u32, n * (n - 1));
                }
                for (r, slots) in (0..n).zip(&slots) {
                    for (c, slot) in (0..n).zip(slots) {
                        assert_eq!(*slot, Some(((r + n - c - 1) % n, r)), "{algorithm:?} n={n}");
                    }
                }
            }
        }
    }

    #[test]
    fn check_names_what_is_valid() {
        for kind in KINDS {
            assert_eq!(kind.algorithms()[0], kind.default_algorithm());
            for algorithm in ALGORITHMS {
                let ok = Collective::check(kind, algorithm, 16).is_ok();
                assert_eq!(
                    ok,
                    kind.algorithms().contains(&algorithm),
                    "{kind:?}/{algorithm:?}"
                );
            }
        }
        let e = Collective::check(K::Bcast, A::Ring, 8).unwrap_err();
        assert!(
            e.contains("bcast") && e.contains("ring") && e.contains("valid: binomial"),
            "{e}"
        );
        let e = Collective::check(K::Alltoallv, A::Ring, 8).unwrap_err();
        assert!(e.contains("valid: pairwise, bruck"), "{e}");
        let e = Collective::check(K::Gather, A::Ring, 8).unwrap_err();
        assert!(
            e.contains("gather") && e.contains("valid: binomial, linear"),
            "{e}"
        );
        let e = Collective::check(K::ReduceScatter, A::Linear, 8).unwrap_err();
        assert!(e.contains("valid: ring, pairwise"), "{e}");
        let e = Collective::check(K::Exscan, A::Binomial, 8).unwrap_err();
        assert!(e.contains("valid: recursive_doubling"), "{e}");
        let e = Collective::check(K::Allgather, A::RecursiveDoubling, 12).unwrap_err();
        assert!(
            e.contains("power-of-two") && e.contains("12") && e.contains("ring"),
            "{e}"
        );
        assert!(Collective::check(K::Allgather, A::RecursiveDoubling, 1).is_ok());
        assert!(Collective::check(K::Allreduce, A::Rabenseifner, 12).is_ok());
        assert!(Collective::check(K::Barrier, A::Dissemination, 0).is_err());
    }

    #[test]
    #[should_panic(expected = "power-of-two")]
    fn steps_refuse_what_check_refuses() {
        coll(K::Allgather, A::RecursiveDoubling, 6, 0, 0, 1).steps();
    }

    #[test]
    fn defaults_and_names_match_the_configuration() {
        let defaults = [
            (K::Allreduce, A::RecursiveDoubling),
            (K::Allgather, A::Ring),
            (K::Alltoall, A::Pairwise),
            (K::Alltoallv, A::Pairwise),
            (K::Bcast, A::Binomial),
            (K::Reduce, A::Binomial),
            (K::Barrier, A::Dissemination),
            (K::Gather, A::Binomial),
            (K::Scatter, A::Binomial),
            (K::ReduceScatter, A::Ring),
            (K::Scan, A::RecursiveDoubling),
            (K::Exscan, A::RecursiveDoubling),
        ];
        for (kind, algorithm) in defaults {
            assert_eq!(kind.default_algorithm(), algorithm);
        }
        for a in ALGORITHMS {
            assert_eq!(
                serde_json::from_str::<A>(&format!("\"{}\"", a.name())).unwrap(),
                a
            );
        }
        for k in KINDS {
            assert_eq!(
                serde_json::from_str::<K>(&format!("\"{}\"", k.name())).unwrap(),
                k
            );
        }
    }
}
