//! Compiling the C programs of the tests against `include/coapcc.h` and the static library.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The static library built with this test: the newest `libcoapcc_ffi*.a` of the profile's
/// folder or its `deps` (cargo writes it beside the rlib this test links, or beside the
/// dependency's rlib for the tests of `coapcc`).
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let deps = exe.parent().expect("deps folder");
    let profile = deps.parent().expect("profile folder");
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = [profile, deps]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("libcoapcc_ffi") && name.ends_with(".a")
        })
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    found.sort();
    found.pop().map(|(_, p)| p).expect("cargo built libcoapcc_ffi.a beside this test")
}

/// Compiles C files into one program against the header and static library, warnings denied; the program's path.
pub fn compile(sources: &[&Path], name: &str) -> PathBuf {
    // `coapcc-ffi`'s folder, also from the tests of `coapcc` (which include this module).
    let ffi_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../coapcc-ffi");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-I"])
        .arg(ffi_dir.join("include"))
        .args(sources)
        .arg(static_library())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&out)
        .status()
        .expect("the system C compiler `cc` runs (install a C compiler, e.g. `apt-get install gcc`)");
    assert!(status.success(), "{sources:?} do not compile");
    out
}
