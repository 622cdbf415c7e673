//! UTC instants as Unix seconds: the server's [`Clock`] (the system's, or a rehearsal's that
//! starts at a given instant), RFC 3339 parsing (`2026-11-01T00:00:00Z`, an offset `+02:00`,
//! fractions of a second dropped), formatting, spans of time in words, and the UTC day a limit
//! counts in.

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds in a day.
pub const DAY: i64 = 86_400;

/// Now, in Unix seconds.
#[must_use]
pub fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The clock a server reads: the system's, or in a rehearsal (`kgeval serve --now TIME`) the
/// system's shifted so that it read TIME when the server started, running on from there.
/// Everything that depends on the time (open phases, limits, leaderboards shown after a date,
/// the times stored) reads it; nothing else differs in a rehearsal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Clock {
    /// A rehearsal's start (what it read at start) and the seconds it adds to the system's
    /// time; `None` for the system's clock.
    rehearsal: Option<(i64, i64)>,
}

impl Clock {
    /// The system's clock.
    #[must_use]
    pub fn system() -> Clock {
        Clock { rehearsal: None }
    }

    /// A rehearsal's clock, reading `at` (Unix seconds) now.
    ///
    /// ```
    /// let clock = kgeval_server::clock::Clock::starting_at(86_400);
    /// assert_eq!(clock.started_at(), Some(86_400));
    /// assert!((86_400..86_500).contains(&clock.now()));
    /// ```
    #[must_use]
    pub fn starting_at(at: i64) -> Clock {
        Clock { rehearsal: Some((at, at.saturating_sub(now()))) }
    }

    /// The time it reads, in Unix seconds.
    #[must_use]
    pub fn now(&self) -> i64 {
        now().saturating_add(self.rehearsal.map_or(0, |(_, offset)| offset))
    }

    /// Whether this is a rehearsal's clock.
    #[must_use]
    pub fn is_rehearsal(&self) -> bool {
        self.rehearsal.is_some()
    }

    /// What a rehearsal's clock read at start; `None` for the system's clock.
    #[must_use]
    pub fn started_at(&self) -> Option<i64> {
        self.rehearsal.map(|(start, _)| start)
    }
}

/// A span of `seconds` in words, in its two largest units, the second rounded: `3 days 4
/// hours`, `1 hour 5 minutes`, `40 seconds` (`0 seconds` for none or a negative span).
///
/// ```
/// use kgeval_server::clock::span;
/// assert_eq!(span(3 * 86_400 + 4 * 3_600 + 59), "3 days 4 hours");
/// assert_eq!(span(10 * 86_400 + 11 * 3_600 + 59 * 60), "10 days 12 hours");
/// assert_eq!(span(3_600 + 60), "1 hour 1 minute");
/// assert_eq!(span(86_400 - 20), "1 day");
/// assert_eq!(span(-5), "0 seconds");
/// ```
#[must_use]
pub fn span(seconds: i64) -> String {
    const UNITS: [(i64, &str); 4] = [(DAY, "day"), (3_600, "hour"), (60, "minute"), (1, "second")];
    let first = |seconds: i64| UNITS.iter().position(|&(size, _)| seconds >= size);
    let Some(at) = first(seconds.max(0)) else {
        return "0 seconds".to_owned();
    };
    // Rounded to the second unit shown (which may carry into the first).
    let step = UNITS[(at + 1).min(UNITS.len() - 1)].0;
    let rounded = (seconds + step / 2) / step * step;
    let Some(first) = first(rounded) else {
        return "0 seconds".to_owned();
    };
    let mut words = Vec::new();
    let mut rest = rounded;
    for &(size, unit) in &UNITS[first..UNITS.len().min(first + 2)] {
        let count = rest / size;
        rest %= size;
        if count > 0 {
            words.push(format!("{count} {unit}{}", if count == 1 { "" } else { "s" }));
        }
    }
    words.join(" ")
}

