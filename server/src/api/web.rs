//! The web page (`server/web/`, built into `server/web/dist/` and embedded here): served on
//! the gRPC port to any request that is not gRPC, so `gin-server` then a browser at its
//! address is all a person needs. The page calls the server back with gRPC-Web on the same
//! origin.
//!
//! A tower layer outside every other: a plain `GET`/`HEAD` (no `application/grpc…`
//! content type) is answered here and never reaches gRPC-Web's layer, the gate's services
//! or a service; everything else passes through untouched. Each such request counts against
//! its caller's address under the gate's rate limit ([`GateLayer::admit_page`], the same
//! budget as its calls without a seat token): over it, 429 with `Retry-After`. The icon
//! (`/favicon.svg`, named by the page; `/favicon.ico` too, which browsers ask for
//! unprompted) is served, so a page load asks for nothing that is missing. Files carry an ETag (their
//! SHA-256) and `cache-control: no-cache`, so a browser revalidates and a new build is seen
//! at once; `If-None-Match` gets 304. A client that accepts gzip (`Accept-Encoding`, as every
//! browser does) gets each file gzipped (compressed once, at the first request: the script,
//! ~188 KiB, goes in under a third of that), with its own ETag and `Vary: Accept-Encoding`.
//!
//!
//! Paths: `/`, `/index.html`, `/app.js`, `/app.css`, `/favicon.svg` (also at `/favicon.ico`),
//! from `FILES`; any other plain GET is 404 (`web::page_requests_are_under_the_rate_limit`
//! tests the rate); `/session`, `/session/register`, `/session/password` are the sessions' (below). Served
//! by the gRPC server itself, so one address serves both and no CORS is involved.
//!
//! # Sessions: a person signed in in the browser (`api::session`)
//!
//! - `POST /session` with `application/json` `{"name": …, "password": …}` signs in
//!   (`Accounts::sign_in`, its throttling included): 200 `{"name", "kind"}` and `Set-Cookie:
//!   gin_session=<a new session token>; Path=/; HttpOnly; SameSite=Strict` (`; Secure` over
//!   TLS). A wrong password and an unknown name get the same 401 `{"error": "wrong name or
//!   password"}`. `POST /session/register` (same body, a password required) creates a
//!   person's account and signs it in. The cookie's `Max-Age` is the session's lifetime
//!   (`Config::session_lifetime`, 30 days), which the server enforces too: the token is
//!   refused from its creation plus that on. `POST /session/password` with
//!   `{"current_password": …, "new_password": …}` and the cookie changes the password
//!   (`Accounts::set_password`: every session ends) and sets the cookie to the new session,
//!   so the page stays signed in and its script never holds a token (401 without a live
//!   session, 401 for a wrong current password). `DELETE /session` revokes the cookie's token and
//!   clears the cookie (204). Answers carry `cache-control: no-store`; each request counts
//!   against the caller's address as a page request does.
//! - The page's gRPC-Web calls carry the cookie (same origin): this layer, outside gRPC-Web's,
//!   turns it into `authorization: Bearer <token>` when the call sends no `authorization`
//!   (a seat token wins: the page keeps using it for a game's calls), so the gate and every
//!   service see the account exactly as for any client, and a lobby seat taken is the
//!   account's. A cookie whose token the registry does not know live is dropped (in a
//!   cluster: one it knows revoked, expired or deleted; an unknown one may be another
//!   server's new session), the page then a guest's. The `cookie` header never goes further in.
//! - Cross-site safety: the cookie is `SameSite=Strict` (a cross-site request does not carry
//!   it); it is taken only on `application/grpc-web…` calls (not a CORS-simple type: another
//!   origin cannot send one without a preflight, which the server never grants) whose
//!   browser headers say same origin: `Sec-Fetch-Site`, when sent, is `same-origin`, and
//!   `Origin`, when sent, names the request's own host (else the call goes on as a guest's).
//!   Every `/session` request must pass the same check (else 403, nothing done), and its
//!   `POST`s must be `application/json` (else 415). A reverse proxy in front must pass `Host`
//!   on as the browser sent it. The token never reaches the page's script, `localStorage` or
//!   a URL; the page learns who is signed in from `WhoAmI`.
//! - Tests: `tests/it/web_session.rs` (the endpoints, the cookie's attributes under TLS,
//!   cross-site refusals of `/session` and of the account's gRPC-Web calls, the password
//!   change, the session's end after its lifetime, sign-out) and `test/account.mjs` in Chromium
//!   (`web::a_person_registers_plays_finds_the_game_on_the_profile_and_signs_out`).
//!
//! # The page's sources (`server/web/`, TypeScript)
//!
//! `src/main.ts` (hash routes `#/`, `#/play/ID`, `#/watch/ID`, `#/join/ID`, `#/tournament/ID`,
//! `#/signin`, `#/player/NAME`, `#/account`, `#/leaderboard/POOL`); `account.ts` (the header's
//! account links, the sign-in and registration form, a player's profile: `GetAccount`, its
//! ratings, `ListPlayerGames` paged, Sign out on one's own, a Challenge form on another's);
//! `ratings.ts` (a pool's leaderboard, `GetLeaderboard` paged, with the signed-in account's own
//! line; a profile's ratings by `GetPlayerRatings`, each pool's `GetRatingHistory` drawn as a
//! small SVG line); `challenges.ts` (`CreateChallenge`; the challenges panel above every page,
//! fed by `WatchChallenges`, with Accept, Decline and Cancel; an accepted challenge's game
//! opened, the session's account acting for its seat); `ladder.ts` (the home page's Ladder
//! panel: `ListLadders`, `JoinLadder` streamed while waiting, Leave, the matched game
//! opened as a challenge's is); `settings.ts` (one's own account page: the password changed
//! by `POST /session/password`, API tokens by `ListTokens`, `CreateToken` (shown once),
//! `RevokeToken`, `ExportAccount` downloaded as a file, `DeleteAccount` then signed out);
//! `home.ts` (the lobby: house bot, quick match, create and share, open games,
//! tournaments); `game.ts` (`GameView`: one game played or watched; a `WatchGame` stream
//! resumed after its last seq when it drops, every change drawn from a fresh `GetGame` snapshot
//! of what this viewer may see (one in flight, coalesced), moves from the snapshot's legal
//! actions with `expected_seq`, sent again on `UNAVAILABLE` with the same one
//! (`api.sendRetrying`); a finished hand's result held in place of the table until Continue;
//! the hand grouped by the server's last `TurnInfo.best` melds; a card it may not discard says
//! why from `taken_from_pile`; drag onto the pile by pointer events); `tournament.ts`
//! (`TournamentView`: `WatchTournament` for the standings, `GetTournament` at most every 2 s
//! for the games and the rating history, `TournamentState.rating_history`); `verify.ts`
//! (SHA-256 and the engine's ChaCha8 deck shuffle in TypeScript: a finished game's seed and
//! reveals checked against their commitments, those published at the deal (noted in
//! `localStorage` while the page follows the game) and the record's decks; every format);
//! `api.ts` (the gRPC-Web clients on the page's origin; the session (`/session` by `fetch`,
//! `WhoAmI`) and a seat's holder in words (`seatTag`); `follow`: a server stream read to its
//! end, opened again after a drop with a backoff; seat tokens in `localStorage` per game;
//! refusals in words as `gin` says them); `cards.ts`, `dom.ts`. `src/gen/` is generated (`npm
//! run gen`: `buf generate` with `protoc-gen-es`), not committed. `build.mjs` bundles with
//! esbuild into `dist/`, committed.
//!
//! The page knows no rules: what a seat may do comes from the snapshot's legal actions, what
//! it sees from its own snapshot, so it cannot show a hidden card or offer an illegal move.
//!
//! Tests (Debian's Chromium driven by puppeteer-core, `test/chromium.mjs`): `test/browser.mjs`
//! plays a whole game by clicks while a second page watches, then verifies its deals (and
//! catches a tampered commitment); `test/account.mjs` registers, plays a house bot as the
//! account, finds the game on its profile and signs out; `test/settings.mjs` signs in, makes,
//! lists and revokes an API token, changes the password (still signed in), downloads the
//! account's data and deletes the account
//! (`web::a_person_manages_the_account_from_the_page_and_deletes_it`); `test/person.mjs` plays as a person on
//! a phone by touch and gin-7 at a desktop; `test/tournament.mjs` follows a tournament live;
//! `test/challenge.mjs` challenges a bot account (gin-sdk in the test) from its profile to a
//! rated game, plays it, then reads the rating on the profile and the leaderboard
//! (`web::a_person_challenges_a_bot_to_a_rated_game_and_sees_the_rating_on_the_profile_and_leaderboard`);
//! `test/verify_formats.mjs` verifies a game of every format and size
//! (`tests/it/web_verify.rs`).
//!
//! **Why the bundle is committed, not built by `build.rs`.** The Rust build must work without
//! Node, and a `build.rs` that builds only when Node is there would make two machines embed
//! different pages from one commit (or none, silently). With the bundle committed, every build
//! embeds the same bytes; Node is needed only to change the page. CI runs `npm ci` and `npm
//! run build` and fails if `dist/` then differs from the commit (esbuild's output is
//! deterministic for pinned versions).

