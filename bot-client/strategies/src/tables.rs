//! Bots for every table format ([`engine::Table`]), and local games between them.
//!
//! - Gin kinds (two-player gin, three-player, teams): every hand is a two-player hand, so
//!   each seat is played by a two-player [`Strategy`] (any of [`crate::STRATEGIES`]) hand by
//!   hand, with its own [`Memory`] of the hand fed by what it saw, and of what the showdowns
//!   of its earlier hands against the same opponent showed of it ([`showdowns_against`]:
//!   `strong` learns from them what kind of knocker that opponent is).
//! - Gin for 3 to 6 (`gin-7`): `random` and `simple` decide from the seat's cards, the pile
//!   and the legal set, as in two-player gin; `strong` is the table search
//!   ([`crate::table_strong`]: the other seats' hidden cards sampled, every seat rolled out
//!   with `simple`).
//! - Rummy: `random` (uniform over the legal moves) and `simple`, the classic baseline
//!   adapted: take the pile's top only if it makes a meld or lays off, lay every meld and
//!   every lay-off it can, then discard to the least deadwood; `strong`, the same search.
//!
//! A bot reads only its own seat: its cards, the public table, its legal moves.

use engine::{BySeat, Card, CardSet, Kind, Move, Seat, Table, TableError, TableSetup};

use crate::memory::{Memory, OppShowdown, Seen, Shown};
use crate::rng::Rng;
use crate::strategy::{Decision, Strategy, UnknownStrategy, by_name, fallback, is_listed};

/// A seat's two-player strategy: the baseline by its type (its decision inlines here, and
/// its action comes back field by field: through the trait object, the action came back in
/// memory and was copied whole just after it was written, a stalled store on every move),
/// any other through [`Strategy`].
enum GinPlayer {
    Simple(crate::simple::SimpleStrategy),
    Dyn(Box<dyn Strategy>),
}

impl GinPlayer {
    #[inline]
    fn act(&mut self, d: &Decision<'_>) -> engine::Action {
        match self {
            GinPlayer::Simple(s) => s.act(d),
            GinPlayer::Dyn(s) => s.act(d),
        }
    }
}

/// The strategies that play each kind.
pub fn strategies_for(kind: Kind) -> &'static [&'static str] {
    match kind {
        // Every hand there is a two-player hand: every two-player strategy plays it.
        Kind::Gin | Kind::ThreePlayer | Kind::Teams => &crate::strategy::STRATEGIES,
        Kind::Gin7 | Kind::Rummy => &["random", "simple", "strong"],
    }
}

/// One seat's player at a table of any kind.
pub struct TableBot {
    name: String,
    gin: Option<GinPlayer>,
    memory: Memory,
    hand_key: Option<u32>,
    rng: Rng,
    /// Gin kinds at three players and in teams: what each opponent (a person) showed in the
    /// showdowns of this bot's finished hands against it, oldest first...
    learnt: Vec<(u8, Vec<OppShowdown>)>,
    /// ...as read from the game's first `hands_read` finished hands.
    hands_read: usize,
    /// Gin-7 and rummy: `strong`'s search ([`crate::table_strong`]).
    pub(crate) strong: Option<crate::table_strong::TableStrong>,
}

impl TableBot {
    /// The strategy `name` for a table of `kind`, its choices seeded by `seed`.
    pub fn new(name: &str, kind: Kind, seed: u64) -> Result<TableBot, UnknownStrategy> {
        if !strategies_for(kind).contains(&name) {
            return Err(UnknownStrategy(format!("{name} (for {kind}: {})", strategies_for(kind).join(", "))));
        }
        let strong = (matches!(kind, Kind::Gin7 | Kind::Rummy) && name == "strong")
            .then(|| crate::table_strong::TableStrong::new(seed));
        let gin = match (kind, name) {
            (Kind::Rummy, _) => None,
            // Gin-7's `strong` falls back on `simple` (never expected).
            (_, "simple") | (Kind::Gin7, "strong") => {
                Some(GinPlayer::Simple(crate::simple::SimpleStrategy::new(seed)))
            }
            _ => Some(GinPlayer::Dyn(by_name(name, seed)?)),
        };
        Ok(TableBot {
            name: name.to_string(),
            gin,
            memory: Memory::new(Seat::S0),
            hand_key: None,
            rng: Rng::new(seed ^ 0x5EED_7AB1E),
            learnt: Vec::new(),
            hands_read: 0,
            strong,
        })
    }

    /// The strategy's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Gin-7 and rummy `strong`: what its search did so far.
    pub fn search_stats(&self) -> Option<crate::table_strong::SearchStats> {
        self.strong.as_ref().map(|s| s.stats())
    }

