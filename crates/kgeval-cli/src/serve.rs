//! `kgeval serve CAMPAIGN.toml`: run an evaluation campaign as a service
//! ([`kgeval_server`]), add a team to its database, rescore its submissions or export the
//! report of those that count.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use crate::Outcome;

pub(crate) const EXAMPLES: &str = "\
Examples:
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --add-team \"Team A\"
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --add-team organisers --organiser
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --rotate-token \"Team A\"
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --listen 127.0.0.1:8080
  kgeval serve testdata/campaigns/serve-qald3.toml --db rehearsal.sqlite --now 2013-04-20T12:00:00Z
  curl -H \"Authorization: Bearer $TOKEN\" --data-binary @answers.xml http://127.0.0.1:8080/api/tasks/qa-test/submissions
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --export qald3-report
  kgeval serve testdata/campaigns/serve-qald3.toml --db qald3.sqlite --rescore > rescore.txt

--revoke-team NAME refuses a team's token from then on; --rotate-token NAME prints a new one.
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
    /// Revoke the token of the team named NAME (refused from now on, by a running server too;
    /// its submissions stay) and exit.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["add_team", "rotate_token", "rescore", "export"])]
    revoke_team: Option<String>,
    /// Give the team named NAME a new token, print it (one line, shown once) and exit: the
    /// old one is refused from now on; a revoked team is restored.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["add_team", "rescore", "export"])]
    rotate_token: Option<String>,
    /// Score every valid submission (failed ones included) that has no score under the
    /// current scorer and gold again (new rows, none updated or deleted, all in one
    /// transaction), print the diff (old and new primary value per team and baseline, the
    /// failed submissions now scored, Kendall's tau-b between the orderings) and exit.
    /// Restart a running server after it.
    #[arg(long, conflicts_with_all = ["add_team", "export"])]
    rescore: bool,
    /// Write the `kgeval run` report (results.json, report.md, tables.tex, index.html) of the
    /// submissions that count into DIR (new, empty or an earlier output) and exit.
    #[arg(long, value_name = "DIR", conflicts_with = "add_team")]
    export: Option<PathBuf>,
    /// With --export: the phase whose leaderboards to export (default: each task's phase open
    /// now, else its last one that started).
    #[arg(long, value_name = "NAME", requires = "export")]
    phase: Option<String>,
    /// With --export: decimals in report.md (default 4).
    #[arg(long, requires = "export", value_parser = kgeval_report::parse_precision)]
    precision: Option<usize>,
    /// Rehearse: the server's clock reads TIME (RFC 3339, `2013-04-20T12:00:00Z`, or a date)
    /// at start and runs on from there; phases, limits and dates follow it, every page and
    /// /api/health say `rehearsal`. Also for --export and --rescore.
    #[arg(long, value_name = "TIME", value_parser = parse_time, conflicts_with = "add_team")]
    now: Option<i64>,
    /// Run as one of the server's scoring workers (the server starts them itself).
    #[arg(long, hide = true, conflicts_with_all = ["add_team", "rescore", "export"])]
    worker: bool,
}

/// `--now`'s instant, in Unix seconds.
fn parse_time(text: &str) -> Result<i64, String> {
    kgeval_server::clock::parse(text).ok_or_else(|| {
        format!("found `{text}`, expected an RFC 3339 time (2013-04-20T12:00:00Z) or a date (2013-04-20)")
    })
}

/// How the server starts a scoring worker: this binary, `serve CAMPAIGN --worker`.
fn launch(campaign: &std::path::Path) -> anyhow::Result<kgeval_server::worker::Launch> {
    let program = std::env::current_exe().map_err(|e| anyhow::anyhow!("cannot find the kgeval binary: {e}"))?;
    let args = vec!["serve".into(), campaign.as_os_str().to_owned(), "--worker".into()];
    Ok(kgeval_server::worker::Launch { program, args })
}

pub(crate) fn run(args: &ServeArgs) -> anyhow::Result<Outcome> {
    let clock = args.now.map_or_else(kgeval_server::clock::Clock::system, kgeval_server::clock::Clock::starting_at);
    if args.worker {
        kgeval_server::worker::process::run(&args.campaign)?;
        return Ok(Outcome::Ok);
    }
    if let Some(name) = &args.add_team {
        let token = kgeval_server::add_team(&args.campaign, args.db.as_deref(), name, args.organiser)?;
        println!("{token}");
        return Ok(Outcome::Ok);
    }
    if let Some(name) = &args.revoke_team {
        kgeval_server::revoke_team(&args.campaign, args.db.as_deref(), name)?;
        eprintln!("revoked the token of team {name:?}");
        return Ok(Outcome::Ok);
    }
    if let Some(name) = &args.rotate_token {
        let token = kgeval_server::rotate_token(&args.campaign, args.db.as_deref(), name)?;
        println!("{token}");
        return Ok(Outcome::Ok);
    }
    if args.rescore {
        let diffs =
            kgeval_server::rescore::rescore(&args.campaign, args.db.as_deref(), launch(&args.campaign)?, clock)?;
        print!("{}", kgeval_server::rescore::render(&diffs));
        return Ok(Outcome::Ok);
    }
    if let Some(dir) = &args.export {
        let defaults = kgeval::RenderOptions::default();
        let options = kgeval::RenderOptions {
            precision: args.precision.unwrap_or(defaults.precision),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            ..defaults
        };
        let outcome = kgeval_server::export::export(
            &args.campaign,
            args.db.as_deref(),
            dir,
            &options,
            launch(&args.campaign)?,
            clock,
            args.phase.as_deref(),
        )?;
        for task in &outcome.tasks {
            if let Err(e) = &task.evaluation {
                eprintln!("error: task {}: {}", task.name, kgeval::campaign::one_line(e));
            }
        }
        println!("report: {}", dir.join("report.md").display());
        return Ok(Outcome::Ok);
    }
    kgeval_server::serve(
        &args.campaign,
        args.db.as_deref(),
        args.listen,
        launch(&args.campaign)?,
        clock,
        |bound, status| {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "listening on http://{bound}");
            let _ = writeln!(stdout, "{status}");
            let _ = stdout.flush();
        },
    )?;
    Ok(Outcome::Ok)
}
