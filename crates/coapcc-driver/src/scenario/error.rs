//! [`ScenarioError`]: what every scenario error says (the file, the line, the key, the problem).

/// An error in a scenario: the file, the key (dotted path) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{file}{}{}: {problem}",
    .line.map(|l| format!(":{l}")).unwrap_or_default(),
    .key.as_ref().map(|k| format!(": key `{k}`")).unwrap_or_default()
)]
pub struct ScenarioError {
    /// The file (or `<scenario>` for text without a file).
    pub file: String,
    /// The line, when known.
    pub line: Option<usize>,
    /// The key, when known (`workload.flows`).
    pub key: Option<String>,
    /// What is wrong.
    pub problem: String,
}
