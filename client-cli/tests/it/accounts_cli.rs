//! The account commands of the real `gin` binary against a stand-in `AccountService`
//! (`fake_accounts`): what they send (the bearer, the password, the scopes), what they print,
//! and the token file they keep (`GIN_CONFIG_DIR`: mode 0600, its folder 0700, one entry per
//! server, gone after `gin logout`).

use std::path::Path;
use std::process::{Command, Output, Stdio};

use gin_proto::v1 as pb;

use crate::fake_accounts::Fake;

/// Runs `gin` with its config folder `cfg` and `input` on stdin.
fn gin_in(cfg: &Path, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gin"))
        .args(args)
        .env("GIN_CONFIG_DIR", cfg)
        .env_remove("GIN_ACCOUNT_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gin");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

async fn run(cfg: &Path, args: &[&str], input: &str) -> Output {
    let (cfg, input) = (cfg.to_path_buf(), input.to_string());
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gin_in(&cfg, &args, &input)
    })
    .await
    .unwrap()
}

/// The token kept for `url` in the token file.
fn kept_token(file: &Path, url: &str) -> String {
    let j: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    j["servers"][url]["token"].as_str().unwrap().to_string()
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_whoami_games_tokens_logout_with_the_token_kept_privately() {
    let fake = Fake::default();
    let url = fake.start().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("cfg").join("gin");
    let file = cfg.join("accounts.json");

    // Signed out to begin with: whoami says so, with status 3.
    let o = run(&cfg, &["whoami", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(text(&o.stdout).starts_with("signed out on "), "{o:?}");

    // A person with a password from stdin.
    let o =
        run(&cfg, &["account", "create", "alice", "--password-stdin", "--server", &url], "hunter2hunter2\n")
            .await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(text(&o.stdout), format!("created alice (person) on {url}; signed in\n"));
    let token = {
        let s = fake.state.lock().unwrap();
        assert_eq!(s.accounts["alice"], (pb::AccountKind::Person, "hunter2hunter2".to_string()));
        s.tokens.keys().next().unwrap().clone()
    };
    assert!(
        !text(&o.stdout).contains(&token) && !text(&o.stderr).contains(&token),
        "a person's token is not printed"
    );
    #[cfg(unix)]
    {
        assert_eq!(mode(&cfg), 0o700);
        assert_eq!(mode(&file), 0o600);
    }
    let kept: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(kept["servers"][url.as_str()]["token"], token.as_str());
    assert_eq!(kept["servers"][url.as_str()]["name"], "alice");

    // whoami sends the kept token.
    let o = run(&cfg, &["whoami", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).starts_with(&format!("signed in as alice (person) on {url}\n")), "{o:?}");
    assert!(fake.state.lock().unwrap().calls.contains(&("WhoAmI", token.clone())));

    // Another server: nothing kept there.
    let o = run(&cfg, &["whoami", "--server", "http://127.0.0.1:1"], "").await;
    assert_eq!(o.status.code(), Some(3), "{o:?}");

    // gin games: the caller's (no name sent), a table with the opponent's account.
    let robo = pb::SeatInfo {
        seat: 1,
        name: "r".into(),
        taken: true,
        account: "Robo".into(),
        account_kind: pb::AccountKind::Bot as i32,
        ..Default::default()
    };
    let me = pb::SeatInfo {
        seat: 0,
        name: "alice".into(),
        taken: true,
        account: "alice".into(),
        ..Default::default()
    };
    fake.state.lock().unwrap().games.push(pb::PlayerGame {
        game_id: "g42".into(),
        format: Some(pb::FormatInfo {
            kind: "gin".into(),
            players: 2,
            name: "standard".into(),
            ..Default::default()
        }),
        seat: 0,
        seats: vec![me, robo],
        joined_unix_ms: 1_709_213_820_000,
        finished_unix_ms: 1_709_213_900_000,
        outcome: Some(pb::GameOutcome { won: true, totals: vec![131, 45], reason: 1, ..Default::default() }),
        ..Default::default()
    });
    let o = run(&cfg, &["games", "--server", &url, "--limit", "5"], "").await;
    assert!(o.status.success(), "{o:?}");
    let out = text(&o.stdout);
    let row = out.lines().find(|l| l.contains("g42")).unwrap_or_else(|| panic!("{out}"));
    assert!(row.starts_with("2024-02-29 13:37  standard  Robo (bot)") && row.contains("won 131-45"), "{out}");
    assert!(text(&o.stderr).contains("more: gin games --page-token p2"), "{o:?}");
    assert_eq!(fake.state.lock().unwrap().games_asked.last().unwrap(), &(String::new(), 5, String::new()));
    let o = run(&cfg, &["games", "alice", "--json", "--page-token", "p2", "--server", &url], "").await;
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {o:?}"));
    assert_eq!(j["games"][0]["game_id"], "g42");
    assert_eq!(j["games"][0]["opponents"][0]["account_kind"], "bot");
    assert_eq!(j["next_page_token"], serde_json::Value::Null);

    // An API token: its scopes sent, its secret on stdout once.
    let o = run(
        &cfg,
        &["account", "tokens", "create", "ci", "--scope", "play", "--scope", "tournament", "--server", &url],
        "",
    )
    .await;
    assert!(o.status.success(), "{o:?}");
    let api = text(&o.stdout).trim().to_string();
    assert!(api.starts_with("gin_at_fake") && api != token, "{o:?}");
    assert_eq!(fake.state.lock().unwrap().created_scopes, vec![vec![1, 2]]);

    // Logout: SignOut with the kept token, then the file is gone; whoami says signed out.
    let o = run(&cfg, &["logout", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    assert!(fake.state.lock().unwrap().revoked.contains(&token), "the token was signed out on the server");
    assert!(!file.exists(), "the token file is gone with the last token");
    let o = run(&cfg, &["whoami", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(text(&o.stdout).contains("signed out"), "{o:?}");
    // Commands needing an account now say how to sign in.
    let o = run(&cfg, &["account", "tokens", "list", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        text(&o.stderr).starts_with("gin: error: not signed in on ") && text(&o.stderr).contains("gin login"),
        "{o:?}"
    );

    // Login with the password; a wrong one is refused in the house style, nothing kept.
    let o = run(&cfg, &["login", "alice", "--password-stdin", "--server", &url], "wrong-password\n").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).starts_with("gin: error: signing in as alice: not allowed: "), "{o:?}");
    assert!(!file.exists());
    let o = run(&cfg, &["login", "alice", "--password-stdin", "--server", &url], "hunter2hunter2\n").await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(text(&o.stdout), format!("signed in as alice (person) on {url}\n"));
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);
    // Signing in again ends the session it replaces; an API token kept is left alone.
    let session = kept_token(&file, &url);
    let o = run(&cfg, &["login", "alice", "--password-stdin", "--server", &url], "hunter2hunter2\n").await;
    assert!(o.status.success(), "{o:?}");
    assert!(fake.state.lock().unwrap().revoked.contains(&session), "the replaced session was signed out");
    let o = run(&cfg, &["login", "--token", &api, "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(kept_token(&file, &url), api);
    let o = run(&cfg, &["login", "alice", "--password-stdin", "--server", &url], "hunter2hunter2\n").await;
    assert!(o.status.success(), "{o:?}");
    assert!(!fake.state.lock().unwrap().revoked.contains(&api), "an API token is not signed out");

    // A token revoked elsewhere: whoami says signed out (3); logout still forgets it.
    fake.state.lock().unwrap().tokens.clear();
    let o = run(&cfg, &["whoami", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(text(&o.stdout).contains("no longer takes the token"), "{o:?}");
    let o = run(&cfg, &["logout", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    assert!(!file.exists());

    // Not an account token.
    let o = run(&cfg, &["login", "--token", "not-an-account-token", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("not an account token"), "{o:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_account_prints_its_token_once_and_a_taken_name_is_refused() {
    let fake = Fake::default();
    let url = fake.start().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("gin");
    let o = run(&cfg, &["account", "create", "Robo", "--bot", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    let token = fake.state.lock().unwrap().tokens.keys().next().unwrap().clone();
    let out = text(&o.stdout);
    assert!(out.starts_with(&format!("created Robo (bot) on {url}; signed in\n")), "{out}");
    assert_eq!(out.matches(&token).count(), 1, "{out}");
    assert_eq!(fake.state.lock().unwrap().accounts["Robo"], (pb::AccountKind::Bot, String::new()));

    let o = run(&cfg, &["account", "create", "robo", "--no-password", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = text(&o.stderr);
    assert!(err.starts_with("gin: error: creating account robo: server error (AlreadyExists): "), "{err}");

    // No terminal and no --password-stdin: a clear error, nothing created.
    let o = run(&cfg, &["account", "create", "carol", "--server", &url], "").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("--password-stdin"), "{o:?}");
    assert!(!fake.state.lock().unwrap().accounts.contains_key("carol"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_token_file_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("accounts.json"), "{oops").unwrap();
    let o = run(tmp.path(), &["whoami", "--server", "http://127.0.0.1:1"], "").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = text(&o.stderr);
    assert!(
        err.starts_with("gin: error: ") && err.contains("accounts.json is not a token file gin wrote"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn password_export_and_delete_keep_the_file_in_step() {
    let fake = Fake::default();
    let url = fake.start().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("gin");
    let kept = || -> Option<String> {
        let t = std::fs::read_to_string(cfg.join("accounts.json")).ok()?;
        let j: serde_json::Value = serde_json::from_str(&t).unwrap();
        Some(j["servers"][url.as_str()]["token"].as_str().unwrap().to_string())
    };
    let o = run(&cfg, &["account", "create", "bob", "--no-password", "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    let first = kept().unwrap();

    // No password yet: only the new one is read; the new session token is kept.
    let o = run(&cfg, &["account", "password", "--password-stdin", "--server", &url], "s3cret-pass\n").await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(fake.state.lock().unwrap().accounts["bob"].1, "s3cret-pass");
    let second = kept().unwrap();
    assert_ne!(first, second, "the new session token is kept");
    // Now the current one first; a wrong one is refused and the kept token stays.
    let o =
        run(&cfg, &["account", "password", "--password-stdin", "--server", &url], "nope\nother-pass\n").await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(kept().unwrap(), second);

    // Export to a file readable by its owner only.
    let out = tmp.path().join("export.json");
    let o = run(&cfg, &["account", "export", "--out", out.to_str().unwrap(), "--server", &url], "").await;
    assert!(o.status.success(), "{o:?}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "{\"account\":{\"name\":\"bob\"}}");
    #[cfg(unix)]
    assert_eq!(mode(&out), 0o600);

    // Delete: the name must be typed exactly; then the account and the kept token go.
    let o = run(
        &cfg,
        &["account", "delete", "--confirm", "Bob", "--password-stdin", "--server", &url],
        "s3cret-pass\n",
    )
    .await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("is not the account's name: nothing was deleted"), "{o:?}");
    assert!(fake.state.lock().unwrap().accounts.contains_key("bob"));
    let o = run(&cfg, &["account", "delete", "--password-stdin", "--server", &url], "s3cret-pass\n").await;
    assert_eq!(o.status.code(), Some(1), "no terminal, no --confirm: {o:?}");
    let o = run(
        &cfg,
        &["account", "delete", "--confirm", "bob", "--password-stdin", "--server", &url],
        "s3cret-pass\n",
    )
    .await;
    assert!(o.status.success(), "{o:?}");
    assert!(!fake.state.lock().unwrap().accounts.contains_key("bob"));
    assert_eq!(kept(), None, "the deleted account's token is forgotten");
}

/// `gin account create` on a terminal (a pseudo-terminal): the password is asked twice,
/// without echo; two that differ create nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_terminal_the_password_is_asked_twice_without_echo() {
    use portable_pty::{CommandBuilder, PtySize, native_pty_system};
    use std::io::{Read, Write};
    use std::time::{Duration, Instant};

    let fake = Fake::default();
    let url = fake.start().await;
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("gin");
    // One run in a pseudo-terminal, typing `answers` at each prompt; all it wrote.
    let run_pty = |name: &'static str, answers: [&'static str; 2]| {
        let (url, cfg) = (url.clone(), cfg.clone());
        tokio::task::spawn_blocking(move || {
            let pair = native_pty_system()
                .openpty(PtySize { rows: 24, cols: 100, pixel_width: 0, pixel_height: 0 })
                .expect("open a pseudo-terminal");
            let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_gin"));
            cmd.args(["account", "create", name, "--server", &url]);
            cmd.env("GIN_CONFIG_DIR", &cfg);
            let mut child = pair.slave.spawn_command(cmd).expect("start gin");
            drop(pair.slave);
            let mut reader = pair.master.try_clone_reader().unwrap();
            let mut keys = pair.master.take_writer().unwrap();
            let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
            let s2 = seen.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    s2.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
            let wait_for = |what: &str| {
                let start = Instant::now();
                while !seen.lock().unwrap().contains(what) {
                    assert!(
                        start.elapsed() < Duration::from_secs(20),
                        "no {what:?} in {:?}",
                        seen.lock().unwrap()
                    );
                    std::thread::sleep(Duration::from_millis(20));
                }
            };
            wait_for(&format!("password for {name}: "));
            write!(keys, "{}\r", answers[0]).unwrap();
            wait_for("the same again: ");
            write!(keys, "{}\r", answers[1]).unwrap();
            let status = child.wait().unwrap();
            std::thread::sleep(Duration::from_millis(100));
            let text = seen.lock().unwrap().clone();
            drop(pair.master);
            (status.success(), text)
        })
    };
    let (ok, text) = run_pty("carol", ["pw-one-1234", "pw-one-1234"]).await.unwrap();
    assert!(ok, "{text}");
    assert!(text.contains("created carol (person)"), "{text}");
    assert!(!text.contains("pw-one"), "the password is not echoed: {text:?}");
    assert_eq!(fake.state.lock().unwrap().accounts["carol"].1, "pw-one-1234");

    let (ok, text) = run_pty("dave", ["pw-two-1234", "pw-other-12"]).await.unwrap();
    assert!(!ok, "{text}");
    assert!(text.contains("gin: error: the two passwords differ"), "{text}");
    assert!(!fake.state.lock().unwrap().accounts.contains_key("dave"));
}
