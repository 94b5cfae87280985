//! What a scenario simulates, without running it (`coapcc sim --describe`): for a multihop
//! scenario its topology, routing tree, hop counts and hidden pairs, and `map.svg`; for the
//! other kinds their link stages.

use std::io::Write;

use coapcc_core::ConfigError;
use coapcc_driver::scenario::multihop::{
    BackoffKind, ContikiVersion, MultihopConfig, NodeId, RdcKind, Role, Topology, UdgmConfig,
};
use coapcc_driver::scenario::{self, Model, NetworkConfig, ScenarioError};
use coapcc_sim::multihop::{Dodag, Geometry, LinkClass, MultihopSim, run_seed};
use coapcc_sim::results::role_word;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::ReportError;
use crate::files::write_atomic;
use crate::sim::{SimOptions, check};

/// What `--describe` shows of one multihop configuration (replication 0's DODAG).
pub struct Layout {
    /// The nodes.
    pub topology: Topology,
    /// Node-pair classes.
    pub geometry: Geometry,
    /// The routing tree.
    pub dodag: Dodag,
    /// The medium's parameters.
    pub udgm: UdgmConfig,
}

impl Layout {
    /// The layout of `cfg` with the DODAG of seed `seed`.
    /// The error names the key of `[multihop]` at fault.
    pub fn of(cfg: &MultihopConfig, seed: u64) -> Result<Layout, ConfigError> {
        let topology = cfg.topology.build()?;
        let geometry = Geometry::new(&topology.positions(), &cfg.udgm)?;
        let sim = MultihopSim::new(cfg.clone(), seed)?;
        Ok(Layout { topology, geometry, dodag: sim.dodag().clone(), udgm: cfg.udgm.clone() })
    }

    /// Neighbours (within `R_tx`) of `i`.
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        (0..self.topology.len())
            .filter(|&j| {
                j != i
                    && matches!(
                        self.geometry.class(NodeId::from_index(i), NodeId::from_index(j)),
                        LinkClass::Connected { .. }
                    )
            })
            .collect()
    }

    /// Hidden pairs (§1.3): two nodes within interference range of each other that do not
    /// sense each other's carrier but share a neighbour, so that their frames can collide at
    /// it; each pair once, `a < b`.
    pub fn hidden_pairs(&self) -> Vec<(usize, usize)> {
        let n = self.topology.len();
        let nb: Vec<Vec<usize>> = (0..n).map(|i| self.neighbours(i)).collect();
        let mut out = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                let (ia, ib) = (NodeId::from_index(a), NodeId::from_index(b));
                if !self.geometry.senses(ia, ib) && !self.geometry.senses(ib, ia) && self.geometry.interferes(ia, ib) {
                    let common = nb[a].iter().any(|x| nb[b].contains(x));
                    if common {
                        out.push((a, b));
                    }
                }
            }
        }
        out
    }

    /// The carrier-sense range, m (largest distance at which CCA reads busy, to 0.01 m).
    pub fn cca_range_m(&self) -> f64 {
        let (mut lo, mut hi) = (0.0_f64, self.udgm.tx_range_m.max(self.udgm.interference_range_m) + 1.0);
        if !self.udgm.senses(lo) {
            return 0.0;
        }
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if self.udgm.senses(mid) { lo = mid } else { hi = mid }
        }
        lo
    }
}

