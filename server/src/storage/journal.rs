//! The action journal: an append-only, crash-safe log of game actions, in files of its own.
//!
//! Every action a game takes is appended here and made durable (one `write` and one
//! `fdatasync` per [`Journal::append`], however many actions and games it carries) before it is
//! acknowledged. When a game finishes, its whole action log is stored with the game elsewhere and
//! the journal is told to [`forget`](Journal::forget) it; at the next rotation its records are
//! dropped. So the journal only ever holds about the unfinished games' actions, plus what was
//! appended since the last rotation.
//!
//! # Format
//!
//! A directory of segment files named by their sequence number: `00000001.log`,
//! `00000002.log`, ... Only the newest segment is appended to. Every segment starts with the
//! 8-byte magic `GINJNL02` (segments started before row records existed begin with
//! `GINJNL01`: still read and, the newest one, appended to, row records included), followed
//! by records:
//!
//! | bytes | field                                                      |
//! |-------|------------------------------------------------------------|
//! | 4     | payload length, `u32` little-endian                        |
//! | 4     | CRC-32 (IEEE) of the payload, `u32` little-endian          |
//! | n     | payload                                                    |
//!
//! The payload is one action, all integers little-endian: the game id (`u16` length, then the
//! UTF-8 bytes), the action's index (`u32`), the seat (`u8`), the kind (`u8`: 0 play,
//! 1 timeout, 2 resign), the time in Unix milliseconds (`i64`), the action text (`u16` length,
//! then the UTF-8 bytes). A game id or action text longer than `u16::MAX` bytes is refused.
//!
//! A *row record* has the same layout with kind 3, index, seat and time 0, and an opaque text
//! in the action's place: the store's copy of a row it also writes elsewhere (see
//! [`Journal::append_with_rows`]). Row records are returned in order after a reopen
//! ([`Journal::take_rows`]) and are not part of any game's actions.
//!
//! The newest segment is filled with zeros ahead of its appends, 256 KiB at a time, so that
//! most appends do not change the file's length and their `fdatasync` writes the data alone,
//! not the inode too. Zeros after the last record are that free space, in any segment.
//!
//! # Durability
//!
//! - [`Journal::append`] returns `Ok` only once its records are on disk (`fdatasync` of the
//!   segment, and of the directory when the append created a segment). Appended actions are
//!   checked first: each game's indices must go 0, 1, 2, ... with no gap and no repeat.
//! - After any I/O error the journal is *broken*: that call and every later one fails, and
//!   nothing is retried. A failed `fsync` may have dropped the dirty pages it could not write
//!   (the "fsyncgate" problem): a retry that succeeds proves nothing. The process has to
//!   reopen the journal, which reads back what really reached the disk.
//! - A crash in the middle of an append can leave a *torn tail* at the end of the newest
//!   segment: a record cut short, failing its checksum, or zeros. That append was never
//!   acknowledged, so [`Journal::open`] cuts the segment there (and syncs it) and the next
//!   append starts clean. Records of that torn append that did reach the disk whole are kept:
//!   a crash may make an unacknowledged write durable.
//! - Anything else that is not a valid record is corruption, and [`Journal::open`] fails, naming
//!   the file and the offset: a bad record in any segment but the newest, a record whose
//!   checksum is right but whose content is not, a segment without the magic, and a bad record
//!   in the newest segment that is followed by a valid record (acknowledged records after a
//!   corrupt one are never dropped silently; in the rare case where a torn append reached the
//!   disk out of order, this refuses to start rather than guess).
//!
//! # Rotation
//!
//! Before an append, if the newest segment is larger than the segment limit (and at least half
//! of it was appended since the segment was started, so that copying the live games is paid
//! for by as many bytes of appends), the journal starts segment N+1 with ONE write of the magic,
//! every live game's records (not the row records: the caller made them durable elsewhere
//! first, see [`Journal::rotation_due`]) and the new records, to `0000000N+1.tmp`; `fdatasync`; renames it
//! to `0000000N+1.log`; `fsync`s the directory (the append is durable from here on); then deletes
//! every older segment (oldest first) and `fsync`s the directory again. The first segment is
//! created the same way.
//!
//! A crash at any point of a rotation loses nothing: until the new segment is durable and in
//! the directory under its name, the older ones are all there, and a `.tmp` file is a rotation
//! that never happened ([`Journal::open`] deletes it). A segment is never seen half-written, so
//! the torn tail of the newest segment can only come from a plain append (one small write).
//! Recovery reads old and new segments, whose common actions are identical duplicates, kept
//! once. Two records of the same game and index with different contents are an error.
//!
//! Segments left over by an interrupted rotation can still hold records of games forgotten
//! before it, possibly not all of them: [`Journal::open`] returns every game it finds, and the
//! caller forgets the finished ones. A game that was never forgotten always comes back whole.
//!
//! One process at a time: the journal holds an advisory lock on the file `LOCK` in its
//! directory while it is open, and a second [`Journal::open`] fails.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::{ActionKind, ActionRow};

/// The first 8 bytes of every segment this code writes.
const MAGIC: &[u8; 8] = b"GINJNL02";
/// The magic of the segments started before row records existed: the same layout. Read, and
/// appended to (row records too) when the newest segment is one; never written to a new one.
const MAGIC_V1: &[u8; 8] = b"GINJNL01";
/// The kind code of a row record (0 to 2 are action kinds).
const ROW_KIND: u8 = 3;
/// A record's header: payload length and checksum.
const HEADER: usize = 8;
/// The smallest payload: both strings empty.
const MIN_PAYLOAD: usize = 2 + 4 + 1 + 1 + 8 + 2;
/// The largest payload: both strings `u16::MAX` bytes long.
const MAX_PAYLOAD: usize = MIN_PAYLOAD + 2 * u16::MAX as usize;

/// Why the journal did not append (or could not open).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    /// Records it refuses (an action index out of order, an id or text too long): nothing of
    /// the append was written.
    #[error("{0}")]
    Refused(String),
    /// A file operation failed; after a failed append the journal refuses every later one
    /// until it is opened again (what is on disk is then read back).
    #[error("{0}")]
    Io(String),
    /// The files hold what this journal does not write (damage other than a torn tail).
    #[error("{0}")]
    Corrupt(String),
}

/// The durable log of game actions (see the [module documentation](self)), with every live
/// game's actions also kept in memory, compactly encoded.
pub struct Journal {
    /// The files; `None` for a journal in memory only.
    disk: Option<Disk>,
    /// Every game not forgotten.
    live: HashMap<String, Live>,
    /// The records of the append in progress (reused).
    buf: Vec<u8>,
    /// Why the journal is broken, after an I/O error.
    broken: Option<String>,
    /// The row records found at open, in journal order, until taken ([`Journal::take_rows`]).
    rows: Vec<(String, String)>,
    /// How many row records its files hold: found at open or appended since, until a
    /// rotation leaves them behind ([`Journal::row_records`]).
    row_records: usize,
}

/// One live game.
struct Live {
    /// Its records, exactly as written to the journal (header included), by index.
    records: Vec<u8>,
    /// Its next action index.
    next: u32,
}

/// The journal's files.
struct Disk {
    /// Held locked while the journal is open: one process at a time.
    _lock: File,
    /// The directory.
    dir: PathBuf,
    /// The size above which the newest segment is rotated.
    limit: u64,
    /// The newest segment's number.
    seq: u64,
    /// The newest segment, open for writing.
    file: File,
    /// Its size: where the next append goes.
    size: u64,
    /// Its length on disk: past `size` it is zeros written ahead ([`PREALLOCATE`]).
    allocated: u64,
    /// Its size when it was started (magic and carried records), or the magic's size if it was
    /// found at open.
    base: u64,
    /// The older segments still in the directory, oldest first.
    older: Vec<u64>,
}

