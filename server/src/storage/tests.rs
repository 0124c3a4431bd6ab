use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;

use rusqlite::{Connection, params};

use super::sqlite::{CHECKPOINT_EVERY, SCHEMA, SCHEMA_VERSION};
use super::*;

fn new_game(id: &str, seed: u64) -> NewGame {
    let mut secret = [0u8; 32];
    for (i, b) in secret.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37) ^ seed as u8;
    }
    NewGame {
        id: id.to_owned(),
        rules_json: format!("{{\"game\":\"{id}\"}}"),
        seed,
        secret,
        clock_millis: 30_000,
        clock_policy: -2,
        house_bot: "random".to_owned(),
        created_ms: 1_700_000_000_000 + seed as i64 % 1000,
        fixed_deals: seed % 2 == 1,
        // Some games chose their first dealer (a nullable column, read back as written).
        first_dealer: seed.is_multiple_of(3).then_some((seed % 2) as u8),
        // Some games are rated (a nullable column, read back as written).
        rated_pool: seed.is_multiple_of(5).then(|| "gin/standard".to_owned()),
    }
}

fn seat(seat: u8, name: &str, bot: bool) -> SeatRow {
    SeatRow {
        seat,
        name: name.to_owned(),
        token_hash: [seat ^ 0xA5; 32],
        bot,
        joined_ms: 1000 + seat as i64,
        account_id: None,
    }
}

fn action(index: u32, kind: ActionKind) -> ActionRow {
    ActionRow {
        index,
        seat: (index % 2) as u8,
        kind,
        action: format!("move-{index}"),
        time_ms: 5000 + index as i64,
    }
}

fn create(game: &NewGame) -> Write {
    Write::CreateGame(game.clone())
}

fn take(game_id: &str, row: &SeatRow) -> Write {
    Write::TakeSeat { game_id: game_id.to_owned(), seat: row.clone() }
}

fn act(game_id: &str, row: &ActionRow) -> Write {
    Write::Action { game_id: game_id.to_owned(), action: row.clone() }
}

fn finish(game_id: &str, finished: &Finished, actions: &[ActionRow]) -> Write {
    Write::Finish {
        game_id: game_id.to_owned(),
        result_json: finished.result_json.clone(),
        finished_ms: finished.finished_ms,
        actions: actions.to_vec(),
    }
}

