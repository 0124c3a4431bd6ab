//! The gate's work for one call (issue 38's target: a sign-in check of at most 2 µs of server
//! CPU for an account token, a map lookup and no database read per call):
//!
//! - `accounts/identify`: [`Accounts::identify`] of a live account token, on a registry of
//!   [`ACCOUNTS`] accounts with one token each; every iteration takes the next account's token
//!   (all of them in turn: the maps are bigger than the caches, as on a server).
//! - `gate/call/{account,seat,none}`: the whole gate, [`tower::Service::call`] on an
//!   `http::Request` for `/gin.v1.GameService/Draw` as tower sees a call, with an account
//!   token's header, a seat token's (one of [`ACCOUNTS`] seats in memory), or none; the rate
//!   limit on (a rate no call reaches), the service inside a bare answer. The request is made
//!   outside the timing (`iter_batched`); its answer is dropped inside.
//!
//! One core of the machine; the figures are in the book's performance chapter (Server).
//! `cargo bench -p gin-server --bench gate`.

use std::cell::Cell;
use std::convert::Infallible;
use std::future::ready;
use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use futures_util::FutureExt;
use gin_server::accounts::{Accounts, SCOPE_ALL, TOKEN_PREFIX, hash_token};
use gin_server::api::gate::GateLayer;
use gin_server::game::shared::{Shared, token_hash};
use gin_server::storage::{AccountRow, KIND_BOT, Store, TokenRow};
use http::{HeaderValue, Request, Response};
use tonic::body::Body;
use tower::{Layer, Service};

/// Accounts (and tokens, and seats) in the registry.
const ACCOUNTS: usize = 100_000;

/// The `i`th account token's secret: the form of a real one (`gin_at_` and 43 characters).
fn secret(i: usize) -> String {
    format!("{TOKEN_PREFIX}bench{i:038}")
}

/// The `i`th seat token (32 hex digits, as the server's).
fn seat_token(i: usize) -> String {
    format!("{i:032x}")
}

/// The gate of a server holding [`ACCOUNTS`] accounts (built from a store's start-up rows, as
/// a server's registry is) and [`ACCOUNTS`] seat tokens; and the registry. The store is a
/// SQLite file in `dir`.
fn setup(rt: &tokio::runtime::Runtime, dir: &std::path::Path) -> (GateLayer, Accounts, Store) {
    let _in = rt.enter();
    let cfg = gin_server::Config {
        db: dir.join("gin.db"),
        rate_per_sec: 1_000_000_000,
        ..gin_server::Config::default()
    };
    let (store, mut startup) = Store::open_sqlite(&cfg.db).expect("store");
    for i in 0..ACCOUNTS {
        let (id, name) = (format!("ac_{i:016x}"), format!("bench{i}"));
        startup.accounts.push(AccountRow {
            id: id.clone(),
            name_key: name.clone(),
            skeleton: name.clone(),
            name,
            kind: KIND_BOT,
            created_ms: 1,
            password_hash: None,
            deleted_ms: None,
        });
        startup.tokens.push(TokenRow {
            id: format!("tk_{i:016x}"),
            account_id: id,
            hash: hash_token(&secret(i)),
            label: "bench".into(),
            scopes: SCOPE_ALL,
            session: false,
            created_ms: 1,
            last_used_ms: 0,
            revoked_ms: None,
        });
    }
    let accounts = rt
        .block_on(Accounts::open(store.clone(), &mut startup, 0, gin_server::accounts::SESSION_LIFETIME))
        .expect("accounts");
    let shared = Shared::new(cfg, store.clone(), startup).expect("shared");
    {
        let mut tokens = shared.tokens.write().expect("lock");
        for i in 0..ACCOUNTS {
            tokens.insert(token_hash(&seat_token(i)), (format!("g{i}"), (i % 2) as u8));
        }
    }
    (GateLayer::new(shared).with_accounts(accounts.clone()), accounts, store)
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let dir = tempfile::tempdir().expect("temporary directory");
    let (layer, accounts, store) = setup(&rt, dir.path());
    let secrets: Vec<String> = (0..ACCOUNTS).map(secret).collect();
    assert!(accounts.identify(&secrets[ACCOUNTS - 1]).is_some(), "the registry knows its tokens");

    let next = Cell::new(0usize);
    let step = || {
        let i = next.get();
        next.set((i + 1) % ACCOUNTS);
        i
    };
    c.bench_function("accounts/identify", |b| {
        b.iter(|| black_box(accounts.identify(black_box(&secrets[step()]))))
    });

    let _in = rt.enter();
    let inner = tower::service_fn(|_: Request<()>| ready(Ok::<_, Infallible>(Response::new(Body::empty()))));
    let mut gate = layer.layer(inner);
    let headers: [(&str, Vec<Option<HeaderValue>>); 3] = [
        ("account", secrets.iter().map(|s| Some(format!("Bearer {s}").parse().expect("ASCII"))).collect()),
        (
            "seat",
            (0..ACCOUNTS)
                .map(|i| Some(format!("Bearer {}", seat_token(i)).parse().expect("ASCII")))
                .collect(),
        ),
        ("none", vec![None]),
    ];
    for (name, values) in &headers {
        let request = || {
            let i = step() % values.len();
            let mut req = Request::builder().uri("/gin.v1.GameService/Draw");
            if let Some(v) = &values[i] {
                req = req.header(http::header::AUTHORIZATION, v.clone());
            }
            req.body(()).expect("request")
        };
        // Each kind passes the gate (no refusal: the rate is never reached).
        let answer = gate.call(request()).now_or_never().expect("ready").expect("answer");
        assert!(answer.headers().get("grpc-status").is_none(), "{name}: refused: {answer:?}");
        c.bench_function(&format!("gate/call/{name}"), |b| {
            b.iter_batched(request, |req| black_box(gate.call(req).now_or_never()), BatchSize::SmallInput)
        });
    }
    drop(gate);
    rt.block_on(store.close());
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