use std::sync::LazyLock;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::future::{BoxFuture, Either};
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use sha2::{Digest, Sha256};
use tonic::body::Body;
use tower::{Layer, Service};

use super::gate::GateLayer;
use super::session;

/// One embedded file.
struct File {
    /// The path it is served at.
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

const FILES: &[File] = &[
    File {
        path: "/",
        content_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../../web/dist/index.html"),
    },
    File {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../web/dist/app.js"),
    },
    File {
        path: "/app.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../../web/dist/app.css"),
    },
    File {
        path: "/favicon.svg",
        content_type: "image/svg+xml",
        bytes: include_bytes!("../../web/dist/favicon.svg"),
    },
];

/// Each file's ETag, in `FILES` order.
static ETAGS: LazyLock<Vec<HeaderValue>> = LazyLock::new(|| {
    FILES
        .iter()
        .map(|f| {
            let d = Sha256::digest(f.bytes);
            let hex: String = d[..12].iter().map(|b| format!("{b:02x}")).collect();
            HeaderValue::from_str(&format!("\"{hex}\"")).expect("hex is a valid header value")
        })
        .collect()
});

/// Each file gzipped (best compression), with its ETag, in `FILES` order; `None` where
/// gzip would not be smaller.
static GZIPPED: LazyLock<Vec<Option<(Bytes, HeaderValue)>>> = LazyLock::new(|| {
    FILES
        .iter()
        .zip(ETAGS.iter())
        .map(|(f, etag)| {
            use std::io::Write;
            let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            z.write_all(f.bytes).expect("writing to memory");
            let gz = z.finish().expect("writing to memory");
            let tag = etag.to_str().expect("ASCII").trim_end_matches('"').to_string() + "-gz\"";
            (gz.len() < f.bytes.len())
                .then(|| (Bytes::from(gz), HeaderValue::from_str(&tag).expect("hex is a valid header value")))
        })
        .collect()
});

