//! What the `learned` examples share: reading their flags and the rules they play.

#![allow(dead_code)] // each example uses part of it

use engine::RuleSet;

/// The value after flag `name` in `args`, parsed, or `default` when the flag is absent.
/// A value that does not parse stops the program with the flag's name.
pub fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().unwrap_or_else(|_| panic!("bad value for {name}")))
        .unwrap_or(default)
}

/// The competition rules (`rules/competition.toml`).
pub fn competition() -> RuleSet {
    RuleSet::parse_any(include_str!("../../rules/competition.toml")).expect("the competition rules parse")
}

/// The standard rules with `--standard` among `args`, the competition rules otherwise.
pub fn rules_flag(args: &[String]) -> RuleSet {
    if args.iter().any(|a| a == "--standard") { RuleSet::standard() } else { competition() }
}
