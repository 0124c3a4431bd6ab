//! End to end with a real server (in this process, on a temporary SQLite file): `gin play
//! --create --rated` creates a rated game signed in (refused signed out), another account
//! joins it and both play it to its end (gin-sdk, `simple` against `random`); then `gin
//! profile` shows both accounts' ratings moved (the winner's above 1500, the loser's below),
//! provisional, with the game in their history, `gin leaderboard` keeps provisional ratings
//! off the board, and an unknown pool or name is refused with the server's words. Two
//! accounts that played until both ratings are established are ranked on the leaderboard
//! (best first, the bot marked, paged) and in their profiles. `gin play --create --rated`
//! makes a rated game at two-player gin and at tables (a guest is refused a seat) and refuses
//! custom rules.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use gin_proto::v1 as pb;

use crate::common::Server;

/// Runs `gin` with its config folder `cfg`.
async fn gin(cfg: &Path, args: &[&str]) -> Output {
    let cfg = cfg.to_path_buf();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_gin"))
            .args(&args)
            .env("GIN_CONFIG_DIR", &cfg)
            .env_remove("GIN_ACCOUNT_TOKEN")
            .env_remove("GIN_SERVER")
            .stdin(Stdio::null())
            .output()
            .expect("run gin")
    })
    .await
    .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The kept token of the account signed in with config folder `cfg` on `url`.
fn token(cfg: &Path, url: &str) -> String {
    gin_client_cli::creds::Store::at(cfg.to_path_buf()).get(url).unwrap().expect("signed in").token
}

