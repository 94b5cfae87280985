//! The C replay program (`tests/c/replay.c`), compiled with the system C compiler against
//! the static library and `include/coapcc.h`, replays every replay vector
//! (`tests/replay/*.replay`) through the C API and prints, byte for byte, what `coapcc replay`
//! prints for it (the driver's replay runner, which the CLI calls; it is itself checked
//! against the vector's `.expected.jsonl`). Each vector also runs dithered, with two seeds,
//! so the C API's random source draws what the CLI's generator draws.

mod cc;
#[path = "../../../tests/support/replay_vectors.rs"]
#[allow(dead_code)]
mod replay_vectors;

use std::path::Path;
use std::process::{Command, Stdio};

use coapcc_driver::replay;
use coapcc_driver::scenario::{Setting, algorithm_with_settings};

/// A vector's `# args:` line: the algorithm, its settings (`--no-dither` as `dither=false`,
/// last, as the CLI adds it) and the seed.
fn arguments(script: &str) -> (String, Vec<String>, u64) {
    let line = script.lines().find_map(|l| l.strip_prefix("# args: ")).expect("an `# args:` line");
    let mut words = line.split_whitespace();
    let (mut algorithm, mut settings, mut seed, mut no_dither) = (String::new(), Vec::new(), 1, false);
    while let Some(w) = words.next() {
        match w {
            "--algorithm" | "-a" => algorithm = words.next().expect("a name").to_string(),
            "--set" => settings.push(words.next().expect("a setting").to_string()),
            "--seed" => seed = words.next().expect("a seed").parse().expect("a number"),
            "--no-dither" => no_dither = true,
            other => panic!("unexpected argument `{other}` in `{line}`"),
        }
    }
    if no_dither {
        settings.push("dither=false".into());
    }
    (algorithm, settings, seed)
}

/// What a replay printed, and the line it stopped at (a command that cannot run there, as
/// `send` while a dithered timer keeps the previous exchange outstanding).
type Run = (Vec<u8>, Option<usize>);

/// What `coapcc replay` prints for the script.
fn rust_replay(algorithm: &str, settings: &[String], seed: u64, script: &str) -> Run {
    let settings: Vec<Setting> = settings.iter().map(|s| s.parse().unwrap()).collect();
    let controller = algorithm_with_settings(algorithm, &settings).unwrap().build().unwrap();
    let mut out = Vec::new();
    match replay::run(controller, &replay::parse(script).unwrap(), seed, &mut out) {
        Ok(()) => (out, None),
        Err(replay::ReplayError::Line { number, .. }) => (out, Some(number)),
        Err(e) => panic!("{e}"),
    }
}

fn c_replay(program: &Path, algorithm: &str, settings: &[String], seed: u64, script: &str) -> Run {
    use std::io::Write;
    let mut child = Command::new(program)
        .arg(algorithm)
        .arg(seed.to_string())
        .args(settings)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the C replay program runs");
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stopped = stderr.strip_prefix("line ").and_then(|s| s.split(':').next()).and_then(|n| n.parse().ok());
    assert!(out.status.success() == stopped.is_none(), "C replay failed: {stderr}");
    (out.stdout, stopped)
}

#[test]
fn the_c_replay_program_prints_what_coapcc_replay_prints_for_every_vector() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let program = cc::compile(&[&crate_dir.join("tests/c/replay.c")], "c-replay");
    let scripts = replay_vectors::scripts();
    assert!(scripts.len() >= 60, "only {} replay vectors found", scripts.len());
    // Dithered runs whose timers differ from the undithered ones: the random source was used.
    let mut drew = 0;
    for path in &scripts {
        let script = std::fs::read_to_string(path).unwrap();
        let (algorithm, settings, seed) = arguments(&script);
        let rust = rust_replay(&algorithm, &settings, seed, &script);
        let expected = std::fs::read(path.with_extension("expected.jsonl")).unwrap();
        assert!(
            rust == (expected.clone(), None),
            "{}: the Rust replay differs from its .expected.jsonl",
            path.display()
        );
        let c = c_replay(&program, &algorithm, &settings, seed, &script);
        assert!(
            c == rust,
            "{}: C replay differs\n--- C\n{}--- coapcc replay\n{}",
            path.display(),
            String::from_utf8_lossy(&c.0),
            String::from_utf8_lossy(&rust.0)
        );
        // Dithered (the preset's own dithering), with two seeds.
        let dithered: Vec<String> = settings.iter().filter(|s| *s != "dither=false").cloned().collect();
        for seed in [1, 7] {
            let rust = rust_replay(&algorithm, &dithered, seed, &script);
            let c = c_replay(&program, &algorithm, &dithered, seed, &script);
            assert!(c == rust, "{} dithered, seed {seed}: C replay differs", path.display());
            drew += usize::from(rust.0 != expected);
        }
    }
    assert!(drew >= 20, "only {drew} dithered runs drew random timers");
}
