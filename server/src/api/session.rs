//! The web page's sessions: a sign-in (or a registration) at `/session` becomes an `HttpOnly`
//! cookie, and the page's gRPC-Web calls carry it as the account's identity. The scheme is
//! written down in [`super::web`]'s module docs; [`super::web::WebLayer`] calls in here.

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited};
use tonic::body::Body;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};

use super::gate::GateLayer;
use crate::accounts::{AccountError, SCOPE_ACCOUNT, TOKEN_PREFIX};
use crate::storage::{KIND_BOT, KIND_PERSON};

/// The session cookie's name.
pub const COOKIE: &str = "gin_session";

/// The largest body `/session` reads.
const BODY_MAX: usize = 4096;

/// Whether `req` is for the session endpoints.
pub fn is_session_request<B>(req: &Request<B>) -> bool {
    matches!(req.uri().path(), "/session" | "/session/register" | "/session/password")
}

/// Whether `req` came over TLS (its cookie is then `Secure`).
fn over_tls<B>(req: &Request<B>) -> bool {
    req.extensions().get::<TlsConnectInfo<TcpConnectInfo>>().is_some()
}

/// Whether `req` is from the page's own origin as far as the browser says: `Sec-Fetch-Site`,
/// when sent, is `same-origin`, and `Origin`, when sent, names the host the request is for.
pub fn same_origin<B>(req: &Request<B>) -> bool {
    if req.headers().get("sec-fetch-site").is_some_and(|site| site.as_bytes() != b"same-origin") {
        return false;
    }
    let Some(origin) = req.headers().get(header::ORIGIN) else { return true };
    let Ok(origin) = origin.to_str() else { return false };
    let host = req
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| req.uri().authority().map(|a| a.as_str()));
    let Some(host) = host else { return false };
    origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"))
        .is_some_and(|o| o.eq_ignore_ascii_case(host))
}

/// The account token in `req`'s session cookie, if any.
pub fn cookie_token<B>(req: &Request<B>) -> Option<String> {
    req.headers()
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, v)| *k == COOKIE && v.starts_with(TOKEN_PREFIX))
        .map(|(_, v)| v.to_owned())
}

/// A gRPC-Web call from the page: its session cookie (if the registry knows it live, or in a
/// cluster does not know it dead) becomes `authorization: Bearer <token>` when the call sends none, and only
/// when the call is gRPC-Web (`application/grpc-web…`, a type a cross-site page cannot send
/// without a preflight) from the same origin. The `cookie` header never goes further.
pub fn carry_cookie<B>(gate: &GateLayer, req: &mut Request<B>) {
    let token = cookie_token(req);
    req.headers_mut().remove(header::COOKIE);
    let Some(token) = token else { return };
    let grpc_web = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/grpc-web"));
    if !grpc_web || req.headers().contains_key(header::AUTHORIZATION) || !same_origin(req) {
        return;
    }
    // A stale cookie (signed out elsewhere, revoked, expired) leaves the page a guest rather
    // than refusing its every call; in a cluster a token this server does not know yet may be
    // another's new one, so only one it knows dead is dropped.
    let known = gate
        .accounts()
        .is_some_and(|a| a.identify(&token).is_some() || (a.clustered() && !a.known_dead(&token)));
    if let (true, Ok(v)) = (known, HeaderValue::from_str(&format!("Bearer {token}"))) {
        req.headers_mut().insert(header::AUTHORIZATION, v);
    }
}

/// A JSON answer.
fn json(status: StatusCode, body: serde_json::Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::new(Full::new(Bytes::from(body.to_string()))))
        .expect("a JSON response is valid")
}

/// A refusal: `{"error": message}`.
fn refuse(status: StatusCode, message: &str) -> Response<Body> {
    json(status, serde_json::json!({ "error": message }))
}

/// The `Set-Cookie` value holding `token` for `max_age` seconds (the session's lifetime;
/// an empty token with `Max-Age=0`: the cookie cleared).
fn set_cookie(token: &str, tls: bool, max_age: u64) -> HeaderValue {
    let max_age = if token.is_empty() { 0 } else { max_age };
    let mut v = format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}");
    if tls {
        v.push_str("; Secure");
    }
    HeaderValue::from_str(&v).expect("a token is a valid header value")
}

/// An account error as an HTTP answer.
fn account_error(e: AccountError) -> Response<Body> {
    let msg = e.to_string();
    let status = match e {
        AccountError::Invalid(_) => StatusCode::BAD_REQUEST,
        AccountError::Taken(_) => StatusCode::CONFLICT,
        AccountError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
        AccountError::Denied(_) => StatusCode::FORBIDDEN,
        AccountError::NotFound(_) => StatusCode::NOT_FOUND,
        AccountError::Throttled { retry_after_ms, .. } => {
            let mut r = refuse(StatusCode::TOO_MANY_REQUESTS, &msg);
            r.headers_mut().insert(header::RETRY_AFTER, retry_after_ms.div_ceil(1000).max(1).into());
            return r;
        }
        AccountError::Storage(_) => StatusCode::SERVICE_UNAVAILABLE,
        AccountError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    };
    refuse(status, &msg)
}

