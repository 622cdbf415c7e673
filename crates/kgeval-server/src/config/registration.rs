//! The `[serve]` keys of self-registration: `registration = "closed"` (the default: the
//! organisers add every team with `--add-team`) or `"invite"`, where `/register` takes a team
//! name and the campaign's `invite_code` and shows the new team's token once.

use kgeval::toml_doc::{ManifestTable, TomlManifest};

use super::{at, ServeRow};
use crate::Error;

/// The shortest invite code a campaign may set: long enough that guessing it at the
/// registration's rate is hopeless.
pub const MIN_INVITE_CODE: usize = 12;

/// How teams join a campaign.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Registration {
    /// Only the organisers add teams (`--add-team`).
    #[default]
    Closed,
    /// Anyone with the invite code registers a team at `/register`.
    Invite {
        /// The code.
        code: String,
    },
}

/// `registration` and `invite_code`.
pub(super) fn read(m: &TomlManifest<'_>, serve: ManifestTable<'_>, row: &ServeRow) -> Result<Registration, Error> {
    match (row.registration.as_deref(), &row.invite_code) {
        (None | Some("closed"), None) => Ok(Registration::Closed),
        (None | Some("closed"), Some(_)) => Err(at(
            m,
            serve,
            "invite_code",
            "found an invite code with registration closed, expected registration = \"invite\" with it",
        )),
        (Some("invite"), Some(code)) if code.trim().chars().count() >= MIN_INVITE_CODE => {
            Ok(Registration::Invite { code: code.trim().to_owned() })
        }
        (Some("invite"), Some(_)) => Err(at(
            m,
            serve,
            "invite_code",
            &format!("found an invite code under {MIN_INVITE_CODE} characters, expected a longer one"),
        )),
        (Some("invite"), None) => Err(at(
            m,
            serve,
            "registration",
            "found registration = \"invite\" without invite_code, expected invite_code = \"…\" too",
        )),
        (Some(other), _) => Err(at(
            m,
            serve,
            "registration",
            &format!("found registration = {other:?}, expected \"closed\" or \"invite\""),
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::Registration;
    use crate::config::Campaign;

    fn read(serve: &str) -> Result<Campaign, crate::Error> {
        let toml = format!(
            "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"../trec_eval/test/qrels.test\"\nprimary = \"map\"\n\
             [serve]\n{serve}\n[[serve.phase]]\nname = \"t\"\nfrom = \"2026-11-01T00:00:00Z\"\nuntil = \"2026-12-01T00:00:00Z\"\n"
        );
        Campaign::from_toml(&toml, Path::new("../../testdata/campaigns/s.toml"))
    }

    #[test]
    fn closed_by_default_invite_with_a_long_code() {
        assert_eq!(read("").expect("a campaign").registration, Registration::Closed);
        let open = read("registration = \"invite\"\ninvite_code = \" let-me-in-please \"").expect("a campaign");
        assert_eq!(open.registration, Registration::Invite { code: "let-me-in-please".to_owned() });
        for (serve, line, message) in [
            ("registration = \"invite\"\ninvite_code = \"short\"", 8, "under 12 characters"),
            ("registration = \"invite\"", 7, "without invite_code"),
            ("invite_code = \"let-me-in-please\"", 7, "with registration closed"),
            ("registration = \"open\"", 7, "expected \"closed\" or \"invite\""),
        ] {
            let error = read(serve).expect_err(serve).to_string();
            assert!(error.contains(&format!("s.toml:{line}:")) && error.contains(message), "{serve}: {error}");
        }
    }
}