/// What is on disk, read as another process would: a copy of the database, its WAL and
/// its journal (taken while the store may still be running: the journal is locked by it),
/// opened and read in full.
fn load(path: &Path) -> Vec<StoredGame> {
    let copy = tempfile::tempdir().unwrap();
    let db = copy.path().join("gin.db");
    std::fs::copy(path, &db).unwrap();
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if Path::new(&wal).exists() {
        let mut to = db.as_os_str().to_owned();
        to.push("-wal");
        std::fs::copy(&wal, &to).unwrap();
    }
    let (from, to) = (journal_dir(path), journal_dir(&db));
    std::fs::create_dir(&to).unwrap();
    for entry in std::fs::read_dir(&from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() != "LOCK" {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    SqliteBackend::open(&db).unwrap().load_all().unwrap()
}

/// Where a test's store lives: a SQLite file (with its journal) or a database of a private
/// PostgreSQL cluster. The tests that hold for every backend run on both
/// ([`on_every_backend!`]).
enum Db {
    Sqlite(tempfile::TempDir),
    /// The cluster (stopped when dropped) and the database's connection string.
    Postgres(#[allow(dead_code)] super::pg_cluster::LocalPostgres, String),
}

impl Db {
    fn sqlite() -> Db {
        Db::Sqlite(tempfile::tempdir().unwrap())
    }

    /// `None` (the test skips, saying why) where PostgreSQL cannot be started.
    fn postgres() -> Option<Db> {
        let pg = super::pg_cluster::for_test()?;
        let url = pg.create_database("gin_test").unwrap();
        Some(Db::Postgres(pg, url))
    }

    /// What `--db` would say.
    fn location(&self) -> std::path::PathBuf {
        match self {
            Db::Sqlite(dir) => dir.path().join("gin.db"),
            Db::Postgres(_, url) => url.into(),
        }
    }

    fn store(&self) -> (Store, Startup) {
        Store::open(&self.location()).unwrap()
    }

    fn backend(&self) -> Box<dyn Backend> {
        match self {
            Db::Sqlite(_) => Box::new(SqliteBackend::open(&self.location()).unwrap()),
            Db::Postgres(_, url) => {
                Box::new(super::pg_cluster::off_runtime(|| PostgresBackend::connect(url).unwrap()))
            }
        }
    }

    /// Everything stored, read as another process would (a copy of SQLite's files while
    /// the store may run; a connection of its own to PostgreSQL).
    fn load(&self) -> Vec<StoredGame> {
        match self {
            Db::Sqlite(_) => load(&self.location()),
            Db::Postgres(..) => {
                let mut b = self.backend();
                super::pg_cluster::off_runtime(move || b.load_all().unwrap())
            }
        }
    }
}

/// Runs an async test body `fn(Db)` once on SQLite and once on PostgreSQL (skipped, with the
/// reason, where PostgreSQL cannot be started).
macro_rules! on_every_backend {
    ($(#[$attr:meta])* $name:ident) => {
        mod $name {
            $(#[$attr])*
            async fn sqlite() {
                super::$name(super::Db::sqlite()).await
            }

            $(#[$attr])*
            async fn postgres() {
                if let Some(db) = super::Db::postgres() {
                    super::$name(db).await
                }
            }
        }
    };
}

#[test]
fn the_action_log_encoding_is_the_json_it_always_was_and_decodes_back() {
    let mut rows =
        vec![action(0, ActionKind::Play), action(1, ActionKind::Timeout), action(2, ActionKind::Resign)];
    rows[1].action = "odd \"text\" \\ \n é".to_owned();
    rows[2].time_ms = -5;
    let tuples: Vec<(u32, u8, &str, &str, i64)> =
        rows.iter().map(|a| (a.index, a.seat, a.kind.as_str(), a.action.as_str(), a.time_ms)).collect();
    let json = encode_actions(&rows);
    assert_eq!(json, serde_json::to_string(&tuples).unwrap());
    assert_eq!(decode_actions(&json).unwrap(), rows);
    assert_eq!(encode_actions(&[]), "[]");
    assert!(decode_actions("[[0,0,\"nope\",\"x\",1]]").is_err());
}

on_every_backend!(
    #[tokio::test]
    round_trip_survives_reopen
);
async fn round_trip_survives_reopen(db: Db) {
    let (store, loaded) = db.store();
    assert_eq!(loaded, Startup::default());

    // Top bit set: stored as a negative i64.
    let a = new_game("game-a", 0x8000_0000_0000_0001);
    let b = new_game("game-b", u64::MAX);
    let c = new_game("game-c", 0);
    // Seats joined out of seat order: join order must survive.
    let a_seats = vec![seat(1, "alice", false), seat(0, "house", true)];
    let b_seats = vec![seat(0, "bob", false)];
    let a_actions: Vec<ActionRow> = (0..7)
        .map(|i| action(i, if i == 3 { ActionKind::Timeout } else { ActionKind::Play }))
        .chain([action(7, ActionKind::Resign)])
        .collect();
    let b_actions: Vec<ActionRow> = (0..3).map(|i| action(i, ActionKind::Play)).collect();
    let a_end = Finished { result_json: "{\"winner\":1}".to_owned(), finished_ms: 1_700_000_999_999 };

    store.write(vec![create(&a), create(&b)]).await.unwrap();
    store.write(vec![create(&c)]).await.unwrap();
    for s in &a_seats {
        store.write(vec![take("game-a", s)]).await.unwrap();
    }
    store.write(b_seats.iter().map(|s| take("game-b", s)).collect()).await.unwrap();
    // Interleave the two games' actions.
    for (i, row) in a_actions.iter().enumerate() {
        store.write(vec![act("game-a", row)]).await.unwrap();
        if let Some(row) = b_actions.get(i) {
            store.write(vec![act("game-b", row)]).await.unwrap();
        }
    }
    store.write(vec![finish("game-a", &a_end, &a_actions)]).await.unwrap();
    let (transactions, writes) = store.stats();
    assert_eq!(writes, 3 + 3 + 11 + 1);
    assert!(transactions >= 1 && transactions <= writes);
    store.close().await;
    drop(store);

    let expected = vec![
        StoredGame { game: a, seats: a_seats, actions: a_actions, finished: Some(a_end) },
        StoredGame { game: b, seats: b_seats, actions: b_actions, finished: None },
        StoredGame { game: c, seats: vec![], actions: vec![], finished: None },
    ];
    assert_eq!(db.load(), expected);
    // At start: the unfinished games in full, nothing of the finished one...
    let (store, loaded) = db.store();
    assert_eq!(loaded.live, expected[1..].to_vec());
    assert_eq!(store.stats(), (0, 0));
    // ...and any game by id: the finished one from its row's action log, the same.
    assert_eq!(store.load_game("game-a").await.unwrap().as_ref(), Some(&expected[0]));
    assert_eq!(store.load_game("game-b").await.unwrap().as_ref(), Some(&expected[1]));
    assert_eq!(store.load_game("game-z").await.unwrap(), None);
    store.close().await;
    assert!(store.load_game("game-a").await.is_err());
}

#[tokio::test]
async fn a_finished_game_leaves_the_journal_and_its_row_is_the_truth() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let rows: Vec<ActionRow> = (0..5).map(|i| action(i, ActionKind::Play)).collect();
    let end = Finished { result_json: "{}".to_owned(), finished_ms: 9 };
    {
        let mut b = SqliteBackend::open(&path).unwrap();
        b.commit(&[create(&new_game("done", 1)), create(&new_game("live", 2))]).unwrap();
        for r in &rows[..4] {
            b.commit(&[act("done", r), act("live", r)]).unwrap();
        }
        // The last action and the end in one batch, as a game's last move comes.
        b.commit(&[act("done", &rows[4]), finish("done", &end, &rows)]).unwrap();
        assert_eq!(b.journal().games().collect::<Vec<_>>(), ["live"]);
    }
    // A journal whose last append is gone while SQLite kept the end (SQLite commits after
    // the journal's append now, so a crash cannot leave this; the row is the truth
    // either way): the finished game is whole from its row.
    let journal = journal_dir(&path);
    let segment = std::fs::read_dir(&journal).unwrap().next().unwrap().unwrap().path();
    let bytes = std::fs::read(&segment).unwrap();
    let mut last = Vec::new();
    super::journal::encode_record(&mut last, "done", &rows[4]);
    let end_of_records = bytes.windows(last.len()).rposition(|w| w == last.as_slice()).unwrap();
    std::fs::OpenOptions::new().write(true).open(&segment).unwrap().set_len(end_of_records as u64).unwrap();
    let mut b = SqliteBackend::open(&path).unwrap();
    // The journal still holds the finished game's first records: ignored, forgotten.
    assert_eq!(b.journal().games().collect::<Vec<_>>(), ["live"]);
    let done = b.load_game("done").unwrap().unwrap();
    assert_eq!((done.actions, done.finished), (rows.clone(), Some(end)));
    assert_eq!(b.load_startup().unwrap().live[0].actions, rows[..4].to_vec());
    // It takes no action any more; the live game takes its next.
    assert!(b.commit(&[act("done", &action(5, ActionKind::Play))]).is_err());
    b.commit(&[act("live", &rows[4])]).unwrap();
}

on_every_backend!(
    #[tokio::test]
    a_read_sees_the_writes_queued_before_it
);
async fn a_read_sees_the_writes_queued_before_it(db: Db) {
    let (store, _) = db.store();
    let g = new_game("g", 4);
    let rows: Vec<ActionRow> = (0..50).map(|i| action(i, ActionKind::Play)).collect();
    let end = Finished { result_json: "{}".to_owned(), finished_ms: 5 };
    // Nothing awaited before the read: FIFO makes it see every write.
    let mut pending = vec![store.write(vec![create(&g), take("g", &seat(0, "a", false))])];
    pending.extend(rows.iter().map(|r| store.write(vec![act("g", r)])));
    pending.push(store.write(vec![finish("g", &end, &rows)]));
    let read = store.load_game("g").await.unwrap().unwrap();
    assert_eq!(read.actions, rows);
    assert_eq!(read.finished, Some(end));
    for p in pending {
        p.await.unwrap();
    }
    store.close().await;
}

#[tokio::test]
async fn a_version_1_database_is_migrated_its_live_actions_move_to_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let rows = |n: u32| (0..n).map(|i| action(i, ActionKind::Play)).collect::<Vec<_>>();
    {
        // The version 1 schema: no actions_json column; the actions in their table.
        let c = Connection::open(&path).unwrap();
        let v1 = SCHEMA
            .replace(",\n    actions_json TEXT", "")
            .replace(",\n    fixed_deals  INTEGER NOT NULL DEFAULT 0", "")
            .replace(",\n    first_dealer INTEGER", "");
        assert!(!v1.contains("fixed_deals") && !v1.contains("actions_json") && !v1.contains("first_dealer"));
        c.execute_batch(&v1).unwrap();
        c.pragma_update(None, "user_version", 1).unwrap();
        for (id, seed, n) in [("old", 9, 3u32), ("live", 10, 2)] {
            let g = new_game(id, seed);
            c.execute(
                "INSERT INTO games (id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms) \
                 VALUES (?1, ?2, ?3, ?4, 0, 0, '', 1)",
                params![g.id, g.rules_json, seed as i64, g.secret],
            )
            .unwrap();
            for a in rows(n) {
                c.execute(
                    "INSERT INTO actions (game_id, idx, seat, kind, action, time_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![id, a.index, a.seat, "play", a.action, a.time_ms],
                )
                .unwrap();
            }
        }
        c.execute(
            "UPDATE games SET result_json = '{}', record_json = '[]', finished_ms = 7 WHERE id = 'old'",
            [],
        )
        .unwrap();
    }
    let (store, loaded) = Store::open_sqlite(&path).unwrap();
    assert_eq!(loaded.live.len(), 1);
    assert_eq!(loaded.live[0].actions, rows(2));
    // The next index follows the migrated ones; a repeat is refused.
    assert!(store.write(vec![act("live", &action(1, ActionKind::Play))]).await.is_err());
    store.write(vec![act("live", &action(2, ActionKind::Play))]).await.unwrap();
    let old = store.load_game("old").await.unwrap().unwrap();
    assert_eq!(old.actions, rows(3));
    assert_eq!(old.finished.map(|f| f.finished_ms), Some(7));
    store.close().await;
    let c = Connection::open(&path).unwrap();
    let version: i64 = c.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let left: i64 =
        c.query_row("SELECT count(*) FROM actions WHERE game_id = 'live'", [], |r| r.get(0)).unwrap();
    assert_eq!(left, 0, "the live game's rows moved to the journal");
    drop(c);
    // Reopened: the live game's actions come from the journal alone, the old one's from its table.
    let (store, loaded) = Store::open_sqlite(&path).unwrap();
    assert_eq!(loaded.live[0].actions, rows(3));
    assert_eq!(store.load_game("old").await.unwrap().unwrap().actions, rows(3));
    store.close().await;
}

#[tokio::test]
async fn the_checkpointer_moves_the_wal_into_the_database_and_keeps_it_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let wal = dir.path().join("gin.db-wal");
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let (store, _) = Store::open_sqlite(&path).unwrap();
    let empty = size(&path);
    let mut wal_sizes = Vec::new();
    for round in 0..6u64 {
        // One transaction per write: many WAL frames.
        for i in 0..300 {
            store.write(vec![create(&new_game(&format!("g{round}-{i}"), round * 1000 + i))]).await.unwrap();
        }
        tokio::time::sleep(CHECKPOINT_EVERY * 4).await;
        wal_sizes.push(size(&wal));
    }
    // The writer never checkpoints (autocheckpoint off): only the checkpointer moved the
    // rows into the database file while the store was open...
    assert!(size(&path) > empty + 32 * 1024, "database file {} -> {} bytes", empty, size(&path));
    // ...and the WAL restarted from its beginning instead of growing round after round: six
    // rounds with no checkpoint make it six times the first round's. On a loaded machine a
    // round's checkpoint can come late, so the file keeps two rounds' frames once (CI saw
    // [2.57, 2.58, 2.62, 5.28, 5.28, 5.28] MB): that is still bounded.
    assert!(wal_sizes[5] <= wal_sizes[0] * 3, "WAL sizes per round: {wal_sizes:?}");
    store.close().await;
    assert_eq!(load(&path).len(), 1800);
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    concurrent_writers_are_fifo_and_group_committed
);
async fn concurrent_writers_are_fifo_and_group_committed(db: Db) {
    const GAMES: usize = 50;
    const ACTIONS: u32 = 200;
    let (store, _) = db.store();

    let mut tasks = Vec::new();
    for g in 0..GAMES {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let id = format!("game-{g}");
            if g % 2 == 0 {
                // Enqueue everything before awaiting anything: only FIFO makes this work (seats
                // and actions need the game; join order is assigned at commit).
                let mut pending = vec![
                    store.write(vec![create(&new_game(&id, g as u64))]),
                    store.write(vec![take(&id, &seat(1, "second", false))]),
                    store.write(vec![take(&id, &seat(0, "first", true))]),
                ];
                for i in 0..ACTIONS {
                    pending.push(store.write(vec![act(&id, &action(i, ActionKind::Play))]));
                }
                for p in pending {
                    p.await.unwrap();
                }
            } else {
                // One at a time, as a live game does.
                store.write(vec![create(&new_game(&id, g as u64))]).await.unwrap();
                store.write(vec![take(&id, &seat(1, "second", false))]).await.unwrap();
                store.write(vec![take(&id, &seat(0, "first", true))]).await.unwrap();
                for i in 0..ACTIONS {
                    store.write(vec![act(&id, &action(i, ActionKind::Play))]).await.unwrap();
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let (transactions, writes) = store.stats();
    assert_eq!(writes, (GAMES * (3 + ACTIONS as usize)) as u64);
    assert!(transactions < writes, "no group commit: {transactions} transactions for {writes} writes");
    store.close().await;

    let loaded = db.load();
    assert_eq!(loaded.len(), GAMES);
    for game in &loaded {
        let seed = game.game.id.strip_prefix("game-").unwrap().parse::<u64>().unwrap();
        assert_eq!(game.game, new_game(&game.game.id, seed));
        assert_eq!(game.seats, vec![seat(1, "second", false), seat(0, "first", true)]);
        let expected: Vec<ActionRow> = (0..ACTIONS).map(|i| action(i, ActionKind::Play)).collect();
        assert_eq!(game.actions, expected);
    }
    store.close().await;
}

/// A backend whose first commit waits for a signal (so requests can pile up behind it) and
/// which records the size of every batch it is asked to commit.
struct Gated {
    inner: Box<dyn Backend>,
    entered: Option<mpsc::Sender<()>>,
    gate: Option<mpsc::Receiver<()>>,
    batches: Arc<Mutex<Vec<usize>>>,
    /// Every commit after the first fails with this (the disk gave out).
    then_fail: Option<StoreError>,
}

impl Backend for Gated {
    fn commit(&mut self, batch: &[Write]) -> Result<(), StoreError> {
        let first = self.entered.is_some();
        if let (Some(entered), Some(gate)) = (self.entered.take(), self.gate.take()) {
            entered.send(()).unwrap();
            gate.recv().unwrap();
        }
        self.batches.lock().unwrap().push(batch.len());
        match &self.then_fail {
            Some(e) if !first => Err(e.clone()),
            _ => self.inner.commit(batch),
        }
    }

    fn load_all(&mut self) -> Result<Vec<StoredGame>, StoreError> {
        self.inner.load_all()
    }

    fn load_startup(&mut self) -> Result<Startup, StoreError> {
        self.inner.load_startup()
    }

    fn load_game(&mut self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.inner.load_game(id)
    }

    fn tournament_status_of(&mut self, id: &str) -> Result<Option<i32>, StoreError> {
        self.inner.tournament_status_of(id)
    }

    fn account_games(
        &mut self,
        account_id: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<AccountGame>, StoreError> {
        self.inner.account_games(account_id, before, limit)
    }

    fn account_changes(&mut self, after: i64) -> Result<AccountChanges, StoreError> {
        self.inner.account_changes(after)
    }

    fn set_rater(&mut self, rate: RateFn) {
        self.inner.set_rater(rate)
    }

    fn rating_changes(&mut self, after: i64) -> Result<RatingChanges, StoreError> {
        self.inner.rating_changes(after)
    }

    fn rating_history(
        &mut self,
        account_id: &str,
        pool: &str,
        before: Option<(i64, String)>,
        limit: usize,
    ) -> Result<Vec<HistoryLine>, StoreError> {
        self.inner.rating_history(account_id, pool, before, limit)
    }
}

on_every_backend!(
    #[tokio::test]
    an_io_failure_fails_the_whole_batch_without_retries
);
async fn an_io_failure_fails_the_whole_batch_without_retries(db: Db) {
    let (entered_tx, entered) = mpsc::channel();
    let (open_gate, gate) = mpsc::channel();
    let batches = Arc::new(Mutex::new(Vec::new()));
    let backend = Gated {
        inner: db.backend(),
        entered: Some(entered_tx),
        gate: Some(gate),
        batches: Arc::clone(&batches),
        then_fail: Some(StoreError::Io("disk full".into())),
    };
    let (store, _) = Store::start(backend).unwrap();
    let first = store.write(vec![create(&new_game("x", 1))]);
    entered.recv().unwrap();
    let later: Vec<_> = (0..3).map(|i| store.write(vec![create(&new_game(&format!("g{i}"), i))])).collect();
    open_gate.send(()).unwrap();
    first.await.unwrap();
    for ack in later {
        assert_eq!(ack.await, Err(StoreError::Io("disk full".into())));
    }
    // One batch for the three, failed once: no request retried on its own (a refusal would be).
    assert_eq!(*batches.lock().unwrap(), [1, 3]);
    store.close().await;
}

on_every_backend!(
    #[tokio::test]
    duplicate_index_fails_only_its_request
);
async fn duplicate_index_fails_only_its_request(db: Db) {
    let (entered_tx, entered) = mpsc::channel();
    let (open_gate, gate) = mpsc::channel();
    let batches = Arc::new(Mutex::new(Vec::new()));
    let backend = Gated {
        inner: db.backend(),
        entered: Some(entered_tx),
        gate: Some(gate),
        batches: Arc::clone(&batches),
        then_fail: None,
    };
    let (store, _) = Store::start(backend).unwrap();
    let (x, y) = (new_game("x", 1), new_game("y", 2));

    // The first batch holds the writer until the others are queued behind it.
    let first = store.write(vec![create(&x), create(&y), act("x", &action(0, ActionKind::Play))]);
    entered.recv().unwrap();
    let good_x = store.write(vec![act("x", &action(1, ActionKind::Play))]);
    // A new index then a duplicate one: the whole request must fail, the new index too.
    let bad_x =
        store.write(vec![act("x", &action(2, ActionKind::Play)), act("x", &action(0, ActionKind::Resign))]);
    let good_y =
        store.write(vec![act("y", &action(0, ActionKind::Play)), act("y", &action(1, ActionKind::Play))]);
    open_gate.send(()).unwrap();

    first.await.unwrap();
    good_x.await.unwrap();
    let err = bad_x.await.unwrap_err();
    assert!(matches!(&err, StoreError::Refused(m) if m.contains("action 0 of game x")), "{err}");
    good_y.await.unwrap();
    // The three requests were tried as one batch, which failed, then one by one.
    assert_eq!(*batches.lock().unwrap(), vec![3, 5, 1, 2, 2]);
    assert_eq!(store.stats(), (3, 3 + 1 + 2));

    let loaded = db.load();
    assert_eq!(loaded[0].actions, vec![action(0, ActionKind::Play), action(1, ActionKind::Play)]);
    assert_eq!(loaded[1].actions, vec![action(0, ActionKind::Play), action(1, ActionKind::Play)]);
    // The store goes on: index 2 of x was not taken.
    store.write(vec![act("x", &action(2, ActionKind::Timeout))]).await.unwrap();
    store.close().await;
    assert_eq!(db.load()[0].actions.len(), 3);
}

/// SQLite's commits do not sync: what a power loss takes from it, the journal's row
/// records give back at the next start.
#[test]
fn rows_sqlite_lost_come_back_from_the_journal() {
    let end = Finished { result_json: "{\"winner\":1}".to_owned(), finished_ms: 99 };
    let played: Vec<ActionRow> = (0..3).map(|i| action(i, ActionKind::Play)).collect();
    let written = |path: &Path| {
        let mut b = SqliteBackend::open(path).unwrap();
        b.commit(&[create(&new_game("g", 7)), take("g", &seat(0, "ann", false))]).unwrap();
        b.commit(&[take("g", &seat(1, "bot", true)), create(&new_game("h", 8))]).unwrap();
        let acts: Vec<Write> = played.iter().map(|a| act("g", a)).collect();
        b.commit(&acts).unwrap();
        b.commit(&[finish("g", &end, &played), take("h", &seat(1, "cy", false))]).unwrap();
        b.commit(&[act("h", &action(0, ActionKind::Resign))]).unwrap();
        // A seat's new token; a seat nobody took has none to change.
        let token = |seat, token_hash| Write::SeatToken { game_id: "h".into(), seat, token_hash };
        b.commit(&[token(1, [9; 32])]).unwrap();
        let refused = b.commit(&[token(0, [8; 32])]).unwrap_err();
        assert!(matches!(refused, StoreError::Refused(_)), "{refused:?}");
        b.load_all().unwrap()
    };
    // As if none of SQLite's commits had reached the disk, then some of them: each on a
    // database of its own (a start that applied the rows again leaves them synced in SQLite
    // and the journal without them).
    for lost in [
        "DELETE FROM seats; DELETE FROM games;",
        "UPDATE games SET finished_ms = NULL, \
        result_json = NULL, actions_json = NULL; DELETE FROM seats WHERE name = 'cy';",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let before = written(&path);
        assert_eq!(before.len(), 2);
        assert_eq!(before[1].seats[0].token_hash, [9; 32], "the new token's hash replaced the old");
        assert_eq!(before[0].finished.as_ref(), Some(&end));
        let c = Connection::open(&path).unwrap();
        c.execute_batch(lost).unwrap();
        drop(c);
        let mut b = SqliteBackend::open(&path).unwrap();
        assert_eq!(b.load_all().unwrap(), before, "after {lost}");
        // And it goes on from there: the game left takes its next action.
        if lost.starts_with("DELETE") {
            b.commit(&[act("h", &action(1, ActionKind::Play))]).unwrap();
            b.commit(&[act("h", &action(1, ActionKind::Play))]).unwrap_err();
            assert_eq!(b.load_all().unwrap()[1].actions.len(), 2);
        }
    }
}

/// The tournaments' rows go through the same commits: written, refused where they break a
/// rule (nothing of the batch then), read back at start, and given back by the journal when
/// SQLite lost them; the seat tokens an older server stored are blanked at open.
/// Stores a tournament's rows through `b`, checks that bad ones are refused with nothing of
/// their batch written, and returns what `b` loads back.
fn tournament_rows(b: &mut dyn Backend) -> Startup {
    use super::{BookedRow, EntrantRow, NewTournament, ResultRow, TournamentWrite as T};
    let tid = || "t1".to_string();
    let booked = |number, seats| BookedRow {
        number,
        round: 1,
        game_id: format!("g{number}"),
        seats,
        deal_seed: u64::MAX - number as u64,
    };
    {
        let t = NewTournament { id: tid(), spec: vec![1, 2, 3], created_ms: 5, status: 0, fixed_deals: true };
        b.commit(&[Write::Tournament(T::Create(t))]).unwrap();
        let entrant = |idx, name: &str| T::Entrant {
            tournament_id: tid(),
            entrant: EntrantRow {
                idx,
                name: name.into(),
                token_hash: [idx as u8; 32],
                account_id: (idx == 1).then(|| "acc-1".to_owned()),
            },
        };
        b.commit(&[
            Write::Tournament(entrant(0, "ann")),
            Write::Tournament(entrant(1, "bo")),
            Write::Tournament(T::Status { tournament_id: tid(), status: 1 }),
        ])
        .unwrap();
        b.commit(&[
            Write::Tournament(T::Book { tournament_id: tid(), game: booked(0, vec![0, 1]) }),
            create(&new_game("g0", 1)),
        ])
        .unwrap();
        b.commit(&[Write::Tournament(T::Book { tournament_id: tid(), game: booked(1, vec![1, 0]) })])
            .unwrap();
        let result = ResultRow { number: 0, winner: Some(1), totals: vec![12, 130], places: Vec::new() };
        b.commit(&[Write::Tournament(T::Result { tournament_id: tid(), result: result.clone() })]).unwrap();
        // A table's game: three seats, signed totals, places (a shared first place).
        b.commit(&[Write::Tournament(T::Book { tournament_id: tid(), game: booked(2, vec![2, 0, 1]) })])
            .unwrap();
        let table_result =
            ResultRow { number: 2, winner: None, totals: vec![61, 61, -7], places: vec![1, 1, 3] };
        b.commit(&[Write::Tournament(T::Result { tournament_id: tid(), result: table_result.clone() })])
            .unwrap();
        // Refused, and nothing of its batch is written: a number taken, an unknown tournament.
        for bad in [
            T::Book { tournament_id: tid(), game: booked(1, vec![0, 1]) },
            T::Entrant {
                tournament_id: "nope".into(),
                entrant: EntrantRow { idx: 0, name: "x".into(), token_hash: [0; 32], account_id: None },
            },
            T::Status { tournament_id: "nope".into(), status: 2 },
            T::Result {
                tournament_id: tid(),
                result: ResultRow { number: 7, winner: None, totals: vec![0, 0], places: Vec::new() },
            },
        ] {
            let e = b.commit(&[create(&new_game("lost", 2)), Write::Tournament(bad.clone())]).unwrap_err();
            assert!(matches!(e, StoreError::Refused(_)), "{bad:?}: {e:?}");
        }
        assert!(b.load_game("lost").unwrap().is_none());
        let s = b.load_startup().unwrap();
        assert_eq!(s.tournaments.len(), 1);
        let t = &s.tournaments[0];
        assert_eq!(
            (t.tournament.status, t.tournament.fixed_deals, t.tournament.spec.as_slice()),
            (1, true, &[1u8, 2, 3][..])
        );
        assert_eq!(
            t.entrants
                .iter()
                .map(|e| (e.idx, e.name.as_str(), e.token_hash[0], e.account_id.as_deref()))
                .collect::<Vec<_>>(),
            [(0, "ann", 0, None), (1, "bo", 1, Some("acc-1"))]
        );
        assert_eq!(
            t.games,
            vec![
                (booked(0, vec![0, 1]), Some(result)),
                (booked(1, vec![1, 0]), None),
                (booked(2, vec![2, 0, 1]), Some(table_result)),
            ]
        );
        // One by id, as a server taking it over reads it.
        assert_eq!(b.load_tournament("t1").unwrap().as_ref(), Some(t));
        assert_eq!(b.load_tournament("t2").unwrap(), None);
        // The tournament that booked a game, by the game (for a server reading back a game of
        // a tournament another server holds): its status, the server's encoding.
        assert_eq!(b.tournament_status_of("g0").unwrap(), Some(1));
        assert_eq!(b.tournament_status_of("g2").unwrap(), Some(1));
        assert_eq!(b.tournament_status_of("lost").unwrap(), None);
        s
    }
}

#[test]
fn tournament_rows_are_stored_refused_and_come_back_from_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let startup = tournament_rows(&mut SqliteBackend::open(&path).unwrap());
    // SQLite lost every tournament row (its commits do not sync): the journal gives them back.
    let c = Connection::open(&path).unwrap();
    c.execute_batch(
        "DELETE FROM tournament_games; DELETE FROM tournament_entrants; DELETE FROM tournaments;",
    )
    .unwrap();
    // And an older server's plain seat tokens: blanked at open.
    c.execute_batch("INSERT INTO tournaments (id, spec, created_ms, status) VALUES ('old', x'', 1, 2); \
        INSERT INTO tournament_games (tournament_id, number, round, game_id, seat0, seat1, token0, token1, deal_seed, done) \
        VALUES ('old', 0, 1, 'x', 0, 1, 'secret-token-0', 'secret-token-1', 3, 1);").unwrap();
    drop(c);
    let mut b = SqliteBackend::open(&path).unwrap();
    let again = b.load_startup().unwrap();
    assert_eq!(again.tournaments[1..], startup.tournaments[..]);
    let tokens: String = Connection::open(&path)
        .unwrap()
        .query_row("SELECT group_concat(token0 || token1, '') FROM tournament_games", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tokens, "");
}

#[test]
fn postgres_tournament_rows_are_stored_refused_and_read_back_by_another_connection() {
    let Some(db) = Db::postgres() else { return };
    let startup = tournament_rows(&mut *db.backend());
    assert_eq!(db.backend().load_startup().unwrap(), startup);
}

#[test]
fn postgres_servers_started_together_migrate_once_and_a_newer_schema_is_refused() {
    let Some(db) = Db::postgres() else { return };
    let Db::Postgres(_, url) = &db else { unreachable!() };
    // Four connections racing to create the schema: the advisory lock lets one do it.
    let opened: Vec<Result<PostgresBackend, StoreError>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| PostgresBackend::connect(url))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        opened.iter().all(Result::is_ok),
        "{:?}",
        opened.iter().filter_map(|r| r.as_ref().err()).collect::<Vec<_>>()
    );
    let mut c = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    let versions: Vec<i32> =
        c.query("SELECT version FROM gin_schema", &[]).unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(versions, [super::postgres::SCHEMA_VERSION]);
    c.execute("UPDATE gin_schema SET version = version + 1", &[]).unwrap();
    let err = PostgresBackend::connect(url).err().unwrap();
    let newer = format!("schema version {}", super::postgres::SCHEMA_VERSION + 1);
    assert!(matches!(&err, StoreError::Corrupt(m) if m.contains(&newer)), "{err}");
}

#[test]
fn postgres_a_lost_connection_fails_its_batch_and_the_next_one_reconnects() {
    let Some(db) = Db::postgres() else { return };
    let Db::Postgres(_, url) = &db else { unreachable!() };
    let mut b = PostgresBackend::connect(url).unwrap();
    b.commit(&[create(&new_game("g", 1)), act("g", &action(0, ActionKind::Play))]).unwrap();
    // The server ends the backend's session (as a restart or a network cut would).
    let mut admin = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    let cut = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gin-server'",
            &[],
        )
        .unwrap();
    assert_eq!(cut.len(), 1);
    let err = b.commit(&[act("g", &action(1, ActionKind::Play))]).unwrap_err();
    assert!(matches!(err, StoreError::Io(_)), "{err:?}");
    // Nothing of the failed batch was written: its index is still the next one.
    b.commit(&[act("g", &action(1, ActionKind::Play))]).unwrap();
    assert_eq!(
        b.load_game("g").unwrap().unwrap().actions,
        [action(0, ActionKind::Play), action(1, ActionKind::Play)]
    );
}

/// Issue 19: a game's owner is cut off from PostgreSQL (its session ended) and renews its
/// lease no more; once the lease ran out another server claims the game, and the old owner,
/// back, cannot write anything: not an action, not a new game, not an end. The new owner
/// goes on from the last action the old one committed.
#[test]
fn postgres_a_partitioned_owner_cannot_write_once_its_lease_is_gone() {
    use std::time::Duration;
    let Some(db) = Db::postgres() else { return };
    let Db::Postgres(_, url) = &db else { unreachable!() };
    let ttl = Duration::from_millis(600);
    let mut a = PostgresBackend::connect(url).unwrap();
    let a_id = a.join_cluster("10.0.0.1:50051", ttl).unwrap();
    a.commit(&[create(&new_game("g", 1)), act("g", &action(0, ActionKind::Play))]).unwrap();
    let mut b = PostgresBackend::connect(url).unwrap();
    let b_id = b.join_cluster("10.0.0.2:50051", Duration::from_secs(60)).unwrap();
    assert_ne!(a_id, b_id);

    // While A's lease holds, the game is A's: B is told where it is, and may not write it.
    assert_eq!(b.owner_of("g").unwrap(), Owner::Other { id: a_id, addr: "10.0.0.1:50051".into() });
    assert_eq!(b.owner_of("nope").unwrap(), Owner::NoSuchGame);
    let err = b.commit(&[act("g", &action(1, ActionKind::Play))]).unwrap_err();
    assert!(matches!(&err, StoreError::Refused(m) if m.contains("another server's")), "{err:?}");
    assert_eq!(b.claim_orphans().unwrap(), Default::default());
    assert!(a.renew_lease().unwrap());

    // A is cut off: its session ends, it renews no more.
    let pid = a.session_pid();
    let mut admin = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    admin.execute("SELECT pg_terminate_backend($1)", &[&pid]).unwrap();
    std::thread::sleep(ttl + Duration::from_millis(300));
    assert_eq!(b.owner_of("g").unwrap(), Owner::Lapsed, "a lookup claims nothing");
    let claimed = b.claim_orphans().unwrap();
    assert_eq!(claimed.games, ["g"], "B claims the game of a lapsed owner");
    assert_eq!(b.owner_of("g").unwrap(), Owner::Me);

    // A's next write meets the cut (I/O); then A is back (it connects again): every write of
    // it is refused (the lease is lost: nothing committed), and nothing is written.
    let err = a.commit(&[act("g", &action(1, ActionKind::Play))]).unwrap_err();
    assert!(matches!(&err, StoreError::Io(_)), "{err:?}");
    for writes in [
        vec![act("g", &action(1, ActionKind::Play))],
        vec![create(&new_game("h", 2))],
        vec![finish("g", &Finished { result_json: "{}".into(), finished_ms: 1 }, &[])],
    ] {
        let err = a.commit(&writes).unwrap_err();
        assert!(matches!(&err, StoreError::LeaseLost), "{writes:?}: {err:?}");
        assert!(err.to_string().contains("lease ran out"), "{err}");
    }
    assert!(!a.renew_lease().unwrap(), "A learns its lease is gone");
    assert!(b.load_game("h").unwrap().is_none());
    // B goes on from index 1.
    b.commit(&[act("g", &action(1, ActionKind::Play))]).unwrap();
    let g = b.load_game("g").unwrap().unwrap();
    assert_eq!(g.actions, [action(0, ActionKind::Play), action(1, ActionKind::Play)]);
    assert!(g.finished.is_none());
    // A joins again, as a new server: the game stays B's.
    let a2 = a.join_cluster("10.0.0.1:50051", ttl).unwrap();
    assert!(a2 != a_id && a2 != b_id);
    assert_eq!(a.owner_of("g").unwrap(), Owner::Other { id: b_id, addr: "10.0.0.2:50051".into() });
}

/// A server stopped gracefully gives its lease up (`leave`): though its lease had a minute
/// left, the game is `Lapsed` at once and another server's next claim takes it, and nothing
/// the leaver writes afterwards is committed (its lease is gone, it cannot renew it).
#[test]
fn postgres_a_lease_given_up_is_claimed_at_once_and_fences_its_server() {
    use std::time::Duration;
    let Some(db) = Db::postgres() else { return };
    let Db::Postgres(_, url) = &db else { unreachable!() };
    let minute = Duration::from_secs(60);
    let mut a = PostgresBackend::connect(url).unwrap();
    let a_id = a.join_cluster("10.0.0.1:50051", minute).unwrap();
    a.commit(&[create(&new_game("g", 1)), act("g", &action(0, ActionKind::Play))]).unwrap();
    let mut b = PostgresBackend::connect(url).unwrap();
    b.join_cluster("10.0.0.2:50051", minute).unwrap();
    assert_eq!(b.owner_of("g").unwrap(), Owner::Other { id: a_id, addr: "10.0.0.1:50051".into() });
    assert_eq!(b.claim_orphans().unwrap(), Default::default(), "A's lease holds");

    Backend::leave(&mut a).unwrap();
    assert_eq!(b.owner_of("g").unwrap(), Owner::Lapsed);
    assert_eq!(b.live_servers().unwrap().len(), 1, "A is no longer live");
    assert_eq!(b.claim_orphans().unwrap().games, ["g"]);
    let err = a.commit(&[act("g", &action(1, ActionKind::Play))]).unwrap_err();
    assert!(matches!(&err, StoreError::LeaseLost), "{err:?}");
    assert!(!a.renew_lease().unwrap(), "a lease given up is not renewed");
    b.commit(&[act("g", &action(1, ActionKind::Play))]).unwrap();
    assert_eq!(b.load_game("g").unwrap().unwrap().actions.len(), 2);
}

/// A database and journal from before row records existed (the journal's segment in the
/// first format, actions only): opened, written to (rows and actions, appended to the old
/// segment), reopened, and nothing is lost.
#[test]
fn an_older_journal_takes_the_new_records_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let played: Vec<ActionRow> = (0..3).map(|i| action(i, ActionKind::Play)).collect();
    {
        let mut b = SqliteBackend::open(&path).unwrap();
        b.commit(&[create(&new_game("g", 7)), take("g", &seat(0, "ann", false))]).unwrap();
        let acts: Vec<Write> = played.iter().map(|a| act("g", a)).collect();
        b.commit(&acts).unwrap();
    }
    // What the server before wrote: SQLite synced, one journal segment of the first
    // format holding the actions only.
    let journal = journal_dir(&path);
    for entry in std::fs::read_dir(&journal).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "log") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let mut old = b"GINJNL01".to_vec();
    for a in &played {
        super::journal::encode_record(&mut old, "g", a);
    }
    std::fs::write(journal.join("00000001.log"), &old).unwrap();

    let end = Finished { result_json: "{}".to_owned(), finished_ms: 9 };
    let before = {
        let mut b = SqliteBackend::open(&path).unwrap();
        assert_eq!(b.load_game("g").unwrap().unwrap().actions, played);
        b.commit(&[take("g", &seat(1, "bob", false)), create(&new_game("h", 8))]).unwrap();
        let last = action(3, ActionKind::Resign);
        let all: Vec<ActionRow> = played.iter().cloned().chain([last.clone()]).collect();
        b.commit(&[act("g", &last), finish("g", &end, &all)]).unwrap();
        b.load_all().unwrap()
    };
    assert_eq!(before[0].seats.len(), 2);
    assert_eq!(before[0].finished.as_ref(), Some(&end));
    // The old segment took the new records (no rotation yet).
    assert_eq!(&std::fs::read(journal.join("00000001.log")).unwrap()[..8], b"GINJNL01");
    let mut b = SqliteBackend::open(&path).unwrap();
    assert_eq!(b.load_all().unwrap(), before);
}

/// Rotations leave the row records behind (SQLite's files are synced first): the journal
/// stays small, and everything is still there after a reopen.
#[test]
fn rotations_leave_row_records_behind_and_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let end = Finished { result_json: "{}".to_owned(), finished_ms: 5 };
    let before = {
        let mut b = SqliteBackend::open_with(&path, 2048).unwrap();
        for i in 0..40u32 {
            let id = format!("game-{i}");
            b.commit(&[create(&new_game(&id, u64::from(i))), take(&id, &seat(0, "a", false))]).unwrap();
            b.commit(&[take(&id, &seat(1, "b", true))]).unwrap();
            let played: Vec<ActionRow> = (0..4).map(|n| action(n, ActionKind::Play)).collect();
            let mut last: Vec<Write> = played.iter().map(|a| act(&id, a)).collect();
            if i % 2 == 0 {
                last.push(finish(&id, &end, &played));
            }
            b.commit(&last).unwrap();
        }
        b.load_all().unwrap()
    };
    assert_eq!(before.len(), 40);
    let segment_rows = |dir: &Path| {
        let (mut j, _) = Journal::open(dir, 1 << 20).unwrap();
        j.take_rows().len()
    };
    // 40 games wrote 120 rows and 20 ends: most were left behind at rotations.
    let left = segment_rows(&journal_dir(&path));
    assert!(left < 40, "{left} row records still in the journal");
    let mut b = SqliteBackend::open_with(&path, 2048).unwrap();
    assert_eq!(b.load_all().unwrap(), before);
}

