//! The multihop results as typed columns (what the Python package hands to Arrow, and what the
//! CSV writers format), through the one runner and result model of every scenario; and a
//! multihop job as the unit of a distributed sweep: run alone it equals the same job within a
//! whole run, and its output survives encoding bit for bit.

use std::path::{Path, PathBuf};

use coapcc_driver::scenario::{self, Scenario, Setting};
use coapcc_sim::results::{
    Column, Columns, MultihopMetric, csv_of, flows_columns, nodes_columns, runs_columns, runs_csv, summarise,
    summary_columns, summary_csv, summary_table,
};
use coapcc_sim::wire::{decode, encode};
use coapcc_sim::{JobError, SimError};
use coapcc_sim::{RunOutput, assemble, run_job, run_scenario};

fn load(rel: &str, sets: &[&str]) -> Scenario {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel);
    let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
    scenario::load(&path, &sets).unwrap()
}

/// Lim's TCP workload, shortened: two schemes, two replications, one minute of data.
fn lim() -> Scenario {
    load(
        "lim/e2-contikimac-4x4.toml",
        &["replications=2", "algorithms=[\"uip\", \"lim\"]", "multihop.duration_ms=60000"],
    )
}

/// Betzler's CoAP cross-traffic burst (continuous flows record a series), one replication.
fn betzler() -> Scenario {
    load("betzler/cross-traffic-contikimac.toml", &["replications=1"])
}

fn column<'a>(c: &'a Columns, name: &str) -> &'a Column {
    &c.columns.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no column {name}")).1
}

#[test]
fn run_metrics_that_count_are_integer_columns_and_the_others_floats() {
    let s = lim();
    let runs = run_scenario(&s, &|| {}).unwrap();
    let c = runs_columns(&s, &runs);
    let names: Vec<&str> = c.columns.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[..3], ["algorithm", "replication", "seed"]);
    for (name, col) in &c.columns[3..] {
        let count = name.parse::<MultihopMetric>().unwrap().is_count();
        assert!(matches!((count, col), (true, Column::U64(_)) | (false, Column::F64(_))), "{name}: {col:?}");
        assert_eq!(col.len(), 4, "{name}");
    }
    // Goodput is the payload delivered in order over the data phase (one minute here), summed
    // over the motes: derived again from each run's per-mote delivered bytes. The 15 motes offer
    // one 48-byte report per 6 s on average (64 bit/s each, Lim Table 1): about 960 bit/s, of which
    // no run delivers more than was offered plus one report per mote in flight at the start.
    let Column::F64(goodput) = column(&c, "goodput_bps") else { panic!("goodput_bps is a float column") };
    let Column::F64(offered) = column(&c, "offered_bps") else { panic!("offered_bps is a float column") };
    let tcp: Vec<_> = runs
        .iter()
        .flat_map(|a| a.runs.iter())
        .map(|r| match r {
            RunOutput::Multihop(m) => m.tcp.clone().unwrap(),
            other => panic!("not a multihop run: {other:?}"),
        })
        .collect();
    assert_eq!(tcp.len(), goodput.len());
    for ((t, g), o) in tcp.iter().zip(goodput).zip(offered) {
        assert_eq!(t.nodes.len(), 15);
        let delivered_bits: u64 = t.nodes.iter().map(|n| n.delivered_bytes * 8).sum();
        assert!(
            (g - delivered_bits as f64 / 60.0).abs() < 1e-9 * g.max(1.0),
            "{g} against {delivered_bits} bit in 60 s"
        );
        assert!((o - 960.0).abs() < 0.3 * 960.0, "offered {o} bit/s, expected about 960");
        assert!(*g > 0.0 && *g <= o + 15.0 * 48.0 * 8.0 / 60.0, "goodput {g} against offered {o}");
    }
    assert!(matches!(column(&c, "seed"), Column::U64(v) if v[..] == [1, 2, 1, 2]));
    // The CSV is these columns formatted.
    assert_eq!(csv_of(&c), runs_csv(&s, &runs));
}

#[test]
fn tcp_flows_have_flags_and_nodes_have_an_absent_parent_only_at_the_border_router() {
    let s = lim();
    let runs = run_scenario(&s, &|| {}).unwrap();
    let flows = flows_columns(&runs);
    assert!(matches!(column(&flows, "setup_failed"), Column::Bool(v) if v.len() == 4 * 15));
    assert!(matches!(column(&flows, "hops"), Column::U64(v) if v.iter().all(|&h| (1..=6).contains(&h))));
    let nodes = nodes_columns(&s, &runs).expect("multihop runs have nodes");
    let (Column::Str(role), Column::OptU64(parent), Column::OptU64(hops)) =
        (column(&nodes, "role"), column(&nodes, "parent"), column(&nodes, "hops"))
    else {
        panic!("role, parent and hops have the wrong types");
    };
    assert_eq!(role.len(), 4 * 16);
    for ((r, p), h) in role.iter().zip(parent).zip(hops) {
        assert_eq!(p.is_none(), r == "border_router", "{r}: parent {p:?}");
        assert!(h.is_some(), "{r}");
    }
}

