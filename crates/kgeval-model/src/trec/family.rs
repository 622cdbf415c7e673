//! The measure families: trec_eval 10.0's measure table in its output order (`measures.c`),
//! kgeval's extensions last, with each family's parameters, defaults, aggregation and
//! printing.

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
    /// `relstring`: the relevance values of the first N documents as a string (per topic
    /// only; `relstring.N`, default 10).
    Relstring,
    /// `recall`: recall at cutoffs.
    Recall,
    /// `infAP`: inferred average precision (Yilmaz and Aslam).
    InfAp,
    /// `gm_bpref`: geometric mean of bpref (summary only).
    GmBpref,
    /// `Rprec_mult`: precision at multiples of R (`Rprec_mult.0.2,1.0`).
    RprecMult,
    /// `utility`: p1·a + p2·b + p3·c + p4·d over the retrieved/relevant contingency table
    /// (`utility.p1,p2,p3,p4`, default 1,-1,0,0).
    Utility,
    /// `11pt_avg`: interpolated precision averaged over recall levels.
    ElevenPtAvg,
    /// `binG`: binary G.
    BinG,
    /// `G`: normalized gain.
    G,
    /// `dcg`: discounted cumulative gain (not in `all_trec`).
    Dcg,
    /// `ideal_dcg`: the ideal DCG (not in `all_trec`).
    IdealDcg,
    /// `ndcg`: uncut nDCG with linear (overridable) gains.
    Ndcg,
    /// `ndcg_rel`: nDCG averaged over the relevant documents.
    NdcgRel,
    /// `Rndcg`: nDCG averaged at the R levels.
    Rndcg,
    /// `ndcg_cut`: nDCG at cutoffs.
    NdcgCut,
    /// `map_cut`: average precision truncated at cutoffs (still ÷ R).
    MapCut,
    /// `relative_P`: precision at k relative to the best possible, min(k, R).
    RelativeP,
    /// `success`: 1 when a relevant document is in the top k.
    Success,
    /// `set_P`: precision of the whole retrieved set.
    SetP,
    /// `set_relative_P`: relevant retrieved ÷ min(retrieved, R).
    SetRelativeP,
    /// `set_recall`: recall of the whole retrieved set.
    SetRecall,
    /// `set_map`: relevant retrieved² ÷ (retrieved · R).
    SetMap,
    /// `set_F`: F1 of the whole retrieved set.
    SetF,
    /// `num_nonrel_judged_ret`: judged non-relevant documents retrieved.
    NumNonrelJudgedRet,
    /// `yaap`: Robertson's "yet another average precision" (not in `all_trec`).
    Yaap,
    /// `rbp`: rank-biased precision (`rbp.p=0.9`, gains overridable).
    Rbp,
    /// `rbp_resid`: the residual of rank-biased precision from unjudged documents.
    RbpResid,
    /// `unj`: fraction of unjudged documents in the top k.
    Unj,
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
    /// Not a number: the run id, the relevance string.
    Text,
}

/// What a family's parameter (after the first `.` of `-m`) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterKind {
    /// No parameter.
    None,
    /// Integer cutoffs, sorted, one line each (`P.5,10` → `P_5`, `P_10`).
    Cutoffs,
    /// Fractional cutoffs, sorted, one line each, printed `%3.2f` (`Rprec_mult.0.2` →
    /// `Rprec_mult_0.20`).
    Levels,
    /// Numbers in the order given, one line printed with the text as given
    /// (`utility.2,-1,0,0` → `utility_2,-1,0,0`).
    Numbers,
    /// `REL=GAIN` pairs (and `p=X` for rbp), one line printed with the text as given.
    Pairs,
}

impl MeasureFamily {
    /// Every family in output order.
    pub const ALL: [MeasureFamily; 44] = [
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
        MeasureFamily::Relstring,
        MeasureFamily::Recall,
        MeasureFamily::InfAp,
        MeasureFamily::GmBpref,
        MeasureFamily::RprecMult,
        MeasureFamily::Utility,
        MeasureFamily::ElevenPtAvg,
        MeasureFamily::BinG,
        MeasureFamily::G,
        MeasureFamily::Dcg,
        MeasureFamily::IdealDcg,
        MeasureFamily::Ndcg,
        MeasureFamily::NdcgRel,
        MeasureFamily::Rndcg,
        MeasureFamily::NdcgCut,
        MeasureFamily::MapCut,
        MeasureFamily::RelativeP,
        MeasureFamily::Success,
        MeasureFamily::SetP,
        MeasureFamily::SetRelativeP,
        MeasureFamily::SetRecall,
        MeasureFamily::SetMap,
        MeasureFamily::SetF,
        MeasureFamily::NumNonrelJudgedRet,
        MeasureFamily::Yaap,
        MeasureFamily::Rbp,
        MeasureFamily::RbpResid,
        MeasureFamily::Unj,
        MeasureFamily::RecipRankCut,
        MeasureFamily::Hits,
        MeasureFamily::NdcgExpCut,
        MeasureFamily::F1,
    ];

    /// trec_eval's `official` set (its default): the first twelve families, `runid` to `P`.
    pub const OFFICIAL: &'static [MeasureFamily] = Self::ALL.split_at(12).0;

