//! trec_eval measure names, their parameters and output order, the `official` and `all_trec`
//! sets, and the aliases of ranx, ir_measures and seed 002, all mapped to one canonical name.

use std::fmt;

/// A measure family, declared in trec_eval's output order (its measure table), extensions last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MeasureFamily {
    /// `runid`: the tag of the last run line (summary only).
    Runid,
    /// `num_q`: number of evaluated topics (summary only).
    NumQ,
    /// `num_ret`: retrieved documents (within `-M`).
    NumRet,
    /// `num_rel`: relevant judged documents (R).
    NumRel,
    /// `num_rel_ret`: relevant retrieved documents.
    NumRelRet,
    /// `map`: average precision.
    Map,
    /// `gm_map`: geometric mean of average precision (summary only; floor 0.00001).
    GmMap,
    /// `Rprec`: precision after R documents.
    Rprec,
    /// `bpref`.
    Bpref,
    /// `recip_rank`: reciprocal rank of the first relevant document.
    RecipRank,
    /// `iprec_at_recall`: interpolated precision at recall levels.
    IprecAtRecall,
    /// `P`: precision at cutoffs.
    P,
    /// `recall`: recall at cutoffs.
    Recall,
    /// `gm_bpref`: geometric mean of bpref (summary only).
    GmBpref,
    /// `ndcg`: uncut nDCG with linear (overridable) gains.
    Ndcg,
    /// `ndcg_cut`: nDCG at cutoffs.
    NdcgCut,
    /// `map_cut`: average precision truncated at cutoffs (still ÷ R).
    MapCut,
    /// `success`: 1 when a relevant document is in the top k.
    Success,
    /// `set_P`: precision of the whole retrieved set.
    SetP,
    /// `set_recall`: recall of the whole retrieved set.
    SetRecall,
    /// `set_F`: F1 of the whole retrieved set.
    SetF,
    /// Extension `recip_rank_cut`: reciprocal rank when within the top k, else 0 (mrr@k).
    RecipRankCut,
    /// Extension `hits`: number of relevant documents in the top k (averaged over topics, like
    /// ranx `hits`).
    Hits,
    /// Extension `ndcg_exp_cut`: nDCG at k with exponential gain 2^rel − 1 (ranx
    /// `ndcg_burges`).
    NdcgExpCut,
    /// Extension `f1`: harmonic mean of P@k and recall@k (ranx `f1`, seed 002's F).
    F1,
}

/// How a family's per-topic values become the summary value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    /// Arithmetic mean over topics.
    Mean,
    /// Sum over topics (counts).
    Sum,
    /// Geometric mean over topics with values floored at 0.00001 (trec_eval `gm_*`).
    GeometricMean,
    /// Number of topics.
    Count,
    /// Not a number: the run id.
    Text,
}

impl MeasureFamily {
    /// Every family in output order.
    pub const ALL: [MeasureFamily; 25] = [
        MeasureFamily::Runid,
        MeasureFamily::NumQ,
        MeasureFamily::NumRet,
        MeasureFamily::NumRel,
        MeasureFamily::NumRelRet,
        MeasureFamily::Map,
        MeasureFamily::GmMap,
        MeasureFamily::Rprec,
        MeasureFamily::Bpref,
        MeasureFamily::RecipRank,
        MeasureFamily::IprecAtRecall,
        MeasureFamily::P,
        MeasureFamily::Recall,
        MeasureFamily::GmBpref,
        MeasureFamily::Ndcg,
        MeasureFamily::NdcgCut,
        MeasureFamily::MapCut,
        MeasureFamily::Success,
        MeasureFamily::SetP,
        MeasureFamily::SetRecall,
        MeasureFamily::SetF,
        MeasureFamily::RecipRankCut,
        MeasureFamily::Hits,
        MeasureFamily::NdcgExpCut,
        MeasureFamily::F1,
    ];

    /// trec_eval's `official` set (its default): the first twelve families, `runid` to `P`.
    pub const OFFICIAL: &'static [MeasureFamily] = Self::ALL.split_at(12).0;

