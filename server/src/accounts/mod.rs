//! Accounts: players who come back as themselves (people and bots), their passwords and
//! tokens. A layer beside `game`: it reads and writes the store's account rows
//! (`storage::AccountRow`, `TokenRow`); `api` uses it; `game` and `storage` never import it.
//!
//! [`Accounts`] is the registry in memory, built from what the store loaded at start: the
//! accounts by id, by name key (the name lowercased) and by confusable skeleton (Unicode TR39,
//! of the lowercased name: `Pau1` and `paul` are one name), and the tokens by their SHA-256.
//! The gate looks a bearer up there ([`Accounts::identify`]: one hash and one map lookup, no
//! database read).
//!
//! - **Durability first**: every change is written to the store, and memory changes only once
//!   the write is acknowledged; nothing is shown (a token, an account) before it is durable.
//!   Changes are made one at a time (`changing`), so the checks against memory (a name taken)
//!   hold until their write is done.
//! - **Secrets**: a token is `gin_at_` and 32 random bytes in base64url, shown once, kept as
//!   its SHA-256 only. A password is kept as an Argon2id PHC string (the crate's recommended
//!   parameters), hashed and verified on the blocking pool. Nothing here logs a token, a
//!   password or a hash.
//! - **Sign-in**: an unknown name and a wrong password get the same error in about the same
//!   time (an unknown name is verified against a dummy hash made at start); failures slow the
//!   name's key down (known or not) and the address ([`throttle`]).
//! - **Sessions end**: a session token (a sign-in's, the web page's cookie) lasts the
//!   registry's session lifetime from its stored `created_ms` (`Config::session_lifetime`,
//!   30 days by default; the page's cookie gets the same `Max-Age`), then is refused as a
//!   revoked one is, and listed as revoked at that moment. The time is the stored creation
//!   time, so the end survives a restart and needs no column of its own on either backend.
//!   API tokens do not expire.
//! - **Last use**: kept in memory and written as `TouchTokens` at most once a minute
//!   ([`Accounts::flush_uses`]).
//! - **Cluster**: [`Accounts::poll`] applies the rows other servers changed
//!   (`Store::account_changes`); a server that is a cluster member polls every 250 ms, and a
//!   `gin_at_` token it does not know makes it poll at once (a token made elsewhere a moment
//!   ago works).

pub mod throttle;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::game::shared::AccountDirectory;
use crate::game::state::SeatAccount;
use crate::storage::{AccountRow, AccountWrite, KIND_BOT, KIND_PERSON, StoreError, TokenRow, Write};
use crate::storage::{Startup, Store};
use throttle::{FAILURES_ALLOWED, FailureCounter, HourlyLimit};

/// Every account token starts so; any other bearer is a seat token.
pub const TOKEN_PREFIX: &str = "gin_at_";
/// Scope bit: create, join and play games.
pub const SCOPE_PLAY: u32 = 1;
/// Scope bit: create and enter tournaments.
pub const SCOPE_TOURNAMENT: u32 = 2;
/// Scope bit: manage the account (tokens, password, export, deletion).
pub const SCOPE_ACCOUNT: u32 = 4;
/// Every scope.
pub const SCOPE_ALL: u32 = SCOPE_PLAY | SCOPE_TOURNAMENT | SCOPE_ACCOUNT;
/// The shortest password, in bytes.
pub const PASSWORD_MIN: usize = 8;
/// The longest password, in bytes.
pub const PASSWORD_MAX: usize = 1024;
/// The longest token label, in characters.
pub const LABEL_MAX: usize = 64;
/// Failed sign-ins an address may have in the window before it is slowed down (more than a
/// name's: one address may be many people behind one NAT).
pub const ADDRESS_FAILURES_ALLOWED: u32 = 4 * FAILURES_ALLOWED;
/// How often a cluster member reads the other servers' account changes.
pub const POLL_EVERY: Duration = Duration::from_millis(250);
/// How long a session token lasts by default (see the module docs).
pub const SESSION_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);
/// How often the tokens' last uses are written.
pub const FLUSH_EVERY: Duration = Duration::from_secs(60);

/// The one answer to a wrong password and an unknown name.
pub const WRONG: &str = "wrong name or password";

/// Who a call with an account token is (request extension set by the gate). Its `Debug`
/// leaves the token's hash out.
#[derive(Clone, PartialEq, Eq)]
pub struct AccountIdentity {
    /// The account's id.
    pub account_id: String,
    /// Its name, as registered.
    pub name: String,
    /// Its kind (`storage::KIND_PERSON`, `KIND_BOT`).
    pub kind: i32,
    /// The token's id.
    pub token_id: String,
    /// What the token may do (`SCOPE_*` bits).
    pub scopes: u32,
    /// A session token (from a sign-in).
    pub session: bool,
    /// SHA-256 of the token.
    pub token_hash: [u8; 32],
}

