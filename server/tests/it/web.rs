//! The web page: served on the gRPC port to plain HTTP requests (over a real socket), and
//! played in a real browser (Debian's Chromium, headless, driven by `server/web/test/browser.mjs`).

use std::io::{Read, Write};
use std::path::Path;
use std::time::Duration;

use gin_proto::v1 as pb;
use gin_proto::v1::lobby_service_client::LobbyServiceClient;

use crate::common::TestServer;

/// One HTTP/1.1 request on a fresh connection: (status, headers lower-cased, body).
pub(crate) fn http(addr: std::net::SocketAddr, request: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    conn.write_all(request.as_bytes()).unwrap();
    let mut raw = Vec::new();
    conn.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let body = raw[split + 4..].to_vec();
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body)
}

pub(crate) fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn get(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    extra: &str,
) -> (u16, Vec<(String, String)>, Vec<u8>) {
    http(addr, &format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Connection: close\r\n\r\n"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_on_the_grpc_port() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let addr = server.addr;
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/dist");
    let (status, headers, body) =
        tokio::task::spawn_blocking(move || get(addr, "GET", "/", "")).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-type"), Some("text/html; charset=utf-8"));
    assert_eq!(body, std::fs::read(dist.join("index.html")).unwrap());
    assert!(String::from_utf8_lossy(&body).contains(r#"<script type="module" src="/app.js">"#));
    let etag = header(&headers, "etag").expect("an ETag").to_string();

    for (path, file, ct) in [
        ("/app.js", "app.js", "text/javascript"),
        ("/app.css", "app.css", "text/css"),
        ("/index.html", "index.html", "text/html"),
    ] {
        let (status, headers, body) =
            tokio::task::spawn_blocking(move || get(addr, "GET", path, "")).await.unwrap();
        assert_eq!(status, 200, "{path}");
        assert!(header(&headers, "content-type").unwrap().starts_with(ct), "{path}: {headers:?}");
        assert_eq!(body, std::fs::read(dist.join(file)).unwrap(), "{path}");
        assert_eq!(header(&headers, "content-length"), Some(body.len().to_string().as_str()));
    }
    // The icon, at the address the page names and at the one browsers ask for unprompted.
    for path in ["/favicon.svg", "/favicon.ico"] {
        let (status, headers, body) =
            tokio::task::spawn_blocking(move || get(addr, "GET", path, "")).await.unwrap();
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&headers, "content-type"), Some("image/svg+xml"), "{path}");
        assert_eq!(body, std::fs::read(dist.join("favicon.svg")).unwrap(), "{path}");
    }
    // Revalidation: the same ETag is 304 with no body; another is the file.
    let inm = format!("If-None-Match: {etag}\r\n");
    let (status, _, body) = tokio::task::spawn_blocking(move || get(addr, "GET", "/", &inm)).await.unwrap();
    assert_eq!((status, body.len()), (304, 0));
    let (status, _, body) =
        tokio::task::spawn_blocking(move || get(addr, "GET", "/", "If-None-Match: \"other\"\r\n"))
            .await
            .unwrap();
    assert_eq!(status, 200);
    assert!(!body.is_empty());
    // HEAD: the headers, no body.
    let (status, headers, body) =
        tokio::task::spawn_blocking(move || get(addr, "HEAD", "/app.js", "")).await.unwrap();
    assert_eq!(status, 200);
    assert!(body.is_empty());
    assert_eq!(
        header(&headers, "content-length").unwrap(),
        std::fs::metadata(Path::new(env!("CARGO_MANIFEST_DIR")).join("web/dist/app.js"))
            .unwrap()
            .len()
            .to_string()
    );
    // Anything else is 404, and a POST to a page path is not the page.
    let (status, _, body) =
        tokio::task::spawn_blocking(move || get(addr, "GET", "/secret.db", "")).await.unwrap();
    assert_eq!(status, 404);
    assert!(String::from_utf8_lossy(&body).contains("the page is at /"));
    let (status, headers, _) =
        tokio::task::spawn_blocking(move || get(addr, "POST", "/", "Content-Length: 0\r\n")).await.unwrap();
    assert!(
        status != 200 || header(&headers, "content-type").is_some_and(|c| c.starts_with("application/grpc"))
    );

    // gRPC goes on answering on the same port.
    let games = LobbyServiceClient::new(ch).list_games(pb::ListGamesRequest::default()).await.unwrap();
    assert!(games.into_inner().games.is_empty());
    server.stop().await;
}

/// The page's files count against the caller's address under the server's rate limit, the
/// same budget as its calls without a seat token: over it, 429 with when to come back (and a
/// gRPC call from that address is refused too); after that wait, the page is served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_requests_are_under_the_rate_limit() {
    let dir = tempfile::tempdir().unwrap();
    // One request a second, a burst of two: a refill every second, far longer than a request.
    let cfg =
        gin_server::Config { db: dir.path().join("g.db"), rate_per_sec: 1, ..gin_server::Config::default() };
    let server = TestServer::start_with(cfg).await;
    let addr = server.addr;
    let ch = server.channel().await;
    let fetch = move |path: &'static str| tokio::task::spawn_blocking(move || get(addr, "GET", path, ""));
    let start = std::time::Instant::now();
    let mut served = 0;
    let refused = loop {
        let (status, headers, body) = fetch("/app.css").await.unwrap();
        if status != 200 {
            break (status, headers, body);
        }
        served += 1;
        assert!(served < 20, "20 page requests in a row served at 1 request/s");
    };
    // The burst (two), and at most one more per second gone by.
    assert!(served >= 2 && served <= 2 + start.elapsed().as_secs() as usize + 1, "{served} served");
    let (status, headers, body) = refused;
    assert_eq!(status, 429);
    let ms: u64 = header(&headers, "retry-after-ms").expect("retry-after-ms").parse().unwrap();
    assert!((1..=1001).contains(&ms), "{ms}");
    assert_eq!(header(&headers, "retry-after"), Some("1"));
    assert!(String::from_utf8_lossy(&body).contains("rate limit"));
    // The same address's calls share the budget.
    let call = LobbyServiceClient::new(ch.clone()).list_games(pb::ListGamesRequest::default()).await;
    assert_eq!(call.unwrap_err().code(), tonic::Code::ResourceExhausted);
    // Once the wait is over, the page again.
    tokio::time::sleep(Duration::from_millis(ms + 50)).await;
    let (status, _, body) = fetch("/").await.unwrap();
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("/app.js"));
    server.stop().await;
}

