//! What this build needs from the CPU.
//!
//! The project builds for x86-64-v3 (`.cargo/config.toml`): the solver is popcounts and bit
//! scans over card masks, and baseline x86-64 does them in software (the solver runs ~30–40%
//! slower built for x86-64-v2, measured). A binary built so would die with SIGILL at its first
//! such instruction on an older CPU; each binary calls [`unsupported`] first thing in `main`
//! and stops with a message that says how to build for that CPU instead. (The check needs no
//! instruction of the build's features: it reads the CPU's, which is not the engine's kind of
//! input — no clock, no I/O, no randomness.)

/// The x86-64 features a build may have been compiled to use, each with whether this build
/// uses it and whether this CPU has it.
#[cfg(target_arch = "x86_64")]
fn features() -> Vec<(&'static str, bool, bool)> {
    macro_rules! table {
        ($($f:tt),*) => { vec![$(($f, cfg!(target_feature = $f), std::is_x86_feature_detected!($f))),*] };
    }
    table!(
        "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "bmi1", "bmi2", "fma", "lzcnt",
        "movbe", "f16c"
    )
}

#[cfg(not(target_arch = "x86_64"))]
fn features() -> Vec<(&'static str, bool, bool)> {
    Vec::new()
}

/// The features of `table` (name, used by the build, present on the CPU) the build uses and
/// the CPU lacks.
fn missing_of(table: &[(&'static str, bool, bool)]) -> Vec<&'static str> {
    table.iter().filter(|(_, used, present)| *used && !*present).map(|(f, _, _)| *f).collect()
}

/// The CPU features this build uses that this CPU lacks (empty: it runs here).
pub fn missing_features() -> Vec<&'static str> {
    missing_of(&features())
}

/// If this build cannot run on this CPU, what to tell its user: which features are missing
/// and how to build `package` for this CPU. Call it first in `main`, before anything that
/// could use them.
///
/// ```
/// // Where the tests run, the build runs.
/// assert_eq!(engine::cpu::unsupported("gin-client-cli"), None);
/// ```
pub fn unsupported(package: &str) -> Option<String> {
    message(package, &missing_features())
}

fn message(package: &str, missing: &[&str]) -> Option<String> {
    if missing.is_empty() {
        return None;
    }
    Some(format!(
        "this binary was built for newer CPUs (x86-64-v3: Haswell, Zen or later) and this CPU lacks {}. \
         Build it for this one: RUSTFLAGS=\"-C target-cpu=native\" cargo install --path <dir of {package}> \
         (or cargo build --release -p {package} with the same RUSTFLAGS)",
        missing.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feature_is_missing_only_when_the_build_uses_it_and_the_cpu_lacks_it() {
        let table =
            [("avx2", true, false), ("popcnt", true, true), ("bmi2", false, false), ("lzcnt", true, false)];
        assert_eq!(missing_of(&table), ["avx2", "lzcnt"]);
        assert!(missing_of(&[("popcnt", true, true)]).is_empty());
        let m = message("gin-server", &["avx2", "lzcnt"]).unwrap();
        assert!(
            m.contains("lacks avx2, lzcnt") && m.contains("target-cpu=native") && m.contains("gin-server"),
            "{m}"
        );
        assert_eq!(message("gin-server", &[]), None);
    }

    #[test]
    fn this_build_runs_on_this_cpu_and_knows_what_it_was_built_for() {
        assert!(missing_features().is_empty());
        // The project's builds are for x86-64-v3: the check knows it (RUSTFLAGS may say otherwise).
        #[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
        assert!(features().iter().any(|(f, used, _)| *f == "avx2" && *used));
    }
}
