//! `AccountService`: registration, sign-in, tokens, password, export, deletion, profiles and
//! an account's games, over the registry of `crate::accounts`.
//!
//! The caller is the [`AccountIdentity`] the gate put in the call's extensions (a `gin_at_`
//! bearer); a call that needs one without it is UNAUTHENTICATED, one whose token lacks the
//! scope PERMISSION_DENIED. Errors name the request's field; input refused changes nothing.
//! No answer holds a secret but a new token, once; nothing here logs one.
//!
//! An account's games come from the store (`Store::account_games`, newest seat first), their
//! format, rules and result from the stored game; a page token is opaque to clients (base64url
//! of the last game's `joined_ms` and id).

use base64::Engine as _;
use gin_proto::v1 as pb;
use gin_proto::v1::account_service_server::AccountService;
use tonic::{Code, Request, Response, Status};

use super::gate::ClientAddr;
use crate::accounts::{
    AccountError, AccountIdentity, Accounts, NewToken, SCOPE_ACCOUNT, SCOPE_PLAY, SCOPE_TOURNAMENT,
};
use crate::game::shared::stored_format;
use crate::game::wire;
use crate::storage::{AccountGame, AccountRow, KIND_BOT, KIND_PERSON, SeatRow, Store, TokenRow};

/// The default and the largest page of `ListPlayerGames`.
const PAGE_DEFAULT: usize = 20;
/// The largest page of `ListPlayerGames`.
const PAGE_MAX: usize = 100;

/// `AccountService`.
pub struct AccountApi {
    accounts: Accounts,
    store: Store,
}

impl AccountApi {
    /// The service over `accounts`, reading games from `store`.
    pub fn new(accounts: Accounts, store: Store) -> AccountApi {
        AccountApi { accounts, store }
    }
}

impl From<AccountError> for Status {
    fn from(e: AccountError) -> Status {
        let msg = e.to_string();
        match e {
            AccountError::Invalid(_) => Status::invalid_argument(msg),
            AccountError::Taken(_) => Status::already_exists(msg),
            AccountError::Unauthenticated(_) => Status::unauthenticated(msg),
            AccountError::Denied(_) => Status::permission_denied(msg),
            AccountError::NotFound(_) => Status::not_found(msg),
            AccountError::Throttled { retry_after_ms, .. } => {
                let mut s = Status::new(Code::ResourceExhausted, msg);
                if let Ok(v) = retry_after_ms.to_string().parse() {
                    s.metadata_mut().insert("retry-after-ms", v);
                }
                s
            }
            AccountError::Storage(e) => e.into(),
            AccountError::Internal(_) => Status::internal(msg),
        }
    }
}

/// The caller's account identity; UNAUTHENTICATED without one, PERMISSION_DENIED without
/// `scope` (0: any token).
pub fn caller<T>(req: &Request<T>, scope: u32) -> Result<AccountIdentity, Status> {
    let id = req.extensions().get::<AccountIdentity>().cloned().ok_or_else(|| {
        Status::unauthenticated("this call needs an account token: metadata `authorization: Bearer gin_at_…`")
    })?;
    if !id.may(scope) {
        return Err(Status::permission_denied(format!("this token lacks the scope {}", scope_names(scope))));
    }
    Ok(id)
}

/// The names of the scope bits in `scope`.
fn scope_names(scope: u32) -> String {
    let mut names = Vec::new();
    for (bit, name) in [(SCOPE_PLAY, "play"), (SCOPE_TOURNAMENT, "tournament"), (SCOPE_ACCOUNT, "account")] {
        if scope & bit != 0 {
            names.push(name);
        }
    }
    names.join(", ")
}

/// A scope's bit; INVALID_ARGUMENT for an unspecified or unknown one.
fn scope_bit(s: i32) -> Result<u32, Status> {
    match pb::TokenScope::try_from(s) {
        Ok(pb::TokenScope::Play) => Ok(SCOPE_PLAY),
        Ok(pb::TokenScope::Tournament) => Ok(SCOPE_TOURNAMENT),
        Ok(pb::TokenScope::Account) => Ok(SCOPE_ACCOUNT),
        _ => Err(Status::invalid_argument(format!("scopes: {s} is not a scope"))),
    }
}

