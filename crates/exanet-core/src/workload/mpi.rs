//! The message-passing engine: ranks run their programs, post sends and receives matched by
//! (communicator, source, tag) like MPI, move data eagerly below a threshold and by rendezvous
//! (request, clear-to-send, data) above it, and expand collectives step by step into
//! point-to-point messages. It knows nothing about the network: it hands messages to NICs and is told when a
//! message has left its NIC and when it has fully arrived, through [`Action`]s and callbacks.
//!
//! Every callback concerns one endpoint's host (the one whose NIC saw the event), so the engine
//! never reaches across entities: in a split network each worker runs the ranks of its own
//! endpoints ([`Mpi::worker`]). A message's envelope is then kept by the worker of its sending
//! rank, which numbers it; the network carries a copy to the other side whenever the message
//! crosses parts, and the other side hands the number back when it is done with it.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::collectives::{Algorithm, Collective, CollectiveKind, Thresholds, Transfer};
use super::host::{Action, Host, HostCounters, HostNote, HostResults};
use super::program::{OpKind, Program, ANY};
use crate::engine::Time;
use crate::error::StalledRank;
use crate::parallel::SharedArray;
use crate::stats::{Summary, Value};

const NEVER: Time = Time::MAX;
/// A message's tag carries its matching context: a point-to-point message's is
/// `communicator << 32 | tag` (both i32 >= 0), a collective's has this bit set, so that no
/// user receive, not even one for any tag, ever takes a collective's message (MPI keeps
/// collective traffic in a context of its own).
const COLLECTIVE_TAG: u64 = 1 << 63;
const NO_RANK: u32 = u32::MAX;

/// The tags a posted receive accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TagPattern {
    Exact(u64),
    /// Any tag of a point-to-point message on this communicator (MPI_ANY_TAG).
    AnyOn(u32),
}

impl TagPattern {
    fn matches(self, tag: u64) -> bool {
        match self {
            Self::Exact(t) => t == tag,
            Self::AnyOn(comm) => tag >> 32 == u64::from(comm),
        }
    }
}

/// Host-side protocol parameters.
#[derive(Debug, Clone, Copy)]
pub struct HostParams {
    /// CPU time to post one send.
    pub send_overhead_ps: Time,
    /// CPU time from a message's arrival to its receive completing.
    pub recv_overhead_ps: Time,
    /// Where algorithm "auto" changes algorithm.
    pub thresholds: Thresholds,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Kind {
    Eager,
    RequestToSend,
    ClearToSend,
    Data,
}

/// A message in flight, named by its token.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Envelope {
    kind: Kind,
    src: u32,
    dst: u32,
    tag: u64,
    bytes: u64,
    /// Order among the messages from `src` to `dst`: MPI's non-overtaking rule holds even when
    /// adaptive routing reorders packets.
    seq: u32,
    send_request: u32,
    recv_request: u32,
    /// Packets of the message's current leg that have arrived (back to 0 when all have).
    packets_arrived: u32,
}

#[derive(Debug, Clone, Copy)]
struct Request {
    /// When it completes (NEVER: not known yet).
    done_ps: Time,
    /// The rank (global index) that created it.
    owner: u32,
    /// The program's request id (isend/irecv), or -1.
    id: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Executing operations (callbacks it triggers itself must not re-enter it).
    Running,
    /// A wake-up is scheduled at `wake_at`.
    Sleeping,
    /// Waits for the requests in `waiting`.
    Waiting,
    Done,
}

#[derive(Debug, Clone, Copy)]
struct PostedRecv {
    src: u32,
    tag: TagPattern,
    request: u32,
}

#[derive(Debug, Clone, Copy)]
struct CollectiveRun {
    collective: Collective,
    comm: u32,
    step: u32,
    tag_base: u64,
}

#[derive(Debug, Clone)]
struct Rank {
    job: u32,
    /// Rank within its job.
    rank: u32,
    endpoint: u32,
    pc: u32,
    state: State,
    wake_at: Time,
    cpu_free_ps: Time,
    /// Requests created by isend/irecv and not yet waited for.
    outstanding: Vec<u32>,
    /// Requests the rank waits for now.
    waiting: Vec<u32>,
    posted: Vec<PostedRecv>,
    /// Tokens of envelopes that arrived before a matching receive was posted.
    unexpected: Vec<u32>,
    /// Envelopes that arrived ahead of an earlier one from the same source.
    held: Vec<u32>,
    /// Messages numbered so far per peer (sent to it, received from it): looked up on every
    /// message, so hashed with Fx rather than the default SipHash (which cost 65 instructions
    /// per packet-hop on the AllReduce benchmark).
    send_seq: FxHashMap<u32, u32>,
    recv_seq: FxHashMap<u32, u32>,
    collective: Option<CollectiveRun>,
    /// Collectives started per communicator (their tags).
    collectives_started: Vec<u32>,
}

