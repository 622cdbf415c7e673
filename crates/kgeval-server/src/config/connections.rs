//! The `[serve]` keys that bound the server's connections: how long a request's head may
//! take, how slowly a body may arrive, how many connections are open at once (in all and per
//! client address). [`crate::listen`] applies them.

use std::time::Duration;

use kgeval::toml_doc::{ManifestTable, TomlManifest};

use super::{at, ServeRow};
use crate::Error;

/// The default time a client has to send a request's head, in seconds.
pub const DEFAULT_HEADER_TIMEOUT: f64 = 10.0;

/// The default slowest body, in bytes per second.
pub const DEFAULT_MIN_BODY_RATE: u64 = 1000;

/// The default window over which a body's rate is measured, in seconds.
pub const DEFAULT_BODY_RATE_WINDOW: f64 = 10.0;

/// The default number of connections open at once.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 512;

/// The default number of connections open at once from one client address.
pub const DEFAULT_MAX_CONNECTIONS_PER_CLIENT: u32 = 32;

/// The longest `header_timeout` or `body_rate_window`: a day.
const LONGEST: f64 = 86_400.0;

/// How the server holds its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connections {
    /// The time a client has to send a request's head, from the opening of the connection or
    /// the end of the previous answer on it (so also how long a kept-alive connection may
    /// stay idle).
    pub header_timeout: Duration,
    /// The fewest bytes a body must bring per second, measured over `body_rate_window`.
    pub min_body_rate: u64,
    /// The window: every `body_rate_window` while a body is read must bring
    /// `min_body_rate × body_rate_window` bytes (the first window is the grace a client has
    /// to start sending).
    pub body_rate_window: Duration,
    /// The connections open at once; one more is closed as soon as it is accepted.
    pub max_connections: usize,
    /// The connections open at once from one client address (an IPv4 address, an IPv6 /64).
    pub max_connections_per_client: usize,
}

impl Default for Connections {
    fn default() -> Connections {
        Connections {
            header_timeout: Duration::from_secs_f64(DEFAULT_HEADER_TIMEOUT),
            min_body_rate: DEFAULT_MIN_BODY_RATE,
            body_rate_window: Duration::from_secs_f64(DEFAULT_BODY_RATE_WINDOW),
            max_connections: DEFAULT_MAX_CONNECTIONS as usize,
            max_connections_per_client: DEFAULT_MAX_CONNECTIONS_PER_CLIENT as usize,
        }
    }
}

impl Connections {
    /// The bytes a body must bring in each window (at least one).
    #[must_use]
    pub fn bytes_per_window(&self) -> u64 {
        let bytes = self.body_rate_window.as_secs_f64() * self.min_body_rate as f64;
        // At most a day × u64::MAX / 86400: the cast saturates.
        (bytes.ceil() as u64).max(1)
    }
}

