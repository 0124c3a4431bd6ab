//! gin-load follows the conventions of gin, gin-bot and gin-server (`gin_cli_meta`):
//! `--version` names the checkout's revision; a usage error is status 2 in their style.

use std::process::{Command, Output};

fn gin_load(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gin-load")).args(args).output().expect("run gin-load")
}

#[test]
fn version_names_the_checkouts_revision() {
    gin_cli_meta::testing::assert_version_names_the_revision(
        std::path::Path::new(env!("CARGO_BIN_EXE_gin-load")),
        "gin-load",
        env!("CARGO_PKG_VERSION"),
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
    );
}

#[test]
fn a_bad_flag_is_status_2_in_the_shared_style() {
    let o = gin_load(&["echo", "--frob"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.starts_with("gin-load: error: unexpected argument '--frob' found"), "{err}");
}
