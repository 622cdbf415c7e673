//! Where a campaign stands at an instant, in one line: the phase open and when it closes, the
//! phase that opens next, or that the campaign is over. The server prints it at start.

use super::Campaign;
use crate::clock;

impl Campaign {
    /// Where the campaign stands at `now` (Unix seconds), in one line.
    ///
    /// `phase training is open until 2013-05-01T00:00:00Z, 17 days left`, `no phase is open:
    /// phase test opens at …, in 3 hours`, or `the campaign is over: its last phase, test,
    /// closed at …`.
    #[must_use]
    pub fn status_at(&self, now: i64) -> String {
        if let Some(phase) = self.phase_at(now) {
            return format!(
                "phase {} is open until {}, {} left",
                phase.name,
                clock::format(phase.until),
                clock::span(phase.until - now)
            );
        }
        if let Some(next) = self.phases.iter().find(|p| p.from > now) {
            return format!(
                "no phase is open: phase {} opens at {}, in {}",
                next.name,
                clock::format(next.from),
                clock::span(next.from - now)
            );
        }
        match self.phases.last() {
            Some(last) => {
                format!("the campaign is over: its last phase, {}, closed at {}", last.name, clock::format(last.until))
            }
            None => "the campaign has no phase".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::Campaign;

    #[test]
    fn before_during_between_and_after() {
        let toml = "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"../trec_eval/test/qrels.test\"\nprimary = \"map\"\n\
            [[serve.phase]]\nname = \"training\"\nfrom = \"1970-01-02T00:00:00Z\"\nuntil = \"1970-01-05T00:00:00Z\"\n\
            [[serve.phase]]\nname = \"test\"\nfrom = \"1970-01-06T00:00:00Z\"\nuntil = \"1970-01-07T00:00:00Z\"\n";
        let campaign = Campaign::from_toml(toml, Path::new("../../testdata/campaigns/s.toml")).expect("a campaign");
        let day = 86_400;
        assert_eq!(campaign.status_at(0), "no phase is open: phase training opens at 1970-01-02T00:00:00Z, in 1 day");
        assert_eq!(
            campaign.status_at(day + 3_600),
            "phase training is open until 1970-01-05T00:00:00Z, 2 days 23 hours left"
        );
        assert_eq!(campaign.status_at(4 * day), "no phase is open: phase test opens at 1970-01-06T00:00:00Z, in 1 day");
        assert_eq!(campaign.status_at(5 * day), "phase test is open until 1970-01-07T00:00:00Z, 1 day left");
        assert_eq!(
            campaign.status_at(6 * day),
            "the campaign is over: its last phase, test, closed at 1970-01-07T00:00:00Z"
        );
    }
}
