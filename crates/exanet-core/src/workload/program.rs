//! A job's program: every rank's operations in one flat array (ranks' slices follow each other),
//! and the communicators its collectives use. Built from explicit operation columns (a trace or
//! a Python generator) or by an application generator ([`super::apps`]).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::collectives::{Algorithm, Collective, CollectiveKind};
use crate::stats::{ColumnData, Table};

/// Compute one rank may do in a job, 10^6 s: far beyond any study, and far from where
/// picosecond times stop fitting in 64 bits.
pub const MAX_JOB_TIME_PS: u64 = 1_000_000_000_000_000_000;
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    Compute,
    Send,
    Recv,
    Isend,
    Irecv,
    Wait,
    Waitall,
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
    /// Declares the rank a member of a communicator; takes no time.
    Comm,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Compute => "compute",
            OpKind::Send => "send",
            OpKind::Recv => "recv",
            OpKind::Isend => "isend",
            OpKind::Irecv => "irecv",
            OpKind::Wait => "wait",
            OpKind::Waitall => "waitall",
            OpKind::Barrier => "barrier",
            OpKind::Bcast => "bcast",
            OpKind::Reduce => "reduce",
            OpKind::Allreduce => "allreduce",
            OpKind::Allgather => "allgather",
            OpKind::Alltoall => "alltoall",
            OpKind::Alltoallv => "alltoallv",
            OpKind::Gather => "gather",
            OpKind::Scatter => "scatter",
            OpKind::ReduceScatter => "reduce_scatter",
            OpKind::Scan => "scan",
            OpKind::Exscan => "exscan",
            OpKind::Comm => "comm",
        }
    }

    /// The collective this operation runs, if it is one.
    pub fn collective(self) -> Option<CollectiveKind> {
        Some(match self {
            OpKind::Barrier => CollectiveKind::Barrier,
            OpKind::Bcast => CollectiveKind::Bcast,
            OpKind::Reduce => CollectiveKind::Reduce,
            OpKind::Allreduce => CollectiveKind::Allreduce,
            OpKind::Allgather => CollectiveKind::Allgather,
            OpKind::Alltoall => CollectiveKind::Alltoall,
            OpKind::Alltoallv => CollectiveKind::Alltoallv,
            OpKind::Gather => CollectiveKind::Gather,
            OpKind::Scatter => CollectiveKind::Scatter,
            OpKind::ReduceScatter => CollectiveKind::ReduceScatter,
            OpKind::Scan => CollectiveKind::Scan,
            OpKind::Exscan => CollectiveKind::Exscan,
            _ => return None,
        })
    }
}

const OP_KINDS: [OpKind; 20] = [
    OpKind::Compute,
    OpKind::Send,
    OpKind::Recv,
    OpKind::Isend,
    OpKind::Irecv,
    OpKind::Wait,
    OpKind::Waitall,
    OpKind::Barrier,
    OpKind::Bcast,
    OpKind::Reduce,
    OpKind::Allreduce,
    OpKind::Allgather,
    OpKind::Alltoall,
    OpKind::Alltoallv,
    OpKind::Gather,
    OpKind::Scatter,
    OpKind::ReduceScatter,
    OpKind::Scan,
    OpKind::Exscan,
    OpKind::Comm,
];

/// Any source or any tag in a receive.
pub const ANY: i32 = -1;

/// One operation of one rank.
#[derive(Debug, Clone, Copy)]
pub struct Op {
    pub kind: OpKind,
    /// The collective's algorithm (None: the kind's default; Auto: chosen when it starts).
    pub algorithm: Option<Algorithm>,
    /// Collectives: communicator index, 0 is every rank of the job, k > 0 is
    /// `Program::communicators[k - 1]`. Messages: the communicator id as written, their
    /// matching context.
    pub comm: u32,
    /// Destination (sends), source or [`ANY`] (receives), root (bcast, reduce, gather, scatter).
    pub peer: i32,
    pub tag: i32,
    /// The request an isend/irecv creates or a wait waits for.
    pub request: i32,
    /// Bytes (messages, collectives) or picoseconds (compute).
    pub value: u64,
}

impl Op {
    fn new(kind: OpKind) -> Op {
        Op {
            kind,
            algorithm: None,
            comm: 0,
            peer: -1,
            tag: 0,
            request: -1,
            value: 0,
        }
    }