    /// The name trec_eval prints (before any `_parameter`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            MeasureFamily::Runid => "runid",
            MeasureFamily::NumQ => "num_q",
            MeasureFamily::NumRet => "num_ret",
            MeasureFamily::NumRel => "num_rel",
            MeasureFamily::NumRelRet => "num_rel_ret",
            MeasureFamily::Map => "map",
            MeasureFamily::GmMap => "gm_map",
            MeasureFamily::Rprec => "Rprec",
            MeasureFamily::Bpref => "bpref",
            MeasureFamily::RecipRank => "recip_rank",
            MeasureFamily::IprecAtRecall => "iprec_at_recall",
            MeasureFamily::P => "P",
            MeasureFamily::Recall => "recall",
            MeasureFamily::GmBpref => "gm_bpref",
            MeasureFamily::Ndcg => "ndcg",
            MeasureFamily::NdcgCut => "ndcg_cut",
            MeasureFamily::MapCut => "map_cut",
            MeasureFamily::Success => "success",
            MeasureFamily::SetP => "set_P",
            MeasureFamily::SetRecall => "set_recall",
            MeasureFamily::SetF => "set_F",
            MeasureFamily::RecipRankCut => "recip_rank_cut",
            MeasureFamily::Hits => "hits",
            MeasureFamily::NdcgExpCut => "ndcg_exp_cut",
            MeasureFamily::F1 => "f1",
        }
    }

    /// Whether the family belongs to trec_eval (as opposed to a kgeval extension).
    #[must_use]
    pub const fn is_trec_eval(self) -> bool {
        !matches!(
            self,
            MeasureFamily::RecipRankCut | MeasureFamily::Hits | MeasureFamily::NdcgExpCut | MeasureFamily::F1
        )
    }

    /// The family's default cutoffs (empty for families without cutoffs).
    #[must_use]
    pub const fn default_cutoffs(self) -> &'static [u32] {
        const LONG: &[u32] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];
        match self {
            MeasureFamily::P | MeasureFamily::Recall | MeasureFamily::NdcgCut | MeasureFamily::MapCut => LONG,
            MeasureFamily::Success => &[1, 5, 10],
            MeasureFamily::RecipRankCut | MeasureFamily::Hits | MeasureFamily::NdcgExpCut | MeasureFamily::F1 => {
                &[1, 3, 5, 10, 20]
            }
            _ => &[],
        }
    }

    /// Whether the family takes cutoffs (`P.5,10`).
    #[must_use]
    pub const fn has_cutoffs(self) -> bool {
        !self.default_cutoffs().is_empty()
    }

    /// How per-topic values are summarised.
    #[must_use]
    pub const fn aggregation(self) -> Aggregation {
        match self {
            MeasureFamily::Runid => Aggregation::Text,
            MeasureFamily::NumQ => Aggregation::Count,
            MeasureFamily::NumRet | MeasureFamily::NumRel | MeasureFamily::NumRelRet => Aggregation::Sum,
            MeasureFamily::GmMap | MeasureFamily::GmBpref => Aggregation::GeometricMean,
            _ => Aggregation::Mean,
        }
    }

    /// Whether trec_eval prints the family on per-topic (`-q`) lines.
    #[must_use]
    pub const fn per_topic(self) -> bool {
        !matches!(self, MeasureFamily::Runid | MeasureFamily::NumQ | MeasureFamily::GmMap | MeasureFamily::GmBpref)
    }

    /// Whether values are counts (printed as integers).
    #[must_use]
    pub const fn is_count(self) -> bool {
        matches!(self, MeasureFamily::NumQ | MeasureFamily::NumRet | MeasureFamily::NumRel | MeasureFamily::NumRelRet)
    }

    /// Parses a trec_eval family name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for MeasureFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One output line's measure: a family with at most one parameter, and its printed name.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// The family.
    pub family: MeasureFamily,
    /// The cutoff k of a cutoff family.
    pub cutoff: Option<u32>,
    /// The recall level of `iprec_at_recall`.
    pub recall_level: Option<f64>,
    /// `ndcg` gain overrides (relevance value → gain), sorted by relevance value.
    pub gains: Vec<(i64, f64)>,
    /// The printed name (`P_10`, `iprec_at_recall_0.10`, `ndcg_1=3,2=9`).
    pub name: String,
}