on_every_backend!(
    #[tokio::test]
    failed_writes_leave_the_state_unchanged
);
async fn failed_writes_leave_the_state_unchanged(db: Db) {
    let (store, _) = db.store();
    let g = new_game("g", 7);
    let end = Finished { result_json: "{}".to_owned(), finished_ms: 99 };
    store
        .write(vec![
            create(&g),
            take("g", &seat(0, "a", false)),
            act("g", &action(0, ActionKind::Play)),
            act("g", &action(1, ActionKind::Play)),
        ])
        .await
        .unwrap();
    store.write(vec![create(&new_game("done", 8)), finish("done", &end, &[])]).await.unwrap();
    let before = db.load();
    let stats = store.stats();

    let failing: Vec<Vec<Write>> = vec![
        // Each request has good writes before the bad one: none of them may stay.
        vec![create(&new_game("new", 9)), create(&new_game("g", 10))],
        vec![take("g", &seat(1, "b", false)), take("g", &seat(0, "c", false))],
        vec![act("g", &action(2, ActionKind::Play)), act("g", &action(1, ActionKind::Play))],
        vec![act("g", &action(2, ActionKind::Play)), act("nope", &action(0, ActionKind::Play))],
        vec![act("g", &action(2, ActionKind::Play)), take("nope", &seat(0, "d", false))],
        vec![act("g", &action(2, ActionKind::Play)), finish("nope", &end, &[])],
        vec![act("g", &action(2, ActionKind::Play)), act("done", &action(0, ActionKind::Play))],
        vec![finish("g", &end, &[]), act("g", &action(2, ActionKind::Play))],
        // A text too long for the store (the journal's limit): the rows before it stay out too.
        vec![
            create(&new_game("new2", 11)),
            act("g", &ActionRow { action: "x".repeat(70_000), ..action(2, ActionKind::Play) }),
        ],
        vec![finish("g", &end, &[]), finish("done", &end, &[])],
        vec![finish("g", &end, &[]), finish("g", &end, &[])],
    ];
    for writes in failing {
        let what = format!("{writes:?}");
        assert!(store.write(writes).await.is_err(), "should fail: {what}");
        assert_eq!(db.load(), before, "changed by {what}");
    }
    assert_eq!(store.stats(), stats);
    store.close().await;
    assert_eq!(db.load(), before);
}