/// `coapcc sim --describe`: for every scenario of `opts` (with its overrides), what it
/// simulates, without running it; a multihop scenario's `map.svg` goes to its output folder.
pub fn describe(opts: &SimOptions, out: &mut dyn Write) -> Result<(), ReportError> {
    if opts.scenarios.is_empty() {
        return Err(ReportError::Options("no scenario file given (see scenarios/)".into()));
    }
    let set = opts.settings();
    for p in &opts.scenarios {
        let s = scenario::load(p, &set)?;
        writeln!(out, "== {}: {}", s.file.name, s.file.description.trim())?;
        writeln!(out, "source: {}", s.file.source.trim())?;
        writeln!(out, "algorithms: {}", s.file.algorithms.join(", "))?;
        match &s.model {
            Model::Multihop(m) => {
                check(p, &s)?;
                let cfg = &m.base;
                let layout = Layout::of(cfg, run_seed(s.file.seed, 0)).map_err(|e| ScenarioError {
                    file: s.file.name.clone(),
                    line: None,
                    key: Some(format!("multihop.{}", e.key)),
                    problem: e.problem.to_string(),
                })?;
                out.write_all(describe_text(cfg, &layout).as_bytes())?;
                let path = opts.out_dir(&s.file.name).join("map.svg");
                write_atomic(&path, map_svg(&s.file.name, &layout).as_bytes())?;
                writeln!(out, "map: {}", path.display())?;
            }
            Model::Network { network, workload } => {
                writeln!(
                    out,
                    "network model: {} flows ({:?}), {} exchanges per flow, NSTART {}",
                    workload.flows, workload.flow_type, workload.exchanges_per_flow, workload.nstart
                )?;
                write_links(network, out)?;
            }
            Model::Tcp(m) => {
                let t = &m.tcp;
                let sizes = t.sizes();
                writeln!(
                    out,
                    "CoAP-over-TCP model: {} client(s), each GETs {} B (a {} B response); MSS {} B, IW {}, SACK {}, timestamps {}",
                    t.clients,
                    t.object_bytes,
                    sizes.response,
                    t.mss(),
                    t.initial_window,
                    if t.sack { "on" } else { "off" },
                    if t.timestamps { "on" } else { "off" }
                )?;
                write_links(&m.network, out)?;
            }
            Model::Trace(t) => {
                writeln!(out, "RTT-trace model:")?;
                let text = toml::to_string(t).unwrap_or_else(|e| format!("(cannot show: {e})\n"));
                for l in text.lines() {
                    writeln!(out, "  {l}")?;
                }
            }
        }
    }
    Ok(())
}

/// The link stages of both directions of `network`, as TOML.
fn write_links(network: &NetworkConfig, out: &mut dyn Write) -> Result<(), ReportError> {
    let (up, down) = network.pipelines();
    for (name, p) in [("uplink (client → server)", up), ("downlink (server → client)", down)] {
        writeln!(out, "{name} link stages:")?;
        let text = toml::to_string(&p).unwrap_or_else(|e| format!("(cannot show: {e})\n"));
        for l in text.lines() {
            writeln!(out, "  {l}")?;
        }
    }
    Ok(())
}

fn fmt_m(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    if r == r.trunc() { format!("{r:.0}") } else { format!("{r:.1}") }
}

/// The text of `--describe` for a multihop configuration.
pub fn describe_text(cfg: &MultihopConfig, l: &Layout) -> String {
    let mut s = String::new();
    let n = l.topology.len();
    s.push_str(&format!(
        "multihop model: {n} nodes, {} RDC, Contiki {}, UDGM R_tx {} m, R_int {} m, carrier sense {} m, SR_tx {}, SR_rx {}\n",
        match cfg.rdc {
            RdcKind::NullRdc => "NullRDC",
            RdcKind::Contikimac => "ContikiMAC",
        },
        match cfg.version {
            ContikiVersion::V2_7 => "2.7",
            ContikiVersion::V3_0 => "3.0",
        },
        fmt_m(l.udgm.tx_range_m),
        fmt_m(l.udgm.effective_interference_range_m()),
        fmt_m(l.cca_range_m()),
        l.udgm.success_ratio_tx,
        l.udgm.success_ratio_rx
    ));
    s.push_str(&format!(
        "CSMA: QUEUEBUF {}, {} MAC transmissions, {} backoff; workload: {}\n",
        cfg.csma.queuebuf_num,
        cfg.csma.max_transmissions,
        match cfg.csma.backoff {
            BackoffKind::Exponential => "exponential",
            BackoffKind::Linear => "linear",
        },
        workload_word(cfg)
    ));
    let hidden = l.hidden_pairs();
    let rows: Vec<[String; 8]> = (0..n)
        .map(|i| {
            let id = NodeId::from_index(i);
            let node = &l.topology.nodes[i];
            let hid: Vec<String> = hidden
                .iter()
                .filter_map(|&(a, b)| {
                    if a == i {
                        Some(b)
                    } else if b == i {
                        Some(a)
                    } else {
                        None
                    }
                })
                .map(|x| x.to_string())
                .collect();
            [
                i.to_string(),
                role_word(node.role).to_string(),
                fmt_m(node.pos.x_m),
                fmt_m(node.pos.y_m),
                l.dodag.parent(id).map_or("-".into(), |p| p.0.to_string()),
                l.dodag.hops(id).map_or("-".into(), |h| h.to_string()),
                l.neighbours(i).iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "),
                hid.join(" "),
            ]
        })
        .collect();
    let header = ["node", "role", "x_m", "y_m", "parent", "hops", "neighbours", "hidden from"];
    let widths: Vec<usize> =
        (0..8).map(|c| rows.iter().map(|r| r[c].len()).chain([header[c].len()]).max().unwrap_or(0)).collect();
    let line = |cells: Vec<&str>| -> String {
        let v: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        format!("{}\n", v.join("  ").trim_end())
    };
    s.push_str(&line(header.to_vec()));
    for r in &rows {
        s.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    let hops: Vec<u32> = (0..n)
        .filter(|&i| l.topology.nodes[i].role != Role::BorderRouter)
        .filter_map(|i| l.dodag.hops(NodeId::from_index(i)))
        .collect();
    let max = hops.iter().copied().max().unwrap_or(0);
    let counts: Vec<String> = (1..=max)
        .map(|h| format!("{h} hop{} ×{}", if h == 1 { "" } else { "s" }, hops.iter().filter(|&&x| x == h).count()))
        .collect();
    let mean = if hops.is_empty() { 0.0 } else { f64::from(hops.iter().sum::<u32>()) / hops.len() as f64 };
    s.push_str(&format!(
        "hop counts to the border router ({} nodes): {}; mean {mean:.2}, max {max}\n",
        hops.len(),
        counts.join(", ")
    ));
    s.push_str(&format!("hidden pairs (interfere, no carrier sense, common neighbour): {}\n", hidden.len()));
    s
}

fn workload_word(cfg: &MultihopConfig) -> &'static str {
    use coapcc_driver::scenario::multihop::MultihopWorkload;
    match cfg.workload {
        MultihopWorkload::CoapSaturated(_) => "saturated CoAP senders (Makarem)",
        MultihopWorkload::CoapOneToOne(_) => "CoAP 1-to-1 (Betzler)",
        MultihopWorkload::CoapManyToMany(_) => "CoAP many-to-many (Betzler)",
        MultihopWorkload::CoapCrossTraffic(_) => "CoAP cross-traffic burst (Betzler)",
        MultihopWorkload::LimTcp(_) => "TCP periodic reports (Lim)",
    }
}

