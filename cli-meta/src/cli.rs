use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Command, Parser};
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

pub use clap_complete::Shell;

/// The programs whose manual pages and completions are in `docs/`: a file there belongs to
/// the longest of these its name starts with (`gin-bot-play.1` to `gin-bot`).
pub const PROGRAMS: [&str; 3] = ["gin", "gin-bot", "gin-server"];

/// The shells whose completion scripts are committed in `docs/completions`.
pub const SHELLS: [Shell; 3] = [Shell::Bash, Shell::Zsh, Shell::Fish];

/// Exit status 1: the command failed (its message is on stderr).
pub const FAILURE: u8 = 1;
/// Exit status 2: a usage error (clap's), or a CPU older than the build's target.
pub const USAGE: u8 = 2;

/// The "Exit status:" list ending a command's `--help` (after `notes`, when not empty), a
/// status and its description (a `\n` in it goes on, indented, on the next line); the manual
/// pages show it as their EXIT STATUS section.
pub fn exit_statuses(notes: &str, statuses: &[(u8, &str)]) -> String {
    let mut s = String::new();
    if !notes.is_empty() {
        s.push_str(notes.trim_end());
        s.push_str("\n\n");
    }
    s.push_str(EXIT_HEADING);
    for (code, what) in statuses {
        // A long description goes on over lines of its own, under the first.
        let what = what.replace('\n', "\n     ");
        s.push_str(&format!("\n  {code}  {what}"));
    }
    s
}

const EXIT_HEADING: &str = "Exit status:";

/// Status 2 as [`exit_statuses`] lists it.
pub const USAGE_STATUS: (u8, &str) =
    (USAGE, "usage error (a bad flag or argument), or a CPU older than the build's target");

/// The statuses every program shares: 0, 1 (`failure`: what fails) and 2.
pub fn common_statuses(failure: &'static str) -> [(u8, &'static str); 3] {
    [(0, "success"), (FAILURE, failure), USAGE_STATUS]
}

/// Parses the command line; on a usage error prints clap's message after the program's name
/// (`gin: error: …`) and exits with status 2; `--help` and `--version` print and exit 0.
pub fn parse<P: Parser>(program: &str) -> P {
    match P::try_parse() {
        Ok(p) => p,
        Err(e) => {
            use clap::error::ErrorKind as K;
            // The help shown for a missing subcommand is help, not an error message.
            if e.use_stderr() && e.kind() != K::DisplayHelpOnMissingArgumentOrSubcommand {
                eprint!("{program}: ");
            }
            let _ = e.print();
            std::process::exit(e.exit_code());
        }
    }
}

/// An error as every program prints it on stderr: `<program>: error: <message>`, then
/// `  caused by: <cause>` for each cause. Text from a server is escaped
/// (`gin_proto::text::printable`), so it cannot drive the terminal.
pub fn format_error(program: &str, e: &anyhow::Error) -> String {
    let mut chain = e.chain();
    let first = chain.next().map(|c| c.to_string()).unwrap_or_default();
    let mut s = format!("{program}: error: {}", gin_proto::text::printable_lines(&first));
    for cause in chain {
        s.push_str("\n  caused by: ");
        s.push_str(&gin_proto::text::printable_lines(&cause.to_string()));
    }
    s
}

/// Prints [`format_error`] on stderr.
pub fn print_error(program: &str, e: &anyhow::Error) {
    eprintln!("{}", format_error(program, e));
}

/// Writes the completion script of `cmd` for `shell` to `out` (made whole first: clap's
/// generator panics on a failed write, a closed pipe say, where this returns the error).
pub fn write_completions(cmd: Command, shell: Shell, out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(&completions(cmd, shell))?;
    out.flush()
}

/// The completion script of `cmd` for `shell`.
fn completions(mut cmd: Command, shell: Shell) -> Vec<u8> {
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    script
}