    /// The move of `seat`, which is to act at `t`.
    pub fn act(&mut self, t: &Table, seat: u8) -> Move {
        match t {
            Table::Rummy(g) => {
                let h = g.hand();
                if self.name == "random" {
                    // `legal()[i]` without the list.
                    let i = self.rng.below(h.legal_count() as u32) as usize;
                    return h.legal_nth(i).expect("i < the legal count").into();
                }
                if let Some(strong) = &mut self.strong {
                    // The showdown of the hand of its last decision, if it has ended since
                    // (the hand counted by the results before it).
                    let ended = g.results().len();
                    if ended < self.hands_read {
                        // Another game.
                        strong.forget_showdowns();
                    } else if let Some(r) = g.results().get(self.hands_read) {
                        strong.rummy_hand_ended(&r.left);
                    }
                    self.hands_read = ended;
                    let a = strong.act_rummy(h, seat);
                    if h.clone().apply(seat, a).is_ok() {
                        return a.into();
                    }
                }
                rummy_simple(h, seat, &mut self.rng).into()
            }
            Table::Gin7(g) => self.act_gin7(g, seat).into(),
            _ => {
                let (h, s, number, players) = t.gin_seat(seat).expect("a gin seat to act");
                let rules = t.gin_rules().expect("gin rules");
                if self.hand_key != Some(number) {
                    self.start_hand(t, seat, h.cards(s), h.upcard());
                }
                let scores = match t {
                    Table::Gin(g) => g.scores(),
                    _ => {
                        let v = t.view(seat);
                        BySeat::new(
                            v.scores()[players[0] as usize] as u32,
                            v.scores()[players[1] as usize] as u32,
                        )
                    }
                };
                let d = Decision {
                    seat: s,
                    rules,
                    hand: h.cards(s),
                    pile: h.pile(),
                    stock_len: h.stock_len() as u32,
                    taken: h.taken_from_pile(),
                    knock_limit: h.knock_limit(),
                    legal: h.legal(),
                    scores,
                    memory: &self.memory,
                };
                let gin = self.gin.as_mut().expect("gin kinds have a strategy");
                let a = gin.act(&d);
                if is_listed(&d.legal, &a) { a.into() } else { fallback(&d).into() }
            }
        }
    }

    /// The action of `seat`, which is to act in the gin-7 game `g`.
    fn act_gin7(&mut self, g: &engine::gin7::Gin7Game, seat: u8) -> engine::Action {
        if let Some(strong) = &mut self.strong {
            let a = strong.act_gin7(g.hand(), seat);
            if g.hand().is_legal(seat, &a) {
                return a;
            }
        }
        let d = gin7_decision(&mut self.memory, &mut self.hand_key, g, seat);
        let gin = self.gin.as_mut().expect("gin kinds have a strategy");
        let a = gin.act(&d);
        if is_listed(&d.legal, &a) { a } else { fallback(&d) }
    }

    /// Decides and plays the move of `seat`, which is to act in the gin-7 game `g`, as
    /// [`TableBot::act_gin7`] then [`Gin7Game::apply`] do; the move back if the game refused
    /// it. (The action is applied where it was decided: returned, it was copied whole just
    /// after it was written a field at a time, a stalled store on every move.)
    ///
    /// [`Gin7Game::apply`]: engine::gin7::Gin7Game::apply
    fn play_gin7(&mut self, g: &mut engine::gin7::Gin7Game, seat: u8) -> Result<(), engine::Action> {
        if let Some(strong) = &mut self.strong {
            let a = strong.act_gin7(g.hand(), seat);
            return match g.apply(seat, &a) {
                Ok(_) => Ok(()),
                Err(_) => Err(a),
            };
        }
        let d = gin7_decision(&mut self.memory, &mut self.hand_key, g, seat);
        let gin = self.gin.as_mut().expect("gin kinds have a strategy");
        let mut a = gin.act(&d);
        if !is_listed(&d.legal, &a) {
            a = fallback(&d);
        }
        match g.apply(seat, &a) {
            Ok(_) => Ok(()),
            Err(_) => Err(a),
        }
    }

    /// Gin kinds: starts the memory of its hand in play at `t` of the bot at game seat
    /// `seat`, dealt `cards` with `upcard` face up, with what the showdowns of its earlier
    /// hands against the same opponent showed of it (`strong` learns from them what kind of
    /// knocker it is: at three players and in teams the opponent changes from hand to hand).
    /// [`TableBot::act`] starts it when the seat's first decision of a hand comes before
    /// anything was seen; a bot that sees the hand's moves before its first turn (the
    /// second to play) is started here, at the deal, so that they count. Nothing if `seat`
    /// is in no hand.
    pub fn start_hand(&mut self, t: &Table, seat: u8, cards: CardSet, upcard: Card) {
        let Some((_, me, number, players)) = t.gin_seat(seat) else { return };
        self.hand_key = Some(number);
        self.memory = Memory::new(me);
        self.memory.new_hand(number, cards, upcard);
        // The hands finished since the last start, read once ([`showdowns_against`] reads
        // them all: the same lists).
        if let Some((setup, hands)) = pair_hands(t) {
            if hands.len() < self.hands_read {
                // Another game.
                self.learnt.clear();
                self.hands_read = 0;
            }
            for h in &hands[self.hands_read..] {
                if let Some((opponent, shown)) = showdown_of(setup, h, seat) {
                    match self.learnt.iter_mut().find(|(p, _)| *p == opponent) {
                        Some((_, list)) => list.push(shown),
                        None => self.learnt.push((opponent, vec![shown])),
                    }
                }
            }
            self.hands_read = hands.len();
        }
        let opponent = players[1 - me.index()];
        if let Some((_, list)) = self.learnt.iter().find(|(p, _)| *p == opponent) {
            self.memory.opp_showdowns.clone_from(list);
        }
    }