    pub fn compute(ps: u64) -> Op {
        Op {
            value: ps,
            ..Op::new(OpKind::Compute)
        }
    }

    pub fn isend(peer: u32, bytes: u64, tag: i32, request: i32) -> Op {
        Op {
            peer: peer as i32,
            value: bytes,
            tag,
            request,
            ..Op::new(OpKind::Isend)
        }
    }

    pub fn irecv(peer: u32, bytes: u64, tag: i32, request: i32) -> Op {
        Op {
            peer: peer as i32,
            value: bytes,
            tag,
            request,
            ..Op::new(OpKind::Irecv)
        }
    }

    pub fn send(peer: u32, bytes: u64, tag: i32) -> Op {
        Op {
            kind: OpKind::Send,
            ..Op::isend(peer, bytes, tag, -1)
        }
    }

    pub fn recv(peer: u32, bytes: u64, tag: i32) -> Op {
        Op {
            kind: OpKind::Recv,
            ..Op::irecv(peer, bytes, tag, -1)
        }
    }

    pub fn waitall() -> Op {
        Op::new(OpKind::Waitall)
    }

    pub fn collective(
        kind: OpKind,
        bytes: u64,
        comm: u32,
        root: u32,
        algorithm: Option<Algorithm>,
    ) -> Op {
        Op {
            value: bytes,
            comm,
            peer: root as i32,
            algorithm,
            ..Op::new(kind)
        }
    }

    pub fn member_of(comm: u32) -> Op {
        Op {
            comm,
            ..Op::new(OpKind::Comm)
        }
    }
}

/// Operation columns as the front end sends them (rows in rank, then program order).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpColumns {
    pub rank: Vec<u32>,
    pub op: Vec<OpKind>,
    pub peer: Vec<i32>,
    pub bytes: Vec<u64>,
    pub tag: Vec<i32>,
    pub compute_ps: Vec<u64>,
    pub communicator: Vec<u32>,
    pub request: Vec<i32>,
    pub algorithm: Vec<Option<Algorithm>>,
}

/// Every rank's operations.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub ranks: u32,
    /// Rank r's operations are `ops[offsets[r]..offsets[r + 1]]`.
    pub offsets: Vec<u32>,
    pub ops: Vec<Op>,
    /// Members (job ranks, ascending) of communicator k + 1.
    pub communicators: Vec<Vec<u32>>,
}

/// What is wrong with a program, and where: (rank, operation index) or None for the whole.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramError {
    pub at: Option<(u32, u32)>,
    pub message: String,
}

impl ProgramError {
    fn at(rank: u32, index: u32, message: impl Into<String>) -> Self {
        ProgramError {
            at: Some((rank, index)),
            message: message.into(),
        }
    }
}

/// Builds a program rank by rank: `push` appends to the rank being written, `next_rank` closes it.
#[derive(Debug, Default)]
pub struct ProgramBuilder {
    program: Program,
}

impl ProgramBuilder {
    pub fn new() -> Self {
        ProgramBuilder {
            program: Program {
                offsets: vec![0],
                ..Program::default()
            },
        }
    }

    pub fn push(&mut self, op: Op) {
        self.program.ops.push(op);
    }

    pub fn next_rank(&mut self) {
        self.program.offsets.push(self.program.ops.len() as u32);
        self.program.ranks += 1;
    }

    /// Adds communicator `members` (ascending job ranks) and returns its index for [`Op::comm`].
    pub fn communicator(&mut self, members: Vec<u32>) -> u32 {
        self.program.communicators.push(members);
        self.program.communicators.len() as u32
    }

    pub fn finish(self) -> Program {
        self.program
    }
}