/// The files generated from `cmd`, by path from the repository's root: a manual page for
/// the command and for each subcommand (`docs/man/gin-play.1`), and the completion scripts
/// (`docs/completions/gin.bash`, `_gin`, `gin.fish`). The pages name the package's version
/// without the revision, so a commit does not change them.
pub fn generated(cmd: Command) -> Vec<(PathBuf, Vec<u8>)> {
    let version = cmd.get_version().map(|v| v.split(" (").next().unwrap_or(v).to_string());
    // The completions as `gin completions` prints them (they complete `gin help play` too).
    let mut scripts = Vec::new();
    for shell in SHELLS {
        let name = clap_complete::Generator::file_name(&shell, cmd.get_name());
        scripts.push((PathBuf::from("docs/completions").join(name), completions(cmd.clone(), shell)));
    }
    // No page for `gin help`.
    let mut cmd = cmd.disable_help_subcommand(true);
    if let Some(v) = &version {
        // clap takes a `&'static str` (its `string` feature is off); a few bytes, once.
        cmd = cmd.version(&*Box::leak(v.clone().into_boxed_str()));
    }
    cmd.build();
    let source = format!("{} {}", cmd.get_name(), version.unwrap_or_default());
    let mut files = Vec::new();
    man_pages(&cmd, &source, &mut files);
    files.extend(scripts);
    files
}

/// One of [`Man`]'s sections, rendered.
type Section = fn(&Man, &mut dyn Write) -> std::io::Result<()>;

fn man_pages(cmd: &Command, source: &str, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    let man = Man::new(cmd.clone()).source(source);
    let mut page = Vec::new();
    let mut parts: Vec<Section> =
        vec![Man::render_title, Man::render_name_section, Man::render_synopsis_section];
    parts.push(Man::render_description_section);
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        parts.push(Man::render_options_section);
    }
    let subcommands: Vec<&Command> = cmd.get_subcommands().filter(|s| !s.is_hide_set()).collect();
    if !subcommands.is_empty() {
        parts.push(Man::render_subcommands_section);
    }
    for part in parts {
        part(&man, &mut page).expect("writing to a Vec");
    }
    if let Some(after) = cmd.get_after_long_help().or(cmd.get_after_help()) {
        after_help(&after.to_string(), &mut page);
    }
    if cmd.get_version().is_some() {
        man.render_version_section(&mut page).expect("writing to a Vec");
    }
    let name = man.get_filename();
    files.push((PathBuf::from("docs/man").join(name), once_preamble(page)));
    for sub in subcommands {
        man_pages(sub, source, files);
    }
}

/// The page with the preamble that roff writes before each section kept once, at the top.
fn once_preamble(page: Vec<u8>) -> Vec<u8> {
    const PREAMBLE: &str = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    let text = String::from_utf8(page).expect("roff is UTF-8");
    match text.strip_prefix(PREAMBLE) {
        Some(rest) => format!("{PREAMBLE}{}", rest.replace(PREAMBLE, "")).into_bytes(),
        None => text.into_bytes(),
    }
}

/// A `--help`'s closing text as manual page sections: the notes as NOTES (lines kept as
/// they are), the [`exit_statuses`] list as EXIT STATUS.
fn after_help(text: &str, page: &mut Vec<u8>) {
    let (notes, statuses) = match text.find(EXIT_HEADING) {
        Some(i) => (&text[..i], Some(&text[i + EXIT_HEADING.len()..])),
        None => (text, None),
    };
    let mut roff = Roff::default();
    if !notes.trim().is_empty() {
        roff.control("SH", ["NOTES"]);
        roff.control("nf", [] as [&str; 0]);
        for line in notes.trim().lines() {
            roff.text([roman(line)]);
        }
        roff.control("fi", [] as [&str; 0]);
    }
    if let Some(list) = statuses {
        roff.control("SH", ["EXIT STATUS"]);
        // `  3  what` starts a status; a line indented further goes on with its description.
        let mut entries: Vec<(String, String)> = Vec::new();
        for line in list.lines().filter(|l| !l.trim().is_empty()) {
            let starts = line.starts_with("  ") && line[2..].starts_with(|c: char| c.is_ascii_digit());
            match entries.last_mut() {
                Some((_, what)) if !starts => {
                    what.push(' ');
                    what.push_str(line.trim());
                }
                _ => {
                    let (code, what) =
                        line.trim().split_once(char::is_whitespace).unwrap_or((line.trim(), ""));
                    entries.push((code.to_string(), what.trim().to_string()));
                }
            }
        }
        for (code, what) in entries {
            roff.control("TP", [] as [&str; 0]);
            roff.text([bold(code)]);
            roff.text([roman(what)]);
        }
    }
    roff.to_writer(page).expect("writing to a Vec");
}