    /// The hand this bot's memory is of (gin kinds: [`Table::gin_seat`]'s key), if any.
    pub fn hand_key(&self) -> Option<u32> {
        self.hand_key
    }

    /// This seat's memory of its hand in play (gin kinds).
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// What this seat saw of a move at its hand `number` (gin kinds): `event` in the hand's
    /// seats, `pile_top` before the move; nothing if the memory is of another hand.
    pub fn observe(&mut self, number: u32, event: &engine::Event, pile_top: Option<Card>) {
        if self.hand_key == Some(number)
            && let Some(seen) = Seen::of(event, self.memory.seat, pile_top)
        {
            self.memory.observe(seen);
        }
    }
}

/// What the showdowns of the finished hands of `t` (three players, teams) between the
/// persons `me` and `opponent` showed of `opponent`, oldest first, as `me`'s memory of each
/// hand recorded it ([`Memory::hand_ended`]); none at the other kinds (two-player gin keeps
/// its memory's showdowns from hand to hand itself).
pub fn showdowns_against(t: &Table, me: u8, opponent: u8) -> Vec<OppShowdown> {
    let Some((setup, hands)) = pair_hands(t) else { return Vec::new() };
    hands
        .iter()
        .filter_map(|h| showdown_of(setup, h, me))
        .filter(|(p, _)| *p == opponent)
        .map(|(_, s)| s)
        .collect()
}

/// The setup and the finished hands of a three-player or team game.
fn pair_hands(t: &Table) -> Option<(&engine::pairs::PairSetup, &[engine::pairs::PairHand])> {
    match t {
        Table::ThreePlayer(g) => Some((g.setup(), g.hands())),
        Table::Teams(g) => Some((g.setup(), g.hands())),
        _ => None,
    }
}

/// The opponent of person `me` in the finished hand `h`, and what its showdown showed of it
/// (`None`: `me` did not play it, or it ended dead).
fn showdown_of(
    setup: &engine::pairs::PairSetup,
    h: &engine::pairs::PairHand,
    me: u8,
) -> Option<(u8, OppShowdown)> {
    let i = h.players.iter().position(|&p| p == me)?;
    let showdown = h.result.showdown.as_ref()?;
    let r = &setup.rules;
    let limit = if r.knock_limit_from_upcard {
        engine::Hand::new(r, setup.deck(h.number), Seat::S1).knock_limit()
    } else {
        r.knock_limit
    };
    let seat = Seat::new(i as u8).expect("two seats");
    Some((h.players[1 - i], OppShowdown::of(&Shown::of(showdown), seat, limit)?))
}

/// The decision of `seat`, which is to act in the gin-7 game `g`, from its cards, the pile,
/// its legal moves and its `memory` of the hand (started afresh when `hand_key` shows a new
/// hand).
#[inline(always)]
fn gin7_decision<'a>(
    memory: &'a mut Memory,
    hand_key: &mut Option<u32>,
    g: &'a engine::gin7::Gin7Game,
    seat: u8,
) -> Decision<'a> {
    let h = g.hand();
    let key = g.hand_number();
    if *hand_key != Some(key) {
        *hand_key = Some(key);
        *memory = Memory::new(Seat::S0);
        memory.new_hand(key, h.cards(seat), h.upcard());
    }
    Decision {
        seat: Seat::S0,
        rules: &GIN7_DECISION_RULES,
        hand: h.cards(seat),
        pile: h.pile(),
        stock_len: h.stock_len() as u32,
        taken: h.taken_from_pile(),
        knock_limit: h.rules().knock_limit,
        legal: h.legal(),
        scores: BySeat::default(),
        memory,
    }
}

/// The numbers a gin-7 decision's strategies read (no upcard offer, no big gin).
static GIN7_DECISION_RULES: std::sync::LazyLock<engine::RuleSet> = std::sync::LazyLock::new(|| {
    engine::RuleSet { big_gin: false, big_gin_bonus: 0, upcard_offer: false, ..engine::RuleSet::standard() }
});

