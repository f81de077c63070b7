//! The optimality certificate is valid on the peers graphs: for every query the convex solver answered, the
//! bound the certificate gives (`examples/peers --certify`, run as a user runs it) is at least the convex
//! relaxation's optimum (`tests/data/peers/pN/convex.json`, produced by `shared/peers/convex.py`), and at least
//! the quote's own exact output.
#![cfg(feature = "server")]

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use common::bin::peers_example;

/// The convex solver's stated accuracy: Clarabel at 10⁻⁹ tolerances ends `optimal_inaccurate` and its optimum
/// is good to about 10⁻⁷ relative (`shared/peers/README.md`); `compare.py` flags a router above it only
/// beyond 0.01 bp. A bound below the solver's figure by less than that is not evidence of an invalid bound.
const SOLVER_TOLERANCE: f64 = 1e-6;

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

fn check(n: u32) -> (usize, usize) {
    let data = common::bin::repo().join("tests/data/peers").join(format!("p{n}"));
    let out = std::env::temp_dir().join(format!("tonroute-cert-p{n}-{}", std::process::id()));
    let status = Command::new(peers_example())
        .args([data.to_str().unwrap(), "--certify", "--out", out.to_str().unwrap()])
        .status()
        .expect("run examples/peers");
    assert!(status.success(), "peers --certify on p{n} failed");
    let ours: HashMap<u64, Value> = read(&out.join("results.tonroute.json"))["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["id"].as_u64().unwrap(), r.clone()))
        .collect();
    let convex = read(&data.join("convex.json"));
    let (mut checked, mut strictly_above) = (0, 0);
    for c in convex["results"].as_array().unwrap() {
        let id = c["id"].as_u64().unwrap();
        let Some(optimum) = c["bound_float"].as_f64().filter(|v| v.is_finite() && c["amount_out"].is_string()) else {
            continue; // the solver failed on this query
        };
        let r = &ours[&id];
        let out: u128 = r["amount_out"].as_str().unwrap_or_else(|| panic!("p{n} q{id}: no quote")).parse().unwrap();
        let bound: u128 = r["upper_bound"]
            .as_str()
            .unwrap_or_else(|| panic!("p{n} q{id}: no certificate: {}", r["certify_error"]))
            .parse()
            .unwrap();
        assert!(bound >= out, "p{n} q{id}: bound {bound} below the quote's own output {out}");
        assert!(
            bound as f64 >= optimum * (1.0 - SOLVER_TOLERANCE),
            "p{n} q{id}: bound {bound} below the convex optimum {optimum}"
        );
        let gap = r["gap_bps"].as_f64().unwrap();
        assert!((0.0..1e4).contains(&gap), "p{n} q{id}: gap {gap} bp");
        checked += 1;
        strictly_above += usize::from(bound as f64 >= optimum);
    }
    let _ = std::fs::remove_dir_all(&out);
    (checked, strictly_above)
}

#[test]
fn the_bound_is_at_least_the_convex_optimum_on_p100() {
    let (checked, _) = check(100);
    assert_eq!(checked, 60);
}

#[test]
fn the_bound_is_at_least_the_convex_optimum_on_p1000() {
    let (checked, _) = check(1000);
    assert_eq!(checked, 60);
}

#[test]
fn the_bound_is_at_least_the_convex_optimum_on_p10000() {
    let (checked, _) = check(10000);
    assert!(checked >= 50, "{checked} queries checked");
}
