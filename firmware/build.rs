//! Embeds every replay vector (`tests/replay/*.replay`, sorted by file name) with the
//! algorithm, settings and seed of its `# args:` line, and puts `memory.x` where the linker
//! finds it.

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    std::fs::copy(manifest.join("memory.x"), out.join("memory.x")).unwrap();
    println!("cargo:rustc-link-search={}", out.display());
    println!("cargo:rerun-if-changed=memory.x");

    let dir = manifest.join("../tests/replay");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "replay"))
        .collect();
    scripts.sort();
    let mut code = String::from("/// Every replay vector, sorted by name.\npub static VECTORS: &[Vector] = &[\n");
    for path in &scripts {
        let script = std::fs::read_to_string(path).unwrap();
        let line = script.lines().find_map(|l| l.strip_prefix("# args: ")).expect("an `# args:` line");
        let mut words = line.split_whitespace();
        let (mut algorithm, mut settings, mut seed, mut no_dither) = (String::new(), Vec::new(), 1u64, false);
        while let Some(w) = words.next() {
            match w {
                "--algorithm" | "-a" => algorithm = words.next().unwrap().to_string(),
                "--set" => settings.push(words.next().unwrap().to_string()),
                "--seed" => seed = words.next().unwrap().parse().unwrap(),
                "--no-dither" => no_dither = true,
                other => panic!("unexpected argument `{other}` in {}", path.display()),
            }
        }
        // As `coapcc replay` adds it: after every `--set`.
        if no_dither {
            settings.push("dither=false".into());
        }
        let name = path.file_stem().unwrap().to_str().unwrap();
        writeln!(
            code,
            "    Vector {{ name: {name:?}, algorithm: {algorithm:?}, settings: &{settings:?}, seed: {seed}, script: include_str!({:?}) }},",
            path.canonicalize().unwrap()
        )
        .unwrap();
    }
    code.push_str("];\n");
    std::fs::write(out.join("vectors.rs"), code).unwrap();
}