/// Rummy's baseline: lay the meld worth most, then any lay-off, then discard to the least
/// deadwood (the highest card that is not part of a pair or a near-run); draw the pile's top
/// only when it melds with the hand or lays off.
///
/// [`rummy_simple_listed`]'s choice (the same moves, the same draws from `rng`), decided
/// without the list of legal moves in the turns of almost every game: the draws, a turn whose
/// first legal move is a lay-off, and a turn that can only discard (by bits: the cards that
/// pair or sit next to another, the highest of the rest). The other turns (a meld to lay)
/// go through the list.
pub(crate) fn rummy_simple(
    h: &engine::rummy::RummyHand,
    seat: u8,
    rng: &mut Rng,
) -> engine::rummy::RummyAction {
    use engine::rummy::{RummyAction as A, RummyPhase};
    let rules = h.rules();
    let cards = h.hand(seat);
    match (h.phase(), h.legal_nth(0)) {
        // The draws listed: the stock first when it may be drawn, then the pile when it has a
        // card.
        (RummyPhase::Draw, Some(first)) => {
            if let Some(top) = h.pile_top() {
                // Only cards of the top's rank or suit can meld with it.
                let b = top.bit() as u64;
                let near =
                    CardSet::from_bits(0x0001_0001_0001_0001 << (b & 15) | 0x1FFF << (b & !15)) & cards;
                let melds = near
                    .iter()
                    .any(|a| near.iter().any(|c| c > a && rules.is_meld(CardSet::from_iter([a, c, top]))));
                let lays = h.table().iter().any(|m| rules.is_meld(m.cards.with(top)));
                if melds || lays {
                    return A::DrawPile;
                }
            }
            first
        }
        // No meld (they come first), lay-offs next: the first of them.
        (RummyPhase::Play, Some(first @ A::LayOff { .. })) => first,
        // Only discards: every card but the one just taken from the pile.
        (RummyPhase::Play, Some(A::Discard(_))) => {
            let discards = match h.taken_from_pile() {
                Some(c) => cards.without(c),
                None => cards,
            };
            let loose = discards - rummy_useful(cards);
            let pool = if loose.is_empty() { discards } else { loose };
            let best = pool.iter().map(|c| rules.card_points(c)).max().expect("a discard");
            let ties: CardSet = pool.iter().filter(|&c| rules.card_points(c) == best).collect();
            let k = rng.below(ties.len());
            A::Discard(ties.iter().nth(k as usize).expect("k < ties"))
        }
        _ => rummy_simple_listed(h, seat, &h.legal(), rng),
    }
}

/// The cards of `cards` with another of their rank, or of their suit at most 2 ranks away
/// (the ones `simple` keeps at rummy; nothing crosses a suit lane: bits 13-15 of each are
/// empty, and masked).
pub(crate) fn rummy_useful(cards: CardSet) -> CardSet {
    let b = cards.bits();
    let near = b.rotate_left(16) | b.rotate_left(32) | b.rotate_left(48) | b << 1 | b << 2 | b >> 1 | b >> 2;
    CardSet::from_bits(near & 0x1FFF_1FFF_1FFF_1FFF)
}

/// [`rummy_simple`] over the list of legal moves.
fn rummy_simple_listed(
    h: &engine::rummy::RummyHand,
    seat: u8,
    legal: &[engine::rummy::RummyAction],
    rng: &mut Rng,
) -> engine::rummy::RummyAction {
    use engine::rummy::RummyAction as A;
    let rules = h.rules();
    let cards = h.hand(seat);
    if legal.contains(&A::DrawStock) || legal.contains(&A::DrawPile) {
        if let Some(top) = h.pile_top().filter(|_| legal.contains(&A::DrawPile)) {
            let melds = cards
                .iter()
                .any(|a| cards.iter().any(|b| b > a && rules.is_meld(CardSet::from_iter([a, b, top]))));
            let lays = h.table().iter().any(|m| rules.is_meld(m.cards.with(top)));
            if melds || lays {
                return A::DrawPile;
            }
        }
        return if legal.contains(&A::DrawStock) { A::DrawStock } else { legal[0] };
    }
    if let Some(best) = legal
        .iter()
        .filter_map(|a| match a {
            A::Meld(c) => Some((rules.points(*c), *a)),
            _ => None,
        })
        .max_by_key(|(p, _)| *p)
    {
        return best.1;
    }
    if let Some(l) = legal.iter().find(|a| matches!(a, A::LayOff { .. })) {
        return *l;
    }
    // Discard: keep cards that pair or sit next to another of their suit; throw the highest.
    let useful = |c: Card| {
        cards.iter().any(|o| {
            o != c
                && (o.rank() == c.rank()
                    || (o.suit() == c.suit() && o.rank().index().abs_diff(c.rank().index()) <= 2))
        })
    };
    let discards: Vec<Card> =
        legal.iter().filter_map(|a| if let A::Discard(c) = a { Some(*c) } else { None }).collect();
    if discards.is_empty() {
        return legal[rng.below(legal.len() as u32) as usize];
    }
    let key = |c: Card| (!useful(c), rules.card_points(c));
    let best = discards.iter().map(|&c| key(c)).max().expect("a discard");
    let ties: Vec<Card> = discards.into_iter().filter(|&c| key(c) == best).collect();
    A::Discard(ties[rng.below(ties.len() as u32) as usize])
}

