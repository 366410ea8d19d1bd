//! `exanet._core`: the narrow boundary between Python and the simulator. A config goes in as
//! core JSON; one call runs a whole simulation with the GIL released; the summary comes back as
//! a dict and each table as column buffers (docs/core-interface.md).

use exanet_core::config::TopologyConfig;
use exanet_core::describe::{describe_topology as describe_topology_core, DescribeOptions, Method};
use exanet_core::parallel::Transport;
use exanet_core::stats::{Table, Value};
use exanet_core::{
    check_routing_with_progress, describe, job_program as job_program_core, simulate_on, Config,
    DeadlockReport, RunOutput, SimError, StallReport, StuckChannel,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

mod guard;
mod mpi;

use guard::guarded;

create_exception!(
    _core,
    ConfigError,
    PyValueError,
    "A configuration that cannot be simulated."
);
create_exception!(
    _core,
    DeadlockError,
    PyRuntimeError,
    "The watchdog stopped a deadlocked run."
);
create_exception!(
    _core,
    StalledError,
    PyRuntimeError,
    "A message-passing program that can never finish."
);
create_exception!(
    _core,
    InternalError,
    PyRuntimeError,
    "A bug in exanet: the core stopped where it never should (a panic), with what failed."
);
create_exception!(
    _core,
    TransportError,
    PyRuntimeError,
    "The processes of a run across processes could not go on together."
);

fn stalled_to_py(py: Python<'_>, report: &StallReport) -> PyResult<PyErr> {
    let ranks = PyList::empty(py);
    for r in &report.ranks {
        let d = PyDict::new(py);
        d.set_item("job", &r.job)?;
        d.set_item("rank", r.rank)?;
        d.set_item("operation", r.operation)?;
        d.set_item("waiting_for", &r.waiting_for)?;
        ranks.append(d)?;
    }
    let d = PyDict::new(py);
    d.set_item("time_ns", report.time_ps as f64 / 1000.0)?;
    d.set_item("ranks", ranks)?;
    Ok(StalledError::new_err((report.to_string(), d.unbind())))
}

fn config_error(e: exanet_core::ConfigError) -> PyErr {
    ConfigError::new_err((e.key, e.value, e.expected))
}

fn parse(config_json: &str) -> PyResult<Config> {
    Config::from_json(config_json).map_err(config_error)
}

fn value_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::U64(v) => v.into_pyobject(py)?.into_any(),
        Value::F64(v) => v.into_pyobject(py)?.into_any(),
        Value::Bool(v) => v.into_pyobject(py)?.to_owned().into_any(),
        Value::Str(v) => v.into_pyobject(py)?.into_any(),
    })
}

fn channel_to_py<'py>(py: Python<'py>, c: &StuckChannel) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &c.name)?;
    d.set_item("router", c.router)?;
    d.set_item("port", c.port)?;
    d.set_item("port_name", &c.port_name)?;
    d.set_item("vc", c.vc)?;
    d.set_item("peer_router", c.peer_router)?;
    d.set_item("queued_packets", c.queued_packets)?;
    d.set_item("credits_bytes", c.credits_bytes)?;
    Ok(d)
}

fn deadlock_to_py(py: Python<'_>, report: &DeadlockReport) -> PyResult<PyErr> {
    let d = PyDict::new(py);
    d.set_item("time_ns", report.time_ps as f64 / 1000.0)?;
    d.set_item("packets_in_network", report.packets_in_network)?;
    let channels = |list: &[StuckChannel]| -> PyResult<Bound<'_, PyList>> {
        let items = list
            .iter()
            .map(|c| channel_to_py(py, c))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    };
    d.set_item("stuck_channels", channels(&report.stuck_channels)?)?;
    d.set_item("cycle", channels(&report.cycle)?)?;
    Ok(DeadlockError::new_err((report.to_string(), d.unbind())))
}

fn table_to_py<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let columns = PyList::empty(py);
    let categories = PyDict::new(py);
    for column in &table.columns {
        let bytes = PyBytes::new(py, &column.data.to_le_bytes());
        columns.append((column.name, column.data.dtype(), bytes))?;
        if let Some(labels) = &column.categories {
            categories.set_item(column.name, labels)?;
        }
    }
    let d = PyDict::new(py);
    d.set_item("columns", columns)?;
    d.set_item("categories", categories)?;
    Ok(d)
}