on_every_backend!(
    #[tokio::test]
    acknowledged_writes_are_visible_to_another_connection
);
async fn acknowledged_writes_are_visible_to_another_connection(db: Db) {
    let (store, _) = db.store();
    let g = new_game("g", 3);
    store.write(vec![create(&g)]).await.unwrap();
    let seen = db.load();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].game, g);
    for i in 0..5 {
        store.write(vec![act("g", &action(i, ActionKind::Play))]).await.unwrap();
        // A second connection while the store runs: committed, not buffered.
        let seen = db.load();
        assert_eq!(seen[0].actions.len(), i as usize + 1);
        assert_eq!(seen[0].actions[i as usize], action(i, ActionKind::Play));
    }
    store.close().await;
}

on_every_backend!(
    #[tokio::test]
    close_commits_what_is_queued_then_refuses
);
async fn close_commits_what_is_queued_then_refuses(db: Db) {
    let (store, _) = db.store();
    let mut pending = vec![store.write(vec![create(&new_game("g", 1))])];
    for i in 0..100 {
        pending.push(store.write(vec![act("g", &action(i, ActionKind::Play))]));
    }
    let other = store.clone();
    store.close().await;
    for p in pending {
        p.await.unwrap();
    }
    assert_eq!(store.write(vec![]).await, Err(StoreError::Closed));
    assert_eq!(other.write(vec![act("g", &action(100, ActionKind::Play))]).await, Err(StoreError::Closed));
    other.close().await;
    assert_eq!(db.load()[0].actions.len(), 100);
}