/// The scopes of a bit mask, for the wire.
fn scopes_pb(bits: u32) -> Vec<i32> {
    let mut out = Vec::new();
    for (bit, s) in [
        (SCOPE_PLAY, pb::TokenScope::Play),
        (SCOPE_TOURNAMENT, pb::TokenScope::Tournament),
        (SCOPE_ACCOUNT, pb::TokenScope::Account),
    ] {
        if bits & bit != 0 {
            out.push(s as i32);
        }
    }
    out
}

/// An account kind for the wire.
pub fn kind_pb(kind: i32) -> pb::AccountKind {
    match kind {
        KIND_PERSON => pb::AccountKind::Person,
        KIND_BOT => pb::AccountKind::Bot,
        _ => pb::AccountKind::Unspecified,
    }
}

/// An account as anyone sees it (`has_password` only for its owner).
fn account_pb(a: &AccountRow, own: bool) -> pb::Account {
    pb::Account {
        name: a.name.clone(),
        kind: kind_pb(a.kind) as i32,
        created_unix_ms: a.created_ms,
        has_password: own && a.password_hash.is_some(),
    }
}

/// A token as its owner sees it.
fn token_pb(t: &TokenRow) -> pb::TokenInfo {
    pb::TokenInfo {
        id: t.id.clone(),
        label: t.label.clone(),
        scopes: scopes_pb(t.scopes),
        created_unix_ms: t.created_ms,
        last_used_unix_ms: t.last_used_ms,
        revoked_unix_ms: t.revoked_ms.unwrap_or(0),
        session: t.session,
    }
}

/// The account of `identity` (it may have been deleted since the gate looked).
fn account_of(accounts: &Accounts, identity: &AccountIdentity) -> Result<AccountRow, Status> {
    accounts
        .get(&identity.account_id)
        .filter(|a| a.deleted_ms.is_none())
        .ok_or_else(|| Status::unauthenticated("unknown, revoked or expired account token"))
}

/// The wire kind of a request's account kind.
fn kind_of(k: i32) -> Result<i32, Status> {
    match pb::AccountKind::try_from(k) {
        Ok(pb::AccountKind::Person) => Ok(KIND_PERSON),
        Ok(pb::AccountKind::Bot) => Ok(KIND_BOT),
        _ => Err(Status::invalid_argument("kind: ACCOUNT_KIND_PERSON or ACCOUNT_KIND_BOT")),
    }
}

/// A page token for the games after `(joined_ms, game_id)`.
fn page_token(joined_ms: i64, game_id: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{joined_ms}:{game_id}"))
}

/// The cursor of a page token; INVALID_ARGUMENT when it is not one.
fn parse_page_token(t: &str) -> Result<Option<(i64, String)>, Status> {
    if t.is_empty() {
        return Ok(None);
    }
    let bad = || Status::invalid_argument("page_token: not a page token of this call");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(t).map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let (ms, id) = text.split_once(':').ok_or_else(bad)?;
    Ok(Some((ms.parse().map_err(|_| bad())?, id.to_owned())))
}

/// The wire seats of a stored game, each with its account (from the registry).
fn seats_pb(accounts: &Accounts, g: &AccountGame, players: u8, teams: bool) -> Vec<pb::SeatInfo> {
    (0..players)
        .map(|i| {
            let row = g.seats.iter().rev().find(|s| s.seat == i);
            let mut info = pb::SeatInfo {
                seat: u32::from(i),
                name: row.map(|r| r.name.clone()).unwrap_or_default(),
                taken: row.is_some(),
                bot: row.is_some_and(|r| r.bot && !g.game.house_bot.is_empty()),
                team: teams.then_some(u32::from(i % 2)),
                entrant: row.is_some_and(|r| r.bot && g.game.house_bot.is_empty()),
                ..Default::default()
            };
            if let Some(a) = row.and_then(|r| r.account_id.as_deref()).and_then(|id| accounts.get(id)) {
                fill_account(&mut info, &a);
            }
            info
        })
        .collect()
}

/// Fills a seat's account fields from its account's row.
pub fn fill_account(info: &mut pb::SeatInfo, a: &AccountRow) {
    if a.deleted_ms.is_some() {
        info.account_deleted = true;
    } else {
        info.account = a.name.clone();
        info.account_kind = kind_pb(a.kind) as i32;
    }
}