/// What one worker's ranks of a job did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobCounters {
    end_ps: Time,
    ranks_done: u32,
    bytes_sent: u64,
    messages_sent: u64,
    collective_calls: Vec<u64>,
}

/// Collective kinds in the order of [`JobRun::collective_calls`].
const KINDS: [CollectiveKind; 12] = [
    CollectiveKind::Barrier,
    CollectiveKind::Bcast,
    CollectiveKind::Reduce,
    CollectiveKind::Allreduce,
    CollectiveKind::Allgather,
    CollectiveKind::Alltoall,
    CollectiveKind::Alltoallv,
    CollectiveKind::Gather,
    CollectiveKind::Scatter,
    CollectiveKind::ReduceScatter,
    CollectiveKind::Scan,
    CollectiveKind::Exscan,
];

/// The index of (kind, algorithm) in [`JobRun::collective_calls`].
fn call_index(kind: CollectiveKind, algorithm: Algorithm) -> usize {
    let k = KINDS.iter().position(|&x| x == kind).unwrap_or(0);
    let a = Algorithm::ALL
        .iter()
        .position(|&x| x == algorithm)
        .unwrap_or(0);
    k * Algorithm::ALL.len() + a
}

/// Adds `theirs` to `mine` element by element (either may still be empty).
fn add_calls(mine: &mut Vec<u64>, theirs: &[u64]) {
    if mine.len() < theirs.len() {
        mine.resize(theirs.len(), 0);
    }
    for (m, t) in mine.iter_mut().zip(theirs) {
        *m += t;
    }
}

/// One job as the engine runs it.
#[derive(Debug, Clone)]
pub struct JobRun {
    pub name: String,
    /// Global index of the job's rank 0 (set by [`Mpi::new`]).
    pub first_rank: u32,
    pub app: String,
    pub program: Arc<Program>,
    /// The job's messages up to this many bytes go eagerly; larger ones by rendezvous.
    pub eager_limit_bytes: u64,
    pub endpoints: Vec<u32>,
    pub start_ps: Time,
    pub end_ps: Time,
    pub ranks_done: u32,
    /// Payload bytes and messages the job's programs sent (control messages excluded).
    pub bytes_sent: u64,
    pub messages_sent: u64,
    /// Collective calls per (kind, algorithm) that ran, counted by the calls' rank 0 (see
    /// [`JobRun::algorithms`]); empty until one ran.
    pub collective_calls: Vec<u64>,
}

impl JobRun {
    pub fn finished(&self) -> bool {
        self.ranks_done == self.program.ranks
    }