on_every_backend!(
    #[tokio::test]
    dropping_every_handle_still_commits_what_is_queued
);
async fn dropping_every_handle_still_commits_what_is_queued(db: Db) {
    let (store, _) = db.store();
    let pending = store.write(vec![create(&new_game("g", 1))]);
    drop(store);
    pending.await.unwrap();
    assert_eq!(db.load().len(), 1);
}

#[test]
fn in_memory_and_empty_batches() {
    let mut backend = SqliteBackend::open(Path::new(":memory:")).unwrap();
    backend.commit(&[]).unwrap();
    backend.commit(&[create(&new_game("m", 5))]).unwrap();
    assert!(backend.commit(&[create(&new_game("m", 6))]).is_err());
    let loaded = backend.load_all().unwrap();
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0].game, new_game("m", 5));
}

#[test]
fn refuses_an_unknown_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    drop(SqliteBackend::open(&path).unwrap());
    // Reopening the same version is fine.
    drop(SqliteBackend::open(&path).unwrap());
    Connection::open(&path).unwrap().pragma_update(None, "user_version", 5).unwrap();
    let err = SqliteBackend::open(&path).err().unwrap();
    assert!(matches!(&err, StoreError::Corrupt(m) if m.contains("schema version 5")), "{err}");
}

/// Run by hand: `cargo test -p gin-server --release store_throughput -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a test"]
async fn store_throughput() {
    for db in [Some(Db::sqlite()), Db::postgres()].into_iter().flatten() {
        let name = if matches!(db, Db::Sqlite(_)) { "SQLite" } else { "PostgreSQL" };
        println!("{name}:");
        throughput_of(db.store().0).await;
    }
}