impl std::fmt::Debug for AccountIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccountIdentity")
            .field("account_id", &self.account_id)
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("token_id", &self.token_id)
            .field("scopes", &self.scopes)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl AccountIdentity {
    /// Whether the token has every scope bit of `scope`.
    pub fn may(&self, scope: u32) -> bool {
        self.scopes & scope == scope
    }
}

/// What went wrong with an account call (mapped to a gRPC status in `api::accounts`).
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// A request field is wrong: the message names it.
    #[error("{0}")]
    Invalid(String),
    /// The name is taken (or confusable with a taken one).
    #[error("{0}")]
    Taken(String),
    /// A wrong password or an unknown name, or another failed credential.
    #[error("{0}")]
    Unauthenticated(String),
    /// The token lacks a scope.
    #[error("{0}")]
    Denied(String),
    /// No such account or token.
    #[error("{0}")]
    NotFound(String),
    /// Too many tries: wait this many milliseconds.
    #[error("{message}")]
    Throttled {
        /// What was refused.
        message: String,
        /// Milliseconds to wait.
        retry_after_ms: u64,
    },
    /// The store refused or failed.
    #[error("storage: {0}")]
    Storage(#[from] StoreError),
    /// A bug.
    #[error("internal: {0}")]
    Internal(String),
}

/// A new token: the secret (shown once) and its row. No `Debug`: nothing prints the secret.
pub struct NewToken {
    /// `gin_at_…`.
    pub secret: String,
    /// Its row, as stored.
    pub row: TokenRow,
}

/// The registry's maps.
#[derive(Default)]
struct Registry {
    accounts: HashMap<String, AccountRow>,
    by_key: HashMap<String, String>,
    by_skeleton: HashMap<String, String>,
    tokens: HashMap<[u8; 32], TokenRow>,
    hash_of: HashMap<String, [u8; 32]>,
}

impl Registry {
    fn put_account(&mut self, a: AccountRow) {
        self.by_key.insert(a.name_key.clone(), a.id.clone());
        self.by_skeleton.insert(a.skeleton.clone(), a.id.clone());
        self.accounts.insert(a.id.clone(), a);
    }

    fn put_token(&mut self, t: TokenRow) {
        self.hash_of.insert(t.id.clone(), t.hash);
        self.tokens.insert(t.hash, t);
    }

    fn token_by_id(&self, id: &str) -> Option<&TokenRow> {
        self.hash_of.get(id).and_then(|h| self.tokens.get(h))
    }
}

/// Failed sign-in keys.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FailKey {
    Name(String),
    Addr(Option<IpAddr>),
}

/// The state behind [`Accounts`].
struct Inner {
    store: Store,
    reg: RwLock<Registry>,
    /// A hash of nothing anyone knows, with the same parameters: an unknown name's sign-in
    /// verifies against it, so it takes as long as a wrong password.
    dummy_hash: String,
    /// Failed sign-ins: names' keys and addresses.
    failures: Mutex<(FailureCounter<FailKey>, FailureCounter<FailKey>)>,
    /// Registrations per address.
    registrations: Mutex<HourlyLimit<Option<IpAddr>>>,
    /// Tokens used since the last flush: id → when.
    used: Mutex<HashMap<String, i64>>,
    /// One change at a time (see the module docs).
    changing: tokio::sync::Mutex<()>,
    /// The last account change applied (`Store::account_changes`).
    cursor: tokio::sync::Mutex<i64>,
    /// Each account's deletion flag, shared with the seats it holds (`SeatAccount::deleted`).
    deleted: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// How long a session token lasts, in milliseconds.
    session_ms: i64,
}

/// The account registry (a cheap `Clone` handle): see the module docs.
#[derive(Clone)]
pub struct Accounts(Arc<Inner>);

/// Milliseconds since the epoch.
fn now_ms() -> i64 {
    crate::game::shared::now_ms()
}

/// The start of the house bots' account names (`house-strong`, …): reserved to the server.
pub const HOUSE_PREFIX: &str = "house-";

/// A name's key: lowercased.
pub fn name_key(name: &str) -> String {
    name.to_lowercase()
}

/// A name's confusable skeleton (TR39, of the lowercased name).
pub fn skeleton(name: &str) -> String {
    unicode_security::skeleton(&name.to_lowercase()).collect()
}

/// Checks a name for an account: the rules of player names, not empty, no space around.
pub fn check_name(field: &str, name: &str) -> Result<(), AccountError> {
    if name.is_empty() {
        return Err(AccountError::Invalid(format!("{field}: empty")));
    }
    if name.trim() != name {
        return Err(AccountError::Invalid(format!("{field}: a space at its start or end")));
    }
    gin_proto::text::check(field, name, gin_proto::text::NAME_MAX)
        .map_err(|e| AccountError::Invalid(e.to_string()))
}

