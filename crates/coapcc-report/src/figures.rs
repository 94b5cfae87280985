//! SVG figures for `coapcc reproduce`: box plots, line plots and grouped bars.
//!
//! Every function returns a self-contained `<svg>` string (no external references, no
//! scripts, no ids) meant to be inlined into an HTML page. The root element has a fixed
//! `viewBox` [`FIGURE_WIDTH`] pixels wide and `style="max-width:100%;height:auto"`, so it
//! scales with the page. Text is written as `<text>` elements in the generic `sans-serif`
//! family: no font is read or embedded, the browser lays the text out.
//!
//! Drawing is done with `plotters`' SVG backend only. Output is deterministic: the same
//! input gives the same bytes.
//!
//! Robustness rules, shared by all figures:
//! - non-finite values (NaN, ±∞) are skipped: a point of a line series with one breaks
//!   the line there, a box with any non-finite statistic and a non-finite bar are omitted;
//! - a panel left with nothing to draw shows a "no data" note; an empty panel list gives a
//!   figure with the title and a "no data" note;
//! - a log axis is used only when every drawn value is positive; otherwise the panel falls
//!   back to a linear axis and its title says so;
//! - line series longer than [`MAX_POINTS_PER_SERIES`] are decimated deterministically
//!   (per bucket: first, minimum, maximum and last point, in order; step series keep
//!   their step shape);
//! - nothing panics: a plotting error (or a panic inside `plotters`) yields an SVG that
//!   holds the title and an error note.
//!
//! Colours are fixed per algorithm name ([`palette`], [`colour_of`]), so an algorithm has
//! the same colour in every figure. Series named `analytic…` are drawn dashed.

use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};

use plotters::coord::Shift;
use plotters::coord::combinators::{LogCoord, WithKeyPoints};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of every figure, in SVG user units (pixels at 100 % zoom).
pub const FIGURE_WIDTH: u32 = 900;

/// A line series with more valid points than this is decimated before drawing.
pub const MAX_POINTS_PER_SERIES: usize = 2000;

/// Fixed colours (RGB) of the series that are not registered algorithms: the variants the
/// reference scenarios define (`[variant.NAME]`), `RTT` (measured RTT series), `analytic`
/// (analytic curves, drawn dashed), and `ResBW`, `sending …`, `success …` (rate time series:
/// the residual bandwidth in a colour distinct from the rates). Each registered algorithm
/// states its own colour ([`coapcc_core::AlgorithmInfo::colour`]); a variant takes a lighter
/// or darker shade of its base algorithm's hue.
pub const SERIES_COLOURS: &[(&str, [u8; 3])] = &[
    ("cocoa-blind-exponential", [0xFB, 0x9A, 0x99]),
    ("idc-iw1.1", [0x66, 0xC2, 0xA5]),
    ("mbc-m10", [0xE6, 0xC2, 0x29]),
    ("RTT", [0xA0, 0xA0, 0xA0]),
    ("analytic", [0x00, 0x00, 0x00]),
    ("ResBW", [0xE0, 0x10, 0x60]),
    ("sending", [0x33, 0x55, 0xCC]),
    ("success", [0x22, 0x99, 0x55]),
    // Investigations: our value per sweep point, the published value or bound, the band in
    // which a numeric claim holds, and the point at the documented default.
    ("ours", [0x1F, 0x4E, 0x9C]),
    ("published", [0x20, 0x20, 0x20]),
    ("band", [0x4C, 0xAF, 0x50]),
    ("documented", [0xC0, 0x00, 0x00]),
];

/// Every fixed colour: each registered algorithm's own ([`coapcc_core::ALGORITHMS`], in
/// their order), then [`SERIES_COLOURS`].
pub fn palette() -> impl Iterator<Item = (&'static str, [u8; 3])> {
    coapcc_core::ALGORITHMS.iter().map(|a| (a.name, a.colour)).chain(SERIES_COLOURS.iter().copied())
}

/// The colour of a series or box named `name`.
///
/// An exact [`palette`] entry wins; otherwise the part before the first space or `(` is
/// looked up (so `"cocoa (sim)"` is drawn like `cocoa`); otherwise a colour is derived
/// from a hash of the name (deterministic, medium saturation and lightness).
pub fn colour_of(name: &str) -> [u8; 3] {
    let lookup = |n: &str| palette().find(|(k, _)| *k == n).map(|(_, c)| c);
    if let Some(c) = lookup(name) {
        return c;
    }
    if let Some(c) = name.split_once([' ', '(']).and_then(|(base, _)| lookup(base.trim())) {
        return c;
    }
    fallback_colour(name)
}

/// [`colour_of`] as `#RRGGBB` (upper-case, as the SVG backend writes it), for HTML legends
/// and tables next to the figures.
pub fn colour_hex(name: &str) -> String {
    let [r, g, b] = colour_of(name);
    format!("#{r:02X}{g:02X}{b:02X}")
}

fn fallback_colour(name: &str) -> [u8; 3] {
    // FNV-1a: stable across platforms and Rust versions (unlike `DefaultHasher`).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hsl_to_rgb((h % 360) as f64, 0.55, 0.42)
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> [u8; 3] {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    [to(r), to(g), to(b)]
}

fn rgb(name: &str) -> RGBColor {
    let [r, g, b] = colour_of(name);
    RGBColor(r, g, b)
}

fn is_analytic(name: &str) -> bool {
    name.starts_with("analytic")
}

/// A series named `documented…` (an investigation's point at the documented default) is drawn
/// as large rings, so the point stays visible on top of the line through it.
fn is_marker(name: &str) -> bool {
    name.starts_with("documented")
}

// ---------------------------------------------------------------------------------------
// Public data types

/// Five-number summary for a box plot: whiskers at the 10th/90th percentiles (as the FASOR
/// paper's figures).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxStats {
    /// 10th percentile (lower whisker).
    pub p10: f64,
    /// 25th percentile (box bottom).
    pub p25: f64,
    /// Median.
    pub p50: f64,
    /// 75th percentile (box top).
    pub p75: f64,
    /// 90th percentile (upper whisker).
    pub p90: f64,
    /// The number of values summarised (shown under the box as `n=…`).
    pub n: u64,
}

impl BoxStats {
    /// The summary of `samples`, ignoring non-finite ones; `None` if none is finite.
    /// Percentiles interpolate linearly between order statistics (numpy's default).
    pub fn from_samples(samples: &[f64]) -> Option<Self> {
        let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let q = |p: f64| {
            let pos = p * (v.len() - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = (lo + 1).min(v.len() - 1);
            v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
        };
        Some(Self { p10: q(0.10), p25: q(0.25), p50: q(0.50), p75: q(0.75), p90: q(0.90), n: v.len() as u64 })
    }

    /// All five values are finite (a box that is not is left out of its panel).
    pub fn is_finite(&self) -> bool {
        self.values().iter().all(|v| v.is_finite())
    }

    fn values(&self) -> [f64; 5] {
        [self.p10, self.p25, self.p50, self.p75, self.p90]
    }
}

/// One panel of a [`box_figure`]: one box per algorithm, in the given order.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxPanel {
    /// Panel title (e.g. `"buffer 4, long flows"`).
    pub title: String,
    /// Y axis label, with its unit (e.g. `"flow completion time (s)"`).
    pub y_label: String,
    /// `(algorithm, stats)`; the algorithm name labels the box and picks its colour.
    pub boxes: Vec<(String, BoxStats)>,
}

/// How a [`Series`] is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesStyle {
    /// Solid line through the points in the given order.
    Line,
    /// Dashed line (analytic curves; a `Line` series named `analytic…` is drawn dashed too).
    Dashed,
    /// One dot per point, no line.
    Points,
    /// Staircase: each value holds until the next point's x (e.g. RTO over time).
    Step,
    /// A shaded rectangle spanning the first and last point (corners), drawn under the lines
    /// that follow it (e.g. the band in which a claim holds).
    Band,
}

/// A named series of `(x, y)` points.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend name; an algorithm name, `RTT` or `analytic…` picks the palette colour.
    pub name: String,
    /// Points in drawing order (not sorted by the figure).
    pub points: Vec<(f64, f64)>,
    /// How to draw them.
    pub style: SeriesStyle,
}

impl Series {
    /// Shorthand constructor.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>, style: SeriesStyle) -> Self {
        Self { name: name.into(), points, style }
    }
}

/// One panel of a [`line_figure`].
#[derive(Debug, Clone, PartialEq)]
pub struct LinePanel {
    /// Panel title.
    pub title: String,
    /// X axis label, with its unit.
    pub x_label: String,
    /// Y axis label, with its unit.
    pub y_label: String,
    /// The series; their names make up the figure's legend.
    pub series: Vec<Series>,
    /// Logarithmic y axis (only if every drawn y is positive; else linear, noted in the title).
    pub log_y: bool,
}

/// One group of a [`bar_figure`]: bars side by side above one x label.
#[derive(Debug, Clone, PartialEq)]
pub struct BarGroup {
    /// The group's x-axis label (e.g. the RTT-trace row `"4"`).
    pub label: String,
    /// `(algorithm or estimator, value)`; the name picks the colour and the legend entry.
    pub bars: Vec<(String, f64)>,
}

// ---------------------------------------------------------------------------------------
// Layout constants. plotters' SVG backend writes `font-size = size / 1.24`; these sizes
// are chosen so that the division is exact (13.64 → 11 px, 14.88 → 12 px, 17.36 → 14 px,
// 24.8 → 20 px).

