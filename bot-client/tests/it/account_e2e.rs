//! End to end with a real server: `gin-bot account create` makes a bot account whose token
//! (printed once) signs in as a bot.

use std::time::Duration;

use gin_proto::v1 as pb;
use gin_sdk::Client;

use crate::common::Server;

async fn gin_bot(args: &[&str], env: &[(&str, &str)]) -> (String, String, bool) {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_gin-bot"));
    cmd.args(args).env_remove("GIN_ACCOUNT_TOKEN").kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
        .await
        .expect("gin-bot finished")
        .unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.success())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_create_makes_a_bot_account_on_a_real_server() {
    let server = Server::start().await;
    let url = server.url();
    let (token, err, ok) = gin_bot(&["account", "create", "Robo", "--server", &url], &[]).await;
    assert!(ok, "{err}");
    let token = token.trim().to_string();
    assert!(gin_sdk::is_account_token(&token), "{token:?}");
    let me = Client::connect(&url).await.unwrap().with_account_token(Some(token));
    let w = me.who_am_i().await.unwrap();
    let a = w.account.unwrap();
    assert_eq!((a.name.as_str(), a.kind, a.has_password), ("Robo", pb::AccountKind::Bot as i32, false));
    assert_eq!(w.token.unwrap().label, "gin-bot");
    // The name is taken now.
    let (_, err, ok) = gin_bot(&["account", "create", "robo", "--server", &url], &[]).await;
    assert!(!ok && err.starts_with("gin-bot: error: creating bot account robo: "), "{err}");
    server.stop().await;
}
