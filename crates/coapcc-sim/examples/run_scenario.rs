//! Running a scenario from code: one written inline as TOML, changed by a setting as with
//! `--set`, run (every algorithm and replication, in parallel, in a fixed order) and
//! summarised; then the per-flow table a paper's figure is drawn from.
//!
//! `cargo run -p coapcc-sim --example run_scenario`

use coapcc_driver::scenario::{Setting, parse};
use coapcc_sim::results::{flows_csv, summarise, summary_table};
use coapcc_sim::run_scenario;

/// Ten continuous flows over the NB-IoT-like link of the FASOR testbed (docs/testbeds.md §1),
/// two algorithms.
const SCENARIO: &str = r#"
name = "example/10-flows"
description = "Ten continuous flows of 20 exchanges over the NB-IoT-like link."
source = "docs/testbeds.md §1 (the FASOR testbed), shortened"
seed = 1
replications = 1
algorithms = ["default", "fasor"]

[network.nbiot]
buffer_bytes = 2500
errors = "medium"

[workload]
flows = 10
flow_type = "continuous"
exchanges_per_flow = 20
start_window_ms = 1000
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A setting as `--set replications=2` would give it; the scenario is checked once, here.
    let settings: Vec<Setting> = vec!["replications=2".parse()?];
    let scenario = parse(SCENARIO, "example.toml", &settings)?;
    let runs = run_scenario(&scenario, &|| {})?;
    println!("{}", summary_table(&summarise(&scenario, &runs)));
    // One row per flow of every algorithm and replication, under a header.
    let flows = flows_csv(&runs);
    assert_eq!(flows.lines().count(), 1 + 2 * 2 * 10);
    println!("{} flows; the first: {}", flows.lines().count() - 1, flows.lines().nth(1).unwrap_or_default());
    Ok(())
}