impl Journal {
    /// Opens (creating if missing, with its parent dir made durable) the journal directory
    /// `dir`: reads every segment in order, truncates a torn tail of the last segment (a record
    /// cut short or failing its checksum at the end: the crash happened mid-append, it was never
    /// acknowledged), and returns the journal and every game's actions recovered (sorted by
    /// index; an identical duplicate (same game, same index, same content) is kept once, a
    /// conflicting duplicate is an error). Corruption anywhere but the last segment's tail is an
    /// error naming the file and offset.
    ///
    /// Every recovered game is live: it is carried over at rotations until it is
    /// [forgotten](Journal::forget). Indices are not checked for gaps here; a game forgotten
    /// before a crash may come back incomplete (see the [module documentation](self)).
    ///
    /// The newest segment is rotated once it is larger than `segment_limit` bytes (checked
    /// before each append).
    pub fn open(
        dir: &Path,
        segment_limit: u64,
    ) -> Result<(Journal, HashMap<String, Vec<ActionRow>>), JournalError> {
        create_dir_durably(dir)?;
        let lock = lock_dir(dir)?;
        remove_unfinished_segments(dir)?;
        let mut seqs = list_segments(dir)?;
        if seqs.is_empty() {
            create_segment(dir, 1, MAGIC)?;
            seqs.push(1);
        }

        let mut recovered: HashMap<String, Vec<ActionRow>> = HashMap::new();
        let mut rows = Vec::new();
        let last = seqs.len() - 1;
        // Where the newest segment's records end, if before the end of the file.
        let mut end = None;
        for (i, &seq) in seqs.iter().enumerate() {
            let path = segment_path(dir, seq);
            let bytes = fs::read(&path).map_err(|e| io_error("reading", &path, e))?;
            match read_segment(&path, &bytes, i == last, &mut recovered, &mut rows)? {
                Tail::Clean => {}
                // Zeros written ahead of the appends: nothing was torn.
                Tail::Torn(at) if bytes[at..].iter().all(|&b| b == 0) => end = Some(at as u64),
                Tail::Torn(at) => {
                    tracing::warn!(file = %path.display(), offset = at, cut = bytes.len() - at,
                        "journal: cutting the torn tail of an interrupted append");
                    truncate(&path, at as u64)?;
                }
                Tail::NoMagic => {
                    tracing::warn!(file = %path.display(), "journal: rewriting the torn start of a segment");
                    let mut file = OpenOptions::new()
                        .write(true)
                        .open(&path)
                        .map_err(|e| io_error("opening", &path, e))?;
                    file.set_len(0)
                        .and_then(|()| file.write_all(MAGIC))
                        .and_then(|()| file.sync_all())
                        .map_err(|e| io_error("rewriting", &path, e))?;
                }
            }
        }

        let mut live = HashMap::with_capacity(recovered.len());
        for (game, rows) in &mut recovered {
            rows.sort_by_key(|r| r.index);
            let mut kept: Vec<ActionRow> = Vec::with_capacity(rows.len());
            for row in rows.drain(..) {
                match kept.last() {
                    Some(prev) if prev.index == row.index => {
                        if *prev != row {
                            return Err(JournalError::Corrupt(format!(
                                "journal {}: game {game}: two different actions with index {} \
                                 ({prev:?} and {row:?})",
                                dir.display(),
                                row.index
                            )));
                        }
                    }
                    _ => kept.push(row),
                }
            }
            *rows = kept;
            let mut records = Vec::new();
            for row in rows.iter() {
                encode_record(&mut records, game, row);
            }
            let next = rows.last().map_or(0, |r| r.index + 1);
            live.insert(game.clone(), Live { records, next });
        }

        let seq = seqs[last];
        let path = segment_path(dir, seq);
        let file = OpenOptions::new().write(true).open(&path).map_err(|e| io_error("opening", &path, e))?;
        let allocated = file.metadata().map_err(|e| io_error("reading the size of", &path, e))?.len();
        let disk = Disk {
            _lock: lock,
            dir: dir.to_owned(),
            limit: segment_limit,
            seq,
            file,
            size: end.unwrap_or(allocated),
            allocated,
            base: MAGIC.len() as u64,
            older: seqs[..last].to_vec(),
        };
        let row_records = rows.len();
        let journal = Journal { disk: Some(disk), live, buf: Vec::new(), broken: None, rows, row_records };
        Ok((journal, recovered))
    }

    /// A journal that keeps everything in memory only (for `:memory:` databases in tests): the
    /// same checks and bookkeeping, no files.
    pub fn in_memory() -> Journal {
        Journal {
            disk: None,
            live: HashMap::new(),
            buf: Vec::new(),
            broken: None,
            rows: Vec::new(),
            row_records: 0,
        }
    }

    /// Appends these actions (game id, action) with ONE write call and ONE fdatasync
    /// (`File::sync_data`); returns once durable. Empty input: no I/O.
    ///
    /// Refused without any I/O (the journal stays usable): a game id or action text longer
    /// than `u16::MAX` bytes, and an index that is not its game's next one (counting the
    /// actions before it in `actions`): no gap, no repeat.
    ///
    /// After any I/O error the journal is broken: this and every later call returns an error
    /// (an fsync is never retried), and nothing is added to the in-memory state for a failed
    /// call. This call may start a new segment first (see the [module documentation](self));
    /// its failure breaks the journal the same way.
    pub fn append(&mut self, actions: &[(&str, &ActionRow)]) -> Result<(), JournalError> {
        self.append_with_rows(actions, &[])
    }

    /// [`Journal::append`] with row records too: `(game id, text)`, written in the same write
    /// and made durable by the same fdatasync, after the actions. A row record is opaque here
    /// (the store's copy of a game's creation, seat or end, kept until the store's own files
    /// are synced); it is returned by [`Journal::take_rows`] after a reopen, and never carried
    /// over at a rotation: before an append that rotates ([`Journal::rotation_due`]), the
    /// caller makes what its rows stand for durable elsewhere.
    pub fn append_with_rows(
        &mut self,
        actions: &[(&str, &ActionRow)],
        rows: &[(&str, &str)],
    ) -> Result<(), JournalError> {
        if let Some(why) = &self.broken {
            return Err(JournalError::Io(format!("journal broken by an earlier error: {why}")));
        }
        if actions.is_empty() && rows.is_empty() {
            return Ok(());
        }
        self.check(actions)?;
        for &(game, text) in rows {
            if game.len() > u16::MAX as usize || text.len() > u16::MAX as usize {
                return Err(JournalError::Refused(format!(
                    "journal: row record of game {game}: id or text longer than {} bytes",
                    u16::MAX
                )));
            }
        }
        self.buf.clear();
        for (game, row) in actions {
            encode_record(&mut self.buf, game, row);
        }
        let actions_end = self.buf.len();
        for &(game, text) in rows {
            encode_row_record(&mut self.buf, game, text);
        }
        if let Some(disk) = &mut self.disk {
            let rotating = disk.should_rotate();
            let written = if rotating { disk.rotate(&self.live, &self.buf) } else { disk.append(&self.buf) };
            if let Err(e) = written {
                self.broken = Some(e.to_string());
                return Err(e);
            }
            // A rotation left the older row records behind; this append's are in the new segment.
            self.row_records = if rotating { rows.len() } else { self.row_records + rows.len() };
        }
        self.buf.truncate(actions_end);
        let mut at = 0;
        for (game, row) in actions {
            let end = at + HEADER + u32_at(&self.buf, at) as usize;
            let record = &self.buf[at..end];
            at = end;
            match self.live.get_mut(*game) {
                Some(live) => {
                    live.records.extend_from_slice(record);
                    live.next = row.index + 1;
                }
                None => {
                    self.live
                        .insert((*game).to_owned(), Live { records: record.to_vec(), next: row.index + 1 });
                }
            }
        }
        Ok(())
    }

    /// Whether the next append starts a new segment, leaving the row records behind.
    pub fn rotation_due(&self) -> bool {
        self.disk.as_ref().is_some_and(Disk::should_rotate)
    }

