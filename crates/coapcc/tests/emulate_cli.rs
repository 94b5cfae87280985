//! `coapcc emulate` refuses a bad link key with one line naming it and exit code 2.

use std::process::Command;

#[test]
fn an_unknown_link_key_is_named_and_exits_with_code_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .args(["emulate", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--set", "bufer_bytes=1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("bufer_bytes"), "{err}");
}

#[test]
fn a_bad_link_value_is_named_and_exits_with_code_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .args(["emulate", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--set", "errors=lots"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("errors"), "{err}");
}