const FONT: &str = "sans-serif";
const TITLE_SIZE: f64 = 24.8;
const PANEL_TITLE_SIZE: f64 = 17.36;
const DESC_SIZE: f64 = 14.88;
const TICK_SIZE: f64 = 13.64;
const LEGEND_SIZE: f64 = 14.88;
const NOTE_SIZE: f64 = 17.36;
const TITLE_H: u32 = 40;
const LEGEND_ROW_H: u32 = 22;
const Y_LABEL_AREA: u32 = 66;
const GRID_BOLD: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);
const GRID_LIGHT: RGBColor = RGBColor(0xF2, 0xF2, 0xF2);
const NOTE_GREY: RGBColor = RGBColor(0x77, 0x77, 0x77);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = Result<(), String>;

fn fail<E: std::fmt::Display>(e: E) -> String {
    format!("plotting failed: {e}")
}

/// Rough width in pixels of `text` at plotters size `size` (average sans-serif glyph
/// ≈ 0.56 em). Used for layout only.
fn text_width(text: &str, size: f64) -> u32 {
    (text.chars().count() as f64 * size / 1.24 * 0.56).ceil() as u32
}

fn style(size: f64, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    (FONT, size).into_font().color(&colour).pos(Pos::new(h, v))
}

fn draw_text(area: &Area, text: &str, at: (i32, i32), style: TextStyle<'static>) -> Drawn {
    area.draw(&Text::new(text.to_string(), at, style)).map_err(fail)
}

/// Height of one line of a wrapped panel title.
const PANEL_TITLE_LINE_H: u32 = 18;

/// `text` in lines no wider than `width` pixels at plotters size `size` (by [`text_width`]),
/// broken at spaces; a word wider than the line keeps a line of its own. No line for no text.
fn wrap(text: &str, width: u32, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let joined = lines.last().map(|line| format!("{line} {word}"));
        match joined {
            Some(j) if text_width(&j, size) <= width => {
                if let Some(line) = lines.last_mut() {
                    *line = j;
                }
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// A figure title in the [`TITLE_H`] band at the top, no wider than `width` pixels: one line at
/// the largest of [`TITLE_SIZE`], [`PANEL_TITLE_SIZE`] and [`DESC_SIZE`] that holds it, else two
/// lines at [`DESC_SIZE`] (the second cut with "…" if even two do not hold it; the SVG's
/// `<title>` keeps the whole text).
fn fit_title(title: &str, width: u32) -> (f64, Vec<String>) {
    for size in [TITLE_SIZE, PANEL_TITLE_SIZE, DESC_SIZE] {
        if text_width(title, size) <= width {
            return (size, vec![title.to_string()]);
        }
    }
    let mut lines = wrap(title, width, DESC_SIZE);
    if lines.len() > 2 {
        let rest = lines.split_off(1).join(" ");
        let mut cut = rest;
        while !cut.is_empty() && text_width(&format!("{cut}…"), DESC_SIZE) > width {
            cut.pop();
        }
        lines.push(format!("{}…", cut.trim_end()));
    }
    (DESC_SIZE, lines)
}

/// A tick label: no `NaN`, no `1000.0000001`, scientific notation outside 1e-3..1e6.
fn fmt_tick(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    let a = v.abs();
    if a < 1e-12 {
        return "0".into();
    }
    let trim = |s: String| -> String {
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
    };
    let s = if !(1e-3..1e6).contains(&a) {
        let s = format!("{v:.2e}");
        match s.split_once('e') {
            Some((m, e)) => format!("{}e{e}", trim(m.to_string())),
            None => s,
        }
    } else {
        let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        trim(format!("{v:.decimals$}"))
    };
    if s == "-0" { "0".into() } else { s }
}

// ---------------------------------------------------------------------------------------
// Axis ranges

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Zero {
    /// Always include zero (bars, boxes).
    Always,
    /// Include zero when the data are not far from it (lines).
    IfNear,
}

#[derive(Debug, Clone, PartialEq)]
enum YAxis {
    Linear(Range<f64>),
    Log(Range<f64>),
}

/// The y axis for `values` (non-finite ones ignored). `None` if there is no finite value or
/// the range is not representable. The flag says a requested log axis fell back to linear.
fn y_axis(values: &[f64], want_log: bool, zero: Zero) -> Option<(YAxis, bool)> {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold(None, |acc: Option<(f64, f64)>, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })?;
    if want_log && lo > 0.0 {
        return log_range(lo, hi).map(|r| (YAxis::Log(r), false));
    }
    linear_range(lo, hi, zero).map(|r| (YAxis::Linear(r), want_log))
}

fn linear_range(mut lo: f64, mut hi: f64, zero: Zero) -> Option<Range<f64>> {
    match zero {
        Zero::Always => {
            lo = lo.min(0.0);
            hi = hi.max(0.0);
        }
        Zero::IfNear => {
            if lo > 0.0 && lo < 0.6 * hi {
                lo = 0.0;
            } else if hi < 0.0 && hi > 0.6 * lo {
                hi = 0.0;
            }
        }
    }
    let scale = lo.abs().max(hi.abs());
    if hi - lo <= 1e-9 * scale || hi - lo < 1e-300 {
        if scale < 1e-300 {
            return Some(0.0..1.0);
        }
        let d = 0.1 * scale;
        let (l, h) = (if lo == 0.0 { 0.0 } else { lo - d }, if hi == 0.0 { 0.0 } else { hi + d });
        return (l.is_finite() && h.is_finite() && h > l).then_some(l..h);
    }
    let pad = 0.05 * (hi - lo);
    let l = if lo == 0.0 { 0.0 } else { lo - pad };
    let h = if hi == 0.0 { 0.0 } else { hi + pad };
    (l.is_finite() && h.is_finite() && (h - l).is_finite() && h > l).then_some(l..h)
}

fn log_range(lo: f64, hi: f64) -> Option<Range<f64>> {
    let (mut l, mut h) = (lo.log10(), hi.log10());
    if h - l < 1e-9 {
        l -= 0.3;
        h += 0.3;
    } else {
        let pad = 0.05 * (h - l);
        l -= pad;
        h += pad;
    }
    let (l, h) = (10f64.powf(l), 10f64.powf(h));
    (l > 0.0 && h.is_finite() && h > l).then_some(l..h)
}

fn x_range(lo: f64, hi: f64, pad_fraction: f64) -> Option<Range<f64>> {
    let scale = lo.abs().max(hi.abs());
    let (l, h) = if hi - lo <= 1e-9 * scale {
        let d = if scale < 1e-300 { 1.0 } else { 0.1 * scale };
        (lo - d, hi + d)
    } else {
        let pad = pad_fraction * (hi - lo);
        (lo - pad, hi + pad)
    };
    (l.is_finite() && h.is_finite() && (h - l).is_finite() && h > l).then_some(l..h)
}

/// "Nice" linear ticks in `lo..=hi`, about `n` of them.
fn linear_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let raw = (hi - lo) / n.max(1) as f64;
    if !(raw.is_finite() && raw > 0.0) {
        return vec![lo];
    }
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let first = (lo / step).ceil() as i64;
    (0..=2 * n as i64).map(|i| (first + i) as f64 * step).take_while(|v| *v <= hi * (1.0 + 1e-12)).collect()
}

/// Labelled (bold) and unlabelled (light) ticks of a log axis over `lo..hi` (both > 0):
/// powers of ten (every k-th one when there are many); 1-2-5 or 1…9 mantissas when the
/// range holds fewer than three of those; plain linear ticks for a range inside one digit.
/// (plotters' own log ticks give no label at all when no power of ten is in range.)
fn log_ticks(lo: f64, hi: f64) -> (Vec<f64>, Vec<f64>) {
    let (k0, k1) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let in_range = |v: &f64| *v >= lo * (1.0 - 1e-12) && *v <= hi * (1.0 + 1e-12);
    let with = |mantissas: &[f64]| -> Vec<f64> {
        (k0..=k1).flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k))).filter(in_range).collect()
    };
    let decades = with(&[1.0]);
    let bold = if decades.len() >= 3 {
        let step = decades.len().div_ceil(8);
        decades.iter().copied().step_by(step).collect()
    } else {
        let b = with(&[1.0, 2.0, 5.0]);
        if b.len() >= 3 {
            b
        } else {
            let b = with(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
            if b.len() >= 3 { b } else { linear_ticks(lo, hi, 6) }
        }
    };
    let light = if decades.is_empty() {
        Vec::new()
    } else {
        with(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]).into_iter().filter(|v| !bold.contains(v)).collect()
    };
    (bold, light)
}

// ---------------------------------------------------------------------------------------
// Series preparation

/// Reduce `points` to at most about `max` points, deterministically: the points are cut
/// into `max / 4` buckets by index and each bucket keeps its first, lowest, highest and last
/// point, in their original order.
fn decimate(points: &[(f64, f64)], max: usize) -> Vec<(f64, f64)> {
    let n = points.len();
    if n <= max.max(4) {
        return points.to_vec();
    }
    let buckets = (max / 4).max(1);
    let mut out = Vec::with_capacity(4 * buckets);
    for b in 0..buckets {
        let (start, end) = (b * n / buckets, (b + 1) * n / buckets);
        if start >= end {
            continue;
        }
        let slice = &points[start..end];
        let (mut imin, mut imax) = (0, 0);
        for (i, p) in slice.iter().enumerate() {
            if p.1 < slice[imin].1 {
                imin = i;
            }
            if p.1 > slice[imax].1 {
                imax = i;
            }
        }
        let mut keep = [0, imin.min(imax), imin.max(imax), slice.len() - 1];
        keep.sort_unstable();
        let mut last = usize::MAX;
        for k in keep {
            if k != last {
                out.push(slice[k]);
                last = k;
            }
        }
    }
    out
}

