//! `RatingService`: leaderboards, an account's ratings and its rating history, read from the
//! ratings in memory (`crate::ratings::Ratings`) and, for the history, the store. Every call
//! only reads, with or without a token. An account's own reads refresh the registry first, so
//! a rating is shown as soon as its game's end is durable; a leaderboard may be up to the
//! registry's poll (250 ms) behind.

use base64::Engine as _;
use gin_proto::v1 as pb;
use gin_proto::v1::rating_service_server::RatingService;
use tonic::{Request, Response, Status};

use crate::accounts::Accounts;
use crate::ratings::{Pool, Ratings};
use crate::storage::{AccountRow, KIND_BOT, KIND_PERSON};

/// The default page.
const PAGE_DEFAULT: usize = 20;
/// The largest page.
const PAGE_MAX: usize = 100;

/// `RatingService`.
pub struct RatingApi {
    ratings: Ratings,
    accounts: Accounts,
}

impl RatingApi {
    /// The service over `ratings`, naming accounts from `accounts`.
    pub fn new(ratings: Ratings, accounts: Accounts) -> RatingApi {
        RatingApi { ratings, accounts }
    }

    fn account(&self, name: &str) -> Result<AccountRow, Status> {
        self.accounts.by_name(name).filter(|a| a.deleted_ms.is_none()).ok_or_else(|| {
            Status::not_found(format!("name: no account {:?}", gin_proto::text::printable(name)))
        })
    }

    fn name_of(&self, id: &str) -> (String, pb::AccountKind) {
        match self.accounts.get(id) {
            Some(a) if a.deleted_ms.is_some() => ("(deleted)".into(), kind(a.kind)),
            Some(a) => (a.name, kind(a.kind)),
            None => (String::new(), pb::AccountKind::Unspecified),
        }
    }

    async fn refresh(&self) -> Result<(), Status> {
        self.ratings.refresh().await.map_err(Status::from)
    }
}

fn kind(k: i32) -> pb::AccountKind {
    match k {
        KIND_PERSON => pb::AccountKind::Person,
        KIND_BOT => pb::AccountKind::Bot,
        _ => pb::AccountKind::Unspecified,
    }
}

fn pool(id: &str) -> Result<Pool, Status> {
    Pool::parse(id).ok_or_else(|| {
        let all: Vec<String> = Pool::all().iter().map(|p| p.id().to_owned()).collect();
        Status::invalid_argument(format!(
            "pool: no pool {:?}; the pools are {}",
            gin_proto::text::printable(id),
            all.join(", ")
        ))
    })
}

fn page_size(limit: u32) -> usize {
    match limit as usize {
        0 => PAGE_DEFAULT,
        n => n.min(PAGE_MAX),
    }
}

/// A history page's token: base64url of `<at_ms>:<game id>`.
fn page_token(at_ms: i64, game_id: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{at_ms}:{game_id}"))
}

fn parse_page(token: &str) -> Result<Option<(i64, String)>, Status> {
    if token.is_empty() {
        return Ok(None);
    }
    let bad = || Status::invalid_argument("page: not a page token this server gave");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token).map_err(|_| bad())?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let (at, game) = text.split_once(':').ok_or_else(bad)?;
    Ok(Some((at.parse().map_err(|_| bad())?, game.to_owned())))
}

#[tonic::async_trait]
impl RatingService for RatingApi {
    async fn get_leaderboard(
        &self,
        req: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::GetLeaderboardResponse>, Status> {
        let r = req.into_inner();
        let pool = pool(&r.pool)?;
        let (lines, total) = self.ratings.leaderboard(&pool, r.offset as usize, page_size(r.limit));
        let lines = lines
            .into_iter()
            .map(|(rank, e)| {
                let (name, kind) = self.name_of(&e.account);
                pb::LeaderboardLine {
                    rank: rank as u64,
                    name,
                    kind: kind as i32,
                    rating: e.rating,
                    deviation: e.deviation,
                    games: e.games,
                }
            })
            .collect();
        Ok(Response::new(pb::GetLeaderboardResponse { lines, total: total as u64 }))
    }

    async fn get_player_ratings(
        &self,
        req: Request<pb::GetPlayerRatingsRequest>,
    ) -> Result<Response<pb::GetPlayerRatingsResponse>, Status> {
        let a = self.account(&req.get_ref().name)?;
        self.refresh().await?;
        let ratings = self
            .ratings
            .of(&a.id)
            .into_iter()
            .map(|s| pb::PoolRating {
                pool: s.pool.id().to_owned(),
                rating: s.rating,
                deviation: s.deviation,
                games: s.games,
                provisional: s.provisional,
                rank: s.rank.map(|r| r as u64),
            })
            .collect();
        Ok(Response::new(pb::GetPlayerRatingsResponse { name: a.name, ratings }))
    }

    async fn get_rating_history(
        &self,
        req: Request<pb::GetRatingHistoryRequest>,
    ) -> Result<Response<pb::GetRatingHistoryResponse>, Status> {
        let r = req.into_inner();
        let a = self.account(&r.name)?;
        let pool = pool(&r.pool)?;
        let before = parse_page(&r.page)?;
        let limit = page_size(r.limit);
        let lines = self
            .ratings
            .store()
            .rating_history(&a.id, pool.id(), before, limit + 1)
            .await
            .map_err(Status::from)?;
        let system = pool.system();
        let shown = |rating: f64, deviation: f64| {
            let r = crate::ratings::Rating { rating, deviation, volatility: 0.0, games: 0 };
            (r.shown(system), r.shown_deviation(system))
        };
        let more = lines.len() > limit;
        let changes: Vec<pb::RatingChange> = lines
            .into_iter()
            .take(limit)
            .map(|l| {
                let before = shown(l.before.0, l.before.1);
                let after = shown(l.after.0, l.after.1);
                pb::RatingChange {
                    game_id: l.game_id,
                    ended_ms: l.at_ms,
                    place: u32::from(l.place) + 1,
                    rating_before: before.0,
                    rating_after: after.0,
                    deviation_after: after.1,
                    opponents: l.opponents.iter().map(|o| self.name_of(o).0).collect(),
                }
            })
            .collect();
        let next_page = match changes.last() {
            Some(last) if more => page_token(last.ended_ms, &last.game_id),
            _ => String::new(),
        };
        Ok(Response::new(pb::GetRatingHistoryResponse { changes, next_page }))
    }
}