async fn throughput_of(store: Store) {
    const WRITERS: usize = 100;
    const WRITES: u32 = 300;
    let games: Vec<Write> = (0..WRITERS).map(|g| create(&new_game(&format!("game-{g}"), g as u64))).collect();
    store.write(games).await.unwrap();
    let before = store.stats();
    let start = Instant::now();
    let mut tasks = Vec::new();
    for g in 0..WRITERS {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let id = format!("game-{g}");
            for i in 0..WRITES {
                store.write(vec![act(&id, &action(i, ActionKind::Play))]).await.unwrap();
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = start.elapsed();
    let (transactions, writes) = store.stats();
    let (transactions, writes) = (transactions - before.0, writes - before.1);
    println!(
        "store_throughput: {writes} writes by {WRITERS} concurrent writers in {elapsed:.2?}: \
         {:.0} writes/s, {transactions} transactions ({:.1} writes each, {:.0} transactions/s)",
        writes as f64 / elapsed.as_secs_f64(),
        writes as f64 / transactions as f64,
        transactions as f64 / elapsed.as_secs_f64(),
    );
    store.close().await;
}

// The accounts' rows.

/// An account: a person with a password, or a bot without one.
fn account(id: &str, name: &str, kind: i32) -> AccountRow {
    AccountRow {
        id: id.to_owned(),
        name: name.to_owned(),
        name_key: name.to_lowercase(),
        skeleton: format!("skeleton-{}", name.to_lowercase()),
        kind,
        created_ms: 100,
        password_hash: (kind == KIND_PERSON).then(|| format!("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA${id}")),
        deleted_ms: None,
    }
}

/// A live token of `account_id`, its hash `[n; 32]`.
fn token(id: &str, account_id: &str, n: u8) -> TokenRow {
    TokenRow {
        id: id.to_owned(),
        account_id: account_id.to_owned(),
        hash: [n; 32],
        label: format!("label of {id}"),
        scopes: 0b101 << n,
        session: n % 2 == 1,
        created_ms: 200 + i64::from(n),
        last_used_ms: 200 + i64::from(n),
        revoked_ms: None,
    }
}

fn acct(w: AccountWrite) -> Write {
    Write::Account(w)
}

/// A seat taken at `joined_ms` by `account` (`None`: a guest).
fn account_seat(seat: u8, account: Option<&str>, joined_ms: i64) -> SeatRow {
    SeatRow {
        seat,
        name: account.unwrap_or("guest").to_owned(),
        token_hash: [seat + 1; 32],
        bot: false,
        joined_ms,
        account_id: account.map(str::to_owned),
    }
}

/// The refusal of `result`, or a panic saying what was not refused.
fn refused(result: Result<(), StoreError>, what: &str) -> String {
    match result {
        Err(StoreError::Refused(m)) => m,
        other => panic!("{what}: not refused: {other:?}"),
    }
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    accounts_and_tokens_are_stored_and_load_back_at_start
);
async fn accounts_and_tokens_are_stored_and_load_back_at_start(db: Db) {
    let (store, startup) = db.store();
    assert_eq!((startup.accounts.len(), startup.tokens.len(), startup.account_cursor), (0, 0, 0));
    let (ann, bot) = (account("a1", "Ann", KIND_PERSON), account("b1", "Robo", KIND_BOT));
    store
        .write(vec![acct(AccountWrite::Create(ann.clone())), acct(AccountWrite::Create(bot.clone()))])
        .await
        .unwrap();
    let (t1, t2) = (token("t1", "a1", 1), token("t2", "b1", 2));
    store.write(vec![acct(AccountWrite::AddToken(t1.clone()))]).await.unwrap();
    store.write(vec![acct(AccountWrite::AddToken(t2.clone()))]).await.unwrap();
    let cursor = store.account_changes(0).await.unwrap().cursor;
    assert!(cursor > 0);
    store.close().await;
    drop(store);
    let (store, startup) = db.store();
    assert_eq!(startup.accounts, vec![ann, bot]);
    assert_eq!(startup.tokens, vec![t1, t2]);
    assert_eq!(startup.account_cursor, cursor);
    assert_eq!(store.account_changes(startup.account_cursor).await.unwrap().cursor, cursor);
    store.close().await;
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    a_taken_name_or_skeleton_is_refused_and_its_batch_changes_nothing
);
async fn a_taken_name_or_skeleton_is_refused_and_its_batch_changes_nothing(db: Db) {
    let (store, _) = db.store();
    let ann = account("a1", "Ann", KIND_PERSON);
    store.write(vec![acct(AccountWrite::Create(ann.clone()))]).await.unwrap();
    let before = store.account_changes(0).await.unwrap();
    let same_key =
        AccountRow { id: "a2".into(), name: "ANN".into(), skeleton: "other".into(), ..ann.clone() };
    let same_skeleton =
        AccountRow { id: "a3".into(), name: "Anm".into(), name_key: "anm".into(), ..ann.clone() };
    let same_id =
        AccountRow { name: "Bo".into(), name_key: "bo".into(), skeleton: "bo".into(), ..ann.clone() };
    for (what, bad) in [("name key", same_key), ("skeleton", same_skeleton), ("id", same_id)] {
        // With a game and a token created in the same batch: none of it is written.
        let batch = vec![
            create(&new_game("lost", 3)),
            take("lost", &account_seat(0, Some("a1"), 5)),
            acct(AccountWrite::AddToken(token("lost-token", "a1", 9))),
            acct(AccountWrite::Create(bad)),
        ];
        refused(store.write(batch).await, what);
        assert_eq!(store.load_game("lost").await.unwrap(), None, "{what}");
        assert_eq!(store.account_changes(0).await.unwrap(), before, "{what}");
        assert!(store.account_games("a1", None, 10).await.unwrap().is_empty(), "{what}");
    }
    // A deleted account keeps its name: never given again.
    store.write(vec![acct(AccountWrite::Delete { account_id: "a1".into(), at_ms: 300 })]).await.unwrap();
    let again = AccountRow { id: "a4".into(), ..ann.clone() };
    refused(store.write(vec![acct(AccountWrite::Create(again))]).await, "a deleted account's name");
    // Another name is fine.
    let bo = account("a5", "Bo", KIND_BOT);
    store.write(vec![acct(AccountWrite::Create(bo.clone()))]).await.unwrap();
    let accounts = store.account_changes(0).await.unwrap().accounts;
    assert_eq!(accounts.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), ["a1", "a5"]);
    store.close().await;
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    tokens_are_added_revoked_once_and_touched_to_the_latest_use
);
async fn tokens_are_added_revoked_once_and_touched_to_the_latest_use(db: Db) {
    let (store, _) = db.store();
    store.write(vec![acct(AccountWrite::Create(account("a1", "Ann", KIND_PERSON)))]).await.unwrap();
    let t1 = token("t1", "a1", 1);
    store.write(vec![acct(AccountWrite::AddToken(t1.clone()))]).await.unwrap();
    // Refused: an unknown account, a hash or an id that exists.
    for (what, bad) in [
        ("unknown account", token("t2", "nobody", 2)),
        ("same hash", token("t2", "a1", 1)),
        ("same id", token("t1", "a1", 3)),
    ] {
        refused(store.write(vec![acct(AccountWrite::AddToken(bad))]).await, what);
    }
    let tokens = || async { store.account_changes(0).await.unwrap().tokens };
    assert_eq!(tokens().await, vec![t1.clone()]);
    // Touches: the latest time wins, unknown ids are ignored, an id twice takes the later.
    let touch = |list: &[(&str, i64)]| {
        acct(AccountWrite::TouchTokens(list.iter().map(|(id, at)| (id.to_string(), *at)).collect()))
    };
    store.write(vec![touch(&[("t1", 500), ("nope", 900)])]).await.unwrap();
    assert_eq!(tokens().await[0].last_used_ms, 500);
    store.write(vec![touch(&[("t1", 400)])]).await.unwrap();
    assert_eq!(tokens().await[0].last_used_ms, 500, "an earlier use does not go back");
    store.write(vec![touch(&[("t1", 700), ("t1", 600)])]).await.unwrap();
    assert_eq!(tokens().await[0].last_used_ms, 700);
    // Revocation: the first time is kept; an unknown token is refused.
    let revoke = |id: &str, at_ms| acct(AccountWrite::RevokeToken { token_id: id.into(), at_ms });
    store.write(vec![revoke("t1", 1000)]).await.unwrap();
    store.write(vec![revoke("t1", 2000)]).await.unwrap();
    refused(store.write(vec![revoke("t9", 1000)]).await, "an unknown token");
    assert_eq!(tokens().await, vec![TokenRow { last_used_ms: 700, revoked_ms: Some(1000), ..t1 }]);
    // A password: set on a live account, refused for an unknown one.
    let set = |id: &str, hash: &str| {
        acct(AccountWrite::SetPassword { account_id: id.into(), password_hash: hash.into() })
    };
    store.write(vec![set("a1", "$argon2id$new")]).await.unwrap();
    refused(store.write(vec![set("a9", "$argon2id$new")]).await, "an unknown account's password");
    let accounts = store.account_changes(0).await.unwrap().accounts;
    assert_eq!(accounts[0].password_hash.as_deref(), Some("$argon2id$new"));
    store.close().await;
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    deleting_an_account_revokes_its_live_tokens_and_clears_its_password
);
async fn deleting_an_account_revokes_its_live_tokens_and_clears_its_password(db: Db) {
    let (store, _) = db.store();
    let (ann, bo) = (account("a1", "Ann", KIND_PERSON), account("a2", "Bo", KIND_PERSON));
    let (old, live, other) = (token("t1", "a1", 1), token("t2", "a1", 2), token("t3", "a2", 3));
    store
        .write(vec![
            acct(AccountWrite::Create(ann.clone())),
            acct(AccountWrite::Create(bo.clone())),
            acct(AccountWrite::AddToken(old.clone())),
            acct(AccountWrite::AddToken(live.clone())),
            acct(AccountWrite::AddToken(other.clone())),
            acct(AccountWrite::RevokeToken { token_id: "t1".into(), at_ms: 50 }),
        ])
        .await
        .unwrap();
    let delete = |id: &str, at_ms| acct(AccountWrite::Delete { account_id: id.into(), at_ms });
    store.write(vec![delete("a1", 100)]).await.unwrap();
    let changes = store.account_changes(0).await.unwrap();
    assert_eq!(
        changes.accounts,
        vec![bo, AccountRow { deleted_ms: Some(100), password_hash: None, ..ann }],
        "in change order"
    );
    let mut tokens = changes.tokens;
    tokens.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(
        tokens,
        vec![
            TokenRow { revoked_ms: Some(50), ..old },
            TokenRow { revoked_ms: Some(100), ..live },
            other.clone(),
        ]
    );
    // A deleted account takes no token, no password, and is not deleted twice; an unknown one
    // is not deleted.
    refused(store.write(vec![acct(AccountWrite::AddToken(token("t4", "a1", 4)))]).await, "a token");
    let password = AccountWrite::SetPassword { account_id: "a1".into(), password_hash: "$x".into() };
    refused(store.write(vec![acct(password)]).await, "a password");
    refused(store.write(vec![delete("a1", 200)]).await, "deleted twice");
    refused(store.write(vec![delete("a9", 200)]).await, "an unknown account");
    let after = store.account_changes(0).await.unwrap();
    assert_eq!(after.accounts[1].deleted_ms, Some(100));
    store.close().await;
}

/// The games of the accounts' test: (game, finished, seats).
fn account_games_setup() -> Vec<Write> {
    let end = Finished { result_json: "{\"winner\":0}".into(), finished_ms: 9000 };
    let mut w = Vec::new();
    let mut game = |id: &str, seed, seats: &[SeatRow], finished: bool| {
        w.push(create(&new_game(id, seed)));
        w.extend(seats.iter().map(|s| take(id, s)));
        if finished {
            w.push(finish(id, &end, &[]));
        }
    };
    game("g1", 1, &[account_seat(0, Some("a"), 1000), account_seat(1, None, 1001)], true);
    game("g2", 2, &[account_seat(0, Some("b"), 1500), account_seat(1, Some("a"), 2000)], false);
    // The same joined_ms as g2's: by id, descending.
    game("g3", 3, &[account_seat(0, Some("a"), 2000), account_seat(1, Some("b"), 2001)], false);
    game("g4", 4, &[account_seat(0, Some("b"), 3000), account_seat(1, None, 3001)], false);
    // Both seats the account's: listed once, by the later.
    game("g5", 5, &[account_seat(0, Some("a"), 2500), account_seat(1, Some("a"), 4000)], true);
    game("g6", 6, &[account_seat(1, Some("a"), 500), account_seat(0, None, 600)], false);
    game("g7", 7, &[account_seat(0, None, 5000)], false);
    w
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    an_accounts_games_come_newest_first_a_page_at_a_time
);
async fn an_accounts_games_come_newest_first_a_page_at_a_time(db: Db) {
    let (store, _) = db.store();
    store.write(account_games_setup()).await.unwrap();
    let ids = |games: &[AccountGame]| games.iter().map(|g| g.game.id.clone()).collect::<Vec<_>>();
    let all = store.account_games("a", None, 100).await.unwrap();
    assert_eq!(ids(&all), ["g5", "g3", "g2", "g1", "g6"]);
    assert_eq!(ids(&store.account_games("b", None, 100).await.unwrap()), ["g4", "g3", "g2"]);
    assert!(store.account_games("nobody", None, 100).await.unwrap().is_empty());
    assert!(store.account_games("a", None, 0).await.unwrap().is_empty());
    // Each game whole: its facts, its seats in join order (with their accounts), its end.
    let g2 = &all[2];
    assert_eq!(g2.game, new_game("g2", 2));
    assert_eq!(g2.seats, vec![account_seat(0, Some("b"), 1500), account_seat(1, Some("a"), 2000)]);
    assert_eq!(g2.finished, None);
    assert_eq!(all[0].finished.as_ref().map(|f| f.finished_ms), Some(9000));
    assert_eq!(all[0].cursor("a"), Some((4000, "g5".to_owned())));
    // Pages of two, each going on strictly after the last game of the one before.
    let mut pages = Vec::new();
    let mut before = None;
    loop {
        let page = store.account_games("a", before.clone(), 2).await.unwrap();
        if page.is_empty() {
            break;
        }
        before = page.last().unwrap().cursor("a");
        pages.push(ids(&page));
    }
    assert_eq!(pages, [vec!["g5", "g3"], vec!["g2", "g1"], vec!["g6"]]);
    // A cursor between two games of the same joined_ms.
    let after_g3 = store.account_games("a", Some((2000, "g3".into())), 1).await.unwrap();
    assert_eq!(ids(&after_g3), ["g2"]);
    store.close().await;
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    account_changes_are_exactly_the_rows_changed_after_a_cursor
);
async fn account_changes_are_exactly_the_rows_changed_after_a_cursor(db: Db) {
    let (store, startup) = db.store();
    let start = store.account_changes(startup.account_cursor).await.unwrap();
    assert_eq!(start, AccountChanges { cursor: startup.account_cursor, ..AccountChanges::default() });
    let ann = account("a1", "Ann", KIND_PERSON);
    store.write(vec![acct(AccountWrite::Create(ann.clone()))]).await.unwrap();
    let c1 = store.account_changes(start.cursor).await.unwrap();
    assert_eq!((c1.accounts.as_slice(), c1.tokens.len()), (&[ann.clone()][..], 0));
    assert!(c1.cursor > start.cursor);
    let t1 = token("t1", "a1", 1);
    store.write(vec![acct(AccountWrite::AddToken(t1.clone()))]).await.unwrap();
    let c2 = store.account_changes(c1.cursor).await.unwrap();
    assert_eq!((c2.accounts.len(), c2.tokens.as_slice()), (0, &[t1.clone()][..]));
    // Nothing changed: nothing, and the same cursor.
    let none = store.account_changes(c2.cursor).await.unwrap();
    assert_eq!(none, AccountChanges { cursor: c2.cursor, ..AccountChanges::default() });
    // A refused write changes nothing.
    refused(store.write(vec![acct(AccountWrite::AddToken(token("t2", "a1", 1)))]).await, "same hash");
    assert_eq!(store.account_changes(c2.cursor).await.unwrap(), none);
    // A touch, a revocation, a password: the token's and the account's rows as they are now.
    store.write(vec![acct(AccountWrite::TouchTokens(vec![("t1".into(), 900)]))]).await.unwrap();
    let c3 = store.account_changes(c2.cursor).await.unwrap();
    assert_eq!(c3.tokens, vec![TokenRow { last_used_ms: 900, ..t1.clone() }]);
    assert!(c3.accounts.is_empty());
    store.write(vec![acct(AccountWrite::RevokeToken { token_id: "t1".into(), at_ms: 950 })]).await.unwrap();
    store
        .write(vec![acct(AccountWrite::SetPassword {
            account_id: "a1".into(),
            password_hash: "$new".into(),
        })])
        .await
        .unwrap();
    let c4 = store.account_changes(c3.cursor).await.unwrap();
    assert_eq!(c4.tokens, vec![TokenRow { last_used_ms: 900, revoked_ms: Some(950), ..t1.clone() }]);
    assert_eq!(c4.accounts, vec![AccountRow { password_hash: Some("$new".into()), ..ann.clone() }]);
    // From the start: every row once, as it is now.
    let all = store.account_changes(start.cursor).await.unwrap();
    assert_eq!((all.accounts, all.tokens, all.cursor), (c4.accounts, c4.tokens, c4.cursor));
    store.close().await;
}

/// Writes every kind of account row through `b` (a seat with an account too); what it loads.
fn account_rows(b: &mut dyn Backend) -> (Startup, Vec<AccountGame>) {
    b.commit(&[
        acct(AccountWrite::Create(account("a1", "Ann", KIND_PERSON))),
        acct(AccountWrite::Create(account("a2", "Bo", KIND_BOT))),
        acct(AccountWrite::Create(account("a3", "Cy", KIND_PERSON))),
    ])
    .unwrap();
    b.commit(&[
        acct(AccountWrite::AddToken(token("t1", "a1", 1))),
        acct(AccountWrite::AddToken(token("t2", "a2", 2))),
        acct(AccountWrite::AddToken(token("t3", "a3", 3))),
        create(&new_game("g", 1)),
        take("g", &account_seat(0, Some("a1"), 10)),
        take("g", &account_seat(1, Some("a2"), 11)),
    ])
    .unwrap();
    b.commit(&[acct(AccountWrite::SetPassword { account_id: "a1".into(), password_hash: "$new".into() })])
        .unwrap();
    b.commit(&[acct(AccountWrite::RevokeToken { token_id: "t1".into(), at_ms: 300 })]).unwrap();
    // More touches than one journal record holds: split, every part kept.
    let mut touched: Vec<(String, i64)> = (0..1500).map(|i| (format!("unknown-token-{i:040}"), i)).collect();
    touched.push(("t2".into(), 777));
    b.commit(&[acct(AccountWrite::TouchTokens(touched))]).unwrap();
    b.commit(&[acct(AccountWrite::Delete { account_id: "a3".into(), at_ms: 400 })]).unwrap();
    let startup = b.load_startup().unwrap();
    assert_eq!(startup.accounts.len(), 3);
    let by_id = |id: &str| startup.tokens.iter().find(|t| t.id == id).unwrap().clone();
    assert_eq!(
        (by_id("t1").revoked_ms, by_id("t2").last_used_ms, by_id("t3").revoked_ms),
        (Some(300), 777, Some(400))
    );
    let games = b.account_games("a1", None, 10).unwrap();
    assert_eq!(games.len(), 1);
    (startup, games)
}

/// SQLite's commits do not sync: the account rows it lost, the journal gives back at start.
#[test]
fn account_rows_sqlite_lost_come_back_from_the_journal() {
    let accounts_of = |s: &Startup| (s.accounts.clone(), s.tokens.clone());
    for lost in [
        "DELETE FROM account_tokens; DELETE FROM accounts; DELETE FROM seats; DELETE FROM games;",
        // As they were before the later commits: no password changed, no token used or
        // revoked, no account deleted, no seat taken.
        "UPDATE account_tokens SET revoked_ms = NULL, last_used_ms = created_ms; \
         UPDATE accounts SET deleted_ms = NULL, \
             password_hash = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$' || id WHERE kind = 1; \
         DELETE FROM seats;",
    ] {
        // A database of its own each time: a start that applied the journal's rows again leaves
        // them durable in SQLite and the journal without them (`Journal::compact`).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gin.db");
        let (startup, games) = account_rows(&mut SqliteBackend::open(&path).unwrap());
        let c = Connection::open(&path).unwrap();
        c.execute_batch(lost).unwrap();
        drop(c);
        let mut b = SqliteBackend::open(&path).unwrap();
        assert_eq!(accounts_of(&b.load_startup().unwrap()), accounts_of(&startup), "after {lost}");
        assert_eq!(b.account_games("a1", None, 10).unwrap(), games, "after {lost}");
    }
}

/// A start applies the journal's row records to SQLite again (they may be lost from it) and
/// then starts the journal over without them, the unfinished games' actions carried: the next
/// start has none to apply (100,000 accounts' registrations had made every start take
/// seconds), and what the rows hold is all still there.
#[test]
fn a_start_leaves_the_journal_without_the_rows_it_applied_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let mut first = SqliteBackend::open(&path).unwrap();
    let (_, games) = account_rows(&mut first);
    first.commit(&[act("g", &action(0, ActionKind::Play)), act("g", &action(1, ActionKind::Play))]).unwrap();
    let startup = first.load_startup().unwrap();
    drop(first);
    assert_eq!(startup.live[0].actions.len(), 2, "an unfinished game with actions");
    let rows_in_journal = || Journal::open(&journal_dir(&path), 64 << 20).unwrap().0.take_rows().len();
    assert!(rows_in_journal() > 0, "the commits' rows are in the journal until a start applies them");
    drop(SqliteBackend::open(&path).unwrap());
    assert_eq!(rows_in_journal(), 0, "the start left them in the journal");
    let mut b = SqliteBackend::open(&path).unwrap();
    let again = b.load_startup().unwrap();
    assert_eq!((again.accounts, again.tokens), (startup.accounts, startup.tokens));
    assert_eq!(again.live, startup.live, "the unfinished games and their actions");
    assert_eq!(b.account_games("a1", None, 10).unwrap(), games);
}

