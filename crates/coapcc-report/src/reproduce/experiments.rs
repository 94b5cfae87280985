//! The simulations an experiment runs: its `[cases]` table ([`Cases`]: scenario folders,
//! files and sweep points, with overrides, full and `--quick`) expanded into [`Case`]s.

use std::path::{Path, PathBuf};

use coapcc_driver::scenario::{Catalogue, Setting};
use serde::{Deserialize, Deserializer};

use crate::error::ReportError;

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

/// Overrides written as on the command line, `KEY=VALUE` (`--set`), in the order they apply.
fn settings<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Setting>, D::Error> {
    Vec::<String>::deserialize(d)?
        .iter()
        .map(|s| s.parse::<Setting>().map_err(|e| serde::de::Error::custom(format!("`{s}`: {e}"))))
        .collect()
}

/// An experiment's `[cases]`: what it runs.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cases {
    /// Replications of every case with `--quick` (absent: the scenarios' own).
    #[serde(default)]
    pub quick_replications: Option<u32>,
    /// Further overrides of every case with `--quick` (`KEY=VALUE`).
    #[serde(default, deserialize_with = "settings")]
    pub quick_set: Vec<Setting>,
    /// The runs, in order (`[[cases.run]]`).
    #[serde(default, rename = "run")]
    pub runs: Vec<Run>,
}

/// One `[[cases.run]]`: every scenario file of a folder, or one file (under its own name, or
/// as the points of a sweep).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// A folder under the scenarios folder: each of its scenario files is a case, in name
    /// order, named by its path without `.toml`.
    #[serde(default)]
    pub folder: Option<String>,
    /// With `folder`: files whose path contains one of these are left out.
    #[serde(default)]
    pub except: Vec<String>,
    /// One scenario file (relative to the scenarios folder).
    #[serde(default)]
    pub file: Option<String>,
    /// With `file`: the case's name (default: the path without `.toml`); a case given a name
    /// also sets the scenario's `name` to it.
    #[serde(default)]
    pub name: Option<String>,
    /// With `file`: overrides of the case (`KEY=VALUE`), after the experiment's.
    #[serde(default, deserialize_with = "settings")]
    pub set: Vec<Setting>,
    /// With `file`: the file's cases are the points of the sweep named so, each named
    /// `<sweep>@<label>` (which is also set as the scenario's `name`).
    #[serde(default)]
    pub sweep: Option<String>,
    /// The points of the sweep.
    #[serde(default)]
    pub points: Vec<SweepPoint>,
}

/// One point of a sweep: its x coordinate, its label, and what it sets.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepPoint {
    /// The x coordinate (figures, sweep metrics).
    pub x: f64,
    /// The label after `@` in the case name (`m=0.5`, `tx=95`).
    pub label: String,
    /// Its overrides (`KEY=VALUE`), after the run's.
    #[serde(deserialize_with = "settings")]
    pub set: Vec<Setting>,
}

fn case_name(file: &Path) -> String {
    file.with_extension("").to_string_lossy().replace('\\', "/")
}

fn files_in(scenarios: &Catalogue, dir: &str) -> Result<Vec<PathBuf>, ReportError> {
    scenarios.files_in(dir).ok_or_else(|| match scenarios {
        Catalogue::Folder(root) => {
            ReportError::Options(format!("cannot read scenarios folder `{}`", root.join(dir).display()))
        }
        Catalogue::BuiltIn => ReportError::Options(format!("no built-in scenarios folder `{dir}`")),
    })
}

fn named(name: &str) -> Setting {
    Setting { key: "name".parse().expect("`name` is a key"), value: name.into() }
}

impl Cases {
    /// The rules serde cannot state: each run is a folder or a file, a sweep has points and
    /// only a sweep has them, a folder takes no file's keys.
    pub(crate) fn check(&self) -> Result<(), String> {
        for (i, r) in self.runs.iter().enumerate() {
            let at = |m: &str| format!("run #{}: {m}", i + 1);
            match (&r.folder, &r.file) {
                (Some(_), None) => {
                    if r.name.is_some() || r.sweep.is_some() || !r.set.is_empty() || !r.points.is_empty() {
                        return Err(at("a `folder` takes no `name`, `set`, `sweep` or `points`"));
                    }
                }
                (None, Some(_)) => {
                    if !r.except.is_empty() {
                        return Err(at("`except` is for a `folder`"));
                    }
                    if r.sweep.is_some() == r.points.is_empty() {
                        return Err(at("a `sweep` needs `points`, and `points` a `sweep`"));
                    }
                    if r.sweep.is_some() && r.name.is_some() {
                        return Err(at("the points of a `sweep` are named by it: no `name`"));
                    }
                }
                _ => return Err(at("give `folder` or `file`")),
            }
        }
        Ok(())
    }

