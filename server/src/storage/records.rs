//! The row records a group commit writes to the journal beside its actions: a copy of its
//! rows (a game's creation, a seat taken, a game's end), which SQLite commits without a sync of
//! its own; the next start applies the ones the journal still holds to SQLite again
//! (`sqlite::replay_rows`). Each is a JSON object with one key naming its kind:
//! `{"create": {…}}`, `{"seat": {…}}`, `{"finish": {…}}`, as written since the journal took
//! row records (2026-11-22), `{"token": {…}}` (a seat's new token) and `{"tournament": {…}}`
//! (a tournament's rows, [`TournamentWrite`]), both since 2026-11-24, `{"account": {…}}` (the
//! accounts' rows, [`AccountWrite`], since 2026-11-28; many touches of tokens are split into
//! several records); a field added later has a default for the records before it (a seat's
//! `account_id`, since 2026-11-28); `{"rated": {…}}` (a rated game's new ratings, as computed,
//! [`Rated`], since 2026-11-28; the record's id is the game's).

use serde::{Deserialize, Serialize};

use super::{AccountWrite, NewGame, Rated, SeatRow, TournamentWrite, Write};

/// One row record (the game's id is the journal record's, not in here).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowRecord {
    /// A game created.
    Create(Created),
    /// A seat taken.
    Seat(Taken),
    /// A game's end (its actions are the journal's).
    Finish(Ended),
    /// A seat's new token (since 2026-11-24).
    Token(NewToken),
    /// A write to a tournament's rows (since 2026-11-24; the journal record's id is the
    /// tournament's).
    Tournament(TournamentWrite),
    /// A write to the accounts' rows (since 2026-11-28; the journal record's id is the
    /// account's, see [`AccountWrite::record_id`]).
    Account(AccountWrite),
    /// A rated game's ratings, computed (since 2026-11-28).
    Rated(Rated),
}

/// A seat's new token: its hash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewToken {
    /// The seat.
    pub seat: u8,
    /// SHA-256 of the token.
    pub token_hash: [u8; 32],
}

/// A game created: [`NewGame`] without its id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    rules_json: String,
    seed: u64,
    secret: [u8; 32],
    clock_millis: u32,
    clock_policy: i32,
    house_bot: String,
    created_ms: i64,
    /// Since schema version 4.
    #[serde(default)]
    fixed_deals: bool,
    /// Since 2026-11-24 (a nullable column, no new schema version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_dealer: Option<u8>,
    /// Since 2026-11-28 (a nullable column, no new schema version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rated_pool: Option<String>,
}

/// A seat taken: [`SeatRow`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Taken {
    seat: u8,
    name: String,
    token_hash: [u8; 32],
    bot: bool,
    joined_ms: i64,
    /// Since 2026-11-28 (a nullable column, no new schema version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    account_id: Option<String>,
}

/// A game's end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    /// The result, as JSON.
    pub result_json: String,
    /// When it ended (Unix ms).
    pub finished_ms: i64,
}

impl RowRecord {
    /// The record of `write` with its game's id, if it is a row (an action is not: the journal
    /// has it as such).
    pub fn of(write: &Write) -> Option<(&str, RowRecord)> {
        Some(match write {
            Write::CreateGame(g) => (
                &g.id,
                RowRecord::Create(Created {
                    rules_json: g.rules_json.clone(),
                    seed: g.seed,
                    secret: g.secret,
                    clock_millis: g.clock_millis,
                    clock_policy: g.clock_policy,
                    house_bot: g.house_bot.clone(),
                    created_ms: g.created_ms,
                    fixed_deals: g.fixed_deals,
                    first_dealer: g.first_dealer,
                    rated_pool: g.rated_pool.clone(),
                }),
            ),
            Write::TakeSeat { game_id, seat: s } => (
                game_id,
                RowRecord::Seat(Taken {
                    seat: s.seat,
                    name: s.name.clone(),
                    token_hash: s.token_hash,
                    bot: s.bot,
                    joined_ms: s.joined_ms,
                    account_id: s.account_id.clone(),
                }),
            ),
            Write::Finish { game_id, result_json, finished_ms, .. } => (
                game_id,
                RowRecord::Finish(Ended { result_json: result_json.clone(), finished_ms: *finished_ms }),
            ),
            Write::SeatToken { game_id, seat, token_hash } => {
                (game_id, RowRecord::Token(NewToken { seat: *seat, token_hash: *token_hash }))
            }
            Write::Tournament(w) => (w.tournament_id(), RowRecord::Tournament(w.clone())),
            Write::Account(w) => (w.record_id(), RowRecord::Account(w.clone())),
            // The journal's own record; a rating's is computed by the backend (`Rated`).
            Write::Action { .. } | Write::Rate(_) => return None,
        })
    }