/// Checks a new password's length.
fn check_password(field: &str, password: &str) -> Result<(), AccountError> {
    let n = password.len();
    if !(PASSWORD_MIN..=PASSWORD_MAX).contains(&n) {
        return Err(AccountError::Invalid(format!(
            "{field}: {PASSWORD_MIN} to {PASSWORD_MAX} bytes ({n} given)"
        )));
    }
    Ok(())
}

/// Checks a token label (1 to [`LABEL_MAX`] characters, the rules of text).
pub fn check_label(field: &str, label: &str) -> Result<(), AccountError> {
    if label.trim().is_empty() {
        return Err(AccountError::Invalid(format!("{field}: empty")));
    }
    gin_proto::text::check(field, label, LABEL_MAX).map_err(|e| AccountError::Invalid(e.to_string()))
}

/// A password's Argon2id PHC string (on the blocking pool).
pub async fn hash_password(password: String) -> Result<String, AccountError> {
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| AccountError::Internal(format!("hashing a password: {e}")))
    })
    .await
    .map_err(|e| AccountError::Internal(format!("hashing a password: {e}")))?
}

/// Whether `password` matches the PHC string `hash` (on the blocking pool).
pub async fn verify_password(password: String, hash: String) -> bool {
    tokio::task::spawn_blocking(move || {
        Argon2::default().verify_password(password.as_bytes(), hash.as_str()).is_ok()
    })
    .await
    .unwrap_or(false)
}

/// `prefix` and 8 random bytes in hex.
fn new_id(prefix: &str) -> String {
    format!("{prefix}{}", hex::encode(crate::game::shared::random_bytes::<8>()))
}

