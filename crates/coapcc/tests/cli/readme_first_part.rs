//! The README's "First results" block is the real output: every `$ coapcc …` command in it is
//! run from an empty folder and must print exactly the lines shown under it.

use std::path::Path;
use std::process::Command;

/// The first ```console block after "**First results**": (command line, expected lines).
fn first_results() -> Vec<(String, Vec<String>)> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let from = readme.find("**First results**").expect("the README has a \"First results\" part");
    let block = &readme[from..];
    let start = block.find("```console\n").expect("a console block") + "```console\n".len();
    let block = &block[start..start + block[start..].find("```").expect("the block ends")];
    let mut commands: Vec<(String, Vec<String>)> = Vec::new();
    for line in block.lines() {
        match line.strip_prefix("$ ") {
            Some(command) => commands.push((command.to_string(), Vec::new())),
            None => commands.last_mut().expect("output follows a command").1.push(line.to_string()),
        }
    }
    commands
}

#[test]
fn every_command_of_the_readme_first_results_prints_what_the_readme_shows_from_an_empty_folder() {
    let commands = first_results();
    assert_eq!(commands.len(), 3, "the README shows three commands");
    let dir = tempfile::Builder::new().prefix("coapcc-readme-").tempdir().unwrap();
    for (command, expected) in commands {
        // `coapcc ARGS [| head -N]`: the arguments hold no quotes or spaces.
        let (command, head) = match command.split_once(" | head -") {
            Some((c, n)) => (c.to_string(), Some(n.parse::<usize>().unwrap())),
            None => (command.clone(), None),
        };
        let args: Vec<&str> = command.split_whitespace().collect();
        assert_eq!(args[0], "coapcc", "{command}");
        let out = Command::new(env!("CARGO_BIN_EXE_coapcc")).current_dir(dir.path()).args(&args[1..]).output().unwrap();
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        let got: Vec<&str> = stdout.lines().take(head.unwrap_or(usize::MAX)).collect();
        assert_eq!(got, expected, "`{command}` prints other lines than the README shows");
    }
}
