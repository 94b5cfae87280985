//! The stop-and-wait loop of `docs/c-api.md` is `tests/c/stop_and_wait.c` verbatim, at most
//! 40 lines, compiles against the header and static library, and retransmits on the RFC 7252
//! timers: run on a simulated link (`tests/c/stop_and_wait_main.c`) with Default CoAP
//! undithered, copies leave at ACK_TIMEOUT × (2^k − 1) after the request and the request is
//! given up when the timer of its last copy (MAX_RETRANSMIT = 4) expires (RFC 7252 §4.2, §4.8).

mod cc;

use std::path::Path;
use std::process::Command;

#[test]
fn the_documented_stop_and_wait_loop_compiles_and_retransmits_on_the_rfc_7252_timers() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = crate_dir.join("tests/c/stop_and_wait.c");
    let code = std::fs::read_to_string(&source).unwrap();
    assert!(code.lines().count() <= 40, "the loop has {} lines", code.lines().count());
    let doc = std::fs::read_to_string(crate_dir.join("../../docs/c-api.md")).unwrap();
    let block = doc
        .split_once("<!-- verbatim: crates/coapcc-ffi/tests/c/stop_and_wait.c -->\n```c\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .map(|(block, _)| block)
        .expect("docs/c-api.md has the loop's block");
    assert_eq!(block, code, "docs/c-api.md's loop differs from tests/c/stop_and_wait.c");

    let program = cc::compile(&[&source, &crate_dir.join("tests/c/stop_and_wait_main.c")], "stop-and-wait");
    // Three requests: the first two copies lost; every copy lost; none lost. RTT 100 ms.
    let out = Command::new(program).args(["default", "2,9,0", "dither=false"]).output().unwrap();
    assert!(out.status.success());
    // Undithered Default CoAP: timers 2, 4, 8, 16, 32 s; MAX_RETRANSMIT = 4.
    let mut expected = String::new();
    expected += "0 ms: request\n0 ms: copy 0\n2000 ms: copy 1\n6000 ms: copy 2\n6100 ms: outcome 1\n";
    let t = 6100;
    expected += &format!("{t} ms: request\n");
    for (copy, at) in [0, 2000, 6000, 14000, 30000].into_iter().enumerate() {
        expected += &format!("{} ms: copy {copy}\n", t + at);
    }
    let gave_up = t + 30000 + 32000;
    expected += &format!("{gave_up} ms: outcome 0\n{gave_up} ms: request\n{gave_up} ms: copy 0\n");
    expected += &format!("{} ms: outcome 1\n", gave_up + 100);
    assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
}