    /// The row records found at open (game id, text), in the order they were appended; empty
    /// after the first call.
    pub fn take_rows(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.rows)
    }

    /// How many row records its files hold (found at open, or appended since), which the next
    /// [`Journal::open`] would return; 0 after a rotation or [`Journal::compact`] until the
    /// next append with rows. Always 0 in memory.
    pub fn row_records(&self) -> usize {
        self.row_records
    }

    /// Starts a new segment now, holding the live games' records alone, and deletes every
    /// older one, their row records with them: for a caller that has made every row record
    /// durable elsewhere (SQLite, synced), so that the next start need not apply them again.
    ///
    /// Crash-safe as a rotation is (see the [module documentation](self)): the new segment is
    /// written under a temporary name, synced, renamed, the directory synced, and only then
    /// are the older segments deleted. A crash before the rename leaves the older segments
    /// whole (the `.tmp` is deleted at open); after it, the new segment holds every live
    /// game's actions, the older ones' duplicates are kept once, and their row records, if not
    /// yet deleted, are applied again (idempotently).
    pub fn compact(&mut self) -> Result<(), JournalError> {
        if let Some(why) = &self.broken {
            return Err(JournalError::Io(format!("journal broken by an earlier error: {why}")));
        }
        if let Some(disk) = &mut self.disk {
            if let Err(e) = disk.rotate(&self.live, &[]) {
                self.broken = Some(e.to_string());
                return Err(e);
            }
            self.row_records = 0;
        }
        Ok(())
    }

    /// The game has finished (its actions are now stored elsewhere): they need not be kept or
    /// carried over at the next rotation. Until then they stay in the newest segment; a game
    /// forgotten and then appended to again starts over at index 0.
    pub fn forget(&mut self, game_id: &str) {
        self.live.remove(game_id);
    }

    /// The actions of a game not forgotten (for reading back an unfinished game), by index;
    /// empty for an unknown game.
    pub fn actions(&self, game_id: &str) -> Vec<ActionRow> {
        let Some(live) = self.live.get(game_id) else { return Vec::new() };
        let mut rows = Vec::new();
        let mut at = 0;
        while at < live.records.len() {
            let end = at + HEADER + u32_at(&live.records, at) as usize;
            match decode_payload(&live.records[at + HEADER..end]) {
                Some((_, RecordBody::Action(row))) => rows.push(row),
                other => unreachable!("a live game's records are its actions: {other:?}"),
            }
            at = end;
        }
        rows
    }

    /// The next action index of a game not forgotten (0 if it has none).
    pub fn next_index(&self, game_id: &str) -> u32 {
        self.live.get(game_id).map_or(0, |live| live.next)
    }

    /// Ids of the games it holds actions for (not forgotten), in no particular order.
    pub fn games(&self) -> impl Iterator<Item = &str> {
        self.live.keys().map(String::as_str)
    }

    /// Checks `actions` before anything is written: string lengths, and indices.
    pub(crate) fn check(&self, actions: &[(&str, &ActionRow)]) -> Result<(), JournalError> {
        let mut staged: HashMap<&str, u32> = HashMap::new();
        for &(game, row) in actions {
            if game.len() > u16::MAX as usize {
                return Err(JournalError::Refused(format!(
                    "journal: game id of {} bytes (at most {})",
                    game.len(),
                    u16::MAX
                )));
            }
            if row.action.len() > u16::MAX as usize {
                return Err(JournalError::Refused(format!(
                    "journal: action {} of game {game}: text of {} bytes (at most {})",
                    row.index,
                    row.action.len(),
                    u16::MAX
                )));
            }
            let next = match staged.entry(game) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(self.next_index(game)),
            };
            if row.index != *next {
                return Err(JournalError::Refused(format!(
                    "journal: action {} of game {game}: expected index {next} (no gap, no repeat)",
                    row.index
                )));
            }
            *next += 1;
        }
        Ok(())
    }
}

impl fmt::Debug for Journal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Journal");
        match &self.disk {
            Some(disk) => d.field("dir", &disk.dir).field("segment", &disk.seq).field("size", &disk.size),
            None => d.field("dir", &"(in memory)"),
        };
        d.field("games", &self.live.len()).field("broken", &self.broken).finish()
    }
}

impl Disk {
    /// Whether the newest segment is due for rotation.
    fn should_rotate(&self) -> bool {
        self.size > self.limit && self.size >= 2 * self.base
    }

    /// Appends `records` to the newest segment, durably.
    ///
    /// The file is extended [`PREALLOCATE`] bytes of zeros at a time, ahead of the appends: an
    /// append that does not change the file's length makes `fdatasync` write the data alone,
    /// not the inode too (measured here: ~100 instead of ~140 µs, a third less CPU). Recovery
    /// knows zeros after the last record for what they are.
    fn append(&mut self, records: &[u8]) -> Result<(), JournalError> {
        let path = || segment_path(&self.dir, self.seq);
        let end = self.size + records.len() as u64;
        if end > self.allocated {
            let grow = (end - self.allocated).max(PREALLOCATE);
            let zeros = vec![0u8; grow as usize];
            write_at(&self.file, &zeros, self.allocated).map_err(|e| io_error("extending", &path(), e))?;
            self.allocated += grow;
        }
        write_at(&self.file, records, self.size).map_err(|e| io_error("appending to", &path(), e))?;
        self.file.sync_data().map_err(|e| io_error("syncing", &path(), e))?;
        self.size = end;
        Ok(())
    }

    /// Starts the next segment with every live game's records and then `records` (one write,
    /// durable, in the directory), then deletes every older segment.
    fn rotate(&mut self, live: &HashMap<String, Live>, records: &[u8]) -> Result<(), JournalError> {
        let seq = self.seq + 1;
        let carried: usize = live.values().map(|l| l.records.len()).sum();
        let mut bytes = Vec::with_capacity(MAGIC.len() + carried + records.len());
        bytes.extend_from_slice(MAGIC);
        for l in live.values() {
            bytes.extend_from_slice(&l.records);
        }
        let base = bytes.len() as u64;
        bytes.extend_from_slice(records);
        let file = create_segment(&self.dir, seq, &bytes)?;
        // The new segment holds everything now: the older ones can go.
        self.older.push(self.seq);
        self.file = file;
        self.seq = seq;
        self.size = bytes.len() as u64;
        self.allocated = self.size;
        self.base = base;
        for old in std::mem::take(&mut self.older) {
            let path = segment_path(&self.dir, old);
            fs::remove_file(&path).map_err(|e| io_error("deleting", &path, e))?;
        }
        sync_dir(&self.dir)?;
        tracing::debug!(dir = %self.dir.display(), segment = seq, games = live.len(), bytes = base,
            "journal: rotated");
        Ok(())
    }
}

/// What is wrong, if anything, with the end of a segment.
#[derive(Debug, PartialEq, Eq)]
enum Tail {
    /// Nothing.
    Clean,
    /// A torn tail from this offset on (the newest segment only).
    Torn(usize),
    /// The magic itself is torn: shorter than 8 bytes, or zeros (the newest segment only).
    NoMagic,
}

/// Reads the records of the segment `bytes` (read from `path`) into `into`; `last`: the newest
/// segment, the only one whose tail may be torn.
fn read_segment(
    path: &Path,
    bytes: &[u8],
    last: bool,
    into: &mut HashMap<String, Vec<ActionRow>>,
    rows: &mut Vec<(String, String)>,
) -> Result<Tail, JournalError> {
    let v1 = bytes.len() >= MAGIC_V1.len() && bytes[..MAGIC_V1.len()] == MAGIC_V1[..];
    if !v1 && (bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC[..]) {
        // Segments are renamed into place only once written and synced, so this should not
        // happen; but a newest segment that is empty, part of the magic or zeros holds no record
        // at all: make it a fresh one rather than refuse to start.
        let torn = bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes);
        if last && (torn || bytes.iter().all(|&b| b == 0)) {
            return Ok(Tail::NoMagic);
        }
        return Err(corrupt(path, 0, "not a journal segment (no magic)"));
    }
    let mut at = MAGIC.len();
    while at < bytes.len() {
        match record_at(bytes, at) {
            Ok((game, RecordBody::Action(row), end)) => {
                match into.get_mut(game) {
                    Some(rows) => rows.push(row),
                    None => {
                        into.insert(game.to_owned(), vec![row]);
                    }
                }
                at = end;
            }
            Ok((game, RecordBody::Row(text), end)) => {
                rows.push((game.to_owned(), text));
                at = end;
            }
            Err(BadRecord::Malformed) => {
                return Err(corrupt(path, at, "a record with a good checksum but malformed content"));
            }
            // Zeros written ahead of the appends (an older segment keeps them).
            Err(_) if !last && bytes[at..].iter().all(|&b| b == 0) => return Ok(Tail::Clean),
            Err(bad) if !last => return Err(corrupt(path, at, &bad.to_string())),
            Err(bad) => {
                // The newest segment: a torn tail if nothing valid follows.
                if let Some(next) = (at + 1..bytes.len()).find(|&q| record_at(bytes, q).is_ok()) {
                    return Err(corrupt(
                        path,
                        at,
                        &format!("{bad}, but a valid record follows at offset {next}: not a torn tail"),
                    ));
                }
                return Ok(Tail::Torn(at));
            }
        }
    }
    Ok(Tail::Clean)
}

/// What is wrong with a record.
#[derive(Debug, PartialEq, Eq)]
enum BadRecord {
    /// The file ends inside it.
    Short,
    /// Its length is impossible.
    Length(u32),
    /// Its checksum does not match.
    Checksum,
    /// Its checksum matches but its content does not decode.
    Malformed,
}

