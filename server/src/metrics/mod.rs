//! What an operator watches, in Prometheus' text format: [`Metrics`], one set per server
//! (never process-global: the tests run several servers in one process), and [`http`], the
//! `GET /metrics` endpoint of `--metrics-addr`.
//!
//! Recording is off the hot path's locks: counters and gauges are one relaxed atomic add
//! (`prometheus-client`'s own), and the histograms are [`AtomicHistogram`]s, one atomic add per
//! bucket hit and one for the sum (`prometheus-client`'s `Histogram` takes a mutex per
//! observation). Only a scrape walks them, and it takes no lock the game path takes.
//!
//! The layers below record into the handles they are given: the game layer through
//! [`Shared::metrics`](crate::game::shared::Inner::metrics), the store's writer through its
//! [`CommitObserver`](crate::storage::CommitObserver) hook, which [`Metrics`] implements; no
//! layer below knows of HTTP.
//!
//!
//! Recorded where the numbers arise: the commit (actions, their time from `act_as` to the
//! acknowledgement), `Shared` (games in play by kind: creation, rebuild at start,
//! `game_ended`; one gauge per kind, looked up by index, never by label), the watch stream's
//! guard (open streams) and `state::send_events` (a watcher cut off), the gate (rate
//! refusals), `api::forward` (calls forwarded), the house bots (think time), the store's
//! writer (writes per transaction, commit time). Names have the `gin_` prefix and the unit in
//! the name. The metrics never decide anything, and nothing reads them but the endpoint.
//! `prometheus-client` rather than `metrics` + an exporter: it keeps a registry per value, so
//! each server (and each test's server) has its own numbers, where `metrics` records into one
//! process-global recorder.

pub mod http;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder, NoLabelSet};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::Registry;

/// The kinds of game, in the order of [`Metrics::games_in_play`]'s gauges.
const KINDS: [engine::Kind; 5] = [
    engine::Kind::Gin,
    engine::Kind::ThreePlayer,
    engine::Kind::Teams,
    engine::Kind::Gin7,
    engine::Kind::Rummy,
];

/// One server's numbers, and the registry that prints them. Every handle is cheap to record
/// into (an atomic add); clones of a handle record into the same number.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    /// `gin_games_in_play{format}`: unfinished games in memory (waiting for players or
    /// under way), by kind (`engine::Kind::name`: gin, three-player, teams, gin-7, rummy).
    games_in_play: [Gauge; 5],
    /// `gin_actions_total`: actions applied (every one: clients', house bots', clocks',
    /// expiry's), counted once durable and published.
    pub actions: Counter,
    /// `gin_action_duration_seconds`: from an action reaching the commit (`act_as`) to its
    /// acknowledgement, after the durable write.
    pub action_seconds: AtomicHistogram,
    /// `gin_commit_batch_writes`: writes per group commit of the store's writer.
    pub batch_writes: AtomicHistogram,
    /// `gin_commit_flush_duration_seconds`: how long each group commit took to be durable.
    pub flush_seconds: AtomicHistogram,
    /// `gin_watch_streams_open`: watch streams open now.
    pub watch_streams: Gauge,
    /// `gin_watch_streams_cut_total`: watchers cut off because their buffer was full (the
    /// reader too slow; it resumes).
    pub streams_cut: Counter,
    /// `gin_rate_limited_total`: calls refused by the per-caller rate limit.
    pub rate_limited: Counter,
    /// `gin_house_bot_think_duration_seconds`: a house bot's decision, on the blocking pool.
    pub house_think_seconds: AtomicHistogram,
    /// `gin_lease_moves_total`: moves of game ownership between servers; 0 on a single server.
    pub lease_moves: Counter,
    /// `gin_forwarded_calls_total`: calls this server sent on to the server of their game or
    /// tournament (or to the lobby's leader, quick match); 0 on a single server. Behind a
    /// proxy that routes by id, only calls about games that moved.
    pub forwarded_calls: Counter,
}