/// The start of the UTC day holding `at` (Unix seconds).
#[must_use]
pub fn day_start(at: i64) -> i64 {
    at.div_euclid(DAY) * DAY
}

/// Parses an RFC 3339 date-time with a `Z` or `±HH:MM` offset, or a date alone (its UTC
/// midnight).
///
/// ```
/// assert_eq!(kgeval_server::clock::parse("1970-01-02T00:00:00Z"), Some(86_400));
/// assert_eq!(kgeval_server::clock::parse("1970-01-01T02:00:00+02:00"), Some(0));
/// assert_eq!(kgeval_server::clock::parse("2026-12-01"), kgeval_server::clock::parse("2026-12-01T00:00:00Z"));
/// assert_eq!(kgeval_server::clock::parse("2026-13-01T00:00:00Z"), None);
/// ```
#[must_use]
pub fn parse(text: &str) -> Option<i64> {
    let text = text.trim();
    let (date, time) = match text.split_once(['T', 't', ' ']) {
        Some((date, time)) => (date, Some(time)),
        None => (text, None),
    };
    let mut parts = date.splitn(3, '-');
    let year: i64 = digits(parts.next()?, 4)?;
    let month: i64 = digits(parts.next()?, 2)?;
    let day: i64 = digits(parts.next()?, 2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let mut seconds = days_from_civil(year, month, day) * DAY;
    let Some(time) = time else { return Some(seconds) };
    let (clock, offset) = if let Some(clock) = time.strip_suffix(['Z', 'z']) {
        (clock, 0)
    } else {
        let at = time.rfind(['+', '-'])?;
        let (clock, offset) = time.split_at(at);
        let sign = if offset.starts_with('-') { -1 } else { 1 };
        let (hours, minutes) = offset[1..].split_once(':')?;
        let (hours, minutes): (i64, i64) = (digits(hours, 2)?, digits(minutes, 2)?);
        if hours > 23 || minutes > 59 {
            return None;
        }
        (clock, sign * (hours * 3600 + minutes * 60))
    };
    let clock = clock.split_once('.').map_or(clock, |(whole, fraction)| {
        if fraction.chars().all(|c| c.is_ascii_digit()) && !fraction.is_empty() {
            whole
        } else {
            "invalid"
        }
    });
    let mut fields = clock.splitn(3, ':');
    let hour: i64 = digits(fields.next()?, 2)?;
    let minute: i64 = digits(fields.next()?, 2)?;
    let second: i64 = digits(fields.next()?, 2)?;
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    seconds += hour * 3600 + minute * 60 + second - offset;
    Some(seconds)
}

/// `at` as `YYYY-MM-DDTHH:MM:SSZ`.
///
/// ```
/// assert_eq!(kgeval_server::clock::format(86_400 + 61), "1970-01-02T00:01:01Z");
/// ```
#[must_use]
pub fn format(at: i64) -> String {
    let (days, rest) = (at.div_euclid(DAY), at.rem_euclid(DAY));
    let (year, month, day) = civil_from_days(days);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// Exactly `width` ASCII digits.
fn digits(text: &str, width: usize) -> Option<i64> {
    (text.len() == width && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok()).flatten()
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::{day_start, format, parse, DAY};

    #[test]
    fn round_trips_and_days() {
        for at in [0, 951_782_400, 1_795_996_800, 4_102_444_799, -86_401] {
            assert_eq!(parse(&format(at)), Some(at), "{}", format(at));
        }
        assert_eq!(parse("2000-02-29T12:00:00Z"), Some(951_825_600));
        assert_eq!(parse("2001-02-29T12:00:00Z"), None);
        assert_eq!(parse("2026-11-01T00:00:00.250Z"), parse("2026-11-01T00:00:00Z"));
        assert_eq!(parse("2026-11-01T00:00:00"), None);
        assert_eq!(parse("soon"), None);
        assert_eq!(day_start(DAY + 5), DAY);
        assert_eq!(day_start(-1), -DAY);
    }
}