impl fmt::Display for BadRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadRecord::Short => f.write_str("a record cut short"),
            BadRecord::Length(n) => write!(f, "a record with an impossible length ({n})"),
            BadRecord::Checksum => f.write_str("a record failing its checksum"),
            BadRecord::Malformed => f.write_str("a record with malformed content"),
        }
    }
}

/// What a record holds.
#[derive(Debug, PartialEq, Eq)]
enum RecordBody {
    /// An action.
    Action(ActionRow),
    /// A row record's text.
    Row(String),
}

/// The record at `at` in `bytes`: game id, content and the offset after it.
fn record_at(bytes: &[u8], at: usize) -> Result<(&str, RecordBody, usize), BadRecord> {
    if bytes.len() - at < HEADER {
        return Err(BadRecord::Short);
    }
    let len = u32_at(bytes, at);
    if !(MIN_PAYLOAD..=MAX_PAYLOAD).contains(&(len as usize)) {
        return Err(BadRecord::Length(len));
    }
    let end = at + HEADER + len as usize;
    if end > bytes.len() {
        return Err(BadRecord::Short);
    }
    let payload = &bytes[at + HEADER..end];
    if crc32fast::hash(payload) != u32_at(bytes, at + 4) {
        return Err(BadRecord::Checksum);
    }
    let (game, rec) = decode_payload(payload).ok_or(BadRecord::Malformed)?;
    Ok((game, rec, end))
}

/// Appends the record of `row` of game `game` to `buf`. The lengths must have been checked.
pub(crate) fn encode_record(buf: &mut Vec<u8>, game: &str, row: &ActionRow) {
    encode(buf, game, row.index, row.seat, kind_code(row.kind), row.time_ms, &row.action);
}

/// Appends a record of this content to `buf`: header (length, checksum), then the payload.
fn encode(buf: &mut Vec<u8>, game: &str, index: u32, seat: u8, code: u8, time_ms: i64, text: &str) {
    let start = buf.len();
    buf.extend_from_slice(&[0; HEADER]);
    buf.extend_from_slice(&(game.len() as u16).to_le_bytes());
    buf.extend_from_slice(game.as_bytes());
    buf.extend_from_slice(&index.to_le_bytes());
    buf.push(seat);
    buf.push(code);
    buf.extend_from_slice(&time_ms.to_le_bytes());
    buf.extend_from_slice(&(text.len() as u16).to_le_bytes());
    buf.extend_from_slice(text.as_bytes());
    let payload = &buf[start + HEADER..];
    let len = (payload.len() as u32).to_le_bytes();
    let crc = crc32fast::hash(payload).to_le_bytes();
    buf[start..start + 4].copy_from_slice(&len);
    buf[start + 4..start + 8].copy_from_slice(&crc);
}

/// Appends a row record (game `game`, text `text`) to `buf`: the layout of an action record,
/// with index 0, seat 0, kind [`ROW_KIND`], time 0 and the text as the action's. The lengths
/// must have been checked.
fn encode_row_record(buf: &mut Vec<u8>, game: &str, text: &str) {
    encode(buf, game, 0, 0, ROW_KIND, 0, text);
}

/// The game id and content of a payload; `None` if it is malformed.
fn decode_payload(payload: &[u8]) -> Option<(&str, RecordBody)> {
    let mut r = Reader(payload);
    let game_len = u16::from_le_bytes(r.array()?) as usize;
    let game = std::str::from_utf8(r.take(game_len)?).ok()?;
    let index = u32::from_le_bytes(r.array()?);
    let [seat] = r.array()?;
    let [code] = r.array()?;
    let time_ms = i64::from_le_bytes(r.array()?);
    let action_len = u16::from_le_bytes(r.array()?) as usize;
    let action = std::str::from_utf8(r.take(action_len)?).ok()?.to_owned();
    if !r.0.is_empty() {
        return None;
    }
    if code == ROW_KIND {
        return (index == 0 && seat == 0 && time_ms == 0).then_some((game, RecordBody::Row(action)));
    }
    let kind = kind_from_code(code)?;
    Some((game, RecordBody::Action(ActionRow { index, seat, kind, action, time_ms })))
}

/// A payload being decoded: what is left of it.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    /// The next `N` bytes, as an array.
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
}

/// The stored code of an action kind.
fn kind_code(kind: ActionKind) -> u8 {
    match kind {
        ActionKind::Play => 0,
        ActionKind::Timeout => 1,
        ActionKind::Resign => 2,
    }
}

/// The inverse of [`kind_code`].
fn kind_from_code(code: u8) -> Option<ActionKind> {
    match code {
        0 => Some(ActionKind::Play),
        1 => Some(ActionKind::Timeout),
        2 => Some(ActionKind::Resign),
        _ => None,
    }
}

/// The little-endian `u32` at `at` (which must be in bounds).
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// The path of segment `seq`.
fn segment_path(dir: &Path, seq: u64) -> PathBuf {
    dir.join(format!("{seq:08}.log"))
}

/// The path segment `seq` is written under before it is complete.
fn unfinished_path(dir: &Path, seq: u64) -> PathBuf {
    dir.join(format!("{seq:08}.tmp"))
}

/// Creates segment `seq` in `dir` holding `bytes` (which start with the magic), durably: written
/// under a temporary name and synced, renamed, the directory synced. So a segment is never seen
/// half-written, however its pages reached the disk before a crash. Returns it, open for
/// appending.
fn create_segment(dir: &Path, seq: u64, bytes: &[u8]) -> Result<File, JournalError> {
    let tmp = unfinished_path(dir, seq);
    let path = segment_path(dir, seq);
    let mut file = OpenOptions::new()
        .create_new(true)
        .write(true)
        .open(&tmp)
        .map_err(|e| io_error("creating", &tmp, e))?;
    file.write_all(bytes).map_err(|e| io_error("writing", &tmp, e))?;
    file.sync_data().map_err(|e| io_error("syncing", &tmp, e))?;
    if path.exists() {
        return Err(JournalError::Io(format!("journal: {} exists already", path.display())));
    }
    fs::rename(&tmp, &path).map_err(|e| io_error("renaming", &tmp, e))?;
    sync_dir(dir)?;
    Ok(file)
}

/// Deletes the segments a crash left unfinished (never renamed, so never used).
fn remove_unfinished_segments(dir: &Path) -> Result<(), JournalError> {
    let mut removed = false;
    for entry in fs::read_dir(dir).map_err(|e| io_error("listing", dir, e))? {
        let entry = entry.map_err(|e| io_error("listing", dir, e))?;
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".tmp")) else { continue };
        if stem.len() >= 8 && stem.bytes().all(|b| b.is_ascii_digit()) {
            let path = entry.path();
            tracing::warn!(file = %path.display(), "journal: deleting a segment left unfinished");
            fs::remove_file(&path).map_err(|e| io_error("deleting", &path, e))?;
            removed = true;
        }
    }
    if removed {
        sync_dir(dir)?;
    }
    Ok(())
}

/// The numbers of the segments in `dir`, in order (other files are ignored).
fn list_segments(dir: &Path) -> Result<Vec<u64>, JournalError> {
    let mut seqs = Vec::new();
    let entries = fs::read_dir(dir).map_err(|e| io_error("listing", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_error("listing", dir, e))?;
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".log")) else { continue };
        if stem.len() >= 8
            && stem.bytes().all(|b| b.is_ascii_digit())
            && let Ok(seq) = stem.parse::<u64>()
        {
            seqs.push(seq);
        }
    }
    seqs.sort_unstable();
    Ok(seqs)
}

/// Creates `dir` and its missing ancestors, each made durable in its parent.
fn create_dir_durably(dir: &Path) -> Result<(), JournalError> {
    if dir.is_dir() {
        return Ok(());
    }
    let missing: Vec<&Path> =
        dir.ancestors().take_while(|p| !p.as_os_str().is_empty() && !p.exists()).collect();
    fs::create_dir_all(dir).map_err(|e| io_error("creating", dir, e))?;
    for created in missing.iter().rev() {
        let parent = match created.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        sync_dir(parent)?;
    }
    Ok(())
}

/// Locks the journal directory `dir` for this process (the file `LOCK` in it, an advisory
/// lock released when the returned file is closed, or the process ends): two servers
/// appending to one journal would corrupt it.
///
/// A lock found held is tried again for up to [`LOCK_PATIENCE`] before the journal is called
/// in use: a lock just released by this process can still be held for a moment by a child it
/// forked meanwhile (the child shares the open file until its `exec` closes it), which a
/// server reopening its store in-process (the tests) would otherwise take for another server.
fn lock_dir(dir: &Path) -> Result<File, JournalError> {
    let path = dir.join("LOCK");
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error("opening", &path, e))?;
    let since = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(std::fs::TryLockError::WouldBlock) if since.elapsed() < LOCK_PATIENCE => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(JournalError::Io(format!(
                    "journal {} is in use by another process (another server on the same database?)",
                    dir.display()
                )));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_error("locking", &path, e)),
        }
    }
}