/// The outcome of one run: the summary, and tables built on request.
#[pyclass(frozen, module = "exanet._core")]
struct RunResult {
    output: RunOutput,
}

#[pymethods]
impl RunResult {
    /// The run's summary: a flat dict whose keys carry their units.
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guarded("result summary", || {
            let d = PyDict::new(py);
            for (key, value) in &self.output.summary.entries {
                d.set_item(*key, value_to_py(py, value)?)?;
            }
            Ok(d)
        })
    }

    /// Table `"endpoints"`, `"links"`, `"jobs"`, `"bursts"`, `"traffic_matrix"`,
    /// `"injection_series"` or `"packet_sizes"` as column buffers.
    fn table<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
        guarded("result table", || {
            self.output.check_table_fits(name).map_err(config_error)?;
            let table = match name {
                "endpoints" => py.detach(|| self.output.endpoints()),
                "links" => py.detach(|| self.output.links()),
                "jobs" => self.output.jobs_table(),
                "bursts" => self.output.bursts(),
                "traffic_matrix" => self.output.traffic_matrix(),
                "injection_series" => py.detach(|| self.output.injection_series()),
                "packet_sizes" => self.output.packet_sizes(),
                other => {
                    return Err(PyKeyError::new_err(format!(
                        "no table {other:?}: the tables are \"endpoints\", \"links\", \"jobs\", \
                         \"bursts\", \"traffic_matrix\", \"injection_series\" and \"packet_sizes\""
                    )))
                }
            };
            table_to_py(py, &table)
        })
    }
}

/// Checks a core-JSON config and describes its network without simulating.
#[pyfunction]
fn validate<'py>(py: Python<'py>, config_json: &str) -> PyResult<Bound<'py, PyDict>> {
    guarded("validate", || {
        let config = parse(config_json)?;
        let info = py.detach(|| describe(&config)).map_err(config_error)?;
        let d = PyDict::new(py);
        d.set_item("routers", info.routers)?;
        d.set_item("endpoints", info.endpoints)?;
        d.set_item("ports_per_node", info.ports_per_node)?;
        d.set_item("network_links", info.network_links)?;
        d.set_item("ports_per_router", info.ports_per_router)?;
        d.set_item("link_classes", info.link_classes)?;
        d.set_item("diameter_hops", info.diameter_hops)?;
        d.set_item("average_distance_hops", info.average_distance_hops)?;
        d.set_item("topology_state_bytes", info.topology_state_bytes)?;
        d.set_item("routing_state_bytes", info.routing_state_bytes)?;
        Ok(d)
    })
}

/// The default partition of a core-JSON config's network into `parts`: method, balance, cut
/// links and lookahead.
#[pyfunction]
fn partition<'py>(py: Python<'py>, config_json: &str, parts: u32) -> PyResult<Bound<'py, PyDict>> {
    guarded("partition", || {
        let config = parse(config_json)?;
        let report = py
            .detach(|| exanet_core::partition(&config, parts))
            .map_err(config_error)?;
        let d = PyDict::new(py);
        d.set_item("parts", report.parts)?;
        d.set_item("method", report.method)?;
        d.set_item("routers_per_part", report.routers_per_part)?;
        d.set_item("endpoints_per_part", report.endpoints_per_part)?;
        d.set_item("cut_links", report.cut_links)?;
        d.set_item("lookahead_ps", report.lookahead_ps)?;
        Ok(d)
    })
}

