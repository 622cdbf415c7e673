//! `kgeval`: one binary, one subcommand per evaluation family.

mod align;
mod compare;
mod kgc;
mod lexicon;
mod output;
mod pool;
mod progress;
mod qald;
mod rank;
mod run;
mod serve;
mod shell;
mod trec;

use std::io::IsTerminal as _;
use std::process::ExitCode;

use clap::{CommandFactory as _, Parser, Subcommand};

// Help text is never re-wrapped (`term_width = 0`): examples stay one command per line
// whatever clap features the build unifies (divan's `wrap_help` in a workspace build).
/// Scores the outputs of knowledge-graph systems exactly as the reference tools do.
#[derive(Debug, Parser)]
#[command(name = "kgeval", version, propagate_version = true, term_width = 0)]
struct Cli {
    /// More logs on stderr (-v: info, -vv: debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// The most bytes one input may hold once decompressed (gzip) or read from standard input:
    /// a number with an optional K, M or G (powers of 1024). Default: 4G.
    #[arg(long, value_name = "BYTES", global = true, value_parser = parse_size)]
    max_decompressed: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Score OAEI-style alignments against (partial) references (MELT, Alignment API, DISO, …).
    #[command(after_help = align::EXAMPLES)]
    Align(Box<align::AlignArgs>),
    /// Score local rankings with NIL abstention (DISO Task 2, Bio-ML, DeepOnto, OntoAligner, Bio-LLM).
    #[command(after_help = rank::EXAMPLES)]
    Rank(Box<rank::RankArgs>),
    /// Score a lemon / OntoLex lexicon against a gold lexicon per class and property (QALD-3 Task 2).
    #[command(after_help = lexicon::EXAMPLES)]
    Lexicon(Box<lexicon::LexiconArgs>),
    /// Score question answering over linked data (every QALD dialect; QALD-3, QALD-6 and GERBIL rules).
    #[command(after_help = qald::EXAMPLES)]
    Qald(Box<qald::QaldArgs>),
    /// Score knowledge-graph completion: micro and macro metrics, every tie policy, ranks, runs or dense scores.
    #[command(after_help = kgc::EXAMPLES)]
    Kgc(Box<kgc::KgcArgs>),
    /// Evaluate TREC runs against qrels with trec_eval's measures and output (ranx and
    /// ir_measures names accepted).
    #[command(after_help = trec::EXAMPLES)]
    Trec(Box<trec::TrecArgs>),
    /// Does system A really beat system B? Paired significance tests with corrections, marks and tiers over any family's per-item scores; ranking agreement (Kendall tau, tau_AP, RBO) of two result sets.
    #[command(after_help = compare::EXAMPLES)]
    Compare(Box<compare::CompareArgs>),
    /// Pool runs TREC-style, ingest the judgments and evaluate a depth series (the KGC-sparsity study, §3).
    #[command(after_help = pool::EXAMPLES)]
    Pool(Box<pool::PoolArgs>),
    /// Run a whole evaluation campaign from one manifest (tasks of any family, meta-evaluations) into a report directory: results.json, report.md, one CSV per task.
    #[command(after_help = run::EXAMPLES)]
    Run(Box<run::RunArgs>),
    /// Run an evaluation campaign as a service: teams upload over HTTP, each upload scored at once, phases, limits and leaderboards.
    #[command(after_help = serve::EXAMPLES)]
    Serve(Box<serve::ServeArgs>),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) on stdout.
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff) on stdout: `kgeval man > kgeval.1`, `kgeval man run > kgeval-run.1`.
    Man(shell::ManArgs),
}

/// `--max-decompressed`: bytes, with an optional K, M or G suffix (powers of 1024).
fn parse_size(text: &str) -> Result<u64, String> {
    let (digits, shift) = match text.char_indices().last() {
        Some((i, 'K' | 'k')) => (&text[..i], 10),
        Some((i, 'M' | 'm')) => (&text[..i], 20),
        Some((i, 'G' | 'g')) => (&text[..i], 30),
        _ => (text, 0),
    };
    digits.parse::<u64>().ok().and_then(|n| n.checked_mul(1 << shift)).filter(|&n| n > 0).ok_or_else(|| {
        format!(
            "found {:?}, expected a positive size such as 1000, 512M or 4G",
            text.chars().take(40).collect::<String>()
        )
    })
}

/// What a run ended with, beyond errors.
pub(crate) enum Outcome {
    /// Everything passed.
    Ok,
    /// A `--fail-under` gate was not met (exit 1).
    GateFailed,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    init_tracing(cli.verbose);
    if let Some(limit) = cli.max_decompressed {
        kgeval::set_decompressed_limit(limit);
    }
    // The server handles Ctrl-C and SIGTERM itself (it writes no temporary output file).
    if !matches!(cli.command, Command::Serve(_)) {
        output::remove_temp_files_on_signal();
    }
    let result = match cli.command {
        Command::Align(args) => align::run(&args),
        Command::Rank(args) => rank::run(&args),
        Command::Lexicon(args) => lexicon::run(&args),
        Command::Qald(args) => qald::run(&args),
        Command::Kgc(args) => kgc::run(&args),
        Command::Trec(args) => trec::run(&args),
        Command::Pool(args) => pool::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Completions(args) => shell::completions(&args, Cli::command()),
        Command::Man(args) => shell::man(&args, Cli::command()),
    };
    match result {
        Ok(Outcome::Ok) => ExitCode::SUCCESS,
        Ok(Outcome::GateFailed) => ExitCode::from(1),
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line (`context: cause`), without repeating a cause whose
/// text the previous message already contains.
fn one_line(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text.replace('\n', " "));
    }
    out
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().filter_map(|c| c.downcast_ref::<std::io::Error>()).any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

fn init_tracing(verbose: u8) {
    let level = match verbose {
        0 => tracing::Level::WARN,
        1 => tracing::Level::INFO,
        _ => tracing::Level::DEBUG,
    };
    let _ = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}