/// A client that accepts gzip gets each file gzipped, under an ETag of its own; one that
/// does not (or refuses it with `q=0`) gets the file as it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_goes_gzipped_to_a_client_that_accepts_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let addr = server.addr;
    let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/dist");
    let fetch = move |method: &'static str, path: &'static str, extra: String| {
        tokio::task::spawn_blocking(move || get(addr, method, path, &extra))
    };
    let gunzip = |body: &[u8]| {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(body).read_to_end(&mut out).expect("a gzip body");
        out
    };
    let (_, plain, _) = fetch("GET", "/app.js", String::new()).await.unwrap();
    let plain_etag = header(&plain, "etag").unwrap().to_string();
    assert_eq!(header(&plain, "content-encoding"), None);
    assert_eq!(header(&plain, "vary"), Some("accept-encoding"));

    let original = std::fs::read(dist.join("app.js")).unwrap();
    let (status, headers, body) =
        fetch("GET", "/app.js", "Accept-Encoding: gzip, deflate, br\r\n".into()).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(header(&headers, "content-encoding"), Some("gzip"));
    assert_eq!(header(&headers, "vary"), Some("accept-encoding"));
    assert!(header(&headers, "content-type").unwrap().starts_with("text/javascript"));
    assert_eq!(header(&headers, "content-length"), Some(body.len().to_string().as_str()));
    assert_eq!(gunzip(&body), original);
    assert!(body.len() * 3 < original.len(), "{} gzipped bytes for {}", body.len(), original.len());
    let gz_etag = header(&headers, "etag").unwrap().to_string();
    assert_ne!(gz_etag, plain_etag);

    // Revalidation by the gzip ETag; the identity ETag does not match the gzip variant.
    let (status, _, body) =
        fetch("GET", "/app.js", format!("Accept-Encoding: gzip\r\nIf-None-Match: {gz_etag}\r\n"))
            .await
            .unwrap();
    assert_eq!((status, body.len()), (304, 0));
    let (status, _, body) =
        fetch("GET", "/app.js", format!("Accept-Encoding: gzip\r\nIf-None-Match: {plain_etag}\r\n"))
            .await
            .unwrap();
    assert_eq!(status, 200);
    assert_eq!(gunzip(&body), original);
    // HEAD: the gzipped length.
    let (status, headers, body) = fetch("HEAD", "/app.js", "Accept-Encoding: gzip\r\n".into()).await.unwrap();
    assert_eq!((status, body.len()), (200, 0));
    assert_eq!(header(&headers, "content-encoding"), Some("gzip"));
    assert!(header(&headers, "content-length").unwrap().parse::<usize>().unwrap() * 3 < original.len());

    // Refused or not offered: the file as it is.
    for extra in
        ["Accept-Encoding: gzip;q=0, *\r\n", "Accept-Encoding: br\r\n", "Accept-Encoding: identity\r\n"]
    {
        let (status, headers, body) = fetch("GET", "/app.js", extra.into()).await.unwrap();
        assert_eq!(status, 200, "{extra}");
        assert_eq!(header(&headers, "content-encoding"), None, "{extra}");
        assert_eq!(body, original, "{extra}");
    }
    // A wildcard takes gzip; every file has its gzip variant.
    for (path, file) in [("/", "index.html"), ("/app.css", "app.css"), ("/app.js", "app.js")] {
        let (status, headers, body) = fetch("GET", path, "Accept-Encoding: *\r\n".into()).await.unwrap();
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&headers, "content-encoding"), Some("gzip"), "{path}");
        assert_eq!(gunzip(&body), std::fs::read(dist.join(file)).unwrap(), "{path}");
    }
    server.stop().await;
}

