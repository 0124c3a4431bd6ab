//! The version with the git revision, for a program's build script.
//!
//! A program's `build.rs` calls [`emit_version`] from its `main`, and its clap definition
//! takes `#[command(version = env!("GIN_VERSION"))]`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Sets the compile-time variable `GIN_VERSION` to the package's version and the revision it
/// is built from: `0.1.0 (abc1234 2026-11-27)`, the short commit hash and the commit's date;
/// `abc1234-dirty` when tracked files had changes then. The revision is
/// `$GIN_BUILD_REVISION` when set (for packagers building from a tarball), else git's.
/// Outside a git checkout of this project (a crate tarball, no `git`), just `0.1.0`.
///
/// The script runs again when HEAD moves (a commit, a checkout) or the package's `src`
/// changes (which rebuilds the package anyway), not at every edit elsewhere: so `-dirty`
/// tells whether the tree had changes the last time one of those happened.
pub fn emit_version() {
    println!("cargo:rerun-if-env-changed=GIN_BUILD_REVISION");
    println!("cargo:rerun-if-changed=src");
    let package = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| ".".into()));
    let revision = match std::env::var("GIN_BUILD_REVISION") {
        Ok(r) if !r.trim().is_empty() => Some(r.trim().to_string()),
        _ => git_revision(&dir),
    };
    println!("cargo:rustc-env=GIN_VERSION={}", version(&package, revision.as_deref()));
}

/// `0.1.0 (abc1234 2026-11-27)`, or `0.1.0` without a revision.
pub fn version(package: &str, revision: Option<&str>) -> String {
    match revision {
        Some(r) => format!("{package} ({r})"),
        None => package.to_string(),
    }
}

/// `git` in `dir`: its trimmed output, `None` when it fails or prints nothing.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(dir).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// `abc1234 2026-11-27` (`abc1234-dirty …`), when `dir` is in a git checkout that tracks
/// its `Cargo.toml` (not some other repository a tarball was unpacked in).
fn git_revision(dir: &Path) -> Option<String> {
    git(dir, &["ls-files", "--error-unmatch", "Cargo.toml"])?;
    // Watched before reading them, so a commit made meanwhile still reruns the script.
    let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        watch.push(branch);
    }
    for name in watch {
        if let Some(p) = git(dir, &["rev-parse", "--git-path", &name]) {
            let p = dir.join(p);
            // A path that does not exist would make cargo run the script at every build.
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    let hash = git(dir, &["rev-parse", "--short", "HEAD"])?;
    let date = git(dir, &["log", "-1", "--format=%cd", "--date=short"])?;
    let dirty = git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_some();
    Some(format!("{hash}{} {date}", if dirty { "-dirty" } else { "" }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_follows_the_package_version() {
        assert_eq!(version("0.1.0", Some("abc1234 2026-11-27")), "0.1.0 (abc1234 2026-11-27)");
        assert_eq!(version("0.1.0", None), "0.1.0");
    }

    #[test]
    fn a_folder_outside_any_checkout_has_no_revision() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
        assert_eq!(git_revision(dir.path()), None);
    }

    /// A repository of its own: clean, then with a tracked file changed (`-dirty`); an
    /// untracked file alone leaves it clean.
    #[test]
    fn a_change_to_a_tracked_file_is_dirty() {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let ok = Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
                .args(args)
                .current_dir(dir.path())
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        run(&["init", "-q"]);
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\n").unwrap();
        run(&["add", "Cargo.toml"]);
        run(&["commit", "-q", "-m", "first"]);
        let head = git(dir.path(), &["rev-parse", "--short", "HEAD"]).unwrap();
        let clean = git_revision(dir.path()).unwrap();
        assert!(clean.starts_with(&format!("{head} ")), "{clean}");
        std::fs::write(dir.path().join("notes.txt"), "untracked").unwrap();
        assert_eq!(git_revision(dir.path()).unwrap(), clean);
        std::fs::write(dir.path().join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        let dirty = git_revision(dir.path()).unwrap();
        assert_eq!(dirty, clean.replacen(' ', "-dirty ", 1));
    }

    #[test]
    fn this_checkout_has_its_head_as_revision() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let Some(head) = git(dir, &["rev-parse", "--short", "HEAD"]) else {
            return; // built from a tarball: nothing to compare with
        };
        let rev = git_revision(dir).expect("a revision in a checkout");
        assert!(rev.starts_with(&head), "{rev} vs {head}");
        let date = rev.rsplit(' ').next().unwrap();
        assert!(date.len() == 10 && date.as_bytes()[4] == b'-', "{rev}");
    }
}
