//! A bot of your own on a gin server, with the SDK: implement `Strategy`, hand it to
//! `Client::play`.
//!
//! ```sh
//! cargo run --release -p gin-server &                                    # a server
//! cargo run -p gin-sdk --example network_bot -- http://127.0.0.1:50051 simple
//! ```
//!
//! The second argument is the house bot to play against (random, simple, strong).

use engine::{Action, deadwood_by_discard};
use gin_proto::v1 as pb;
use gin_sdk::{Client, preset};
use gin_strategies::{Choice, Decision, Strategy};

/// Never takes the face-up card; knocks as soon as it may; else discards the card that
/// leaves the least deadwood.
struct Greedy;

impl Strategy for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }

    fn act(&mut self, d: &Decision<'_>) -> Action {
        match d.choice() {
            Choice::Offer | Choice::Draw => d.decline(),
            Choice::Discard => {
                if let Some(card) = d.legal.knocks.iter().next() {
                    return Action::knock(card);
                }
                let by = deadwood_by_discard(d.hand);
                let card = d.legal.discards.iter().min_by_key(|c| by[c.bit() as usize]).expect("a discard");
                Action::Discard { card }
            }
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let url = args.next().unwrap_or_else(|| "http://127.0.0.1:50051".into());
    let house_bot = args.next().unwrap_or_else(|| "simple".into());
    let client = Client::connect(&url).await?;
    let seat = client
        .create_game(pb::CreateGameRequest {
            rules: Some(preset("standard")),
            name: "greedy".into(),
            house_bot,
            ..Default::default()
        })
        .await?;
    let outcome = client.play(&seat.game_id, &seat.token, &mut Greedy).await?;
    println!("{}", outcome.line());
    Ok(())
}