/// Describes a topology (core-JSON `[topology]` table) without simulating: counts, distances,
/// path diversity, bisection and balance, measured with the GIL released.
#[pyfunction]
fn describe_topology<'py>(
    py: Python<'py>,
    topology_json: &str,
    options_json: &str,
) -> PyResult<Bound<'py, PyDict>> {
    guarded("describe_topology", || {
        let topology: TopologyConfig = serde_json::from_str(topology_json).map_err(|e| {
            ConfigError::new_err(("topology", topology_json.to_string(), e.to_string()))
        })?;
        let options: DescribeOptions = serde_json::from_str(options_json)
            .map_err(|e| PyValueError::new_err(format!("describe options: {e}")))?;
        let info = py
            .detach(|| describe_topology_core(&topology, &options))
            .map_err(config_error)?;
        let d = PyDict::new(py);
        d.set_item("family", info.family)?;
        d.set_item("endpoints", info.endpoints)?;
        d.set_item("routers", info.routers)?;
        d.set_item("radix", info.radix)?;
        d.set_item("network_links", info.network_links)?;
        d.set_item("ports_per_node", info.ports_per_node)?;
        d.set_item(
            "injection_links",
            u64::from(info.endpoints) * u64::from(info.ports_per_node),
        )?;
        let classes = PyDict::new(py);
        for (name, count) in &info.links_by_class {
            classes.set_item(name, count)?;
        }
        d.set_item("links_by_class", classes)?;
        d.set_item("ports_used_min", info.ports_used_min)?;
        d.set_item("ports_used_mean", info.ports_used_mean)?;
        d.set_item("ports_used_max", info.ports_used_max)?;
        d.set_item("ports_free", info.ports_free)?;
        d.set_item("groups", info.groups)?;
        d.set_item("diameter", info.diameter)?;
        d.set_item("diameter_method", info.diameter_method.name())?;
        d.set_item("router_diameter", info.router_diameter)?;
        d.set_item("average_router_distance", info.average_router_distance)?;
        d.set_item("average_endpoint_distance", info.average_endpoint_distance)?;
        d.set_item("distance_method", info.distance_method.name())?;
        d.set_item("distance_exact", info.distance_method != Method::Sampled)?;
        d.set_item("distance_sources", info.distance_sources)?;
        let pd = info.path_diversity.as_ref();
        d.set_item("path_diversity_mean", pd.map(|p| p.mean))?;
        d.set_item("path_diversity_min", pd.map(|p| p.min))?;
        d.set_item("path_diversity_max", pd.map(|p| p.max))?;
        d.set_item("path_diversity_pairs", pd.map(|p| p.pairs))?;
        d.set_item("path_diversity_sources", pd.map(|p| p.sources))?;
        d.set_item("bisection_links", info.bisection_links)?;
        d.set_item("bisection_method", info.bisection_method.name())?;
        d.set_item(
            "bisection_partitioner_links",
            info.bisection_partitioner_links,
        )?;
        d.set_item("balance", info.balance)?;
        d.set_item("edges", info.edges)?;
        d.set_item("router_groups", info.router_groups)?;
        Ok(d)
    })
}

/// Builds the channel-dependency graph of a config's routing and checks it for cycles, with the
/// GIL released. `progress(dict)` is called about every `progress_interval_s` seconds; if it
/// raises (or Ctrl-C arrives), the check stops and the exception propagates.
#[pyfunction]
#[pyo3(signature = (config_json, sources=None, max_draws=1024, progress=None, progress_interval_s=0.5))]
fn check_routing<'py>(
    py: Python<'py>,
    config_json: &str,
    sources: Option<u32>,
    max_draws: u32,
    progress: Option<Py<PyAny>>,
    progress_interval_s: f64,
) -> PyResult<Bound<'py, PyDict>> {
    guarded("check_routing", || {
        let config = parse(config_json)?;
        let mut callback_error: Option<PyErr> = None;
        let check = py
            .detach(|| {
                check_routing_with_progress(
                    &config,
                    sources,
                    max_draws,
                    progress_interval_s,
                    &mut |p| {
                        Python::attach(|py| {
                            let result = py.check_signals().and_then(|()| match &progress {
                                Some(callback) => {
                                    let d = PyDict::new(py);
                                    d.set_item("destinations_done", p.destinations_done)?;
                                    d.set_item("destinations_total", p.destinations_total)?;
                                    d.set_item("wall_s", p.wall_s)?;
                                    callback.call1(py, (d,)).map(drop)
                                }
                                None => Ok(()),
                            });
                            result.map_err(|e| callback_error = Some(e)).is_ok()
                        })
                    },
                )
            })
            .map_err(config_error)?;
        let Some(check) = check else {
            return Err(callback_error
                .unwrap_or_else(|| PyRuntimeError::new_err("the check was interrupted")));
        };
        let d = PyDict::new(py);
        d.set_item("acyclic", check.acyclic)?;
        d.set_item("scope", check.scope)?;
        d.set_item("channels", check.channels)?;
        d.set_item("dependencies", check.dependencies)?;
        d.set_item("pairs", check.pairs)?;
        d.set_item("draws_per_pair", check.draws_per_pair)?;
        d.set_item("sources_followed", check.sources_followed)?;
        d.set_item("sources_total", check.sources_total)?;
        d.set_item("exhaustive", check.exhaustive)?;
        let cycle = PyList::empty(py);
        for c in &check.cycle {
            let item = PyDict::new(py);
            item.set_item("router", c.router)?;
            item.set_item("port", c.port)?;
            item.set_item("vc", c.vc)?;
            item.set_item("name", &c.name)?;
            cycle.append(item)?;
        }
        d.set_item("cycle", cycle)?;
        Ok(d)
    })
}