/// What `/session` and `/session/register` read.
#[derive(serde::Deserialize)]
struct Credentials {
    name: String,
    password: String,
}

/// What `/session/password` reads.
#[derive(serde::Deserialize)]
struct NewPassword {
    current_password: String,
    new_password: String,
}

/// The body of a `POST` as JSON of type `T`, or the refusal to send.
async fn json_body<B, T>(req: Request<B>, shape: &str) -> Result<T, Response<Body>>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    T: serde::de::DeserializeOwned,
{
    let json_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/json"));
    if !json_type {
        return Err(refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, "content-type: application/json"));
    }
    let body = match Limited::new(req.into_body(), BODY_MAX).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return Err(refuse(StatusCode::PAYLOAD_TOO_LARGE, "body: too large or cut")),
    };
    serde_json::from_slice::<T>(&body).map_err(|_| refuse(StatusCode::BAD_REQUEST, shape))
}

/// 200 `{"name", "kind"}` of `account`, setting the cookie to `token`.
fn signed_in(account: &crate::storage::AccountRow, token: &str, tls: bool, max_age: u64) -> Response<Body> {
    let kind = if account.kind == KIND_BOT { "bot" } else { "person" };
    let mut r = json(StatusCode::OK, serde_json::json!({ "name": account.name, "kind": kind }));
    r.headers_mut().insert(header::SET_COOKIE, set_cookie(token, tls, max_age));
    r
}

/// Answers a request for `/session` (see [`super::web`]'s module docs).
pub async fn answer<B>(gate: GateLayer, req: Request<B>) -> Response<Body>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    if !same_origin(&req) {
        return refuse(StatusCode::FORBIDDEN, "cross-origin requests are refused");
    }
    let Some(accounts) = gate.accounts().cloned() else {
        return refuse(StatusCode::NOT_FOUND, "this server has no accounts");
    };
    let tls = over_tls(&req);
    let max_age = accounts.session_lifetime().as_secs();
    let addr = gate.client_ip(&req);
    let path = req.uri().path().to_owned();
    match (req.method().clone(), path.as_str()) {
        (Method::DELETE, "/session") => {
            if let Some(id) = cookie_token(&req).and_then(|t| accounts.identify(&t))
                && let Err(e) = accounts.revoke(&id.account_id, &id.token_id).await
            {
                return account_error(e);
            }
            let mut r = Response::builder()
                .status(StatusCode::NO_CONTENT)
                .header(header::CACHE_CONTROL, "no-store")
                .body(Body::empty())
                .expect("a static response is valid");
            r.headers_mut().insert(header::SET_COOKIE, set_cookie("", tls, 0));
            r
        }
        (Method::POST, "/session" | "/session/register") => {
            let c: Credentials = match json_body(req, "body: {\"name\": …, \"password\": …}").await {
                Ok(c) => c,
                Err(r) => return r,
            };
            let done = if path == "/session" {
                accounts.sign_in(&c.name, &c.password, "web", addr).await
            } else if c.password.is_empty() {
                return refuse(StatusCode::BAD_REQUEST, "password: required");
            } else {
                accounts.register(&c.name, KIND_PERSON, &c.password, "web", addr).await
            };
            match done {
                Ok((account, token)) => signed_in(&account, &token.secret, tls, max_age),
                Err(e) => account_error(e),
            }
        }
        (Method::POST, "/session/password") => {
            // The cookie's session changes the password; every session ends, and the cookie
            // becomes the new one, which the page's script never sees.
            let Some(id) = cookie_token(&req).and_then(|t| accounts.identify(&t)) else {
                return refuse(StatusCode::UNAUTHORIZED, "sign in first");
            };
            if !id.may(SCOPE_ACCOUNT) {
                return refuse(StatusCode::FORBIDDEN, "this session may not manage the account");
            }
            let p: NewPassword =
                match json_body(req, "body: {\"current_password\": …, \"new_password\": …}").await {
                    Ok(p) => p,
                    Err(r) => return r,
                };
            match accounts.set_password(&id.account_id, &p.current_password, &p.new_password).await {
                Ok(token) => match accounts.get(&id.account_id) {
                    Some(account) => signed_in(&account, &token.secret, tls, max_age),
                    None => refuse(StatusCode::INTERNAL_SERVER_ERROR, "the account vanished"),
                },
                Err(e) => account_error(e),
            }
        }
        _ => {
            let mut r = refuse(StatusCode::METHOD_NOT_ALLOWED, "POST or DELETE");
            r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
            r
        }
    }
}