    /// trec_eval's `set` nickname: the set-based measures.
    pub const SET: &'static [MeasureFamily] = &[
        MeasureFamily::Runid,
        MeasureFamily::NumQ,
        MeasureFamily::NumRet,
        MeasureFamily::NumRel,
        MeasureFamily::NumRelRet,
        MeasureFamily::Utility,
        MeasureFamily::SetP,
        MeasureFamily::SetRecall,
        MeasureFamily::SetRelativeP,
        MeasureFamily::SetMap,
        MeasureFamily::SetF,
    ];

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
            MeasureFamily::Relstring => "relstring",
            MeasureFamily::Recall => "recall",
            MeasureFamily::InfAp => "infAP",
            MeasureFamily::GmBpref => "gm_bpref",
            MeasureFamily::RprecMult => "Rprec_mult",
            MeasureFamily::Utility => "utility",
            MeasureFamily::ElevenPtAvg => "11pt_avg",
            MeasureFamily::BinG => "binG",
            MeasureFamily::G => "G",
            MeasureFamily::Dcg => "dcg",
            MeasureFamily::IdealDcg => "ideal_dcg",
            MeasureFamily::Ndcg => "ndcg",
            MeasureFamily::NdcgRel => "ndcg_rel",
            MeasureFamily::Rndcg => "Rndcg",
            MeasureFamily::NdcgCut => "ndcg_cut",
            MeasureFamily::MapCut => "map_cut",
            MeasureFamily::RelativeP => "relative_P",
            MeasureFamily::Success => "success",
            MeasureFamily::SetP => "set_P",
            MeasureFamily::SetRelativeP => "set_relative_P",
            MeasureFamily::SetRecall => "set_recall",
            MeasureFamily::SetMap => "set_map",
            MeasureFamily::SetF => "set_F",
            MeasureFamily::NumNonrelJudgedRet => "num_nonrel_judged_ret",
            MeasureFamily::Yaap => "yaap",
            MeasureFamily::Rbp => "rbp",
            MeasureFamily::RbpResid => "rbp_resid",
            MeasureFamily::Unj => "unj",
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

    /// Whether trec_eval's `all_trec` includes the family (every trec_eval family but `dcg`,
    /// `ideal_dcg` and `yaap`).
    #[must_use]
    pub const fn in_all_trec(self) -> bool {
        self.is_trec_eval() && !matches!(self, MeasureFamily::Dcg | MeasureFamily::IdealDcg | MeasureFamily::Yaap)
    }

    /// The family's default cutoffs (empty for families without cutoffs).
    #[must_use]
    pub const fn default_cutoffs(self) -> &'static [u32] {
        const LONG: &[u32] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];
        match self {
            MeasureFamily::P
            | MeasureFamily::Recall
            | MeasureFamily::NdcgCut
            | MeasureFamily::MapCut
            | MeasureFamily::RelativeP => LONG,
            MeasureFamily::Success => &[1, 5, 10],
            MeasureFamily::Unj => &[5, 10, 20],
            MeasureFamily::RecipRankCut | MeasureFamily::Hits | MeasureFamily::NdcgExpCut | MeasureFamily::F1 => {
                &[1, 3, 5, 10, 20]
            }
            _ => &[],
        }
    }

    /// The default fractional parameters: levels of `iprec_at_recall`, `11pt_avg`,
    /// `Rprec_mult`; the coefficients of `utility`; the length of `relstring`.
    #[must_use]
    pub const fn default_numbers(self) -> &'static [f64] {
        const ELEVEN: &[f64] = &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
        match self {
            MeasureFamily::IprecAtRecall | MeasureFamily::ElevenPtAvg => ELEVEN,
            MeasureFamily::RprecMult => &[0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
            MeasureFamily::Utility => &[1.0, -1.0, 0.0, 0.0],
            MeasureFamily::Relstring => &[10.0],
            _ => &[],
        }
    }

    /// What the family's parameter is.
    #[must_use]
    pub const fn parameter_kind(self) -> ParameterKind {
        match self {
            MeasureFamily::IprecAtRecall | MeasureFamily::RprecMult => ParameterKind::Levels,
            MeasureFamily::Utility | MeasureFamily::ElevenPtAvg | MeasureFamily::Relstring => ParameterKind::Numbers,
            MeasureFamily::G
            | MeasureFamily::Dcg
            | MeasureFamily::IdealDcg
            | MeasureFamily::Ndcg
            | MeasureFamily::NdcgRel
            | MeasureFamily::Rndcg
            | MeasureFamily::Rbp
            | MeasureFamily::RbpResid => ParameterKind::Pairs,
            f if f.has_cutoffs() => ParameterKind::Cutoffs,
            _ => ParameterKind::None,
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
            MeasureFamily::Runid | MeasureFamily::Relstring => Aggregation::Text,
            MeasureFamily::NumQ => Aggregation::Count,
            MeasureFamily::NumRet
            | MeasureFamily::NumRel
            | MeasureFamily::NumRelRet
            | MeasureFamily::NumNonrelJudgedRet => Aggregation::Sum,
            MeasureFamily::GmMap | MeasureFamily::GmBpref => Aggregation::GeometricMean,
            _ => Aggregation::Mean,
        }
    }

    /// Whether trec_eval prints the family on per-topic (`-q`) lines.
    #[must_use]
    pub const fn per_topic(self) -> bool {
        !matches!(self, MeasureFamily::Runid | MeasureFamily::NumQ | MeasureFamily::GmMap | MeasureFamily::GmBpref)
    }

    /// Whether trec_eval prints a summary (`all`) line for the family (`relstring` has
    /// none).
    #[must_use]
    pub const fn has_summary(self) -> bool {
        !matches!(self, MeasureFamily::Relstring)
    }

    /// Whether values are counts (printed as integers).
    #[must_use]
    pub const fn is_count(self) -> bool {
        matches!(
            self,
            MeasureFamily::NumQ
                | MeasureFamily::NumRet
                | MeasureFamily::NumRel
                | MeasureFamily::NumRelRet
                | MeasureFamily::NumNonrelJudgedRet
        )
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