/// Reads the connection keys of `[serve]` (`row`, the table `serve`).
///
/// # Errors
/// [`Error::Campaign`] at the value: a duration that is not a positive number of seconds up
/// to a day, a zero rate or count, more connections per client than in all.
pub(super) fn read(m: &TomlManifest<'_>, serve: ManifestTable<'_>, row: &ServeRow) -> Result<Connections, Error> {
    let seconds = |key: &str, value: Option<f64>, default: f64| -> Result<Duration, Error> {
        let value = value.unwrap_or(default);
        if value.is_finite() && value > 0.0 && value <= LONGEST {
            Ok(Duration::from_secs_f64(value))
        } else {
            Err(at(m, serve, key, &format!("found {key} = {value}, expected a positive number of seconds up to a day")))
        }
    };
    let positive = |key: &str, value: Option<u32>, default: u32| -> Result<usize, Error> {
        match value.unwrap_or(default) {
            0 => Err(at(m, serve, key, &format!("found {key} = 0, expected a positive number"))),
            n => Ok(n as usize),
        }
    };
    let header_timeout = seconds("header_timeout", row.header_timeout, DEFAULT_HEADER_TIMEOUT)?;
    let body_rate_window = seconds("body_rate_window", row.body_rate_window, DEFAULT_BODY_RATE_WINDOW)?;
    let min_body_rate = row.min_body_rate.unwrap_or(DEFAULT_MIN_BODY_RATE);
    if min_body_rate == 0 {
        return Err(at(
            m,
            serve,
            "min_body_rate",
            "found min_body_rate = 0, expected a positive number of bytes a second",
        ));
    }
    let max_connections = positive("max_connections", row.max_connections, DEFAULT_MAX_CONNECTIONS)?;
    let max_connections_per_client = positive(
        "max_connections_per_client",
        row.max_connections_per_client,
        DEFAULT_MAX_CONNECTIONS_PER_CLIENT.min(u32::try_from(max_connections).unwrap_or(u32::MAX)),
    )?;
    if max_connections_per_client > max_connections {
        return Err(at(
            m,
            serve,
            "max_connections_per_client",
            &format!(
                "found max_connections_per_client = {max_connections_per_client} over max_connections = \
                 {max_connections}, expected at most max_connections"
            ),
        ));
    }
    Ok(Connections { header_timeout, min_body_rate, body_rate_window, max_connections, max_connections_per_client })
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use super::Connections;
    use crate::config::Campaign;

    const FILE: &str = "../../testdata/campaigns/s.toml";

    /// The campaign's connection limits with `keys` in `[serve]` (line 7 on), or its error.
    fn read(keys: &str) -> Result<Connections, String> {
        let text = format!(
            "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"../trec_eval/test/qrels.test\"\nprimary = \"map\"\n\
             [serve]\n{keys}\n[[serve.phase]]\nname = \"t\"\nfrom = \"2026-11-01T00:00:00Z\"\nuntil = \"2026-12-01T00:00:00Z\"\n"
        );
        Campaign::from_toml(&text, Path::new(FILE)).map(|c| c.connections).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_given_values() {
        let defaults = read("").expect("defaults");
        assert_eq!(defaults, Connections::default());
        assert_eq!(
            (
                defaults.header_timeout,
                defaults.min_body_rate,
                defaults.max_connections,
                defaults.max_connections_per_client
            ),
            (Duration::from_secs(10), 1000, 512, 32)
        );
        // 1000 bytes a second over 10 s: 10,000 bytes a window.
        assert_eq!(defaults.bytes_per_window(), 10_000);
        let given = read(
            "header_timeout = 2.5\nmin_body_rate = 300\nbody_rate_window = 1\nmax_connections = 8\n\
             max_connections_per_client = 2",
        )
        .expect("given");
        assert_eq!(
            given,
            Connections {
                header_timeout: Duration::from_millis(2500),
                min_body_rate: 300,
                body_rate_window: Duration::from_secs(1),
                max_connections: 8,
                max_connections_per_client: 2,
            }
        );
        assert_eq!(given.bytes_per_window(), 300);
        // A cap in all under the default per client lowers the default per client with it.
        assert_eq!(read("max_connections = 4").expect("given").max_connections_per_client, 4);
    }

    #[test]
    fn bad_values_are_located() {
        let error = |keys: &str| read(keys).expect_err("an error");
        let message = error("header_timeout = 0");
        assert!(
            message.starts_with(&format!("{FILE}:7:18: found header_timeout = 0, expected a positive")),
            "{message}"
        );
        let message = error("body_rate_window = 1e9");
        assert!(message.starts_with(&format!("{FILE}:7:20: found body_rate_window = 1000000000")), "{message}");
        let message = error("min_body_rate = 0");
        assert!(message.starts_with(&format!("{FILE}:7:17: found min_body_rate = 0")), "{message}");
        let message = error("max_connections = 0");
        assert!(message.starts_with(&format!("{FILE}:7:19: found max_connections = 0")), "{message}");
        let message = error("max_connections = 10\nmax_connections_per_client = 11");
        assert!(
            message.starts_with(&format!(
                "{FILE}:8:30: found max_connections_per_client = 11 over max_connections = 10, expected at most"
            )),
            "{message}"
        );
        let message = error("max_connections = -1");
        assert!(message.starts_with(&format!("{FILE}:7:19: ")), "{message}");
    }
}