/// A move refused by the engine in a local game (a bug in a strategy).
#[derive(Debug)]
pub struct TableIllegal {
    /// The strategy.
    pub strategy: String,
    /// The seat.
    pub seat: u8,
    /// The move.
    pub action: Move,
    /// Why.
    pub error: TableError,
}

impl std::fmt::Display for TableIllegal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at seat {} played {}: {}", self.strategy, self.seat, self.action, self.error)
    }
}

impl std::error::Error for TableIllegal {}

/// Plays a table to its end: seat `i` is `bots[i]`. When several seats may act (team play),
/// the lowest acts first.
pub fn play_table(setup: TableSetup, bots: &mut [TableBot]) -> Result<Table, TableIllegal> {
    let mut t = Table::new(setup).map_err(|error| TableIllegal {
        strategy: String::new(),
        seat: 0,
        action: Move::Pass,
        error,
    })?;
    if let Table::Gin7(g) = &mut t {
        // Straight to the game's own apply (the same rules and checks), without the table's
        // moves and steps: a gin-7 game is thousands of moves, and nobody here reads the
        // table's events (a gin-7 bot keeps no memory of its opponents' moves).
        while let Some(seat) = g.to_act() {
            if let Err(a) = bots[seat as usize].play_gin7(g, seat) {
                // Nothing changed: the table refuses it again, with the table's error.
                let m = Move::from(a);
                let error = t.apply(seat, &m).expect_err("the game refused it");
                return Err(TableIllegal {
                    strategy: bots[seat as usize].name.clone(),
                    seat,
                    action: m,
                    error,
                });
            }
        }
        return Ok(t);
    }
    while let Some(seat) = t.first_to_act() {
        let m = bots[seat as usize].act(&t, seat);
        if let Some((h, _, n, players)) = t.gin_seat(seat) {
            // A hand's first move: both seats' memories start at the deal.
            for (s, p) in Seat::BOTH.into_iter().zip(players) {
                let bot = &mut bots[p as usize];
                if bot.hand_key != Some(n) {
                    bot.start_hand(&t, p, h.cards(s), h.upcard());
                }
            }
        }
        let before = t.gin_seat(seat).map(|(h, _, n, players)| (n, players, h.pile().last().copied()));
        let step = t.apply(seat, &m).map_err(|error| TableIllegal {
            strategy: bots[seat as usize].name.clone(),
            seat,
            action: m.clone(),
            error,
        })?;
        if let (Some(ev), Some((n, players, top))) = (step.gin_event, before) {
            for p in players {
                bots[p as usize].observe(n, &ev, top);
            }
        }
    }
    Ok(t)
}

/// Local games of one format between strategy A and strategy B, duplicate deals rotated over
/// the seats: every deal is played once with A at each seat (team play: with A's pair on
/// each team), the other seats B.
#[derive(Clone, Debug)]
pub struct TableSelfPlay {
    /// The format.
    pub format: engine::Format,
    /// Strategy A.
    pub a: String,
    /// Strategy B.
    pub b: String,
    /// Deals; each is played once per rotation (games = deals × rotations).
    pub deals: u64,
    /// Master seed for deals and choices.
    pub seed: u64,
    /// Worker threads (0: one per core).
    pub threads: usize,
}

