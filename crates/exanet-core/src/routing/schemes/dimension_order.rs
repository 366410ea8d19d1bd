//! Dimension-order routing on grids without arithmetic ports (express meshes, HyperX): minimal
//! hops in the lowest dimension (link class) that still differs, one fixed port among them by
//! the destination. Tori and meshes have their own arithmetic version (`routing::dor`).

use super::{longest_line, Choice, ClassPlan, Needs, Paths, Position, Scheme};
use crate::routing::RouteQuery;

pub struct DimensionOrderOnLines;

impl Scheme for DimensionOrderOnLines {
    fn minimal_routes(&self) -> bool {
        true
    }

    fn name(&self) -> &'static str {
        "dor"
    }

    fn needs(&self) -> Needs {
        Needs::Grid(
            "a torus, mesh, express mesh or HyperX (dimension-order routing needs dimensions)",
        )
    }

    fn plan(&self, paths: &Paths) -> (ClassPlan, u32) {
        (
            ClassPlan::DimensionHops,
            longest_line(&paths.neighbours, &paths.classes),
        )
    }

    fn choice(&self, paths: &Paths, at: Position, q: &RouteQuery) -> Choice {
        Choice {
            lowest_dimension: true,
            ..Choice::one(paths.by_destination(q, at))
        }
    }
}
