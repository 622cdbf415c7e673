//! Reading a track's alignments once, scoring every system over the pairs it has, and the
//! envelope: conventions, scoped warnings, headlines, labels.

use kgeval_formats::align::{read_alignment, read_alignment_file, AlignmentFormat, ReadAlignment, ReadOptions};
use kgeval_formats::ontology::read_entity_types;
use kgeval_formats::Input;
use kgeval_metrics::align::{baseline_string_matcher, conventions, evaluate_track, AlignmentOptions, PairInput};
use kgeval_model::align::{Aggregate, AlignConventions, ResidualCoverage, TrackEvaluation};
use kgeval_model::metric_names::{metric_info, Aggregation};
use kgeval_model::{Alignment, Diagnostic, EntityTypes, Interner};
use rustc_hash::FxHashSet;

use super::memory::{alignment_of, AlignmentSource, MemoryPair};
use super::{AlignResult, AlignTask};
use crate::evaluation::canonical_table;
use crate::{system_names, Conventions, Error, Evaluation, Family, FamilyResult, Progress, ResultExt as _, Warning};

/// A pair's gold alignments (and ontologies), read once, shared by every system of the pair.
#[derive(Debug, Clone)]
pub(super) struct GoldPair {
    pub(super) name: String,
    reference: Alignment,
    secondary: Option<Alignment>,
    exclusion: Option<Alignment>,
    ontologies: Option<(EntityTypes, EntityTypes)>,
    /// The baseline of residual recall: given, or MELT's string matcher over the ontologies.
    baseline: Option<Alignment>,
    warnings: Vec<Diagnostic>,
}

/// A pair's gold and its systems' alignments (name, cells, reader warnings).
struct LoadedPair<'a> {
    gold: &'a GoldPair,
    systems: Vec<(String, Alignment, Vec<Diagnostic>)>,
}

impl AlignTask {
    /// The scoring options this task asks for (the profile's defaults, then the task's
    /// choices).
    #[must_use]
    pub fn options(&self) -> AlignmentOptions {
        let mut options = AlignmentOptions::for_profile(self.profile);
        if let Some(mode) = self.completeness {
            options.mode = mode;
        }
        options.threshold = self.threshold;
        options.beta = self.beta;
        options.collect_labels = self.collect_labels;
        options.threshold_curve = self.best_threshold;
        options.macro_harmonic_f1 = self.macro_harmonic;
        options.expected_pairs = self.expected_pairs;
        options
    }

    /// Reads every pair's alignments (and ontologies) and scores every system.
    ///
    /// # Errors
    /// An input that cannot be read or is malformed; no pair, a pair name given twice, a pair
    /// without systems, two systems of a pair with one name, more than one input read from standard input, or a
    /// threshold that is not a finite number.
    pub fn run(&self, progress: &dyn Progress) -> Result<Evaluation, Error> {
        let pairs: Vec<MemoryPair> = self.pairs.iter().map(MemoryPair::from).collect();
        self.run_pairs(&pairs, progress)
    }

    /// [`AlignTask::run`] on `pairs` instead of the task's own (which are not read): each
    /// alignment a file or cells in memory (OntoAligner's lists of `{"source", "target",
    /// "score"}`), scored with this task's options. Cells read as a file's rows do: relation
    /// `=` and confidence 1.0 when absent, a repeated cell counted as a duplicate; their
    /// `line` is their 1-based position in the list.
    ///
    /// ```
    /// use kgeval::align::{AlignTask, AlignmentProfile, AlignmentSource, MemoryCell, MemoryPair};
    /// let reference = AlignmentSource::cells("reference", vec![
    ///     MemoryCell::new("http://a/1", "http://b/1", None),
    ///     MemoryCell::new("http://a/2", "http://b/2", None),
    /// ]);
    /// let system = AlignmentSource::cells("matcher", vec![
    ///     MemoryCell::new("http://a/1", "http://b/1", Some(0.9)),
    ///     MemoryCell::new("http://a/2", "http://b/3", Some(0.4)),
    /// ]);
    /// let pair = MemoryPair::new("test", reference).system(None, system);
    /// let evaluation = AlignTask::new(Vec::new()).profile(AlignmentProfile::Melt).run_in_memory(&[pair], &kgeval::NoProgress)?;
    /// assert_eq!(evaluation.systems, ["matcher"]);
    /// assert_eq!(evaluation.headline("matcher", "precision"), Some(0.5));
    /// # Ok::<(), kgeval::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`AlignTask::run`]; and a cell with an empty entity, an unknown relation or a
    /// confidence that is not finite, naming it (`system AML[3]: …`).
    pub fn run_in_memory(&self, pairs: &[MemoryPair], progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.run_pairs(pairs, progress)
    }

