//! The web page's sessions (`/session`, `api::session`): a sign-in or registration sets an
//! `HttpOnly`, `SameSite=Strict` cookie (`Secure` under TLS); a wrong password is answered as
//! an unknown name; a cross-site request is refused and makes nothing; the cookie is the
//! account on the page's gRPC-Web calls; signing out revokes it.

use std::net::SocketAddr;

use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use tonic::Code;

use crate::common::{TestServer, authed};
use crate::web::{header, http};

type Answer = (u16, Vec<(String, String)>, Vec<u8>);

/// `method path` with `body` (JSON) and `extra` header lines, on a fresh connection.
async fn send(addr: SocketAddr, method: &str, path: &str, extra: &str, body: &str) -> Answer {
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    tokio::task::spawn_blocking(move || http(addr, &req)).await.unwrap()
}

const JSON: &str = "Content-Type: application/json\r\n";

fn creds(name: &str, password: &str) -> String {
    serde_json::json!({ "name": name, "password": password }).to_string()
}

/// The session token a `Set-Cookie` holds, and the cookie's attributes.
fn cookie(a: &Answer) -> (String, Vec<String>) {
    let v = header(&a.1, "set-cookie").expect("a Set-Cookie");
    let mut parts = v.split(';').map(|p| p.trim().to_string());
    let first = parts.next().unwrap();
    let token = first.strip_prefix("gin_session=").expect("the session cookie").to_string();
    (token, parts.collect())
}

/// A gRPC-Web WhoAmI as the page sends it (`extra`: its cookie, origin): the answer's body.
async fn who_am_i_web(addr: SocketAddr, extra: &str) -> Vec<u8> {
    let req = format!(
        "POST /gin.v1.AccountService/WhoAmI HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\n{extra}Content-Length: 5\r\nConnection: close\r\n\r\n\0\0\0\0\0"
    );
    let (status, _, body) = tokio::task::spawn_blocking(move || http(addr, &req)).await.unwrap();
    assert_eq!(status, 200);
    body
}

