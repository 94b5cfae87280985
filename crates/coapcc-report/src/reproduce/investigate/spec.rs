//! The `[[investigation]]` tables of an experiment's description, checked into typed specs
//! ([`InvestigationSpec`], by `kind`); what each kind runs and reports is in the parent module
//! and in `burst_scale`.

use coapcc_driver::scenario::Value;
use serde::Deserialize;

use crate::reproduce::experiments::Case;

/// The burst-scale investigation's `[[investigation]]` (`kind = "burst-scale"`); what it
/// sweeps is fixed in `burst_scale` (the 10-flow error cases of the FASOR experiment).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BurstScaleSpec {
    /// Its id (its figure is `figures/<id>.svg`, its anchor `#inv-<id>`).
    pub id: String,
    /// Replications per sweep point: full run, `--quick`.
    pub replications: [u32; 2],
}

/// One `[[investigation]]` of an experiment, by its `kind`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum InvestigationSpec {
    /// `kind = "sweep"`: one scenario key swept over the cases its claims are measured at.
    Sweep(Box<SweepSpec>),
    /// `kind = "burst-scale"`: the FASOR burst-scale investigation.
    BurstScale(BurstScaleSpec),
}

impl InvestigationSpec {
    /// Its id (anchor `#inv-<id>` and figure file `figures/<id>.svg`).
    pub fn id(&self) -> &str {
        match self {
            InvestigationSpec::Sweep(s) => &s.id,
            InvestigationSpec::BurstScale(b) => &b.id,
        }
    }

    /// Checks an experiment's `[[investigation]]` tables into specs: a table with
    /// `like = "ID"` takes every key it does not give from the earlier investigation `ID`. Ids
    /// are unique, every claim named is one of `claims`, a sweep's values ascend and hold its
    /// default, and a fixed case is not also swept. Errors name the investigation.
    pub(crate) fn parse_all(
        tables: Vec<toml::Table>,
        experiment: &str,
        claims: &[&str],
    ) -> Result<Vec<InvestigationSpec>, String> {
        let mut raw: Vec<toml::Table> = Vec::new();
        let mut out: Vec<InvestigationSpec> = Vec::new();
        for (i, mut t) in tables.into_iter().enumerate() {
            let name = match t.get("id") {
                Some(toml::Value::String(id)) => format!("investigation `{id}`"),
                _ => format!("investigation #{}", i + 1),
            };
            if let Some(like) = t.remove("like") {
                let like = like.as_str().unwrap_or_default().to_string();
                let base = raw
                    .iter()
                    .find(|b| b.get("id").and_then(toml::Value::as_str) == Some(like.as_str()))
                    .ok_or_else(|| format!("{name}: `like = \"{like}\"` names no earlier investigation"))?;
                let mut merged = base.clone();
                merged.extend(t);
                t = merged;
            }
            raw.push(t.clone());
            let mut spec: InvestigationSpec =
                toml::Value::Table(t).try_into().map_err(|e: toml::de::Error| format!("{name}: {}", e.message()))?;
            if let InvestigationSpec::Sweep(s) = &mut spec {
                s.experiment = experiment.to_string();
                s.check().map_err(|e| format!("{name}: {e}"))?;
                if let Some(c) = s.claims.iter().find(|c| !claims.contains(&c.as_str())) {
                    return Err(format!("{name}: `claims` names `{c}`, no claim of the file"));
                }
            }
            if out.iter().any(|o| o.id() == spec.id()) {
                return Err(format!("{name}: the id is used twice"));
            }
            out.push(spec);
        }
        Ok(out)
    }
}