/// SHA-256 of a token.
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A new token's secret and its hash.
fn new_secret() -> (String, [u8; 32]) {
    let bytes = crate::game::shared::random_bytes::<32>();
    let secret = format!("{TOKEN_PREFIX}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes));
    let hash = hash_token(&secret);
    (secret, hash)
}

/// A new token row for `account_id` (not yet stored) and its secret.
fn new_token(account_id: &str, label: &str, scopes: u32, session: bool) -> NewToken {
    let (secret, hash) = new_secret();
    let now = now_ms();
    let row = TokenRow {
        id: new_id("tk_"),
        account_id: account_id.to_owned(),
        hash,
        label: label.to_owned(),
        scopes,
        session,
        created_ms: now,
        last_used_ms: 0,
        revoked_ms: None,
    };
    NewToken { secret, row }
}

impl Accounts {
    /// The registry of what the store loaded at start (`startup.accounts`, `tokens`,
    /// `account_cursor`, taken out of it); registrations limited to `registrations_per_hour`
    /// per address; session tokens last `session_lifetime` from their creation.
    pub async fn open(
        store: Store,
        startup: &mut Startup,
        registrations_per_hour: u32,
        session_lifetime: Duration,
    ) -> anyhow::Result<Accounts> {
        // Sized once for what the store loaded, not grown (and rehashed) doubling by doubling.
        let (accounts, tokens) = (startup.accounts.len(), startup.tokens.len());
        let mut reg = Registry {
            accounts: HashMap::with_capacity(accounts),
            by_key: HashMap::with_capacity(accounts),
            by_skeleton: HashMap::with_capacity(accounts),
            tokens: HashMap::with_capacity(tokens),
            hash_of: HashMap::with_capacity(tokens),
        };
        for a in std::mem::take(&mut startup.accounts) {
            reg.put_account(a);
        }
        for t in std::mem::take(&mut startup.tokens) {
            reg.put_token(t);
        }
        let dummy = crate::game::shared::new_token();
        let dummy_hash = hash_password(dummy).await.map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(Accounts(Arc::new(Inner {
            store,
            reg: RwLock::new(reg),
            dummy_hash,
            failures: Mutex::new((
                FailureCounter::new(FAILURES_ALLOWED),
                FailureCounter::new(ADDRESS_FAILURES_ALLOWED),
            )),
            registrations: Mutex::new(HourlyLimit::new(registrations_per_hour)),
            used: Mutex::new(HashMap::new()),
            changing: tokio::sync::Mutex::new(()),
            cursor: tokio::sync::Mutex::new(startup.account_cursor),
            deleted: Mutex::new(HashMap::new()),
            session_ms: i64::try_from(session_lifetime.as_millis()).unwrap_or(i64::MAX),
        })))
    }

    /// How long a session token lasts (the web page's cookie's `Max-Age`).
    pub fn session_lifetime(&self) -> Duration {
        Duration::from_millis(u64::try_from(self.0.session_ms).unwrap_or(0))
    }

    /// When session token `t` ends (`None`: an API token, which does not).
    fn ends_ms(&self, t: &TokenRow) -> Option<i64> {
        t.session.then(|| t.created_ms.saturating_add(self.0.session_ms))
    }

    /// `t` as it stands at `now`: a session past its end is revoked at its end.
    fn as_of(&self, mut t: TokenRow, now: i64) -> TokenRow {
        if t.revoked_ms.is_none()
            && let Some(end) = self.ends_ms(&t).filter(|end| now >= *end)
        {
            t.revoked_ms = Some(end);
        }
        t
    }

    /// The identity a bearer `token` (starting `gin_at_`) gives: `None` when it is unknown,
    /// revoked, a session past its end, or its account deleted. One hash and one map lookup;
    /// its use is noted.
    pub fn identify(&self, token: &str) -> Option<AccountIdentity> {
        self.identify_at(token, now_ms())
    }

    /// [`Accounts::identify`] at `now` (Unix milliseconds).
    fn identify_at(&self, token: &str, now: i64) -> Option<AccountIdentity> {
        let hash = hash_token(token);
        let id = {
            let reg = self.0.reg.read().expect("lock");
            let t = reg
                .tokens
                .get(&hash)
                .filter(|t| t.revoked_ms.is_none() && self.ends_ms(t).is_none_or(|end| now < end))?;
            let a = reg.accounts.get(&t.account_id).filter(|a| a.deleted_ms.is_none())?;
            AccountIdentity {
                account_id: a.id.clone(),
                name: a.name.clone(),
                kind: a.kind,
                token_id: t.id.clone(),
                scopes: t.scopes,
                session: t.session,
                token_hash: hash,
            }
        };
        // A token already noted since the last flush (the usual case): no key allocated.
        let mut used = self.0.used.lock().expect("lock");
        match used.get_mut(&id.token_id) {
            Some(at) => *at = now,
            None => {
                used.insert(id.token_id.clone(), now);
            }
        }
        drop(used);
        Some(id)
    }

    /// Whether the registry knows `token` and it can act no more: revoked, a session past its
    /// end, or its account deleted (a token it does not know may be another server's).
    pub fn known_dead(&self, token: &str) -> bool {
        let hash = hash_token(token);
        let now = now_ms();
        let reg = self.0.reg.read().expect("lock");
        reg.tokens.get(&hash).is_some_and(|t| {
            t.revoked_ms.is_some()
                || self.ends_ms(t).is_some_and(|end| now >= end)
                || reg.accounts.get(&t.account_id).is_none_or(|a| a.deleted_ms.is_some())
        })
    }

    /// The account of `id` (deleted ones too).
    pub fn get(&self, id: &str) -> Option<AccountRow> {
        self.0.reg.read().expect("lock").accounts.get(id).cloned()
    }

    /// The account named `name` (without regard to case; deleted ones too).
    pub fn by_name(&self, name: &str) -> Option<AccountRow> {
        let reg = self.0.reg.read().expect("lock");
        reg.by_key.get(&name_key(name)).and_then(|id| reg.accounts.get(id)).cloned()
    }

    /// The token of `id`, with its last use as known now (a session past its end revoked).
    pub fn token(&self, id: &str) -> Option<TokenRow> {
        let mut t = self.0.reg.read().expect("lock").token_by_id(id).cloned()?;
        if let Some(at) = self.0.used.lock().expect("lock").get(id) {
            t.last_used_ms = t.last_used_ms.max(*at);
        }
        Some(self.as_of(t, now_ms()))
    }

    /// The tokens of `account_id`: live ones first, newest first (sessions past their end
    /// revoked).
    pub fn tokens(&self, account_id: &str) -> Vec<TokenRow> {
        let now = now_ms();
        let mut out: Vec<TokenRow> = {
            let reg = self.0.reg.read().expect("lock");
            reg.tokens
                .values()
                .filter(|t| t.account_id == account_id)
                .map(|t| self.as_of(t.clone(), now))
                .collect()
        };
        {
            let used = self.0.used.lock().expect("lock");
            for t in &mut out {
                if let Some(at) = used.get(&t.id) {
                    t.last_used_ms = t.last_used_ms.max(*at);
                }
            }
        }
        out.sort_by(|a, b| {
            (a.revoked_ms.is_some(), std::cmp::Reverse(a.created_ms), &a.id).cmp(&(
                b.revoked_ms.is_some(),
                std::cmp::Reverse(b.created_ms),
                &b.id,
            ))
        });
        out
    }

    /// Writes `writes`, then (acknowledged) applies the rows to memory.
    async fn commit(&self, writes: Vec<AccountWrite>) -> Result<(), AccountError> {
        self.0.store.write(writes.iter().cloned().map(Write::Account).collect()).await?;
        let mut reg = self.0.reg.write().expect("lock");
        for w in writes {
            match w {
                AccountWrite::Create(a) => reg.put_account(a),
                AccountWrite::AddToken(t) => reg.put_token(t),
                AccountWrite::SetPassword { account_id, password_hash } => {
                    if let Some(a) = reg.accounts.get_mut(&account_id) {
                        a.password_hash = Some(password_hash);
                    }
                }
                AccountWrite::RevokeToken { token_id, at_ms } => {
                    if let Some(h) = reg.hash_of.get(&token_id).copied()
                        && let Some(t) = reg.tokens.get_mut(&h)
                    {
                        t.revoked_ms.get_or_insert(at_ms);
                    }
                }
                AccountWrite::TouchTokens(touched) => {
                    for (id, at) in touched {
                        if let Some(h) = reg.hash_of.get(&id).copied()
                            && let Some(t) = reg.tokens.get_mut(&h)
                        {
                            t.last_used_ms = t.last_used_ms.max(at);
                        }
                    }
                }
                AccountWrite::Delete { account_id, at_ms } => {
                    self.mark_deleted(&account_id);
                    if let Some(a) = reg.accounts.get_mut(&account_id) {
                        a.deleted_ms = Some(at_ms);
                        a.password_hash = None;
                    }
                    for t in reg.tokens.values_mut().filter(|t| t.account_id == account_id) {
                        t.revoked_ms.get_or_insert(at_ms);
                    }
                }
            }
        }
        Ok(())
    }

    /// Registers an account named `name` of `kind` (`KIND_PERSON`, `KIND_BOT`), with
    /// `password` (people only; empty: none), for the caller at `addr`: the account and its
    /// first token (every scope; a session when it has a password).
    pub async fn register(
        &self,
        name: &str,
        kind: i32,
        password: &str,
        label: &str,
        addr: Option<IpAddr>,
    ) -> Result<(AccountRow, NewToken), AccountError> {
        check_name("name", name)?;
        if kind != KIND_PERSON && kind != KIND_BOT {
            return Err(AccountError::Invalid("kind: ACCOUNT_KIND_PERSON or ACCOUNT_KIND_BOT".into()));
        }
        if kind == KIND_BOT && !password.is_empty() {
            return Err(AccountError::Invalid("password: a bot account has none".into()));
        }
        if !password.is_empty() {
            check_password("password", password)?;
        }
        let label = if label.is_empty() { "registration" } else { label };
        check_label("token_label", label)?;
        let (key, skel) = (name_key(name), skeleton(name));
        if key.starts_with(HOUSE_PREFIX) || skel.starts_with(&skeleton(HOUSE_PREFIX)) {
            return Err(AccountError::Invalid(format!(
                "name: names starting with {HOUSE_PREFIX:?} are the server's house bots'"
            )));
        }
        self.check_free(&key, &skel)?;
        self.0.registrations.lock().expect("lock").take(addr, tokio::time::Instant::now()).map_err(|ms| {
            AccountError::Throttled {
                message: "registrations: too many from this address in the last hour".into(),
                retry_after_ms: ms,
            }
        })?;
        let done = self.register_checked(name, kind, password, label, key, skel).await;
        if done.is_err() {
            self.0.registrations.lock().expect("lock").give_back(&addr);
        }
        done
    }

    /// The server's own bot account `name` (which starts with [`HOUSE_PREFIX`], a prefix
    /// [`Accounts::register`] refuses to others): registered the first time (a bot account,
    /// no password; its first token is dropped unseen, so nothing outside the server acts as
    /// it), found afterwards, or found after another server of a cluster registered it first.
    pub async fn house_account(&self, name: &str) -> Result<AccountRow, AccountError> {
        debug_assert!(name.starts_with(HOUSE_PREFIX));
        if let Some(a) = self.by_name(name).filter(|a| a.deleted_ms.is_none()) {
            return Ok(a);
        }
        let (key, skel) = (name_key(name), skeleton(name));
        match self.register_checked(name, KIND_BOT, "", "house", key, skel).await {
            Ok((account, _token)) => Ok(account),
            Err(AccountError::Taken(_)) => {
                if self.clustered() {
                    self.poll().await?;
                }
                self.by_name(name).filter(|a| a.deleted_ms.is_none() && a.kind == KIND_BOT).ok_or_else(|| {
                    AccountError::Taken(format!("name: {name:?} is taken by an account not the server's"))
                })
            }
            Err(e) => Err(e),
        }
    }

    /// [`Accounts::register`] once its input is checked and a registration taken.
    async fn register_checked(
        &self,
        name: &str,
        kind: i32,
        password: &str,
        label: &str,
        key: String,
        skel: String,
    ) -> Result<(AccountRow, NewToken), AccountError> {
        let password_hash =
            if password.is_empty() { None } else { Some(hash_password(password.to_owned()).await?) };
        let _one = self.0.changing.lock().await;
        self.check_free(&key, &skel)?;
        let account = AccountRow {
            id: new_id("ac_"),
            name: name.to_owned(),
            name_key: key,
            skeleton: skel,
            kind,
            created_ms: now_ms(),
            password_hash,
            deleted_ms: None,
        };
        let token = new_token(&account.id, label, SCOPE_ALL, account.password_hash.is_some());
        self.commit(vec![AccountWrite::Create(account.clone()), AccountWrite::AddToken(token.row.clone())])
            .await
            .map_err(|e| match e {
                // Another server of the cluster took the name meanwhile.
                AccountError::Storage(StoreError::Refused(_)) => AccountError::Taken("name: taken".into()),
                e => e,
            })?;
        Ok((account, token))
    }

    /// ALREADY_EXISTS when the key or the skeleton is taken.
    fn check_free(&self, key: &str, skel: &str) -> Result<(), AccountError> {
        let reg = self.0.reg.read().expect("lock");
        if reg.by_key.contains_key(key) {
            return Err(AccountError::Taken("name: taken".into()));
        }
        if reg.by_skeleton.contains_key(skel) {
            return Err(AccountError::Taken("name: too like a taken name (confusable characters)".into()));
        }
        Ok(())
    }

    /// Signs `name` in with `password` for the caller at `addr`: a new session token.
    pub async fn sign_in(
        &self,
        name: &str,
        password: &str,
        label: &str,
        addr: Option<IpAddr>,
    ) -> Result<(AccountRow, NewToken), AccountError> {
        let label = if label.is_empty() { "sign-in" } else { label };
        check_label("label", label)?;
        let name_k = FailKey::Name(name_key(name));
        let addr_k = FailKey::Addr(addr);
        self.check_failures(&name_k, Some(&addr_k))?;
        let account = self.by_name(name).filter(|a| a.deleted_ms.is_none());
        let hash = account.as_ref().and_then(|a| a.password_hash.clone());
        let known = hash.is_some();
        let ok = verify_password(password.to_owned(), hash.unwrap_or_else(|| self.0.dummy_hash.clone()))
            .await
            && known;
        let account = match (ok, account) {
            (true, Some(a)) => a,
            _ => {
                self.count_failure(name_k, Some(addr_k));
                return Err(AccountError::Unauthenticated(WRONG.into()));
            }
        };
        self.0.failures.lock().expect("lock").0.forget(&name_k);
        let token = new_token(&account.id, label, SCOPE_ALL, true);
        let _one = self.0.changing.lock().await;
        self.commit(vec![AccountWrite::AddToken(token.row.clone())]).await?;
        Ok((account, token))
    }

    /// RESOURCE_EXHAUSTED when the failures of `name` (a name's key), or of `addr`, call for
    /// a wait.
    fn check_failures(&self, name: &FailKey, addr: Option<&FailKey>) -> Result<(), AccountError> {
        let now = tokio::time::Instant::now();
        let mut f = self.0.failures.lock().expect("lock");
        let by_addr = addr.and_then(|a| f.1.check(a, now).err());
        match f.0.check(name, now).err().max(by_addr) {
            Some(ms) => Err(AccountError::Throttled {
                message: "too many wrong passwords; retry later".into(),
                retry_after_ms: ms,
            }),
            None => Ok(()),
        }
    }

    /// Counts a wrong password against `name` (and `addr`).
    fn count_failure(&self, name: FailKey, addr: Option<FailKey>) {
        let now = tokio::time::Instant::now();
        let mut f = self.0.failures.lock().expect("lock");
        f.0.fail(name, now);
        if let Some(a) = addr {
            f.1.fail(a, now);
        }
    }

    /// Checks `password` against `a`'s (when it has one), throttled as sign-ins are: a wrong
    /// one is UNAUTHENTICATED naming `field`.
    async fn confirm_password(
        &self,
        a: &AccountRow,
        field: &str,
        password: &str,
    ) -> Result<(), AccountError> {
        let Some(hash) = a.password_hash.clone() else { return Ok(()) };
        let key = FailKey::Name(a.name_key.clone());
        self.check_failures(&key, None)?;
        if verify_password(password.to_owned(), hash).await {
            return Ok(());
        }
        self.count_failure(key, None);
        Err(AccountError::Unauthenticated(format!("{field}: wrong password")))
    }

    /// Revokes `token_id` of `account_id`; NOT_FOUND when the account has no such token.
    pub async fn revoke(&self, account_id: &str, token_id: &str) -> Result<TokenRow, AccountError> {
        let _one = self.0.changing.lock().await;
        let t = self
            .token(token_id)
            .filter(|t| t.account_id == account_id)
            .ok_or_else(|| AccountError::NotFound(format!("id: no token {token_id:?} of yours")))?;
        if t.revoked_ms.is_none() {
            self.commit(vec![AccountWrite::RevokeToken { token_id: token_id.to_owned(), at_ms: now_ms() }])
                .await?;
        }
        self.token(token_id).ok_or_else(|| AccountError::Internal("a token vanished".into()))
    }

    /// Creates an API token of `account_id`.
    pub async fn create_token(
        &self,
        account_id: &str,
        label: &str,
        scopes: u32,
    ) -> Result<NewToken, AccountError> {
        check_label("label", label)?;
        if scopes == 0 {
            return Err(AccountError::Invalid("scopes: at least one".into()));
        }
        let token = new_token(account_id, label, scopes, false);
        let _one = self.0.changing.lock().await;
        self.commit(vec![AccountWrite::AddToken(token.row.clone())]).await?;
        Ok(token)
    }

    /// Sets `account_id`'s password to `new` (`current` must match the one set): every
    /// session token is revoked; a new session token is returned.
    pub async fn set_password(
        &self,
        account_id: &str,
        current: &str,
        new: &str,
    ) -> Result<NewToken, AccountError> {
        check_password("new_password", new)?;
        let a = self.get(account_id).ok_or_else(|| AccountError::NotFound("no such account".into()))?;
        if a.kind != KIND_PERSON {
            return Err(AccountError::Invalid("new_password: a bot account has none".into()));
        }
        self.confirm_password(&a, "current_password", current).await?;
        let hash = hash_password(new.to_owned()).await?;
        let token = new_token(account_id, "password set", SCOPE_ALL, true);
        let _one = self.0.changing.lock().await;
        let now = now_ms();
        let mut writes =
            vec![AccountWrite::SetPassword { account_id: account_id.to_owned(), password_hash: hash }];
        for t in self.tokens(account_id) {
            if t.session && t.revoked_ms.is_none() {
                writes.push(AccountWrite::RevokeToken { token_id: t.id, at_ms: now });
            }
        }
        writes.push(AccountWrite::AddToken(token.row.clone()));
        self.commit(writes).await?;
        Ok(token)
    }

    /// Deletes `account_id` once `confirm_name` is its name exactly and `password` matches
    /// (when it has one): its tokens end at once.
    pub async fn delete(
        &self,
        account_id: &str,
        confirm_name: &str,
        password: &str,
    ) -> Result<(), AccountError> {
        let a = self.get(account_id).ok_or_else(|| AccountError::NotFound("no such account".into()))?;
        if confirm_name != a.name {
            return Err(AccountError::Invalid("confirm_name: not the account's name".into()));
        }
        self.confirm_password(&a, "password", password).await?;
        let _one = self.0.changing.lock().await;
        self.commit(vec![AccountWrite::Delete { account_id: account_id.to_owned(), at_ms: now_ms() }]).await
    }

    /// Writes the tokens' last uses noted since the last flush (`TouchTokens`).
    pub async fn flush_uses(&self) {
        let used: Vec<(String, i64)> =
            std::mem::take(&mut *self.0.used.lock().expect("lock")).into_iter().collect();
        if used.is_empty() {
            return;
        }
        if let Err(e) = self.commit(vec![AccountWrite::TouchTokens(used.clone())]).await {
            tracing::warn!(error = %e, "writing the tokens' last uses");
            let mut mine = self.0.used.lock().expect("lock");
            for (id, at) in used {
                let e = mine.entry(id).or_insert(at);
                *e = (*e).max(at);
            }
        }
    }

    /// Applies the account and token rows the store changed since the last poll (other
    /// servers' new accounts, tokens, revocations, deletions).
    pub async fn poll(&self) -> Result<(), AccountError> {
        let mut cursor = self.0.cursor.lock().await;
        let changes = self.0.store.account_changes(*cursor).await?;
        {
            let mut reg = self.0.reg.write().expect("lock");
            for a in changes.accounts {
                if a.deleted_ms.is_some() {
                    self.mark_deleted(&a.id);
                }
                reg.put_account(a);
            }
            for t in changes.tokens {
                reg.put_token(t);
            }
        }
        *cursor = changes.cursor.max(*cursor);
        Ok(())
    }

    /// [`Accounts::identify`], and when the token is unknown and the server is a cluster
    /// member, once more after a poll (a token made on another server a moment ago).
    pub async fn identify_fresh(&self, token: &str) -> Option<AccountIdentity> {
        if let Some(id) = self.identify(token) {
            return Some(id);
        }
        self.0.store.member()?;
        let _ = self.poll().await;
        self.identify(token)
    }

    /// The deletion flag of `account_id`, shared by its seats.
    fn deleted_flag(&self, account_id: &str, deleted: bool) -> Arc<AtomicBool> {
        self.0
            .deleted
            .lock()
            .expect("lock")
            .entry(account_id.to_owned())
            .or_insert_with(|| Arc::new(AtomicBool::new(deleted)))
            .clone()
    }

    /// Marks `account_id` deleted on every seat it holds.
    fn mark_deleted(&self, account_id: &str) {
        self.deleted_flag(account_id, true).store(true, Ordering::Relaxed);
    }

    /// Whether this server is a cluster member (it polls; unknown tokens poll once).
    pub fn clustered(&self) -> bool {
        self.0.store.member().is_some()
    }

    /// Spawns the background work: last uses written every minute; in a cluster, the other
    /// servers' changes read every [`POLL_EVERY`]; the throttles pruned. Ends when the last
    /// handle is dropped.
    pub fn spawn_tasks(&self) {
        let weak = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(FLUSH_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                let a = Accounts(inner);
                a.flush_uses().await;
                let now = tokio::time::Instant::now();
                let mut f = a.0.failures.lock().expect("lock");
                f.0.prune(now);
                f.1.prune(now);
                drop(f);
                a.0.registrations.lock().expect("lock").prune(now);
            }
        });
        if self.clustered() {
            let weak = Arc::downgrade(&self.0);
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(POLL_EVERY);
                tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    tick.tick().await;
                    let Some(inner) = weak.upgrade() else { return };
                    if let Err(e) = Accounts(inner).poll().await {
                        tracing::warn!(error = %e, "reading the accounts' changes");
                    }
                }
            });
        }
    }
}