async fn who_am_i(server: &TestServer, token: &str) -> Result<pb::WhoAmIResponse, tonic::Status> {
    let ch = server.channel().await;
    AccountServiceClient::new(ch).who_am_i(authed(pb::WhoAmIRequest {}, token)).await.map(|r| r.into_inner())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_registers_signs_in_and_a_wrong_password_is_an_unknown_name() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let addr = server.addr;
    let made = send(addr, "POST", "/session/register", JSON, &creds("ada", "correct horse")).await;
    assert_eq!(made.0, 200, "{}", String::from_utf8_lossy(&made.2));
    let body: serde_json::Value = serde_json::from_slice(&made.2).unwrap();
    assert_eq!(body, serde_json::json!({ "name": "ada", "kind": "person" }));
    let (token, attrs) = cookie(&made);
    assert!(token.starts_with("gin_at_"));
    for a in ["Path=/", "HttpOnly", "SameSite=Strict"] {
        assert!(attrs.iter().any(|x| x == a), "{a}: {attrs:?}");
    }
    assert!(!attrs.iter().any(|x| x == "Secure"), "no Secure over plain HTTP: {attrs:?}");
    assert_eq!(header(&made.1, "cache-control"), Some("no-store"));
    let me = who_am_i(&server, &token).await.unwrap();
    assert_eq!(me.account.unwrap().name, "ada");
    assert!(me.token.unwrap().session);

    // Signing in: a new session; a wrong password and an unknown name get the same answer.
    let signed = send(addr, "POST", "/session", JSON, &creds("ada", "correct horse")).await;
    assert_eq!(signed.0, 200);
    let (second, _) = cookie(&signed);
    assert_ne!(second, token);
    who_am_i(&server, &second).await.unwrap();
    let wrong = send(addr, "POST", "/session", JSON, &creds("ada", "wrong horse!")).await;
    let unknown = send(addr, "POST", "/session", JSON, &creds("nobody", "correct horse")).await;
    assert_eq!(wrong.0, 401);
    assert_eq!((wrong.0, &wrong.2), (unknown.0, &unknown.2));
    assert_eq!(String::from_utf8_lossy(&wrong.2), r#"{"error":"wrong name or password"}"#);
    assert!(header(&wrong.1, "set-cookie").is_none() && header(&unknown.1, "set-cookie").is_none());
    // The name is taken; a registration needs a password; JSON only.
    let taken = send(addr, "POST", "/session/register", JSON, &creds("ADA", "another one")).await;
    assert_eq!(taken.0, 409);
    let nopass = send(addr, "POST", "/session/register", JSON, &creds("bob", "")).await;
    assert_eq!(nopass.0, 400);
    let form =
        send(addr, "POST", "/session", "Content-Type: text/plain\r\n", &creds("ada", "correct horse")).await;
    assert_eq!(form.0, 415);
    assert!(header(&form.1, "set-cookie").is_none());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_site_request_is_refused_and_makes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let addr = server.addr;
    for extra in [
        "Origin: https://evil.example\r\n",
        "Origin: null\r\n",
        "Sec-Fetch-Site: cross-site\r\n",
        "Sec-Fetch-Site: same-site\r\n",
    ] {
        let r =
            send(addr, "POST", "/session/register", &format!("{JSON}{extra}"), &creds("eve", "password1"))
                .await;
        assert_eq!(r.0, 403, "{extra}");
        assert!(header(&r.1, "set-cookie").is_none(), "{extra}");
    }
    let ch = server.channel().await;
    let none = AccountServiceClient::new(ch.clone())
        .get_account(pb::GetAccountRequest { name: "eve".into() })
        .await
        .unwrap_err();
    assert_eq!(none.code(), Code::NotFound, "nothing was made: {none:?}");
    // The same origin (as a browser names it) is the page's own.
    let own = format!("{JSON}Origin: http://{addr}\r\nSec-Fetch-Site: same-origin\r\n");
    let made = send(addr, "POST", "/session/register", &own, &creds("ada", "correct horse")).await;
    assert_eq!(made.0, 200);
    let (token, _) = cookie(&made);
    // The cookie is the account on the page's gRPC-Web calls from its origin, and on no
    // cross-site one (nor a call that is not gRPC-Web).
    let mine = who_am_i_web(addr, &format!("Cookie: gin_session={token}\r\nOrigin: http://{addr}\r\n")).await;
    assert!(mine.windows(3).any(|w| w == b"ada"), "{}", String::from_utf8_lossy(&mine));
    let theirs =
        who_am_i_web(addr, &format!("Cookie: gin_session={token}\r\nOrigin: https://evil.example\r\n")).await;
    assert!(!theirs.windows(3).any(|w| w == b"ada"));
    let plain = send(addr, "DELETE", "/session", "Origin: https://evil.example\r\n", "").await;
    assert_eq!(plain.0, 403);
    who_am_i(&server, &token).await.unwrap();
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_revokes_the_session_and_clears_the_cookie() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let addr = server.addr;
    let made = send(addr, "POST", "/session/register", JSON, &creds("ada", "correct horse")).await;
    let (token, _) = cookie(&made);
    who_am_i(&server, &token).await.unwrap();
    let out = send(addr, "DELETE", "/session", &format!("Cookie: gin_session={token}\r\n"), "").await;
    assert_eq!(out.0, 204);
    let (cleared, attrs) = cookie(&out);
    assert_eq!(cleared, "");
    assert!(attrs.iter().any(|a| a == "Max-Age=0") && attrs.iter().any(|a| a == "HttpOnly"), "{attrs:?}");
    let refused = who_am_i(&server, &token).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated);
    // The old cookie on the page's calls: a guest, not the account.
    let after = who_am_i_web(addr, &format!("Cookie: gin_session={token}\r\n")).await;
    assert!(!after.windows(3).any(|w| w == b"ada"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_cookie_is_secure_under_tls() {
    use tonic::transport::{Certificate, Channel, ClientTlsConfig};
    use tower::ServiceExt;
    let dir = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    let server = TestServer::start_with(gin_server::Config {
        db: dir.path().join("g.db"),
        tls: Some((cert_path, key_path)),
        ..gin_server::Config::default()
    })
    .await;
    let url = format!("https://localhost:{}", server.addr.port());
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(cert.cert.pem()))
        .domain_name("localhost");
    let mut ch = None;
    for _ in 0..50 {
        if let Ok(c) =
            Channel::from_shared(url.clone()).unwrap().tls_config(tls.clone()).unwrap().connect().await
        {
            ch = Some(c);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let ch = ch.expect("TLS connection");
    let req = http::Request::post(format!("{url}/session/register"))
        .header("content-type", "application/json")
        .body(tonic::body::Body::new(http_body_util::Full::new(bytes::Bytes::from(creds(
            "ada",
            "correct horse",
        )))))
        .unwrap();
    let r = ch.oneshot(req).await.unwrap();
    assert_eq!(r.status(), 200);
    let set = r.headers().get("set-cookie").unwrap().to_str().unwrap().to_string();
    let attrs: Vec<&str> = set.split(';').map(str::trim).collect();
    for a in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(attrs.contains(&a), "{a}: {set}");
    }
    server.stop().await;
}

/// The cookie's `Max-Age` is the session lifetime the server enforces: the session lasts a
/// restart, and a server whose lifetime it has outlived refuses it (from the token's stored
/// creation time), on the page's calls too, while an API token made with it goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cookie_lasts_the_session_lifetime_and_the_server_ends_the_session_then() {
    let dir = tempfile::tempdir().unwrap();
    session_lifetime_on(dir.path().join("g.db")).await;
}

/// The same on PostgreSQL: the session's end comes from the creation time stored there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgresql_the_server_ends_a_session_after_its_lifetime() {
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    session_lifetime_on(std::path::PathBuf::from(pg.create_database("sessions").unwrap())).await;
}

/// A session made under a week's lifetime, over two restarts of the server on `db`: alive
/// under the same lifetime, refused under one it has outlived.
async fn session_lifetime_on(db: std::path::PathBuf) {
    use std::time::Duration;
    let cfg = |life: Duration| gin_server::Config {
        db: db.clone(),
        rate_per_sec: 0,
        session_lifetime: life,
        ..gin_server::Config::default()
    };
    let week = Duration::from_secs(7 * 86_400);
    let server = TestServer::start_with(cfg(week)).await;
    let addr = server.addr;
    let made = send(addr, "POST", "/session/register", JSON, &creds("ada", "correct horse")).await;
    let (token, attrs) = cookie(&made);
    assert!(attrs.iter().any(|a| a == "Max-Age=604800"), "{attrs:?}");
    let signed = send(addr, "POST", "/session", JSON, &creds("ada", "correct horse")).await;
    assert!(cookie(&signed).1.iter().any(|a| a == "Max-Age=604800"));
    let api = AccountServiceClient::new(server.channel().await)
        .create_token(authed(
            pb::CreateTokenRequest { label: "bot".into(), scopes: vec![pb::TokenScope::Play as i32] },
            &token,
        ))
        .await
        .unwrap()
        .into_inner()
        .token;
    server.stop().await;

    // Restarted with the same lifetime: the session goes on.
    let server = TestServer::start_at(addr, cfg(week)).await;
    assert_eq!(who_am_i(&server, &token).await.unwrap().account.unwrap().name, "ada");
    server.stop().await;

    // Restarted with a lifetime the session has outlived: refused as a revoked one.
    let server = TestServer::start_at(addr, cfg(Duration::from_millis(1))).await;
    let refused = who_am_i(&server, &token).await.unwrap_err();
    assert_eq!(
        (refused.code(), refused.message()),
        (Code::Unauthenticated, "unknown, revoked or expired account token")
    );
    let page = who_am_i_web(addr, &format!("Cookie: gin_session={token}\r\n")).await;
    assert!(!page.windows(3).any(|w| w == b"ada"), "the page is a guest's");
    let me = who_am_i(&server, &api).await.unwrap();
    assert_eq!(me.account.unwrap().name, "ada");
    let tokens = AccountServiceClient::new(server.channel().await)
        .list_tokens(authed(pb::ListTokensRequest {}, &api))
        .await
        .map(|r| r.into_inner().tokens);
    // (The API token has the play scope only: listing needs the account's.)
    assert_eq!(tokens.unwrap_err().code(), Code::PermissionDenied);
    server.stop().await;
}

/// `POST /session/password`: the cookie's session changes the password, every session ends,
/// and the cookie becomes a new session (the page signed in still); a wrong current password,
/// no session, a cross-site request or a form change nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_from_the_page_ends_every_session_and_renews_the_cookie() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let addr = server.addr;
    let made = send(addr, "POST", "/session/register", JSON, &creds("ada", "correct horse")).await;
    let (first, _) = cookie(&made);
    let (other, _) = cookie(&send(addr, "POST", "/session", JSON, &creds("ada", "correct horse")).await);
    let api = AccountServiceClient::new(server.channel().await)
        .create_token(authed(
            pb::CreateTokenRequest { label: "bot".into(), scopes: vec![pb::TokenScope::Play as i32] },
            &first,
        ))
        .await
        .unwrap()
        .into_inner()
        .token;
    let change = |current: &str, new: &str| {
        serde_json::json!({ "current_password": current, "new_password": new }).to_string()
    };
    let with = format!("{JSON}Cookie: gin_session={first}\r\n");
    for (extra, body, status) in [
        (with.clone(), change("wrong horse", "battery staple"), 401),
        (JSON.to_string(), change("correct horse", "battery staple"), 401),
        (format!("{with}Origin: https://evil.example\r\n"), change("correct horse", "battery staple"), 403),
        (format!("{with}Sec-Fetch-Site: cross-site\r\n"), change("correct horse", "battery staple"), 403),
        (
            format!("Content-Type: text/plain\r\nCookie: gin_session={first}\r\n"),
            change("correct horse", "battery staple"),
            415,
        ),
        (with.clone(), change("correct horse", "short"), 400),
    ] {
        let r = send(addr, "POST", "/session/password", &extra, &body).await;
        assert_eq!(r.0, status, "{extra}: {}", String::from_utf8_lossy(&r.2));
        assert!(header(&r.1, "set-cookie").is_none(), "{extra}");
        who_am_i(&server, &first).await.unwrap();
    }
    let wrong_new = send(addr, "POST", "/session", JSON, &creds("ada", "battery staple")).await;
    assert_eq!(wrong_new.0, 401, "the password did not change");

    let done =
        send(addr, "POST", "/session/password", &with, &change("correct horse", "battery staple")).await;
    assert_eq!(done.0, 200, "{}", String::from_utf8_lossy(&done.2));
    let (renewed, attrs) = cookie(&done);
    assert!(
        attrs.iter().any(|a| a == "HttpOnly") && attrs.iter().any(|a| a.starts_with("Max-Age=")),
        "{attrs:?}"
    );
    assert_ne!(renewed, first);
    for old in [&first, &other] {
        assert_eq!(who_am_i(&server, old).await.unwrap_err().code(), Code::Unauthenticated);
    }
    let me = who_am_i(&server, &renewed).await.unwrap();
    assert!(me.token.unwrap().session && me.account.unwrap().name == "ada");
    let page = who_am_i_web(addr, &format!("Cookie: gin_session={renewed}\r\n")).await;
    assert!(page.windows(3).any(|w| w == b"ada"));
    who_am_i(&server, &api).await.unwrap();
    assert_eq!(send(addr, "POST", "/session", JSON, &creds("ada", "correct horse")).await.0, 401);
    assert_eq!(send(addr, "POST", "/session", JSON, &creds("ada", "battery staple")).await.0, 200);
    server.stop().await;
}