/// Each value holds until the next point's x.
fn step_shape(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push((x, points[i - 1].1));
        }
        out.push((x, y));
    }
    out
}

#[derive(Debug, Clone)]
struct PreparedSeries {
    name: String,
    style: SeriesStyle,
    segments: Vec<Vec<(f64, f64)>>,
}

fn effective_style(s: &Series) -> SeriesStyle {
    if s.style == SeriesStyle::Line && is_analytic(&s.name) { SeriesStyle::Dashed } else { s.style }
}

fn prepare_series(s: &Series, log_y: bool) -> PreparedSeries {
    let valid = |p: &(f64, f64)| p.0.is_finite() && p.1.is_finite() && (!log_y || p.1 > 0.0);
    let style = effective_style(s);
    let mut segments: Vec<Vec<(f64, f64)>> = Vec::new();
    match style {
        SeriesStyle::Line | SeriesStyle::Dashed => {
            let mut cur = Vec::new();
            for p in &s.points {
                if valid(p) {
                    cur.push(*p);
                } else if !cur.is_empty() {
                    segments.push(std::mem::take(&mut cur));
                }
            }
            if !cur.is_empty() {
                segments.push(cur);
            }
        }
        SeriesStyle::Points | SeriesStyle::Step | SeriesStyle::Band => {
            let pts: Vec<_> = s.points.iter().copied().filter(valid).collect();
            if !pts.is_empty() {
                segments.push(pts);
            }
        }
    }
    if segments.len() > MAX_POINTS_PER_SERIES / 4 {
        // Gaps everywhere (e.g. every other value NaN): join the pieces rather than draw
        // thousands of fragments.
        segments = vec![segments.concat()];
    }
    let total: usize = segments.iter().map(Vec::len).sum();
    if total > MAX_POINTS_PER_SERIES {
        for seg in &mut segments {
            let budget = (MAX_POINTS_PER_SERIES * seg.len() / total).max(4);
            *seg = decimate(seg, budget);
        }
    }
    if style == SeriesStyle::Step {
        for seg in &mut segments {
            *seg = step_shape(seg);
        }
    }
    PreparedSeries { name: s.name.clone(), style, segments }
}

// ---------------------------------------------------------------------------------------
// Legend

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Swatch {
    Line,
    Dashed,
    Points,
    Step,
    Fill,
}

#[derive(Debug, Clone)]
struct LegendEntry {
    name: String,
    swatch: Swatch,
}

const SWATCH_W: u32 = 26;

fn legend_entry_width(e: &LegendEntry) -> u32 {
    SWATCH_W + 6 + text_width(&e.name, LEGEND_SIZE) + 18
}

/// Entries per row (indices), wrapping at `width`.
fn legend_rows(entries: &[LegendEntry], width: u32) -> Vec<Vec<usize>> {
    let usable = width.saturating_sub(32);
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = 0;
    for (i, e) in entries.iter().enumerate() {
        let w = legend_entry_width(e);
        match rows.last_mut() {
            Some(row) if used + w <= usable => row.push(i),
            _ => {
                rows.push(vec![i]);
                used = 0;
            }
        }
        used += w;
    }
    rows
}

fn legend_height(entries: &[LegendEntry], width: u32) -> u32 {
    let rows = legend_rows(entries, width).len() as u32;
    if rows == 0 { 0 } else { rows * LEGEND_ROW_H + 6 }
}

fn draw_legend(area: &Area, entries: &[LegendEntry]) -> Drawn {
    let (w, _) = area.dim_in_pixel();
    for (r, row) in legend_rows(entries, w).iter().enumerate() {
        let row_w: u32 = row.iter().map(|&i| legend_entry_width(&entries[i])).sum();
        let mut x = (w.saturating_sub(row_w) / 2) as i32;
        let y = (r as u32 * LEGEND_ROW_H + LEGEND_ROW_H / 2 + 2) as i32;
        for &i in row {
            let e = &entries[i];
            let c = rgb(&e.name);
            let sw = SWATCH_W as i32;
            let line = c.stroke_width(2);
            let drawn = match e.swatch {
                Swatch::Line => area.draw(&PathElement::new(vec![(x, y), (x + sw, y)], line)),
                Swatch::Dashed => area
                    .draw(&PathElement::new(vec![(x, y), (x + 7, y)], line))
                    .and_then(|_| area.draw(&PathElement::new(vec![(x + 10, y), (x + 16, y)], line)))
                    .and_then(|_| area.draw(&PathElement::new(vec![(x + 19, y), (x + sw, y)], line))),
                Swatch::Step => area
                    .draw(&PathElement::new(vec![(x, y + 4), (x + 13, y + 4), (x + 13, y - 4), (x + sw, y - 4)], line)),
                Swatch::Points => area
                    .draw(&Circle::new((x + 6, y), 3, c.filled()))
                    .and_then(|_| area.draw(&Circle::new((x + 19, y), 3, c.filled()))),
                Swatch::Fill => area
                    .draw(&Rectangle::new([(x + 4, y - 6), (x + sw - 4, y + 6)], c.mix(0.85).filled()))
                    .and_then(|_| area.draw(&Rectangle::new([(x + 4, y - 6), (x + sw - 4, y + 6)], c.stroke_width(1)))),
            };
            drawn.map_err(fail)?;
            draw_text(area, &e.name, (x + sw + 6, y), style(LEGEND_SIZE, BLACK, HPos::Left, VPos::Center))?;
            x += legend_entry_width(e) as i32;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Figure frame

struct Grid {
    rows: usize,
    cols: usize,
}

fn grid(n: usize, max_cols: usize) -> Grid {
    let cols = match n {
        0 | 1 => 1,
        2 | 4 => 2.min(max_cols),
        _ => max_cols,
    }
    .max(1);
    Grid { rows: n.div_ceil(cols).max(1), cols }
}

fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

fn svg_open(title: &str, (w, h): (u32, u32)) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         style=\"max-width:100%;height:auto\" role=\"img\">\n<title>{}</title>\n",
        escape_xml(title)
    )
}

/// A figure that could not be drawn: the title and the reason, as text.
fn error_svg(title: &str, message: &str) -> String {
    let size = (FIGURE_WIDTH, 110);
    let mut s = svg_open(title, size);
    s.push_str(&format!(
        "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#FFFFFF\" stroke=\"#CCCCCC\"/>\n",
        size.0, size.1
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"34\" text-anchor=\"middle\" font-family=\"{FONT}\" font-size=\"19\">{}</text>\n",
        size.0 / 2,
        escape_xml(title)
    ));
    s.push_str(&format!(
        "<text x=\"{}\" y=\"74\" text-anchor=\"middle\" font-family=\"{FONT}\" font-size=\"14\" fill=\"#B00020\">\
         figure could not be drawn: {}</text>\n</svg>\n",
        size.0 / 2,
        escape_xml(message)
    ));
    s
}

/// Draw with plotters into a string; replace plotters' root tag by ours (scalable, with a
/// `<title>`). Errors and panics become [`error_svg`].
fn render(title: &str, size: (u32, u32), draw: impl FnOnce(&Area) -> Drawn) -> String {
    let mut buf = String::new();
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Drawn {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let (w, _) = root.dim_in_pixel();
        let (size, lines) = fit_title(title, w.saturating_sub(16));
        let line_h = (size / 1.24).ceil() as i32 + 2;
        for (i, line) in lines.iter().enumerate() {
            let at = ((w / 2) as i32, 10 + i as i32 * line_h);
            draw_text(&root, line, at, style(size, BLACK, HPos::Center, VPos::Top))?;
        }
        draw(&root)?;
        root.present().map_err(fail)
    }));
    match outcome {
        Ok(Ok(())) => match buf.split_once('\n') {
            Some((first, rest)) if first.starts_with("<svg ") => svg_open(title, size) + rest,
            _ => error_svg(title, "unexpected SVG backend output"),
        },
        Ok(Err(message)) => error_svg(title, &message),
        Err(_) => error_svg(title, "internal error in the plotting library"),
    }
}

fn no_data_figure(title: &str) -> String {
    let size = (FIGURE_WIDTH, TITLE_H + 90);
    render(title, size, |root| {
        let (w, h) = root.dim_in_pixel();
        draw_text(
            root,
            "no data",
            ((w / 2) as i32, (TITLE_H + (h - TITLE_H) / 2) as i32),
            style(NOTE_SIZE, NOTE_GREY, HPos::Center, VPos::Center),
        )
    })
}

fn no_data_panel(area: &Area, title: &str, note: &str) -> Drawn {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    draw_text(area, title, (w / 2, 8), style(PANEL_TITLE_SIZE, BLACK, HPos::Center, VPos::Top))?;
    area.draw(&Rectangle::new([(12, 34), (w - 12, h - 12)], GRID_BOLD.stroke_width(1))).map_err(fail)?;
    draw_text(area, note, (w / 2, (34 + h - 12) / 2), style(NOTE_SIZE, NOTE_GREY, HPos::Center, VPos::Center))
}

const LOG_FALLBACK_NOTE: &str = " (linear axis: data ≤ 0)";

fn panel_title(title: &str, fell_back: bool) -> String {
    if fell_back { format!("{title}{LOG_FALLBACK_NOTE}") } else { title.to_string() }
}