impl Program {
    pub fn rank_ops(&self, rank: u32) -> &[Op] {
        let r = rank as usize;
        &self.ops[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    /// Builds a program from operation columns: communicators are declared by `comm` rows.
    pub fn from_columns(ranks: u32, c: &OpColumns) -> Result<Program, ProgramError> {
        let n = c.rank.len();
        let lengths = [
            c.op.len(),
            c.peer.len(),
            c.bytes.len(),
            c.tag.len(),
            c.compute_ps.len(),
            c.communicator.len(),
            c.request.len(),
            c.algorithm.len(),
        ];
        if lengths.iter().any(|&l| l != n) {
            return Err(ProgramError {
                at: None,
                message: format!("every operation column must have {n} rows, found {lengths:?}"),
            });
        }
        // Communicator ids as written -> members; then dense indices.
        let mut declared: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for i in 0..n {
            if c.op[i] == OpKind::Comm {
                if c.communicator[i] == 0 {
                    return Err(ProgramError::at(
                        c.rank[i],
                        0,
                        "a comm row declares communicator k >= 1 (0 is every rank of the job)",
                    ));
                }
                declared
                    .entry(c.communicator[i])
                    .or_default()
                    .push(c.rank[i]);
            }
        }
        let index_of: BTreeMap<u32, u32> = declared
            .keys()
            .enumerate()
            .map(|(i, &id)| (id, i as u32 + 1))
            .collect();
        let mut program = Program {
            ranks,
            offsets: vec![0],
            ops: Vec::with_capacity(n),
            communicators: declared
                .into_values()
                .map(|mut m| {
                    m.sort_unstable();
                    m.dedup();
                    m
                })
                .collect(),
        };
        let mut rank = 0u32;
        let mut index = 0u32;
        for i in 0..n {
            let r = c.rank[i];
            if r >= ranks {
                return Err(ProgramError::at(
                    r,
                    index,
                    format!("rank {r} does not exist: the job has ranks 0..{}", ranks),
                ));
            }
            if r < rank {
                return Err(ProgramError::at(r, 0, "rows must be sorted by rank"));
            }
            while rank < r {
                program.offsets.push(program.ops.len() as u32);
                rank += 1;
                index = 0;
            }
            let kind = c.op[i];
            let point_to_point = matches!(
                kind,
                OpKind::Send | OpKind::Isend | OpKind::Recv | OpKind::Irecv
            );
            let comm = match c.communicator[i] {
                // a message's communicator is its matching context, declared or not
                id if point_to_point || id == 0 => id,
                id => *index_of.get(&id).ok_or_else(|| {
                    ProgramError::at(
                        r,
                        index,
                        format!("communicator {id} is never declared by a comm row"),
                    )
                })?,
            };
            program.ops.push(Op {
                kind,
                algorithm: c.algorithm[i],
                comm,
                peer: c.peer[i],
                tag: c.tag[i],
                request: c.request[i],
                value: if kind == OpKind::Compute {
                    c.compute_ps[i]
                } else {
                    c.bytes[i]
                },
            });
            index += 1;
        }
        while program.offsets.len() <= ranks as usize {
            program.offsets.push(program.ops.len() as u32);
        }
        program.check()?;
        Ok(program)
    }

    /// The program as trace columns (docs/traces.md): per rank, a `comm` row for each
    /// communicator it belongs to, then its operations; `seq` numbers them.
    pub fn to_table(&self) -> Table {
        let ops_names: Vec<String> = OP_KINDS.iter().map(|k| k.name().to_string()).collect();
        let mut algorithm_names: Vec<String> = vec![String::new()];
        algorithm_names.extend(Algorithm::ALL.iter().map(|a| a.name().to_string()));
        let (mut rank, mut seq, mut op, mut peer) = (vec![], vec![], vec![], vec![]);
        let (mut bytes, mut tag, mut compute_ns) = (vec![], vec![], vec![]);
        let (mut communicator, mut request, mut algorithm) = (vec![], vec![], vec![]);
        let code = |k: OpKind| OP_KINDS.iter().position(|&x| x == k).unwrap_or(0) as u32;
        for r in 0..self.ranks {
            let memberships = self
                .communicators
                .iter()
                .enumerate()
                .filter(|(_, m)| m.binary_search(&r).is_ok())
                .map(|(c, _)| Op::member_of(c as u32 + 1));
            for (i, o) in memberships
                .chain(self.rank_ops(r).iter().copied())
                .enumerate()
            {
                rank.push(r);
                seq.push(i as u32);
                op.push(code(o.kind));
                peer.push(o.peer);
                let compute = o.kind == OpKind::Compute;
                bytes.push(if compute { 0 } else { o.value });
                compute_ns.push(if compute {
                    o.value as f64 / 1000.0
                } else {
                    0.0
                });
                tag.push(o.tag);
                communicator.push(o.comm);
                request.push(o.request);
                algorithm.push(o.algorithm.map_or(0, |a| {
                    Algorithm::ALL.iter().position(|&x| x == a).unwrap_or(0) as u32 + 1
                }));
            }
        }
        let mut t = Table::default();
        t.push("rank", ColumnData::U32(rank));
        t.push("seq", ColumnData::U32(seq));
        t.push_categorical("op", op, ops_names);
        t.push("peer", ColumnData::I32(peer));
        t.push("bytes", ColumnData::U64(bytes));
        t.push("tag", ColumnData::I32(tag));
        t.push("compute_ns", ColumnData::F64(compute_ns));
        t.push("communicator", ColumnData::U32(communicator));
        t.push("request", ColumnData::I32(request));
        t.push_categorical("algorithm", algorithm, algorithm_names);
        t
    }

    /// Members of communicator `comm` (None: every rank).
    pub fn members(&self, comm: u32) -> Option<&[u32]> {
        (comm > 0).then(|| self.communicators[comm as usize - 1].as_slice())
    }

    /// Size of communicator `comm` and `rank`'s index in it.
    pub fn position(&self, comm: u32, rank: u32) -> Option<(u32, u32)> {
        match self.members(comm) {
            None => Some((self.ranks, rank)),
            Some(m) => m
                .binary_search(&rank)
                .ok()
                .map(|i| (m.len() as u32, i as u32)),
        }
    }

    /// Checks what can be checked before running: peers and roots exist, requests are created
    /// before they are waited for, collectives run in communicators their rank belongs to with
    /// an algorithm that implements them.
    pub fn check(&self) -> Result<(), ProgramError> {
        for r in 0..self.ranks {
            let mut open: Vec<i32> = Vec::new();
            for (i, op) in self.rank_ops(r).iter().enumerate() {
                let i = i as u32;
                let in_range = |peer: i32| peer >= 0 && (peer as u32) < self.ranks;
                match op.kind {
                    OpKind::Send | OpKind::Isend if !in_range(op.peer) => {
                        return Err(ProgramError::at(
                            r,
                            i,
                            format!(
                                "destination {} does not exist: ranks are 0..{}",
                                op.peer, self.ranks
                            ),
                        ))
                    }
                    OpKind::Recv | OpKind::Irecv if op.peer != ANY && !in_range(op.peer) => {
                        return Err(ProgramError::at(
                            r,
                            i,
                            format!(
                                "source {} does not exist: ranks are 0..{} or -1 for any",
                                op.peer, self.ranks
                            ),
                        ))
                    }
                    OpKind::Send | OpKind::Isend if op.tag < 0 => {
                        return Err(ProgramError::at(r, i, "a send's tag must be >= 0"))
                    }
                    _ => {}
                }
                match op.kind {
                    OpKind::Isend | OpKind::Irecv => {
                        if open.contains(&op.request) {
                            return Err(ProgramError::at(
                                r,
                                i,
                                format!("request {} is already outstanding", op.request),
                            ));
                        }
                        open.push(op.request);
                    }
                    OpKind::Wait => {
                        let Some(at) = open.iter().position(|&q| q == op.request) else {
                            return Err(ProgramError::at(
                                r,
                                i,
                                format!(
                                    "waits for request {}, which is not outstanding",
                                    op.request
                                ),
                            ));
                        };
                        open.swap_remove(at);
                    }
                    OpKind::Waitall => open.clear(),
                    _ => {}
                }
                if let Some(kind) = op.kind.collective() {
                    let Some((size, _)) = self.position(op.comm, r) else {
                        return Err(ProgramError::at(
                            r,
                            i,
                            "runs a collective in a communicator it does not belong to",
                        ));
                    };
                    // Auto resolves to an algorithm the kind implements when the call starts.
                    let algorithm = op.algorithm.unwrap_or(kind.default_algorithm());
                    if algorithm != Algorithm::Auto {
                        Collective::check(kind, algorithm, size)
                            .map_err(|e| ProgramError::at(r, i, e))?;
                    }
                    if kind.rooted() && !(op.peer >= 0 && (op.peer as u32) < size) {
                        return Err(ProgramError::at(
                            r,
                            i,
                            format!(
                                "root {} is not a rank of the communicator (0..{size})",
                                op.peer
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}