/// Whether the request's `Accept-Encoding` takes gzip: a `gzip` (or `x-gzip`) entry with a
/// non-zero quality, or failing one, such a `*` entry.
fn accepts_gzip<B>(req: &Request<B>) -> bool {
    let Some(v) = req.headers().get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let mut star = None;
    for entry in v.split(',') {
        let mut parts = entry.split(';');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").map(|q| q.trim().parse::<f32>().unwrap_or(0.0)))
            .next()
            .unwrap_or(1.0);
        match name.as_str() {
            "gzip" | "x-gzip" => return q > 0.0,
            "*" => star = Some(q > 0.0),
            _ => {}
        }
    }
    star.unwrap_or(false)
}

/// Whether `req` is for the page rather than for gRPC.
fn is_page_request<B>(req: &Request<B>) -> bool {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return false;
    }
    !req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/grpc"))
}

/// The answer to a page request: the file, 304, or 404.
fn answer<B>(req: &Request<B>) -> Response<Body> {
    let path = match req.uri().path() {
        "/index.html" => "/",
        "/favicon.ico" => "/favicon.svg",
        p => p,
    };
    let Some(i) = FILES.iter().position(|f| f.path == path) else {
        return Response::builder()
            .status(StatusCode::NOT_FOUND)
            .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
            .body(Body::new(Full::new(Bytes::from_static(b"not found: the page is at /\n"))))
            .expect("a static response is valid");
    };
    let file = &FILES[i];
    let gzipped = if accepts_gzip(req) { GZIPPED[i].as_ref() } else { None };
    let (bytes, etag) = match gzipped {
        Some((gz, etag)) => (gz.clone(), etag),
        None => (Bytes::from_static(file.bytes), &ETAGS[i]),
    };
    let fresh = req.headers().get(header::IF_NONE_MATCH).is_some_and(|v| v == etag);
    let mut builder = Response::builder()
        .header(header::ETAG, etag)
        .header(header::CACHE_CONTROL, "no-cache")
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::VARY, "accept-encoding");
    if gzipped.is_some() {
        builder = builder.header(header::CONTENT_ENCODING, "gzip");
    }
    let response = if fresh {
        builder.status(StatusCode::NOT_MODIFIED).body(Body::empty())
    } else {
        let builder = builder
            .header(header::CONTENT_TYPE, file.content_type)
            .header(header::CONTENT_LENGTH, bytes.len());
        if req.method() == Method::HEAD {
            builder.body(Body::empty())
        } else {
            builder.body(Body::new(Full::new(bytes)))
        }
    };
    response.expect("a static response is valid")
}