/// Latency buckets (seconds) for actions and flushes: 50 µs to 2.5 s.
const LATENCY_BUCKETS: [f64; 15] =
    [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5];
/// Think-time buckets (seconds): 100 µs to 10 s.
const THINK_BUCKETS: [f64; 12] = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 10.0];
/// Writes per batch: powers of two up to the writer's largest batch (8192, plus one request).
const BATCH_BUCKETS: [f64; 14] =
    [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0];

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics::new()
    }
}

impl Metrics {
    /// Every number at zero, registered under the `gin_` prefix.
    pub fn new() -> Metrics {
        let mut registry = Registry::with_prefix("gin");
        let by_format = Family::<[(&'static str, &'static str); 1], Gauge>::default();
        // Every kind listed from the start (at 0), and its gauge kept: no map lookup per game.
        let games_in_play = KINDS.map(|k| by_format.get_or_create(&[("format", k.name())]).clone());
        registry.register(
            "games_in_play",
            "Unfinished games in memory (open or under way), by format kind",
            by_format,
        );
        let m = Metrics {
            registry,
            games_in_play,
            actions: Counter::default(),
            action_seconds: AtomicHistogram::new(&LATENCY_BUCKETS),
            batch_writes: AtomicHistogram::new(&BATCH_BUCKETS),
            flush_seconds: AtomicHistogram::new(&LATENCY_BUCKETS),
            watch_streams: Gauge::default(),
            streams_cut: Counter::default(),
            rate_limited: Counter::default(),
            house_think_seconds: AtomicHistogram::new(&THINK_BUCKETS),
            lease_moves: Counter::default(),
            forwarded_calls: Counter::default(),
        };
        let mut registry = m.registry;
        registry.register("actions", "Actions applied (durable and published)", m.actions.clone());
        registry.register(
            "action_duration_seconds",
            "From an action reaching the commit to its acknowledgement after the durable write",
            m.action_seconds.clone(),
        );
        registry.register(
            "commit_batch_writes",
            "Writes per group commit of the store",
            m.batch_writes.clone(),
        );
        registry.register(
            "commit_flush_duration_seconds",
            "Time for a group commit to be durable (append, fdatasync, database commit)",
            m.flush_seconds.clone(),
        );
        registry.register("watch_streams_open", "Watch streams open", m.watch_streams.clone());
        registry.register(
            "watch_streams_cut",
            "Watch streams cut off because their reader fell too far behind",
            m.streams_cut.clone(),
        );
        registry.register(
            "rate_limited",
            "Calls refused by the per-caller rate limit",
            m.rate_limited.clone(),
        );
        registry.register(
            "house_bot_think_duration_seconds",
            "Time a house bot took to decide",
            m.house_think_seconds.clone(),
        );
        registry.register(
            "lease_moves",
            "Moves of game ownership between servers; 0 on a single server",
            m.lease_moves.clone(),
        );
        registry.register(
            "forwarded_calls",
            "Calls sent on to the server of their game or tournament (or the lobby's leader); 0 on a single server",
            m.forwarded_calls.clone(),
        );
        Metrics { registry, ..m }
    }

    /// The gauge of games in play of `kind`.
    pub fn games_in_play(&self, kind: engine::Kind) -> &Gauge {
        let i = KINDS.iter().position(|k| *k == kind).expect("every kind is listed");
        &self.games_in_play[i]
    }

    /// Every number in Prometheus' text format (version 0.0.4).
    pub fn encode(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)
            .expect("writing to a String does not fail");
        out
    }
}

impl crate::storage::CommitObserver for Metrics {
    fn committed(&self, writes: usize, took: Duration) {
        self.batch_writes.observe(writes as f64);
        self.flush_seconds.observe_duration(took);
    }
}