/// A graceful close ([`Store::close`]) compacts the journal too: the next start has no row
/// record to apply again, and the unfinished games' actions and every row are all there. A
/// store whose writer stopped without a close (as at a crash) leaves them in the journal.
#[tokio::test]
async fn a_graceful_close_leaves_the_journal_without_row_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    let rows_in_journal = || Journal::open(&journal_dir(&path), 64 << 20).unwrap().0.row_records();
    let (store, _) = Store::open(&path).unwrap();
    store.write(vec![acct(AccountWrite::Create(account("a1", "Ann", KIND_PERSON)))]).await.unwrap();
    store
        .write(vec![
            acct(AccountWrite::AddToken(token("t1", "a1", 1))),
            create(&new_game("g", 1)),
            take("g", &account_seat(0, Some("a1"), 10)),
        ])
        .await
        .unwrap();
    store.write(vec![act("g", &action(0, ActionKind::Play))]).await.unwrap();
    let before = store.load_game("g").await.unwrap().unwrap();
    // Every handle dropped: the writer stops without a close.
    drop(store);
    let stopped = Instant::now();
    while rows_in_journal_open_fails(&path) {
        assert!(stopped.elapsed().as_secs() < 10, "the writer did not stop");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(rows_in_journal(), 4, "without a close the rows stay in the journal");
    let (store, startup) = Store::open(&path).unwrap();
    assert_eq!((startup.accounts.len(), startup.tokens.len(), startup.live.len()), (1, 1, 1));
    store.write(vec![act("g", &action(1, ActionKind::Play))]).await.unwrap();
    store.write(vec![acct(AccountWrite::Create(account("a2", "Bo", KIND_BOT)))]).await.unwrap();
    store.close().await;
    assert_eq!(rows_in_journal(), 0, "the close left row records in the journal");
    let (store, startup) = Store::open(&path).unwrap();
    assert_eq!((startup.accounts.len(), startup.tokens.len()), (2, 1));
    assert_eq!(startup.live.len(), 1);
    assert_eq!(startup.live[0].seats, before.seats);
    assert_eq!(startup.live[0].actions.len(), 2, "the unfinished game's actions carried over");
    store.close().await;
}

/// Whether the journal of `path` is still held by a writer (its lock).
fn rows_in_journal_open_fails(path: &Path) -> bool {
    Journal::open(&journal_dir(path), 64 << 20).is_err()
}

#[test]
fn postgres_account_rows_are_read_back_by_another_connection() {
    let Some(db) = Db::postgres() else { return };
    let (startup, games) = account_rows(&mut *db.backend());
    let mut other = db.backend();
    assert_eq!(other.load_startup().unwrap(), startup);
    assert_eq!(other.account_games("a1", None, 10).unwrap(), games);
}

/// A database written before accounts: its seats gain `account_id` at open (none for the
/// seats taken before), and the accounts' tables.
#[test]
fn a_sqlite_database_from_before_accounts_gains_them_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gin.db");
    {
        let mut b = SqliteBackend::open(&path).unwrap();
        b.commit(&[create(&new_game("old", 1)), take("old", &seat(0, "ann", false))]).unwrap();
    }
    // As an older server left it (and with no row record left in the journal to apply again).
    std::fs::remove_dir_all(journal_dir(&path)).unwrap();
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "DROP INDEX seats_account; ALTER TABLE seats DROP COLUMN account_id; \
             DROP TABLE account_tokens; DROP TABLE accounts; DROP TABLE account_counter;",
        )
        .unwrap();
    let mut b = SqliteBackend::open(&path).unwrap();
    assert_eq!(b.load_game("old").unwrap().unwrap().seats, vec![seat(0, "ann", false)]);
    b.commit(&[
        acct(AccountWrite::Create(account("a1", "Ann", KIND_PERSON))),
        take("old", &account_seat(1, Some("a1"), 50)),
    ])
    .unwrap();
    let games = b.account_games("a1", None, 10).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].seats[1].account_id.as_deref(), Some("a1"));
    // The index is used: an account's games are not found by a scan of every seat.
    let plan: Vec<String> = Connection::open(&path)
        .unwrap()
        .prepare(&format!("EXPLAIN QUERY PLAN {}", super::accounts::account_seats_sql(true, false)))
        .unwrap()
        .query_map(params!["a1", 10, "g", 5], |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(plan[0].contains("seats_account"), "{plan:?}");
    assert!(plan.iter().any(|l| l.contains("SEARCH o USING PRIMARY KEY")), "{plan:?}");
    assert!(!plan.iter().any(|l| l.contains("TEMP B-TREE")), "no sort: the index's order {plan:?}");
}