/// The account's seat of a game: its latest.
fn own_seat<'a>(g: &'a AccountGame, account_id: &str) -> Option<&'a SeatRow> {
    g.seats
        .iter()
        .filter(|s| s.account_id.as_deref() == Some(account_id))
        .max_by_key(|s| (s.joined_ms, s.seat))
}

/// How a stored game ended for `seat`.
fn outcome(result_json: &str, seat: u8) -> pb::GameOutcome {
    let v: serde_json::Value = serde_json::from_str(result_json).unwrap_or_default();
    let nums = |key: &str| -> Vec<i64> {
        v.get(key)
            .and_then(|x| x.as_array())
            .map(|a| a.iter().filter_map(|n| n.as_i64()).collect())
            .unwrap_or_default()
    };
    let winner = v.get("winner").and_then(|w| w.as_u64());
    let winners = nums("winners");
    let table_totals = nums("table_totals");
    let totals = if table_totals.is_empty() { nums("totals") } else { table_totals };
    let won = winner == Some(u64::from(seat)) || winners.contains(&i64::from(seat));
    let reason = v
        .get("reason")
        .and_then(|r| r.as_str())
        .and_then(pb::GameEndReason::from_str_name)
        .unwrap_or(pb::GameEndReason::Unspecified);
    pb::GameOutcome {
        won,
        drawn: winner.is_none() && winners.is_empty(),
        totals: totals.into_iter().map(|t| t as i32).collect(),
        reason: reason as i32,
    }
}

/// A stored game as one of `account_id`'s.
fn player_game(accounts: &Accounts, account_id: &str, g: &AccountGame) -> pb::PlayerGame {
    let format = stored_format(&g.game.rules_json).ok();
    let players = format.as_ref().map_or(2, |f| f.players());
    let teams = format.as_ref().is_some_and(|f| matches!(f, engine::Format::Teams(_)));
    let mine = own_seat(g, account_id);
    let seat = mine.map_or(0, |s| s.seat);
    pb::PlayerGame {
        game_id: g.game.id.clone(),
        format: format.as_ref().map(wire::format_info),
        rules: format.as_ref().and_then(|f| f.gin_rules()).map(wire::rule_set),
        seat: u32::from(seat),
        seats: seats_pb(accounts, g, players, teams),
        joined_unix_ms: mine.map_or(0, |s| s.joined_ms),
        finished_unix_ms: g.finished.as_ref().map_or(0, |f| f.finished_ms),
        outcome: g.finished.as_ref().map(|f| outcome(&f.result_json, seat)),
    }
}

impl AccountApi {
    /// A page of `account_id`'s games after `before`, and the next page's token.
    async fn games(
        &self,
        account_id: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<(Vec<pb::PlayerGame>, String), Status> {
        let page = self.store.account_games(account_id, before, limit + 1).await?;
        let more = page.len() > limit;
        let games: Vec<pb::PlayerGame> =
            page.iter().take(limit).map(|g| player_game(&self.accounts, account_id, g)).collect();
        let next = match (more, page.get(limit.saturating_sub(1)).and_then(|g| g.cursor(account_id))) {
            (true, Some((ms, id))) => page_token(ms, &id),
            _ => String::new(),
        };
        Ok((games, next))
    }

    /// Every game of `account_id`, newest first.
    async fn all_games(&self, account_id: &str) -> Result<Vec<pb::PlayerGame>, Status> {
        let mut out = Vec::new();
        let mut before = None;
        loop {
            let (mut page, next) = self.games(account_id, before, PAGE_MAX).await?;
            out.append(&mut page);
            match parse_page_token(&next)? {
                Some(c) => before = Some(c),
                None => return Ok(out),
            }
        }
    }

    /// The answer with a new token.
    fn shown(token: NewToken) -> (String, Option<pb::TokenInfo>) {
        let info = token_pb(&token.row);
        (token.secret, Some(info))
    }
}

#[tonic::async_trait]
impl AccountService for AccountApi {
    async fn register(
        &self,
        req: Request<pb::RegisterRequest>,
    ) -> Result<Response<pb::RegisterResponse>, Status> {
        let addr = ClientAddr::of(&req).map(|a| a.ip());
        let r = req.into_inner();
        let kind = kind_of(r.kind)?;
        let (account, token) =
            self.accounts.register(&r.name, kind, &r.password, &r.token_label, addr).await?;
        let (token, token_info) = Self::shown(token);
        Ok(Response::new(pb::RegisterResponse {
            account: Some(account_pb(&account, true)),
            token,
            token_info,
        }))
    }