/// Too many requests from this caller: 429, and when to come back.
fn too_many(ms: u64) -> Response<Body> {
    Response::builder()
        .status(StatusCode::TOO_MANY_REQUESTS)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8")
        .header(header::RETRY_AFTER, ms.div_ceil(1000).max(1))
        .header("retry-after-ms", ms)
        .body(Body::new(Full::new(Bytes::from(format!(
            "rate limit: too many requests from your address; retry in {ms} ms\n"
        )))))
        .expect("a static response is valid")
}

/// Serves the page (see the module docs), its requests under `gate`'s rate limit.
#[derive(Clone)]
pub struct WebLayer {
    gate: GateLayer,
}

impl WebLayer {
    /// The page, its requests counted by `gate`.
    pub fn new(gate: GateLayer) -> WebLayer {
        WebLayer { gate }
    }
}

impl<S> Layer<S> for WebLayer {
    type Service = Web<S>;
    fn layer(&self, inner: S) -> Web<S> {
        Web { inner, gate: self.gate.clone() }
    }
}

/// [`WebLayer`]'s service.
#[derive(Clone)]
pub struct Web<S> {
    inner: S,
    gate: GateLayer,
}

impl<S, B> Service<Request<B>> for Web<S>
where
    S: Service<Request<B>, Response = Response<Body>>,
    S::Error: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = Either<
        std::future::Ready<Result<Response<Body>, S::Error>>,
        Either<BoxFuture<'static, Result<Response<Body>, S::Error>>, S::Future>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        if session::is_session_request(&req) {
            if let Err(ms) = self.gate.admit_page(&req) {
                return Either::Left(std::future::ready(Ok(too_many(ms))));
            }
            let gate = self.gate.clone();
            return Either::Right(Either::Left(Box::pin(
                async move { Ok(session::answer(gate, req).await) },
            )));
        }
        if is_page_request(&req) {
            let answer = match self.gate.admit_page(&req) {
                Ok(()) => answer(&req),
                Err(ms) => too_many(ms),
            };
            Either::Left(std::future::ready(Ok(answer)))
        } else {
            session::carry_cookie(&self.gate, &mut req);
            Either::Right(Either::Right(self.inner.call(req)))
        }
    }
}
