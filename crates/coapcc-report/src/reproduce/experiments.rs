//! The experiments `coapcc reproduce` knows: which scenario runs (cases) each one needs, in
//! full and in `--quick` form.

use std::path::{Path, PathBuf};

use coapcc_sim::scenario::{Setting, Value};

/// One simulation to run: a scenario file with overrides, under a case name.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The case name claims and figures refer to (`fasor/400-flows-small-buffer-continuous`,
    /// `makarem/low-variability@m=0.5`).
    pub name: String,
    /// The scenario file, relative to the scenarios folder.
    pub file: PathBuf,
    /// Overrides of scenario keys.
    pub sets: Vec<Setting>,
    /// For sweep points: the sweep name and the x coordinate.
    pub sweep: Option<(String, f64)>,
}

/// An experiment.
#[derive(Clone, Copy, Debug)]
pub struct Experiment {
    /// Its id on the command line.
    pub id: &'static str,
    /// One line on what it reproduces.
    pub about: &'static str,
}

/// Every experiment, in report order.
pub const EXPERIMENTS: &[Experiment] = &[
    Experiment {
        id: "fasor",
        about: "FASOR paper: 400/200 flows × 3 buffers × continuous/random; 10 flows × link errors (Figs. 3–10)",
    },
    Experiment {
        id: "full-backoff",
        about: "Thesis / ANRW'18: Full Backoff 1 and 2 on Default CoAP and CoCoA, bufferbloat cases",
    },
    Experiment {
        id: "makarem-rto",
        about: "Makarem Figs. 14–21: RTO vs RTT traces, RMSE and spurious counts over Table 1",
    },
    Experiment {
        id: "makarem-rate",
        about: "Makarem Figs. 23, 26–31: rates vs residual bandwidth; goodput, loss, overhead sweeps",
    },
    Experiment {
        id: "betzler",
        about: "Betzler 2014 (FlockLab surrogate): 1-to-1 and many-to-many tables, No RDC vs ContikiMAC",
    },
    Experiment { id: "lim", about: "Lim 2020 (Cooja grids): uIP TCP timers with NullRDC / ContikiMAC, Figs. 2–8" },
    Experiment {
        id: "makarem-cooja",
        about: "Makarem §6.2.2 (Cooja): IDC-CoAP vs CoCoA+ vs CoAP on ring, chain, dumbbell, grid, square, U",
    },
];

