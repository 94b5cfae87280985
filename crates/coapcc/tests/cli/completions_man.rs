//! `coapcc completions SHELL` and `coapcc man`: a bash script that bash parses, and a manual
//! page that names every subcommand of `coapcc --help`.

use std::process::Command;

fn coapcc(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc")).args(args).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into())
}

/// The subcommands `coapcc --help` lists (its `Commands:` section, `help` left out).
fn subcommands() -> Vec<String> {
    let (_, help) = coapcc(&["--help"]);
    let section = help.split("Commands:").nth(1).unwrap().split("\n\n").next().unwrap();
    let names: Vec<String> = section.lines().filter_map(|l| l.split_whitespace().next()).map(String::from).collect();
    names.into_iter().filter(|n| n != "help").collect()
}

#[test]
fn the_bash_completion_script_parses_and_completes_every_subcommand() {
    let (code, script) = coapcc(&["completions", "bash"]);
    assert_eq!(code, 0);
    let path = std::env::temp_dir().join(format!("coapcc-completion-{}.bash", std::process::id()));
    std::fs::write(&path, &script).unwrap();
    let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(check.status.success(), "bash -n: {}", String::from_utf8_lossy(&check.stderr));
    std::fs::remove_file(&path).unwrap();
    let subs = subcommands();
    assert!(subs.len() >= 12 && subs.iter().any(|s| s == "scenarios"), "{subs:?}");
    for s in &subs {
        assert!(script.contains(&format!("coapcc__{s}")) || script.contains(&format!(" {s} ")), "{s}");
    }
    for shell in ["zsh", "fish"] {
        let (code, text) = coapcc(&["completions", shell]);
        assert!(code == 0 && text.contains("scenarios"), "{shell}");
    }
}

#[test]
fn the_manual_page_is_roff_naming_every_subcommand() {
    let (code, page) = coapcc(&["man"]);
    assert_eq!(code, 0);
    assert!(page.starts_with(".ie") || page.contains(".TH coapcc 1"), "{}", &page[..200.min(page.len())]);
    assert!(page.contains(".TH coapcc 1"), "a section-1 page");
    for s in subcommands() {
        assert!(page.contains(&format!("coapcc\\-{s}")) || page.contains(&format!("\\fB{s}\\fR")), "{s} missing");
    }
}
