//! `gin-bot account`: a bot account for a program (`AccountService.Register` with
//! `ACCOUNT_KIND_BOT`): its token, shown once, is what `--account-token` (or
//! `GIN_ACCOUNT_TOKEN`) then plays with.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gin_proto::text::printable;
use gin_proto::v1 as pb;

/// `gin-bot account …`.
#[derive(clap::Subcommand)]
pub enum AccountCmd {
    /// Create a bot account (shown as a bot wherever it plays) and print its token, once.
    #[command(after_help = gin_cli_meta::exit_statuses(
        "The token goes to stdout alone (or to --token-file, readable by you only); play with\n\
         it: gin-bot play --account-token TOKEN, or GIN_ACCOUNT_TOKEN=TOKEN gin-bot play.",
        &gin_cli_meta::common_statuses("the server could not be reached or refused (the name is taken), or the\n\
         token file could not be written"),
    ))]
    Create(CreateArgs),
}

#[derive(clap::Args)]
pub struct CreateArgs {
    /// The account's name (1 to 40 characters; unique, without regard to case).
    #[arg(value_name = "NAME")]
    name: String,
    #[command(flatten)]
    server: crate::tournament_cmd::ServerArg,
    /// Write the token to this new file (mode 0600 from its creation) instead of stdout.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// The token's label.
    #[arg(long, value_name = "LABEL", default_value = "gin-bot")]
    label: String,
}

pub fn run(cmd: AccountCmd) -> Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(async move {
        match cmd {
            AccountCmd::Create(a) => create(a).await,
        }
    })
}

async fn create(a: CreateArgs) -> Result<()> {
    // Checked before the account exists: a token with nowhere to go would be lost.
    if let Some(f) = &a.token_file
        && f.exists()
    {
        anyhow::bail!("--token-file {}: exists already (not overwritten)", f.display());
    }
    let client = a.server.client().await?;
    let r = client
        .register(&a.name, pb::AccountKind::Bot, "", &a.label)
        .await
        .map_err(|e| anyhow::anyhow!("creating bot account {}: {e}", printable(&a.name)))?;
    let name = r.account.as_ref().map_or(a.name.as_str(), |x| x.name.as_str());
    match &a.token_file {
        Some(f) => {
            write_private(f, &format!("{}\n", r.token))?;
            eprintln!("created bot account {}; its token is in {} (mode 0600)", printable(name), f.display());
        }
        None => {
            eprintln!("created bot account {}; its token, shown this once:", printable(name));
            println!("{}", printable(&r.token));
        }
    }
    Ok(())
}

/// Writes `text` to the new file `path`, mode 0600 from its creation (never readable by
/// others, not even for a moment).
fn write_private(path: &Path, text: &str) -> Result<()> {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let mut f = o.open(path).with_context(|| format!("creating {}", path.display()))?;
    f.write_all(text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn the_token_file_is_0600_and_never_overwritten() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("token");
        write_private(&p, "gin_at_x\n").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(write_private(&p, "gin_at_y\n").is_err());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "gin_at_x\n");
    }
}
