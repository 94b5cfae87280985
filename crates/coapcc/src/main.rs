//! The `coapcc` command-line tool.
fn main() {}