/// Whether the browser test can run here: Node, the page's npm packages and Chromium. Under
/// `GIN_REQUIRE_BROWSER=1` (CI) a missing part fails the test instead of skipping it.
pub(crate) fn browser_parts() -> Option<std::path::PathBuf> {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let node = std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    let missing: Vec<&str> = [
        (!node).then_some("node"),
        (!web.join("node_modules/puppeteer-core").exists())
            .then_some("server/web/node_modules (npm ci --prefix server/web)"),
        (!Path::new(&chromium).exists()).then_some("chromium (apt-get install chromium)"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if missing.is_empty() {
        return Some(web);
    }
    assert!(
        std::env::var("GIN_REQUIRE_BROWSER").as_deref() != Ok("1"),
        "GIN_REQUIRE_BROWSER=1 but missing: {}",
        missing.join(", ")
    );
    eprintln!("skipped: the browser test needs {}", missing.join(", "));
    None
}

/// Runs `node <args>` in `web`, its output lines passed to `on_line` as they come (which may
/// answer on the script's stdin); (success, stdout, stderr).
pub(crate) async fn node_script<F, Fut>(
    web: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    mut on_line: F,
) -> (bool, String, String)
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Option<String>>,
{
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let mut child = tokio::process::Command::new("node")
        .args(args)
        .envs(env.iter().copied())
        .current_dir(web)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let err = tokio::spawn(async move {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s).await;
        s
    });
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut out = String::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        out.push_str(&line);
        out.push('\n');
        if let Some(answer) = on_line(line).await {
            stdin.write_all(answer.as_bytes()).await.unwrap();
            stdin.flush().await.unwrap();
        }
    }
    drop(stdin);
    let ok = child.wait().await.unwrap().success();
    (ok, out, err.await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_plays_a_whole_game_by_clicks_while_another_watches() {
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The server's own rate limit (a page reads a snapshot after every event).
    let cfg = || gin_server::Config { db: dir.path().join("g.db"), ..gin_server::Config::default() };
    let server = TestServer::start_with(cfg()).await;
    let _ = server.channel().await;
    let addr = server.addr;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let url = format!("{}/", server.url());
    let shots_arg = shots.display().to_string();
    let server = std::sync::Arc::new(tokio::sync::Mutex::new(Some(server)));
    let restarts = std::sync::atomic::AtomicUsize::new(0);
    let (ok, stdout, stderr) =
        node_script(&web, &["test/browser.mjs", &url, &shots_arg], &[("GIN_TEST_RESTART", "1")], |line| {
            let server = server.clone();
            let restarts = &restarts;
            let cfg = cfg();
            async move {
                if line != "restart the server" {
                    return None;
                }
                // Stopped (every stream cut), then started again at its address on its database.
                let old = server.lock().await.take().unwrap();
                old.stop().await;
                let new = TestServer::start_at(addr, cfg).await;
                let _ = new.channel().await;
                *server.lock().await = Some(new);
                restarts.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Some("restarted\n".into())
            }
        })
        .await;
    assert!(ok && stdout.contains("browser test passed"), "{stdout}\n{stderr}");
    assert_eq!(restarts.into_inner(), 1, "{stdout}");
    assert!(stdout.contains("the page resumed after the restart"), "{stdout}");
    assert!(stdout.contains("by dragging it onto the pile"), "{stdout}");
    assert!(stdout.contains("results held until continued"), "{stdout}");
    assert!(stdout.contains("Game over: ada (you) "), "{stdout}");
    assert!(stdout.contains("shared and joined by link; resigned"), "{stdout}");
    assert!(stdout.contains("quick match paired two browsers"), "{stdout}");
    assert!(stdout.contains("rummy: ") && stdout.contains("verified: All "), "{stdout}");
    eprintln!("{stdout}");
    for shot in [
        "lobby",
        "game",
        "watch-phone",
        "game-over",
        "watch-over-phone",
        "verified",
        "rummy-over",
        "lobby-phone",
        "hand-over",
    ] {
        let len = std::fs::metadata(shots.join(format!("{shot}.png"))).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "screenshot {shot}.png: {len} bytes");
    }
    eprintln!("screenshots in {}", shots.display());
    let server = server.lock().await.take().unwrap();
    server.stop().await;
}

/// The page as a person plays it (`server/web/test/person.mjs`): on a phone by touch, the
/// result of a hand held until Continue, a refused discard's reason on the screen, the hand's
/// order, a drag by touch, a discard answered UNAVAILABLE sent again; at a desktop, the game's
/// stream answered UNAVAILABLE and opened again, gin for three at one table to its end with a
/// hand's result held, its totals named and explained. Nothing the page asks for is missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_on_a_phone_by_touch_and_at_a_desktop() {
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    // Gin for three at one table, two hands, against two house bots: the page plays seat 0.
    // Two spares of the same, for when a game's hands all end between the page's updates.
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let mut args =
        vec!["test/person.mjs".to_string(), format!("{}/", server.url()), shots.display().to_string()];
    for _ in 0..3 {
        let made = LobbyServiceClient::new(ch.clone())
            .create_game(pb::CreateGameRequest {
                format: r#"{"kind":"gin-7","players":3,"end":{"hands":2}}"#.into(),
                join: true,
                name: "ada".into(),
                house_bot: "simple".into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        args.extend([made.game_id, made.seat.unwrap_or(0).to_string(), made.seat_token]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, stdout, stderr) = node_script(&web, &args, &[], |_| async { None }).await;
    assert!(ok && stdout.contains("person test passed"), "{stdout}\n{stderr}");
    for line in [
        "was just taken from the pile: discard another card",
        "by dragging it onto the pile with a finger",
        "a discard answered UNAVAILABLE was sent again and played",
        "the game's stream, answered UNAVAILABLE, was opened again",
        "held the result until continued",
        "(net: points won minus penalties; the highest wins)",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    eprintln!("{stdout}");
    for shot in ["hand-over-phone", "refused-phone", "hand-over-desktop", "gin7-over-desktop"] {
        let len = std::fs::metadata(shots.join(format!("{shot}.png"))).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "screenshot {shot}.png: {len} bytes");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_follows_a_tournament_live_to_its_standings() {
    use std::io::BufRead;

    use crate::tournament::{Policy, run_entrant, spec};
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut s = spec(pb::TournamentFormat::RoundRobin, 3, 4);
    s.parallel = 2;
    let tid = crate::common::create_tournament(&ch, s).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    let mut child = std::process::Command::new("node")
        .args(["test/tournament.mjs", &format!("{}/", server.url()), &tid])
        .arg(&shots)
        .arg("3")
        .current_dir(&web)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The page is open on the tournament before anyone enters: it must follow it live.
    let stdout = child.stdout.take().unwrap();
    let (ready_tx, ready_rx) = tokio::sync::oneshot::channel();
    let reader = std::thread::spawn(move || {
        let mut ready = Some(ready_tx);
        let mut lines = Vec::new();
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if line == "page ready"
                && let Some(tx) = ready.take()
            {
                let _ = tx.send(());
            }
            lines.push(line);
        }
        lines
    });
    let opened = tokio::time::timeout(Duration::from_secs(120), ready_rx).await;
    if opened.is_err() || opened.as_ref().is_ok_and(|r| r.is_err()) {
        let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
        panic!("the page never showed the tournament: {}", String::from_utf8_lossy(&out.stderr));
    }
    let runs: Vec<_> = ["ann", "bob", "cy"]
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            // Sensible play (short games), but one random entrant so that the standings differ.
            let policy = if i == 2 { Policy::Random } else { Policy::Sensible };
            tokio::spawn(run_entrant(ch.clone(), tid.clone(), name, None, policy, None))
        })
        .collect();
    for r in runs {
        assert!(r.await.unwrap().finished.is_some(), "every entrant sees the final standings");
    }
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    let lines = reader.join().unwrap().join("\n");
    assert!(
        out.status.success() && lines.contains("tournament page passed"),
        "{lines}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A page opened after the end charts each entrant's whole history: one point per game
    // it played (three entrants, four games per pairing: eight each).
    assert!(lines.contains("a page opened after the end charts 8/8/8 points"), "{lines}");
    // The page's standings name every entrant.
    for name in ["ann", "bob", "cy"] {
        assert!(lines.contains(name), "{lines}");
    }
    assert!(std::fs::metadata(shots.join("tournament-finished.png")).is_ok_and(|m| m.len() > 1000));
    server.stop().await;
}

/// Accounts in the page (`server/web/test/account.mjs`): an account created from the page
/// (its session an HttpOnly cookie the script cannot read), a whole game against a house bot
/// played by clicks as that account, the game on its profile with its opponent, then a sign-out
/// after which the server refuses the cookie's old value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_registers_plays_finds_the_game_on_the_profile_and_signs_out() {
    use gin_proto::v1::account_service_client::AccountServiceClient;
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let url = format!("{}/", server.url());
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let shots_arg = shots.display().to_string();
    let session = std::sync::Mutex::new(None::<String>);
    let args = ["test/account.mjs", &url, "ada", "correct horse battery", &shots_arg];
    let (ok, stdout, stderr) = node_script(&web, &args, &[], |line| {
        let ch = ch.clone();
        let session = &session;
        async move {
            let token = line.strip_prefix("session cookie ")?.to_string();
            // While signed in, the cookie's value is the account's token.
            let me = AccountServiceClient::new(ch)
                .who_am_i(crate::common::authed(pb::WhoAmIRequest {}, &token))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(me.account.unwrap().name, "ada");
            *session.lock().unwrap() = Some(token);
            None
        }
    })
    .await;
    assert!(ok && stdout.contains("account test passed"), "{stdout}\n{stderr}");
    eprintln!("{stdout}");
    for shot in ["signin", "profile"] {
        let len = std::fs::metadata(shots.join(format!("{shot}.png"))).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "screenshot {shot}.png: {len} bytes");
    }
    let token = session.into_inner().unwrap().expect("the script printed the session cookie");
    let refused = AccountServiceClient::new(ch.clone())
        .who_am_i(crate::common::authed(pb::WhoAmIRequest {}, &token))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated, "the session outlived the sign-out");
    // The game is the account's, against the house bot, finished.
    let games = AccountServiceClient::new(ch)
        .list_player_games(pb::ListPlayerGamesRequest { name: "ada".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 1, "{games:?}");
    assert!(games[0].finished_unix_ms > 0 && games[0].seats.iter().any(|s| s.bot), "{games:?}");
    assert!(stdout.contains(&format!("profile lists game {} against ", games[0].game_id)), "{stdout}");
    server.stop().await;
}

/// One's own account in the page (`server/web/test/settings.mjs`): signed in, an API token made
/// (it works while listed, and not once revoked), the password changed (the old cookie and
/// password refused, the new cookie the account: the page still signed in), the data
/// exported as the server keeps it, and the account deleted (then nobody by that name).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_manages_the_account_from_the_page_and_deletes_it() {
    use gin_proto::v1::account_service_client::AccountServiceClient;
    use tonic::Code;
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let ch = server.channel().await;
    let mut accounts = AccountServiceClient::new(ch.clone());
    accounts
        .register(pb::RegisterRequest {
            name: "ada".into(),
            kind: pb::AccountKind::Person as i32,
            password: "correct horse".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let url = format!("{}/", server.url());
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let downloads = dir.path().join("downloads");
    let (shots_arg, downloads_arg) = (shots.display().to_string(), downloads.display().to_string());
    let args =
        ["test/settings.mjs", &url, "ada", "correct horse", "battery staple", &downloads_arg, &shots_arg];
    let seen = std::sync::Mutex::new(Vec::<&str>::new());
    let api = std::sync::Mutex::new(String::new());
    let who = |token: String| {
        let ch = ch.clone();
        async move {
            AccountServiceClient::new(ch)
                .who_am_i(crate::common::authed(pb::WhoAmIRequest {}, &token))
                .await
                .map(|r| r.into_inner().account.unwrap().name)
                .map_err(|s| s.code())
        }
    };
    let (ok, stdout, stderr) = node_script(&web, &args, &[], |line| {
        let (seen, api, who) = (&seen, &api, &who);
        async move {
            if let Some(token) = line.strip_prefix("api token ") {
                // Shown once, it is the account's.
                assert_eq!(who(token.to_string()).await, Ok("ada".to_string()));
                *api.lock().unwrap() = token.to_string();
                seen.lock().unwrap().push("token");
            } else if line == "revoked api token" {
                let token = api.lock().unwrap().clone();
                assert_eq!(who(token).await, Err(Code::Unauthenticated), "revoked from the page");
                seen.lock().unwrap().push("revoked");
            } else if let Some(pair) = line.strip_prefix("session cookie ") {
                let (old, new) = pair.split_once(" -> ").unwrap();
                assert_eq!(who(old.to_string()).await, Err(Code::Unauthenticated), "the old session");
                assert_eq!(who(new.to_string()).await, Ok("ada".to_string()), "the new session");
                seen.lock().unwrap().push("renewed");
            } else if let Some(path) = line.strip_prefix("exported ") {
                let data: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
                assert_eq!(data["account"]["name"], "ada");
                assert_eq!(data["account"]["kind"], "ACCOUNT_KIND_PERSON");
                seen.lock().unwrap().push("exported");
            }
            None
        }
    })
    .await;
    assert!(ok && stdout.contains("settings test passed"), "{stdout}\n{stderr}");
    eprintln!("{stdout}");
    assert_eq!(*seen.lock().unwrap(), ["token", "revoked", "renewed", "exported"]);
    for shot in ["account-token", "account-delete"] {
        let len = std::fs::metadata(shots.join(format!("{shot}.png"))).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "screenshot {shot}.png: {len} bytes");
    }
    // The old password is refused; the account is gone.
    let gone = accounts.get_account(pb::GetAccountRequest { name: "ada".into() }).await.unwrap_err();
    assert_eq!(gone.code(), Code::NotFound, "{gone:?}");
    let signed = accounts
        .sign_in(pb::SignInRequest {
            name: "ada".into(),
            password: "battery staple".into(),
            label: String::new(),
        })
        .await
        .unwrap_err();
    assert_eq!(signed.code(), Code::Unauthenticated);
    server.stop().await;
}

/// Challenges and ratings in the page (`server/web/test/challenge.mjs`): a person registered
/// from the page declines a bot account's challenge and cancels one of its own from the
/// challenges panel, then challenges the bot, from its profile, to a rated game (standard);
/// the bot (gin-sdk, in this process) accepts it and plays, the page goes to the game and the
/// person plays it by clicks to its end. Then the person's profile shows the new rating and its
/// history, and the leaderboard page (the bot and its sparring partner established by rated
/// games seeded first) shows its lines and the person's provisional rating: every value checked
/// against the server's (`GetPlayerRatings`, `GetRatingHistory`, `GetLeaderboard`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_challenges_a_bot_to_a_rated_game_and_sees_the_rating_on_the_profile_and_leaderboard() {
    use gin_proto::v1::rating_service_client::RatingServiceClient;
    use gin_sdk::Client;
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        rate_per_sec: 0,
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    let account = |name: &'static str| {
        let ch = ch.clone();
        async move {
            let guest = Client::from_channel(ch, crate::house::opts());
            let r = guest.register(name, pb::AccountKind::Bot, "", "").await.unwrap();
            (guest.with_account_token(Some(r.token.clone())), r.token)
        }
    };
    let (robo, robo_token) = account("robo").await;
    let (spar, spar_token) = account("sparring").await;
    let mut rs = RatingServiceClient::new(ch.clone());
    let standard = |name: &str| {
        let mut rs = rs.clone();
        let name = name.to_string();
        async move {
            rs.get_player_ratings(pb::GetPlayerRatingsRequest { name })
                .await
                .unwrap()
                .into_inner()
                .ratings
                .into_iter()
                .find(|r| r.pool == "gin/standard")
        }
    };
    let rated_to = |opponent: &str| pb::CreateChallengeRequest {
        opponent: opponent.into(),
        rules: Some(crate::common::preset("standard")),
        rated: true,
        ..Default::default()
    };
    // Rated games between the two bots until both are established (on the leaderboard).
    let started = std::time::Instant::now();
    let mut seeded = 0;
    loop {
        let (a, b) = (standard("robo").await, standard("sparring").await);
        if a.as_ref().is_some_and(|r| !r.provisional) && b.as_ref().is_some_and(|r| !r.provisional) {
            break;
        }
        assert!(seeded < 60, "still provisional after {seeded} games: {a:?} {b:?}");
        let sent = spar.create_challenge(rated_to("robo")).await.unwrap();
        let game = robo.accept_challenge(&sent.challenge_id).await.unwrap().challenge.unwrap().game_id;
        let (x, y) = tokio::join!(
            async {
                let mut s = gin_strategies::simple::SimpleStrategy::new(seeded);
                spar.play(&game, &spar_token, &mut s).await
            },
            async {
                let mut s = gin_strategies::simple::SimpleStrategy::new(seeded + 1000);
                robo.play(&game, &robo_token, &mut s).await
            }
        );
        x.unwrap();
        y.unwrap();
        seeded += 1;
    }
    eprintln!("{seeded} rated games seeded in {:?}", started.elapsed());

    let url = format!("{}/", server.url());
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let shots_arg = shots.display().to_string();
    let args = ["test/challenge.mjs", &url, "ada", "correct horse battery", "robo", &shots_arg];
    let player = std::sync::Mutex::new(None::<tokio::task::JoinHandle<String>>);
    let (ok, stdout, stderr) = node_script(&web, &args, &[], |line| {
        let (robo, robo_token, player) = (robo.clone(), robo_token.clone(), &player);
        async move {
            if line == "registered ada" || line == "declined robo's challenge" {
                // A casual challenge for the person to decline from the panel, then one to accept.
                robo.create_challenge(pb::CreateChallengeRequest {
                    opponent: "ada".into(),
                    rules: Some(crate::common::preset("standard")),
                    ..Default::default()
                })
                .await
                .unwrap();
            } else if line == "challenge sent" {
                // The bot takes the rated challenge (the casual one was cancelled) and plays.
                *player.lock().unwrap() = Some(tokio::spawn(async move {
                    let c = robo.accept_next_challenge(|c| c.rated && c.challenger == "ada").await.unwrap();
                    let mut s = gin_strategies::random::RandomStrategy::new(7);
                    robo.play(&c.game_id, &robo_token, &mut s).await.unwrap();
                    c.game_id
                }));
            }
            None
        }
    })
    .await;
    assert!(ok && stdout.contains("challenge test passed"), "{stdout}\n{stderr}");
    eprintln!("{stdout}");
    let handle = player.lock().unwrap().take().expect("the bot took the challenge");
    let game = handle.await.unwrap();
    assert!(stdout.contains(&format!("game {game}")), "{stdout}");
    assert!(stdout.contains("declined robo's challenge") && stdout.contains("cancelled a casual challenge"));
    assert!(robo.list_challenges().await.unwrap().is_empty(), "every challenge answered");
    // The casual challenge accepted from the panel: its game, the two accounts seated, resigned.
    let casual = stdout
        .lines()
        .find_map(|l| l.strip_prefix("accepted robo's challenge: game ")?.strip_suffix(", resigned"))
        .expect("a challenge accepted from the page");
    assert_ne!(casual, game);
    let mut gc = crate::common::Games::new(ch.clone());
    let snap = crate::common::get_game(&mut gc, casual, "").await;
    let seated: Vec<&str> = snap.seats.iter().map(|s| s.account.as_str()).collect();
    assert!(seated.contains(&"ada") && seated.contains(&"robo"), "{seated:?}");
    assert_eq!(snap.result.as_ref().map(|r| r.reason), Some(pb::GameEndReason::Resigned as i32), "{snap:?}");

    // The profile: the rating as the server has it, not the newcomer's.
    let ada = standard("ada").await.expect("ada is rated in gin/standard");
    assert_eq!(ada.games, 1);
    assert_ne!(ada.rating.round(), 1500.0, "{ada:?}");
    let history = rs
        .get_rating_history(pb::GetRatingHistoryRequest {
            name: "ada".into(),
            pool: "gin/standard".into(),
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(history.changes[0].game_id, game);
    let points: Vec<String> =
        history.changes.iter().rev().map(|c| format!("{}", c.rating_after.round())).collect();
    let rank = match ada.rank {
        Some(r) if !ada.provisional => format!("#{r}"),
        _ => "provisional".into(),
    };
    let want = format!(
        "profile rating gin/standard {} ±{} {} {rank} {}",
        ada.rating.round(),
        ada.deviation.round(),
        ada.games,
        points.join(",")
    );
    assert!(stdout.contains(&want), "{want}: {stdout}");
    // The leaderboard: its lines as the server has them, and the person's own (provisional).
    let board = rs
        .get_leaderboard(pb::GetLeaderboardRequest { pool: "gin/standard".into(), offset: 0, limit: 20 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(board.total, 2, "{board:?}");
    for l in &board.lines {
        let bot = if l.kind == pb::AccountKind::Bot as i32 { " (bot)" } else { "" };
        let want = format!(
            "leaderboard line {}{bot} {} ±{} {} rank {}",
            l.name,
            l.rating.round(),
            l.deviation.round(),
            l.games,
            l.rank
        );
        assert!(stdout.contains(&want), "{want}: {stdout}");
    }
    assert!(ada.provisional);
    let want = format!("leaderboard yours {} ±{} provisional", ada.rating.round(), ada.deviation.round());
    assert!(stdout.contains(&want), "{want}: {stdout}");
    for shot in ["challenge-received", "challenge-sent", "profile-ratings", "leaderboard"] {
        let len = std::fs::metadata(shots.join(format!("{shot}.png"))).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "screenshot {shot}.png: {len} bytes");
    }
    server.stop().await;
}

/// The ladder in the page (`server/web/test/ladder.mjs`): a guest sees the Ladder panel with
/// "Sign in to join"; a person registered from the page joins `gin/standard` from the panel,
/// sees the waiting line (its rating, provisional, one waiting) and leaves (ListLadders: nobody
/// waits); joins again, and a gin-sdk program in this process joins the same pool: the two are
/// seated together, the page goes to the game, the person plays it by clicks to its end, and
/// the profile shows the new rating (checked against `GetPlayerRatings`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_joins_the_ladder_from_the_page_leaves_joins_again_and_plays_a_program() {
    use gin_proto::v1::ladder_service_client::LadderServiceClient;
    use gin_proto::v1::rating_service_client::RatingServiceClient;
    use gin_sdk::Client;
    use gin_sdk::ladder::LadderStop;
    const POOL: &str = "gin/standard";
    let Some(web) = browser_parts() else { return };
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        rate_per_sec: 0,
        ..gin_server::Config::default()
    })
    .await;
    let ch = server.channel().await;
    let guest = Client::from_channel(ch.clone(), crate::house::opts());
    let r = guest.register("lad", pb::AccountKind::Bot, "", "").await.unwrap();
    let lad = guest.with_account_token(Some(r.token));
    // Plays the seat by the seat token the ladder gives (as tests/it/ladder.rs does).
    let seat_player = Client::from_channel(ch.clone(), crate::house::opts());
    let ladders = LadderServiceClient::new(ch.clone());
    let waiting = move || {
        let mut ladders = ladders.clone();
        async move {
            let r = ladders.list_ladders(pb::ListLaddersRequest {}).await.unwrap().into_inner();
            r.pools.iter().find(|p| p.pool == POOL).expect("gin/standard has a ladder").waiting
        }
    };
    // Until `want` wait in the pool (the server sees a closed stream within moments).
    let until = |want: u32| {
        let waiting = waiting.clone();
        async move {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            loop {
                let n = waiting().await;
                if n == want {
                    return;
                }
                assert!(std::time::Instant::now() < deadline, "{n} waiting in {POOL}, not {want}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };

    let url = format!("{}/", server.url());
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let shots_arg = shots.display().to_string();
    let args = ["test/ladder.mjs", &url, "ada", "correct horse battery", &shots_arg];
    let player = std::sync::Mutex::new(None::<tokio::task::JoinHandle<(String, u32)>>);
    let (ok, stdout, stderr) = node_script(&web, &args, &[], |line| {
        let (lad, seat_player, player, until) = (lad.clone(), seat_player.clone(), &player, until);
        async move {
            if line.starts_with("waiting gin/standard") {
                until(1).await;
            } else if line == "left" {
                until(0).await;
            } else if line.starts_with("waiting again") {
                until(1).await;
                // The program joins the same pool; seated with the person, it plays its seat.
                *player.lock().unwrap() = Some(tokio::spawn(async move {
                    let stop = LadderStop::default();
                    let m = lad.join_ladder(POOL, &stop, &mut |_| {}).await.unwrap().expect("matched");
                    let mut s = gin_strategies::simple::SimpleStrategy::new(3);
                    seat_player.play(&m.game_id, &m.seat_token, &mut s).await.unwrap();
                    let names: Vec<&str> = m.seats.iter().map(|s| s.name.as_str()).collect();
                    assert_eq!(names.len(), 2, "{m:?}");
                    assert!(names.contains(&"ada") && names.contains(&"lad"), "{m:?}");
                    (m.game_id, 1 - m.seat)
                }));
            }
            None
        }
    })
    .await;
    assert!(ok && stdout.contains("ladder test passed"), "{stdout}\n{stderr}");
    eprintln!("{stdout}");
    assert!(stdout.contains("guest sees the ladder"), "{stdout}");
    // A newcomer waits at 1500, provisional, alone in the pool.
    for prefix in ["waiting ", "waiting again "] {
        let line = stdout.lines().find(|l| l.starts_with(prefix)).unwrap();
        let fields: Vec<&str> = line[prefix.len()..].split(' ').collect();
        assert_eq!(&fields[..2], &[POOL, "1500"], "{line}");
        assert!(fields[2].starts_with('±'), "{line}");
        assert_eq!(&fields[3..5], &["provisional", "1"], "{line}");
    }
    let handle = player.lock().unwrap().take().expect("the program joined");
    let (game, ada_seat) = handle.await.unwrap();
    assert!(stdout.contains(&format!("game {game}")), "{stdout}");
    // The game: the person in its seat, the program in the other; rated.
    let mut gc = crate::common::Games::new(ch.clone());
    let snap = crate::common::get_game(&mut gc, &game, "").await;
    assert_eq!(snap.seats[ada_seat as usize].account, "ada", "{snap:?}");
    assert!(snap.result.is_some(), "{snap:?}");
    // The profile: the rating as the server has it.
    let ada = RatingServiceClient::new(ch.clone())
        .get_player_ratings(pb::GetPlayerRatingsRequest { name: "ada".into() })
        .await
        .unwrap()
        .into_inner()
        .ratings
        .into_iter()
        .find(|r| r.pool == POOL)
        .expect("ada is rated in gin/standard");
    assert_eq!(ada.games, 1);
    assert_ne!(ada.rating.round(), 1500.0, "{ada:?}");
    let rank = match ada.rank {
        Some(r) if !ada.provisional => format!("#{r}"),
        _ => "provisional".into(),
    };
    let want = format!(
        "profile rating {POOL} {} ±{} {} {rank}",
        ada.rating.round(),
        ada.deviation.round(),
        ada.games
    );
    assert!(stdout.contains(&want), "{want}: {stdout}");
    assert_eq!(waiting().await, 0);
    for shot in ["ladder-waiting", "ladder-game", "ladder-profile"] {
        let len = std::fs::metadata(shots.join(format!("{shot}.png"))).map(|m| m.len()).unwrap_or(0);
        assert!(len > 1000, "screenshot {shot}.png: {len} bytes");
    }
    server.stop().await;
}
