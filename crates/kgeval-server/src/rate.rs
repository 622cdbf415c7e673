//! The per-team request rate limit: a token bucket per team, `N` requests at once and then one
//! every `60 / N` seconds (`[serve] requests_per_minute = N`). Every request with a valid
//! token takes one; a team over its rate gets `429` with `Retry-After`, before anything else
//! is done (an upload's body is not scored or stored). Buckets live in memory: a restart
//! refills them.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// The buckets of every team.
#[derive(Debug)]
pub struct RateLimit {
    per_minute: f64,
    buckets: Mutex<HashMap<i64, (f64, Instant)>>,
}

impl RateLimit {
    /// A limit of `per_minute` requests a minute per team.
    #[must_use]
    pub fn new(per_minute: u32) -> RateLimit {
        RateLimit { per_minute: f64::from(per_minute.max(1)), buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one request of `team` at `now`: `Ok`, or `Err(seconds)` until the next one is
    /// allowed (at least 1).
    ///
    /// # Errors
    /// The team is over its rate.
    pub fn take(&self, team: i64, now: Instant) -> Result<(), u64> {
        let mut buckets = self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let (tokens, at) = buckets.entry(team).or_insert((self.per_minute, now));
        let refill = now.saturating_duration_since(*at).as_secs_f64() * self.per_minute / 60.0;
        *tokens = (*tokens + refill).min(self.per_minute);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - *tokens) * 60.0 / self.per_minute;
            // At most a minute: the cast cannot overflow.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Err((wait.ceil() as u64).max(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::RateLimit;

    #[test]
    fn a_burst_then_one_every_interval_per_team() {
        let limit = RateLimit::new(3);
        let start = Instant::now();
        for _ in 0..3 {
            assert_eq!(limit.take(1, start), Ok(()));
        }
        // The fourth waits for a token: 20 s at 3 a minute.
        assert_eq!(limit.take(1, start), Err(20));
        assert_eq!(limit.take(2, start), Ok(()), "another team has its own bucket");
        assert_eq!(limit.take(1, start + Duration::from_secs(10)), Err(10));
        assert_eq!(limit.take(1, start + Duration::from_secs(20)), Ok(()));
        assert_eq!(limit.take(1, start + Duration::from_secs(20)), Err(20));
        // A long pause refills to the burst, not beyond.
        let later = start + Duration::from_secs(3600);
        for _ in 0..3 {
            assert_eq!(limit.take(1, later), Ok(()));
        }
        assert!(limit.take(1, later).is_err());
    }
}
