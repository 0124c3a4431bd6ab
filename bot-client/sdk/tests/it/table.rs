//! A seat's view of a table of any format, folded from its stream ([`TableTracker`]), held
//! to the server's snapshot at every turn of whole games; `play_table` to game over.

use std::time::Duration;

use gin_proto::v1 as pb;
use gin_sdk::{Client, TableStrategy, TableTracker, table_strategy, table_strategy_for};

use crate::common::Server;

/// Plays seat 0 of a new `format` game (house bots `bots` in every other seat) turn by turn
/// with the tracker, comparing it with the server's snapshot at each turn; the turns played.
async fn follow(client: &Client, format: &str, bots: &str, strategy: &str) -> u32 {
    let c = client
        .lobby()
        .create_game(pb::CreateGameRequest {
            format: format.into(),
            join: true,
            name: "tracker".into(),
            house_bot: bots.into(),
            seed: 99,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let (game, token) = (c.game_id, c.seat_token);
    // From the first event (a snapshot shows only the top of a rummy pile; the house bots
    // may have played before this seat looks).
    let info = client.get_game(&game, &token).await.unwrap().format.unwrap();
    let kind = info.kind.clone();
    let mut tr = TableTracker::new(0, &kind);
    tr.set_format(&info).unwrap();
    let mut bot = table_strategy(strategy, 7).unwrap();
    let mut turns = 0;
    let mut games = client.games();
    let req = |after| {
        let mut r =
            tonic::Request::new(pb::WatchGameRequest { game_id: game.clone(), resume_after_seq: after });
        r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
        r
    };
    let mut stream = games.watch_game(req(tr.last_seq())).await.unwrap().into_inner();
    // Every hand result seen, and the most showdowns against one opponent in a memory.
    let (mut ended, mut learnt) = (Vec::<pb::TableHandResult>::new(), 0);
    loop {
        if tr.result().is_some() {
            if (kind == "three-player" || kind == "teams") && format.contains("150") {
                // (How many depends on the game: 2 to 4 in runs of these; a game to 60 can
                // end before seat 0 meets an opponent a second time.)
                assert!(learnt >= 1, "{format}: no showdown learnt at any turn");
            }
            return turns;
        }
        if let Some((seq, turn)) = tr.turn().map(|(s, t)| (s, t.clone()))
            && seq == tr.last_seq()
        {
            // Nothing moves while this seat is to act: the snapshot is at the tracker's seq.
            let s = client.get_game(&game, &token).await.unwrap();
            assert_eq!(s.seq, tr.last_seq());
            let hand: engine::CardSet = s.hand.iter().map(|c| c.parse::<engine::Card>().unwrap()).collect();
            assert_eq!(tr.hand(), hand, "{format}: the hand at seq {seq}");
            let t = s.tables.iter().find(|t| t.seats.contains(&0)).unwrap();
            let top = t.pile.last().map(|c| c.parse::<engine::Card>().unwrap());
            assert_eq!(tr.pile_top(), top, "{format}: the pile's top at seq {seq}");
            let melds: Vec<engine::CardSet> = t
                .melds
                .iter()
                .map(|m| m.cards.iter().map(|c| c.parse::<engine::Card>().unwrap()).collect())
                .collect();
            assert_eq!(tr.melds(), &melds[..], "{format}: the melds at seq {seq}");
            // Hands of two players: a two-player seat's memory and decision, true to the table.
            if kind == "three-player" || kind == "teams" {
                let m = tr.gin_memory().expect("a memory of the hand");
                let pile: Vec<engine::Card> = t.pile.iter().map(|c| c.parse().unwrap()).collect();
                assert_eq!(m.pile, pile, "{format}: the memory's pile at seq {seq}");
                let pile_set: engine::CardSet = pile.iter().copied().collect();
                assert_eq!(m.seen & (hand | pile_set), hand | pile_set, "{format}: seen at seq {seq}");
                assert!((m.opp_known & (hand | pile_set)).is_empty());
                // What the showdowns of its earlier hands against this hand's opponent showed
                // of it, read from the hand results here: as the memory holds them.
                let opp = *t.seats.iter().find(|&&x| x != 0).unwrap();
                let expected: Vec<(bool, u32)> = ended
                    .iter()
                    .filter(|r| r.seats.contains(&0) && r.seats.contains(&opp) && r.by.is_some())
                    .map(|r| {
                        let o = r.outcomes.iter().find(|o| o.seat == opp).unwrap();
                        if r.by == Some(opp) {
                            (true, o.deadwood_value)
                        } else {
                            let ten: engine::CardSet = o
                                .layoffs
                                .iter()
                                .chain(&o.deadwood)
                                .chain(o.melds.iter().flat_map(|m| &m.cards))
                                .map(|c| c.parse::<engine::Card>().unwrap())
                                .collect();
                            assert_eq!(ten.len(), 10);
                            (false, engine::deadwood(ten))
                        }
                    })
                    .collect();
                let got: Vec<(bool, u32)> = m.opp_showdowns.iter().map(|s| (s.knocked, s.deadwood)).collect();
                assert_eq!(got, expected, "{format}: the showdowns against seat {opp} at seq {seq}");
                assert_eq!(tr.showdowns_of(opp), &m.opp_showdowns[..]);
                learnt = learnt.max(got.len());
                let d = tr.gin_decision(&turn).expect("a two-player decision");
                assert_eq!((d.hand, d.pile, d.stock_len), (hand, &pile[..], t.stock_size));
                assert_eq!(d.legal.count() as usize, turn.legal_actions.len());
            } else {
                assert!(tr.gin_memory().is_none() && tr.gin_decision(&turn).is_none());
            }
            assert_eq!(Some(&turn), s.turn.as_ref());
            let a = bot.act(&tr, &turn);
            assert!(turn.legal_actions.contains(&a));
            client.send_legal(&game, &token, seq, &a).await.unwrap();
            turns += 1;
        }
        let m =
            tokio::time::timeout(Duration::from_secs(30), stream.message()).await.unwrap().unwrap().unwrap();
        if let Some(pb::watch_game_response::Kind::Event(ev)) = m.kind {
            tr.apply(&ev).unwrap();
            if let Some(pb::game_event::Kind::TableHandEnded(pb::TableHandEnded { result: Some(r) })) =
                ev.kind
            {
                ended.push(r);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_s_tracker_matches_the_server_at_every_turn_of_every_format() {
    let server = Server::start().await;
    let client = Client::connect(&format!("http://{}", server.addr)).await.unwrap();
    // Rummy with random bots runs the stock out and turns the pile; gin-7 too.
    for (format, bots, strategy) in [
        (r#"{"kind":"rummy","players":3,"end":{"hands":3}}"#, "random", "random"),
        (r#"{"kind":"rummy","players":5,"end":{"hands":2}}"#, "simple", "simple"),
        (r#"{"kind":"gin-7","players":4,"end":{"hands":2}}"#, "random", "random"),
        (r#"{"kind":"three-player","target":60}"#, "simple", "simple"),
        // `strong` plays from the tracker's memory of each hand, against house `strong`s.
        (r#"{"kind":"three-player","target":150}"#, "strong", "strong"),
        // Every two-player strategy plays there, in the SDK and as house bots.
        (r#"{"kind":"three-player","target":150}"#, "gin-hunter", "defensive"),
    ] {
        let turns = follow(&client, format, bots, strategy).await;
        assert!(turns > 20, "{format}: {turns} turns");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_table_plays_a_team_game_to_its_end() {
    let server = Server::start().await;
    let client = Client::connect(&format!("http://{}", server.addr)).await.unwrap();
    let c = client
        .lobby()
        .create_game(pb::CreateGameRequest {
            format: r#"{"kind":"teams","target":150}"#.into(),
            join: true,
            seat: Some(2),
            name: "partner".into(),
            house_bot: "simple".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(c.seat, Some(2));
    let mut bot = table_strategy("simple", 3).unwrap();
    let o = client.play_table(&c.game_id, &c.seat_token, bot.as_mut()).await.unwrap();
    assert_eq!((o.seat, o.kind.as_str(), o.players), (2, "teams", 4));
    assert_eq!(o.result.reason, pb::GameEndReason::Target as i32);
    assert_eq!(o.totals.len(), 4);
    assert_eq!(o.totals[0], o.totals[2], "partners share a total");
    assert_eq!(o.won(), o.result.winners.contains(&0), "partners win together");
    assert!(o.decisions > 10 && o.hands >= 2, "{o:?}");
    // `strong` plays tables of two-player hands only: here a team game against house
    // `strong`s, partnered with one.
    let c = client
        .lobby()
        .create_game(pb::CreateGameRequest {
            format: r#"{"kind":"teams","target":100}"#.into(),
            join: true,
            name: "strong".into(),
            house_bot: "strong".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut bot = table_strategy_for("strong", "teams", 5).unwrap();
    let o = client.play_table(&c.game_id, &c.seat_token, bot.as_mut()).await.unwrap();
    assert_eq!(o.result.reason, pb::GameEndReason::Target as i32);
    assert!(o.decisions > 10, "{o:?}");
    for kind in ["rummy", "gin-7"] {
        for name in ["strong-v1", "strong-v2", "early-knocker"] {
            let e = table_strategy_for(name, kind, 1).err().expect("refused");
            let said = e.to_string();
            assert!(said.contains(&format!("{name} plays three-player and teams only")), "{said}");
            assert!(said.contains("random, simple, strong there"), "{said}");
        }
        for name in ["random", "simple", "strong"] {
            assert!(table_strategy_for(name, kind, 1).is_ok(), "{name} at {kind}");
        }
    }
    assert!(
        table_strategy_for("deep-blue", "teams", 1).err().expect("unknown").to_string().contains("unknown")
    );
}

/// A table strategy that counts the moves its inner one chose outside the turn's legal
/// moves (`play_table` would replace them).
struct Counted {
    inner: Box<dyn TableStrategy>,
    illegal: u32,
    moves: u32,
}

impl TableStrategy for Counted {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn act(&mut self, view: &TableTracker, turn: &pb::TurnInfo) -> pb::LegalAction {
        let a = self.inner.act(view, turn);
        self.moves += 1;
        if !turn.legal_actions.contains(&a) {
            self.illegal += 1;
        }
        a
    }
}

/// `strong` plays gin-7 at 3 and 6 and rummy at 2 and 6 over the network, against house
/// `strong`s and `simple`s, to each game's end: every move its search's, every one legal, none
/// refused by the server (`play_table` fails on a refusal).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strong_plays_gin7_and_rummy_over_the_network_to_the_end() {
    let server = Server::start().await;
    let client = Client::connect(&server.url()).await.unwrap();
    for (format, house, seat) in [
        (r#"{"kind":"gin-7","players":3,"end":{"hands":4}}"#, "strong", 0),
        (r#"{"kind":"gin-7","players":6,"end":{"hands":3}}"#, "simple", 4),
        (r#"{"kind":"rummy","players":2,"end":{"hands":4}}"#, "strong", 1),
        // (Five hands: a showdown is learnt at the seat's next search, and a hand may end
        // before that seat's first turn.)
        (r#"{"kind":"rummy","players":6,"end":{"hands":5}}"#, "simple", 3),
    ] {
        let c = client
            .create_table(pb::CreateGameRequest {
                format: format.into(),
                join: true,
                seat: Some(seat),
                name: "strong".into(),
                house_bot: house.into(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(u32::from(c.seat), seat);
        let kind = if format.contains("gin-7") { "gin-7" } else { "rummy" };
        let mut bot =
            Counted { inner: table_strategy_for("strong", kind, 11).unwrap(), illegal: 0, moves: 0 };
        let o = client.play_table(&c.game_id, &c.token, &mut bot).await.unwrap();
        assert_eq!(o.result.reason, pb::GameEndReason::Target as i32, "{format}: {o:?}");
        assert!(o.hands >= 3, "{format}: {o:?}");
        assert_eq!(bot.illegal, 0, "{format}: illegal moves");
        // (A seat of six may move only a few times in three short hands: 10 in one run.)
        assert!(bot.moves >= 3 && bot.moves == o.decisions, "{format}: {} moves, {o:?}", bot.moves);
        // Every move was the search's: none fell back to `simple` for a view that did not add up.
        let stats = bot.inner.search_stats().expect("strong searches");
        assert_eq!(stats.decisions, u64::from(bot.moves), "{format}");
        assert!(stats.searched > 0, "{format}");
        // At rummy for 6 it learnt from the showdowns the server sent (five seats show
        // their cards at each hand's end).
        if kind == "rummy" && format.contains("\"players\":6") {
            assert!(stats.showdowns >= 2, "{format}: {} showdowns in {} hands", stats.showdowns, o.hands);
        }
    }
}

/// The SDK's table lobby calls take seats past 1; its two-player calls refuse such a seat
/// naming the call that takes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn table_seats_past_one_are_taken_with_the_table_calls() {
    let server = Server::start().await;
    let client = Client::connect(&format!("http://{}", server.addr)).await.unwrap();
    let creator = client
        .create_table(pb::CreateGameRequest {
            format: "rummy".into(),
            players: 4,
            name: "host".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(creator.seat, 0);
    let join = |name: &str| pb::JoinGameRequest {
        game_id: creator.game_id.clone(),
        name: name.into(),
        ..Default::default()
    };
    let second = client.join_table(join("second")).await.unwrap();
    assert_eq!(second.seat, 1);
    let e = client.join_game_with(join("third")).await.unwrap_err();
    let said = e.to_string();
    assert!(said.contains("seat 2") && said.contains("join_table"), "{said}");
    let gin_sdk::Error::TableSeat { seated: third, .. } = e else { panic!("{e:?}") };
    assert!(!said.contains(&third.token), "no token in the message: {said}");
    // The server seated the caller: the error hands the seat over, to be played.
    assert_eq!(third.seat, 2);
    let snap = client.get_game(&third.game_id, &third.token).await.unwrap();
    assert_eq!(snap.viewer_seat, Some(2));
    let fourth = client.join_table(join("fourth")).await.unwrap();
    assert_eq!(fourth.seat, 3);
    let snap = client.get_game(&creator.game_id, &fourth.token).await.unwrap();
    assert_eq!(snap.viewer_seat, Some(3));
    let names: Vec<&str> = snap.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["host", "second", "third", "fourth"]);
}