/// Category labels under a chart's x axis (boxes, bar groups): horizontal, or rotated to
/// read upwards when some label is wider than its slot.
fn category_labels(area: &Area, labels: &[(&str, i32)], axis_y: i32, rotate: bool) -> Drawn {
    let base = area.get_base_pixel();
    for &(label, px) in labels {
        let at = (px - base.0, axis_y - base.1 + 6);
        let st = if rotate {
            style(TICK_SIZE, BLACK, HPos::Right, VPos::Center).transform(FontTransform::Rotate270)
        } else {
            style(TICK_SIZE, BLACK, HPos::Center, VPos::Top)
        };
        draw_text(area, label, at, st)?;
    }
    Ok(())
}

/// Whether category labels must be rotated, and the height of the label area they need.
fn category_layout<'s>(labels: impl Iterator<Item = &'s str>, slot_w: u32) -> (bool, u32) {
    let widest = labels.map(|l| text_width(l, TICK_SIZE)).max().unwrap_or(0);
    if widest + 4 > slot_w { (true, widest + 16) } else { (false, 30) }
}

fn darken(c: RGBColor, f: f64) -> RGBColor {
    let d = |v: u8| (f64::from(v) * f).round() as u8;
    RGBColor(d(c.0), d(c.1), d(c.2))
}

// ---------------------------------------------------------------------------------------
// Charts

/// Texts and x-axis layout of one chart.
struct Frame<'t> {
    title: &'t str,
    x_label: &'t str,
    y_label: &'t str,
    /// Height of the area under the x axis (tick labels and description).
    x_label_area: u32,
    /// Number of numeric x ticks; 0 for categorical axes (labels drawn by the caller).
    x_ticks: usize,
}

type Chart<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, Y>>;

/// A log y axis with [`log_ticks`].
fn log_coord(r: &Range<f64>) -> WithKeyPoints<LogCoord<f64>> {
    let (bold, light) = log_ticks(r.start, r.end);
    r.clone().log_scale().with_key_points(bold).with_light_points(light)
}

fn chart<'a, 'b, YS>(
    area: &'a Area<'b>,
    f: &Frame,
    x: Range<f64>,
    y: YS,
) -> Result<Chart<'a, 'b, YS::CoordDescType>, String>
where
    YS: AsRangedCoord<Value = f64>,
    YS::CoordDescType: ValueFormatter<f64>,
{
    let mut builder = ChartBuilder::on(area);
    // A title wider than the panel is wrapped: every line but the last drawn here, the last as
    // the chart's caption below them.
    let lines = wrap(f.title, area.dim_in_pixel().0.saturating_sub(16), PANEL_TITLE_SIZE);
    let (w, _) = area.dim_in_pixel();
    for (i, line) in lines.iter().enumerate().take(lines.len().saturating_sub(1)) {
        let at = ((w / 2) as i32, 8 + i as i32 * PANEL_TITLE_LINE_H as i32);
        draw_text(area, line, at, style(PANEL_TITLE_SIZE, BLACK, HPos::Center, VPos::Top))?;
    }
    if let Some(last) = lines.last() {
        builder.caption(last, (FONT, PANEL_TITLE_SIZE));
    }
    let mut chart = builder
        .margin(8)
        .margin_top(8 + lines.len().saturating_sub(1) as u32 * PANEL_TITLE_LINE_H)
        .margin_right(16)
        .x_label_area_size(f.x_label_area)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x, y)
        .map_err(fail)?;
    let y_ticks = if area.dim_in_pixel().1 > 360 { 10 } else { 6 };
    let fmt = |v: &f64| fmt_tick(*v);
    let mut mesh = chart.configure_mesh();
    mesh.x_labels(f.x_ticks)
        .y_labels(y_ticks)
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .label_style((FONT, TICK_SIZE))
        .axis_desc_style((FONT, DESC_SIZE))
        .bold_line_style(GRID_BOLD)
        .light_line_style(GRID_LIGHT)
        .max_light_lines(1)
        .y_desc(f.y_label);
    if f.x_ticks == 0 {
        mesh.disable_x_mesh();
    }
    if !f.x_label.is_empty() {
        mesh.x_desc(f.x_label);
    }
    mesh.draw().map_err(fail)?;
    Ok(chart)
}

// ---------------------------------------------------------------------------------------
// Box figure

/// A panel's boxes differ by more than this factor: its y axis is logarithmic
/// ([`box_spread`], [`box_figure`]).
pub const BOX_LOG_SPREAD: f64 = 10.0;

/// How far apart a panel's boxes lie: the largest upper whisker (p90) over the smallest lower
/// whisker (p10) of its finite boxes. `None` when there is no finite box or the smallest lower
/// whisker is not positive (no ratio, and no log axis could show it).
pub fn box_spread(boxes: &[(String, BoxStats)]) -> Option<f64> {
    let finite = boxes.iter().map(|(_, s)| s).filter(|s| s.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s.p10), hi.max(s.p90)));
    (lo > 0.0 && lo.is_finite() && hi.is_finite()).then(|| hi / lo)
}

/// A grid of box-plot panels (e.g. 3 buffers × 2 flow types), one box per algorithm per
/// panel, labelled under the axis with the algorithm name and the number of values
/// (`cocoa (n=400)`), coloured by [`colour_of`]. Whiskers at p10/p90, box p25–p75, median as
/// a dark bar. Linear axes include zero. The y axes are logarithmic when `log_y` asks for it
/// or when the boxes of some panel differ by more than [`BOX_LOG_SPREAD`] ([`box_spread`] > 10:
/// the largest upper whisker is more than ten times the smallest lower whisker); then every
/// panel that a log axis can show (all whiskers positive) has one, so that panels side by side
/// read alike, and its axis label ends in "log scale".
pub fn box_figure(title: &str, panels: &[BoxPanel], log_y: bool) -> String {
    box_figure_on(title, panels, if log_y { Some(true) } else { None })
}

/// [`box_figure`] on linear axes only, for boxes that are intervals around a mean (a mean and
/// its confidence interval), which a log axis would draw lopsided.
pub fn box_figure_linear(title: &str, panels: &[BoxPanel]) -> String {
    box_figure_on(title, panels, Some(false))
}

/// A box figure whose axes are all log (`Some(true)`), all linear (`Some(false)`), or chosen by
/// [`box_spread`] for the whole figure (`None`, see [`box_figure`]).
fn box_figure_on(title: &str, panels: &[BoxPanel], log_y: Option<bool>) -> String {
    if panels.is_empty() {
        return no_data_figure(title);
    }
    let kept: Vec<Vec<(&str, BoxStats)>> = panels
        .iter()
        .map(|p| p.boxes.iter().filter(|(_, s)| s.is_finite()).map(|(n, s)| (n.as_str(), *s)).collect())
        .collect();
    let labels: Vec<String> = kept.iter().flatten().map(|(name, s)| box_label(name, s)).collect();
    let max_boxes = kept.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let g = grid(panels.len(), if max_boxes > 12 { 2 } else { 3 });
    let plot_w = (FIGURE_WIDTH / g.cols as u32).saturating_sub(Y_LABEL_AREA + 24);
    let (rotate, label_h) = category_layout(labels.iter().map(String::as_str), plot_w / max_boxes as u32);
    let panel_h = 250 + label_h;
    let size = (FIGURE_WIDTH, TITLE_H + g.rows as u32 * panel_h);
    let spread = panels.iter().any(|p| box_spread(&p.boxes).is_some_and(|r| r > BOX_LOG_SPREAD));
    render(title, size, |root| {
        let (_, body) = root.split_vertically(TITLE_H);
        for ((area, panel), boxes) in body.split_evenly((g.rows, g.cols)).iter().zip(panels).zip(&kept) {
            let log = log_y.unwrap_or_else(|| spread && box_spread(&panel.boxes).is_some());
            draw_box_panel(area, panel, boxes, log, label_h, rotate)?;
        }
        Ok(())
    })
}

fn draw_box_panel(
    area: &Area,
    panel: &BoxPanel,
    boxes: &[(&str, BoxStats)],
    log: bool,
    label_h: u32,
    rotate: bool,
) -> Drawn {
    if boxes.is_empty() {
        return no_data_panel(area, &panel.title, "no data");
    }
    let values: Vec<f64> = boxes.iter().flat_map(|(_, s)| s.values()).collect();
    let Some((axis, fell_back)) = y_axis(&values, log, Zero::Always) else {
        return no_data_panel(area, &panel.title, "values out of range");
    };
    let title = panel_title(&panel.title, fell_back);
    let y_label =
        if matches!(axis, YAxis::Log(_)) { format!("{}, log scale", panel.y_label) } else { panel.y_label.clone() };
    let f = Frame { title: &title, x_label: "", y_label: &y_label, x_label_area: label_h, x_ticks: 0 };
    match axis {
        YAxis::Linear(r) => box_chart(area, &f, boxes, r.clone(), r.start, rotate),
        YAxis::Log(r) => box_chart(area, &f, boxes, log_coord(&r), r.start, rotate),
    }
}

/// A box's label under the axis: the algorithm and the number of values.
fn box_label(name: &str, s: &BoxStats) -> String {
    format!("{name} (n={})", s.n)
}