    /// The JSON text the journal keeps.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a row record serializes")
    }

    /// A record from its JSON text.
    pub fn parse(text: &str) -> Result<RowRecord, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl Created {
    /// The game's row, with its id.
    pub fn game(self, id: &str) -> NewGame {
        NewGame {
            id: id.to_owned(),
            rules_json: self.rules_json,
            seed: self.seed,
            secret: self.secret,
            clock_millis: self.clock_millis,
            clock_policy: self.clock_policy,
            house_bot: self.house_bot,
            created_ms: self.created_ms,
            fixed_deals: self.fixed_deals,
            first_dealer: self.first_dealer,
            rated_pool: self.rated_pool,
        }
    }
}

impl Taken {
    /// The seat's row.
    pub fn seat(self) -> SeatRow {
        SeatRow {
            seat: self.seat,
            name: self.name,
            token_hash: self.token_hash,
            bot: self.bot,
            joined_ms: self.joined_ms,
            account_id: self.account_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_as_written_before_read_back_and_round_trip() {
        // As the journal's first row records were written (`serde_json::json!`, keys sorted),
        // before `fixed_deals` existed.
        let secret: Vec<String> = (0..32).map(|i| i.to_string()).collect();
        let old = format!(
            r#"{{"create":{{"clock_millis":30000,"clock_policy":1,"created_ms":7,"house_bot":"simple","rules_json":"{{}}","secret":[{}],"seed":18446744073709551615}}}}"#,
            secret.join(",")
        );
        let RowRecord::Create(c) = RowRecord::parse(&old).unwrap() else { panic!("a creation") };
        let g = c.clone().game("g1");
        assert_eq!((g.id.as_str(), g.seed, g.secret[31], g.fixed_deals), ("g1", u64::MAX, 31, false));
        assert_eq!(RowRecord::parse(&RowRecord::Create(c.clone()).to_json()).unwrap(), RowRecord::Create(c));
        let seat = r#"{"seat":{"bot":true,"joined_ms":9,"name":"Zoë","seat":1,"token_hash":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,255]}}"#;
        let RowRecord::Seat(t) = RowRecord::parse(seat).unwrap() else { panic!("a seat") };
        let s = t.seat();
        assert_eq!((s.seat, s.name.as_str(), s.bot, s.token_hash[31]), (1, "Zoë", true, 255));
        // Written before seats had accounts: none.
        assert_eq!(s.account_id, None);
        // A seat with an account, and an account's write, round trip.
        let mut taken = s.clone();
        taken.account_id = Some("acc-1".into());
        let write = Write::TakeSeat { game_id: "g".into(), seat: taken.clone() };
        let (id, record) = RowRecord::of(&write).unwrap();
        assert_eq!(id, "g");
        let RowRecord::Seat(t) = RowRecord::parse(&record.to_json()).unwrap() else { panic!("a seat") };
        assert_eq!(t.seat(), taken);
        let token = crate::storage::TokenRow {
            id: "t".into(),
            account_id: "acc-1".into(),
            hash: [7; 32],
            label: "bot".into(),
            scopes: 3,
            session: false,
            created_ms: 1,
            last_used_ms: 2,
            revoked_ms: None,
        };
        let write = Write::Account(AccountWrite::AddToken(token));
        let (id, record) = RowRecord::of(&write).unwrap();
        assert_eq!(id, "acc-1");
        assert!(record.to_json().starts_with(r#"{"account":{"add_token":"#), "{}", record.to_json());
        assert_eq!(RowRecord::parse(&record.to_json()).unwrap(), record);
        let end = r#"{"finish":{"finished_ms":12,"result_json":"{\"winner\":0}"}}"#;
        assert_eq!(
            RowRecord::parse(end).unwrap(),
            RowRecord::Finish(Ended { result_json: "{\"winner\":0}".into(), finished_ms: 12 })
        );
        // Anything else is refused, not guessed at.
        assert!(RowRecord::parse(r#"{"drop":{}}"#).is_err());
        assert!(RowRecord::parse(r#"{"seat":{"seat":1}}"#).is_err());
    }
}