/// How long [`lock_dir`] waits for a lock found held.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// How far ahead of the appends the newest segment is filled with zeros.
const PREALLOCATE: u64 = 256 << 10;

/// Writes all of `bytes` at `offset` of `file`.
#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

/// Writes all of `bytes` at `offset` of `file`.
#[cfg(not(unix))]
fn write_at(mut file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

/// Cuts the file at `path` to `len` bytes, durably.
fn truncate(path: &Path, len: u64) -> Result<(), JournalError> {
    let file = OpenOptions::new().write(true).open(path).map_err(|e| io_error("opening", path, e))?;
    file.set_len(len).and_then(|()| file.sync_all()).map_err(|e| io_error("truncating", path, e))
}

/// Makes the entries of directory `dir` (files created, deleted) durable.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), JournalError> {
    File::open(dir).and_then(|d| d.sync_all()).map_err(|e| io_error("syncing directory", dir, e))
}

/// Directories cannot be synced this way here.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), JournalError> {
    Ok(())
}

/// An I/O error while `doing` something to `path`.
fn io_error(doing: &str, path: &Path, e: std::io::Error) -> JournalError {
    JournalError::Io(format!("journal: {doing} {}: {e}", path.display()))
}

/// Corruption in segment `path` at offset `at`.
fn corrupt(path: &Path, at: usize, what: &str) -> JournalError {
    JournalError::Corrupt(format!("journal {}: corrupt at offset {at}: {what}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    enum Kind {
        Refused,
        Io,
        Corrupt,
    }

    /// `e` is of `kind` and says `says`.
    fn is(e: &JournalError, kind: Kind, says: &str) -> bool {
        let (JournalError::Refused(m) | JournalError::Io(m) | JournalError::Corrupt(m)) = e;
        let same = matches!(
            (e, kind),
            (JournalError::Refused(_), Kind::Refused)
                | (JournalError::Io(_), Kind::Io)
                | (JournalError::Corrupt(_), Kind::Corrupt)
        );
        same && m.contains(says)
    }

    fn row(index: u32, action: &str) -> ActionRow {
        ActionRow {
            index,
            seat: (index % 2) as u8,
            kind: match index % 3 {
                0 => ActionKind::Play,
                1 => ActionKind::Timeout,
                _ => ActionKind::Resign,
            },
            action: action.to_owned(),
            time_ms: 1_700_000_000_000 + i64::from(index) * 7,
        }
    }

    /// The `n`-th action of game `game`, with a text that depends on both.
    fn nth(game: &str, n: u32) -> ActionRow {
        row(n, &format!("{game}/move-{n}"))
    }

    /// Appends the next `count` actions of each of `games`, in one call.
    fn append_next(j: &mut Journal, games: &[&str], count: u32) -> Vec<(String, ActionRow)> {
        let mut batch = Vec::new();
        for &g in games {
            let first = j.next_index(g);
            for n in first..first + count {
                batch.push((g.to_owned(), nth(g, n)));
            }
        }
        let refs: Vec<(&str, &ActionRow)> = batch.iter().map(|(g, r)| (g.as_str(), r)).collect();
        j.append(&refs).expect("append");
        batch
    }

    fn expected(games: &[(&str, u32)]) -> HashMap<String, Vec<ActionRow>> {
        games.iter().map(|&(g, n)| (g.to_owned(), (0..n).map(|i| nth(g, i)).collect())).collect()
    }

    fn segments(dir: &Path) -> Vec<u64> {
        list_segments(dir).unwrap()
    }

    fn last_segment(dir: &Path) -> PathBuf {
        segment_path(dir, *segments(dir).last().unwrap())
    }

    fn file_len(path: &Path) -> u64 {
        fs::metadata(path).unwrap().len()
    }

    /// Where the records of the segment at `path` end (zeros written ahead may follow).
    fn records_end(path: &Path) -> u64 {
        records_end_of(&fs::read(path).unwrap()) as u64
    }

    /// Where the records of a segment's `bytes` end.
    fn records_end_of(bytes: &[u8]) -> usize {
        let mut at = MAGIC.len();
        while let Ok((_, _, end)) = record_at(bytes, at) {
            at = end;
        }
        at
    }

    /// Cuts the zeros written ahead off the newest segment of `dir`, so that damage done at its
    /// end is damage to its last records.
    fn tighten(dir: &Path) {
        let path = last_segment(dir);
        let end = records_end(&path);
        OpenOptions::new().write(true).open(&path).unwrap().set_len(end).unwrap();
    }

    fn sorted_games(j: &Journal) -> Vec<String> {
        let mut games: Vec<String> = j.games().map(str::to_owned).collect();
        games.sort();
        games
    }

    #[test]
    fn record_round_trip_and_layout() {
        let mut buf = Vec::new();
        let r = ActionRow { index: 3, seat: 1, kind: ActionKind::Resign, action: "x".into(), time_ms: -5 };
        encode_record(&mut buf, "g", &r);
        assert_eq!(buf.len(), HEADER + MIN_PAYLOAD + 2);
        assert_eq!(u32_at(&buf, 0) as usize, MIN_PAYLOAD + 2);
        assert_eq!(u32_at(&buf, 4), crc32fast::hash(&buf[HEADER..]));
        assert_eq!(&buf[HEADER..HEADER + 3], &[1, 0, b'g']);
        assert_eq!(record_at(&buf, 0), Ok(("g", RecordBody::Action(r), buf.len())));
    }

    #[test]
    fn row_records_come_back_in_order_apart_from_the_actions_and_are_left_behind_at_rotation() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("j");
        let a0 = nth("g", 0);
        let a1 = nth("g", 1);
        {
            let (mut j, _) = Journal::open(&dir, 1 << 20).unwrap();
            j.append_with_rows(&[], &[("g", "create g"), ("g", "seat g 0")]).unwrap();
            j.append_with_rows(&[("g", &a0)], &[("h", "create h")]).unwrap();
            assert_eq!(j.actions("g"), vec![a0.clone()], "rows are not a game's actions");
            assert_eq!(sorted_games(&j), ["g"]);
            assert!(j.take_rows().is_empty(), "rows are returned after a reopen only");
            assert_eq!(j.row_records(), 3, "but counted as soon as appended");
        }
        let (mut j, recovered) = Journal::open(&dir, 600).unwrap();
        assert_eq!(recovered, expected(&[("g", 1)]));
        let rows: Vec<(String, String)> = [("g", "create g"), ("g", "seat g 0"), ("h", "create h")]
            .map(|(g, t)| (g.into(), t.into()))
            .into();
        assert_eq!(j.take_rows(), rows);
        assert!(j.take_rows().is_empty());
        assert_eq!(j.row_records(), 3, "taken, still in the files");
        // Past the (small) limit: the next append rotates, carrying the actions, not the rows.
        while !j.rotation_due() {
            j.append_with_rows(&[], &[("x", &"r".repeat(100))]).unwrap();
        }
        j.append_with_rows(&[("g", &a1)], &[("h", "end h")]).unwrap();
        assert_eq!(j.row_records(), 1, "the rotation left the older ones behind");
        drop(j);
        let (mut j, recovered) = Journal::open(&dir, 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g", 2)]));
        assert_eq!(j.row_records(), 1);
        assert_eq!(j.take_rows(), vec![("h".to_string(), "end h".to_string())]);
        // Compaction leaves the rows behind and keeps the actions.
        j.compact().unwrap();
        assert_eq!(j.row_records(), 0);
        drop(j);
        let (mut j, recovered) = Journal::open(&dir, 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g", 2)]));
        assert_eq!((j.row_records(), j.take_rows()), (0, Vec::new()));
    }

    /// A compaction killed at each of its steps: before the new segment is renamed into place,
    /// after it but before the old one is deleted, and done. No action is lost, and the row
    /// records are found again (to be applied again) until the old segment is gone.
    #[test]
    fn a_compaction_interrupted_at_any_step_loses_nothing() {
        let rows: Vec<(String, String)> =
            [("g", "create g"), ("h", "create h")].map(|(g, t)| (g.into(), t.into())).into();
        for step in ["before the rename", "before the old segment is deleted", "done"] {
            let tmp = tempfile::tempdir().unwrap();
            let dir = tmp.path().join("j");
            let (mut j, _) = Journal::open(&dir, 1 << 20).unwrap();
            j.append_with_rows(&[], &[("g", "create g"), ("h", "create h")]).unwrap();
            append_next(&mut j, &["g", "h"], 3);
            j.forget("h");
            let seq = segments(&dir)[0];
            let old = fs::read(segment_path(&dir, seq)).unwrap();
            j.compact().unwrap();
            drop(j);
            assert_eq!(segments(&dir), [seq + 1]);
            match step {
                "before the rename" => {
                    let new = fs::read(segment_path(&dir, seq + 1)).unwrap();
                    fs::remove_file(segment_path(&dir, seq + 1)).unwrap();
                    fs::write(unfinished_path(&dir, seq + 1), &new).unwrap();
                    fs::write(segment_path(&dir, seq), &old).unwrap();
                }
                "before the old segment is deleted" => fs::write(segment_path(&dir, seq), &old).unwrap(),
                _ => {}
            }
            let (mut j, recovered) = Journal::open(&dir, 1 << 20).unwrap();
            let done = step == "done";
            // The forgotten game's actions come back with the old segment only (the caller
            // forgets it again); the live one's always.
            let want = if done { expected(&[("g", 3)]) } else { expected(&[("g", 3), ("h", 3)]) };
            assert_eq!(recovered, want, "{step}");
            assert_eq!(j.take_rows(), if done { Vec::new() } else { rows.clone() }, "{step}");
            assert!(!unfinished_path(&dir, seq + 1).exists(), "{step}");
        }
    }

    #[test]
    fn a_segment_of_the_first_format_still_opens_and_takes_row_records_after_an_upgrade() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("j");
        fs::create_dir_all(&dir).unwrap();
        let mut old = MAGIC_V1.to_vec();
        encode_record(&mut old, "g", &nth("g", 0));
        fs::write(segment_path(&dir, 1), &old).unwrap();
        let (mut j, recovered) = Journal::open(&dir, 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g", 1)]));
        assert!(j.take_rows().is_empty());
        // The newest segment is the old one: appended to, row records and all.
        let a1 = nth("g", 1);
        j.append_with_rows(&[("g", &a1)], &[("g", "end g")]).unwrap();
        drop(j);
        assert_eq!(fs::read(segment_path(&dir, 1)).unwrap()[..8], MAGIC_V1[..]);
        let (mut j, recovered) = Journal::open(&dir, 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g", 2)]));
        assert_eq!(j.take_rows(), vec![("g".to_string(), "end g".to_string())]);
    }

    #[test]
    fn append_then_reopen_gives_every_action_back_by_game_in_order() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/journal");
        {
            let (mut j, recovered) = Journal::open(&dir, 1 << 20).unwrap();
            assert!(recovered.is_empty());
            for _ in 0..10 {
                append_next(&mut j, &["g1", "g2"], 2);
                append_next(&mut j, &["g3"], 1);
            }
            append_next(&mut j, &["g4"], 1);
        }
        assert_eq!(segments(&dir), vec![1]);
        let (j, recovered) = Journal::open(&dir, 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g1", 20), ("g2", 20), ("g3", 10), ("g4", 1)]));
        assert_eq!(sorted_games(&j), ["g1", "g2", "g3", "g4"]);
        assert_eq!(j.actions("g1"), recovered["g1"]);
        assert_eq!(j.next_index("g1"), 20);
        assert_eq!(j.next_index("g3"), 10);
        assert_eq!(j.next_index("g4"), 1);
    }

    #[test]
    fn accessors_and_forget() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 1 << 20).unwrap();
        assert_eq!(j.next_index("g"), 0);
        assert!(j.actions("g").is_empty());
        assert_eq!(j.games().count(), 0);
        append_next(&mut j, &["g", "h"], 3);
        append_next(&mut j, &["g"], 1);
        assert_eq!(j.next_index("g"), 4);
        assert_eq!(j.next_index("h"), 3);
        assert_eq!(j.actions("g"), (0..4).map(|i| nth("g", i)).collect::<Vec<_>>());
        assert_eq!(sorted_games(&j), ["g", "h"]);
        j.forget("g");
        j.forget("unknown");
        assert_eq!(sorted_games(&j), ["h"]);
        assert_eq!(j.next_index("g"), 0);
        assert!(j.actions("g").is_empty());
        assert_eq!(j.actions("h").len(), 3);
        // Forgotten records stay in the newest segment until a rotation: they come back at open.
        drop(j);
        let (j, recovered) = Journal::open(tmp.path(), 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g", 4), ("h", 3)]));
        assert_eq!(sorted_games(&j), ["g", "h"]);
    }

    #[test]
    fn in_memory_mode_keeps_the_same_bookkeeping_without_files() {
        let mut j = Journal::in_memory();
        append_next(&mut j, &["a", "b"], 2);
        append_next(&mut j, &["a"], 2);
        assert_eq!(j.actions("a"), (0..4).map(|i| nth("a", i)).collect::<Vec<_>>());
        assert_eq!(j.next_index("b"), 2);
        assert_eq!(sorted_games(&j), ["a", "b"]);
        // The same checks as on disk.
        let bad = nth("a", 7);
        assert!(is(&j.append(&[("a", &bad)]).unwrap_err(), Kind::Refused, "expected index 4"));
        j.forget("a");
        assert_eq!(sorted_games(&j), ["b"]);
        assert_eq!(j.next_index("a"), 0);
        assert!(j.actions("a").is_empty());
        j.append(&[]).unwrap();
        assert!(format!("{j:?}").contains("in memory"));
    }

    #[test]
    fn over_long_strings_and_wrong_indices_are_refused_without_any_change() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 1 << 20).unwrap();
        append_next(&mut j, &["g"], 2);
        let path = last_segment(tmp.path());
        let len = file_len(&path);
        let ok = nth("g", 2);
        let long = row(3, &"x".repeat(u16::MAX as usize + 1));
        let err = j.append(&[("g", &ok), ("g", &long)]).unwrap_err();
        assert!(is(&err, Kind::Refused, "65536 bytes"), "{err}");
        let long_id = "i".repeat(u16::MAX as usize + 1);
        assert!(j.append(&[("g", &ok), (&long_id, &nth("x", 0))]).is_err());
        // A gap, a repeat (also within one call), a game whose first index is not 0.
        assert!(is(&j.append(&[("g", &nth("g", 3))]).unwrap_err(), Kind::Refused, "expected index 2"));
        assert!(j.append(&[("g", &nth("g", 1))]).is_err());
        assert!(j.append(&[("g", &ok), ("g", &ok)]).is_err());
        assert!(j.append(&[("new", &nth("new", 1))]).is_err());
        // Nothing changed, nothing was written, and the journal still works.
        assert_eq!(file_len(&path), len);
        assert_eq!(j.next_index("g"), 2);
        assert_eq!(j.actions("g").len(), 2);
        assert_eq!(sorted_games(&j), ["g"]);
        let longest = row(2, &"y".repeat(u16::MAX as usize));
        j.append(&[("g", &longest)]).unwrap();
        drop(j);
        let (_, recovered) = Journal::open(tmp.path(), 1 << 20).unwrap();
        assert_eq!(recovered["g"].len(), 3);
        assert_eq!(recovered["g"][2], longest);
    }

    #[test]
    fn the_segment_is_zero_filled_ahead_and_reopens_where_its_records_end() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 1 << 30).unwrap();
        append_next(&mut j, &["g", "h"], 3);
        let path = last_segment(tmp.path());
        let (len, end) = (file_len(&path), records_end(&path));
        // One extension covers many appends: the file's length does not change with each.
        assert!(len >= end + PREALLOCATE - 1000, "{len} {end}");
        append_next(&mut j, &["g"], 1);
        assert_eq!(file_len(&path), len);
        let end = records_end(&path);
        drop(j);
        // Reopened: nothing cut, nothing lost, the next append goes right after the records.
        let (mut j, recovered) = Journal::open(tmp.path(), 1 << 30).unwrap();
        assert_eq!(recovered, expected(&[("g", 4), ("h", 3)]));
        assert_eq!(file_len(&path), len);
        append_next(&mut j, &["h"], 2);
        assert!(records_end(&path) > end);
        // An append bigger than what is left extends the file by at least that much.
        let big = row(5, &"z".repeat(60_000));
        for i in 0..6 {
            j.append(&[("g", &ActionRow { index: 4 + i, ..big.clone() })]).unwrap();
        }
        assert!(file_len(&path) >= records_end(&path));
        drop(j);
        let (_, recovered) = Journal::open(tmp.path(), 1 << 30).unwrap();
        assert_eq!(recovered["g"].len(), 10);
        assert_eq!(recovered["h"], expected(&[("h", 5)])["h"]);
    }

    #[test]
    fn one_process_at_a_time() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 1 << 20).unwrap();
        append_next(&mut j, &["g"], 2);
        let err = Journal::open(tmp.path(), 1 << 20).unwrap_err();
        assert!(is(&err, Kind::Io, "in use by another process"), "{err}");
        // The first one is untouched and goes on.
        append_next(&mut j, &["g"], 1);
        drop(j);
        let (_, recovered) = Journal::open(tmp.path(), 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g", 3)]));
    }

    #[test]
    fn empty_append_does_no_io() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 1 << 20).unwrap();
        let path = last_segment(tmp.path());
        // A read-only handle: any write or sync would fail.
        j.disk.as_mut().unwrap().file = File::open(&path).unwrap();
        j.append(&[]).unwrap();
        assert!(j.broken.is_none());
    }

    #[test]
    fn an_io_error_breaks_the_journal_for_good_and_changes_no_state() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 1 << 20).unwrap();
        append_next(&mut j, &["g"], 2);
        let path = last_segment(tmp.path());
        let good = std::mem::replace(&mut j.disk.as_mut().unwrap().file, File::open(&path).unwrap());
        let r = nth("g", 2);
        let err = j.append(&[("g", &r), ("h", &nth("h", 0))]).unwrap_err();
        assert!(is(&err, Kind::Io, "appending to"), "{err}");
        assert_eq!(j.next_index("g"), 2);
        assert_eq!(j.actions("g").len(), 2);
        assert_eq!(sorted_games(&j), ["g"]);
        // Even with a working file again, and even for an empty call: broken.
        j.disk.as_mut().unwrap().file = good;
        assert!(is(&j.append(&[("g", &r)]).unwrap_err(), Kind::Io, "broken"));
        assert!(j.append(&[]).is_err());
        assert_eq!(j.next_index("g"), 2);
        drop(j);
        let (_, recovered) = Journal::open(tmp.path(), 1 << 20).unwrap();
        assert_eq!(recovered, expected(&[("g", 2)]));
    }

    /// Appends 3 batches to a fresh journal in `dir`; returns the size before the last batch
    /// and the offset of the last record.
    fn three_batches(dir: &Path) -> (u64, u64) {
        let (mut j, _) = Journal::open(dir, 1 << 20).unwrap();
        append_next(&mut j, &["g", "h"], 2);
        append_next(&mut j, &["g", "h"], 2);
        let before = records_end(&last_segment(dir));
        append_next(&mut j, &["g", "h"], 2);
        drop(j);
        tighten(dir);
        let mut last = Vec::new();
        encode_record(&mut last, "h", &nth("h", 5));
        (before, file_len(&last_segment(dir)) - last.len() as u64)
    }

    /// Reopens after damage to the tail, expects `want` and the file cut at `cut`; then appends
    /// and reopens again.
    fn recovers_after_torn_tail(dir: &Path, want: HashMap<String, Vec<ActionRow>>, cut: u64) {
        let (mut j, recovered) = Journal::open(dir, 1 << 20).unwrap();
        assert_eq!(recovered, want);
        // Cut there, or only zeros after (written ahead, or a zeroed tail kept as such).
        let bytes = fs::read(last_segment(dir)).unwrap();
        assert_eq!(records_end(&last_segment(dir)), cut);
        assert!(bytes[cut as usize..].iter().all(|&b| b == 0));
        let mut want = want;
        for (g, r) in append_next(&mut j, &["g", "h"], 1) {
            want.get_mut(&g).unwrap().push(r);
        }
        drop(j);
        let (_, recovered) = Journal::open(dir, 1 << 20).unwrap();
        assert_eq!(recovered, want);
    }

    /// What [`three_batches`] wrote but its last record.
    fn all_but_the_last_record() -> HashMap<String, Vec<ActionRow>> {
        let mut want = expected(&[("g", 6), ("h", 6)]);
        want.get_mut("h").unwrap().pop();
        want
    }

    #[test]
    fn torn_tail_cut_short() {
        let tmp = tempfile::tempdir().unwrap();
        let (_, last) = three_batches(tmp.path());
        let path = last_segment(tmp.path());
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(file_len(&path) - 3).unwrap();
        recovers_after_torn_tail(tmp.path(), all_but_the_last_record(), last);
    }

    #[test]
    fn torn_tail_header_cut_short() {
        let tmp = tempfile::tempdir().unwrap();
        let (_, last) = three_batches(tmp.path());
        let file = OpenOptions::new().write(true).open(last_segment(tmp.path())).unwrap();
        file.set_len(last + 5).unwrap();
        recovers_after_torn_tail(tmp.path(), all_but_the_last_record(), last);
    }

    #[test]
    fn torn_tail_garbage_and_zeros() {
        for tail in [&b"\xde\xad\xbe\xef garbage!"[..], &[0; 4096][..], &[0xff; 3][..]] {
            let tmp = tempfile::tempdir().unwrap();
            three_batches(tmp.path());
            let path = last_segment(tmp.path());
            let len = file_len(&path);
            OpenOptions::new().append(true).open(&path).unwrap().write_all(tail).unwrap();
            recovers_after_torn_tail(tmp.path(), expected(&[("g", 6), ("h", 6)]), len);
        }
    }

    #[test]
    fn torn_tail_flipped_byte_in_the_last_record() {
        // In the payload (checksum fails) and in the length (cut short / impossible length).
        for (at, mask) in [(12, 0x01), (0, 0x10), (3, 0x80)] {
            let tmp = tempfile::tempdir().unwrap();
            let (_, last) = three_batches(tmp.path());
            let path = last_segment(tmp.path());
            let mut bytes = fs::read(&path).unwrap();
            bytes[last as usize + at] ^= mask;
            fs::write(&path, &bytes).unwrap();
            recovers_after_torn_tail(tmp.path(), all_but_the_last_record(), last);
        }
    }

    #[test]
    fn corruption_followed_by_valid_records_in_the_last_segment_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let (before, _) = three_batches(tmp.path());
        let path = last_segment(tmp.path());
        let mut bytes = fs::read(&path).unwrap();
        // A byte of the first record of the second batch: records follow it.
        let at = (MAGIC.len() as u64 + (before - MAGIC.len() as u64) / 2) as usize + 12;
        bytes[at] ^= 0x40;
        fs::write(&path, &bytes).unwrap();
        let err = Journal::open(tmp.path(), 1 << 20).unwrap_err();
        assert!(
            is(&err, Kind::Corrupt, "00000001.log") && is(&err, Kind::Corrupt, "not a torn tail"),
            "{err}"
        );
        // Nothing was cut.
        assert_eq!(fs::read(&path).unwrap(), bytes);
    }

    #[test]
    fn torn_magic_of_the_newest_segment_is_rewritten() {
        for start in [&b""[..], &b"GINJ"[..], &[0; 30][..]] {
            let tmp = tempfile::tempdir().unwrap();
            fs::write(segment_path(tmp.path(), 1), start).unwrap();
            let (mut j, recovered) = Journal::open(tmp.path(), 1 << 20).unwrap();
            assert!(recovered.is_empty());
            assert_eq!(fs::read(segment_path(tmp.path(), 1)).unwrap(), MAGIC);
            append_next(&mut j, &["g"], 2);
            drop(j);
            assert_eq!(Journal::open(tmp.path(), 1 << 20).unwrap().1, expected(&[("g", 2)]));
        }
        let tmp = tempfile::tempdir().unwrap();
        fs::write(segment_path(tmp.path(), 1), b"not a journal at all").unwrap();
        let err = Journal::open(tmp.path(), 1 << 20).unwrap_err();
        assert!(is(&err, Kind::Corrupt, "no magic"), "{err}");
    }

    #[test]
    fn rotation_keeps_only_live_games_and_few_segments() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let games = ["g0", "g1", "g2", "g3", "g4"];
        let (mut j, _) = Journal::open(dir, 512).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        let mut forgotten_at = 0;
        for round in 0..60 {
            let playing: Vec<&str> = games
                .iter()
                .copied()
                .filter(|g| !(round >= 20 && (*g == "g0" || *g == "g2")))
                .filter(|g| round % 2 == 0 || *g != "g4")
                .collect();
            append_next(&mut j, &playing, 1 + round % 3);
            if round == 20 {
                // g0 and g2 finished.
                j.forget("g0");
                j.forget("g2");
                forgotten_at = segments(dir)[0];
            }
            let segs = segments(dir);
            assert_eq!(segs.len(), 1, "older segments are deleted by the rotation");
            seen.insert(segs[0]);
        }
        assert!(seen.len() >= 4, "rotated a few times: {seen:?}");
        assert!(segments(dir)[0] > forgotten_at, "rotated since g0 and g2 were forgotten");
        let want_next: Vec<u32> = ["g1", "g3", "g4"].iter().map(|g| j.next_index(g)).collect();
        drop(j);
        let (j, recovered) = Journal::open(dir, 512).unwrap();
        assert_eq!(recovered, expected(&[("g1", want_next[0]), ("g3", want_next[1]), ("g4", want_next[2])]));
        assert_eq!(sorted_games(&j), ["g1", "g3", "g4"]);
        assert_eq!(segments(dir).len(), 1);
    }

    #[test]
    fn rotation_is_amortised_when_the_live_games_exceed_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 64).unwrap();
        append_next(&mut j, &["g"], 200);
        let first = segments(tmp.path());
        append_next(&mut j, &["g"], 1);
        let rotated = segments(tmp.path());
        assert_ne!(first, rotated);
        // The new segment carries ~200 records: one more append must not copy them again.
        append_next(&mut j, &["g"], 1);
        assert_eq!(segments(tmp.path()), rotated);
        append_next(&mut j, &["g"], 250);
        append_next(&mut j, &["g"], 1);
        assert_ne!(segments(tmp.path()), rotated);
    }

    /// Runs a journal with a small segment limit until it has rotated once, and returns the
    /// bytes of the segment it rotated away from, with the actions appended.
    fn rotate_once(dir: &Path) -> (u64, Vec<u8>, HashMap<String, Vec<ActionRow>>) {
        let (mut j, _) = Journal::open(dir, 400).unwrap();
        let mut all: HashMap<String, Vec<ActionRow>> = HashMap::new();
        loop {
            let seq = segments(dir)[0];
            let old = fs::read(segment_path(dir, seq)).unwrap();
            for (g, r) in append_next(&mut j, &["g", "h"], 1) {
                all.entry(g).or_default().push(r);
            }
            if segments(dir) != [seq] {
                assert_eq!(segments(dir), [seq + 1]);
                for (g, r) in append_next(&mut j, &["g"], 1) {
                    all.entry(g).or_default().push(r);
                }
                return (seq, old, all);
            }
        }
    }

    /// What the old segment of [`rotate_once`] holds: everything but what came after the
    /// rotation (one action of each game, and one more of "g").
    fn held_by_the_old_segment(all: &HashMap<String, Vec<ActionRow>>) -> HashMap<String, Vec<ActionRow>> {
        all.iter()
            .map(|(g, rows)| (g.clone(), rows[..rows.len() - usize::from(g == "g") - 1].to_vec()))
            .collect()
    }

    #[test]
    fn crash_before_deleting_the_old_segment_dedups() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (seq, old, all) = rotate_once(dir);
        // The old segment as it was, with the zeros written ahead of its appends.
        assert!(old.len() as u64 >= PREALLOCATE && old.ends_with(&[0; 64]));
        fs::write(segment_path(dir, seq), &old).unwrap();
        let (mut j, recovered) = Journal::open(dir, 400).unwrap();
        assert_eq!(recovered, all);
        assert_eq!(j.actions("g"), all["g"]);
        // The next rotation removes both.
        for _ in 0..40 {
            append_next(&mut j, &["g"], 1);
        }
        assert_eq!(segments(dir).len(), 1);
        assert!(segments(dir)[0] > seq + 1);
    }

    #[test]
    fn crash_while_writing_the_new_segment_loses_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (seq, old, all) = rotate_once(dir);
        fs::write(segment_path(dir, seq), &old).unwrap();
        // The new segment is cut in the middle of its carried records (cannot happen, as it is
        // renamed into place once synced, but recovery copes).
        let new = segment_path(dir, seq + 1);
        let file = OpenOptions::new().write(true).open(&new).unwrap();
        file.set_len(records_end(&new) / 2 + 3).unwrap();
        drop(file);
        let mut want = held_by_the_old_segment(&all);
        let (mut j, recovered) = Journal::open(dir, 400).unwrap();
        assert_eq!(recovered, want);
        assert_eq!(segments(dir), [seq, seq + 1]);
        for (g, r) in append_next(&mut j, &["g", "h"], 1) {
            want.get_mut(&g).unwrap().push(r);
        }
        drop(j);
        let (_, recovered) = Journal::open(dir, 400).unwrap();
        assert_eq!(recovered, want);
    }

    #[test]
    fn crash_before_the_new_segment_is_renamed_loses_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (seq, old, all) = rotate_once(dir);
        // Back to the old segment, with the new one still under its temporary name (whole, or
        // torn anywhere: it is never read).
        let new = fs::read(segment_path(dir, seq + 1)).unwrap();
        fs::remove_file(segment_path(dir, seq + 1)).unwrap();
        fs::write(segment_path(dir, seq), &old).unwrap();
        let mut torn = new.clone();
        torn[..40].fill(0);
        fs::write(unfinished_path(dir, seq + 1), &torn).unwrap();
        let want = held_by_the_old_segment(&all);
        let (mut j, recovered) = Journal::open(dir, 400).unwrap();
        assert_eq!(recovered, want);
        assert!(!unfinished_path(dir, seq + 1).exists());
        assert_eq!(segments(dir), [seq]);
        // The next rotation creates that segment again.
        for _ in 0..40 {
            append_next(&mut j, &["g"], 1);
        }
        assert!(segments(dir)[0] > seq);
    }

    #[test]
    fn conflicting_duplicate_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (seq, _, _) = rotate_once(dir);
        let mut old = MAGIC.to_vec();
        encode_record(&mut old, "g", &nth("g", 0));
        encode_record(&mut old, "g", &row(1, "something else"));
        fs::write(segment_path(dir, seq), &old).unwrap();
        let err = Journal::open(dir, 400).unwrap_err();
        assert!(is(&err, Kind::Corrupt, "two different actions with index 1"), "{err}");
    }

    #[test]
    fn corruption_in_an_older_segment_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (seq, mut old, _) = rotate_once(dir);
        // Its records, without the zeros written ahead.
        old.truncate(records_end_of(&old));
        let mut flipped = old.clone();
        let at = old.len() / 2;
        flipped[at] ^= 0x04;
        fs::write(segment_path(dir, seq), &flipped).unwrap();
        let err = Journal::open(dir, 400).unwrap_err();
        assert!(
            is(&err, Kind::Corrupt, &format!("{seq:08}.log")) && is(&err, Kind::Corrupt, "corrupt at offset"),
            "{err}"
        );
        // Even a torn-looking end of an older segment is corruption.
        fs::write(segment_path(dir, seq), &old[..old.len() - 2]).unwrap();
        let err = Journal::open(dir, 400).unwrap_err();
        assert!(
            is(&err, Kind::Corrupt, &format!("{seq:08}.log")) && is(&err, Kind::Corrupt, "cut short"),
            "{err}"
        );
        // Untouched, it opens.
        fs::write(segment_path(dir, seq), &old).unwrap();
        Journal::open(dir, 400).unwrap();
    }

    #[test]
    fn a_malformed_record_with_a_good_checksum_is_an_error_even_at_the_end() {
        let tmp = tempfile::tempdir().unwrap();
        three_batches(tmp.path());
        let path = last_segment(tmp.path());
        let mut payload = Vec::new();
        encode_record(&mut payload, "g", &nth("g", 6));
        let mut payload = payload.split_off(HEADER);
        payload[2 + 1 + 4 + 1] = 9; // an unknown kind
        let mut record = (payload.len() as u32).to_le_bytes().to_vec();
        record.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
        record.extend_from_slice(&payload);
        OpenOptions::new().append(true).open(&path).unwrap().write_all(&record).unwrap();
        let err = Journal::open(tmp.path(), 1 << 20).unwrap_err();
        assert!(is(&err, Kind::Corrupt, "malformed"), "{err}");
    }

    #[test]
    fn other_files_in_the_directory_are_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("notes.txt"), b"hello").unwrap();
        fs::write(tmp.path().join("1.log"), b"too short a name").unwrap();
        let (mut j, _) = Journal::open(tmp.path(), 1 << 20).unwrap();
        append_next(&mut j, &["g"], 1);
        drop(j);
        assert_eq!(Journal::open(tmp.path(), 1 << 20).unwrap().1, expected(&[("g", 1)]));
    }
}