fn box_chart<YS>(area: &Area, f: &Frame, boxes: &[(&str, BoxStats)], y: YS, y_base: f64, rotate: bool) -> Drawn
where
    YS: AsRangedCoord<Value = f64>,
    YS::CoordDescType: ValueFormatter<f64>,
{
    let chart = chart(area, f, -0.5..boxes.len() as f64 - 0.5, y)?;
    let pa = chart.plotting_area();
    let (hw, cap) = (0.3, 0.15);
    for (i, (name, s)) in boxes.iter().enumerate() {
        let x = i as f64;
        let c = rgb(name);
        let body = [(x - hw, s.p25), (x + hw, s.p75)];
        pa.draw(&Rectangle::new(body, c.mix(0.3).filled())).map_err(fail)?;
        pa.draw(&Rectangle::new(body, c.stroke_width(1))).map_err(fail)?;
        for seg in [
            [(x, s.p10), (x, s.p25)],
            [(x, s.p75), (x, s.p90)],
            [(x - cap, s.p10), (x + cap, s.p10)],
            [(x - cap, s.p90), (x + cap, s.p90)],
        ] {
            pa.draw(&PathElement::new(seg.to_vec(), c.stroke_width(1))).map_err(fail)?;
        }
        pa.draw(&PathElement::new(vec![(x - hw, s.p50), (x + hw, s.p50)], darken(c, 0.55).stroke_width(2)))
            .map_err(fail)?;
    }
    let (_, yr) = pa.get_pixel_range();
    let names: Vec<String> = boxes.iter().map(|(name, s)| box_label(name, s)).collect();
    let labels: Vec<(&str, i32)> =
        names.iter().enumerate().map(|(i, name)| (name.as_str(), chart.backend_coord(&(i as f64, y_base)).0)).collect();
    category_labels(area, &labels, yr.end, rotate)
}

// ---------------------------------------------------------------------------------------
// Line figure

/// A grid of line panels (e.g. RTO vs RTT traces per scenario, goodput vs mean residual
/// bandwidth per algorithm set). One legend above the panels lists every series name once
/// (first appearance order, first style).
pub fn line_figure(title: &str, panels: &[LinePanel]) -> String {
    line_figure_in_columns(title, panels, 3)
}

/// [`line_figure`] with at most `max_cols` panels per row (e.g. 2: a window and the whole run
/// side by side).
pub fn line_figure_in_columns(title: &str, panels: &[LinePanel], max_cols: usize) -> String {
    if panels.is_empty() {
        return no_data_figure(title);
    }
    let mut legend: Vec<LegendEntry> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !legend.iter().any(|e| e.name == s.name) {
            let swatch = match effective_style(s) {
                SeriesStyle::Line => Swatch::Line,
                SeriesStyle::Dashed => Swatch::Dashed,
                SeriesStyle::Points => Swatch::Points,
                SeriesStyle::Step => Swatch::Step,
                SeriesStyle::Band => Swatch::Fill,
            };
            legend.push(LegendEntry { name: s.name.clone(), swatch });
        }
    }
    let g = grid(panels.len(), max_cols);
    let panel_h = match g.cols {
        1 => 400,
        2 => 330,
        _ => 280,
    };
    let legend_h = legend_height(&legend, FIGURE_WIDTH);
    let size = (FIGURE_WIDTH, TITLE_H + legend_h + g.rows as u32 * panel_h);
    render(title, size, |root| {
        let (_, body) = root.split_vertically(TITLE_H);
        let (legend_area, body) = body.split_vertically(legend_h);
        draw_legend(&legend_area, &legend)?;
        for (area, panel) in body.split_evenly((g.rows, g.cols)).iter().zip(panels) {
            draw_line_panel(area, panel)?;
        }
        Ok(())
    })
}

fn draw_line_panel(area: &Area, panel: &LinePanel) -> Drawn {
    let ys: Vec<f64> = panel
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|(x, y)| x.is_finite() && y.is_finite())
        .map(|p| p.1)
        .collect();
    if ys.is_empty() {
        return no_data_panel(area, &panel.title, "no data");
    }
    let Some((axis, fell_back)) = y_axis(&ys, panel.log_y, Zero::IfNear) else {
        return no_data_panel(area, &panel.title, "values out of range");
    };
    let log = matches!(axis, YAxis::Log(_));
    let series: Vec<PreparedSeries> = panel.series.iter().map(|s| prepare_series(s, log)).collect();
    let (lo, hi) = series
        .iter()
        .flat_map(|s| s.segments.iter().flatten())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let pad = if series.iter().any(|s| s.style == SeriesStyle::Points) { 0.02 } else { 0.0 };
    let Some(xr) = x_range(lo, hi, pad) else {
        return no_data_panel(area, &panel.title, "values out of range");
    };
    let title = panel_title(&panel.title, fell_back);
    let x_ticks = if area.dim_in_pixel().0 < 400 { 5 } else { 8 };
    let f = Frame { title: &title, x_label: &panel.x_label, y_label: &panel.y_label, x_label_area: 46, x_ticks };
    match axis {
        YAxis::Linear(r) => line_chart(area, &f, &series, xr, r),
        YAxis::Log(r) => line_chart(area, &f, &series, xr, log_coord(&r)),
    }
}

