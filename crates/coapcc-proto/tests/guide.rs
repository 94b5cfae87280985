//! `docs/adding-an-algorithm.md` shows `examples/custom_controller.rs` verbatim (its Rust
//! blocks, in order, are the file), so the guide's code is the code `cargo test` compiles.

use std::path::Path;

/// The contents of every ```` ```rust ```` block of a Markdown text, in order, concatenated.
fn rust_blocks(markdown: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in markdown.split_inclusive('\n') {
        match line.trim_end() {
            "```rust" if !inside => inside = true,
            "```" if inside => inside = false,
            _ if inside => out.push_str(line),
            _ => {}
        }
    }
    out
}

#[test]
fn the_guide_shows_the_custom_controller_example_verbatim() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let guide = std::fs::read_to_string(root.join("../../docs/adding-an-algorithm.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/custom_controller.rs")).unwrap();
    let shown = rust_blocks(&guide);
    assert!(shown.lines().count() > 100, "the guide shows too little of the example");
    // Line by line first, so that a difference names its line.
    for (i, (a, b)) in shown.lines().zip(example.lines()).enumerate() {
        assert_eq!(a, b, "docs/adding-an-algorithm.md differs from the example at line {}", i + 1);
    }
    assert_eq!(shown, example);
}

#[test]
fn rust_blocks_are_read_in_order_and_other_blocks_skipped() {
    let md = "intro\n```rust\nfn a() {}\n```\n```text\nno\n```\n```rust\nfn b() {}\n```\n";
    assert_eq!(rust_blocks(md), "fn a() {}\nfn b() {}\n");
}
