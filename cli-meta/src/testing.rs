//! What the programs' convention tests share (`tests/it/conventions.rs` of gin, gin-bot and
//! gin-server, `tests/conventions.rs` of gin-load), held over the real executable.

use std::path::Path;
use std::process::{Command, Output};

/// `bin args…`, its stdin closed.
pub fn run(bin: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", bin.display()))
}

/// Asserts that `bin --version` (and `-V`) starts with `<name> <version> (<revision>`, the
/// revision being `git rev-parse --short HEAD` of the checkout `dir` is in.
pub fn assert_version_names_the_revision(bin: &Path, name: &str, version: &str, dir: &Path) {
    let head = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(dir)
        .output()
        .expect("git (the tests run in a checkout)");
    let head = String::from_utf8(head.stdout).unwrap().trim().to_string();
    assert!(!head.is_empty(), "no revision in {}", dir.display());
    for flag in ["--version", "-V"] {
        let o = run(bin, &[flag]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8(o.stdout).unwrap();
        let want = format!("{name} {version} ({head}");
        assert!(out.starts_with(&want), "{flag}: {out:?} does not start with {want:?}");
    }
}

/// Asserts that `bin <args…> SHELL` prints, for bash, zsh and fish, the script committed in
/// `<repo>/docs/completions` for `name` (`name.bash`, `_name`, `name.fish`); returns the
/// scripts.
pub fn assert_completions_are_committed(bin: &Path, args: &[&str], name: &str, repo: &Path) -> Vec<String> {
    let files =
        [("bash", format!("{name}.bash")), ("zsh", format!("_{name}")), ("fish", format!("{name}.fish"))];
    files
        .into_iter()
        .map(|(shell, file)| {
            let mut with_shell = args.to_vec();
            with_shell.push(shell);
            let o = run(bin, &with_shell);
            assert!(o.status.success(), "{shell}: {}", String::from_utf8_lossy(&o.stderr));
            let committed = std::fs::read(repo.join("docs/completions").join(&file)).unwrap();
            assert!(
                o.stdout == committed,
                "{name} {} {shell} differs from docs/completions/{file}",
                args.join(" ")
            );
            String::from_utf8(o.stdout).unwrap()
        })
        .collect()
}
