//! Bad input gives one line on standard error naming the problem, and exit code 2.

use crate::coapcc_process::run as coapcc;

fn assert_one_line_error(args: &[&str], stdin: &str, needle: &str) {
    let (code, _, err) = coapcc(args, stdin);
    assert_eq!(code, 2, "exit code for {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "expected one line, got: {err}");
    assert!(err.contains(needle), "`{needle}` not in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn an_unknown_algorithm_is_named_with_the_valid_ones() {
    assert_one_line_error(&["replay", "--algorithm", "reno"], "send\n", "unknown algorithm `reno`");
}

#[test]
fn an_unknown_key_is_named_with_the_valid_ones() {
    assert_one_line_error(&["replay", "-a", "default", "--set", "nope=1"], "send\n", "valid keys:");
}

#[test]
fn a_bad_value_names_its_key() {
    assert_one_line_error(&["replay", "-a", "default", "--set", "max_retransmit=-3"], "send\n", "`max_retransmit`");
    assert_one_line_error(
        &["replay", "-a", "default", "--set", "ack_random_factor=0.9"],
        "send\n",
        "ack_random_factor",
    );
}

#[test]
fn a_malformed_script_line_is_named_by_number() {
    assert_one_line_error(&["replay", "-a", "default"], "send\nwait soon\n", "line 2:");
    assert_one_line_error(&["replay", "-a", "default"], "# c\nsend\nack copy 9\n", "line 3:");
    assert_one_line_error(&["replay", "-a", "default"], "ack\n", "line 1:");
    assert_one_line_error(&["replay", "-a", "default"], "send\nsend\n", "line 2:");
}

#[test]
fn a_missing_script_file_is_a_usage_error() {
    assert_one_line_error(&["replay", "-a", "default", "/nonexistent/script"], "", "cannot read script");
}

#[test]
fn a_huge_wait_does_not_panic() {
    let (code, out, err) =
        coapcc(&["replay", "-a", "default", "--no-dither"], "send\nwait 864000000000\nsend\nwait 0.000001\nack\n");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("give_up") && out.ends_with("}\n"));
}

#[test]
fn the_algorithms_table_lists_every_name_with_its_state_size() {
    let (code, out, _) = coapcc(&["algorithms"], "");
    assert_eq!(code, 0);
    for a in coapcc_core::ALGORITHMS {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(a.name))
            .unwrap_or_else(|| panic!("{} missing", a.name));
        assert!(row.contains(&a.state_bytes.to_string()), "{row}");
    }
}

#[test]
fn a_set_without_equals_is_a_one_line_error() {
    assert_one_line_error(&["replay", "-a", "default", "--set", "max_retransmit"], "send\n", "expected KEY=VALUE");
}

#[test]
fn every_algorithm_description_ends_with_a_link_to_an_existing_documentation_heading() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/algorithms.md")).unwrap();
    for a in coapcc_core::ALGORITHMS {
        let (code, out, err) = coapcc(&["algorithms", a.name], "");
        assert_eq!(code, 0, "{err}");
        let last = out.lines().last().unwrap_or_default();
        assert_eq!(last, format!("# documentation: docs/algorithms.md#{}", a.name));
        // A `### NAME` heading gives the GitHub anchor `#NAME` (names are lower-case, `-`-joined).
        assert!(doc.lines().any(|l| l == format!("### {}", a.name)), "no heading for {} in docs/algorithms.md", a.name);
    }
}

#[test]
fn no_source_of_the_cli_points_users_at_the_internal_spec() {
    fn walk(dir: &std::path::Path, hits: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, hits);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                if text.contains(concat!("shared/", "spec")) {
                    hits.push(p.display().to_string());
                }
            }
        }
    }
    let mut hits = Vec::new();
    walk(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")), &mut hits);
    assert!(hits.is_empty(), "the internal spec is not in the repository; point at docs/: {hits:?}");
}

#[test]
fn a_scenario_that_is_neither_a_file_nor_a_built_in_name_is_named_with_the_closest_names() {
    assert_one_line_error(&["sim", "fasor/10-flows-error-free"], "", "`fasor/10-flows-error-free-continuous`");
    assert_one_line_error(&["testbed", "nothing/here.toml"], "", "nothing/here.toml: no such file");
    assert_one_line_error(&["scenarios", "fasor/nope"], "", "is not a built-in scenario");
}