/// What a [`TableSelfPlay`] found.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TableReport {
    /// The format's name.
    pub format: String,
    /// The table size.
    pub players: u8,
    /// Strategy A.
    pub a: String,
    /// Strategy B.
    pub b: String,
    /// Games played.
    pub games: u64,
    /// Hands played.
    pub hands: u64,
    /// The longest hand, in turns (draws): what the rules' `max_turns_per_hand` must stay
    /// far above.
    pub longest_hand: u32,
    /// The longest game, in hands (`max_hands_per_game`'s measure).
    pub longest_game: u32,
    /// Hands ended at the turn limit.
    pub turn_limit_hands: u64,
    /// Games ended at the hand limit.
    pub hand_limit_games: u64,
    /// A's share of the wins (a tie shares the win between the tied seats).
    pub a_win_share: f64,
    /// A's share if A and B were equal: 1 / players (team play: 1/2).
    pub a_fair_share: f64,
    /// A's mean place (1 = best).
    pub a_mean_place: f64,
    /// B's mean place.
    pub b_mean_place: f64,
    /// A's mean final total.
    pub a_mean_total: f64,
    /// B's mean final total.
    pub b_mean_total: f64,
    /// Win share by seat, whoever sat there (the seat's advantage).
    pub seat_win_share: Vec<f64>,
    /// Team play: win share by team.
    pub team_win_share: Option<[f64; 2]>,
    /// A's decisions timed (gin-7 and rummy `strong`; 0 for the others).
    pub a_decisions: u64,
    /// Their mean time, in milliseconds.
    pub a_mean_decision_ms: f64,
    /// The longest, in milliseconds.
    pub a_max_decision_ms: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl TableSelfPlay {
    /// The rotations of one deal: which seats A holds in each.
    pub fn rotations(&self) -> Vec<Vec<u8>> {
        let n = self.format.players();
        if self.format.kind() == Kind::Teams {
            vec![vec![0, 2], vec![1, 3]]
        } else {
            (0..n).map(|k| vec![k]).collect()
        }
    }

    /// Checks the strategies and the format.
    pub fn validate(&self) -> Result<(), UnknownStrategy> {
        TableBot::new(&self.a, self.format.kind(), 0)?;
        TableBot::new(&self.b, self.format.kind(), 0)?;
        Ok(())
    }

    /// Plays every game.
    pub fn run(&self) -> Result<TableReport, TableIllegal> {
        self.format.check().map_err(|e| TableIllegal {
            strategy: String::new(),
            seat: 0,
            action: Move::Pass,
            error: TableError::Setup(e.to_string()),
        })?;
        let start = std::time::Instant::now();
        let n = self.format.players() as usize;
        let rotations = self.rotations();
        let threads = if self.threads == 0 {
            std::thread::available_parallelism().map_or(1, |x| x.get())
        } else {
            self.threads
        };
        #[derive(Default)]
        struct Acc {
            games: u64,
            hands: u64,
            longest_hand: u32,
            longest_game: u32,
            turn_limit_hands: u64,
            hand_limit_games: u64,
            a_win: f64,
            a_place: f64,
            b_place: f64,
            a_total: f64,
            b_total: f64,
            a_seats: u64,
            b_seats: u64,
            seat_win: Vec<f64>,
            team_win: [f64; 2],
            a_search: crate::table_strong::SearchStats,
        }
        let play_deals = |first: u64, step: u64| -> Result<Acc, TableIllegal> {
            let mut acc = Acc { seat_win: vec![0.0; n], ..Acc::default() };
            let mut d = first;
            while d < self.deals {
                let deal_seed = crate::rng::derive(self.seed, d);
                for (k, a_seats) in rotations.iter().enumerate() {
                    let mut bots = (0..n as u8)
                        .map(|s| {
                            let name = if a_seats.contains(&s) { &self.a } else { &self.b };
                            let seed = crate::rng::derive(deal_seed, 1 + (k * n) as u64 + s as u64);
                            TableBot::new(name, self.format.kind(), seed).expect("validated")
                        })
                        .collect::<Vec<_>>();
                    let t = play_table(TableSetup::new(self.format.clone(), deal_seed), &mut bots)?;
                    for s in a_seats {
                        if let Some(st) = bots[*s as usize].search_stats() {
                            acc.a_search.add(&st);
                        }
                    }
                    let r = t.result().expect("played to the end");
                    acc.games += 1;
                    let reports = t.hands();
                    acc.hands += reports.len() as u64;
                    acc.longest_game = acc.longest_game.max(reports.len() as u32);
                    acc.hand_limit_games += (r.end == engine::GameEnd::HandLimit) as u64;
                    for h in &reports {
                        acc.longest_hand = acc.longest_hand.max(h.turns);
                        acc.turn_limit_hands += (h.end == engine::HandEnd::TurnLimit) as u64;
                    }
                    let share = 1.0 / r.winners.len() as f64;
                    for s in 0..n as u8 {
                        let won = if r.winners.contains(&s) { share } else { 0.0 };
                        acc.seat_win[s as usize] += won;
                        let place = r.places[s as usize] as f64;
                        let total = r.totals[s as usize] as f64;
                        if a_seats.contains(&s) {
                            acc.a_win += won;
                            acc.a_place += place;
                            acc.a_total += total;
                            acc.a_seats += 1;
                        } else {
                            acc.b_place += place;
                            acc.b_total += total;
                            acc.b_seats += 1;
                        }
                    }
                    if let Some(tt) = &r.team_totals {
                        let best = tt.iter().copied().max().unwrap_or(0);
                        let w: Vec<usize> = (0..2).filter(|&i| tt[i] == best).collect();
                        for i in &w {
                            acc.team_win[*i] += 1.0 / w.len() as f64;
                        }
                    }
                }
                d += step;
            }
            Ok(acc)
        };
        let parts: Vec<Result<Acc, TableIllegal>> = std::thread::scope(|sc| {
            let handles: Vec<_> =
                (0..threads as u64).map(|i| sc.spawn(move || play_deals(i, threads as u64))).collect();
            handles.into_iter().map(|h| h.join().expect("a worker panicked")).collect()
        });
        let mut acc = Acc { seat_win: vec![0.0; n], ..Acc::default() };
        for p in parts {
            let p = p?;
            acc.games += p.games;
            acc.hands += p.hands;
            acc.longest_hand = acc.longest_hand.max(p.longest_hand);
            acc.longest_game = acc.longest_game.max(p.longest_game);
            acc.turn_limit_hands += p.turn_limit_hands;
            acc.hand_limit_games += p.hand_limit_games;
            acc.a_win += p.a_win;
            acc.a_place += p.a_place;
            acc.b_place += p.b_place;
            acc.a_total += p.a_total;
            acc.b_total += p.b_total;
            acc.a_seats += p.a_seats;
            acc.b_seats += p.b_seats;
            for i in 0..n {
                acc.seat_win[i] += p.seat_win[i];
            }
            acc.team_win[0] += p.team_win[0];
            acc.team_win[1] += p.team_win[1];
            acc.a_search.add(&p.a_search);
        }
        let g = acc.games.max(1) as f64;
        let teams = self.format.kind() == Kind::Teams;
        // In team play both partners are winners with half a share each: a team's win
        // counts once.
        let a_win_share = acc.a_win / g;
        Ok(TableReport {
            format: self.format.name(),
            players: n as u8,
            a: self.a.clone(),
            b: self.b.clone(),
            games: acc.games,
            hands: acc.hands,
            longest_hand: acc.longest_hand,
            longest_game: acc.longest_game,
            turn_limit_hands: acc.turn_limit_hands,
            hand_limit_games: acc.hand_limit_games,
            a_win_share,
            a_fair_share: if teams { 0.5 } else { 1.0 / n as f64 },
            a_mean_place: acc.a_place / acc.a_seats.max(1) as f64,
            b_mean_place: acc.b_place / acc.b_seats.max(1) as f64,
            a_mean_total: acc.a_total / acc.a_seats.max(1) as f64,
            b_mean_total: acc.b_total / acc.b_seats.max(1) as f64,
            seat_win_share: acc.seat_win.iter().map(|w| w / g).collect(),
            team_win_share: teams.then(|| [acc.team_win[0] / g, acc.team_win[1] / g]),
            a_decisions: acc.a_search.decisions,
            a_mean_decision_ms: acc.a_search.mean_ms(),
            a_max_decision_ms: acc.a_search.max_ms(),
            seconds: start.elapsed().as_secs_f64(),
        })
    }
}

