//! Scoring in worker processes, where a runaway cannot reach the server.
//!
//! Everything a team controls is scored in a process of kgeval's own, started by the server
//! (`kgeval serve CAMPAIGN --worker`, [`process`]): as many as the campaign's `workers`, each
//! holding every task's gold parsed once, talking to the server over its standard input and
//! output ([`frame`]). A worker limits its own address space (the campaign's `memory_limit`
//! past what it holds after reading the gold), so an upload that needs more makes it abort;
//! the server kills a worker whose scoring outlives the campaign's `time_limit`. Either way
//! the upload is recorded `failed` with the reason ([`Stop`]), the worker is replaced (in the
//! background: the replacement reads the gold again) and every other request is answered
//! meanwhile; a stopped upload counts against the team's limits, so a team cannot repeat a
//! runaway for free. A replacement must report the scorer versions the server started with:
//! a gold file changed on disk since then stops it from scoring (and is logged) rather than
//! scoring under another gold. Workers exit with the server, however it ends.

pub mod frame;
pub mod process;

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::os::fd::AsFd as _;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt as _, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::mpsc;

use crate::store::Score;
use crate::Error;

/// How a worker process is started: the program and its arguments (the `kgeval` binary with
/// `serve CAMPAIGN --worker`).
#[derive(Debug, Clone)]
pub struct Launch {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
}

/// One upload to score: the task, the system's name and the name the upload has in error
/// lines (`upload`, or a baseline's file).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// The task.
    pub task: String,
    /// The system's name.
    pub system: String,
    /// The upload's name in error lines.
    pub name: String,
    /// Whether the organisers sent it (a baseline): a failure of theirs is said whole.
    #[serde(default)]
    pub organiser: bool,
}

/// A worker's first answer: each task's scorer version, or why it cannot score.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ready {
    /// Each task's scorer version, as the worker computed it from the gold it read.
    pub scorers: HashMap<String, String>,
    /// Each task's item labels (a QALD question's text by its id), from the gold.
    #[serde(default)]
    pub labels: HashMap<String, Vec<(String, String)>>,
    /// Why the worker cannot score (a gold that cannot be read, a primary metric the task has
    /// no headline of).
    pub error: Option<String>,
}

/// What scoring one upload gave.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Scored.
    Scored {
        /// The score.
        score: Score,
    },
    /// Malformed or not fitting the task: the reader's line.
    Invalid {
        /// One line for the team.
        message: String,
        /// Whether the line tells something of the gold's content (an id it lacks, items the
        /// upload leaves out): a phase without feedback shows a generic line instead.
        #[serde(default)]
        concerns_gold: bool,
    },
    /// The scorer failed (kgeval's problem, not the upload's).
    Failed {
        /// One line for the team.
        message: String,
    },
    /// Stopped for what it cost: counted against the team's limits.
    Stopped {
        /// Why.
        stop: Stop,
        /// One line for the team.
        message: String,
    },
}

/// Why a scoring was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// It outlived the time limit: its worker was killed.
    Time,
    /// It needed more than the memory limit: its worker aborted.
    Memory,
    /// Its worker died otherwise (a signal, a stack overflow).
    Crash,
}

impl Stop {
    /// The name stored in the database (`time`, `memory`, `crash`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Stop::Time => "time",
            Stop::Memory => "memory",
            Stop::Crash => "crash",
        }
    }
}

/// The line of an upload stopped at the time limit of `seconds`.
#[must_use]
pub fn out_of_time(seconds: f64) -> String {
    format!("out of time: scoring took longer than {seconds} s, the campaign's time limit; the upload counts against the limits")
}

/// What a team sees of an invalid upload's line whose content concerns the gold in a phase
/// without feedback: nothing of the gold.
pub const UNFIT_FOR_BLIND_PHASE: &str =
    "found an upload that does not fit this task's gold (in this phase the details are the organisers')";

/// Each task's item labels: `(item, text)` (a QALD question's text by its id).
pub type Labels = HashMap<String, Vec<(String, String)>>;

/// The last lines a worker wrote on its standard error (logged as they come).
type Tail = Arc<Mutex<VecDeque<String>>>;

/// How long past the time limit a worker may take to answer before it is killed: a scoring
/// that stops itself at its deadline (a QALD query) answers within it.
const KILL_GRACE: Duration = Duration::from_secs(1);

/// How long a scoring runs at the worker's normal CPU priority; past it the worker yields
/// the CPU to every other process (niceness 19) until the scoring ends.
const YIELD_AFTER: Duration = Duration::from_millis(500);

