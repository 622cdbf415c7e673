//! [`InternedRun`]: a run built in memory with each distinct document id stored once, for
//! front ends that convert millions of `(qid, docid, score)` entries (Python dicts, columns).

use std::sync::Arc;

use kgeval_model::trec::{RunDoc, RunSource};
use rustc_hash::FxHashMap;

/// A run held in memory whose document ids are interned: each distinct docno is stored once
/// and every entry is a `(docno id, score)` pair (16 bytes). Building it costs one hash lookup per entry
/// and one allocation per distinct docno, where [`kgeval_model::trec::Run`] allocates a
/// `String` per entry. Evaluate it with [`super::TrecTask::run_interned`], which also checks
/// what a run file cannot hold (a docno twice in a topic, a score that is not finite).
///
/// Topics keep the order of their first entry; documents keep input order within a topic
/// (their rank column is their 1-based position, as in [`kgeval_model::trec::Run`]).
///
/// ```
/// use kgeval::trec::InternedRun;
/// let mut run = InternedRun::with_capacity(1, 2);
/// let q1 = run.topic("q1");
/// run.push(q1, "d2", 2.0);
/// run.push(q1, "d1", 1.0);
/// assert_eq!((run.topic_len(), run.len(), run.distinct_docnos()), (1, 2, 2));
/// ```
#[derive(Debug, Clone, Default)]
pub struct InternedRun {
    run_id: String,
    /// Every distinct docno, by id.
    docnos: Vec<Arc<str>>,
    /// docno → id.
    ids: FxHashMap<Arc<str>, usize>,
    /// qid → topic slot.
    slots: FxHashMap<Box<str>, usize>,
    /// (qid, entries as (docno id, score)) in order of first appearance.
    topics: Vec<(Box<str>, Vec<Entry>)>,
    /// Entries pushed so far.
    entries: usize,
}

/// One run entry: (docno id, score).
type Entry = (usize, f64);

/// The slot of a topic in an [`InternedRun`], from [`InternedRun::topic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopicSlot(usize);

impl InternedRun {
    /// An empty run tagged `kgeval`, with room for `topics` topics and `docnos` distinct
    /// document ids.
    #[must_use]
    pub fn with_capacity(topics: usize, docnos: usize) -> Self {
        InternedRun {
            run_id: "kgeval".to_owned(),
            docnos: Vec::with_capacity(docnos),
            ids: FxHashMap::with_capacity_and_hasher(docnos, Default::default()),
            slots: FxHashMap::with_capacity_and_hasher(topics, Default::default()),
            topics: Vec::with_capacity(topics),
            entries: 0,
        }
    }

    /// Sets the run's id (its tag; `kgeval` until set).
    pub fn set_run_id(&mut self, run_id: String) {
        self.run_id = run_id;
    }

    /// The slot of topic `qid`, created (empty, after the others) on first use.
    pub fn topic(&mut self, qid: &str) -> TopicSlot {
        if let Some(&slot) = self.slots.get(qid) {
            return TopicSlot(slot);
        }
        let slot = self.topics.len();
        self.slots.insert(qid.into(), slot);
        self.topics.push((qid.into(), Vec::new()));
        TopicSlot(slot)
    }

    /// Makes room for `additional` more entries in topic `slot`.
    pub fn reserve(&mut self, slot: TopicSlot, additional: usize) {
        self.topics[slot.0].1.reserve(additional);
    }

    /// Appends `docno` with `score` to topic `slot`. Nothing is checked here: a repeated
    /// docno or a score that is not finite is reported by [`super::TrecTask::run_interned`].
    pub fn push(&mut self, slot: TopicSlot, docno: &str, score: f64) {
        let id = self.intern(docno);
        self.topics[slot.0].1.push((id, score));
        self.entries += 1;
    }

    /// The id of `docno`, stored on first use.
    fn intern(&mut self, docno: &str) -> usize {
        if let Some(&id) = self.ids.get(docno) {
            return id;
        }
        let id = self.docnos.len();
        let text: Arc<str> = docno.into();
        self.docnos.push(Arc::clone(&text));
        self.ids.insert(text, id);
        id
    }

    /// trec_eval's `-J` (pytrec_eval's `judged_docs_only_flag`): the run without the
    /// documents `qrels` does not judge in their topic (a topic without judgments keeps
    /// none), so every measure, `num_ret` included, counts judged documents only.
    #[must_use]
    pub fn judged_only(&self, qrels: &kgeval_model::trec::Qrels) -> InternedRun {
        let mut out = InternedRun::with_capacity(self.topics.len(), 0);
        out.run_id.clone_from(&self.run_id);
        for (qid, entries) in &self.topics {
            let slot = out.topic(qid);
            let Some(judged) = qrels.topic(qid) else { continue };
            for &(id, score) in entries {
                let docno = &self.docnos[id];
                if judged.get(docno).is_some() {
                    out.push(slot, docno, score);
                }
            }
        }
        out
    }

    /// Number of topics.
    #[must_use]
    pub fn topic_len(&self) -> usize {
        self.topics.len()
    }

    /// Number of entries (run lines).
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether the run has no entry.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Number of distinct document ids.
    #[must_use]
    pub fn distinct_docnos(&self) -> usize {
        self.docnos.len()
    }

    /// The first problem a run file could not have: `(qid, docno, what)` for a docno twice
    /// in one topic (`what` is `None`) or a score that is not finite (`Some(score)`).
    pub(crate) fn first_problem(&self) -> Option<(&str, &str, Option<f64>)> {
        // One stamp per docno id: the topic (+1) that last retrieved it.
        let mut stamp = vec![0_usize; self.docnos.len()];
        for (index, (qid, docs)) in self.topics.iter().enumerate() {
            for &(id, score) in docs {
                let docno = &*self.docnos[id];
                if !score.is_finite() {
                    return Some((qid, docno, Some(score)));
                }
                if stamp[id] == index + 1 {
                    return Some((qid, docno, None));
                }
                stamp[id] = index + 1;
            }
        }
        None
    }
}

impl RunSource for InternedRun {
    type Error = std::convert::Infallible;

    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn topic_count(&self) -> usize {
        self.topics.len()
    }

    fn topic_id(&self, index: usize) -> &str {
        &self.topics[index].0
    }

    fn topic_docs<'a>(&'a self, index: usize, out: &mut Vec<RunDoc<'a>>) -> Result<(), Self::Error> {
        out.clear();
        let docs = &self.topics[index].1;
        out.reserve(docs.len());
        out.extend(docs.iter().enumerate().map(|(position, &(id, score))| RunDoc {
            docno: &self.docnos[id],
            score,
            rank: position as i64 + 1,
            position: position as u64,
        }));
        Ok(())
    }
}