/// The account's gRPC-Web calls (here DeleteAccount, the one that cannot be undone) take the
/// cookie only from the page's own origin and as gRPC-Web: a cross-site page (by its
/// `Origin` or `Sec-Fetch-Site`) or a form's content type deletes nothing; the page itself does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cross_site_page_cannot_use_the_cookie_on_account_calls() {
    use prost::Message as _;
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start(&dir.path().join("g.db")).await;
    let addr = server.addr;
    let (token, _) =
        cookie(&send(addr, "POST", "/session/register", JSON, &creds("ada", "correct horse")).await);
    let msg = pb::DeleteAccountRequest { confirm_name: "ada".into(), password: "correct horse".into() }
        .encode_to_vec();
    let mut framed = vec![0u8];
    framed.extend_from_slice(&u32::try_from(msg.len()).unwrap().to_be_bytes());
    framed.extend_from_slice(&msg);
    let delete = |extra: String, content_type: &'static str| {
        let framed = framed.clone();
        async move {
            let mut req = format!(
                "POST /gin.v1.AccountService/DeleteAccount HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nX-Grpc-Web: 1\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
                framed.len()
            )
            .into_bytes();
            req.extend_from_slice(&framed);
            // (`http` takes text: the body is bytes under 128 here, so as Latin-1 it is the same.)
            let req: String = req.iter().map(|&b| b as char).collect();
            assert!(req.is_ascii());
            let (_, headers, body) = tokio::task::spawn_blocking(move || http(addr, &req)).await.unwrap();
            header(&headers, "grpc-status").map(str::to_owned).unwrap_or_else(|| {
                let text = String::from_utf8_lossy(&body).to_string();
                text.split("grpc-status:")
                    .nth(1)
                    .map(|s| s.trim().chars().take_while(char::is_ascii_digit).collect())
                    .unwrap_or_default()
            })
        }
    };
    let cookie_h = format!("Cookie: gin_session={token}\r\n");
    for (extra, ct) in [
        (format!("{cookie_h}Origin: https://evil.example\r\n"), "application/grpc-web+proto"),
        (format!("{cookie_h}Origin: null\r\n"), "application/grpc-web+proto"),
        (format!("{cookie_h}Sec-Fetch-Site: cross-site\r\n"), "application/grpc-web+proto"),
        (format!("{cookie_h}Sec-Fetch-Site: same-site\r\n"), "application/grpc-web+proto"),
        (format!("{cookie_h}Origin: http://{addr}\r\n"), "text/plain"),
    ] {
        let status = delete(extra.clone(), ct).await;
        assert_ne!(status, "0", "{extra} {ct}: deleted");
        assert_eq!(who_am_i(&server, &token).await.unwrap().account.unwrap().name, "ada", "{extra} {ct}");
    }
    // The page's own call, as the browser sends it, is the account's.
    let own = delete(
        format!("{cookie_h}Origin: http://{addr}\r\nSec-Fetch-Site: same-origin\r\n"),
        "application/grpc-web+proto",
    )
    .await;
    assert_eq!(own, "0");
    assert_eq!(who_am_i(&server, &token).await.unwrap_err().code(), Code::Unauthenticated);
    server.stop().await;
}