/// A sweep of one scenario key over the cases its claims are measured at (`kind = "sweep"`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    /// Id (anchor and figure file).
    pub id: String,
    /// The experiment whose cases it sweeps (its file's).
    #[serde(skip)]
    pub experiment: String,
    /// How a claim's row links to it ("the message-size investigation").
    pub short: String,
    /// Heading.
    pub title: String,
    /// The question it answers and why the parameter is uncertain (the report's text).
    pub question: String,
    /// The experiment's cases it re-runs: case names, or sweep names (every point of the sweep).
    pub bases: Vec<String>,
    /// The experiment's cases that are not swept but that a claim compares a base case with
    /// (`case_b`): each point sees them unchanged, as run at the default.
    #[serde(default)]
    pub fixed: Vec<String>,
    /// The scenario key swept (`--set KEY=VALUE`).
    pub key: String,
    /// The swept key in words, for the figure's x axis ("response payload size").
    pub axis: String,
    /// Further keys set to the same value at every point (e.g. the same option of CoCoA+FB1).
    #[serde(default)]
    pub also: Vec<String>,
    /// For a key whose values are words: the words, and `values` are their indices (0, 1, …).
    #[serde(default)]
    pub words: Vec<String>,
    /// The key's unit in sentences ("B", "flows", "packets").
    pub unit: String,
    /// The swept values, ascending; one of them is the documented default.
    pub values: Vec<f64>,
    /// The documented default (the experiment's own cases; not run again).
    pub default: f64,
    /// Algorithms run at every point (empty: each case's own).
    #[serde(default)]
    pub algorithms: Vec<String>,
    /// Replications per point: full run, `--quick`.
    pub replications: [u32; 2],
    /// The claims it explains; each is recomputed per point by its own metric and check.
    pub claims: Vec<String>,
    /// The closing sentence: what the sources say about the parameter.
    pub unknown: String,
}

impl SweepSpec {
    /// The rules serde cannot state: values ascending with the default among them, a word for
    /// every value of a word-valued key, replications of at least 1, no fixed case swept.
    pub(super) fn check(&self) -> Result<(), String> {
        if !self.values.contains(&self.default) {
            return Err("the default is not a swept value".into());
        }
        if !self.values.windows(2).all(|w| w[0] < w[1]) {
            return Err("`values` must ascend".into());
        }
        if !self.words.is_empty() && self.values.iter().any(|&x| self.word(x).is_none()) {
            return Err("a word-valued key's `values` are the indices of its `words`".into());
        }
        if self.replications.contains(&0) {
            return Err("`replications` must be at least 1".into());
        }
        if let Some(f) = self.fixed.iter().find(|f| self.bases.contains(f)) {
            return Err(format!("`{f}` is both fixed and swept"));
        }
        Ok(())
    }

    /// A value as written in sentences and case names (`40`, `0.5`).
    pub fn fmt(&self, x: f64) -> String {
        if let Some(w) = self.word(x) {
            w.to_string()
        } else if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x}")
        }
    }

    pub(super) fn word(&self, x: f64) -> Option<&str> {
        (x >= 0.0 && x.fract() == 0.0).then(|| self.words.get(x as usize).map(String::as_str)).flatten()
    }

    pub(super) fn value(&self, x: f64) -> Value {
        if let Some(w) = self.word(x) {
            match w {
                "true" => Value::Boolean(true),
                "false" => Value::Boolean(false),
                _ => Value::Text(w.into()),
            }
        } else if x.fract() == 0.0 {
            Value::Integer(x as i64)
        } else {
            Value::Float(x)
        }
    }

    pub(super) fn with_unit(&self, x: f64) -> String {
        match self.unit.as_str() {
            "" => self.fmt(x),
            // "1 packet", "2 packets".
            u if x == 1.0 && u.ends_with('s') && u.len() > 1 => format!("1 {}", &u[..u.len() - 1]),
            u => format!("{} {u}", self.fmt(x)),
        }
    }

    /// The x-axis label: the key in words ([`Self::axis`]) with its unit, or the words'
    /// indices.
    pub(super) fn x_label(&self) -> String {
        if self.words.is_empty() {
            if self.unit.is_empty() { self.axis.clone() } else { format!("{} ({})", self.axis, self.unit) }
        } else {
            let w: Vec<String> = self.words.iter().enumerate().map(|(i, w)| format!("{i} = {w}")).collect();
            format!("{} ({})", self.axis, w.join(", "))
        }
    }

    /// The sweep tag of its point cases for base case `base`.
    pub(super) fn tag(&self, base: &str) -> String {
        format!("investigation/{}/{base}", self.id)
    }

    /// Replications per point (`--replications` overrides).
    pub fn reps(&self, quick: bool, replications: Option<u32>) -> u32 {
        replications.unwrap_or(if quick { self.replications[1] } else { self.replications[0] })
    }

    /// The experiment's cases it re-runs.
    pub(super) fn base_cases<'a>(&self, own: &'a [Case]) -> Vec<&'a Case> {
        own.iter()
            .filter(|c| self.bases.iter().any(|b| c.name == *b || c.sweep.as_ref().is_some_and(|(s, _)| s == b)))
            .collect()
    }
}