impl Measure {
    fn plain(family: MeasureFamily) -> Self {
        Measure { family, cutoff: None, recall_level: None, gains: Vec::new(), name: family.name().to_owned() }
    }

    fn at_cutoff(family: MeasureFamily, k: u32) -> Self {
        Measure { cutoff: Some(k), name: format!("{}_{k}", family.name()), ..Self::plain(family) }
    }
}

/// A `-m` argument that names no known measure or carries a bad parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownMeasure {
    /// The argument as given.
    pub argument: String,
    /// Why it was rejected.
    pub reason: String,
}

impl fmt::Display for UnknownMeasure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "measure '{}': {}", self.argument, self.reason)
    }
}

impl std::error::Error for UnknownMeasure {}

/// One parsed `-m` argument.
#[derive(Debug, Clone, PartialEq)]
pub enum MeasureRequest {
    /// `official`: trec_eval's default set.
    Official,
    /// `all_trec`: every trec_eval measure kgeval implements.
    AllTrec,
    /// A family, with explicit parameters or its defaults.
    Family {
        /// The family.
        family: MeasureFamily,
        /// Explicit cutoffs (for cutoff families).
        cutoffs: Option<Vec<u32>>,
        /// Explicit recall levels (`iprec_at_recall`).
        recall_levels: Option<Vec<f64>>,
        /// Explicit gains (`ndcg.1=3,2=9`) and the parameter text as given.
        gains: Option<GainOverrides>,
    },
}

/// `ndcg` gain overrides: the parameter text as given and (relevance value, gain) pairs.
pub type GainOverrides = (String, Vec<(i64, f64)>);

/// One family chosen by the requests; `None` = its defaults.
struct Chosen {
    family: MeasureFamily,
    cutoffs: Option<Vec<u32>>,
    levels: Option<Vec<f64>>,
    gains: Option<GainOverrides>,
}

impl MeasureRequest {
    fn family(family: MeasureFamily) -> Self {
        MeasureRequest::Family { family, cutoffs: None, recall_levels: None, gains: None }
    }

    fn cut(family: MeasureFamily, k: u32) -> Self {
        MeasureRequest::Family { family, cutoffs: Some(vec![k]), recall_levels: None, gains: None }
    }