    async fn sign_in(&self, req: Request<pb::SignInRequest>) -> Result<Response<pb::SignInResponse>, Status> {
        let addr = ClientAddr::of(&req).map(|a| a.ip());
        let r = req.into_inner();
        let (account, token) = self.accounts.sign_in(&r.name, &r.password, &r.label, addr).await?;
        let (token, token_info) = Self::shown(token);
        Ok(Response::new(pb::SignInResponse { account: Some(account_pb(&account, true)), token, token_info }))
    }

    async fn sign_out(
        &self,
        req: Request<pb::SignOutRequest>,
    ) -> Result<Response<pb::SignOutResponse>, Status> {
        let id = caller(&req, 0)?;
        self.accounts.revoke(&id.account_id, &id.token_id).await?;
        Ok(Response::new(pb::SignOutResponse {}))
    }

    async fn who_am_i(
        &self,
        req: Request<pb::WhoAmIRequest>,
    ) -> Result<Response<pb::WhoAmIResponse>, Status> {
        let id = caller(&req, 0)?;
        let account = account_of(&self.accounts, &id)?;
        let token = self.accounts.token(&id.token_id).map(|t| token_pb(&t));
        Ok(Response::new(pb::WhoAmIResponse { account: Some(account_pb(&account, true)), token }))
    }

    async fn set_password(
        &self,
        req: Request<pb::SetPasswordRequest>,
    ) -> Result<Response<pb::SetPasswordResponse>, Status> {
        let id = caller(&req, SCOPE_ACCOUNT)?;
        let r = req.into_inner();
        let token = self.accounts.set_password(&id.account_id, &r.current_password, &r.new_password).await?;
        let (token, token_info) = Self::shown(token);
        Ok(Response::new(pb::SetPasswordResponse { token, token_info }))
    }

    async fn create_token(
        &self,
        req: Request<pb::CreateTokenRequest>,
    ) -> Result<Response<pb::CreateTokenResponse>, Status> {
        let id = caller(&req, SCOPE_ACCOUNT)?;
        let r = req.into_inner();
        let mut scopes = 0;
        for s in &r.scopes {
            scopes |= scope_bit(*s)?;
        }
        let token = self.accounts.create_token(&id.account_id, &r.label, scopes).await?;
        let (token, token_info) = Self::shown(token);
        Ok(Response::new(pb::CreateTokenResponse { token, token_info }))
    }

    async fn list_tokens(
        &self,
        req: Request<pb::ListTokensRequest>,
    ) -> Result<Response<pb::ListTokensResponse>, Status> {
        let id = caller(&req, SCOPE_ACCOUNT)?;
        let tokens = self.accounts.tokens(&id.account_id).iter().map(token_pb).collect();
        Ok(Response::new(pb::ListTokensResponse { tokens }))
    }

    async fn revoke_token(
        &self,
        req: Request<pb::RevokeTokenRequest>,
    ) -> Result<Response<pb::RevokeTokenResponse>, Status> {
        let id = caller(&req, SCOPE_ACCOUNT)?;
        let t = self.accounts.revoke(&id.account_id, &req.get_ref().id).await?;
        Ok(Response::new(pb::RevokeTokenResponse { token_info: Some(token_pb(&t)) }))
    }

