//! `kgeval serve CAMPAIGN.toml`: run an evaluation campaign as a service
//! ([`kgeval_server`]), or add a team to its database.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --add-team \"Team A\"
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --add-team organisers --organiser
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --listen 127.0.0.1:8080
  curl -H \"Authorization: Bearer $TOKEN\" --data-binary @answers.xml http://127.0.0.1:8080/api/tasks/qa-test/submissions

--add-team prints the team's token (one line on stdout, shown once: only its SHA-256 is
stored); an --organiser token also reads hidden leaderboards and every submission.
The campaign file is a `kgeval run` manifest whose tasks name no systems (each upload is one),
with a `primary` headline metric and optional `phases` per task, and a [serve] section:
[[serve.phase]] (name, from, until, feedback = items|summary|none, leaderboard =
public|hidden|\"after DATE\", counts = best|last, limit = { per_day, total }), [[serve.baseline]]
(task, name, file), max_upload (bytes) and time_limit (seconds). See docs/serve.md.";

/// Arguments of `kgeval serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The campaign file (TOML).
    campaign: PathBuf,
    /// The SQLite database (default: CAMPAIGN's stem + .sqlite beside it); the uploads' bytes
    /// go in DB.blobs beside it.
    #[arg(long)]
    db: Option<PathBuf>,
    /// The address to listen on; port 0 picks a free one (printed on stdout).
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Add a team with this name, print its token (one line on stdout) and exit.
    #[arg(long, value_name = "NAME")]
    add_team: Option<String>,
    /// With --add-team: the team is an organiser (sees hidden leaderboards and every
    /// submission).
    #[arg(long, requires = "add_team")]
    organiser: bool,
}

pub(crate) fn run(args: &ServeArgs) -> anyhow::Result<Outcome> {
    if let Some(name) = &args.add_team {
        let token = kgeval_server::add_team(&args.campaign, args.db.as_deref(), name, args.organiser)?;
        println!("{token}");
        return Ok(Outcome::Ok);
    }
    kgeval_server::serve(&args.campaign, args.db.as_deref(), args.listen, |bound| {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "listening on http://{bound}");
        let _ = stdout.flush();
    })?;
    Ok(Outcome::Ok)
}