impl TableReport {
    /// The report for people.
    pub fn text(&self) -> String {
        let mut s = format!(
            "{}: {} games ({} hands) in {:.2} s, {:.0} games/s\n",
            self.format,
            self.games,
            self.hands,
            self.seconds,
            self.games as f64 / self.seconds.max(1e-9)
        );
        s += &format!(
            "A = {} won {:.1}% of the wins (fair share {:.1}%), mean place {:.2}, mean total {:.1}\n",
            self.a,
            100.0 * self.a_win_share,
            100.0 * self.a_fair_share,
            self.a_mean_place,
            self.a_mean_total
        );
        s += &format!(
            "B = {}: mean place {:.2}, mean total {:.1}\n",
            self.b, self.b_mean_place, self.b_mean_total
        );
        let seats: Vec<String> = self
            .seat_win_share
            .iter()
            .enumerate()
            .map(|(i, w)| format!("seat {i} {:.1}%", 100.0 * w))
            .collect();
        s += &format!("wins by seat: {}\n", seats.join(", "));
        if self.a_decisions > 0 {
            s += &format!(
                "A's decisions: {}, mean {:.3} ms, max {:.1} ms\n",
                self.a_decisions, self.a_mean_decision_ms, self.a_max_decision_ms
            );
        }
        if let Some([a, b]) = self.team_win_share {
            s += &format!(
                "wins by team: team 0 (seats 0, 2) {:.1}%, team 1 (seats 1, 3) {:.1}%\n",
                100.0 * a,
                100.0 * b
            );
        }
        s += &format!(
            "longest hand {} turns, longest game {} hands; {} hands at the turn limit, {} games at the hand limit\n",
            self.longest_hand, self.longest_game, self.turn_limit_hands, self.hand_limit_games
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::rummy::{FinalDiscard, RummyGame, RummyRules};

    /// `play_table`'s direct path for gin-7 plays the games that moves through
    /// [`Table::apply`] play: the same moves, the same table at the end, at every size.
    #[test]
    fn gin7_direct_play_equals_play_through_the_table() {
        for players in 3..=6u8 {
            for g in 0..6u64 {
                let format = engine::Format::preset("gin-7").unwrap().with_players(players).unwrap();
                let setup =
                    TableSetup { format, seed: 31 * g + players as u64, decks: vec![], first_dealer: None };
                let bots = |salt: u64| -> Vec<TableBot> {
                    (0..players)
                        .map(|s| {
                            let name = if (s as u64 + g).is_multiple_of(2) { "simple" } else { "random" };
                            TableBot::new(name, Kind::Gin7, salt + s as u64).unwrap()
                        })
                        .collect()
                };
                let direct = play_table(setup.clone(), &mut bots(g)).expect("legal");
                let mut t = Table::new(setup).unwrap();
                let mut by_table = bots(g);
                while let Some(seat) = t.first_to_act() {
                    let m = by_table[seat as usize].act(&t, seat);
                    t.apply(seat, &m).expect("legal");
                }
                assert!(t.is_over());
                assert_eq!(direct.moves(), t.moves(), "{players} players, game {g}");
                assert_eq!(format!("{direct:?}"), format!("{t:?}"), "{players} players, game {g}");
            }
        }
    }

    /// What a seat remembers of its opponent at three players and in teams: the showdowns of
    /// their earlier hands, as the game's hand reports tell them (the opponent's knock and
    /// its deadwood, or, when it defended, the least deadwood of its ten cards), each under
    /// its hand's knock limit; every bot's memory holds them when it decides.
    #[test]
    fn a_table_bot_remembers_its_opponents_showdowns_from_earlier_hands() {
        let oklahoma = engine::Format::parse_any("kind = \"three-player\"\nbase = \"oklahoma\"").unwrap();
        let formats = [
            engine::Format::preset("three-player").unwrap(),
            engine::Format::preset("teams").unwrap(),
            oklahoma,
        ];
        for (f, format) in formats.into_iter().enumerate() {
            let (mut checked, mut knocks, mut defences) = (0, 0, 0);
            let mut limits = std::collections::BTreeSet::new();
            for g in 0..4u64 {
                let setup = TableSetup {
                    format: format.clone(),
                    seed: 7 * g + f as u64,
                    decks: vec![],
                    first_dealer: None,
                };
                let mut t = Table::new(setup).unwrap();
                let n = t.players();
                let mut bots: Vec<TableBot> = (0..n)
                    .map(|s| TableBot::new("simple", format.kind(), g + u64::from(s)).unwrap())
                    .collect();
                while let Some(seat) = t.first_to_act() {
                    let m = bots[seat as usize].act(&t, seat);
                    let (_, me, _, players) = t.gin_seat(seat).unwrap();
                    let opp = players[1 - me.index()];
                    let shown = &bots[seat as usize].memory().opp_showdowns;
                    // What the hand reports say, independently of the memory's code.
                    let reports = t.hands();
                    let expected: Vec<(bool, u32)> = reports
                        .iter()
                        .filter(|r| r.seats.contains(&seat) && r.seats.contains(&opp) && r.by.is_some())
                        .map(|r| {
                            let of = |p: u8| r.outcomes.iter().find(|o| o.seat == p).unwrap();
                            if r.by == Some(opp) {
                                (true, of(opp).deadwood_points)
                            } else {
                                let o = of(opp);
                                let ten = o.melds.iter().fold(o.deadwood, |a, &m| a | m)
                                    | o.layoffs.iter().copied().collect::<CardSet>();
                                assert_eq!(ten.len(), 10);
                                (false, engine::deadwood(ten))
                            }
                        })
                        .collect();
                    let got: Vec<(bool, u32)> = shown.iter().map(|s| (s.knocked, s.deadwood)).collect();
                    assert_eq!(got, expected, "format {f}, game {g}, seat {seat} against {opp}");
                    assert_eq!(shown, &showdowns_against(&t, seat, opp));
                    for s in shown {
                        assert!(!s.knocked || s.deadwood <= s.limit, "a knock within its limit: {s:?}");
                        limits.insert(s.limit);
                        if s.knocked { knocks += 1 } else { defences += 1 }
                    }
                    checked += 1;
                    t.apply(seat, &m).unwrap();
                }
                assert!(t.is_over());
            }
            assert!(
                checked > 500 && knocks > 100 && defences > 100,
                "format {f}: {checked}, {knocks}, {defences}"
            );
            // Oklahoma: each hand's own limit (its upcard's value), not the rules' 10.
            assert_eq!(limits.len() > 1, f == 2, "format {f}: limits {limits:?}");
        }
    }

    /// The simple rummy bot decides as it does over the list of legal moves: the same move
    /// and the same draws from its generator, at every decision of games at every table size,
    /// aces low and high, the final discard optional and required.
    #[test]
    fn rummy_simple_chooses_as_over_the_list() {
        let mut decisions = [0u32; 5];
        for players in 2..=6u8 {
            for g in 0..40u64 {
                let mut rules = RummyRules::for_players(players).expect("2 to 6");
                rules.ace_high = g % 2 == 1;
                if g % 4 >= 2 {
                    rules.final_discard = FinalDiscard::Required;
                }
                let mut game = RummyGame::new(rules, g * 1009 + players as u64).expect("rules");
                let mut rng = Rng::new(g);
                let mut moves = 0;
                while !game.is_over() && moves < 20_000 {
                    let h = game.hand();
                    let seat = h.to_act().expect("a seat acts");
                    let mut listed_rng = rng.clone();
                    let a = rummy_simple(h, seat, &mut rng);
                    let b = rummy_simple_listed(h, seat, &h.legal(), &mut listed_rng);
                    assert_eq!(a, b, "{players} players, game {g}, move {moves}");
                    assert_eq!(rng.below(1 << 30), listed_rng.below(1 << 30), "the same draws");
                    use engine::rummy::RummyAction as A;
                    decisions[match a {
                        A::DrawStock => 0,
                        A::DrawPile => 1,
                        A::Meld(_) => 2,
                        A::LayOff { .. } => 3,
                        A::Discard(_) => 4,
                    }] += 1;
                    game.apply(seat, a).expect("a legal move");
                    moves += 1;
                }
            }
        }
        assert!(decisions.iter().all(|&n| n > 0), "every kind of move: {decisions:?}");
    }
}
