//! The built-in scenarios: every file of the repository's `scenarios/` folder, compiled in
//! (the crate's build script), so that a scenario is found by name from any folder
//! (`fasor/10-flows-error-free-random`, with or without `.toml`). [`Catalogue`] is where a
//! caller that names scenario files relative to a root (`coapcc reproduce`) reads them: the
//! built-in ones, or a folder of the user's.

use std::path::{Path, PathBuf};

use super::{Scenario, ScenarioError, Setting, parse};

/// `(name, text)` of every built-in scenario, in name order.
const FILES: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/built_in_scenarios.rs"));

/// A built-in scenario file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltIn {
    /// Its name: the path below `scenarios/` without `.toml` (`fasor/10-flows-error-free-random`).
    pub name: &'static str,
    /// The file's text.
    pub text: &'static str,
}

impl BuiltIn {
    /// The file's one-line `description` key, if it has one (read from the text, unchecked).
    pub fn description(&self) -> Option<String> {
        let table: toml::Table = toml::from_str(self.text).ok()?;
        Some(table.get("description")?.as_str()?.trim().to_string())
    }

    /// The model, as the file's tables say it (`nbiot`, `residual`, `custom`, `trace`,
    /// `multihop`, `tcp`), or `?` when none is recognised.
    pub fn model(&self) -> &'static str {
        let Ok(table) = toml::from_str::<toml::Table>(self.text) else { return "?" };
        if table.contains_key("multihop") {
            return "multihop";
        }
        if table.contains_key("trace") {
            return "trace";
        }
        if table.contains_key("tcp") {
            return "tcp";
        }
        match table.get("network").and_then(toml::Value::as_table).and_then(|n| n.keys().next()) {
            Some(k) if k == "nbiot" => "nbiot",
            Some(k) if k == "residual" => "residual",
            Some(k) if k == "custom" => "custom",
            _ => "?",
        }
    }
}

/// Every built-in scenario, in name order.
pub fn built_in() -> impl ExactSizeIterator<Item = BuiltIn> {
    FILES.iter().map(|&(name, text)| BuiltIn { name, text })
}

/// The built-in scenario called `name` (with or without `.toml`, `/` or `\` between folders).
pub fn built_in_named(name: &str) -> Option<BuiltIn> {
    let name = name.replace('\\', "/");
    let name = name.strip_suffix(".toml").unwrap_or(&name);
    built_in().find(|b| b.name == name)
}

/// Up to `n` built-in names closest to `name` (names containing it first, then by
/// Jaro–Winkler similarity), for "did you mean" hints.
pub fn closest_built_in(name: &str, n: usize) -> Vec<&'static str> {
    let name = name.replace('\\', "/");
    let name = name.strip_suffix(".toml").unwrap_or(&name).to_string();
    let mut scored: Vec<(bool, f64, &'static str)> =
        built_in().map(|b| (!b.name.contains(&name), -strsim::jaro_winkler(&name, b.name), b.name)).collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(b.2)));
    scored.into_iter().take(n).map(|(_, _, name)| name).collect()
}

/// The error for `arg`, neither a file nor a built-in name: it names the closest built-in names.
/// Reads, overrides and checks a scenario: a file, or a built-in scenario's name ([`read`]).
pub fn load(path: &Path, settings: &[Setting]) -> Result<Scenario, ScenarioError> {
    let text = read(path)?;
    parse(&text, &path.display().to_string(), settings)
}

/// The text of a scenario ([`load`] without the parsing): the file at `path` when there is
/// one, else the built-in scenario of that name ([`built_in_named`]); else an error that
/// names `path` and the closest built-in names.
pub fn read(path: &Path) -> Result<String, ScenarioError> {
    if path.exists() {
        return super::settings::read_file(path);
    }
    built_in_named(&path.to_string_lossy())
        .map(|b| b.text.to_string())
        .ok_or_else(|| not_found(&path.display().to_string()))
}

pub(crate) fn not_found(arg: &str) -> ScenarioError {
    let closest: Vec<String> = closest_built_in(arg, 3).iter().map(|n| format!("`{n}`")).collect();
    ScenarioError {
        file: arg.to_string(),
        line: None,
        key: None,
        problem: format!(
            "no such file, and no built-in scenario of that name (closest: {}; `coapcc scenarios` lists them)",
            closest.join(", ")
        ),
    }
}