    /// How alignments are read.
    pub(super) fn read_options(&self) -> ReadOptions {
        ReadOptions {
            format: self.input_format,
            repair_xml: self.repair_xml,
            skip_edoal: self.skip_edoal,
            melt_relations: self.melt_relations,
            ..ReadOptions::default()
        }
    }

    fn run_pairs(&self, pairs: &[MemoryPair], progress: &dyn Progress) -> Result<Evaluation, Error> {
        self.check(pairs)?;
        let read_options = self.read_options();
        let mut interner = Interner::new();
        progress.start("alignments read", pairs.iter().map(|p| p.systems.len() as u64 + 1).sum());
        // Each pair's gold, then its systems (term ids in that order).
        let mut golds = Vec::with_capacity(pairs.len());
        let mut systems = Vec::with_capacity(pairs.len());
        for pair in pairs {
            let gold = load_gold(pair, &read_options, &mut interner)?;
            systems.push(load_systems(pair, &gold.reference, &read_options, &mut interner)?);
            golds.push(gold);
            progress.advance(pair.systems.len() as u64 + 1);
        }
        progress.finish();
        let evaluation = self.evaluate_loaded(&golds, systems, interner)?;
        if golds.iter().map(|g| g.reference.len()).sum::<usize>() >= SIDE_BY_SIDE {
            rayon::spawn(move || drop(golds));
        }
        Ok(evaluation)
    }

