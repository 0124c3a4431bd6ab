//! Slowing down guessing and mass registration: failed sign-ins per key (a name's key, known
//! or not, and an address) and registrations per address, both in memory (a restart forgets
//! them, as it forgets the gate's rate limits).
//!
//! - **Failures**: after [`FAILURES_ALLOWED`] failures within [`WINDOW`], each further try of
//!   the key is refused until a delay has passed: 1 s after the 5th failure, doubling with
//!   each further one, at most [`MAX_DELAY`]. A success forgets the name's failures.
//! - **Registrations**: at most `per_hour` per address in any hour (a sliding window).

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;

/// Failures a key may have in [`WINDOW`] before its tries are slowed down.
pub const FAILURES_ALLOWED: u32 = 5;
/// The window failures are counted in.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// The longest delay between two tries of a key.
pub const MAX_DELAY: Duration = Duration::from_secs(5 * 60);

/// One key's failures.
#[derive(Clone, Copy, Debug)]
struct Failures {
    /// How many in the window.
    count: u32,
    /// The first one of the window.
    first: Instant,
    /// No try before this.
    until: Instant,
}

/// Failed tries per key `K`.
#[derive(Debug)]
pub struct FailureCounter<K> {
    keys: HashMap<K, Failures>,
    /// Failures a key may have before it is slowed down.
    allowed: u32,
}

impl<K: std::hash::Hash + Eq + Clone> FailureCounter<K> {
    /// A counter slowing a key down after `allowed` failures in [`WINDOW`].
    pub fn new(allowed: u32) -> FailureCounter<K> {
        FailureCounter { keys: HashMap::new(), allowed }
    }

    /// `Err(milliseconds to wait)` when `key` may not try now.
    pub fn check(&mut self, key: &K, now: Instant) -> Result<(), u64> {
        let Some(f) = self.keys.get(key) else { return Ok(()) };
        if now.duration_since(f.first) > WINDOW && now >= f.until {
            self.keys.remove(key);
            return Ok(());
        }
        if f.count >= self.allowed && now < f.until {
            return Err(f.until.duration_since(now).as_millis() as u64 + 1);
        }
        Ok(())
    }

    /// Counts a failure of `key`.
    pub fn fail(&mut self, key: K, now: Instant) {
        let allowed = self.allowed;
        let f = self.keys.entry(key).or_insert(Failures { count: 0, first: now, until: now });
        if now.duration_since(f.first) > WINDOW && now >= f.until {
            *f = Failures { count: 0, first: now, until: now };
        }
        f.count += 1;
        if f.count >= allowed {
            let doublings = (f.count - allowed).min(16);
            f.until = now + Duration::from_secs(1 << doublings).min(MAX_DELAY);
        }
    }

    /// Forgets `key`'s failures (a success).
    pub fn forget(&mut self, key: &K) {
        self.keys.remove(key);
    }

    /// Drops the keys whose window and delay are over (the same as none).
    pub fn prune(&mut self, now: Instant) {
        self.keys.retain(|_, f| now.duration_since(f.first) <= WINDOW || now < f.until);
    }
}

/// Registrations per address `K` in the last hour.
#[derive(Debug)]
pub struct HourlyLimit<K> {
    keys: HashMap<K, VecDeque<Instant>>,
    per_hour: u32,
}

impl<K: std::hash::Hash + Eq + Clone> HourlyLimit<K> {
    /// At most `per_hour` per key in any hour; 0: no limit.
    pub fn new(per_hour: u32) -> HourlyLimit<K> {
        HourlyLimit { keys: HashMap::new(), per_hour }
    }

    /// Takes one for `key`, or `Err(milliseconds until one is free)`.
    pub fn take(&mut self, key: K, now: Instant) -> Result<(), u64> {
        if self.per_hour == 0 {
            return Ok(());
        }
        let hour = Duration::from_secs(3600);
        let times = self.keys.entry(key).or_default();
        while times.front().is_some_and(|t| now.duration_since(*t) >= hour) {
            times.pop_front();
        }
        if times.len() >= self.per_hour as usize {
            let oldest = *times.front().expect("not empty");
            return Err((oldest + hour).duration_since(now).as_millis() as u64 + 1);
        }
        times.push_back(now);
        Ok(())
    }

    /// Gives back the one `key` took last (the registration it was for failed).
    pub fn give_back(&mut self, key: &K) {
        if let Some(times) = self.keys.get_mut(key) {
            times.pop_back();
        }
    }

    /// Drops the keys with nothing in the last hour.
    pub fn prune(&mut self, now: Instant) {
        let hour = Duration::from_secs(3600);
        self.keys.retain(|_, t| t.back().is_some_and(|t| now.duration_since(*t) < hour));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn failures_slow_a_key_down_doubling_and_a_success_resets_it() {
        let mut c = FailureCounter::new(5);
        let now = Instant::now();
        for _ in 0..4 {
            c.fail("a", now);
            assert!(c.check(&"a", now).is_ok());
        }
        c.fail("a", now);
        assert_eq!(c.check(&"a", now), Err(1001));
        assert!(c.check(&"b", now).is_ok());
        let later = now + Duration::from_secs(1);
        assert!(c.check(&"a", later).is_ok());
        c.fail("a", later);
        assert_eq!(c.check(&"a", later), Err(2001));
        for _ in 0..20 {
            c.fail("a", later);
        }
        assert_eq!(c.check(&"a", later), Err(MAX_DELAY.as_millis() as u64 + 1));
        c.forget(&"a");
        assert!(c.check(&"a", later).is_ok());
    }

    #[tokio::test(start_paused = true)]
    async fn registrations_per_hour() {
        let mut l = HourlyLimit::new(2);
        let now = Instant::now();
        l.take(1, now).unwrap();
        l.take(1, now).unwrap();
        assert_eq!(l.take(1, now), Err(3_600_001));
        l.take(2, now).unwrap();
        l.take(1, now + Duration::from_secs(3600)).unwrap();
        assert!(HourlyLimit::new(0).take(1, now).is_ok());
    }
}
