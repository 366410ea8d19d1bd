//! Packets live in an arena and are queued through an intrusive `next` index, so queues cost
//! 8 bytes each and moving a packet never allocates.

use serde::{Deserialize, Serialize};

use crate::engine::Time;
use crate::routing::RouteState;

pub type PacketId = u32;
pub const NO_PACKET: PacketId = u32::MAX;
/// `Packet::message` of a packet that is a whole message the workload does not follow.
pub const NO_MESSAGE: u32 = u32::MAX;

/// One cache line per packet: the arena is accessed at random.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[repr(align(64))]
pub struct Packet {
    /// When the workload created the message this packet belongs to.
    pub gen_ps: Time,
    /// When its head left the NIC.
    pub inject_ps: Time,
    /// When its tail arrives (arrived) at the router that holds it.
    pub tail_ps: Time,
    pub next: PacketId,
    pub src: u32,
    pub dst: u32,
    pub dst_router: u32,
    /// Its message, for reassembly at the destination: the workload's token, or the source's
    /// number for a multi-packet message, or [`NO_MESSAGE`].
    pub message: u32,
    /// Packets in its message.
    pub message_packets: u32,
    /// Bytes on the wire: payload + header.
    pub bytes: u32,
    /// Router-to-router links traversed so far.
    pub hops: u16,
    /// [`MEASURED`] and [`RESPONSE`] bits.
    pub flags: u8,
    /// Routing state carried between routers ([`RouteState`], stored flat so that a packet
    /// stays one cache line).
    pub route_via: u32,
    pub route_phase: u8,
    /// Random bits for the packet's routing choices, fixed at creation.
    pub route_random: u32,
}

const _: () = assert!(std::mem::size_of::<Packet>() == 64);

/// [`Packet::flags`]: generated inside the measurement window.
pub const MEASURED: u8 = 1;
/// [`Packet::flags`]: of message class 1 (a response: its own VCs and priority when asked).
pub const RESPONSE: u8 = 2;

impl Packet {
    pub fn measured(&self) -> bool {
        self.flags & MEASURED != 0
    }

    /// Its message class: 0 (requests, and every message of other traffic) or 1 (responses).
    pub fn class(&self) -> u8 {
        (self.flags & RESPONSE) >> 1
    }

    pub fn route(&self) -> RouteState {
        RouteState {
            phase: self.route_phase,
            via: self.route_via,
        }
    }

    pub fn set_route(&mut self, state: RouteState) {
        self.route_phase = state.phase;
        self.route_via = state.via;
    }
}

/// Slab of packets with a free list.
#[derive(Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketArena {
    pub fn alloc(&mut self, packet: Packet) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = packet;
                id
            }
            None => {
                let capacity = self.slots.capacity();
                self.slots.push(packet);
                if self.slots.capacity() != capacity {
                    crate::engine::advise_huge_pages(&self.slots);
                }
                (self.slots.len() - 1) as PacketId
            }
        }
    }

    pub fn release(&mut self, id: PacketId) {
        self.free.push(id);
    }

    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(packet) = self.slots.get(id as usize) {
            crate::engine::prefetch_line(packet);
        }
    }

    /// Slots ever allocated: the peak number of live packets.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

impl std::ops::Index<PacketId> for PacketArena {
    type Output = Packet;
    #[inline]
    fn index(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }
}

impl std::ops::IndexMut<PacketId> for PacketArena {
    #[inline]
    fn index_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }
}

/// A FIFO of packets threaded through `Packet::next`.
#[derive(Debug, Clone, Copy)]
pub struct Fifo {
    pub head: PacketId,
    tail: PacketId,
}

impl Default for Fifo {
    fn default() -> Self {
        Fifo {
            head: NO_PACKET,
            tail: NO_PACKET,
        }
    }
}

impl Fifo {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == NO_PACKET
    }

    /// Appends; returns true if the packet is now at the head.
    #[inline]
    pub fn push(&mut self, id: PacketId, arena: &mut PacketArena) -> bool {
        arena[id].next = NO_PACKET;
        if self.head == NO_PACKET {
            self.head = id;
            self.tail = id;
            true
        } else {
            arena[self.tail].next = id;
            self.tail = id;
            false
        }
    }

    #[inline]
    pub fn pop(&mut self, arena: &PacketArena) -> PacketId {
        let id = self.head;
        self.head = arena[id].next;
        if self.head == NO_PACKET {
            self.tail = NO_PACKET;
        }
        id
    }

    pub fn len(&self, arena: &PacketArena) -> u32 {
        let mut n = 0;
        let mut id = self.head;
        while id != NO_PACKET {
            n += 1;
            id = arena[id].next;
        }
        n
    }
}