/// The line of `out` starting with `first` (a table's row), split into its columns.
fn row<'a>(out: &'a str, first: &str) -> Vec<&'a str> {
    let line = out
        .lines()
        .find(|l| l.split("  ").next() == Some(first))
        .unwrap_or_else(|| panic!("no line starting with {first:?} in\n{out}"));
    line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_game_from_the_terminal_moves_both_ratings_seen_in_profile_and_leaderboard() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let (ann, bob, nobody) = (dir.path().join("ann"), dir.path().join("bob"), dir.path().join("nobody"));
    let o = gin(&ann, &["account", "create", "Ann", "--bot", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let o = gin(&bob, &["account", "create", "Bob", "--no-password", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");

    // Signed out: refused before anything is created.
    let o = gin(&nobody, &["play", "--create", "--rated", "--plain", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        text(&o.stderr).contains("--rated: a rated game is between signed-in accounts"),
        "{}",
        text(&o.stderr)
    );
    let o =
        gin(&ann, &["play", "--create", "--rated", "--plain", "--rules", "no-such.toml", "--server", &url])
            .await;
    assert_ne!(o.status.code(), Some(0), "{o:?}");
    let sdk = gin_sdk::Client::connect(&url).await.unwrap();
    assert!(sdk.list_games().await.unwrap().is_empty(), "nothing created");

    // Created rated by Ann (the plain client leaves at the end of its input, the seat kept).
    let o = gin(&ann, &["play", "--create", "--rated", "--plain", "--server", &url]).await;
    let out = text(&o.stdout);
    let game = out
        .lines()
        .find_map(|l| l.strip_prefix("game id: "))
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no game id: {o:?}"))
        .to_string();
    let (ann_token, bob_token) = (token(&ann, &url), token(&bob, &url));
    // Bob joins as his account; both accounts play it to its end.
    let bob_sdk = sdk.clone().with_account_token(Some(bob_token.clone()));
    bob_sdk
        .join_table(pb::JoinGameRequest { game_id: game.clone(), ..Default::default() })
        .await
        .expect("Bob joins the rated game");
    let (g, t, other) = (game.clone(), bob_token.clone(), sdk.clone());
    let theirs = tokio::spawn(async move {
        let mut s = gin_strategies::random::RandomStrategy::new(3);
        other.play(&g, &t, &mut s).await.unwrap()
    });
    let mut mine = gin_strategies::simple::SimpleStrategy::new(1);
    let o = sdk.play(&game, &ann_token, &mut mine).await.unwrap();
    theirs.await.unwrap();
    let winner = o.result.winner.expect("a winner");
    let (win, lose) = if winner == 0 { ("Ann", "Bob") } else { ("Bob", "Ann") };

    // The profiles: each rating moved, provisional, the game in the history against the other.
    for (name, won) in [(win, true), (lose, false)] {
        let o = gin(&nobody, &["profile", &name.to_lowercase(), "--server", &url]).await;
        assert!(o.status.success(), "{o:?}");
        let out = text(&o.stdout);
        let kind = if name == "Ann" { "bot" } else { "person" };
        assert!(out.starts_with(&format!("{name} ({kind}), since ")), "{out}");
        assert!(out.lines().next().unwrap().ends_with("; 1 game finished"), "{out}");
        let r = row(&out, "gin/standard");
        let rating: f64 = r[1].parse().unwrap();
        assert_eq!(won, rating > 1500.0, "{name} won: {won}\n{out}");
        assert_ne!(rating, 1500.0, "{out}");
        let exact = sdk.player_ratings(name).await.unwrap().ratings[0].clone();
        assert_eq!(r[1], format!("{:.0}", exact.rating), "{out}");
        assert_eq!(r[2], format!("±{:.0}", exact.deviation), "{out}");
        assert_eq!(&r[3..], ["1", "provisional"], "{out}");
        assert!(out.contains("gin/standard, newest first:"), "{out}");
        let h = row(&out, &game);
        assert_eq!(h[2], if won { "1" } else { "2" }, "{out}");
        assert_eq!(h[3], format!("1500 → {rating:.0}"), "{out}");
        let other = if name == win { lose } else { win };
        assert_eq!(h[4], other, "{out}");
    }
    // --pool: that pool's history; JSON holds the same.
    let o = gin(&nobody, &["profile", "Ann", "--pool", "gin/standard", "--json", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["account"]["kind"], "bot");
    assert_eq!(v["ratings"][0]["provisional"], true);
    assert_eq!(v["history"][0]["changes"][0]["game_id"], game.as_str());
    assert_eq!(v["history"][0]["changes"][0]["opponents"][0], "Bob");
    // Another pool: no rated games there.
    let o = gin(&nobody, &["profile", "Ann", "--pool", "rummy/3", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    assert!(text(&o.stdout).contains("rummy/3: no rated games"), "{o:?}");

    // The leaderboard keeps provisional ratings off.
    for args in [&["leaderboard", "--pool", "gin/standard"][..], &["leaderboard"][..]] {
        let o = gin(&nobody, &[args, &["--server", &url]].concat()).await;
        assert!(o.status.success(), "{o:?}");
        let out = text(&o.stdout);
        assert!(
            out.starts_with("leaderboard gin/standard: 0 established ratings\nno established ratings yet"),
            "{out}"
        );
        assert!(!out.contains("Ann") && !out.contains("Bob"), "{out}");
    }
    let o = gin(&nobody, &["leaderboard", "--rules", "oklahoma", "--server", &url]).await;
    assert!(text(&o.stdout).starts_with("leaderboard gin/oklahoma: 0"), "{o:?}");

    // Refused: an unknown pool, an unknown name, a rules name that is no preset.
    let o = gin(&nobody, &["leaderboard", "--pool", "gin/nope", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = text(&o.stderr);
    assert!(err.starts_with("gin: error: the leaderboard of gin/nope: "), "{err}");
    assert!(err.contains("no pool \"gin/nope\"") && err.contains("gin/standard"), "{err}");
    let o = gin(&nobody, &["profile", "Nobody", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = text(&o.stderr);
    assert!(err.starts_with("gin: error: the profile of Nobody: ") && err.contains("no account"), "{err}");
    let o = gin(&nobody, &["profile", "Ann", "--pool", "gin/nope", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("no pool"), "{o:?}");
    let o = gin(&nobody, &["leaderboard", "--rules", "nope", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("--rules nope: not a gin preset"), "{o:?}");
    server.stop().await;
}

/// Runs `gin play --create …` with config folder `cfg` until it prints the game's id, then
/// stops it (at a table, the plain client waits for its turn before it reads its input): the
/// id.
async fn created(cfg: &Path, args: &[&str]) -> String {
    use std::io::BufRead;
    let cfg = cfg.to_path_buf();
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gin"))
            .args(&args)
            .env("GIN_CONFIG_DIR", &cfg)
            .env_remove("GIN_ACCOUNT_TOKEN")
            .env_remove("GIN_SERVER")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("run gin");
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        let id = out.lines().map_while(Result::ok).find_map(|l| {
            l.strip_prefix("game id: ").map(|r| r.split_whitespace().next().unwrap().to_string())
        });
        let _ = child.kill();
        let _ = child.wait();
        id.unwrap_or_else(|| panic!("{args:?}: no game id"))
    })
    .await
    .unwrap()
}

/// A rated game of `standard` created by `a` (an account's client) and joined by `b`,
/// played to its end by `simple` strategies seeded `seed` and `seed + 1`.
async fn play_rated(a: &gin_sdk::Client, b: &gin_sdk::Client, seed: u64) {
    let s = a
        .create_game(pb::CreateGameRequest {
            rules: Some(gin_sdk::preset("standard")),
            rated: true,
            ..Default::default()
        })
        .await
        .unwrap();
    let j =
        b.join_table(pb::JoinGameRequest { game_id: s.game_id.clone(), ..Default::default() }).await.unwrap();
    let (g, t, other) = (s.game_id.clone(), j.token.clone(), b.clone());
    let theirs = tokio::spawn(async move {
        let mut st = gin_strategies::simple::SimpleStrategy::new(seed + 1);
        other.play(&g, &t, &mut st).await.unwrap()
    });
    let mut st = gin_strategies::simple::SimpleStrategy::new(seed);
    a.play(&s.game_id, &s.token, &mut st).await.unwrap();
    theirs.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn established_ratings_are_ranked_on_the_leaderboard_and_in_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let (cy, dee, nobody) = (dir.path().join("cy"), dir.path().join("dee"), dir.path().join("nobody"));
    let o = gin(&cy, &["account", "create", "Cy", "--bot", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let o = gin(&dee, &["account", "create", "Dee", "--no-password", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let sdk = gin_sdk::Client::connect(&url).await.unwrap();
    let a = sdk.clone().with_account_token(Some(token(&cy, &url)));
    let b = sdk.clone().with_account_token(Some(token(&dee, &url)));

    // Rated games until both ratings are established (each game alternating who creates).
    let mut games = 0u64;
    loop {
        let r = sdk.player_ratings("Cy").await.unwrap();
        let s = sdk.player_ratings("Dee").await.unwrap();
        if games > 0 && !r.ratings[0].provisional && !s.ratings[0].provisional {
            break;
        }
        assert!(games < 60, "still provisional after {games} games: {r:?} {s:?}");
        if games.is_multiple_of(2) {
            play_rated(&a, &b, games).await
        } else {
            play_rated(&b, &a, games).await
        }
        games += 1;
    }
    let mut both = [
        sdk.player_ratings("Cy").await.unwrap().ratings[0].clone(),
        sdk.player_ratings("Dee").await.unwrap().ratings[0].clone(),
    ];
    let names = ["Cy (bot)", "Dee"];
    let (first, second) = if both[0].rating >= both[1].rating { (0, 1) } else { (1, 0) };

    // The leaderboard (it may trail a game's end by a moment).
    let mut out = String::new();
    for _ in 0..40 {
        let o = gin(&nobody, &["leaderboard", "--pool", "gin/standard", "--server", &url]).await;
        assert!(o.status.success(), "{o:?}");
        out = text(&o.stdout);
        if out.starts_with("leaderboard gin/standard: 2 established ratings\n") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(out.starts_with("leaderboard gin/standard: 2 established ratings\n"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(
        lines[1].split_whitespace().collect::<Vec<_>>(),
        ["RANK", "NAME", "RATING", "DEVIATION", "GAMES"]
    );
    // Ranked best first: the ratings rounded, the deviations, the games; the bot marked.
    both = [
        sdk.player_ratings("Cy").await.unwrap().ratings[0].clone(),
        sdk.player_ratings("Dee").await.unwrap().ratings[0].clone(),
    ];
    for (line, (rank, k)) in lines[2..].iter().zip([(1, first), (2, second)]) {
        let cols: Vec<&str> = line.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        let want = [
            rank.to_string(),
            names[k].to_string(),
            format!("{:.0}", both[k].rating),
            format!("±{:.0}", both[k].deviation),
            games.to_string(),
        ];
        assert_eq!(cols, want, "{out}");
    }
    // A page of one, then the next.
    let o = gin(&nobody, &["leaderboard", "--limit", "1", "--server", &url]).await;
    let out = text(&o.stdout);
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.lines().nth(2).unwrap().starts_with(&format!("1     {}", names[first])), "{out}");
    assert!(text(&o.stderr).contains("more: gin leaderboard --pool gin/standard --offset 1"), "{o:?}");
    let o = gin(&nobody, &["leaderboard", "--offset", "1", "--json", "--server", &url]).await;
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["total"], 2);
    assert_eq!(v["lines"].as_array().unwrap().len(), 1);
    assert_eq!(v["lines"][0]["rank"], 2);
    assert_eq!(v["lines"][0]["name"], ["Cy", "Dee"][second]);
    assert_eq!(v["lines"][0]["kind"], ["bot", "person"][second]);

    // The profiles show the ranks instead of "provisional", and the newest five games.
    for (k, rank) in [(first, "#1"), (second, "#2")] {
        let name = ["Cy", "Dee"][k];
        let o = gin(&nobody, &["profile", name, "--server", &url]).await;
        assert!(o.status.success(), "{o:?}");
        let out = text(&o.stdout);
        let r = row(&out, "gin/standard");
        assert_eq!(r[3..], [games.to_string().as_str(), rank], "{out}");
        assert!(!out.contains("provisional"), "{out}");
        let history: Vec<&str> =
            out.lines().skip_while(|l| !l.starts_with("gin/standard, newest first:")).collect();
        assert_eq!(history.len(), 2 + 5, "a heading, the columns, five games: {out}");
        assert!(text(&o.stderr).contains(&format!("more: gin profile {name} --pool POOL")), "{o:?}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gin_play_create_rated_makes_a_rated_game_at_every_format_and_refuses_custom_rules() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("g.db")).await;
    let url = server.url();
    let ann = dir.path().join("ann");
    let o = gin(&ann, &["account", "create", "Ann", "--bot", "--server", &url]).await;
    assert!(o.status.success(), "{o:?}");
    let sdk = gin_sdk::Client::connect(&url).await.unwrap();

    // Custom rules are casual: refused here, nothing created.
    let file = dir.path().join("house.toml");
    let mut rules = engine::RuleSet::standard();
    rules.gin_bonus += 1;
    std::fs::write(&file, rules.to_toml()).unwrap();
    let o = gin(
        &ann,
        &["play", "--create", "--rated", "--plain", "--rules", file.to_str().unwrap(), "--server", &url],
    )
    .await;
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(text(&o.stderr).contains("--rated: custom rules are casual"), "{o:?}");
    // A usage error: --rated is for --create.
    let o = gin(&ann, &["play", "--rated", "--plain", "--server", &url]).await;
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(sdk.list_games().await.unwrap().is_empty(), "nothing created");

    // Rated at two-player gin and at tables: a guest is refused a seat (a casual game takes one).
    for args in [&[][..], &["--rules", "three-player"][..], &["--rules", "rummy", "--players", "3"][..]] {
        let base = ["play", "--create", "--rated", "--plain", "--server", &url];
        let game = created(&ann, &[&base[..], args].concat()).await;
        let e = sdk
            .join_table(pb::JoinGameRequest {
                game_id: game.clone(),
                name: "guest".into(),
                ..Default::default()
            })
            .await
            .expect_err("a guest at a rated game");
        assert!(
            gin_client_cli::net::explain(&e).contains("rated game seats signed-in accounts only"),
            "{args:?}: {e:?}"
        );
    }
    // Without --rated, a guest takes a seat.
    let game =
        created(&ann, &["play", "--create", "--plain", "--rules", "three-player", "--server", &url]).await;
    sdk.join_table(pb::JoinGameRequest { game_id: game, name: "guest".into(), ..Default::default() })
        .await
        .expect("a guest at a casual game");
    server.stop().await;
}