/// The status of a gRPC-Web call to `path` (an empty request) as the page sends it, with
/// `extra` headers (its cookie).
async fn grpc_web_status(addr: SocketAddr, path: &str, extra: &str) -> String {
    let req = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\n{extra}Content-Length: 5\r\nConnection: close\r\n\r\n\0\0\0\0\0"
    );
    let (_, headers, body) = tokio::task::spawn_blocking(move || http(addr, &req)).await.unwrap();
    header(&headers, "grpc-status").map(str::to_owned).unwrap_or_else(|| {
        let text = String::from_utf8_lossy(&body).to_string();
        text.split("grpc-status:")
            .nth(1)
            .map(|s| s.trim().chars().take_while(char::is_ascii_digit).collect())
            .unwrap_or_default()
    })
}

/// In a cluster, a cookie signed out at one server is, at another once it knows, a guest's on
/// the page's calls (not a bearer refused on every one of them, as it was).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_cluster_a_cookie_signed_out_at_one_server_is_a_guests_at_another() {
    use crate::restart::Proc;
    let Some(pg) = gin_server::storage::pg_cluster::for_test() else { return };
    let db = std::path::PathBuf::from(pg.create_database("cookies").unwrap());
    let dir = tempfile::tempdir().unwrap();
    let a = Proc::start_in_cluster(&db, &dir.path().join("a.log"), &[]).await;
    let b = Proc::start_in_cluster(&db, &dir.path().join("b.log"), &[]).await;
    let made = send(a.addr(), "POST", "/session/register", JSON, &creds("ada", "correct horse")).await;
    assert_eq!(made.0, 200, "{}", String::from_utf8_lossy(&made.2));
    let (token, _) = cookie(&made);
    let with = format!("Cookie: gin_session={token}\r\n");
    let mine = who_am_i_web(b.addr(), &with).await;
    assert!(mine.windows(3).any(|w| w == b"ada"), "the account at B");
    assert_eq!(send(a.addr(), "DELETE", "/session", &with, "").await.0, 204);
    // B learns of it within a second.
    let mut at_b = AccountServiceClient::new(b.channel().await);
    let t = std::time::Instant::now();
    while at_b.who_am_i(authed(pb::WhoAmIRequest {}, &token)).await.is_ok() {
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "B still takes the token");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        grpc_web_status(b.addr(), "/gin.v1.LobbyService/ListGames", &with).await,
        "0",
        "a guest's call"
    );
    let who = grpc_web_status(b.addr(), "/gin.v1.AccountService/WhoAmI", &with).await;
    assert_eq!(who, "16");
}
