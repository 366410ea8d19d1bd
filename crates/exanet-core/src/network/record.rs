//! Optional traffic recording for characterisation (Su's UpDown study, ch. 4): a source-by-
//! destination traffic matrix (by endpoint, router or group), per-endpoint injection in fixed
//! time bins, and a histogram of packet sizes. Off by default: a run that records nothing pays
//! one branch per injection.

use serde::{Deserialize, Serialize};

use super::state::NEVER;
use crate::engine::Time;
use crate::error::ConfigError;
use crate::memory::Footprint;
use crate::stats::{ColumnData, Table};
use crate::topology::Topology;

/// What the matrix's rows and columns are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatrixLevel {
    #[default]
    Off,
    Endpoints,
    Routers,
    Groups,
    /// Endpoints up to [`AUTO_ENDPOINTS`], else routers up to [`AUTO_ROUTERS`], else groups.
    Auto,
}

pub const AUTO_ENDPOINTS: u32 = 1024;
pub const AUTO_ROUTERS: u32 = 4096;
/// Largest matrix side recorded densely (64 Mi cells of two counters: 1 GiB).
const MAX_SIDE: u64 = 8192;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordConfig {
    #[serde(default)]
    pub traffic_matrix: MatrixLevel,
    /// Width of the injection time bins (0: no time series).
    #[serde(default)]
    pub injection_bin_ps: u64,
    #[serde(default)]
    pub packet_sizes: bool,
}

/// Counters of the packets injected and delivered in the measurement window (the default
/// records nothing, and gives empty tables).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Recorder {
    level: MatrixLevel,
    /// Matrix index of every endpoint (its own id, its router's or its group's).
    index_of: Vec<u32>,
    side: usize,
    matrix_packets: Vec<u64>,
    matrix_bytes: Vec<u64>,
    bin_ps: Time,
    window_start: Time,
    /// Per endpoint, (bytes, packets) per bin from the window's start, grown as bins fill.
    series: Vec<Vec<(u64, u64)>>,
    /// Sizes of delivered packets (wire bytes) and their counts, in first-seen order.
    sizes: Vec<(u32, u64)>,
    record_sizes: bool,
}

impl Recorder {
    /// The recorder a config asks for (None when it records nothing), for a statistics
    /// window [`window_start`, `window_end`) (`window_end` NEVER: until the workload ends).
    pub fn build(
        config: &RecordConfig,
        topology: &dyn Topology,
        window_start: Time,
        window_end: Time,
    ) -> Result<Option<Recorder>, ConfigError> {
        if config.traffic_matrix == MatrixLevel::Off
            && config.injection_bin_ps == 0
            && !config.packet_sizes
        {
            return Ok(None);
        }
        let n = topology.num_endpoints();
        let router_of = |e: u32| topology.endpoint_attachment(e).0;
        let groups = |key: &str| -> Result<Vec<u32>, ConfigError> {
            (0..n)
                .map(|e| {
                    topology.group(router_of(e)).ok_or_else(|| {
                        ConfigError::new(
                            "record.traffic_matrix",
                            key,
                            format!(
                                "endpoints or routers: a {} has no groups",
                                topology.family()
                            ),
                        )
                    })
                })
                .collect()
        };
        let level = match config.traffic_matrix {
            MatrixLevel::Auto if n <= AUTO_ENDPOINTS => MatrixLevel::Endpoints,
            MatrixLevel::Auto if topology.num_routers() <= AUTO_ROUTERS => MatrixLevel::Routers,
            MatrixLevel::Auto => MatrixLevel::Groups,
            level => level,
        };
        let index_of: Vec<u32> = match level {
            MatrixLevel::Off => Vec::new(),
            MatrixLevel::Endpoints => (0..n).collect(),
            MatrixLevel::Routers => (0..n).map(router_of).collect(),
            MatrixLevel::Groups | MatrixLevel::Auto => {
                groups(&format!("{level:?}").to_lowercase())?
            }
        };
        let side = index_of.iter().map(|&i| i as usize + 1).max().unwrap_or(0);
        if side as u64 > MAX_SIDE {
            return Err(ConfigError::new(
                "record.traffic_matrix",
                format!("\"{}\" ({side} rows)", format!("{level:?}").to_lowercase()),
                format!(
                    "a level with at most {MAX_SIDE} rows: \"routers\" or \"groups\" (\"auto\" \
                     chooses)"
                ),
            ));
        }
        if config.injection_bin_ps > 0 && window_end != NEVER {
            // Every endpoint's bins of (bytes, packets), and their rows of the table.
            let bins = (window_end - window_start).div_ceil(config.injection_bin_ps);
            let mut need = Footprint::new();
            need.add(
                "injection bins",
                u64::from(n).saturating_mul(bins),
                16 + 2 * 32,
            );
            need.check(
                "record.injection_bin",
                format!(
                    "{} ns ({bins} bins of {n} endpoints)",
                    config.injection_bin_ps as f64 / 1000.0
                ),
            )?;
        }
        Ok(Some(Recorder {
            level,
            index_of,
            side,
            matrix_packets: vec![0; side * side],
            matrix_bytes: vec![0; side * side],
            bin_ps: config.injection_bin_ps,
            window_start,
            series: if config.injection_bin_ps > 0 {
                vec![Vec::new(); n as usize]
            } else {
                Vec::new()
            },
            sizes: Vec::new(),
            record_sizes: config.packet_sizes,
        }))
    }

