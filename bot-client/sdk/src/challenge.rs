//! Challenges (`ChallengeService`, `proto/gin/v1/challenge.proto`): an account challenges
//! another by name to a game; the challenged one accepts or declines.
//!
//! Every call needs a [`Client`] holding an account token with the scope `play`
//! ([`Client::with_account_token`]). Once a challenge is accepted, both accounts' tokens act
//! for their seats: [`Client::play`] with the game id and the account token plays it.
//!
//! [`Client::accept_next_challenge`] is the loop of a program that takes challenges: it
//! watches the account's challenges and accepts the first received one a filter likes.
//!
//! ```no_run
//! # async fn demo(token: String) -> Result<(), gin_sdk::Error> {
//! let me = gin_sdk::Client::connect("http://127.0.0.1:50051").await?.with_account_token(Some(token.clone()));
//! loop {
//!     let c = me.accept_next_challenge(|c| !c.rated).await?;
//!     let mut strategy = gin_strategies::simple::SimpleStrategy::new(1);
//!     me.play(&c.game_id, &token, &mut strategy).await?;
//! }
//! # }
//! ```

use gin_proto::v1 as pb;
use gin_proto::v1::challenge_service_client::ChallengeServiceClient;
use tonic::transport::Channel;
use tonic::{Code, Status};

use crate::{Client, Error, nothing_done, transient};

/// A status a reading call may be sent again after: transient, and no rate limit.
fn transient_not_limited(s: &Status) -> bool {
    s.code() != Code::ResourceExhausted && transient(s)
}

/// A status a changing call may be sent again after: nothing was done, and no rate limit.
fn unprocessed(s: &Status) -> bool {
    s.code() != Code::ResourceExhausted && nothing_done(s)
}

impl Client {
    /// The generated challenge client (for calls the SDK does not wrap); send its requests
    /// through [`Client::request`] to carry the account token.
    pub fn challenges(&self) -> ChallengeServiceClient<Channel> {
        ChallengeServiceClient::new(self.channel())
    }

    /// Challenges the account `req.opponent`: the challenge, open.
    pub async fn create_challenge(&self, req: pb::CreateChallengeRequest) -> Result<pb::Challenge, Error> {
        let r = self
            .retry("CreateChallenge", self.opts.call_timeout, unprocessed, || {
                let (mut c, req) = (self.challenges(), self.request(req.clone()));
                async move { c.create_challenge(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        r.challenge.ok_or_else(|| Error::Protocol("CreateChallenge returned no challenge".into()))
    }

    /// The account's open challenges, received and sent, oldest first.
    pub async fn list_challenges(&self) -> Result<Vec<pb::Challenge>, Error> {
        self.retry("ListChallenges", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.challenges(), self.request(pb::ListChallengesRequest {}));
            async move { c.list_challenges(req).await.map(|r| r.into_inner().challenges) }
        })
        .await
    }

    /// Accepts challenge `id`: the answer holds the game, the account's seat and its seat
    /// token (the account token acts for the seat as well).
    pub async fn accept_challenge(&self, id: &str) -> Result<pb::AcceptChallengeResponse, Error> {
        let req = pb::AcceptChallengeRequest { challenge_id: id.into() };
        self.retry("AcceptChallenge", self.opts.call_timeout, unprocessed, || {
            let (mut c, req) = (self.challenges(), self.request(req.clone()));
            async move { c.accept_challenge(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Declines challenge `id`.
    pub async fn decline_challenge(&self, id: &str) -> Result<pb::Challenge, Error> {
        let req = pb::DeclineChallengeRequest { challenge_id: id.into() };
        let r = self
            .retry("DeclineChallenge", self.opts.call_timeout, unprocessed, || {
                let (mut c, req) = (self.challenges(), self.request(req.clone()));
                async move { c.decline_challenge(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        r.challenge.ok_or_else(|| Error::Protocol("DeclineChallenge returned no challenge".into()))
    }

    /// Cancels challenge `id`, one the account sent.
    pub async fn cancel_challenge(&self, id: &str) -> Result<pb::Challenge, Error> {
        let req = pb::CancelChallengeRequest { challenge_id: id.into() };
        let r = self
            .retry("CancelChallenge", self.opts.call_timeout, unprocessed, || {
                let (mut c, req) = (self.challenges(), self.request(req.clone()));
                async move { c.cancel_challenge(req).await.map(|r| r.into_inner()) }
            })
            .await?;
        r.challenge.ok_or_else(|| Error::Protocol("CancelChallenge returned no challenge".into()))
    }

    /// The account's challenges as they change: first every open one, then each change.
    pub async fn watch_challenges(&self) -> Result<tonic::Streaming<pb::WatchChallengesResponse>, Error> {
        self.retry("WatchChallenges", self.opts.call_timeout, transient_not_limited, || {
            let (mut c, req) = (self.challenges(), self.request(pb::WatchChallengesRequest {}));
            async move { c.watch_challenges(req).await.map(|r| r.into_inner()) }
        })
        .await
    }

    /// Watches the account's challenges until one it received, still open, pleases `filter`,
    /// accepts it, and returns it accepted (`game_id`, `seat`: play it with the account
    /// token). One answered, cancelled or expired before the acceptance reached the server is
    /// passed over; a stream that breaks is opened again (transient failures, within
    /// [`crate::Options::retry_for`] of no progress).
    pub async fn accept_next_challenge(
        &self,
        mut filter: impl FnMut(&pb::Challenge) -> bool,
    ) -> Result<pb::Challenge, Error> {
        let mut failures = 0u32;
        loop {
            let mut stream = self.watch_challenges().await?;
            loop {
                let m = match stream.message().await {
                    Ok(Some(m)) => m,
                    Ok(None) => break,
                    Err(s) if transient(&s) || s.code() == Code::Aborted => {
                        failures += 1;
                        if failures > 20 {
                            return Err(Error::Rpc { what: "WatchChallenges", status: s });
                        }
                        break;
                    }
                    Err(status) => return Err(Error::Rpc { what: "WatchChallenges", status }),
                };
                let Some(c) = m.challenge else { continue };
                if c.sent || c.state != pb::ChallengeState::Open as i32 || !filter(&c) {
                    continue;
                }
                match self.accept_challenge(&c.challenge_id).await {
                    Ok(r) => {
                        return r
                            .challenge
                            .ok_or_else(|| Error::Protocol("AcceptChallenge returned no challenge".into()));
                    }
                    Err(Error::Rpc { status, .. }) if status.code() == Code::NotFound => {}
                    Err(e) => return Err(e),
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(100 << failures.min(6))).await;
        }
    }
}