/// The niceness of a worker whose scoring runs past [`YIELD_AFTER`].
const LOWEST_PRIORITY: i32 = 19;

/// Sets the niceness of process `pid` (best effort: without the privilege to raise a
/// priority again, a worker keeps the lower one, which only makes it yield to the others).
fn set_priority(pid: Option<u32>, niceness: i32) {
    let Some(pid) = pid.and_then(|p| i32::try_from(p).ok()).and_then(rustix::process::Pid::from_raw) else { return };
    if let Err(e) = rustix::process::setpriority_process(Some(pid), niceness) {
        tracing::debug!("scoring worker {pid:?}: cannot set its niceness to {niceness}: {e}");
    }
}

/// The size asked for a worker's pipes: Linux's default `pipe-max-size`, 1 MiB.
const PIPE_SIZE: usize = 1 << 20;

/// How many of a worker's last standard-error lines are kept to tell why it died.
const TAIL_LINES: usize = 16;

/// A running worker process and its pipes.
struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    tail: Tail,
    /// The task logging its standard error: done once the worker is gone.
    logging: tokio::task::JoinHandle<()>,
}

impl Worker {
    /// Starts a worker and waits for it to be ready with the scorer versions `expected`.
    async fn start(launch: &Launch, expected: &HashMap<String, String>) -> Result<(Worker, Labels), Error> {
        let mut child = tokio::process::Command::new(&launch.program)
            .args(&launch.args)
            // Few malloc arenas: their reserved address space would count against the limit.
            .env("MALLOC_ARENA_MAX", "2")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::Io(format!("cannot start a scoring worker ({}): {e}", launch.program.display())))?;
        let (Some(stdin), Some(mut stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Error::Io("a scoring worker has no pipes".to_owned()));
        };
        // Large pipes: a 5 MB upload crosses in a few writes rather than 80 of 64 KiB, each a
        // wake-up of both processes (best effort: the system's `pipe-max-size` may be lower).
        for fd in [stdin.as_fd(), stdout.as_fd()] {
            let _ = rustix::pipe::fcntl_setpipe_size(fd, PIPE_SIZE);
        }
        let tail: Tail = Arc::default();
        let pid = child.id().unwrap_or_default();
        let kept = Arc::clone(&tail);
        let logging = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::warn!("scoring worker {pid}: {line}");
                let mut tail = kept.lock().unwrap_or_else(PoisonError::into_inner);
                if tail.len() == TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        let ready: Ready = match frame::receive(&mut stdout).await {
            Ok(ready) => ready,
            Err(e) => {
                let status = child.wait().await.map_or_else(|e| e.to_string(), |s| s.to_string());
                let said = tail.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned().collect::<Vec<_>>();
                return Err(Error::Io(format!(
                    "a scoring worker stopped before it was ready ({e}; {status}): {}",
                    said.join(" / ")
                )));
            }
        };
        if let Some(error) = ready.error {
            return Err(Error::Campaign(error));
        }
        for (task, version) in expected {
            let found = ready.scorers.get(task).map_or("none", String::as_str);
            if found != version {
                return Err(Error::Campaign(format!(
                    "task {task}: a scoring worker read its gold as scorer {found}, expected {version}: the gold \
                     changed since the server started; restart the server"
                )));
            }
        }
        Ok((Worker { child, stdin, stdout, tail, logging }, ready.labels))
    }

    /// Sends one request and reads its outcome.
    async fn exchange(&mut self, request: &Request, bytes: &[u8]) -> std::io::Result<Outcome> {
        frame::send_request(&mut self.stdin, request, bytes).await?;
        frame::receive(&mut self.stdout).await
    }

    /// The last lines the worker wrote on its standard error.
    fn said(&self) -> String {
        self.tail.lock().unwrap_or_else(PoisonError::into_inner).iter().cloned().collect::<Vec<_>>().join(" / ")
    }
}

/// The scoring workers of a server (or of `--rescore`, `--export`).
pub struct Workers {
    /// Each task's item labels, as the workers read them from the gold.
    pub labels: Labels,
    launch: Launch,
    expected: HashMap<String, String>,
    memory_limit: u64,
    idle: mpsc::UnboundedSender<Worker>,
    waiting: tokio::sync::Mutex<mpsc::UnboundedReceiver<Worker>>,
}