    /// A packet of `bytes` on the wire left `src` for `dst` at `now` (in the window).
    #[inline]
    pub fn injected(&mut self, now: Time, src: u32, dst: u32, bytes: u32) {
        if self.side > 0 {
            let cell = self.index_of[src as usize] as usize * self.side
                + self.index_of[dst as usize] as usize;
            self.matrix_packets[cell] += 1;
            self.matrix_bytes[cell] += u64::from(bytes);
        }
        if let Some(bin) = (now - self.window_start).checked_div(self.bin_ps) {
            let bin = bin as usize;
            let series = &mut self.series[src as usize];
            if series.len() <= bin {
                series.resize(bin + 1, (0, 0));
            }
            series[bin].0 += u64::from(bytes);
            series[bin].1 += 1;
        }
    }

    /// A packet of `bytes` on the wire was delivered (in the window).
    #[inline]
    pub fn delivered(&mut self, bytes: u32) {
        if !self.record_sizes {
            return;
        }
        match self.sizes.iter_mut().find(|(b, _)| *b == bytes) {
            Some((_, count)) => *count += 1,
            None => self.sizes.push((bytes, 1)),
        }
    }

    /// Adds another worker's records (each worker records its own NICs).
    pub fn merge(&mut self, other: &Recorder) {
        for (a, b) in self.matrix_packets.iter_mut().zip(&other.matrix_packets) {
            *a += b;
        }
        for (a, b) in self.matrix_bytes.iter_mut().zip(&other.matrix_bytes) {
            *a += b;
        }
        for (mine, theirs) in self.series.iter_mut().zip(&other.series) {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), (0, 0));
            }
            for (a, b) in mine.iter_mut().zip(theirs) {
                a.0 += b.0;
                a.1 += b.1;
            }
        }
        for &(bytes, count) in &other.sizes {
            match self.sizes.iter_mut().find(|(b, _)| *b == bytes) {
                Some((_, c)) => *c += count,
                None => self.sizes.push((bytes, count)),
            }
        }
    }

    /// What the matrix's rows are ("off" when none was recorded).
    pub fn level_name(&self) -> &'static str {
        match self.level {
            MatrixLevel::Off => "off",
            MatrixLevel::Endpoints => "endpoints",
            MatrixLevel::Routers => "routers",
            MatrixLevel::Groups | MatrixLevel::Auto => "groups",
        }
    }

    /// Non-zero cells of the matrix: src, dst, packets, bytes.
    pub fn matrix_table(&self) -> Table {
        let cells: Vec<usize> = (0..self.matrix_packets.len())
            .filter(|&c| self.matrix_packets[c] > 0)
            .collect();
        let side = self.side.max(1);
        let mut t = Table::default();
        t.push(
            "src",
            ColumnData::U32(cells.iter().map(|&c| (c / side) as u32).collect()),
        );
        t.push(
            "dst",
            ColumnData::U32(cells.iter().map(|&c| (c % side) as u32).collect()),
        );
        t.push(
            "packets",
            ColumnData::U64(cells.iter().map(|&c| self.matrix_packets[c]).collect()),
        );
        t.push(
            "bytes",
            ColumnData::U64(cells.iter().map(|&c| self.matrix_bytes[c]).collect()),
        );
        t
    }

    /// Every endpoint's injection per bin, zeros included, over `bins` bins (the window's, or
    /// up to the last bin anything was injected in when the window is open-ended).
    pub fn series_table(&self, window_ps: Time) -> Table {
        let used = self.series.iter().map(Vec::len).max().unwrap_or(0);
        let bins = match self.bin_ps {
            0 => 0,
            bin_ps => (window_ps.div_ceil(bin_ps) as usize).max(used),
        };
        let n = self.series.len();
        let mut endpoint = Vec::with_capacity(n * bins);
        let mut start_ns = Vec::with_capacity(n * bins);
        let mut bytes = Vec::with_capacity(n * bins);
        let mut packets = Vec::with_capacity(n * bins);
        for (e, series) in self.series.iter().enumerate() {
            for bin in 0..bins {
                let (b, p) = series.get(bin).copied().unwrap_or((0, 0));
                endpoint.push(e as u32);
                start_ns.push((self.window_start + bin as Time * self.bin_ps) as f64 / 1000.0);
                bytes.push(b);
                packets.push(p);
            }
        }
        let mut t = Table::default();
        t.push("endpoint", ColumnData::U32(endpoint));
        t.push("bin_start_ns", ColumnData::F64(start_ns));
        t.push("bytes", ColumnData::U64(bytes));
        t.push("packets", ColumnData::U64(packets));
        t
    }

    /// Delivered packets by wire size, smallest first.
    pub fn sizes_table(&self) -> Table {
        let mut sizes = self.sizes.clone();
        sizes.sort_unstable();
        let mut t = Table::default();
        t.push(
            "bytes",
            ColumnData::U32(sizes.iter().map(|&(b, _)| b).collect()),
        );
        t.push(
            "packets",
            ColumnData::U64(sizes.iter().map(|&(_, c)| c).collect()),
        );
        t
    }
}
