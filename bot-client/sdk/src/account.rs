//! Accounts (`AccountService`, `proto/gin/v1/account.proto`): players who come back as
//! themselves, people and bots.
//!
//! A [`Client`] holding an account token ([`Client::with_account_token`]) sends it as
//! `authorization: Bearer <token>` on lobby, tournament and account calls: the seats it takes
//! are the account's (the seat token the join returns still plays them). The wrappers here
//! are the service's calls, one each, retried as the rest of the SDK's calls are: those that
//! only read on transient failures, those that create something (`Register`, `SignIn`,
//! `CreateToken`, `SetPassword`) only when the refusal says nothing was done
//! ([`crate::nothing_done`], a rate limit excepted: its wait, up to an hour for
//! registrations, is the caller's to see, not to sleep through).
//!
//! Tokens are secrets: [`Client`] never shows its own (its `Debug` is redacted), and the
//! tokens a call creates are handed back once, in its answer.
//!
//! ```no_run
//! # async fn demo() -> Result<(), gin_sdk::Error> {
//! use gin_proto::v1 as pb;
//! let client = gin_sdk::Client::connect("http://127.0.0.1:50051").await?;
//! let made = client.register("my-bot", pb::AccountKind::Bot, "", "ladder").await?;
//! let me = client.with_account_token(Some(made.token));
//! let seat = me.quick_match(gin_sdk::preset("standard"), "my-bot").await?; // the account's seat
//! # let _ = seat; Ok(()) }
//! ```

use gin_proto::v1 as pb;
use gin_proto::v1::account_service_client::AccountServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::{Client, Error, nothing_done, transient};

/// What every account token starts with; any other bearer is a seat (or entrant) token.
pub const ACCOUNT_TOKEN_PREFIX: &str = "gin_at_";

/// Whether `token` is an account token (by its prefix, [`ACCOUNT_TOKEN_PREFIX`]) rather than
/// a seat or entrant token.
pub fn is_account_token(token: &str) -> bool {
    token.starts_with(ACCOUNT_TOKEN_PREFIX)
}

/// A token kept by a [`Client`]: its `Debug` never shows it.
#[derive(Clone)]
pub(crate) struct Secret(pub(crate) String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Who holds a seat, for people: the account's name (a bot account's with ` (bot)`),
/// `deleted` for an account since deleted, else the display name the seat was taken with (a
/// guest, a house bot, a tournament's entrant). Not escaped: pass it through
/// [`gin_proto::text::printable`] before showing it.
pub fn seat_name(s: &pb::SeatInfo) -> String {
    shown_as(&s.name, &s.account, s.account_kind, s.account_deleted)
}

/// Who took a seat, from its `PlayerJoined` event, as [`seat_name`] shows it from a snapshot.
pub fn joined_name(j: &pb::PlayerJoined) -> String {
    shown_as(&j.name, &j.account, j.account_kind, j.account_deleted)
}

fn shown_as(name: &str, account: &str, kind: i32, deleted: bool) -> String {
    if deleted {
        return "deleted".into();
    }
    if account.is_empty() {
        return name.to_owned();
    }
    match pb::AccountKind::try_from(kind) {
        Ok(pb::AccountKind::Bot) => format!("{account} (bot)"),
        _ => account.to_owned(),
    }
}

/// A status a creating call may be sent again after: it said nothing was done, and it is no
/// rate limit (whose wait is the caller's to show).
fn unprocessed(s: &Status) -> bool {
    s.code() != Code::ResourceExhausted && nothing_done(s)
}

/// A status a reading call may be sent again after: transient, and no rate limit.
fn transient_not_limited(s: &Status) -> bool {
    s.code() != Code::ResourceExhausted && transient(s)
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("opts", &self.opts).field("account", &self.account).finish()
    }
}

impl Client {
    /// The generated account client (for calls the SDK does not wrap); send its requests
    /// through [`Client::request`] to carry the account token.
    pub fn accounts(&self) -> AccountServiceClient<Channel> {
        AccountServiceClient::new(self.channel())
    }