/// A histogram recorded with atomics only (one add in its bucket, one to the sum), its
/// buckets fixed at creation. Clones record into the same histogram. The sum is kept in
/// millionths of the unit (a microsecond for seconds), so it is an integer add.
#[derive(Clone, Debug)]
pub struct AtomicHistogram(std::sync::Arc<HistogramInner>);

#[derive(Debug)]
struct HistogramInner {
    /// Upper bounds, ascending.
    bounds: Box<[f64]>,
    /// One count per bound, and the last for the values above every bound (+Inf).
    counts: Box<[AtomicU64]>,
    /// Sum of the values, in millionths.
    sum_micros: AtomicU64,
}

impl AtomicHistogram {
    /// A histogram with these upper bounds (ascending), plus +Inf.
    pub fn new(bounds: &[f64]) -> AtomicHistogram {
        AtomicHistogram(std::sync::Arc::new(HistogramInner {
            bounds: bounds.into(),
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_micros: AtomicU64::new(0),
        }))
    }

    /// Records one value (non-negative).
    pub fn observe(&self, v: f64) {
        let h = &self.0;
        let i = h.bounds.partition_point(|b| *b < v);
        h.counts[i].fetch_add(1, Ordering::Relaxed);
        h.sum_micros.fetch_add((v.max(0.0) * 1e6) as u64, Ordering::Relaxed);
    }

    /// Records a duration, in seconds.
    pub fn observe_duration(&self, d: Duration) {
        self.observe(d.as_secs_f64());
    }

    /// How many values were recorded.
    pub fn count(&self) -> u64 {
        self.0.counts.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }
}

impl TypedMetric for AtomicHistogram {
    const TYPE: MetricType = MetricType::Histogram;
}

impl EncodeMetric for AtomicHistogram {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        let h = &self.0;
        // Read without a lock while others record: the count is the buckets' sum, so the two
        // agree; the sum may be a value ahead or behind, as with any scrape of a moving number.
        let mut buckets: Vec<(f64, u64)> =
            h.bounds.iter().zip(h.counts.iter()).map(|(b, c)| (*b, c.load(Ordering::Relaxed))).collect();
        let above = h.counts[h.bounds.len()].load(Ordering::Relaxed);
        buckets.push((f64::INFINITY, above));
        let count = buckets.iter().map(|(_, c)| c).sum();
        let sum = h.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        encoder.encode_histogram::<NoLabelSet>(sum, count, &buckets, None)
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_names_every_number_with_its_unit() {
        let m = Metrics::new();
        m.actions.inc();
        m.games_in_play(engine::Kind::Rummy).inc();
        m.action_seconds.observe(0.0003);
        m.action_seconds.observe(3.0);
        m.batch_writes.observe(1.0);
        let text = m.encode();
        for line in [
            "gin_actions_total 1",
            "gin_games_in_play{format=\"rummy\"} 1",
            "gin_games_in_play{format=\"gin\"} 0",
            "gin_action_duration_seconds_bucket{le=\"0.00025\"} 0",
            "gin_action_duration_seconds_bucket{le=\"0.0005\"} 1",
            "gin_action_duration_seconds_bucket{le=\"2.5\"} 1",
            "gin_action_duration_seconds_bucket{le=\"+Inf\"} 2",
            "gin_action_duration_seconds_sum 3.0003",
            "gin_action_duration_seconds_count 2",
            "gin_commit_batch_writes_bucket{le=\"1\"} 1",
            "gin_commit_flush_duration_seconds_count 0",
            "gin_watch_streams_open 0",
            "gin_watch_streams_cut_total 0",
            "gin_rate_limited_total 0",
            "gin_house_bot_think_duration_seconds_count 0",
            "gin_lease_moves_total 0",
            "gin_forwarded_calls_total 0",
        ] {
            assert!(text.lines().any(|l| l == line), "no line {line:?} in:\n{text}");
        }
        assert!(text.contains("# TYPE gin_action_duration_seconds histogram"), "{text}");
    }
}