impl Workers {
    /// Starts `count` workers (at once) and waits until each is ready with the scorer
    /// versions `expected`.
    ///
    /// # Errors
    /// A worker cannot start, or reports an error (the first one: a gold that cannot be read,
    /// a primary metric the task has no headline of, a gold that changed).
    pub async fn start(
        launch: Launch,
        count: usize,
        memory_limit: u64,
        expected: HashMap<String, String>,
    ) -> Result<Arc<Workers>, Error> {
        let (idle, waiting) = mpsc::unbounded_channel();
        let mut starting = tokio::task::JoinSet::new();
        for _ in 0..count.max(1) {
            let (launch, expected) = (launch.clone(), expected.clone());
            starting.spawn(async move { Worker::start(&launch, &expected).await });
        }
        let mut labels = Labels::new();
        while let Some(started) = starting.join_next().await {
            let (worker, read) = started.map_err(|e| Error::Io(format!("a worker's start stopped: {e}")))??;
            labels = read;
            let _ = idle.send(worker);
        }
        let waiting = tokio::sync::Mutex::new(waiting);
        Ok(Arc::new(Workers { labels, launch, expected, memory_limit, idle, waiting }))
    }

    /// Scores `bytes` as `request` says on the first idle worker, waiting at most `limit` for
    /// its answer (the wait for a free worker is not counted).
    pub async fn score(self: &Arc<Self>, request: &Request, bytes: &[u8], limit: Duration) -> Outcome {
        let worker = self.waiting.lock().await.recv().await;
        let Some(mut worker) = worker else {
            return Outcome::Failed { message: "the scoring workers are gone".to_owned() };
        };
        // A scoring past `YIELD_AFTER` is likely a runaway: its worker runs at the lowest CPU
        // priority from then on, so the other workers' quick uploads are not slowed by it.
        let pid = worker.child.id();
        let exchange = async {
            let exchange = worker.exchange(request, bytes);
            tokio::pin!(exchange);
            tokio::select! {
                answer = &mut exchange => return answer,
                () = tokio::time::sleep(YIELD_AFTER) => set_priority(pid, LOWEST_PRIORITY),
            }
            let answer = exchange.await;
            set_priority(pid, 0);
            answer
        };
        // A grace past the limit: a scoring that stops itself at its deadline answers first.
        match tokio::time::timeout(limit + KILL_GRACE, exchange).await {
            Ok(Ok(outcome)) => {
                let _ = self.idle.send(worker);
                outcome
            }
            Ok(Err(_)) => {
                // Its pipe broke or it answered garbage: it is killed if still alive, then judged.
                let _ = worker.child.start_kill();
                let status = worker.child.wait().await;
                // Its last words (an allocation that failed) are read before they are judged.
                let _ = tokio::time::timeout(Duration::from_secs(2), &mut worker.logging).await;
                let outcome = self.died(&status, &worker.said());
                self.replace();
                outcome
            }
            Err(_) => {
                let _ = worker.child.start_kill();
                let _ = worker.child.wait().await;
                self.replace();
                Outcome::Stopped { stop: Stop::Time, message: out_of_time(limit.as_secs_f64()) }
            }
        }
    }

    /// What the death of a worker while it scored means for the upload.
    fn died(&self, status: &std::io::Result<ExitStatus>, said: &str) -> Outcome {
        tracing::warn!(
            "a scoring worker died while scoring ({}): {said}",
            status.as_ref().map_or_else(ToString::to_string, ToString::to_string)
        );
        if said.contains("memory allocation of") {
            Outcome::Stopped {
                stop: Stop::Memory,
                message: format!(
                    "out of memory: scoring needed more than {} bytes, the campaign's memory limit; the upload \
                     counts against the limits",
                    self.memory_limit
                ),
            }
        } else {
            Outcome::Stopped {
                stop: Stop::Crash,
                message: "the scorer stopped on this upload (it crashed its worker); the upload counts against \
                          the limits"
                    .to_owned(),
            }
        }
    }

    /// Starts a worker in the background in place of one that died, trying again (every few
    /// seconds, then every minute) while it cannot start.
    fn replace(self: &Arc<Self>) {
        let workers = Arc::clone(self);
        tokio::spawn(async move {
            let mut wait = Duration::from_secs(1);
            loop {
                match Worker::start(&workers.launch, &workers.expected).await {
                    Ok((worker, _)) => {
                        let _ = workers.idle.send(worker);
                        return;
                    }
                    Err(e) => {
                        tracing::error!("cannot start a scoring worker: {e}; trying again in {} s", wait.as_secs());
                        tokio::time::sleep(wait).await;
                        wait = (wait * 2).min(Duration::from_secs(60));
                    }
                }
            }
        });
    }
}
