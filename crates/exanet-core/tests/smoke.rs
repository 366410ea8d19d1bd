mod common;
use common::*;
use serde_json::json;

#[test]
fn prints_a_summary() {
    let out = run_ok(&with(&[("traffic.load", json!(0.3))]));
    for (k, v) in &out.summary.entries {
        println!("{k} = {v:?}");
    }
}
