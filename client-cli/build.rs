//! `GIN_VERSION`: the version `gin --version` prints, with the git revision.

fn main() {
    gin_cli_meta::build::emit_version();
}