impl AccountDirectory for Accounts {
    fn seat_account(&self, id: &str) -> SeatAccount {
        let a = self.get(id);
        let deleted = a.as_ref().is_some_and(|a| a.deleted_ms.is_some());
        SeatAccount {
            id: id.to_owned(),
            name: a.as_ref().map(|a| a.name.clone()).unwrap_or_default(),
            // The wire's `AccountKind` has the stored numbers (1 a person, 2 a bot).
            kind: a.as_ref().map_or(0, |a| a.kind),
            deleted: self.deleted_flag(id, deleted),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Memory changes only once the store has the change: a write that fails leaves the name
    /// free and the token unknown.
    #[tokio::test]
    async fn nothing_changes_in_memory_unless_the_store_acknowledged_it() {
        let dir = tempfile::tempdir().unwrap();
        let (store, mut startup) = Store::open_sqlite(&dir.path().join("gin.db")).unwrap();
        let accounts = Accounts::open(store.clone(), &mut startup, 0, SESSION_LIFETIME).await.unwrap();
        let (a, token) = accounts.register("Kim", KIND_BOT, "", "", None).await.unwrap();
        assert_eq!(accounts.identify(&token.secret).unwrap().account_id, a.id);
        assert_eq!(accounts.by_name("KIM").unwrap().id, a.id);
        store.close().await;
        assert!(matches!(
            accounts.register("Lee", KIND_BOT, "", "", None).await,
            Err(AccountError::Storage(StoreError::Closed))
        ));
        assert!(accounts.by_name("lee").is_none());
        assert!(accounts.create_token(&a.id, "more", SCOPE_PLAY).await.is_err());
        assert_eq!(accounts.tokens(&a.id).len(), 1);
        assert!(accounts.revoke(&a.id, &token.row.id).await.is_err());
        assert!(accounts.identify(&token.secret).is_some(), "not revoked: the store never had it");
    }

    /// A session token is refused from its creation plus the lifetime on (not a millisecond
    /// before), and listed as revoked then; an API token lasts.
    #[tokio::test]
    async fn a_session_ends_after_its_lifetime_and_an_api_token_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let (store, mut startup) = Store::open_sqlite(&dir.path().join("gin.db")).unwrap();
        let life = Duration::from_secs(3600);
        let accounts = Accounts::open(store.clone(), &mut startup, 0, life).await.unwrap();
        assert_eq!(accounts.session_lifetime(), life);
        let (a, session) = accounts.register("Kim", KIND_PERSON, "correct horse", "", None).await.unwrap();
        assert!(session.row.session);
        let api = accounts.create_token(&a.id, "bot", SCOPE_PLAY).await.unwrap();
        let end = session.row.created_ms + 3_600_000;
        assert!(accounts.identify_at(&session.secret, end - 1).is_some());
        assert!(accounts.identify_at(&session.secret, end).is_none());
        assert!(accounts.identify_at(&api.secret, end + 10 * 365 * 86_400_000).is_some());
        let listed = accounts.as_of(accounts.token(&session.row.id).unwrap(), end);
        assert_eq!(listed.revoked_ms, Some(end));
        assert_eq!(accounts.as_of(accounts.token(&session.row.id).unwrap(), end - 1).revoked_ms, None);
        // Opened again with a lifetime already past: refused now, from the stored creation time.
        store.close().await;
        let (store, mut startup) = Store::open_sqlite(&dir.path().join("gin.db")).unwrap();
        let short = Accounts::open(store, &mut startup, 0, Duration::ZERO).await.unwrap();
        assert!(short.identify(&session.secret).is_none());
        assert!(short.identify(&api.secret).is_some());
        assert_eq!(short.token(&session.row.id).unwrap().revoked_ms, Some(session.row.created_ms));
    }

    #[test]
    fn names_keys_and_skeletons() {
        assert_eq!(name_key("Paul"), name_key("pAUL"));
        assert_eq!(skeleton("Pau1"), skeleton("paul"));
        assert_ne!(skeleton("Paula"), skeleton("paul"));
        assert!(check_name("name", "Łukasz").is_ok());
        assert!(check_name("name", "").is_err());
        assert!(check_name("name", "x ").is_err());
        let (secret, hash) = new_secret();
        assert!(secret.starts_with(TOKEN_PREFIX) && secret.len() == TOKEN_PREFIX.len() + 43);
        assert_eq!(hash, hash_token(&secret));
    }
}
