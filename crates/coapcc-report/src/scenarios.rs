//! The built-in scenarios as text (`coapcc scenarios`): a list (aligned text, CSV or JSON) of
//! each name, model and one-line description, and one scenario's file.

use coapcc_driver::scenario::{built_in, built_in_named, closest_built_in};
use serde::Serialize;

use crate::algorithms::csv_field;
use crate::error::ReportError;

/// One row of the list.
#[derive(Serialize)]
struct Row {
    name: &'static str,
    model: &'static str,
    description: String,
}

fn rows() -> Vec<Row> {
    built_in()
        .map(|b| Row {
            name: b.name,
            model: b.model(),
            // One line: a description that runs over several lines is folded.
            description: b.description().unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" "),
        })
        .collect()
}

/// The built-in scenarios as aligned text: name, model, description.
pub fn scenarios_table() -> String {
    let rows = rows();
    let w = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max("name".len());
    let mut out = format!("{:<w$}  {:<8}  description\n", "name", "model");
    for r in &rows {
        out.push_str(format!("{:<w$}  {:<8}  {}", r.name, r.model, r.description).trim_end());
        out.push('\n');
    }
    out
}

/// The built-in scenarios as CSV (RFC 4180): `name,model,description`.
pub fn scenarios_csv() -> String {
    let mut out = String::from("name,model,description\n");
    for r in rows() {
        out.push_str(&format!("{},{},{}\n", csv_field(r.name), csv_field(r.model), csv_field(&r.description)));
    }
    out
}

/// The built-in scenarios as a JSON array of `{name, model, description}` objects.
pub fn scenarios_json() -> Result<String, ReportError> {
    serde_json::to_string_pretty(&rows()).map(|s| s + "\n").map_err(|e| ReportError::Options(e.to_string()))
}

/// The file of the built-in scenario `name` (with or without `.toml`); an unknown name is bad
/// input naming the closest ones.
pub fn scenario_text(name: &str) -> Result<String, ReportError> {
    built_in_named(name).map(|b| b.text.to_string()).ok_or_else(|| {
        let closest: Vec<String> = closest_built_in(name, 3).iter().map(|n| format!("`{n}`")).collect();
        ReportError::Options(format!("`{name}` is not a built-in scenario (closest: {})", closest.join(", ")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_scenario_is_one_row_of_each_format() {
        let n = built_in().len();
        assert_eq!(scenarios_table().lines().count(), n + 1);
        assert_eq!(scenarios_csv().lines().count(), n + 1);
        let json: serde_json::Value = serde_json::from_str(&scenarios_json().unwrap()).unwrap();
        assert_eq!(json.as_array().unwrap().len(), n);
        let row =
            scenarios_csv().lines().find(|l| l.starts_with("fasor/10-flows-error-free-random,")).unwrap().to_string();
        assert!(row.starts_with("fasor/10-flows-error-free-random,nbiot,"), "{row}");
    }

    #[test]
    fn a_scenario_is_shown_by_name_and_an_unknown_one_names_the_closest() {
        let text = scenario_text("fasor/10-flows-error-free-random.toml").unwrap();
        assert!(text.contains("[network.nbiot]"), "{text}");
        let e = scenario_text("fasor/10-flows").unwrap_err();
        assert!(e.is_bad_input() && e.to_string().contains("`fasor/10-flows-"), "{e}");
    }
}
