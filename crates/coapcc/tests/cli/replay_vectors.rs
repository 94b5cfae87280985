//! Runs every `tests/replay/*.replay` script at the repository root through the `coapcc`
//! binary with the arguments on its `# args:` line and compares the output with the
//! `.expected.jsonl` file beside it, line by line.

use std::path::Path;
use std::process::Command;

use crate::replay_support as replay_vectors;

fn args_of(script: &str, path: &Path) -> Vec<String> {
    let first = script.lines().next().unwrap_or("");
    let args = first
        .strip_prefix("# args:")
        .unwrap_or_else(|| panic!("{}: the first line must be `# args: ...`", path.display()));
    args.split_whitespace().map(str::to_string).collect()
}

#[test]
fn every_replay_vector_reproduces_its_expected_output() {
    let scripts = replay_vectors::scripts();
    assert!(!scripts.is_empty(), "no replay vectors found");
    let mut failures = Vec::new();
    for script_path in &scripts {
        let script = std::fs::read_to_string(script_path).unwrap();
        let expected_path = script_path.with_extension("expected.jsonl");
        let expected =
            std::fs::read_to_string(&expected_path).unwrap_or_else(|_| panic!("missing {}", expected_path.display()));
        let output = Command::new(env!("CARGO_BIN_EXE_coapcc"))
            .arg("replay")
            .args(args_of(&script, script_path))
            .arg(script_path)
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&output.stdout);
        let name = script_path.file_name().unwrap().to_string_lossy().to_string();
        if !output.status.success() {
            failures.push(format!(
                "{name}: exit {:?}: {}",
                output.status.code(),
                String::from_utf8_lossy(&output.stderr)
            ));
            continue;
        }
        let (g, e): (Vec<&str>, Vec<&str>) = (got.lines().collect(), expected.lines().collect());
        if let Some(first_diff) = replay_vectors::first_difference(&g, &e) {
            failures.push(format!(
                "{name}: first difference at output line {}:\n  got:      {}\n  expected: {}",
                first_diff + 1,
                g.get(first_diff).unwrap_or(&"<end>"),
                e.get(first_diff).unwrap_or(&"<end>")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} replay vectors differ:\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n")
    );
}
