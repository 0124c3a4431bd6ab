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