fn line_chart<YS>(area: &Area, f: &Frame, series: &[PreparedSeries], x: Range<f64>, y: YS) -> Drawn
where
    YS: AsRangedCoord<Value = f64>,
    YS::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = chart(area, f, x, y)?;
    for s in series {
        let c = rgb(&s.name);
        let line = c.stroke_width(if s.style == SeriesStyle::Step { 1 } else { 2 });
        for seg in &s.segments {
            let drawn = if s.style == SeriesStyle::Band {
                let (Some(&a), Some(&b)) = (seg.first(), seg.last()) else { continue };
                chart.draw_series(std::iter::once(Rectangle::new([a, b], c.mix(0.25).filled()))).map(|_| ())
            } else if is_marker(&s.name) {
                chart.draw_series(seg.iter().map(|&p| Circle::new(p, 6, c.stroke_width(2)))).map(|_| ())
            } else if seg.len() == 1 || s.style == SeriesStyle::Points {
                chart.draw_series(seg.iter().map(|&p| Circle::new(p, 2, c.filled()))).map(|_| ())
            } else if s.style == SeriesStyle::Dashed {
                chart.draw_series(DashedLineSeries::new(seg.iter().copied(), 7, 5, line)).map(|_| ())
            } else {
                chart.draw_series(LineSeries::new(seg.iter().copied(), line)).map(|_| ())
            };
            drawn.map_err(fail)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Bar figure

/// Grouped bars (e.g. RMSE per RTT-trace row, one bar per estimator), coloured by
/// [`colour_of`], with a legend above the chart. Linear axes start at zero.
pub fn bar_figure(title: &str, y_label: &str, groups: &[BarGroup], log_y: bool) -> String {
    bar_figure_labelled(title, "", y_label, groups, log_y)
}

/// [`bar_figure`] with a description under the x axis (e.g. `"RTT trace row"`).
pub fn bar_figure_labelled(title: &str, x_label: &str, y_label: &str, groups: &[BarGroup], log_y: bool) -> String {
    let kept: Vec<(&str, Vec<(&str, f64)>)> = groups
        .iter()
        .map(|g| {
            (g.label.as_str(), g.bars.iter().filter(|(_, v)| v.is_finite()).map(|(n, v)| (n.as_str(), *v)).collect())
        })
        .collect();
    let values: Vec<f64> = kept.iter().flat_map(|(_, b)| b.iter().map(|(_, v)| *v)).collect();
    if values.is_empty() {
        return no_data_figure(title);
    }
    let Some((axis, fell_back)) = y_axis(&values, log_y, Zero::Always) else {
        return error_svg(title, "values out of range");
    };
    let mut legend: Vec<LegendEntry> = Vec::new();
    for (name, _) in kept.iter().flat_map(|(_, b)| b) {
        if !legend.iter().any(|e| e.name == *name) {
            legend.push(LegendEntry { name: (*name).to_string(), swatch: Swatch::Fill });
        }
    }
    let plot_w = FIGURE_WIDTH.saturating_sub(Y_LABEL_AREA + 24);
    let (rotate, label_h) = category_layout(kept.iter().map(|(l, _)| *l), plot_w / kept.len() as u32);
    let x_area = label_h + if x_label.is_empty() { 0 } else { 22 };
    let legend_h = legend_height(&legend, FIGURE_WIDTH);
    let chart_h = 380 + x_area;
    let size = (FIGURE_WIDTH, TITLE_H + legend_h + chart_h);
    let note = if fell_back { LOG_FALLBACK_NOTE.trim_start() } else { "" };
    render(title, size, |root| {
        let (_, body) = root.split_vertically(TITLE_H);
        let (legend_area, body) = body.split_vertically(legend_h);
        draw_legend(&legend_area, &legend)?;
        let f = Frame { title: note, x_label, y_label, x_label_area: x_area, x_ticks: 0 };
        match axis {
            YAxis::Linear(r) => bar_chart(&body, &f, &kept, r, 0.0, rotate),
            YAxis::Log(r) => bar_chart(&body, &f, &kept, log_coord(&r), r.start, rotate),
        }
    })
}

fn bar_chart<YS>(area: &Area, f: &Frame, groups: &[(&str, Vec<(&str, f64)>)], y: YS, y_base: f64, rotate: bool) -> Drawn
where
    YS: AsRangedCoord<Value = f64>,
    YS::CoordDescType: ValueFormatter<f64>,
{
    let chart = chart(area, f, -0.5..groups.len() as f64 - 0.5, y)?;
    let pa = chart.plotting_area();
    for (g, (_, bars)) in groups.iter().enumerate() {
        let w = 0.8 / bars.len().max(1) as f64;
        for (j, (name, v)) in bars.iter().enumerate() {
            let x0 = g as f64 - 0.4 + j as f64 * w;
            let r = [(x0 + 0.06 * w, y_base), (x0 + 0.94 * w, *v)];
            let c = rgb(name);
            pa.draw(&Rectangle::new(r, c.mix(0.85).filled())).map_err(fail)?;
            pa.draw(&Rectangle::new(r, darken(c, 0.7).stroke_width(1))).map_err(fail)?;
        }
    }
    let (_, yr) = pa.get_pixel_range();
    let labels: Vec<(&str, i32)> =
        groups.iter().enumerate().map(|(i, (label, _))| (*label, chart.backend_coord(&(i as f64, y_base)).0)).collect();
    category_labels(area, &labels, yr.end, rotate)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALGOS: [&str; 6] = ["default", "cocoa", "cocoa-strong", "pcocoa", "fasor", "cocoa-blind-exponential"];

    /// Balanced tags, quoted attributes, one root `<svg>` and nothing after it.
    fn assert_well_formed(svg: &str) {
        assert!(svg.starts_with("<svg"), "does not start with <svg: {}", &svg[..svg.len().min(80)]);
        let mut stack: Vec<&str> = Vec::new();
        let mut rest = svg;
        let mut closed_root = false;
        while let Some(open) = rest.find('<') {
            assert!(!closed_root || rest[..open].trim().is_empty(), "content after </svg>");
            assert!(!rest[..open].contains('>'), "stray '>' in text");
            let end = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..end];
            assert!(!tag.contains('<'), "'<' inside tag {tag}");
            assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes in {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop(), Some(name.trim()), "mismatched </{name}>");
                if stack.is_empty() {
                    closed_root = true;
                }
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().unwrap_or("");
                assert!(!closed_root, "second root element {name}");
                stack.push(name);
            }
            rest = &rest[end + 1..];
        }
        assert!(stack.is_empty(), "unclosed tags: {stack:?}");
        assert!(closed_root && rest.trim().is_empty());
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "non-finite value printed");
    }

    fn stats(base: f64) -> BoxStats {
        BoxStats { p10: base, p25: base * 1.2, p50: base * 1.5, p75: base * 1.9, p90: base * 2.6, n: 40 }
    }

    fn sample_boxes() -> Vec<BoxPanel> {
        let mut panels = Vec::new();
        for buffer in [1, 4, 16] {
            for flow in ["short", "long"] {
                panels.push(BoxPanel {
                    title: format!("buffer {buffer}, {flow} flows"),
                    y_label: "flow completion time (s)".into(),
                    boxes: ALGOS.iter().enumerate().map(|(i, a)| (a.to_string(), stats(1.0 + i as f64))).collect(),
                });
            }
        }
        panels
    }

    fn sample_lines() -> Vec<LinePanel> {
        let rtt: Vec<(f64, f64)> = (0..600).map(|i| (i as f64 * 0.5, 0.2 + 0.1 * (i as f64 / 20.0).sin())).collect();
        let rto: Vec<(f64, f64)> = (0..60).map(|i| (i as f64 * 5.0, 1.0 + 0.5 * (i as f64 / 7.0).cos())).collect();
        ["scenario A", "scenario B"]
            .iter()
            .map(|t| LinePanel {
                title: t.to_string(),
                x_label: "time (s)".into(),
                y_label: "RTO (s)".into(),
                series: vec![
                    Series::new("RTT", rtt.clone(), SeriesStyle::Points),
                    Series::new("cocoa", rto.clone(), SeriesStyle::Step),
                    Series::new("pcocoa", rto.iter().map(|&(x, y)| (x, y * 1.3)).collect(), SeriesStyle::Line),
                    Series::new("analytic", vec![(0.0, 1.0), (300.0, 1.2)], SeriesStyle::Line),
                ],
                log_y: false,
            })
            .collect()
    }

    fn sample_bars() -> Vec<BarGroup> {
        (1..=5)
            .map(|row| BarGroup {
                label: row.to_string(),
                bars: vec![("idc".into(), 1000.0 + 61.6 * row as f64), ("pcocoa".into(), 1411.7 - 40.0 * row as f64)],
            })
            .collect()
    }

    #[test]
    fn box_figure_has_the_title_every_panel_title_and_every_algorithm_name() {
        let panels = sample_boxes();
        let svg = box_figure("Flow completion times", &panels, false);
        assert_well_formed(&svg);
        assert!(svg.contains("Flow completion times"));
        for p in &panels {
            assert!(svg.contains(&p.title), "{}", p.title);
        }
        for a in ALGOS {
            let label = format!("{a} (n=40)");
            assert!(svg.contains(&format!(">{label}<")) || svg.contains(&format!(">\n{label}\n<")), "{a}");
        }
        assert!(svg.contains("flow completion time (s)"));
    }

    #[test]
    fn line_figure_has_the_title_every_panel_title_every_series_name_and_axis_labels() {
        let panels = sample_lines();
        let svg = line_figure("RTO vs RTT", &panels);
        assert_well_formed(&svg);
        for needle in
            ["RTO vs RTT", "scenario A", "scenario B", "RTT", "cocoa", "pcocoa", "analytic", "time (s)", "RTO (s)"]
        {
            assert!(svg.contains(needle), "{needle}");
        }
    }

    #[test]
    fn bar_figure_has_the_title_every_group_label_and_every_bar_name() {
        let svg = bar_figure_labelled("RMSE per trace row", "RTT trace row", "RMSE (ms)", &sample_bars(), false);
        assert_well_formed(&svg);
        for needle in ["RMSE per trace row", "RTT trace row", "RMSE (ms)", "idc", "pcocoa", ">\n3\n<"] {
            assert!(svg.contains(needle), "{needle}");
        }
        assert_well_formed(&bar_figure("RMSE", "RMSE (ms)", &sample_bars(), true));
    }

    #[test]
    fn nan_input_does_not_panic_and_is_not_printed() {
        let nan = f64::NAN;
        let bad = BoxStats { p10: nan, p25: 1.0, p50: 2.0, p75: 3.0, p90: f64::INFINITY, n: 1 };
        let panels = vec![
            BoxPanel { title: "all bad".into(), y_label: "s".into(), boxes: vec![("cocoa".into(), bad)] },
            BoxPanel {
                title: "one bad".into(),
                y_label: "s".into(),
                boxes: vec![("cocoa".into(), bad), ("fasor".into(), stats(2.0))],
            },
        ];
        for log in [false, true] {
            let svg = box_figure("nan boxes", &panels, log);
            assert_well_formed(&svg);
            assert!(svg.contains("no data") && svg.contains("fasor"));
        }

        let lines = vec![
            LinePanel {
                title: "holes".into(),
                x_label: "t (s)".into(),
                y_label: "v".into(),
                series: vec![Series::new(
                    "cocoa",
                    vec![(0.0, 1.0), (1.0, nan), (2.0, 3.0), (nan, 1.0), (4.0, 2.0)],
                    SeriesStyle::Line,
                )],
                log_y: true,
            },
            LinePanel {
                title: "only nan".into(),
                x_label: "t (s)".into(),
                y_label: "v".into(),
                series: vec![Series::new("cocoa", vec![(nan, nan), (f64::INFINITY, 1.0)], SeriesStyle::Step)],
                log_y: false,
            },
            LinePanel {
                title: "no series".into(),
                x_label: "".into(),
                y_label: "".into(),
                series: vec![],
                log_y: true,
            },
        ];
        let svg = line_figure("nan lines", &lines);
        assert_well_formed(&svg);
        assert_eq!(svg.matches(">\nno data\n<").count(), 2);

        let groups = vec![
            BarGroup { label: "a".into(), bars: vec![("idc".into(), nan), ("pcocoa".into(), 2.0)] },
            BarGroup { label: "b".into(), bars: vec![("idc".into(), f64::NEG_INFINITY)] },
        ];
        assert_well_formed(&bar_figure("nan bars", "x", &groups, true));
        let all_nan = vec![BarGroup { label: "a".into(), bars: vec![("idc".into(), nan)] }];
        let svg = bar_figure("all nan bars", "x", &all_nan, false);
        assert_well_formed(&svg);
        assert!(svg.contains("no data"));
    }

    #[test]
    fn identical_input_gives_identical_output() {
        assert_eq!(box_figure("b", &sample_boxes(), true), box_figure("b", &sample_boxes(), true));
        assert_eq!(line_figure("l", &sample_lines()), line_figure("l", &sample_lines()));
        assert_eq!(bar_figure("r", "y", &sample_bars(), false), bar_figure("r", "y", &sample_bars(), false));
    }

    #[test]
    fn an_empty_panel_list_still_returns_valid_svg() {
        for svg in [
            box_figure("empty box", &[], false),
            line_figure("empty line", &[]),
            bar_figure("empty bar", "y", &[], true),
        ] {
            assert_well_formed(&svg);
            assert!(svg.contains("empty") && svg.contains("no data"));
        }
    }

    #[test]
    fn the_colour_of_an_algorithm_is_the_same_in_two_different_figures() {
        let cocoa = colour_hex("cocoa");
        assert_eq!(cocoa, "#FF7F0E");
        let boxes = box_figure("b", &sample_boxes(), false);
        let lines = line_figure("l", &sample_lines());
        assert!(boxes.contains(&format!("stroke=\"{cocoa}\"")));
        assert!(lines.contains(&format!("stroke=\"{cocoa}\"")));
        let pcocoa = colour_hex("pcocoa");
        assert!(lines.contains(&pcocoa) && bar_figure("r", "y", &sample_bars(), false).contains(&pcocoa));
    }

    #[test]
    fn every_named_algorithm_has_its_own_palette_colour_and_unknown_names_a_stable_fallback() {
        let all: Vec<_> = palette().collect();
        for (i, (a, c)) in all.iter().enumerate() {
            assert_eq!(colour_of(a), *c);
            for (b, d) in &all[i + 1..] {
                assert_ne!(c, d, "{a} and {b} share a colour");
            }
        }
        assert_eq!(all.len(), 31, "the algorithms, RTT, analytic, the rate series and the four investigation series");
        assert_eq!(colour_of("cocoa (sim)"), colour_of("cocoa"));
        assert_eq!(colour_of("analytic (cocoa)"), colour_of("analytic"));
        let x = colour_of("some-new-algorithm");
        assert_eq!(x, colour_of("some-new-algorithm"));
        assert_ne!(x, colour_of("some-other-algorithm"));
        assert_eq!(colour_hex("no such thing").len(), 7);
    }

    #[test]
    fn a_log_axis_falls_back_to_linear_when_some_value_is_not_positive() {
        assert!(matches!(y_axis(&[1.0, 100.0], true, Zero::Always), Some((YAxis::Log(_), false))));
        assert!(matches!(y_axis(&[0.0, 100.0], true, Zero::Always), Some((YAxis::Linear(_), true))));
        assert!(matches!(y_axis(&[-1.0, 100.0], false, Zero::Always), Some((YAxis::Linear(_), false))));
        assert_eq!(y_axis(&[f64::NAN], true, Zero::Always), None);
        let panels =
            vec![BoxPanel { title: "zero".into(), y_label: "s".into(), boxes: vec![("cocoa".into(), stats(0.0))] }];
        let svg = box_figure("log fallback", &panels, true);
        assert_well_formed(&svg);
        assert!(svg.contains("linear axis"));
    }

    /// Two boxes whose largest upper whisker is `spread` times the smallest lower whisker.
    fn spread_panel(spread: f64) -> BoxPanel {
        let b = |p10: f64, p90: f64| BoxStats { p10, p25: p10, p50: (p10 + p90) / 2.0, p75: p90, p90, n: 7 };
        BoxPanel {
            title: "spread".into(),
            y_label: "FCT (s)".into(),
            boxes: vec![("cocoa".into(), b(1.0, 2.0)), ("fasor".into(), b(2.0, spread))],
        }
    }

    #[test]
    fn box_panels_switch_to_a_log_axis_when_the_whiskers_span_more_than_ten_times() {
        let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 1e-9);
        assert!(near(box_spread(&spread_panel(9.9).boxes), 9.9));
        assert!(near(box_spread(&spread_panel(10.1).boxes), 10.1));
        let linear = box_figure("b", &[spread_panel(9.9)], false);
        assert!(linear.contains("FCT (s)") && !linear.contains("log scale"), "9.9× stays linear");
        let log = box_figure("b", &[spread_panel(10.1)], false);
        assert!(log.contains("FCT (s), log scale"), "10.1× is drawn on a log axis");
        let mut zero = spread_panel(100.0);
        zero.boxes[0].1.p10 = 0.0;
        assert_eq!(box_spread(&zero.boxes), None, "no ratio to a lower whisker of 0");
        assert!(!box_figure("b", &[zero], false).contains("log scale"));
        assert!(!box_figure_linear("b", &[spread_panel(10.1)]).contains("log scale"), "intervals stay linear");
    }

    #[test]
    fn one_panel_that_needs_a_log_axis_puts_every_panel_that_can_have_one_on_a_log_axis() {
        let mut zero = spread_panel(100.0);
        zero.boxes[0].1.p10 = 0.0;
        let svg = box_figure("b", &[spread_panel(10.1), spread_panel(2.0), zero], false);
        // The 2× panel reads like the 10.1× one beside it; the one with a whisker at 0 cannot.
        assert_eq!(svg.matches("FCT (s), log scale").count(), 2, "{svg}");
        assert!(!svg.contains("linear axis"), "no panel is forced onto a log axis it cannot show");
    }

    #[test]
    fn every_box_shows_the_number_of_values_it_summarises() {
        let svg = box_figure("b", &[spread_panel(2.0)], false);
        assert!(svg.contains("cocoa (n=7)") && svg.contains("fasor (n=7)"), "{svg}");
    }

    #[test]
    fn linear_ranges_pad_and_include_zero_where_sensible() {
        assert_eq!(linear_range(2.0, 10.0, Zero::Always), Some(0.0..10.5));
        assert_eq!(linear_range(2.0, 10.0, Zero::IfNear), Some(0.0..10.5));
        let r = linear_range(9.0, 10.0, Zero::IfNear).unwrap();
        assert!(r.start > 8.9 && r.start < 9.0 && r.end > 10.0);
        assert_eq!(linear_range(0.0, 0.0, Zero::IfNear), Some(0.0..1.0));
        let r = linear_range(5.0, 5.0, Zero::IfNear).unwrap();
        assert!(r.start < 5.0 && r.end > 5.0);
        assert_eq!(linear_range(-f64::MAX, f64::MAX, Zero::IfNear), None);
        let r = log_range(3.0, 3.0).unwrap();
        assert!(r.start > 0.0 && r.start < 3.0 && r.end > 3.0);
    }

    #[test]
    fn log_axes_always_have_a_few_labelled_ticks() {
        assert_eq!(log_ticks(0.9, 1100.0).0, vec![1.0, 10.0, 100.0, 1000.0]);
        assert_eq!(log_ticks(0.9, 70.0).0, vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
        assert_eq!(log_ticks(1.5, 4.5).0, vec![2.0, 3.0, 4.0]);
        assert_eq!(log_ticks(52.0, 61.0).0, vec![52.0, 54.0, 56.0, 58.0, 60.0]);
        assert!(log_ticks(1e-30, 1e30).0.len() <= 8);
        assert!(log_ticks(0.9, 70.0).1.contains(&3.0));
        for (lo, hi) in [(1e-9, 2e-9), (0.3, 0.31), (5.0, 5.0001), (1e200, 1e300)] {
            let (bold, _) = log_ticks(lo, hi);
            assert!(!bold.is_empty() && bold.len() <= 10, "{lo}..{hi}: {bold:?}");
        }
    }

    #[test]
    fn a_figure_title_wider_than_the_figure_is_drawn_smaller_or_on_two_lines_never_wider() {
        // text_width: characters × size / 1.24 × 0.56, so at the title size (20 px) 11.2 px a
        // character, at the panel-title size (14 px) 7.84, at the description size (12 px) 6.72.
        let width = FIGURE_WIDTH - 16; // 884 px: 78 characters at 20 px, 112 at 14 px, 131 at 12 px
        let fits = "x".repeat(78);
        assert_eq!(fit_title(&fits, width), (TITLE_SIZE, vec![fits.clone()]));
        let smaller = "x".repeat(79);
        assert_eq!(fit_title(&smaller, width), (PANEL_TITLE_SIZE, vec![smaller.clone()]));
        let smallest = "x".repeat(113);
        assert_eq!(fit_title(&smallest, width), (DESC_SIZE, vec![smallest.clone()]));
        // 30 words of 5 characters and a space: 179 characters, two lines of at most 131.
        let two = "abcde ".repeat(30);
        let (size, lines) = fit_title(two.trim_end(), width);
        assert_eq!((size, lines.len()), (DESC_SIZE, 2));
        assert_eq!(lines.join(" "), two.trim_end(), "nothing is cut when two lines hold it");
        assert!(lines.iter().all(|l| text_width(l, size) <= width), "{lines:?}");
        let many = "abcde ".repeat(100);
        let (size, lines) = fit_title(many.trim_end(), width);
        assert_eq!((size, lines.len()), (DESC_SIZE, 2));
        assert!(lines[1].ends_with('…') && lines.iter().all(|l| text_width(l, size) <= width), "{lines:?}");
        // Drawn: each line of the title is a text of the figure.
        let svg = render(two.trim_end(), (FIGURE_WIDTH, 200), |_| Ok(()));
        assert!(lines_drawn(&svg, &fit_title(two.trim_end(), width).1), "both lines are drawn");
    }

    fn lines_drawn(svg: &str, lines: &[String]) -> bool {
        // plotters writes a text element's content on a line of its own.
        lines.iter().all(|l| svg.contains(&format!(">\n{l}\n</text>")))
    }

    #[test]
    fn long_panel_titles_wrap_at_spaces_within_the_panel_width() {
        let t = "median unnecessary retransmissions per flow reduction: fasor vs cocoa (400 flows infinite buffer)";
        let lines = wrap(t, 420, PANEL_TITLE_SIZE);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines.join(" "), t);
        assert!(lines.iter().all(|l| text_width(l, PANEL_TITLE_SIZE) <= 420));
        assert_eq!(wrap("short", 420, PANEL_TITLE_SIZE), vec!["short"]);
        assert!(wrap("", 420, PANEL_TITLE_SIZE).is_empty());
        let panel =
            LinePanel { title: t.into(), x_label: "x".into(), y_label: "y".into(), series: vec![], log_y: false };
        let two = line_figure_in_columns("t", &[panel.clone(), panel], 2);
        assert!(two.contains(&lines[0]) && two.contains(&lines[1]), "each line is drawn");
    }

    #[test]
    fn tick_labels_are_short_and_finite() {
        assert_eq!(fmt_tick(0.0), "0");
        assert_eq!(fmt_tick(-0.0), "0");
        assert_eq!(fmt_tick(1500.0), "1500");
        assert_eq!(fmt_tick(2.5), "2.5");
        assert_eq!(fmt_tick(0.0012), "0.0012");
        assert_eq!(fmt_tick(1.0e7), "1e7");
        assert_eq!(fmt_tick(2.5e-5), "2.5e-5");
        assert_eq!(fmt_tick(f64::NAN), "");
    }

    #[test]
    fn thousands_of_points_are_decimated_to_about_two_thousand() {
        let pts: Vec<(f64, f64)> = (0..100_000).map(|i| (i as f64, ((i * 7919) % 1000) as f64)).collect();
        let d = decimate(&pts, MAX_POINTS_PER_SERIES);
        assert!(d.len() <= MAX_POINTS_PER_SERIES && d.len() > MAX_POINTS_PER_SERIES / 2);
        assert_eq!(d.first(), pts.first());
        assert_eq!(d.last(), pts.last());
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0), "order kept");
        assert!(d.iter().any(|p| p.1 == 999.0) && d.iter().any(|p| p.1 == 0.0), "extremes kept");
        let panels = vec![LinePanel {
            title: "big".into(),
            x_label: "t (s)".into(),
            y_label: "v".into(),
            series: vec![
                Series::new("cocoa", pts.clone(), SeriesStyle::Line),
                Series::new("RTT", pts, SeriesStyle::Points),
            ],
            log_y: false,
        }];
        let svg = line_figure("big", &panels);
        assert_well_formed(&svg);
        assert!(svg.matches("<circle").count() <= MAX_POINTS_PER_SERIES + 10);
        assert!(svg.len() < 400_000, "{} bytes", svg.len());
    }

    #[test]
    fn step_series_keep_their_step_shape_after_decimation() {
        let pts: Vec<(f64, f64)> = (0..10_000).map(|i| (i as f64, (i / 37) as f64)).collect();
        let p = prepare_series(&Series::new("cocoa", pts, SeriesStyle::Step), false);
        let seg = &p.segments[0];
        assert!(seg.len() <= 2 * MAX_POINTS_PER_SERIES);
        assert!(seg.windows(2).all(|w| w[0].0 == w[1].0 || w[0].1 == w[1].1), "only horizontal and vertical moves");
        assert_eq!(step_shape(&[(0.0, 1.0), (2.0, 3.0)]), vec![(0.0, 1.0), (2.0, 1.0), (2.0, 3.0)]);
    }

    #[test]
    fn analytic_line_series_are_drawn_dashed_and_nan_breaks_lines() {
        let s = Series::new("analytic", vec![(0.0, 1.0), (1.0, f64::NAN), (2.0, 2.0), (3.0, 2.5)], SeriesStyle::Line);
        let p = prepare_series(&s, false);
        assert_eq!(p.style, SeriesStyle::Dashed);
        assert_eq!(p.segments, vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 2.5)]]);
        assert_eq!(
            prepare_series(&Series::new("x", vec![(0.0, 0.0), (1.0, 2.0)], SeriesStyle::Line), true).segments.len(),
            1
        );
        let holes: Vec<(f64, f64)> =
            (0..50_000).map(|i| (i as f64, if i % 2 == 0 { f64::NAN } else { i as f64 })).collect();
        let p = prepare_series(&Series::new("cocoa", holes, SeriesStyle::Line), false);
        assert_eq!(p.segments.len(), 1);
        assert!(p.segments[0].len() <= MAX_POINTS_PER_SERIES);
    }

    #[test]
    fn box_stats_from_samples_interpolate_and_skip_nan() {
        let s: Vec<f64> = (0..=10).map(f64::from).chain([f64::NAN]).collect();
        assert_eq!(
            BoxStats::from_samples(&s),
            Some(BoxStats { p10: 1.0, p25: 2.5, p50: 5.0, p75: 7.5, p90: 9.0, n: 11 })
        );
        assert_eq!(BoxStats::from_samples(&[f64::NAN]), None);
        assert_eq!(BoxStats::from_samples(&[4.0]).map(|b| b.p90), Some(4.0));
    }

    #[test]
    fn figures_scale_in_a_browser_and_escape_markup_in_titles() {
        let svg = bar_figure("a < b & \"c\"", "y <unit>", &sample_bars(), false);
        assert_well_formed(&svg);
        assert!(svg.contains("a &lt; b &amp; &quot;c&quot;"));
        assert!(svg.contains("viewBox=\"0 0 900 ") && svg.contains("max-width:100%"));
        assert!(!svg.contains("href") && !svg.contains("<image"), "no external references");
        let err = error_svg("t<", "bad & worse");
        assert_well_formed(&err);
        assert!(err.contains("bad &amp; worse"));
    }

    #[test]
    fn many_panels_and_many_algorithms_lay_out_in_a_grid() {
        let names: Vec<&str> = palette().map(|(n, _)| n).collect();
        let panels: Vec<BoxPanel> = (0..7)
            .map(|i| BoxPanel {
                title: format!("panel {i}"),
                y_label: "throughput (kbit/s)".into(),
                boxes: names.iter().enumerate().map(|(j, n)| (n.to_string(), stats(1.0 + (i * j) as f64))).collect(),
            })
            .collect();
        let svg = box_figure("all algorithms", &panels, true);
        assert_well_formed(&svg);
        for n in names {
            assert!(svg.contains(n), "{n}");
        }
        assert!(svg.contains("rotate(270"), "long names are rotated");
    }

    /// Writes one figure of each kind, to look at (to `FIGURES_SAMPLE_DIR` when set, else a
    /// temporary folder), and checks that every one is a well-formed SVG.
    #[test]
    fn samples_of_every_kind_are_written_as_well_formed_svg() {
        let dir = std::env::var_os("FIGURES_SAMPLE_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::env::temp_dir().join(format!("coapcc-figures-sample-{}", std::process::id())));
        std::fs::create_dir_all(&dir).unwrap();
        let mut lines = sample_lines();
        lines.push(LinePanel {
            title: "goodput (log)".into(),
            x_label: "mean residual bandwidth (kbit/s)".into(),
            y_label: "goodput (kbit/s)".into(),
            series: ALGOS
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    Series::new(
                        *a,
                        (1..20).map(|x| (x as f64 * 10.0, (x * (i + 1)) as f64)).collect(),
                        SeriesStyle::Line,
                    )
                })
                .collect(),
            log_y: true,
        });
        std::fs::write(dir.join("box.svg"), box_figure("Flow completion times", &sample_boxes(), false)).unwrap();
        std::fs::write(dir.join("line.svg"), line_figure("RTO vs RTT", &lines)).unwrap();
        std::fs::write(
            dir.join("bar.svg"),
            bar_figure_labelled("RMSE per trace row", "RTT trace row", "RMSE (ms)", &sample_bars(), false),
        )
        .unwrap();
        std::fs::write(dir.join("empty.svg"), line_figure("nothing", &[])).unwrap();
        let nan = f64::NAN;
        let holes = vec![
            LinePanel {
                title: "holes, log requested, zero present".into(),
                x_label: "time (s)".into(),
                y_label: "RTO (s)".into(),
                series: vec![Series::new(
                    "cocoa",
                    vec![(0.0, 1.0), (1.0, nan), (2.0, 3.0), (3.0, 0.0), (4.0, 2.0)],
                    SeriesStyle::Line,
                )],
                log_y: true,
            },
            LinePanel {
                title: "only missing values".into(),
                x_label: "t".into(),
                y_label: "v".into(),
                series: vec![Series::new("idc", vec![(nan, nan)], SeriesStyle::Line)],
                log_y: false,
            },
        ];
        std::fs::write(dir.join("nan.svg"), line_figure("Holes in the data", &holes)).unwrap();
        let names: Vec<&str> = palette().map(|(n, _)| n).collect();
        let mut panels: Vec<BoxPanel> = (0..5)
            .map(|i| BoxPanel {
                title: format!("panel {i}"),
                y_label: "throughput (kbit/s)".into(),
                boxes: names.iter().enumerate().map(|(j, n)| (n.to_string(), stats(1.0 + (i * j) as f64))).collect(),
            })
            .collect();
        panels.push(BoxPanel { title: "all missing".into(), y_label: "s".into(), boxes: vec![] });
        std::fs::write(dir.join("box-all.svg"), box_figure("All algorithms (log)", &panels, true)).unwrap();
        let groups: Vec<BarGroup> = (0..12)
            .map(|g| BarGroup {
                label: format!("trace row {g}"),
                bars: ["idc", "pcocoa", "cocoa", "four-state"]
                    .iter()
                    .enumerate()
                    .map(|(j, n)| (n.to_string(), 10f64.powi((g + j) as i32 % 4) * 3.0))
                    .collect(),
            })
            .collect();
        std::fs::write(dir.join("bar-log.svg"), bar_figure("RMSE (log)", "RMSE (ms)", &groups, true)).unwrap();
        let written = ["box", "line", "bar", "empty", "nan", "box-all", "bar-log"];
        for name in written {
            let svg = std::fs::read_to_string(dir.join(format!("{name}.svg"))).unwrap();
            assert_well_formed(&svg);
            assert!(svg.contains("<svg") && svg.len() > 500, "{name}.svg is too small to hold a figure");
        }
        if std::env::var_os("FIGURES_SAMPLE_DIR").is_none() {
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}