    /// Parses a trec_eval `-m` argument (`map`, `P.5,10`, `ndcg.1=3,2=9`,
    /// `iprec_at_recall..1,.5`, `official`, `all_trec`) or an alias: ranx (`precision@10`,
    /// `recall@10`, `ndcg@10`, `mrr@10`, `hit_rate@10`, `map@10`, `r-precision`, `mrr`,
    /// `ndcg_burges@10`, `f1@10`, `hits@10`), ir_measures (`P@10`, `R@10`, `nDCG@10`, `RR`,
    /// `RR@10`, `AP`, `AP@10`, `Success@10`, `Rprec`, `Bpref`, `NumRet`…) and seed 002 (`P@N`,
    /// `R@N`, `F@N`, `MAP`). Case matters for trec_eval names, not for aliases.
    ///
    /// # Errors
    /// When the argument names nothing known or a parameter does not parse.
    pub fn parse(argument: &str) -> Result<Self, UnknownMeasure> {
        let fail = |reason: &str| UnknownMeasure { argument: argument.to_owned(), reason: reason.to_owned() };
        match argument {
            "official" => return Ok(MeasureRequest::Official),
            "all_trec" => return Ok(MeasureRequest::AllTrec),
            _ => {}
        }
        if let Some((alias, k)) = argument.split_once('@') {
            let k: u32 = k
                .parse()
                .ok()
                .filter(|&k| k > 0)
                .ok_or_else(|| fail("the cutoff after '@' must be a positive integer"))?;
            let family = alias_family(alias).ok_or_else(|| fail("unknown measure"))?;
            return Ok(match family {
                // MAP@k is trec_eval's map_cut.k; MRR@k is recip_rank_cut.k.
                MeasureFamily::Map => Self::cut(MeasureFamily::MapCut, k),
                MeasureFamily::Ndcg => Self::cut(MeasureFamily::NdcgCut, k),
                MeasureFamily::RecipRank => Self::cut(MeasureFamily::RecipRankCut, k),
                f if f.has_cutoffs() => Self::cut(f, k),
                _ => return Err(fail("this measure takes no cutoff")),
            });
        }
        let (name, parameters) = match argument.split_once('.') {
            Some((name, parameters)) => (name, Some(parameters)),
            None => (argument, None),
        };
        let family = match MeasureFamily::from_name(name) {
            Some(f) => f,
            None if parameters.is_none() => alias_family(name).ok_or_else(|| fail("unknown measure"))?,
            None => return Err(fail("unknown measure")),
        };
        let Some(parameters) = parameters else {
            return Ok(Self::family(family));
        };
        match family {
            f if f.has_cutoffs() => {
                let mut cutoffs = Vec::new();
                for part in parameters.split(',') {
                    // trec_eval reads cutoffs as numbers and truncates them (23.4 → 23).
                    let value: f64 = part.trim().parse().map_err(|_| fail("cutoffs must be numbers, as in P.5,10"))?;
                    if !(1.0..=f64::from(u32::MAX)).contains(&value) {
                        return Err(fail("cutoffs must be at least 1"));
                    }
                    cutoffs.push(value as u32);
                }
                Ok(MeasureRequest::Family { family, cutoffs: Some(cutoffs), recall_levels: None, gains: None })
            }
            MeasureFamily::IprecAtRecall => {
                let mut levels = Vec::new();
                for part in parameters.split(',') {
                    let value: f64 = part.trim().parse().map_err(|_| fail("recall levels must be numbers"))?;
                    if !(0.0..=1.0).contains(&value) {
                        return Err(fail("recall levels must lie in [0, 1]"));
                    }
                    levels.push(value);
                }
                Ok(MeasureRequest::Family { family, cutoffs: None, recall_levels: Some(levels), gains: None })
            }
            MeasureFamily::Ndcg => {
                let mut gains = Vec::new();
                for part in parameters.split(',') {
                    let (rel, gain) =
                        part.split_once('=').ok_or_else(|| fail("gains are REL=GAIN, as in ndcg.1=3,2=9"))?;
                    let rel: i64 =
                        rel.trim().parse().map_err(|_| fail("a gain's relevance value must be an integer"))?;
                    let gain: f64 = gain.trim().parse().map_err(|_| fail("a gain must be a number"))?;
                    gains.push((rel, gain));
                }
                Ok(MeasureRequest::Family {
                    family,
                    cutoffs: None,
                    recall_levels: None,
                    gains: Some((parameters.to_owned(), gains)),
                })
            }
            _ => Err(fail("this measure takes no parameter")),
        }
    }
}