#[test]
fn coap_flows_name_a_host_side_client_as_host_and_servers_by_node_id() {
    let s = betzler();
    let runs = run_scenario(&s, &|| {}).unwrap();
    let flows = flows_columns(&runs);
    // Cloud clients (host side) to servers on the motes.
    let (Column::Str(clients), Column::Str(servers)) = (column(&flows, "client_node"), column(&flows, "server_node"))
    else {
        panic!("client_node and server_node are text")
    };
    assert!(!clients.is_empty() && clients.iter().all(|x| x == "host"), "{clients:?}");
    assert!(servers.iter().all(|x| x.parse::<u16>().is_ok()), "{servers:?}");
    assert!(matches!(column(&flows, "first_send_s"), Column::F64(v) if v.iter().any(|x| x.is_finite())));
    let summary = summarise(&s, &runs);
    let sc = summary_columns(&summary);
    assert!(matches!(column(&sc, "replications"), Column::U64(v) if v.iter().all(|&n| n == 1)));
    assert_eq!(csv_of(&sc), summary_csv(&summary), "the summary's text is its columns");
    let table = summary_table(&summary);
    assert!(table.starts_with("algorithm") && table.contains("throughput_per_s") && table.contains(" ± "), "{table}");
}

#[test]
fn the_csv_of_typed_columns_quotes_text_and_leaves_absent_values_empty() {
    let c = Columns {
        columns: vec![
            ("name".into(), Column::Str(vec!["a,b".into(), "c".into()])),
            ("n".into(), Column::U64(vec![3, 40])),
            ("x".into(), Column::F64(vec![0.25, f64::NAN])),
            ("ok".into(), Column::Bool(vec![true, false])),
            ("parent".into(), Column::OptU64(vec![None, Some(7)])),
        ],
    };
    assert_eq!(csv_of(&c), "name,n,x,ok,parent\n\"a,b\",3,0.25,true,\nc,40,,false,7\n");
    assert_eq!(csv_of(&Columns::default()), "");
}

#[test]
fn a_multihop_job_run_alone_equals_the_same_job_within_a_whole_run() {
    let s = lim();
    let whole = run_scenario(&s, &|| {}).unwrap();
    let mut jobs = Vec::new();
    for a in (0..s.algorithms.len()).rev() {
        for r in (0..2).rev() {
            jobs.push(((a, r), run_job(&s, a, r).unwrap()));
        }
    }
    assert_eq!(assemble(&s, jobs).unwrap(), whole);
    let one = run_job(&s, 0, 0).unwrap();
    let e = assemble(&s, [((0, 0), one.clone())]).unwrap_err();
    assert!(e.to_string().contains("replication 1: missing"), "{e}");
    let e = assemble(&s, [((0, 0), one.clone()), ((0, 0), one)]).unwrap_err();
    assert!(matches!(e, SimError::Job(JobError::Twice { algorithm: 0, replication: 0, .. })), "{e}");
    let e = run_job(&s, 9, 0).unwrap_err();
    assert!(e.to_string().contains("no algorithm number 9"), "{e}");
    assert!(matches!(run_job(&s, 0, 2), Err(SimError::Job(JobError::NoReplication { count: 2, .. }))));
}

#[test]
fn a_multihop_job_output_survives_encoding_bit_for_bit() {
    let s = lim();
    let tcp = run_job(&s, 1, 1).unwrap();
    let coap = run_job(&betzler(), 0, 0).unwrap();
    let RunOutput::Multihop(c) = &coap else { panic!("a multihop output") };
    assert!(c.coap.iter().any(|f| !f.series.is_empty()), "a flow with a series is encoded");
    let mut traced = tcp.clone();
    if let RunOutput::Multihop(m) = &mut traced {
        m.tcp.as_mut().unwrap().nodes[0].trace = vec![coapcc_sim::multihop::TracePoint {
            at_ns: 5,
            kind: coapcc_sim::multihop::TracePointKind::Rto,
            value_ns: 3_000_000_000,
            retransmissions: 2,
            syn: true,
        }];
    }
    for out in [tcp, coap, traced] {
        let bytes = encode(&out);
        assert_eq!(decode(&bytes).unwrap(), out);
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
    }
    assert!(decode(b"garbage").is_err());
}