    async fn export_account(
        &self,
        req: Request<pb::ExportAccountRequest>,
    ) -> Result<Response<pb::ExportAccountResponse>, Status> {
        let id = caller(&req, SCOPE_ACCOUNT)?;
        let a = account_of(&self.accounts, &id)?;
        let tokens: Vec<serde_json::Value> = self
            .accounts
            .tokens(&a.id)
            .iter()
            .map(|t| {
                serde_json::json!({
                    "id": t.id,
                    "label": t.label,
                    "scopes": scope_names(t.scopes).split(", ").filter(|s| !s.is_empty()).collect::<Vec<_>>(),
                    "session": t.session,
                    "created_unix_ms": t.created_ms,
                    "last_used_unix_ms": t.last_used_ms,
                    "revoked_unix_ms": t.revoked_ms,
                })
            })
            .collect();
        let games: Vec<serde_json::Value> = self
            .all_games(&a.id)
            .await?
            .iter()
            .map(|g| {
                let opponents: Vec<&str> =
                    g.seats.iter().filter(|s| s.seat != g.seat && s.taken).map(|s| s.name.as_str()).collect();
                let result = g.outcome.as_ref().map(|o| {
                    serde_json::json!({
                        "won": o.won,
                        "drawn": o.drawn,
                        "totals": o.totals,
                        "reason": pb::GameEndReason::try_from(o.reason).map(|r| r.as_str_name()).unwrap_or("?"),
                    })
                });
                serde_json::json!({
                    "id": g.game_id,
                    "format": g.format.as_ref().map(|f| f.kind.clone()),
                    "seat": g.seat,
                    "opponents": opponents,
                    "joined_unix_ms": g.joined_unix_ms,
                    "finished_unix_ms": (g.finished_unix_ms != 0).then_some(g.finished_unix_ms),
                    "result": result,
                })
            })
            .collect();
        let doc = serde_json::json!({
            "account": {
                "id": a.id,
                "name": a.name,
                "kind": kind_pb(a.kind).as_str_name(),
                "created_unix_ms": a.created_ms,
                "has_password": a.password_hash.is_some(),
            },
            "tokens": tokens,
            "games": games,
        });
        let json = serde_json::to_string_pretty(&doc).map_err(|e| Status::internal(e.to_string()))?;
        Ok(Response::new(pb::ExportAccountResponse { json }))
    }

    async fn delete_account(
        &self,
        req: Request<pb::DeleteAccountRequest>,
    ) -> Result<Response<pb::DeleteAccountResponse>, Status> {
        let id = caller(&req, SCOPE_ACCOUNT)?;
        let r = req.into_inner();
        self.accounts.delete(&id.account_id, &r.confirm_name, &r.password).await?;
        Ok(Response::new(pb::DeleteAccountResponse {}))
    }

    async fn get_account(
        &self,
        req: Request<pb::GetAccountRequest>,
    ) -> Result<Response<pb::GetAccountResponse>, Status> {
        let own = req.extensions().get::<AccountIdentity>().map(|i| i.account_id.clone());
        let name = &req.get_ref().name;
        let a = self.accounts.by_name(name).filter(|a| a.deleted_ms.is_none()).ok_or_else(|| {
            Status::not_found(format!("name: no account {:?}", gin_proto::text::printable(name)))
        })?;
        let games_finished =
            self.all_games(&a.id).await?.iter().filter(|g| g.finished_unix_ms != 0).count() as u64;
        let mine = own.as_deref() == Some(a.id.as_str());
        Ok(Response::new(pb::GetAccountResponse { account: Some(account_pb(&a, mine)), games_finished }))
    }

    async fn list_player_games(
        &self,
        req: Request<pb::ListPlayerGamesRequest>,
    ) -> Result<Response<pb::ListPlayerGamesResponse>, Status> {
        let own = req.extensions().get::<AccountIdentity>().cloned();
        let r = req.into_inner();
        let a = if r.name.is_empty() {
            let id = own
                .as_ref()
                .ok_or_else(|| Status::invalid_argument("name: empty, and the call is not signed in"))?;
            account_of(&self.accounts, id)?
        } else {
            self.accounts.by_name(&r.name).filter(|a| a.deleted_ms.is_none()).ok_or_else(|| {
                Status::not_found(format!("name: no account {:?}", gin_proto::text::printable(&r.name)))
            })?
        };
        let size = match r.page_size {
            0 => PAGE_DEFAULT,
            n => (n as usize).min(PAGE_MAX),
        };
        let before = parse_page_token(&r.page_token)?;
        let (games, next_page_token) = self.games(&a.id, before, size).await?;
        let mine = own.is_some_and(|i| i.account_id == a.id);
        Ok(Response::new(pb::ListPlayerGamesResponse {
            account: Some(account_pb(&a, mine)),
            games,
            next_page_token,
        }))
    }
}