    /// Creates an account of `kind` named `name` with `password` (a person's, 8 to 1024
    /// bytes; empty: none, the token is the credential; a bot has none) and its first token,
    /// labelled `label` (empty: the server's "registration"). The answer's token (every
    /// scope) is shown only now.
    pub async fn register(
        &self,
        name: &str,
        kind: pb::AccountKind,
        password: &str,
        label: &str,
    ) -> Result<pb::RegisterResponse, Error> {
        let req = pb::RegisterRequest {
            name: name.into(),
            kind: kind as i32,
            password: password.into(),
            token_label: label.into(),
        };
        self.retry("Register", self.opts.call_timeout, unprocessed, || {
            let (mut c, req) = (self.accounts(), self.request(req.clone()));
            async move { c.register(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Signs a person in: a new session token (every scope), shown only now, labelled
    /// `label` (empty: the server's "sign-in").
    pub async fn sign_in(
        &self,
        name: &str,
        password: &str,
        label: &str,
    ) -> Result<pb::SignInResponse, Error> {
        let req = pb::SignInRequest { name: name.into(), password: password.into(), label: label.into() };
        self.retry("SignIn", self.opts.call_timeout, unprocessed, || {
            let (mut c, req) = (self.accounts(), self.request(req.clone()));
            async move { c.sign_in(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Revokes the client's account token.
    pub async fn sign_out(&self) -> Result<(), Error> {
        self.retry("SignOut", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.accounts(), self.request(pb::SignOutRequest {}));
            async move { c.sign_out(req).await.map(drop) }
        })
        .await
    }

    /// The client's account and the token it signs in with (no secret).
    pub async fn who_am_i(&self) -> Result<pb::WhoAmIResponse, Error> {
        self.retry("WhoAmI", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.accounts(), self.request(pb::WhoAmIRequest {}));
            async move { c.who_am_i(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Sets (`current` empty) or changes a person's password; every session token ends, and
    /// the answer holds a new one.
    pub async fn set_password(&self, current: &str, new: &str) -> Result<pb::SetPasswordResponse, Error> {
        let req = pb::SetPasswordRequest { current_password: current.into(), new_password: new.into() };
        self.retry("SetPassword", self.opts.call_timeout, unprocessed, || {
            let (mut c, req) = (self.accounts(), self.request(req.clone()));
            async move { c.set_password(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Creates an API token labelled `label` with `scopes`: its secret is in the answer, once.
    pub async fn create_token(
        &self,
        label: &str,
        scopes: &[pb::TokenScope],
    ) -> Result<pb::CreateTokenResponse, Error> {
        let req = pb::CreateTokenRequest {
            label: label.into(),
            scopes: scopes.iter().map(|s| *s as i32).collect(),
        };
        self.retry("CreateToken", self.opts.call_timeout, unprocessed, || {
            let (mut c, req) = (self.accounts(), self.request(req.clone()));
            async move { c.create_token(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// The account's tokens, live ones first (no secrets).
    pub async fn list_tokens(&self) -> Result<Vec<pb::TokenInfo>, Error> {
        self.retry("ListTokens", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.accounts(), self.request(pb::ListTokensRequest {}));
            async move { c.list_tokens(req).await.map(|r| r.into_inner().tokens) }
        })
        .await
    }

    /// Revokes the account's token `id` (again: no error); the token as it is now.
    pub async fn revoke_token(&self, id: &str) -> Result<pb::TokenInfo, Error> {
        let r = self
            .retry("RevokeToken", self.opts.call_timeout, transient_not_limited, || {
                let (mut c, req) = (self.accounts(), self.request(pb::RevokeTokenRequest { id: id.into() }));
                async move { c.revoke_token(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        r.token_info.ok_or_else(|| Error::Protocol("RevokeToken returned no token".into()))
    }

    /// Everything stored about the account, as the server's JSON document.
    pub async fn export_account(&self) -> Result<String, Error> {
        self.retry("ExportAccount", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.accounts(), self.request(pb::ExportAccountRequest {}));
            async move { c.export_account(req).await.map(|r| r.into_inner().json) }
        })
        .await
    }

    /// Deletes the account: `confirm_name` is its name typed again, `password` its password
    /// if it has one. Not sent again after a lost answer.
    pub async fn delete_account(&self, confirm_name: &str, password: &str) -> Result<(), Error> {
        let req = pb::DeleteAccountRequest { confirm_name: confirm_name.into(), password: password.into() };
        self.retry("DeleteAccount", self.opts.call_timeout, unprocessed, || {
            let (mut c, req) = (self.accounts(), self.request(req.clone()));
            async move { c.delete_account(req).await.map(drop) }
        })
        .await
    }

    /// An account's public profile, by name.
    pub async fn get_account(&self, name: &str) -> Result<pb::GetAccountResponse, Error> {
        self.retry("GetAccount", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.accounts(), self.request(pb::GetAccountRequest { name: name.into() }));
            async move { c.get_account(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// A page of an account's games, newest first: `name` empty for the client's own,
    /// `page_size` 0 for the server's 20, `page_token` from the previous page ("" for the
    /// first).
    pub async fn list_player_games(
        &self,
        name: &str,
        page_size: u32,
        page_token: &str,
    ) -> Result<pb::ListPlayerGamesResponse, Error> {
        let req = pb::ListPlayerGamesRequest { name: name.into(), page_size, page_token: page_token.into() };
        self.retry("ListPlayerGames", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.accounts(), self.request(req.clone()));
            async move { c.list_player_games(req).await.map(|r| r.into_inner()) }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_token_is_told_by_its_prefix() {
        assert!(is_account_token("gin_at_abc"));
        assert!(!is_account_token("abc"));
        assert!(!is_account_token("GIN_AT_abc"));
        assert!(!is_account_token(" gin_at_abc"));
    }

    #[test]
    fn a_seat_shows_its_account_a_bot_account_or_a_deletion() {
        let seat = |name: &str, account: &str, kind: pb::AccountKind, deleted| pb::SeatInfo {
            name: name.into(),
            account: account.into(),
            account_kind: kind as i32,
            account_deleted: deleted,
            taken: true,
            ..Default::default()
        };
        assert_eq!(seat_name(&seat("al", "Alice", pb::AccountKind::Person, false)), "Alice");
        assert_eq!(seat_name(&seat("r", "Robo", pb::AccountKind::Bot, false)), "Robo (bot)");
        assert_eq!(seat_name(&seat("pat", "", pb::AccountKind::Unspecified, false)), "pat");
        assert_eq!(seat_name(&seat("x", "", pb::AccountKind::Unspecified, true)), "deleted");
    }

    #[test]
    fn a_joined_seat_shows_its_account_as_a_snapshot_would() {
        let joined = |name: &str, account: &str, kind: pb::AccountKind, deleted| pb::PlayerJoined {
            seat: 1,
            name: name.into(),
            account: account.into(),
            account_kind: kind as i32,
            account_deleted: deleted,
            ..Default::default()
        };
        assert_eq!(joined_name(&joined("al", "Alice", pb::AccountKind::Person, false)), "Alice");
        assert_eq!(joined_name(&joined("r", "Robo", pb::AccountKind::Bot, false)), "Robo (bot)");
        assert_eq!(joined_name(&joined("pat", "", pb::AccountKind::Unspecified, false)), "pat");
        assert_eq!(joined_name(&joined("x", "", pb::AccountKind::Unspecified, true)), "deleted");
    }

    /// The bearer goes on with the account token, and a client's `Debug` never shows it.
    #[tokio::test]
    async fn the_account_token_is_the_bearer_and_never_shown() {
        let channel = Channel::from_static("http://127.0.0.1:9").connect_lazy();
        let guest = Client::from_channel(channel, crate::Options::default());
        assert!(guest.request(()).metadata().get("authorization").is_none());
        let me = guest.with_account_token(Some("gin_at_s3cret".into()));
        let r = me.request(());
        assert_eq!(r.metadata().get("authorization").unwrap(), "Bearer gin_at_s3cret");
        assert_eq!(me.account_token(), Some("gin_at_s3cret"));
        assert!(!format!("{me:?}").contains("s3cret"), "{me:?}");
        let out = me.with_account_token(None);
        assert!(out.request(()).metadata().get("authorization").is_none());
    }

    /// Creating calls are not repeated after a lost answer, nor asleep through a rate limit.
    #[test]
    fn creating_calls_retry_only_what_was_not_done() {
        let mut moved = Status::unavailable("lease");
        assert!(!unprocessed(&moved));
        moved.metadata_mut().insert("retry-after-ms", "100".parse().unwrap());
        assert!(unprocessed(&moved));
        assert!(!unprocessed(&Status::resource_exhausted("hourly limit")));
        assert!(!transient_not_limited(&Status::resource_exhausted("slow down")));
        assert!(transient_not_limited(&Status::unavailable("restarting")));
    }
}