/// Another server on the same database learns of a token's revocation through
/// `account_changes`; a member whose lease is gone writes no account row.
#[test]
fn postgres_a_second_server_sees_the_first_ones_revocation() {
    let Some(db) = Db::postgres() else { return };
    let (mut first, mut second) = (db.backend(), db.backend());
    first
        .commit(&[
            acct(AccountWrite::Create(account("a1", "Ann", KIND_PERSON))),
            acct(AccountWrite::AddToken(token("t1", "a1", 1))),
        ])
        .unwrap();
    let seen = second.account_changes(0).unwrap();
    assert_eq!(seen.tokens, vec![token("t1", "a1", 1)]);
    first.commit(&[acct(AccountWrite::RevokeToken { token_id: "t1".into(), at_ms: 70 })]).unwrap();
    let next = second.account_changes(seen.cursor).unwrap();
    assert_eq!(next.tokens, vec![TokenRow { revoked_ms: Some(70), ..token("t1", "a1", 1) }]);
    assert!(next.accounts.is_empty());
    assert!(next.cursor > seen.cursor);
    // In a cluster: a server that gave its lease up writes nothing, account rows neither.
    let Db::Postgres(_, url) = &db else { unreachable!() };
    let mut member = PostgresBackend::connect(url).unwrap();
    member.join_cluster("127.0.0.1:1", std::time::Duration::from_secs(30)).unwrap();
    member.commit(&[acct(AccountWrite::AddToken(token("t2", "a1", 2)))]).unwrap();
    member.leave_cluster().unwrap();
    let lost = member.commit(&[acct(AccountWrite::AddToken(token("t3", "a1", 3)))]).unwrap_err();
    assert_eq!(lost, StoreError::LeaseLost);
    let tokens = second.account_changes(next.cursor).unwrap().tokens;
    assert_eq!(tokens, vec![token("t2", "a1", 2)]);
}

/// A database at schema version 1 (before accounts) migrates: its seats have no account.
#[test]
fn postgres_a_version_1_database_migrates_to_accounts() {
    let Some(db) = Db::postgres() else { return };
    let Db::Postgres(_, url) = &db else { unreachable!() };
    let mut c = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    c.batch_execute(&format!(
        "CREATE TABLE gin_schema (version INTEGER NOT NULL); INSERT INTO gin_schema VALUES (1); {}",
        super::postgres::SCHEMA_V1
    ))
    .unwrap();
    c.batch_execute(
        "INSERT INTO games (id, rules_json, seed, secret, clock_millis, clock_policy, house_bot, created_ms, \
         fixed_deals) VALUES ('old', '{}', 1, decode(repeat('00', 32), 'hex'), 1000, 0, '', 5, false); \
         INSERT INTO seats (game_id, seat, name, token_hash, bot, joined_ms, join_order) \
         VALUES ('old', 0, 'ann', decode(repeat('01', 32), 'hex'), false, 7, 0);",
    )
    .unwrap();
    let mut b = PostgresBackend::connect(url).unwrap();
    let version: i32 = c.query_one("SELECT version FROM gin_schema", &[]).unwrap().get(0);
    assert_eq!(version, super::postgres::SCHEMA_VERSION);
    let old = b.load_game("old").unwrap().unwrap();
    assert_eq!(old.seats[0].account_id, None);
    b.commit(&[
        acct(AccountWrite::Create(account("a1", "Ann", KIND_PERSON))),
        take("old", &account_seat(1, Some("a1"), 50)),
    ])
    .unwrap();
    let games = b.account_games("a1", None, 10).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].seats.len(), 2);
    assert_eq!(b.load_startup().unwrap().accounts, vec![account("a1", "Ann", KIND_PERSON)]);
    // The index serves an account's games (where a scan is possible at all: the table is
    // small here, so scans are priced out).
    c.batch_execute("SET enable_seqscan = off").unwrap();
    let sql = super::accounts::account_seats_sql(true, true);
    let plan: Vec<String> = c
        .query(&format!("EXPLAIN {sql}"), &[&"a1", &5i64, &"g", &10i64])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(plan.iter().any(|l| l.contains("Index Scan Backward using seats_account")), "{plan:#?}");
    // And each game's other seats by its key, not every seat of the account.
    assert!(plan.iter().any(|l| l.contains("Index Cond: (game_id = s.game_id)")), "{plan:#?}");
}

/// Account writes commit one at a time across the servers of a cluster (so `account_changes`
/// cannot miss a row committed late with a smaller change): a batch with one waits while
/// another transaction holds the accounts' lock, and goes through once it is released.
#[test]
fn postgres_account_writes_wait_for_the_accounts_lock() {
    let Some(db) = Db::postgres() else { return };
    let Db::Postgres(_, url) = &db else { unreachable!() };
    let mut b = db.backend();
    b.commit(&[acct(AccountWrite::Create(account("a1", "Ann", KIND_PERSON)))]).unwrap();
    let mut c = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    let mut held = c.transaction().unwrap();
    held.execute("SELECT pg_advisory_xact_lock($1)", &[&super::postgres::ACCOUNT_LOCK]).unwrap();
    let (done, finished) = mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(move || {
            let r = b.commit(&[acct(AccountWrite::AddToken(token("t1", "a1", 1)))]);
            done.send(r).unwrap();
        });
        // A game's rows alone do not wait.
        let mut other = db.backend();
        other.commit(&[create(&new_game("g", 1))]).unwrap();
        assert!(
            finished.recv_timeout(std::time::Duration::from_millis(500)).is_err(),
            "an account write went through while the lock was held"
        );
        held.commit().unwrap();
        finished.recv_timeout(std::time::Duration::from_secs(10)).unwrap().unwrap();
    });
    assert_eq!(db.backend().account_changes(0).unwrap().tokens, vec![token("t1", "a1", 1)]);
}

/// A rating function for the store's tests: the first place gains 10 per game it plays, the
/// others lose 10; a newcomer starts at 1000. Refuses the pool "refused".
fn test_rater(
    pool: &str,
    before: &[Option<RatingValue>],
    places: &[u8],
) -> Result<Vec<(RatingValue, RatingValue)>, String> {
    if pool == "refused" {
        return Err("no such pool".into());
    }
    Ok(before
        .iter()
        .zip(places)
        .map(|(b, &p)| {
            let b = b.unwrap_or(RatingValue { rating: 1000.0, deviation: 300.0, volatility: 0.06, games: 0 });
            let delta = if p == 0 { 10.0 } else { -10.0 };
            (
                b,
                RatingValue {
                    rating: b.rating + delta,
                    deviation: b.deviation - 1.0,
                    games: b.games + 1,
                    ..b
                },
            )
        })
        .collect())
}

/// A game `id` whose seats are the accounts `a` and `b`, ended, and rated in `pool` with `a`
/// first.
fn rated_game(id: &str, a: &str, b: &str, pool: &str, at: i64) -> Vec<Write> {
    let mut g = new_game(id, 1);
    g.rated_pool = Some(pool.to_owned());
    let mut sa = seat(0, a, false);
    sa.account_id = Some(a.to_owned());
    let mut sb = seat(1, b, false);
    sb.account_id = Some(b.to_owned());
    vec![
        create(&g),
        take(id, &sa),
        take(id, &sb),
        finish(id, &Finished { result_json: "{}".into(), finished_ms: at }, &[]),
        Write::Rate(RateGame {
            game_id: id.to_owned(),
            pool: pool.to_owned(),
            seats: vec![(a.to_owned(), 0), (b.to_owned(), 1)],
            at_ms: at,
        }),
    ]
}

on_every_backend!(
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    a_rated_game_is_rated_once_with_its_end_and_read_back_from_a_cursor
);
async fn a_rated_game_is_rated_once_with_its_end_and_read_back_from_a_cursor(db: Db) {
    let (store, _) = db.store();
    // Without the server's rating function a rating is refused, and its batch with it.
    let e = store.write(rated_game("g0", "a", "b", "p", 10)).await.unwrap_err();
    assert!(matches!(e, StoreError::Refused(_)), "{e:?}");
    assert!(store.load_game("g0").await.unwrap().is_none(), "nothing of the batch was written");
    store.set_rater(test_rater).await.unwrap();
    // Two games in one batch: the second starts from the first's ratings.
    let mut batch = rated_game("g1", "a", "b", "p", 20);
    batch.extend(rated_game("g2", "b", "a", "p", 30));
    store.write(batch).await.unwrap();
    let all = store.rating_changes(0).await.unwrap();
    let value = |rows: &[RatingRow], who: &str| rows.iter().rfind(|r| r.account_id == who).unwrap().value;
    assert_eq!((value(&all.rows, "a").rating, value(&all.rows, "a").games), (1000.0, 2));
    assert_eq!((value(&all.rows, "b").rating, value(&all.rows, "b").games), (1000.0, 2));
    // Rated again (a second end is refused with its batch; a rating alone changes nothing).
    assert!(store.write(rated_game("g1", "a", "b", "p", 40)).await.is_err());
    store
        .write(vec![Write::Rate(RateGame {
            game_id: "g1".into(),
            pool: "p".into(),
            seats: vec![("a".into(), 0), ("b".into(), 1)],
            at_ms: 50,
        })])
        .await
        .unwrap();
    let again = store.rating_changes(all.cursor).await.unwrap();
    assert!(again.rows.is_empty(), "rated twice: {again:?}");
    assert_eq!(again.cursor, all.cursor);
    // A game the function refuses ends all the same, unrated.
    store.write(rated_game("g3", "a", "c", "refused", 60)).await.unwrap();
    assert!(store.load_game("g3").await.unwrap().unwrap().finished.is_some());
    assert!(store.rating_changes(all.cursor).await.unwrap().rows.is_empty());
    // The history, newest first, with the opponents; paged by (at_ms, game).
    let h = store.rating_history("a", "p", None, 10).await.unwrap();
    let games: Vec<&str> = h.iter().map(|l| l.game_id.as_str()).collect();
    assert_eq!(games, ["g2", "g1"]);
    assert_eq!((h[0].place, h[0].before, h[0].after), (1, (1010.0, 299.0), (1000.0, 298.0)));
    assert_eq!(h[1].opponents, ["b"]);
    let next = store.rating_history("a", "p", Some((30, "g2".into())), 10).await.unwrap();
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].game_id, "g1");
    assert!(store.rating_history("a", "other", None, 10).await.unwrap().is_empty());
    // The rated pool of a game is kept with it.
    assert_eq!(store.load_game("g1").await.unwrap().unwrap().game.rated_pool.as_deref(), Some("p"));
    store.close().await;
    // Every rating at start.
    let (store, startup) = db.store();
    assert_eq!(startup.ratings.rows.len(), 2);
    assert_eq!(startup.ratings.cursor, all.cursor);
    store.close().await;
}
