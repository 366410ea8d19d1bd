//! Bit sets over a router's network ports (bit i: its i-th network port, in port order), as the
//! tables of closer ports on groups and on graphs keep them.

/// Bit sets, 4 bytes each where no router has more than 32 network ports.
pub(super) enum PortMasks {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl PortMasks {
    /// Bytes per set where no router has more than `widest` network ports (at most 64).
    pub(super) fn bytes_each(widest: usize) -> usize {
        if widest <= 32 {
            4
        } else {
            8
        }
    }

    /// The sets `masks`, each kept in `bytes_each` bytes.
    pub(super) fn new(masks: Vec<u64>, bytes_each: usize) -> Self {
        if bytes_each == 4 {
            PortMasks::Narrow(masks.into_iter().map(|bits| bits as u32).collect())
        } else {
            PortMasks::Wide(masks)
        }
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> u64 {
        match self {
            PortMasks::Narrow(masks) => u64::from(masks[i]),
            PortMasks::Wide(masks) => masks[i],
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.bytes() == 0
    }

    pub(super) fn bytes(&self) -> usize {
        match self {
            PortMasks::Narrow(masks) => masks.len() * 4,
            PortMasks::Wide(masks) => masks.len() * 8,
        }
    }
}

/// Bits over `ports` (in their order) of those whose neighbour `admits`.
pub(super) fn port_bits(ports: &[(u16, u32)], admits: impl Fn(u32) -> bool) -> u64 {
    ports
        .iter()
        .enumerate()
        .filter(|&(_, &(_, nb))| admits(nb))
        .fold(0, |bits, (i, _)| bits | 1 << i)
}