    /// [`AlignTask::run_pairs`] for pairs whose gold was read into `interner` already
    /// ([`super::AlignGold`]): only the systems are read, into a copy of it.
    pub(super) fn run_pairs_with_gold(
        &self,
        pairs: &[MemoryPair],
        golds: &[GoldPair],
        interner: &Interner,
        progress: &dyn Progress,
    ) -> Result<Evaluation, Error> {
        self.check(pairs)?;
        if pairs.len() != golds.len() || pairs.iter().zip(golds).any(|(p, g)| p.name != g.name) {
            return Err(Error::invalid(format!(
                "found pairs {}, expected those the gold was read for: {}",
                pairs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
                golds.iter().map(|g| g.name.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
        let read_options = self.read_options();
        let mut interner = interner.clone();
        progress.start("alignments read", pairs.iter().map(|p| p.systems.len() as u64).sum());
        let mut systems = Vec::with_capacity(pairs.len());
        for (pair, gold) in pairs.iter().zip(golds) {
            systems.push(load_systems(pair, &gold.reference, &read_options, &mut interner)?);
            progress.advance(pair.systems.len() as u64);
        }
        progress.finish();
        self.evaluate_loaded(golds, systems, interner)
    }

    /// Scores every pair's systems against its gold.
    fn evaluate_loaded(
        &self,
        golds: &[GoldPair],
        systems: Vec<Vec<(String, Alignment, Vec<Diagnostic>)>>,
        interner: Interner,
    ) -> Result<Evaluation, Error> {
        let options = self.options();
        let loaded: Vec<LoadedPair<'_>> =
            golds.iter().zip(systems).map(|(gold, systems)| LoadedPair { gold, systems }).collect();
        let mut tracks = score(&loaded, &options, &interner);
        for track in &mut tracks {
            fill_headlines(track);
        }
        // The gold's reader warnings once per pair, scoped "gold"; a system's own warnings
        // that repeat them (the same file given as gold and system) are not printed again.
        let mut warnings: Vec<Warning> = loaded
            .iter()
            .flat_map(|p| {
                let scope = format!("gold, pair {}", p.gold.name);
                p.gold.warnings.iter().map(move |d| Warning { scope: scope.clone(), diagnostic: d.clone() })
            })
            .collect();
        for t in &tracks {
            for p in &t.pairs {
                let gold = loaded.iter().find(|l| l.gold.name == p.name).map_or(&[][..], |l| &l.gold.warnings[..]);
                let scope = format!("system {}, pair {}", t.system, p.name);
                warnings.extend(
                    p.warnings
                        .iter()
                        .filter(|d| !gold.contains(d))
                        .map(|d| Warning { scope: scope.clone(), diagnostic: d.clone() }),
                );
            }
        }
        let table = canonical_table(tracks.iter().map(|t| &t.score_table))?;
        let labels_tsv = self.collect_labels.then(|| kgeval_report::render_labels_tsv(&tracks, &interner));
        let residual = ResidualCoverage::of(loaded.iter().filter(|p| p.gold.baseline.is_some()).count(), loaded.len());
        // Freeing a large input (the interner, the alignments: ~15 ms on 1M cells) is left to
        // a worker, so that the result is rendered meanwhile.
        if loaded.iter().flat_map(|p| &p.systems).map(|(_, a, _)| a.len()).sum::<usize>() >= SIDE_BY_SIDE {
            let systems: Vec<_> = loaded.into_iter().map(|p| p.systems).collect();
            rayon::spawn(move || drop((systems, interner)));
        }
        Ok(Evaluation {
            family: Family::Align,
            systems: tracks.iter().map(|t| t.system.clone()).collect(),
            conventions: Conventions::Align(AlignConventions { residual, ..conventions(&options) }),
            warnings,
            table,
            result: FamilyResult::Align(AlignResult { tracks, labels_tsv }),
        })
    }

    fn check(&self, pairs: &[MemoryPair]) -> Result<(), Error> {
        if pairs.is_empty() {
            return Err(Error::invalid("align: expected at least one pair (a reference and its systems)"));
        }
        if let Some(t) = self.threshold.filter(|t| !t.is_finite()) {
            return Err(Error::invalid(format!("threshold: expected a finite number, found {t}")));
        }
        let mut stdin = 0;
        let mut seen = std::collections::HashSet::with_capacity(pairs.len());
        for pair in pairs {
            crate::inputs::check_name("pair", &pair.name)?;
            if !seen.insert(pair.name.as_str()) {
                return Err(Error::invalid(format!(
                    "pair {:?} given twice, expected unique pair names (it would be counted twice)",
                    pair.name
                )));
            }
            if pair.systems.is_empty() {
                return Err(Error::invalid(format!("pair {:?}: expected at least one system", pair.name)));
            }
            stdin += pair.inputs().filter(|i| **i == Input::Stdin).count();
        }
        if stdin > 1 {
            return Err(Error::invalid(format!(
                "found {stdin} inputs read from standard input (-), expected at most one"
            )));
        }
        Ok(())
    }
}

fn read(
    source: &AlignmentSource,
    role: &str,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<ReadAlignment, Error> {
    let input = match source {
        AlignmentSource::Input(input) => input,
        AlignmentSource::Cells { name, cells } => {
            let (alignment, warnings) = alignment_of(name, cells, interner)?;
            return Ok(ReadAlignment { alignment, format: options.format.unwrap_or(AlignmentFormat::Tsv), warnings });
        }
    };
    tracing::info!(input = %input, role, "reading alignment");
    match input {
        // A path keeps the SSSOM sibling-metadata lookup.
        Input::Path(path) => read_alignment_file(path, options, interner),
        other => other.open().and_then(|opened| read_alignment(opened.bytes(), opened.name(), options, interner)),
    }
    .with_context(|| format!("reading {role}"))
}

fn read_types(input: &Input, role: &str, interner: &mut Interner) -> Result<EntityTypes, Error> {
    let opened = input.open().with_context(|| format!("reading {role}"))?;
    read_entity_types(opened.bytes(), opened.name(), interner).with_context(|| format!("reading {role}"))
}

/// Reads a pair's reference, secondary reference, exclusion, ontologies and baseline.
pub(super) fn load_gold(pair: &MemoryPair, options: &ReadOptions, interner: &mut Interner) -> Result<GoldPair, Error> {
    let mut warnings = Vec::new();
    let mut take = |read: ReadAlignment| {
        warnings.extend(read.warnings);
        read.alignment
    };
    let reference = take(read(&pair.reference, "reference", options, interner)?);
    if reference.is_empty() {
        let place = match &pair.reference {
            AlignmentSource::Input(input) => format!("{input}:1:1:"),
            AlignmentSource::Cells { name, .. } => format!("{name}: an empty list:"),
        };
        return Err(Error::invalid(format!(
            "{place} found no correspondence in the reference of pair {:?}, expected at least one (an empty reference scores every system 0)",
            pair.name
        )));
    }
    let secondary = match &pair.secondary {
        Some(input) => Some(take(read(input, "secondary reference", options, interner)?)),
        None => None,
    };
    let exclusion = match &pair.exclusion {
        Some(input) => Some(take(read(input, "exclusion", options, interner)?)),
        None => None,
    };
    let ontologies = match &pair.ontologies {
        Some((o1, o2)) => Some((read_types(o1, "onto1", interner)?, read_types(o2, "onto2", interner)?)),
        None => None,
    };
    let baseline = match (&pair.baseline, &ontologies) {
        (Some(input), _) => Some(take(read(input, "baseline", options, interner)?)),
        (None, Some((o1, o2))) => Some(baseline_string_matcher(o1, o2, interner)),
        (None, None) => None,
    };
    Ok(GoldPair { name: pair.name.clone(), reference, secondary, exclusion, ontologies, baseline, warnings })
}

/// Reads a pair's systems (named as the pair names them), each checked against `reference`.
fn load_systems(
    pair: &MemoryPair,
    reference: &Alignment,
    options: &ReadOptions,
    interner: &mut Interner,
) -> Result<Vec<(String, Alignment, Vec<Diagnostic>)>, Error> {
    let names = system_names(&pair.system_inputs()).with_context(|| format!("pair {}", pair.name))?;
    let mut systems = Vec::with_capacity(pair.systems.len());
    for (system, name) in pair.systems.iter().zip(names) {
        let mut read = read(&system.alignment, "system", options, interner)?;
        read.warnings.extend(shares_no_entity(reference, &read.alignment, interner));
        let name = match &pair.track {
            Some(track) => format!("{track}:{name}"),
            None => name,
        };
        systems.push((name, read.alignment, read.warnings));
    }
    Ok(systems)
}

/// References with at least this many cells have their two entity sets built side by side;
/// inputs with at least this many system cells are freed on a worker.
const SIDE_BY_SIDE: usize = 1 << 15;

/// A `coverage-no-shared-entity` warning when no cell of a non-empty `system` has its source
/// or target entity among the reference's, nor even an IRI namespace (up to the last `#` or
/// `/`) on the same side: an alignment of another test case. (A few wrong cells between the
/// right ontologies share a namespace and are not flagged.)
fn shares_no_entity(reference: &Alignment, system: &Alignment, interner: &Interner) -> Option<Diagnostic> {
    if system.is_empty() {
        return None;
    }
    // Entities first (ids, cheap to hash; almost every system shares one with its first
    // cells), namespaces (strings) only when no entity is shared.
    let sources = || reference.iter().map(|c| c.entity1).collect::<FxHashSet<_>>();
    let targets = || reference.iter().map(|c| c.entity2).collect::<FxHashSet<_>>();
    let (sources, targets) =
        if reference.len() >= SIDE_BY_SIDE { rayon::join(sources, targets) } else { (sources(), targets()) };
    if system.iter().any(|c| sources.contains(&c.entity1) || targets.contains(&c.entity2)) {
        return None;
    }
    let namespace = |id| {
        let iri = interner.resolve(id);
        iri.rfind(['#', '/']).map_or(iri, |i| &iri[..=i])
    };
    let source_ns: FxHashSet<_> = sources.iter().map(|&e| namespace(e)).collect();
    let target_ns: FxHashSet<_> = targets.iter().map(|&e| namespace(e)).collect();
    let shared =
        system.iter().any(|c| source_ns.contains(namespace(c.entity1)) || target_ns.contains(namespace(c.entity2)));
    (!shared).then(|| {
        Diagnostic::warning(
            "coverage-no-shared-entity",
            format!(
                "none of the system's {} cells shares an entity or a namespace with the reference's {} (an alignment of another test case?)",
                system.len(),
                reference.len()
            ),
        )
    })
}

/// One [`TrackEvaluation`] per system name, over the pairs that system has, in first-seen order.
fn score(pairs: &[LoadedPair<'_>], options: &AlignmentOptions, interner: &Interner) -> Vec<TrackEvaluation> {
    let mut names: Vec<&str> = Vec::new();
    for pair in pairs {
        for (name, _, _) in &pair.systems {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    names
        .into_iter()
        .map(|system| {
            let mut reader_warnings: Vec<Vec<Diagnostic>> = Vec::new();
            let inputs: Vec<PairInput<'_>> = pairs
                .iter()
                .filter_map(|pair| {
                    let (_, alignment, warnings) = pair.systems.iter().find(|(n, _, _)| n == system)?;
                    let gold = pair.gold;
                    // The same file read as gold and as a system gives the same warnings: kept once.
                    let own = warnings.iter().filter(|d| !gold.warnings.contains(d));
                    reader_warnings.push(gold.warnings.iter().chain(own).cloned().collect());
                    Some(PairInput {
                        name: &gold.name,
                        reference: &gold.reference,
                        secondary: gold.secondary.as_ref(),
                        system: alignment,
                        exclusion: gold.exclusion.as_ref(),
                        onto1: gold.ontologies.as_ref().map(|(o1, _)| o1),
                        onto2: gold.ontologies.as_ref().map(|(_, o2)| o2),
                        baseline: gold.baseline.as_ref(),
                    })
                })
                .collect();
            let mut track = evaluate_track(&inputs, options, interner, system);
            // Reader warnings first, then the scoring's own, pair by pair (same order as inputs).
            for (pair, mut found) in track.pairs.iter_mut().zip(reader_warnings) {
                found.append(&mut pair.warnings);
                pair.warnings = found;
            }
            track
        })
        .collect()
}

/// The headlines: micro P/R/F of the primary references as `precision`, `recall`, `f1`
/// (micro from counts), macro ones as `macro_precision`, `macro_recall`, `macro_f1`
/// (aggregate-only), and the same with a `secondary_` prefix when a secondary reference was
/// scored.
fn fill_headlines(track: &mut TrackEvaluation) {
    let table = &mut track.score_table;
    let system = table.system(&track.system);
    let aggregates: [(&str, Option<&Aggregate>); 2] =
        [("", Some(&track.primary)), ("secondary_", track.secondary.as_ref())];
    for (prefix, aggregate) in aggregates {
        let Some(aggregate) = aggregate else { continue };
        let (micro, macro_) = (aggregate.micro.scores, aggregate.macro_.scores);
        for (name, value) in [("precision", micro.precision), ("recall", micro.recall), ("f1", micro.f_measure)] {
            let name = format!("{prefix}{name}");
            let info = metric_info(&name).with_aggregation(Aggregation::MicroFromCounts);
            let metric = table.metric_with_info(&name, info);
            table.set_headline(system, metric, value);
        }
        for (name, value) in
            [("macro_precision", macro_.precision), ("macro_recall", macro_.recall), ("macro_f1", macro_.f_measure)]
        {
            let name = format!("{prefix}{name}");
            let metric = table.metric_with_info(&name, metric_info(&name).aggregate());
            table.set_headline(system, metric, value);
        }
    }
}