    /// The algorithms the job's collectives ran, as `kind:algorithm=calls` joined by ", " in
    /// the order of the kinds and algorithms' declarations; empty without collectives.
    pub fn algorithms(&self) -> String {
        let per_kind = Algorithm::ALL.len();
        self.collective_calls
            .iter()
            .enumerate()
            .filter(|(_, &calls)| calls > 0)
            .map(|(i, calls)| {
                let (kind, algorithm) = (KINDS[i / per_kind], Algorithm::ALL[i % per_kind]);
                format!("{}:{}={calls}", kind.name(), algorithm.name())
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

pub struct Mpi {
    params: HostParams,
    /// The jobs, with the counters of this worker's ranks.
    pub jobs: Vec<JobRun>,
    /// Every rank; a worker touches only its own.
    ranks: SharedArray<Rank>,
    rank_of_endpoint: Arc<[u32]>,
    endpoint_of_rank: Arc<[u32]>,
    /// Envelopes this worker numbered: token `slot * parts + me` is `envelopes[slot]`.
    envelopes: Vec<Envelope>,
    free_envelopes: Vec<u32>,
    /// Copies of other workers' envelopes whose messages came here, by token.
    copies: FxHashMap<u32, Envelope>,
    /// Tokens of copies this worker is done with, for their numbering workers.
    released: Vec<u32>,
    requests: Vec<Request>,
    free_requests: Vec<u32>,
    sends: Vec<Transfer>,
    recvs: Vec<Transfer>,
    me: u32,
    parts: u32,
}

impl Mpi {
    /// `jobs` must use distinct endpoints below `endpoints`.
    pub fn new(params: HostParams, jobs: Vec<JobRun>, endpoints: u32) -> Mpi {
        let mut ranks = Vec::new();
        let mut jobs = jobs;
        let mut rank_of_endpoint = vec![NO_RANK; endpoints as usize];
        for (j, job) in jobs.iter_mut().enumerate() {
            job.first_rank = ranks.len() as u32;
            let comms = job.program.communicators.len() + 1;
            for (r, &e) in job.endpoints.iter().enumerate() {
                rank_of_endpoint[e as usize] = ranks.len() as u32;
                ranks.push(Rank {
                    job: j as u32,
                    rank: r as u32,
                    endpoint: e,
                    pc: 0,
                    state: State::Sleeping,
                    wake_at: job.start_ps,
                    cpu_free_ps: job.start_ps,
                    outstanding: Vec::new(),
                    waiting: Vec::new(),
                    posted: Vec::new(),
                    unexpected: Vec::new(),
                    held: Vec::new(),
                    send_seq: FxHashMap::default(),
                    recv_seq: FxHashMap::default(),
                    collective: None,
                    collectives_started: vec![0; comms],
                });
            }
        }
        let endpoint_of_rank = ranks.iter().map(|r| r.endpoint).collect();
        let ranks = SharedArray::new(ranks);
        Mpi::over(
            params,
            jobs,
            ranks,
            rank_of_endpoint.into(),
            endpoint_of_rank,
            0,
            1,
        )
    }

    /// Worker `me` of `parts` over `ranks`, with no envelope or request yet.
    fn over(
        params: HostParams,
        jobs: Vec<JobRun>,
        ranks: SharedArray<Rank>,
        rank_of_endpoint: Arc<[u32]>,
        endpoint_of_rank: Arc<[u32]>,
        me: u32,
        parts: u32,
    ) -> Mpi {
        Mpi {
            params,
            jobs,
            ranks,
            rank_of_endpoint,
            endpoint_of_rank,
            envelopes: Vec::new(),
            free_envelopes: Vec::new(),
            copies: FxHashMap::default(),
            released: Vec::new(),
            requests: Vec::new(),
            free_requests: Vec::new(),
            sends: Vec::new(),
            recvs: Vec::new(),
            me,
            parts,
        }
    }

    /// Worker `me` of `parts`: it runs the ranks on its own endpoints, with envelopes and
    /// requests of its own and the jobs' counters from zero.
    ///
    /// # Safety
    /// The worker must not outlive `self`, and must be called only for the endpoints it owns.
    pub unsafe fn worker(&self, me: u32, parts: u32) -> Mpi {
        let jobs = self
            .jobs
            .iter()
            .map(|j| JobRun {
                end_ps: 0,
                ranks_done: 0,
                bytes_sent: 0,
                messages_sent: 0,
                collective_calls: Vec::new(),
                ..j.clone()
            })
            .collect();
        Mpi::over(
            self.params,
            jobs,
            self.ranks.view(),
            Arc::clone(&self.rank_of_endpoint),
            Arc::clone(&self.endpoint_of_rank),
            me,
            parts,
        )
    }

    /// The jobs' counters of this worker's ranks.
    pub fn counters(&self) -> Vec<JobCounters> {
        self.jobs
            .iter()
            .map(|j| JobCounters {
                end_ps: j.end_ps,
                ranks_done: j.ranks_done,
                bytes_sent: j.bytes_sent,
                messages_sent: j.messages_sent,
                collective_calls: j.collective_calls.clone(),
            })
            .collect()
    }

    /// Adds a finished worker's job counters to this engine's.
    pub fn absorb(&mut self, counters: &[JobCounters]) {
        for (mine, theirs) in self.jobs.iter_mut().zip(counters) {
            mine.end_ps = mine.end_ps.max(theirs.end_ps);
            mine.ranks_done += theirs.ranks_done;
            mine.bytes_sent += theirs.bytes_sent;
            mine.messages_sent += theirs.messages_sent;
            add_calls(&mut mine.collective_calls, &theirs.collective_calls);
        }
    }

    /// The first wake-up of every rank on an endpoint for which `owned` holds (at its job's
    /// start).
    pub fn start(&self, owned: impl Fn(u32) -> bool, out: &mut Vec<Action>) {
        out.extend(
            self.ranks
                .held()
                .iter()
                .filter(|r| owned(r.endpoint))
                .map(|r| Action::Wake {
                    at: r.wake_at,
                    endpoint: r.endpoint,
                    tag: 0,
                }),
        );
    }

    pub fn finished(&self) -> bool {
        self.jobs.iter().all(JobRun::finished)
    }

    /// The envelope of message `token`, for the worker its message now goes to.
    pub fn envelope(&self, token: u32) -> Envelope {
        *self.env(token)
    }

    /// Keeps the copy of another worker's envelope whose message comes here (replacing an older
    /// copy: a rendezvous goes back and forth).
    pub fn accept(&mut self, token: u32, envelope: Envelope) {
        match self.slot(token) {
            Some(slot) => self.envelopes[slot] = envelope,
            None => {
                self.copies.insert(token, envelope);
            }
        }
    }

    /// Tokens whose copies this worker is done with since the last call.
    pub fn take_released(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.released)
    }

    /// The worker that numbers envelope `token`.
    pub fn numbered_by(&self, token: u32) -> u32 {
        token % self.parts
    }

    /// Message `token` is over: free its number, or hand it back to the worker that gave it.
    pub fn release(&mut self, token: u32) {
        match self.slot(token) {
            Some(_) => self.free_envelopes.push(token),
            None => {
                self.copies.remove(&token);
                self.released.push(token);
            }
        }
    }

    /// Where this worker keeps envelope `token` if it numbered it.
    #[inline]
    fn slot(&self, token: u32) -> Option<usize> {
        if self.parts == 1 {
            // One worker numbers every envelope (and spares the divisions).
            return Some(token as usize);
        }
        (token % self.parts == self.me).then_some((token / self.parts) as usize)
    }

    fn env(&self, token: u32) -> &Envelope {
        match self.slot(token) {
            Some(slot) => &self.envelopes[slot],
            None => &self.copies[&token],
        }
    }

    fn env_mut(&mut self, token: u32) -> &mut Envelope {
        match self.slot(token) {
            Some(slot) => &mut self.envelopes[slot],
            None => self
                .copies
                .get_mut(&token)
                .expect("a copy came with the message"),
        }
    }

    /// A scheduled wake-up of endpoint `endpoint`'s host.
    pub fn wake(&mut self, now: Time, endpoint: u32, out: &mut Vec<Action>) {
        let g = self.rank_of_endpoint[endpoint as usize];
        if g != NO_RANK {
            let rank = &self.ranks[g as usize];
            if rank.state == State::Sleeping && rank.wake_at == now {
                self.run(now, g, out);
            }
        }
    }

    /// The last packet of message `token` left its source NIC; its tail is out at `tail_ps`.
    pub fn sent(&mut self, now: Time, token: u32, tail_ps: Time, out: &mut Vec<Action>) {
        let env = *self.env(token);
        if matches!(env.kind, Kind::Eager | Kind::Data) {
            self.complete(now, env.send_request, tail_ps, out);
        }
    }

    /// A packet of message `token`, one of `packets`, arrived at its destination: whether it
    /// was the last.
    pub fn packet_arrived(&mut self, token: u32, packets: u32) -> bool {
        let env = self.env_mut(token);
        env.packets_arrived += 1;
        let done = env.packets_arrived == packets;
        if done {
            env.packets_arrived = 0;
        }
        done
    }

    /// Message `token` has fully arrived at its destination.
    pub fn arrived(&mut self, now: Time, token: u32, out: &mut Vec<Action>) {
        let env = *self.env(token);
        match env.kind {
            Kind::ClearToSend => {
                // At the sender: the data follows at once.
                self.env_mut(token).kind = Kind::Data;
                out.push(self.message(now, env.src, env.dst, env.bytes, token));
            }
            Kind::Data => {
                self.release(token);
                let done = now + self.params.recv_overhead_ps;
                self.complete(now, env.recv_request, done, out);
            }
            Kind::Eager | Kind::RequestToSend => {
                let d = env.dst as usize;
                let expected = self.ranks[d].recv_seq.entry(env.src).or_insert(0);
                if env.seq != *expected {
                    self.ranks[d].held.push(token);
                    return;
                }
                *expected += 1;
                self.deliver(now, token, out);
                // Earlier arrivals from the same source that were waiting for this one.
                while let Some(at) = self.ranks[d].held.iter().position(|&t| {
                    let e = self.env(t);
                    e.src == env.src && Some(&e.seq) == self.ranks[d].recv_seq.get(&env.src)
                }) {
                    let next = self.ranks[d].held.swap_remove(at);
                    *self.ranks[d].recv_seq.get_mut(&env.src).expect("seen") += 1;
                    self.deliver(now, next, out);
                }
            }
        }
    }

    fn message(&self, ready_ps: Time, src: u32, dst: u32, bytes: u64, token: u32) -> Action {
        Action::Send {
            ready_ps,
            src: self.endpoint_of_rank[src as usize],
            dst: self.endpoint_of_rank[dst as usize],
            bytes,
            token,
        }
    }

    /// An eager message or a request-to-send, in order: match it or keep it as unexpected.
    fn deliver(&mut self, now: Time, token: u32, out: &mut Vec<Action>) {
        let env = *self.env(token);
        let rank = &mut self.ranks[env.dst as usize];
        let found = rank
            .posted
            .iter()
            .position(|p| (p.src == env.src || p.src == NO_RANK) && p.tag.matches(env.tag));
        match found {
            Some(at) => {
                let posted = rank.posted.remove(at);
                self.matched(now, posted.request, token, out);
            }
            None => rank.unexpected.push(token),
        }
    }

    /// A receive met its message (now, at the receiver).
    fn matched(&mut self, now: Time, request: u32, token: u32, out: &mut Vec<Action>) {
        let env = self.env_mut(token);
        match env.kind {
            Kind::Eager => {
                self.release(token);
                let done = now + self.params.recv_overhead_ps;
                self.complete(now, request, done, out);
            }
            _ => {
                env.kind = Kind::ClearToSend;
                env.recv_request = request;
                let (src, dst) = (env.src, env.dst);
                out.push(self.message(now, dst, src, 0, token));
            }
        }
    }

    /// Request `request` completes at `done_ps`; its rank resumes if that was all it waited for.
    fn complete(&mut self, now: Time, request: u32, done_ps: Time, out: &mut Vec<Action>) {
        self.requests[request as usize].done_ps = done_ps;
        let g = self.requests[request as usize].owner;
        if self.ranks[g as usize].state == State::Waiting {
            self.run(now, g, out);
        }
    }

    fn new_request(&mut self, owner: u32) -> u32 {
        let request = Request {
            done_ps: NEVER,
            owner,
            id: -1,
        };
        match self.free_requests.pop() {
            Some(i) => {
                self.requests[i as usize] = request;
                i
            }
            None => {
                self.requests.push(request);
                (self.requests.len() - 1) as u32
            }
        }
    }

    fn new_envelope(&mut self, envelope: Envelope) -> u32 {
        match self.free_envelopes.pop() {
            Some(token) => {
                self.envelopes[(token / self.parts) as usize] = envelope;
                token
            }
            None => {
                self.envelopes.push(envelope);
                (self.envelopes.len() - 1) as u32 * self.parts + self.me
            }
        }
    }

    /// Rank `g` posts a send of `bytes` to rank `dst` (global indices); its CPU is busy for the
    /// send overhead first. Returns the request.
    fn post_send(
        &mut self,
        now: Time,
        g: u32,
        dst: u32,
        tag: u64,
        bytes: u64,
        out: &mut Vec<Action>,
    ) -> u32 {
        let request = self.new_request(g);
        let rank = &mut self.ranks[g as usize];
        let ready = rank.cpu_free_ps.max(now) + self.params.send_overhead_ps;
        rank.cpu_free_ps = ready;
        let seq = rank.send_seq.entry(dst).or_insert(0);
        let this_seq = *seq;
        *seq += 1;
        let job = &mut self.jobs[rank.job as usize];
        job.bytes_sent += bytes;
        job.messages_sent += 1;
        let eager = bytes <= job.eager_limit_bytes;
        let token = self.new_envelope(Envelope {
            kind: if eager {
                Kind::Eager
            } else {
                Kind::RequestToSend
            },
            src: g,
            dst,
            tag,
            bytes,
            seq: this_seq,
            send_request: request,
            recv_request: u32::MAX,
            packets_arrived: 0,
        });
        out.push(self.message(ready, g, dst, if eager { bytes } else { 0 }, token));
        request
    }

    /// Rank `g` posts a receive from `src` (global index, or NO_RANK for any) with `tag`.
    fn post_recv(
        &mut self,
        now: Time,
        g: u32,
        src: u32,
        tag: TagPattern,
        out: &mut Vec<Action>,
    ) -> u32 {
        let request = self.new_request(g);
        let found = self.ranks[g as usize].unexpected.iter().position(|&t| {
            let e = self.env(t);
            (src == NO_RANK || e.src == src) && tag.matches(e.tag)
        });
        match found {
            Some(at) => {
                let token = self.ranks[g as usize].unexpected.remove(at);
                self.matched(now, request, token, out);
            }
            None => self.ranks[g as usize]
                .posted
                .push(PostedRecv { src, tag, request }),
        }
        request
    }

    /// When every request rank `g` waits for is done (None: some are not known yet).
    fn waiting_done(&self, g: u32) -> Option<Time> {
        let mut latest = 0;
        for &q in &self.ranks[g as usize].waiting {
            let done = self.requests[q as usize].done_ps;
            if done == NEVER {
                return None;
            }
            latest = latest.max(done);
        }
        Some(latest)
    }

    fn sleep(&mut self, g: u32, at: Time, out: &mut Vec<Action>) {
        let rank = &mut self.ranks[g as usize];
        rank.state = State::Sleeping;
        rank.wake_at = at;
        out.push(Action::Wake {
            at,
            endpoint: rank.endpoint,
            tag: 0,
        });
    }

    /// Runs rank `g` from where it stands, at `now`, until it must wait.
    fn run(&mut self, now: Time, g: u32, out: &mut Vec<Action>) {
        let gi = g as usize;
        let job_index = self.ranks[gi].job as usize;
        let first_rank = g - self.ranks[gi].rank;
        self.ranks[gi].state = State::Running;
        loop {
            if !self.ranks[gi].waiting.is_empty() {
                let Some(done) = self.waiting_done(g) else {
                    self.ranks[gi].state = State::Waiting;
                    return;
                };
                let rank = &mut self.ranks[gi];
                self.free_requests.append(&mut rank.waiting);
                rank.cpu_free_ps = rank.cpu_free_ps.max(done);
            }
            if self.ranks[gi].cpu_free_ps > now {
                let at = self.ranks[gi].cpu_free_ps;
                self.sleep(g, at, out);
                return;
            }
            if let Some(run) = self.ranks[gi].collective {
                self.collective_step(now, g, first_rank, run, out);
                continue;
            }
            let rank = &self.ranks[gi];
            let program = &self.jobs[job_index].program;
            let ops = program.rank_ops(rank.rank);
            let Some(&op) = ops.get(rank.pc as usize) else {
                let rank = &mut self.ranks[gi];
                rank.state = State::Done;
                let job = &mut self.jobs[job_index];
                job.ranks_done += 1;
                job.end_ps = job.end_ps.max(now);
                return;
            };
            self.ranks[gi].pc += 1;
            let peer = first_rank.wrapping_add(op.peer as u32);
            let tag = if op.tag == ANY {
                TagPattern::AnyOn(op.comm)
            } else {
                TagPattern::Exact(u64::from(op.comm) << 32 | op.tag as u64)
            };
            match op.kind {
                OpKind::Compute => self.ranks[gi].cpu_free_ps = now.saturating_add(op.value),
                OpKind::Isend | OpKind::Send => {
                    let TagPattern::Exact(tag) = tag else {
                        unreachable!("checked: a send's tag is >= 0")
                    };
                    let q = self.post_send(now, g, peer, tag, op.value, out);
                    self.requests[q as usize].id = op.request;
                    let rank = &mut self.ranks[gi];
                    if op.kind == OpKind::Send {
                        rank.waiting.push(q);
                    } else {
                        rank.outstanding.push(q);
                    }
                }
                OpKind::Irecv | OpKind::Recv => {
                    let src = if op.peer == ANY { NO_RANK } else { peer };
                    let q = self.post_recv(now, g, src, tag, out);
                    self.requests[q as usize].id = op.request;
                    let rank = &mut self.ranks[gi];
                    if op.kind == OpKind::Recv {
                        rank.waiting.push(q);
                    } else {
                        rank.outstanding.push(q);
                    }
                }
                OpKind::Wait => {
                    let rank = &mut self.ranks[gi];
                    let at = rank
                        .outstanding
                        .iter()
                        .position(|&q| self.requests[q as usize].id == op.request)
                        .expect("checked: waits follow their request");
                    let q = rank.outstanding.swap_remove(at);
                    rank.waiting.push(q);
                }
                OpKind::Waitall => {
                    let rank = &mut self.ranks[gi];
                    rank.waiting.append(&mut rank.outstanding);
                }
                OpKind::Comm => {}
                kind => {
                    let kind = kind.collective().expect("the other kinds are collectives");
                    let program = &self.jobs[job_index].program;
                    let rank = &mut self.ranks[gi];
                    let (size, me) = program
                        .position(op.comm, rank.rank)
                        .expect("checked: collectives run in the rank's communicators");
                    let instance = rank.collectives_started[op.comm as usize];
                    rank.collectives_started[op.comm as usize] += 1;
                    let algorithm = match op.algorithm {
                        Some(Algorithm::Auto) => {
                            self.params.thresholds.choose(kind, op.value, size)
                        }
                        chosen => chosen.unwrap_or(kind.default_algorithm()),
                    };
                    if me == 0 {
                        let calls = &mut self.jobs[job_index].collective_calls;
                        calls.resize(KINDS.len() * Algorithm::ALL.len(), 0);
                        calls[call_index(kind, algorithm)] += 1;
                    }
                    rank.collective = Some(CollectiveRun {
                        collective: Collective {
                            kind,
                            algorithm,
                            ranks: size,
                            me,
                            root: op.peer.max(0) as u32,
                            bytes: op.value,
                        },
                        comm: op.comm,
                        step: 0,
                        tag_base: COLLECTIVE_TAG
                            | u64::from(op.comm) << 44
                            | u64::from(instance & 0xff_ffff) << 20,
                    });
                }
            }
        }
    }

    /// Posts the next step of rank `g`'s collective that has something to do, or ends it.
    fn collective_step(
        &mut self,
        now: Time,
        g: u32,
        first_rank: u32,
        mut run: CollectiveRun,
        out: &mut Vec<Action>,
    ) {
        let gi = g as usize;
        let mut sends = std::mem::take(&mut self.sends);
        let mut recvs = std::mem::take(&mut self.recvs);
        sends.clear();
        recvs.clear();
        while sends.is_empty() && recvs.is_empty() && run.step < run.collective.steps() {
            run.collective.step(run.step, &mut sends, &mut recvs);
            run.step += 1;
        }
        let job = self.ranks[gi].job as usize;
        let member = |p: u32| -> u32 {
            first_rank
                + match self.jobs[job].program.members(run.comm) {
                    None => p,
                    Some(m) => m[p as usize],
                }
        };
        let tag = run.tag_base | u64::from(run.step);
        let recv_from: Vec<u32> = recvs.iter().map(|t| member(t.peer)).collect();
        let send_to: Vec<(u32, u64)> = sends.iter().map(|t| (member(t.peer), t.bytes)).collect();
        for src in recv_from {
            let q = self.post_recv(now, g, src, TagPattern::Exact(tag), out);
            self.ranks[gi].waiting.push(q);
        }
        for (dst, bytes) in send_to {
            let q = self.post_send(now, g, dst, tag, bytes, out);
            self.ranks[gi].waiting.push(q);
        }
        self.ranks[gi].collective = (!(sends.is_empty() && recvs.is_empty())
            || run.step < run.collective.steps())
        .then_some(run);
        self.sends = sends;
        self.recvs = recvs;
    }

    /// The ranks on endpoints for which `owned` holds that have not finished, for a run that
    /// cannot go on, by global rank index.
    pub fn stuck(&self, owned: impl Fn(u32) -> bool) -> Vec<(u32, StalledRank)> {
        self.ranks
            .held()
            .iter()
            .enumerate()
            .filter(|(_, r)| r.state != State::Done && owned(r.endpoint))
            .map(|(global, r)| {
                let job = &self.jobs[r.job as usize];
                let index = r.pc.saturating_sub(1);
                let receives: Vec<String> = r
                    .posted
                    .iter()
                    .map(|p| {
                        let from = if p.src == NO_RANK {
                            "any source".to_string()
                        } else {
                            format!("rank {}", p.src - job.first_rank)
                        };
                        let on = |comm: u64| match comm {
                            0 => String::new(),
                            k => format!(" on communicator {k}"),
                        };
                        match p.tag {
                            TagPattern::AnyOn(k) => {
                                format!("a message from {from} with any tag{}", on(k.into()))
                            }
                            TagPattern::Exact(t) if t & COLLECTIVE_TAG != 0 => {
                                format!("a collective message from {from}")
                            }
                            TagPattern::Exact(t) => format!(
                                "a message from {from} with tag {}{}",
                                t & u64::from(u32::MAX),
                                on(t >> 32)
                            ),
                        }
                    })
                    .collect();
                let what = match (
                    &r.collective,
                    job.program.rank_ops(r.rank).get(index as usize),
                ) {
                    (Some(c), _) => format!(
                        "{} ({}) step {} of {}",
                        c.collective.kind.name(),
                        c.collective.algorithm.name(),
                        c.step,
                        c.collective.steps()
                    ),
                    (None, Some(op)) => op.kind.name().to_string(),
                    (None, None) => "its end".to_string(),
                };
                let waits = if receives.is_empty() {
                    "a send to complete".to_string()
                } else {
                    receives.join(", ")
                };
                let stalled = StalledRank {
                    job: job.name.clone(),
                    rank: r.rank,
                    operation: index,
                    waiting_for: format!("{what}, waiting for {waits}"),
                };
                (global as u32, stalled)
            })
            .collect()
    }

    /// Runs the jobs on an ideal network (zero latency, infinite bandwidth): a message leaves
    /// its NIC and arrives the moment it is ready. Returns each job's completion time.
    pub fn run_ideal(mut self) -> Vec<Time> {
        #[derive(PartialEq, Eq, PartialOrd, Ord)]
        enum Event {
            /// A message leaves its NIC and arrives: one event, as nothing can come between
            /// the two at one instant (what either schedules comes after both).
            Message(u32),
            Wake(u32),
        }
        let mut queue = std::collections::BinaryHeap::new();
        let mut order = 0u64;
        let mut out = Vec::new();
        self.start(|_| true, &mut out);
        let mut now = 0;
        loop {
            for action in out.drain(..) {
                let (at, event) = match action {
                    Action::Send {
                        ready_ps, token, ..
                    } => (ready_ps, Event::Message(token)),
                    Action::Wake { at, endpoint, .. } => (at, Event::Wake(endpoint)),
                };
                queue.push(std::cmp::Reverse((at.max(now), order, event)));
                order += 1;
            }
            let Some(std::cmp::Reverse((at, _, event))) = queue.pop() else {
                break;
            };
            now = at;
            match event {
                Event::Message(token) => {
                    self.sent(now, token, now, &mut out);
                    self.arrived(now, token, &mut out);
                }
                Event::Wake(endpoint) => self.wake(now, endpoint, &mut out),
            }
        }
        self.jobs.iter().map(|j| j.end_ps - j.start_ps).collect()
    }
}

/// What one job did.
#[derive(Debug, Clone)]
pub struct JobResult {
    pub name: String,
    pub app: String,
    pub ranks: u32,
    pub endpoints: Vec<u32>,
    pub start_ps: Time,
    pub end_ps: Time,
    pub bytes_sent: u64,
    pub messages_sent: u64,
    /// The algorithms its collectives ran, `kind:algorithm=calls, ...` ([`JobRun::algorithms`]).
    pub algorithms: String,
    /// The same job on an ideal network (zero latency, infinite bandwidth).
    pub ideal_ps: Option<Time>,
    /// The same job alone on the machine, same placement.
    pub alone_ps: Option<Time>,
}

impl JobResult {
    pub fn completion_ps(&self) -> Time {
        self.end_ps - self.start_ps
    }

    /// V_j / T_j in GB/s (bytes per ns).
    pub fn communication_rate_gbytes_per_s(&self) -> f64 {
        self.bytes_sent as f64 / (self.completion_ps() as f64 / 1000.0).max(1e-9)
    }
}

impl Host for Mpi {
    fn start(&mut self, owns: &dyn Fn(u32) -> bool, out: &mut Vec<Action>) {
        Mpi::start(self, owns, out);
    }

    fn wake(&mut self, now: Time, endpoint: u32, _tag: u32, out: &mut Vec<Action>) {
        Mpi::wake(self, now, endpoint, out);
    }

    fn sent(&mut self, now: Time, token: u32, tail_ps: Time, out: &mut Vec<Action>) {
        Mpi::sent(self, now, token, tail_ps, out);
    }

    fn packet_arrived(&mut self, token: u32, packets: u32) -> Option<bool> {
        // A message of a job counts its packets in its envelope (no map lookup).
        Some(Mpi::packet_arrived(self, token, packets))
    }

    fn arrived(&mut self, now: Time, _src: u32, _dst: u32, token: u32, out: &mut Vec<Action>) {
        Mpi::arrived(self, now, token, out);
    }

    fn common_message_bytes(&self, mtu_bytes: u64) -> Vec<u64> {
        // Full data packets and bare control messages.
        vec![mtu_bytes, 0]
    }

    fn note_for(&self, token: u32) -> Option<HostNote> {
        Some(HostNote::Envelope {
            token,
            envelope: self.envelope(token),
        })
    }

    fn take_notes(&mut self) -> Vec<(u32, HostNote)> {
        self.take_released()
            .into_iter()
            .map(|token| (self.numbered_by(token), HostNote::Released { token }))
            .collect()
    }

    fn accept(&mut self, note: HostNote) {
        match note {
            HostNote::Envelope { token, envelope } => Mpi::accept(self, token, envelope),
            HostNote::Released { token } => self.release(token),
        }
    }

    unsafe fn worker(&self, me: u32, parts: u32) -> Box<dyn Host> {
        // SAFETY: as the caller promises.
        Box::new(unsafe { Mpi::worker(self, me, parts) })
    }

    fn counters(&self) -> HostCounters {
        HostCounters::Jobs(Mpi::counters(self))
    }

    fn absorb(&mut self, counters: &HostCounters) {
        if let HostCounters::Jobs(jobs) = counters {
            Mpi::absorb(self, jobs);
        }
    }

    fn finished(&self) -> bool {
        Mpi::finished(self)
    }

    fn stuck(&self, owns: &dyn Fn(u32) -> bool) -> Vec<(u32, StalledRank)> {
        Mpi::stuck(self, owns)
    }

    fn results(self: Box<Self>, _endpoints: u32, summary: &mut Summary) -> HostResults {
        let jobs: Vec<JobResult> = self
            .jobs
            .into_iter()
            .map(|j| JobResult {
                algorithms: j.algorithms(),
                name: j.name,
                app: j.app,
                ranks: j.program.ranks,
                endpoints: j.endpoints,
                start_ps: j.start_ps,
                end_ps: j.end_ps,
                bytes_sent: j.bytes_sent,
                messages_sent: j.messages_sent,
                ideal_ps: None,
                alone_ps: None,
            })
            .collect();
        if !jobs.is_empty() {
            summary.set("jobs", Value::U64(jobs.len() as u64));
            let makespan = jobs.iter().map(|j| j.end_ps).max().unwrap_or(0);
            summary.set(
                "jobs_completion_ns_max",
                Value::F64(makespan as f64 / 1000.0),
            );
            summary.set(
                "messages_sent",
                Value::U64(jobs.iter().map(|j| j.messages_sent).sum()),
            );
            summary.set(
                "bytes_sent",
                Value::U64(jobs.iter().map(|j| j.bytes_sent).sum()),
            );
            summary.set(
                "communication_rate_gbytes_per_s",
                Value::F64(
                    jobs.iter()
                        .map(|j| j.communication_rate_gbytes_per_s())
                        .sum(),
                ),
            );
        }
        HostResults {
            jobs,
            endpoint_columns: Vec::new(),
        }
    }
}
