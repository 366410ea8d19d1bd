//! Hop distances on midimews, in arithmetic: the length of the routing record
//! ([`Midimew::record`]), no table.

use super::Distances;
use crate::topology::Midimew;

pub struct MidimewDistances(pub Midimew);

impl Distances for MidimewDistances {
    fn hops(&self, from: u32, to: u32) -> u8 {
        self.0.distance(from, to).min(u32::from(u8::MAX)) as u8
    }

    fn diameter(&self) -> u8 {
        self.0.diameter().min(u32::from(u8::MAX)) as u8
    }

    fn bytes(&self) -> u64 {
        std::mem::size_of::<Midimew>() as u64
    }
}