/// The program among [`PROGRAMS`] a file in `docs/man` or `docs/completions` belongs to.
fn owner(file: &str) -> Option<&'static str> {
    let stem = file.strip_prefix('_').unwrap_or(file);
    PROGRAMS
        .iter()
        .filter(|p| {
            stem.strip_prefix(**p).is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.']))
        })
        .max_by_key(|p| p.len())
        .copied()
}

/// The commands under `cmd` (itself included, `help` not) whose `--help` has no
/// [`exit_statuses`].
fn without_exit_statuses(cmd: &Command, path: &str, out: &mut Vec<String>) {
    if !cmd.get_after_help().is_some_and(|h| h.to_string().contains(EXIT_HEADING)) {
        out.push(path.to_string());
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        without_exit_statuses(sub, &format!("{path} {}", sub.get_name()), out);
    }
}

/// The test that keeps the committed files from drifting (after checking that every command
/// lists its exit statuses): [`generated`] from `cmd` must equal
/// the files under `root` (the repository), and no other file there may belong to the program.
/// With `GIN_WRITE_GENERATED=1` in the environment it writes them instead (and removes the
/// program's files it no longer generates). Panics with every difference and `rewrite`, the
/// command that rewrites them.
pub fn check_generated(cmd: Command, root: &Path, rewrite: &str) {
    let program = cmd.get_name().to_string();
    let mut without = Vec::new();
    without_exit_statuses(&cmd, &program, &mut without);
    assert!(
        without.is_empty(),
        "every command lists its exit statuses (`after_help = exit_statuses(…)`); these do not: {}",
        without.join(", ")
    );
    let files = generated(cmd);
    let write = std::env::var_os("GIN_WRITE_GENERATED").is_some_and(|v| v == "1");
    let mut wrong = Vec::new();
    for (path, body) in &files {
        let full = root.join(path);
        match std::fs::read(&full) {
            Ok(old) if old == *body => {}
            Ok(_) => wrong.push(format!("{} differs", path.display())),
            Err(_) => wrong.push(format!("{} is missing", path.display())),
        }
        if write {
            std::fs::create_dir_all(full.parent().expect("a folder")).expect("creating docs folders");
            std::fs::write(&full, body).unwrap_or_else(|e| panic!("writing {}: {e}", full.display()));
        }
    }
    for dir in ["docs/man", "docs/completions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = Path::new(dir).join(&name);
            if owner(&name) == Some(program.as_str()) && !files.iter().any(|(p, _)| *p == path) {
                wrong.push(format!("{} is no longer generated", path.display()));
                if write {
                    std::fs::remove_file(entry.path()).expect("removing a stale file");
                }
            }
        }
    }
    if !wrong.is_empty() && !write {
        panic!(
            "the committed manual pages and completions of {program} are not what the code generates:\n  {}\n\
             rewrite them with:\n  {rewrite}",
            wrong.join("\n  ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, ArgAction};

    fn demo() -> Command {
        Command::new("gin")
            .version("0.1.0 (abc1234 2026-11-27)")
            .about("A demo")
            .after_help(exit_statuses("", &common_statuses("it failed")))
            .subcommand(
                Command::new("play")
                    .about("Play")
                    .arg(Arg::new("plain").long("plain").action(ArgAction::SetTrue).help("Plain text"))
                    .after_help(exit_statuses("Keys: q quit.", &common_statuses("the game failed"))),
            )
    }

    #[test]
    fn files_belong_to_the_longest_program_name() {
        assert_eq!(owner("gin.1"), Some("gin"));
        assert_eq!(owner("gin-play.1"), Some("gin"));
        assert_eq!(owner("gin-bot.1"), Some("gin-bot"));
        assert_eq!(owner("gin-bot-tournament-create.1"), Some("gin-bot"));
        assert_eq!(owner("_gin-server"), Some("gin-server"));
        assert_eq!(owner("gin.bash"), Some("gin"));
        assert_eq!(owner("ginger.1"), None);
        assert_eq!(owner("README.md"), None);
    }

    #[test]
    fn a_page_for_each_command_with_its_exit_statuses_and_no_revision() {
        let files = generated(demo());
        let names: Vec<String> = files.iter().map(|(p, _)| p.display().to_string()).collect();
        assert_eq!(
            names,
            [
                "docs/man/gin.1",
                "docs/man/gin-play.1",
                "docs/completions/gin.bash",
                "docs/completions/_gin",
                "docs/completions/gin.fish"
            ]
        );
        let play = String::from_utf8(files[1].1.clone()).unwrap();
        assert!(play.contains("\n.TH gin-play 1  \"gin 0.1.0\""), "{play}");
        assert!(play.contains(".SH NOTES\n.nf\nKeys: q quit.\n.fi"), "{play}");
        assert!(play.contains(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\nsuccess\n"), "{play}");
        assert!(!play.contains("abc1234"));
        let top = String::from_utf8(files[0].1.clone()).unwrap();
        assert!(top.contains(".SH VERSION\nv0.1.0\n"), "{top}");
        assert!(String::from_utf8_lossy(&files[2].1).contains("--plain"));
    }

    #[test]
    fn the_check_finds_every_drift_and_the_rewrite_fixes_it() {
        let root = tempfile::tempdir().unwrap();
        let check = || std::panic::catch_unwind(|| check_generated(demo(), root.path(), "REWRITE"));
        let err = check().unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("docs/man/gin-play.1 is missing") && msg.ends_with("REWRITE"), "{msg}");
        for (path, body) in generated(demo()) {
            std::fs::create_dir_all(root.path().join(&path).parent().unwrap()).unwrap();
            std::fs::write(root.path().join(&path), body).unwrap();
        }
        check().expect("the files as generated pass");
        // A page changed by hand, a page of a subcommand that is gone; another program's
        // page is not this one's business.
        std::fs::write(root.path().join("docs/man/gin.1"), "edited").unwrap();
        std::fs::write(root.path().join("docs/man/gin-old.1"), "old").unwrap();
        std::fs::write(root.path().join("docs/man/gin-bot.1"), "bot").unwrap();
        let err = check().unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("docs/man/gin.1 differs"), "{msg}");
        assert!(msg.contains("docs/man/gin-old.1 is no longer generated"), "{msg}");
        assert!(!msg.contains("gin-bot"), "{msg}");
    }

    #[test]
    fn an_error_and_its_causes_one_a_line_escaped() {
        let e = anyhow::anyhow!("No such file").context("reading rules.toml").context("game \u{1b}[2J x");
        assert_eq!(
            format_error("gin", &e),
            "gin: error: game \\u{1b}[2J x\n  caused by: reading rules.toml\n  caused by: No such file"
        );
    }

    #[test]
    fn a_command_without_exit_statuses_fails_the_check() {
        let root = tempfile::tempdir().unwrap();
        let cmd = || demo().subcommand(Command::new("watch").about("Watch"));
        let err = std::panic::catch_unwind(|| check_generated(cmd(), root.path(), "REWRITE")).unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.ends_with("these do not: gin watch"), "{msg}");
    }

    #[test]
    fn the_exit_statuses_close_the_help() {
        let s = exit_statuses("", &[(0, "ok"), (3, "not yet:\nlater"), (4, "x")]);
        assert_eq!(s, "Exit status:\n  0  ok\n  3  not yet:\n     later\n  4  x");
        let mut page = Vec::new();
        after_help(&s, &mut page);
        let page = String::from_utf8(page).unwrap();
        assert!(page.ends_with("\\fB3\\fR\nnot yet: later\n.TP\n\\fB4\\fR\nx\n"), "{page}");
    }
}