/// The family an alias (ranx, ir_measures, seed 002; case-insensitive) stands for. `@k` forms
/// of `map`, `ndcg` and `mrr` become the cut families in [`MeasureRequest::parse`].
fn alias_family(alias: &str) -> Option<MeasureFamily> {
    let family = match alias.to_ascii_lowercase().as_str() {
        "p" | "precision" => MeasureFamily::P,
        "r" | "recall" => MeasureFamily::Recall,
        "ndcg" => MeasureFamily::Ndcg,
        "ndcg_burges" | "ndcg_exp" | "ndcg_exp_cut" => MeasureFamily::NdcgExpCut,
        "mrr" | "rr" | "recip_rank" => MeasureFamily::RecipRank,
        "recip_rank_cut" => MeasureFamily::RecipRankCut,
        "hit_rate" | "success" => MeasureFamily::Success,
        "hits" => MeasureFamily::Hits,
        "map" | "ap" => MeasureFamily::Map,
        "map_cut" => MeasureFamily::MapCut,
        "ndcg_cut" => MeasureFamily::NdcgCut,
        "f1" | "f" => MeasureFamily::F1,
        "r-precision" | "rprec" => MeasureFamily::Rprec,
        "bpref" => MeasureFamily::Bpref,
        "numret" | "num_ret" => MeasureFamily::NumRet,
        "numrel" | "num_rel" => MeasureFamily::NumRel,
        "numrelret" | "num_rel_ret" => MeasureFamily::NumRelRet,
        "numq" | "num_q" => MeasureFamily::NumQ,
        "set_p" => MeasureFamily::SetP,
        "set_recall" | "set_r" => MeasureFamily::SetRecall,
        "set_f" => MeasureFamily::SetF,
        _ => return None,
    };
    Some(family)
}

/// The measures of one evaluation, one per output line, in trec_eval's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeasureSet {
    measures: Vec<Measure>,
}

