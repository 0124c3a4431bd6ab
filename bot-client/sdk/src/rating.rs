//! Ratings (`RatingService`, `proto/gin/v1/rating.proto`): every account's rating in each
//! pool it has played, its rated games' history, and each pool's leaderboard.
//!
//! A pool is named by its id: `gin/<preset>` (two-player gin under a named preset),
//! `three-player`, `teams`, `gin-7/<n>` and `rummy/<n>` (each table size). Every call here
//! only reads, with or without an account token; they are retried on transient failures as
//! the SDK's other reading calls are. Rated games are created with
//! `CreateGameRequest.rated` (or a rated challenge).
//!
//! ```no_run
//! # async fn demo() -> Result<(), gin_sdk::Error> {
//! let client = gin_sdk::Client::connect("http://127.0.0.1:50051").await?;
//! let board = client.leaderboard("gin/standard", 0, 10).await?;
//! for l in &board.lines {
//!     println!("{:>3}  {}  {:.0}", l.rank, l.name, l.rating);
//! }
//! let mine = client.player_ratings("my-bot").await?;
//! # let _ = mine; Ok(()) }
//! ```

use gin_proto::v1 as pb;
use gin_proto::v1::rating_service_client::RatingServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::{Client, Error, transient};

/// A status a reading call may be sent again after: transient, and no rate limit.
fn transient_not_limited(s: &Status) -> bool {
    s.code() != Code::ResourceExhausted && transient(s)
}

impl Client {
    /// The generated rating client (for calls the SDK does not wrap); send its requests
    /// through [`Client::request`] to carry the account token.
    pub fn ratings(&self) -> RatingServiceClient<Channel> {
        RatingServiceClient::new(self.channel())
    }

    /// A page of pool `pool`'s leaderboard (its established ratings, best first): `offset`
    /// lines skipped, at most `limit` (0: the server's 20; at most 100). An unknown pool is
    /// refused (`INVALID_ARGUMENT`).
    pub async fn leaderboard(
        &self,
        pool: &str,
        offset: u32,
        limit: u32,
    ) -> Result<pb::GetLeaderboardResponse, Error> {
        let req = pb::GetLeaderboardRequest { pool: pool.into(), offset, limit };
        self.retry("GetLeaderboard", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.ratings(), self.request(req.clone()));
            async move { c.get_leaderboard(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Account `name`'s rating in every pool it has played (the name without regard to
    /// case). An unknown name is refused (`NOT_FOUND`).
    pub async fn player_ratings(&self, name: &str) -> Result<pb::GetPlayerRatingsResponse, Error> {
        let req = pb::GetPlayerRatingsRequest { name: name.into() };
        self.retry("GetPlayerRatings", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.ratings(), self.request(req.clone()));
            async move { c.get_player_ratings(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// A page of account `name`'s rated games in pool `pool`, newest first: at most `limit`
    /// (0: the server's 20; at most 100), `page` the previous answer's `next_page` (""
    /// for the newest).
    pub async fn rating_history(
        &self,
        name: &str,
        pool: &str,
        limit: u32,
        page: &str,
    ) -> Result<pb::GetRatingHistoryResponse, Error> {
        let req =
            pb::GetRatingHistoryRequest { name: name.into(), pool: pool.into(), limit, page: page.into() };
        self.retry("GetRatingHistory", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.ratings(), self.request(req.clone()));
            async move { c.get_rating_history(req).await.map(|r| r.into_inner()) }
        })
        .await
    }
}