/// Where scenario files named relative to a root are read: the built-in scenarios, or a folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Catalogue {
    /// The built-in scenarios ([`built_in`]).
    #[default]
    BuiltIn,
    /// A folder laid out as `scenarios/` is (`fasor/…toml`).
    Folder(PathBuf),
}

impl Catalogue {
    /// The text of the file `rel` (`fasor/10-flows-error-free-random.toml`).
    pub fn read(&self, rel: &Path) -> Result<String, ScenarioError> {
        match self {
            Catalogue::Folder(root) => super::settings::read_file(&root.join(rel)),
            Catalogue::BuiltIn => built_in_named(&rel.to_string_lossy())
                .map(|b| b.text.to_string())
                .ok_or_else(|| not_found(&rel.display().to_string())),
        }
    }

    /// The file `rel` read, overridden with `settings` and checked; errors name it as
    /// [`Catalogue::label`] does.
    pub fn load(&self, rel: &Path, settings: &[Setting]) -> Result<Scenario, ScenarioError> {
        parse(&self.read(rel)?, &self.label(rel), settings)
    }

    /// How errors name the file `rel`: its path in a folder, its name among the built-in ones.
    pub fn label(&self, rel: &Path) -> String {
        match self {
            Catalogue::Folder(root) => root.join(rel).display().to_string(),
            Catalogue::BuiltIn => rel.display().to_string().replace('\\', "/"),
        }
    }

    /// The scenario files directly in the folder `dir` (`fasor`), relative to the root, in
    /// name order; `None` when there is no such folder.
    pub fn files_in(&self, dir: &str) -> Option<Vec<PathBuf>> {
        match self {
            Catalogue::Folder(root) => {
                let mut out: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
                    .ok()?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                    .filter_map(|p| p.strip_prefix(root).ok().map(Path::to_path_buf))
                    .collect();
                out.sort();
                Some(out)
            }
            Catalogue::BuiltIn => {
                let prefix = format!("{}/", dir.trim_end_matches('/'));
                let out: Vec<PathBuf> = built_in()
                    .filter_map(|b| b.name.strip_prefix(&prefix).filter(|rest| !rest.contains('/')).map(|_| b.name))
                    .map(|n| PathBuf::from(format!("{n}.toml")))
                    .collect();
                (!out.is_empty()).then_some(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_of_the_scenarios_folder_is_built_in_with_the_same_text() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
        let folder = Catalogue::Folder(root.clone());
        let mut on_disk = 0;
        for dir in ["fasor", "lim", "makarem", "makarem/rtt-trace", "betzler", "crosscheck"] {
            let files = folder.files_in(dir).unwrap();
            assert_eq!(Catalogue::BuiltIn.files_in(dir).unwrap(), files, "{dir}");
            for f in files {
                assert_eq!(Catalogue::BuiltIn.read(&f).unwrap(), folder.read(&f).unwrap(), "{}", f.display());
                on_disk += 1;
            }
        }
        assert!(on_disk > 50, "{on_disk}");
        // And the whole tree: as many built-in files as `*.toml` files below the folder.
        fn count(d: &Path) -> usize {
            std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().path())
                .map(|p| if p.is_dir() { count(&p) } else { usize::from(p.extension().is_some_and(|x| x == "toml")) })
                .sum()
        }
        assert_eq!(built_in().len(), count(&root));
    }

    #[test]
    fn a_name_is_found_with_or_without_its_extension() {
        let a = built_in_named("fasor/10-flows-error-free-random").unwrap();
        assert_eq!(built_in_named("fasor/10-flows-error-free-random.toml"), Some(a));
        assert!(a.text.contains("name = \"fasor/10-flows-error-free-random\""));
        assert_eq!(a.model(), "nbiot");
        assert_eq!(built_in_named("lim/e2-contikimac-5x5").unwrap().model(), "multihop");
        assert_eq!(built_in_named("makarem/rtt-trace/row-04").unwrap().model(), "trace");
        assert!(built_in_named("fasor").is_none());
    }

    #[test]
    fn an_unknown_name_is_one_line_naming_it_and_the_closest_names() {
        let e = Catalogue::BuiltIn.read(Path::new("fasor/10-flows-error-free")).unwrap_err().to_string();
        assert!(e.starts_with("fasor/10-flows-error-free: no such file"), "{e}");
        assert!(e.contains("`fasor/10-flows-error-free-continuous`"), "{e}");
        assert!(!e.contains('\n'), "{e}");
        assert_eq!(closest_built_in("fasr/10-flows-error-free-random", 1), vec!["fasor/10-flows-error-free-random"]);
    }
}
