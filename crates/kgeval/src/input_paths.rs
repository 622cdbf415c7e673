//! Every file a task reads, so a front end can refuse to write an output over one of them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use kgeval_formats::Input;

use crate::{align, compare, kgc, lexicon, pool, qald, rank, trec, SystemInput, Task};

/// Collects the paths of inputs (standard input and in-memory bytes have none), each once in
/// first-seen order; the set makes that linear (a list scan per path made a 5,000-run campaign
/// quadratic in path comparisons).
#[derive(Default)]
struct Paths(Vec<PathBuf>, HashSet<PathBuf>);

impl Paths {
    fn input(&mut self, input: &Input) -> &mut Self {
        if let Input::Path(path) = input {
            if self.1.insert(path.clone()) {
                self.0.push(path.clone());
            }
        }
        self
    }

    fn inputs<'a>(&mut self, inputs: impl IntoIterator<Item = &'a Input>) -> &mut Self {
        for input in inputs {
            self.input(input);
        }
        self
    }

    fn systems<'a>(&mut self, systems: impl IntoIterator<Item = &'a SystemInput>) -> &mut Self {
        self.inputs(systems.into_iter().map(|s| &s.input))
    }
}

/// The first of `paths` that is the same file as `output` (the same device and inode, so a
/// symbolic link, a hard link or another spelling of the path counts), if any.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// let gold = dir.path().join("gold.ttl");
/// std::fs::write(&gold, "")?;
/// let task = kgeval::lexicon::LexiconTask::new(kgeval::Input::path(&gold), "uris.txt");
/// let again = dir.path().join(".").join("gold.ttl");
/// assert_eq!(kgeval::same_file_as(&task.input_paths(), &again), Some(gold.as_path()));
/// assert_eq!(kgeval::same_file_as(&task.input_paths(), &dir.path().join("out.txt")), None);
/// # Ok::<(), std::io::Error>(())
/// ```
#[must_use]
pub fn same_file_as<'a>(paths: &'a [PathBuf], output: &Path) -> Option<&'a Path> {
    let out = std::fs::metadata(output).ok()?;
    paths.iter().map(PathBuf::as_path).find(|p| std::fs::metadata(p).is_ok_and(|m| same(&m, &out)))
}

#[cfg(unix)]
fn same(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.created().ok() == b.created().ok()
}

impl Task {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        match self {
            Task::Align(task) => task.input_paths(),
            Task::Kgc(task) => task.input_paths(),
            Task::Lexicon(task) => task.input_paths(),
            Task::Rank(task) => task.input_paths(),
            Task::Qald(task) => task.input_paths(),
            Task::Trec(task) => task.input_paths(),
        }
    }
}

impl align::AlignTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        for pair in &self.pairs {
            p.input(&pair.reference).inputs(&pair.secondary).inputs(&pair.exclusion);
            if let Some((o1, o2)) = &pair.ontologies {
                p.input(o1).input(o2);
            }
            p.systems(&pair.systems);
        }
        p.0
    }
}

impl kgc::KgcTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        p.input(&self.test).inputs(&self.filters).inputs(&self.entities).systems(&self.ranks);
        p.systems(&self.scores).inputs(&self.questions).systems(&self.run).inputs(&self.queries);
        p.inputs(&self.categories_from).inputs(&self.judgments).inputs(&self.pool_depths);
        p.0
    }
}

impl lexicon::LexiconTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        p.input(&self.gold).input(&self.uris).systems(&self.systems);
        p.0
    }
}

impl rank::RankTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        for pair in &self.pairs {
            p.inputs(&pair.pools).inputs(&pair.gold).input(&pair.submission);
        }
        p.0
    }
}

impl qald::QaldTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        p.input(&self.gold).systems(&self.systems).inputs(&self.data).inputs(&self.labels);
        p.0
    }
}

impl trec::TrecTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        p.input(&self.qrels).systems(&self.runs);
        p.0
    }
}

impl compare::CompareTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        p.systems(&self.inputs).inputs(&self.qrels).systems(&self.runs).systems(&self.against);
        p.inputs(&self.subsets).systems(&self.ranks).systems(&self.pvalues);
        if let Some(kgc) = &self.kgc {
            for path in kgc.input_paths() {
                p.input(&Input::Path(path));
            }
        }
        p.0
    }
}

impl pool::PoolTask {
    /// The paths of every file the task reads, in field order, each once.
    #[must_use]
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut p = Paths::default();
        p.systems(&self.runs).systems(&self.scores).inputs(&self.entities).inputs(&self.qrels);
        p.inputs(&self.queries).inputs(&self.test).inputs(&self.filters).inputs(&self.judgments);
        p.inputs(&self.pool_depths).inputs(&self.categories_from).inputs(&self.against);
        p.0
    }
}
