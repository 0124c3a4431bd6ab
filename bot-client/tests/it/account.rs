//! `gin-bot account create` against a stand-in `AccountService` (the file of gin's tests):
//! a bot account is asked for, its token goes to stdout alone, or to a new file of mode
//! 0600; an existing file is never overwritten (nothing is created then).

use std::process::Command;

use gin_proto::v1 as pb;

#[path = "../../../client-cli/tests/it/fake_accounts.rs"]
mod fake_accounts;

async fn gin_bot(args: &[&str]) -> std::process::Output {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin-bot"))
            .args(&args)
            .env_remove("GIN_ACCOUNT_TOKEN")
            .output()
            .unwrap()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_create_makes_a_bot_account_and_hands_its_token_once() {
    let fake = fake_accounts::Fake::default();
    let url = fake.start().await;
    let o = gin_bot(&["account", "create", "robo", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let token = fake.state.lock().unwrap().tokens.keys().next().unwrap().clone();
    assert_eq!(String::from_utf8_lossy(&o.stdout), format!("{token}\n"), "the token alone on stdout");
    assert!(!String::from_utf8_lossy(&o.stderr).contains(&token), "{o:?}");
    assert_eq!(fake.state.lock().unwrap().accounts["robo"], (pb::AccountKind::Bot, String::new()));

    let tmp = tempfile::tempdir().unwrap();
    let f = tmp.path().join("robo2.token");
    let o =
        gin_bot(&["account", "create", "robo2", "--token-file", f.to_str().unwrap(), "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    assert!(o.stdout.is_empty(), "{o:?}");
    let written = std::fs::read_to_string(&f).unwrap();
    assert!(written.starts_with("gin_at_") && fake.state.lock().unwrap().tokens.contains_key(written.trim()));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&f).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // The file exists now: refused before anything is created.
    let o =
        gin_bot(&["account", "create", "robo3", "--token-file", f.to_str().unwrap(), "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("gin-bot: error: --token-file "), "{o:?}");
    assert!(!fake.state.lock().unwrap().accounts.contains_key("robo3"));
    // A taken name, in the house style.
    let o = gin_bot(&["account", "create", "ROBO", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).starts_with("gin-bot: error: creating bot account ROBO: "),
        "{o:?}"
    );
    // A seat token where the account token goes: refused before connecting.
    let o = gin_bot(&["play", "--vs-bot", "simple", "--account-token", "seat-token", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--account-token: not an account token"), "{o:?}");
}