impl MeasureSet {
    /// The set the requests name, merged per family (cutoffs united and sorted, as trec_eval
    /// prints them) and ordered by family. No request means `official`.
    #[must_use]
    pub fn from_requests(requests: &[MeasureRequest]) -> Self {
        let official = [MeasureRequest::Official];
        let requests = if requests.is_empty() { &official[..] } else { requests };
        let mut chosen: Vec<Chosen> = Vec::new();
        let mut choose = |family: MeasureFamily,
                          cutoffs: Option<&Vec<u32>>,
                          levels: Option<&Vec<f64>>,
                          gains: Option<&GainOverrides>| {
            let slot = match chosen.iter().position(|c| c.family == family) {
                Some(slot) => slot,
                None => {
                    chosen.push(Chosen { family, cutoffs: None, levels: None, gains: None });
                    chosen.len() - 1
                }
            };
            let entry = &mut chosen[slot];
            if let Some(cutoffs) = cutoffs {
                entry.cutoffs.get_or_insert_with(Vec::new).extend(cutoffs);
            }
            if let Some(levels) = levels {
                entry.levels.get_or_insert_with(Vec::new).extend(levels);
            }
            if let Some(gains) = gains {
                entry.gains = Some(gains.clone());
            }
        };
        for request in requests {
            match request {
                MeasureRequest::Official => {
                    for &family in MeasureFamily::OFFICIAL {
                        choose(family, None, None, None);
                    }
                }
                MeasureRequest::AllTrec => {
                    for family in MeasureFamily::ALL.into_iter().filter(|f| f.is_trec_eval()) {
                        choose(family, None, None, None);
                    }
                }
                MeasureRequest::Family { family, cutoffs, recall_levels, gains } => {
                    choose(*family, cutoffs.as_ref(), recall_levels.as_ref(), gains.as_ref());
                }
            }
        }
        chosen.sort_by_key(|c| c.family);
        let mut measures = Vec::new();
        for Chosen { family, cutoffs, levels, gains } in chosen {
            if family.has_cutoffs() {
                let mut cutoffs = cutoffs.unwrap_or_else(|| family.default_cutoffs().to_vec());
                cutoffs.sort_unstable();
                cutoffs.dedup();
                measures.extend(cutoffs.into_iter().map(|k| Measure::at_cutoff(family, k)));
            } else if family == MeasureFamily::IprecAtRecall {
                let mut levels = levels.unwrap_or_else(|| vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]);
                levels.sort_by(f64::total_cmp);
                levels.dedup();
                measures.extend(levels.into_iter().map(|level| Measure {
                    recall_level: Some(level),
                    name: format!("iprec_at_recall_{level:.2}"),
                    ..Measure::plain(family)
                }));
            } else if let Some((text, mut gains)) = gains {
                gains.sort_by_key(|g| g.0);
                measures.push(Measure { gains, name: format!("ndcg_{text}"), ..Measure::plain(family) });
            } else {
                measures.push(Measure::plain(family));
            }
        }
        MeasureSet { measures }
    }

    /// The measures in output order.
    #[must_use]
    pub fn measures(&self) -> &[Measure] {
        &self.measures
    }

    /// Number of measures.
    #[must_use]
    pub fn len(&self) -> usize {
        self.measures.len()
    }

    /// Whether the set is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.measures.is_empty()
    }

    /// The position of the measure printed as `name`.
    #[must_use]
    pub fn position(&self, name: &str) -> Option<usize> {
        self.measures.iter().position(|m| m.name == name)
    }

    /// The largest cutoff any measure needs, `None` when some measure needs the whole ranking.
    #[must_use]
    pub fn depth_needed(&self) -> Option<usize> {
        let mut depth = 0usize;
        for measure in &self.measures {
            match (measure.family, measure.cutoff) {
                (MeasureFamily::Runid | MeasureFamily::NumQ | MeasureFamily::NumRel, _) => {}
                (_, Some(k)) => depth = depth.max(k as usize),
                (_, None) => return None,
            }
        }
        Some(depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(requests: &[&str]) -> Vec<String> {
        let requests: Vec<MeasureRequest> =
            requests.iter().map(|r| MeasureRequest::parse(r).expect("parses")).collect();
        MeasureSet::from_requests(&requests).measures().iter().map(|m| m.name.clone()).collect()
    }

    #[test]
    fn trec_eval_parameters_sort_and_truncate() {
        assert_eq!(names(&["P.5,7,3"]), ["P_3", "P_5", "P_7"]);
        assert_eq!(names(&["ndcg_cut.10,20,23.4"]), ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]);
        assert_eq!(names(&["iprec_at_recall..10,.20,.25,.75,.50"])[2], "iprec_at_recall_0.25");
        assert_eq!(names(&["ndcg.1=3,2=9,4=4.5"]), ["ndcg_1=3,2=9,4=4.5"]);
        assert_eq!(names(&["success.2,5,20"]), ["success_2", "success_5", "success_20"]);
    }

    #[test]
    fn official_is_trec_eval_default() {
        let official = names(&[]);
        assert_eq!(official.len(), 10 + 11 + 9);
        assert_eq!(&official[..6], ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]);
        assert_eq!(official.last().map(String::as_str), Some("P_1000"));
    }

    #[test]
    fn aliases_map_to_one_canonical_name() {
        for (alias, canonical) in [
            ("precision@10", "P_10"),
            ("P@10", "P_10"),
            ("R@3", "recall_3"),
            ("ndcg@10", "ndcg_cut_10"),
            ("nDCG@10", "ndcg_cut_10"),
            ("mrr@10", "recip_rank_cut_10"),
            ("RR@10", "recip_rank_cut_10"),
            ("hit_rate@10", "success_10"),
            ("r-precision", "Rprec"),
            ("AP", "map"),
            ("MAP", "map"),
            ("map@20", "map_cut_20"),
            ("F@5", "f1_5"),
            ("ndcg_burges@10", "ndcg_exp_cut_10"),
            ("RR", "recip_rank"),
        ] {
            assert_eq!(names(&[alias]), [canonical], "{alias}");
        }
    }

    #[test]
    fn bad_requests_are_refused() {
        for bad in ["nope", "P.x", "P.0", "map.5", "P@0", "Rprec@5", "iprec_at_recall.2", "ndcg.1:3"] {
            assert!(MeasureRequest::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn depth_needed_follows_cutoffs() {
        let set = MeasureSet::from_requests(&[MeasureRequest::parse("P.10").expect("parses")]);
        assert_eq!(set.depth_needed(), Some(10));
        assert_eq!(MeasureSet::from_requests(&[]).depth_needed(), None);
    }
}