/// Runs one simulation with the GIL released. `progress(dict)` is called about every
/// `progress_interval_s` seconds; if it raises, the run stops and the exception propagates.
/// With `comm` (an mpi4py communicator of several processes), every process calls this with
/// the same config and runs one worker of the simulation; each gets the whole result.
#[pyfunction]
#[pyo3(signature = (config_json, progress=None, progress_interval_s=0.5, comm=None))]
fn run(
    py: Python<'_>,
    config_json: &str,
    progress: Option<Py<PyAny>>,
    progress_interval_s: f64,
    comm: Option<Py<PyAny>>,
) -> PyResult<RunResult> {
    guarded("run", || {
        let config = parse(config_json)?;
        let comm = comm.map(|c| mpi::Comm::new(py, c)).transpose()?;
        let transport = comm.as_ref().map(|c| c as &dyn Transport);
        let mut callback_error: Option<PyErr> = None;
        let outcome = py.detach(|| {
            simulate_on(&config, transport, progress_interval_s, &mut |p| {
                // Signals (Ctrl-C) are checked here too, so a run without a callback stays killable.
                Python::attach(|py| {
                    let result = py.check_signals().and_then(|()| match &progress {
                        Some(callback) => {
                            let d = PyDict::new(py);
                            d.set_item("sim_time_ps", p.sim_time_ps)?;
                            d.set_item("target_time_ps", p.target_time_ps)?;
                            d.set_item("phase", p.phase.name())?;
                            d.set_item("events", p.events)?;
                            d.set_item("wall_s", p.wall_s)?;
                            d.set_item("packets_in_flight", p.packets_in_flight)?;
                            callback.call1(py, (d,)).map(drop)
                        }
                        None => Ok(()),
                    });
                    match result {
                        Ok(()) => true,
                        Err(e) => {
                            callback_error = Some(e);
                            false
                        }
                    }
                })
            })
        });
        match outcome {
            Ok(output) => Ok(RunResult { output }),
            Err(SimError::Config(e)) => Err(config_error(e)),
            Err(SimError::Deadlock(report)) => Err(deadlock_to_py(py, &report)?),
            Err(SimError::Stalled(report)) => Err(stalled_to_py(py, &report)?),
            Err(SimError::Transport(e)) => Err(TransportError::new_err(e.to_string())),
            Err(SimError::Interrupted) => Err(callback_error
                .unwrap_or_else(|| PyRuntimeError::new_err("the simulation was interrupted"))),
        }
    })
}

/// The operations of job `job` of a core-JSON jobs config, as trace columns.
#[pyfunction]
fn job_program<'py>(
    py: Python<'py>,
    config_json: &str,
    job: usize,
) -> PyResult<Bound<'py, PyDict>> {
    guarded("job_program", || {
        let config = parse(config_json)?;
        let table = py
            .detach(|| job_program_core(&config, job))
            .map_err(config_error)?;
        table_to_py(py, &table)
    })
}

/// Panics on purpose, inside the guard every entry point has: how the tests (and a user
/// checking an installation) see that a bug in the core reaches Python as `InternalError`.
#[pyfunction]
fn _raise_panic(message: &str) -> PyResult<()> {
    guarded("_raise_panic", || panic!("{message}"))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(partition, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(describe_topology, m)?)?;
    m.add_function(wrap_pyfunction!(check_routing, m)?)?;
    m.add_function(wrap_pyfunction!(job_program, m)?)?;
    m.add_function(wrap_pyfunction!(_raise_panic, m)?)?;
    m.add_class::<RunResult>()?;
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("DeadlockError", m.py().get_type::<DeadlockError>())?;
    m.add("StalledError", m.py().get_type::<StalledError>())?;
    m.add("TransportError", m.py().get_type::<TransportError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    guard::install_panic_hook();
    Ok(())
}
