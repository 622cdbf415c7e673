//! The worker process (`kgeval serve CAMPAIGN --worker`, started by the server, never by a
//! person): it reads the campaign and every task's gold once, tells the server it is ready
//! (with each task's scorer version, or the error that stops the server's start), limits its
//! own address space to what it holds then plus the campaign's `memory_limit`, and scores one
//! upload per request from its standard input, answering on its standard output, until that
//! input ends. It exits by itself when the server is gone (its parent process changes), so a
//! runaway scoring never outlives the server, even one killed with `kill -9`.

use std::collections::HashMap;
use std::io::{BufReader, BufWriter};
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::time::{Duration, Instant};

use kgeval::campaign::{headlines, item_values, ServedTask};
use kgeval::Input;

use super::frame::{read_header, read_payload, write_header};
use super::{out_of_time, Outcome, Ready, Request, Stop};
use crate::app::{chain, scorer_version};
use crate::config::Campaign;
use crate::store::Score;
use crate::Error;

/// How often the worker checks that the server is still its parent.
const PARENT_CHECK: Duration = Duration::from_millis(100);

/// Runs a worker on the campaign file `campaign` until its standard input ends.
///
/// # Errors
/// Its standard output or input fails (the server is gone).
pub fn run(campaign: &Path) -> Result<(), Error> {
    exit_with_parent();
    let mut input = BufReader::with_capacity(1 << 16, std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    let io = |e: std::io::Error| Error::Io(format!("worker: {e}"));
    let prepared = Campaign::read(campaign).and_then(|config| prepare(&config).map(|scorers| (config, scorers)));
    let (config, (scorers, labels)) = match prepared {
        Ok(ready) => ready,
        Err(e) => {
            let error = Some(e.to_string());
            write_header(&mut output, &Ready { scorers: HashMap::new(), labels: HashMap::new(), error }).map_err(io)?;
            return Ok(());
        }
    };
    if let Err(e) = limit_memory(config.memory_limit) {
        let error = Some(format!("worker: cannot limit its memory: {e}"));
        write_header(&mut output, &Ready { scorers: HashMap::new(), labels: HashMap::new(), error }).map_err(io)?;
        return Ok(());
    }
    write_header(&mut output, &Ready { scorers: scorers.clone(), labels, error: None }).map_err(io)?;
    while let Some(request) = read_header::<Request>(&mut input).map_err(io)? {
        // The server is trusted: a baseline may be larger than an upload may be.
        let bytes = read_payload(&mut input, u64::MAX).map_err(io)?;
        let outcome = match config.served.task(&request.task) {
            Some(task) => {
                let scorer = scorers.get(&task.name).map_or("", String::as_str);
                // A panic is a bug of kgeval, not of the upload: reported as a failure (not
                // counted), the worker goes on with the next request.
                std::panic::catch_unwind(AssertUnwindSafe(|| {
                    score_upload(task, &request, bytes, scorer, config.time_limit)
                }))
                .unwrap_or_else(|_| Outcome::Failed {
                    message: "the scorer failed; the organisers have the log".to_owned(),
                })
            }
            None => Outcome::Failed { message: format!("found no task {:?} in the worker", request.task) },
        };
        write_header(&mut output, &outcome).map_err(io)?;
    }
    Ok(())
}

/// Reads every task's gold, checks its primary metric and computes its scorer version; with
/// each task's item labels.
fn prepare(config: &Campaign) -> Result<(HashMap<String, String>, super::Labels), Error> {
    // A gzip upload may not grow past 16 times the upload limit once decompressed.
    kgeval::set_decompressed_limit(config.max_upload.saturating_mul(16));
    let (mut scorers, mut labels) = (HashMap::new(), HashMap::new());
    for task in &config.served.tasks {
        task.read_gold().map_err(|e| Error::Campaign(format!("task {}: {}", task.name, chain(&e))))?;
        task.check_primary().map_err(|e| Error::Campaign(format!("task {}: {}", task.name, chain(&e))))?;
        scorers.insert(task.name.clone(), scorer_version(task)?);
        let task_labels =
            task.item_labels().map_err(|e| Error::Campaign(format!("task {}: {}", task.name, chain(&e))))?;
        if !task_labels.is_empty() {
            labels.insert(task.name.clone(), task_labels);
        }
    }
    // The threads a scoring runs on exist before the limit is set, so their stacks are part
    // of what the worker holds, not of what one scoring may take.
    let _ = rayon::current_num_threads();
    Ok((scorers, labels))
}

/// Limits the process's address space to what it maps now plus `bytes`: past it an
/// allocation fails and the worker aborts, which the server reports as `out of memory`.
fn limit_memory(bytes: u64) -> std::io::Result<()> {
    let statm = std::fs::read_to_string("/proc/self/statm")?;
    let pages: u64 = statm.split_whitespace().next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let mapped = pages.saturating_mul(rustix::param::page_size() as u64);
    let limit = mapped.saturating_add(bytes);
    rustix::process::setrlimit(
        rustix::process::Resource::As,
        rustix::process::Rlimit { current: Some(limit), maximum: Some(limit) },
    )
    .map_err(std::io::Error::from)
}

/// Exits the process as soon as its parent (the server) is gone: a thread checks the parent
/// process id, which changes when the parent exits (the worker is then adopted).
fn exit_with_parent() {
    let parent = std::os::unix::process::parent_id();
    let watch = std::thread::Builder::new().name("parent-watch".to_owned()).spawn(move || loop {
        std::thread::sleep(PARENT_CHECK);
        if std::os::unix::process::parent_id() != parent {
            std::process::exit(0);
        }
    });
    if let Err(e) = watch {
        tracing::error!("worker: cannot watch the server: {e}");
    }
}

/// Scores one upload of `task` as the request says, within `time_limit` seconds: scored, or
/// why not — the upload's own problem (invalid, with its located line, and whether the line
/// tells something of the gold), the scorer's (failed), or its time (stopped: a scoring that
/// ends past its deadline, or stops itself there as a QALD query does, counts as one the
/// server kills).
fn score_upload(
    task: &ServedTask,
    request: &Request,
    bytes: std::sync::Arc<[u8]>,
    scorer: &str,
    time_limit: f64,
) -> Outcome {
    let mut names = task.pair_names();
    names.push(request.name.clone());
    let deadline = Instant::now() + Duration::from_secs_f64(time_limit);
    let input = Input::from_bytes(request.name.clone(), bytes);
    let scored = task.score_until(&request.system, input, Some(deadline));
    // Past the deadline, whatever the scoring gave: it took longer than the limit allows.
    if Instant::now() >= deadline {
        return Outcome::Stopped { stop: Stop::Time, message: out_of_time(time_limit) };
    }
    let evaluation = match scored {
        Ok(evaluation) => evaluation,
        Err(e) => return refused(&e, &request.name, &names),
    };
    match score_of(task, &request.system, &evaluation, scorer) {
        Ok(score) => Outcome::Scored { score },
        // A primary metric the table lacks is the campaign's problem (its line names the
        // campaign file): logged for the organisers, a failure of the scorer for the team.
        Err(e) if request.organiser => Outcome::Failed { message: chain(&e) },
        Err(e) => {
            tracing::error!("task {}: {}", task.name, chain(&e));
            Outcome::Failed { message: "the scorer failed; the organisers have the log".to_owned() }
        }
    }
}

/// Why the facade refused an upload named `name`: the upload's own problem (invalid, with its
/// located line, and whether the line tells something of the gold) or the scorer's (failed).
fn refused(e: &kgeval::Error, name: &str, names: &[String]) -> Outcome {
    let line = chain(e);
    let concerns_gold = e.concerns_gold();
    // The upload's own problem names it or one of its parts (`upload:3:7: …`,
    // `brick-smartenv:3:7: …`, `run upload: …`) or is about how it fits the gold; anything
    // else (a gold file gone) is the server's.
    if let Some(located) = located(e, names) {
        Outcome::Invalid { message: located, concerns_gold }
    } else if line.contains(name) || concerns_gold || matches!(e, kgeval::Error::Invalid(_) | kgeval::Error::Unfit(_)) {
        Outcome::Invalid { message: line, concerns_gold }
    } else {
        tracing::error!("scoring failed: {line}");
        Outcome::Failed { message: "the scorer failed; the organisers have the log".to_owned() }
    }
}

/// The score of `system` in `evaluation` (of `task`, under scorer version `scorer`): its
/// primary value, every headline and every per-item value.
///
/// # Errors
/// The task's primary metric has no value in the table.
pub fn score_of(
    task: &ServedTask,
    system: &str,
    evaluation: &kgeval::Evaluation,
    scorer: &str,
) -> Result<Score, kgeval::Error> {
    let primary = task.primary_value(evaluation, system)?;
    let mut scores = serde_json::Map::new();
    for (metric, value) in headlines(evaluation, system) {
        scores.insert(metric, number(value));
    }
    let items: Vec<serde_json::Value> = item_values(evaluation, system)
        .into_iter()
        .map(|(item, metric, value)| serde_json::json!([item, metric, number(value)]))
        .collect();
    Ok(Score {
        scorer: scorer.to_owned(),
        metric: primary.metric,
        value: primary.value,
        higher_is_better: primary.higher_is_better,
        headlines: serde_json::Value::Object(scores).to_string(),
        items: serde_json::Value::Array(items).to_string(),
    })
}

/// A JSON number (a non-finite value, which no metric gives, as null).
fn number(value: f64) -> serde_json::Value {
    serde_json::Number::from_f64(value).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// The reader's own line when the error (or a cause) is one located in the upload or one of
/// its parts (`NAME:LINE:COL: …`, NAME one of `names`), without the context around it.
fn located(error: &(dyn std::error::Error + 'static), names: &[String]) -> Option<String> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        let text = e.to_string();
        if names.iter().any(|n| text.strip_prefix(n.as_str()).is_some_and(|rest| rest.starts_with(':'))) {
            return Some(text);
        }
        cause = e.source();
    }
    None
}