fn files_in(root: &Path, dir: &str) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
        .map_err(|e| format!("cannot read scenarios folder `{}`: {e}", root.join(dir).display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    out.sort();
    Ok(out)
}

fn case_name(file: &Path) -> String {
    file.with_extension("").to_string_lossy().replace('\\', "/")
}

fn plain(files: Vec<PathBuf>, sets: &[Setting]) -> Vec<Case> {
    files.into_iter().map(|f| Case { name: case_name(&f), file: f, sets: sets.to_vec(), sweep: None }).collect()
}

/// Mean ResBW points of the low-variability sweep (packets/s): 0.1 … 2.2.
pub fn low_variability_points() -> Vec<f64> {
    (1..=22).map(|i| f64::from(i) / 10.0).collect()
}

/// Half-widths of the high-variability sweep around a mean of 1 packet/s: 0.1 … 1.0.
pub fn high_variability_points() -> Vec<f64> {
    (1..=10).map(|i| f64::from(i) / 10.0).collect()
}

fn fmt_point(x: f64) -> String {
    format!("{x:.1}")
}

/// A sweep coordinate as set: the number written with one decimal, read back (so the rate is
/// the decimal the case name shows, not the sum it was computed by).
fn point_value(x: f64) -> Value {
    Value::Float(fmt_point(x).parse().unwrap_or(x))
}

fn set(key: &str, value: impl Into<Value>) -> Result<Setting, String> {
    Setting::new(key, value).map_err(|e| e.to_string())
}

/// The cases of an experiment. `replications` overrides the scenarios' own; `quick` runs a
/// reduced version that still produces every figure.
pub fn cases(id: &str, root: &Path, quick: bool, replications: Option<u32>) -> Result<Vec<Case>, String> {
    let reps = |quick_reps: u32| -> Vec<Setting> {
        match (replications, quick) {
            (Some(r), _) => vec![Setting::replications(r)],
            (None, true) => vec![Setting::replications(quick_reps)],
            (None, false) => vec![],
        }
    };
    Ok(match id {
        "fasor" => plain(files_in(root, "fasor")?, &reps(2)),
        "full-backoff" => plain(files_in(root, "full-backoff")?, &reps(2)),
        "makarem-rto" => {
            let mut sets = reps(2);
            if quick {
                sets.push(set("samples", 20_000_i64)?);
            }
            plain(files_in(root, "makarem/rtt-trace")?, &sets)
        }
        "makarem-rate" => {
            let mut sets = reps(1);
            if quick {
                sets.push(set("duration_ms", 1_800_000_i64)?);
            }
            let mut out = vec![Case {
                name: "makarem/residual-instantaneous".into(),
                file: "makarem/residual-instantaneous.toml".into(),
                sets: sets.clone(),
                sweep: None,
            }];
            for m in low_variability_points() {
                let mut s = sets.clone();
                s.push(set("min_rate_pps", point_value((m - 0.1).max(0.0)))?);
                s.push(set("max_rate_pps", point_value(m + 0.1))?);
                s.push(set("name", format!("makarem/low-variability@m={}", fmt_point(m)))?);
                out.push(Case {
                    name: format!("makarem/low-variability@m={}", fmt_point(m)),
                    file: "makarem/residual-low-variability.toml".into(),
                    sets: s,
                    sweep: Some(("makarem/low-variability".into(), m)),
                });
            }
            for w in high_variability_points() {
                let mut s = sets.clone();
                s.push(set("min_rate_pps", point_value((1.0 - w).max(0.0)))?);
                s.push(set("max_rate_pps", point_value(1.0 + w))?);
                s.push(set("name", format!("makarem/high-variability@w={}", fmt_point(w)))?);
                out.push(Case {
                    name: format!("makarem/high-variability@w={}", fmt_point(w)),
                    file: "makarem/residual-high-variability.toml".into(),
                    sets: s,
                    sweep: Some(("makarem/high-variability".into(), w)),
                });
            }
            out
        }
        "betzler" => plain(files_in(root, "betzler")?, &reps(2)),
        "lim" => {
            let sets = reps(3);
            // e0-* are the `uip` runs of e1/e2-*-5x5 (same seed): not run twice.
            let mut out: Vec<Case> = plain(
                files_in(root, "lim")?
                    .into_iter()
                    .filter(|f| {
                        let f = f.to_string_lossy();
                        !f.contains("-loss") && !f.contains("/e0-")
                    })
                    .collect(),
                &sets,
            );
            // Figs. 7–8: random loss 5, 10, 15 % as the UDGM TX success ratio (OQ-M11); 0 % is
            // e3-*-4x4-queue4 (the same runs).
            for (file, sweep) in [
                ("lim/e4-nullrdc-4x4-loss.toml", "lim/e4-nullrdc-4x4"),
                ("lim/e5-contikimac-4x4-loss.toml", "lim/e5-contikimac-4x4"),
            ] {
                for loss in [5, 10, 15] {
                    let name = format!("{sweep}@loss={loss}");
                    let mut s = sets.clone();
                    s.push(set("multihop.udgm.success_ratio_tx", Value::Float(f64::from(100 - loss) / 100.0))?);
                    s.push(set("name", name.clone())?);
                    out.push(Case { name, file: file.into(), sets: s, sweep: Some((sweep.into(), f64::from(loss))) });
                }
            }
            // §4.2.3: the default limit of 8 retransmissions.
            for (file, base) in [
                ("lim/e1-nullrdc-4x4.toml", "lim/e1-nullrdc-4x4"),
                ("lim/e2-contikimac-4x4.toml", "lim/e2-contikimac-4x4"),
            ] {
                let name = format!("{base}@limit=8");
                let mut s = sets.clone();
                s.push(set("multihop.workload.max_retransmissions", 8_i64)?);
                s.push(set("algorithms", Value::parse("[\"uip\"]"))?);
                s.push(set("name", name.clone())?);
                out.push(Case { name, file: file.into(), sets: s, sweep: None });
            }
            // §4.1 (L2): the unfixed uIP, its 1 s timer units counted down every 0.5 s.
            let name = "lim/e1-nullrdc-4x4@rtt_unit=500".to_string();
            let mut s = sets.clone();
            s.push(set("algorithm.uip.rtt_unit_ms", 500_i64)?);
            s.push(set("algorithms", Value::parse("[\"uip\"]"))?);
            s.push(set("name", name.clone())?);
            out.push(Case { name, file: "lim/e1-nullrdc-4x4.toml".into(), sets: s, sweep: None });
            out
        }
        "makarem-cooja" => {
            let sets = reps(2);
            let mut out = Vec::new();
            let mut point = |file: &str, sweep: &str, key: &str, label: &str, x: f64, v: Value| -> Result<(), String> {
                let name = format!("{sweep}@{label}");
                let mut s = sets.clone();
                s.push(set(key, v)?);
                s.push(set("name", name.clone())?);
                out.push(Case { name, file: file.into(), sets: s, sweep: Some((sweep.into(), x)) });
                Ok(())
            };
            for tx in [100, 95, 90] {
                let v = Value::Float(f64::from(tx) / 100.0);
                point(
                    "makarem-cooja/ring-12.toml",
                    "makarem-cooja/ring-12",
                    "multihop.udgm.success_ratio_tx",
                    &format!("tx={tx}"),
                    f64::from(tx),
                    v,
                )?;
            }
            // Spec multihop.md §3.1: the chain sweep N ∈ {4, 6, 8, 10, 12}.
            for n in [4_i64, 6, 8, 10, 12] {
                point(
                    "makarem-cooja/chain.toml",
                    "makarem-cooja/chain",
                    "multihop.topology.nodes",
                    &format!("n={n}"),
                    n as f64,
                    Value::from(n),
                )?;
            }
            for n in [7_i64, 10, 15] {
                point(
                    "makarem-cooja/dumbbell.toml",
                    "makarem-cooja/dumbbell",
                    "multihop.topology.nodes",
                    &format!("n={n}"),
                    n as f64,
                    Value::from(n),
                )?;
            }
            for f in ["grid-30", "square-18", "u-15"] {
                out.push(Case {
                    name: format!("makarem-cooja/{f}"),
                    file: format!("makarem-cooja/{f}.toml").into(),
                    sets: sets.clone(),
                    sweep: None,
                });
            }
            out
        }
        other => {
            let ids: Vec<&str> = EXPERIMENTS.iter().map(|e| e.id).collect();
            return Err(format!("unknown experiment `{other}`; valid: {}, all", ids.join(", ")));
        }
    })
}