fn role_colour(r: Role) -> RGBColor {
    match r {
        Role::BorderRouter => RGBColor(0xd6, 0x27, 0x28),
        Role::Receiver => RGBColor(0x94, 0x67, 0xbd),
        Role::Sender => RGBColor(0x1f, 0x77, 0xb4),
        Role::EndNode => RGBColor(0x1f, 0x77, 0xb4),
    }
}

/// `map.svg`: nodes (coloured by role, labelled with id and hop count), DODAG edges (arrows to
/// the parent), the transmission and interference ranges of the border router (dashed
/// circles), every node's transmission range (faint), and hidden pairs (thin red lines).
/// Cooja's orientation: y grows downwards.
pub fn map_svg(title: &str, l: &Layout) -> String {
    let pos: Vec<(f64, f64)> = l.topology.nodes.iter().map(|n| (n.pos.x_m, n.pos.y_m)).collect();
    let (x0, x1) = pos.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = pos.iter().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let pad_m = 25.0;
    let (wm, hm) = ((x1 - x0).max(1.0) + 2.0 * pad_m, (y1 - y0).max(1.0) + 2.0 * pad_m);
    let width = 900_u32;
    let top = 60_u32;
    let legend = 80_u32;
    let scale = f64::from(width) / wm;
    let height = (hm * scale).ceil() as u32 + top + legend;
    let px = |x: f64, y: f64| -> (i32, i32) {
        (((x - x0 + pad_m) * scale).round() as i32, ((y - y0 + pad_m) * scale).round() as i32 + top as i32)
    };
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (width, height)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let font = |size: u32| ("sans-serif", size).into_font();
        let _ = root.draw(&Text::new(format!("{title}: map ({} nodes)", pos.len()), (10, 12), font(20).color(&BLACK)));
        let _ = root.draw(&Text::new(
            format!(
                "R_tx {} m, R_int {} m, carrier sense {} m; hop count in brackets",
                fmt_m(l.udgm.tx_range_m),
                fmt_m(l.udgm.effective_interference_range_m()),
                fmt_m(l.cca_range_m())
            ),
            (10, 36),
            font(14).color(&RGBColor(80, 80, 80)),
        ));
        let r_tx = (l.udgm.tx_range_m * scale).round() as i32;
        for &p in &pos {
            let _ = root.draw(&Circle::new(px(p.0, p.1), r_tx, RGBColor(0x1f, 0x77, 0xb4).mix(0.05).filled()));
        }
        for (a, b) in l.hidden_pairs() {
            let _ = root.draw(&PathElement::new(
                vec![px(pos[a].0, pos[a].1), px(pos[b].0, pos[b].1)],
                RGBColor(0xd6, 0x27, 0x28).mix(0.35).stroke_width(1),
            ));
        }
        if let Some(br) = l.topology.border_router() {
            let c = px(pos[br.index()].0, pos[br.index()].1);
            for (r, label) in [(l.udgm.tx_range_m, "R_tx"), (l.udgm.effective_interference_range_m(), "R_int")] {
                let rp = (r * scale).round() as i32;
                let pts: Vec<(i32, i32)> = (0..=120)
                    .map(|k| {
                        let a = f64::from(k) / 120.0 * std::f64::consts::TAU;
                        (c.0 + (f64::from(rp) * a.cos()).round() as i32, c.1 + (f64::from(rp) * a.sin()).round() as i32)
                    })
                    .collect();
                for seg in pts.chunks(2) {
                    let _ = root.draw(&PathElement::new(seg.to_vec(), RGBColor(0xd6, 0x27, 0x28).stroke_width(1)));
                }
                let _ = root.draw(&Text::new(
                    label.to_string(),
                    (c.0 + (f64::from(rp) * 0.71) as i32 + 3, c.1 - (f64::from(rp) * 0.71) as i32 - 3),
                    font(12).color(&RGBColor(0xd6, 0x27, 0x28)),
                ));
            }
        }
        for i in 0..pos.len() {
            if let Some(p) = l.dodag.parent(NodeId::from_index(i)) {
                let (a, b) = (px(pos[i].0, pos[i].1), px(pos[p.index()].0, pos[p.index()].1));
                let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
                let len = (dx * dx + dy * dy).sqrt().max(1.0);
                let (ux, uy) = (dx / len, dy / len);
                let node_r = 13.0;
                let tip = ((f64::from(b.0) - ux * node_r) as i32, (f64::from(b.1) - uy * node_r) as i32);
                let start = ((f64::from(a.0) + ux * node_r) as i32, (f64::from(a.1) + uy * node_r) as i32);
                let _ = root.draw(&PathElement::new(vec![start, tip], BLACK.stroke_width(2)));
                let back = (f64::from(tip.0) - ux * 9.0, f64::from(tip.1) - uy * 9.0);
                let wing = |s: f64| ((back.0 - uy * 5.0 * s) as i32, (back.1 + ux * 5.0 * s) as i32);
                let _ = root.draw(&Polygon::new(vec![tip, wing(1.0), wing(-1.0)], BLACK.filled()));
            }
        }
        for (i, n) in l.topology.nodes.iter().enumerate() {
            let c = px(pos[i].0, pos[i].1);
            let col = role_colour(n.role);
            let _ = root.draw(&Circle::new(c, 13, col.filled()));
            let _ = root.draw(&Text::new(
                i.to_string(),
                c,
                font(12).color(&WHITE).pos(Pos::new(HPos::Center, VPos::Center)),
            ));
            let hops = l.dodag.hops(NodeId::from_index(i)).map_or("-".to_string(), |h| h.to_string());
            let _ =
                root.draw(&Text::new(format!("[{hops}]"), (c.0 + 15, c.1 + 8), font(11).color(&RGBColor(60, 60, 60))));
        }
        // Legend.
        let ly = height as i32 - legend as i32 + 20;
        let mut lx = 10;
        for (label, col) in [
            ("border router", role_colour(Role::BorderRouter)),
            ("receiver", role_colour(Role::Receiver)),
            ("sender / end node", role_colour(Role::EndNode)),
        ] {
            let _ = root.draw(&Circle::new((lx + 8, ly), 8, col.filled()));
            let _ = root.draw(&Text::new(label.to_string(), (lx + 20, ly - 7), font(13).color(&BLACK)));
            lx += 30 + 8 * label.len() as i32;
        }
        let _ = root.draw(&PathElement::new(vec![(lx, ly), (lx + 30, ly)], BLACK.stroke_width(2)));
        let _ = root.draw(&Text::new("DODAG edge to parent".to_string(), (lx + 36, ly - 7), font(13).color(&BLACK)));
        lx += 210;
        let _ = root.draw(&PathElement::new(
            vec![(lx, ly), (lx + 30, ly)],
            RGBColor(0xd6, 0x27, 0x28).mix(0.5).stroke_width(1),
        ));
        let _ = root.draw(&Text::new("hidden pair".to_string(), (lx + 36, ly - 7), font(13).color(&BLACK)));
        let _ = root.draw(&Text::new(
            "shaded: each node's transmission range; dashed: the border router's R_tx and R_int".to_string(),
            (10, ly + 22),
            font(12).color(&RGBColor(80, 80, 80)),
        ));
        let _ = root.present();
    }
    buf
}