    /// The cases, scenario files found in `scenarios`. `replications` overrides the scenarios'
    /// own (and `quick_replications`); `quick` runs the reduced version, which still produces
    /// every figure.
    pub fn expand(
        &self,
        scenarios: &Catalogue,
        quick: bool,
        replications: Option<u32>,
    ) -> Result<Vec<Case>, ReportError> {
        let mut common: Vec<Setting> = match (replications, quick) {
            (Some(r), _) => vec![Setting::replications(r)],
            (None, true) => self.quick_replications.map(Setting::replications).into_iter().collect(),
            (None, false) => Vec::new(),
        };
        if quick {
            common.extend(self.quick_set.iter().cloned());
        }
        let mut out = Vec::new();
        for r in &self.runs {
            if let Some(dir) = &r.folder {
                for f in files_in(scenarios, dir)? {
                    let path = f.to_string_lossy();
                    if r.except.iter().any(|x| path.contains(x.as_str())) {
                        continue;
                    }
                    out.push(Case { name: case_name(&f), file: f, sets: common.clone(), sweep: None });
                }
                continue;
            }
            let file = PathBuf::from(r.file.as_deref().unwrap_or_default());
            let sets = || common.iter().chain(&r.set).cloned();
            match &r.sweep {
                Some(sweep) => {
                    for p in &r.points {
                        let name = format!("{sweep}@{}", p.label);
                        let sets = sets().chain(p.set.iter().cloned()).chain([named(&name)]).collect();
                        out.push(Case { name, file: file.clone(), sets, sweep: Some((sweep.clone(), p.x)) });
                    }
                }
                None => {
                    let name = r.name.clone().unwrap_or_else(|| case_name(&file));
                    let own = r.name.as_deref().map(named);
                    out.push(Case { name, file, sets: sets().chain(own).collect(), sweep: None });
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases(text: &str) -> Cases {
        let c: Cases = toml::from_str(text).unwrap();
        c.check().unwrap();
        c
    }

    fn set(s: &str) -> Setting {
        s.parse().unwrap()
    }

    #[test]
    fn a_named_case_and_a_sweep_point_set_their_names_after_the_overrides() {
        let c = cases(
            "quick_replications = 2\nquick_set = [\"samples=20\"]\n\
[[run]]\nfile = \"x/a.toml\"\nname = \"x/a@limit=8\"\nset = [\"max_retransmit=8\"]\n\
[[run]]\nfile = \"x/b.toml\"\nsweep = \"x/b\"\npoints = [{ x = 0.5, label = \"m=0.5\", set = [\"rate=0.5\"] }]\n",
        );
        let full = c.expand(&Catalogue::BuiltIn, false, None).unwrap();
        assert_eq!(full[0].name, "x/a@limit=8");
        assert_eq!(full[0].sets, [set("max_retransmit=8"), set("name=x/a@limit=8")]);
        assert_eq!(full[1].name, "x/b@m=0.5");
        assert_eq!(full[1].sweep, Some(("x/b".into(), 0.5)));
        assert_eq!(full[1].sets, [set("rate=0.5"), set("name=x/b@m=0.5")]);
        let quick = c.expand(&Catalogue::BuiltIn, true, None).unwrap();
        assert_eq!(quick[0].sets[..2], [Setting::replications(2), set("samples=20")]);
        let three = c.expand(&Catalogue::BuiltIn, true, Some(3)).unwrap();
        assert_eq!(three[1].sets[0], Setting::replications(3), "--replications wins over --quick's");
    }

    #[test]
    fn a_folder_gives_its_files_in_name_order_but_those_left_out() {
        let root = Catalogue::Folder(PathBuf::from(format!("{}/../../scenarios", env!("CARGO_MANIFEST_DIR"))));
        let c = cases("[[run]]\nfolder = \"lim\"\nexcept = [\"-loss\", \"/e0-\"]\n");
        let names: Vec<String> = c.expand(&root, false, None).unwrap().into_iter().map(|c| c.name).collect();
        assert!(!names.is_empty() && names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        assert!(names.iter().all(|n| n.starts_with("lim/") && !n.contains("-loss") && !n.contains("/e0-")));
        let missing = cases("[[run]]\nfolder = \"nothing-here\"\n").expand(&root, false, None).unwrap_err();
        assert!(missing.is_bad_input() && missing.to_string().contains("nothing-here"), "{missing}");
    }

    #[test]
    fn a_run_must_be_a_folder_or_a_file_and_a_sweep_needs_points() {
        let bad = |t: &str| toml::from_str::<Cases>(t).unwrap().check().unwrap_err();
        assert!(bad("[[run]]\nname = \"x\"\n").contains("`folder` or `file`"));
        assert!(bad("[[run]]\nfile = \"a.toml\"\nsweep = \"s\"\n").contains("needs `points`"));
        assert!(bad("[[run]]\nfolder = \"a\"\nname = \"x\"\n").contains("takes no"));
        let e = toml::from_str::<Cases>("[[run]]\nfile = \"a.toml\"\nset = [\"flows\"]\n").unwrap_err();
        assert!(e.message().contains("`flows`") && e.message().contains("KEY=VALUE"), "{e}");
    }
}
