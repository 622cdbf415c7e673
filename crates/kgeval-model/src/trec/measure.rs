//! trec_eval measure names, their parameters and output order, the `official`, `set` and
//! `all_trec` sets, and the aliases of ranx, ir_measures and seed 002, all mapped to one
//! canonical name.

use std::fmt;

pub use super::family::{Aggregation, MeasureFamily, ParameterKind};

/// One output line's measure: a family with its parameter, and its printed name.
#[derive(Debug, Clone, PartialEq)]
pub struct Measure {
    /// The family.
    pub family: MeasureFamily,
    /// The cutoff k of a cutoff family.
    pub cutoff: Option<u32>,
    /// The recall level of `iprec_at_recall`, the multiple of R of `Rprec_mult`.
    pub recall_level: Option<f64>,
    /// Gain overrides (relevance value → gain) of the gain families (`ndcg`, `G`, `rbp`…), in
    /// the order given.
    pub gains: Vec<(i64, f64)>,
    /// The numbers of `utility` (4 coefficients), `11pt_avg` (recall levels, in the order
    /// given), `relstring` (its length); the persistence `p` of `rbp` and `rbp_resid` when
    /// given.
    pub numbers: Vec<f64>,
    /// The printed name (`P_10`, `iprec_at_recall_0.10`, `ndcg_1=3,2=9`, `utility_2,-1,0,0`).
    pub name: String,
}

impl Measure {
    fn plain(family: MeasureFamily) -> Self {
        Measure {
            family,
            cutoff: None,
            recall_level: None,
            gains: Vec::new(),
            numbers: Vec::new(),
            name: family.name().to_owned(),
        }
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
    /// `all_trec`: every trec_eval measure of trec_eval's `all_trec` set.
    AllTrec,
    /// `set`: trec_eval's set-based measures.
    Set,
    /// A family, with explicit parameters or its defaults.
    Family {
        /// The family.
        family: MeasureFamily,
        /// Explicit cutoffs (for cutoff families).
        cutoffs: Option<Vec<u32>>,
        /// Explicit fractional parameters: recall levels (`iprec_at_recall`), multiples of R
        /// (`Rprec_mult`), the numbers of `utility`, `11pt_avg`, `relstring` in the order
        /// given, the persistence of `rbp` (`rbp.p=0.95`).
        recall_levels: Option<Vec<f64>>,
        /// The parameter text as given, printed after the name (`ndcg.1=3,2=9` →
        /// `ndcg_1=3,2=9`; `utility.2,-1,0,0`), with the gains it overrides (pair families).
        gains: Option<GainOverrides>,
    },
}

/// A printed parameter as given and the (relevance value, gain) pairs it overrides (empty for
/// the number families).
pub type GainOverrides = (String, Vec<(i64, f64)>);

/// One family chosen by the requests; `None` = its defaults.
struct Chosen {
    family: MeasureFamily,
    cutoffs: Option<Vec<u32>>,
    levels: Option<Vec<f64>>,
    gains: Option<GainOverrides>,
}

/// trec_eval's `valid_int` (gain_init.c): an optional sign and digits only.
fn valid_int(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

impl MeasureRequest {
    fn family(family: MeasureFamily) -> Self {
        MeasureRequest::Family { family, cutoffs: None, recall_levels: None, gains: None }
    }

    fn cut(family: MeasureFamily, k: u32) -> Self {
        MeasureRequest::Family { family, cutoffs: Some(vec![k]), recall_levels: None, gains: None }
    }

    /// Parses a trec_eval `-m` argument (`map`, `P.5,10`, `ndcg.1=3,2=9`,
    /// `iprec_at_recall..1,.5`, `Rprec_mult.0.2,1.0`, `utility.2,-1,0,0`, `11pt_avg..25,.5`,
    /// `relstring.20`, `rbp.p=0.95`, `official`, `set`, `all_trec`) or an alias: ranx
    /// (`precision@10`, `recall@10`, `ndcg@10`, `mrr@10`, `hit_rate@10`, `map@10`,
    /// `r-precision`, `mrr`, `ndcg_burges@10`, `f1@10`, `hits@10`), ir_measures (`P@10`,
    /// `R@10`, `nDCG@10`, `RR`, `RR@10`, `AP`, `AP@10`, `Success@10`, `Rprec`, `Bpref`,
    /// `infAP`, `SetP`, `SetR`, `SetF`, `SetAP`, `NumRet`…) and seed 002 (`P@N`, `R@N`, `F@N`,
    /// `MAP`). Case matters for trec_eval names, not for aliases.
    ///
    /// # Errors
    /// When the argument names nothing known or a parameter does not parse.
    pub fn parse(argument: &str) -> Result<Self, UnknownMeasure> {
        let fail = |reason: &str| UnknownMeasure { argument: argument.to_owned(), reason: reason.to_owned() };
        match argument {
            "official" => return Ok(MeasureRequest::Official),
            "all_trec" => return Ok(MeasureRequest::AllTrec),
            "set" => return Ok(MeasureRequest::Set),
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
        let numbers = |what: &str| -> Result<Vec<f64>, UnknownMeasure> {
            parameters
                .split(',')
                .map(|part| part.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| fail(what)))
                .collect()
        };
        let with = |cutoffs, levels, gains| MeasureRequest::Family { family, cutoffs, recall_levels: levels, gains };
        match family.parameter_kind() {
            ParameterKind::Cutoffs => {
                let mut cutoffs = Vec::new();
                // trec_eval reads cutoffs as numbers and truncates them (23.4 → 23).
                for value in numbers("cutoffs must be numbers, as in P.5,10")? {
                    if !(1.0..=f64::from(u32::MAX)).contains(&value) {
                        return Err(fail("cutoffs must be at least 1"));
                    }
                    cutoffs.push(value as u32);
                }
                Ok(with(Some(cutoffs), None, None))
            }
            ParameterKind::Levels => {
                let levels = numbers("levels must be numbers, as in .1,.5")?;
                let iprec = family == MeasureFamily::IprecAtRecall;
                if iprec && levels.iter().any(|v| !(0.0..=1.0).contains(v)) {
                    return Err(fail("recall levels must lie in [0, 1]"));
                }
                if levels.iter().any(|v| *v < 0.0) {
                    return Err(fail("multiples of R must not be negative"));
                }
                Ok(with(None, Some(levels), None))
            }
            ParameterKind::Numbers => {
                let values = numbers("parameters must be numbers, as in utility.1,-1,0,0")?;
                match family {
                    MeasureFamily::Utility if values.len() != 4 => {
                        return Err(fail("utility takes 4 coefficients, as in utility.1,-1,0,0"))
                    }
                    MeasureFamily::Relstring if values.len() != 1 => {
                        return Err(fail("relstring takes one length, as in relstring.20"))
                    }
                    _ => {}
                }
                Ok(with(None, Some(values), Some((parameters.to_owned(), Vec::new()))))
            }
            ParameterKind::Pairs => {
                let rbp = matches!(family, MeasureFamily::Rbp | MeasureFamily::RbpResid);
                let mut gains = Vec::new();
                let mut persistence = None;
                for part in parameters.split(',') {
                    let (rel, value) =
                        part.split_once('=').ok_or_else(|| fail("gains are REL=GAIN, as in ndcg.1=3,2=9"))?;
                    let value: f64 = value
                        .trim()
                        .parse()
                        .ok()
                        .filter(|v: &f64| v.is_finite())
                        .ok_or_else(|| fail("a gain must be a number"))?;
                    if rbp && rel == "p" {
                        // trec_eval takes the last p given.
                        persistence = Some(value);
                    } else if valid_int(rel) {
                        let rel = rel.parse().map_err(|_| fail("a gain's relevance value is too large"))?;
                        gains.push((rel, value));
                    } else {
                        return Err(fail("a gain's relevance value must be an integer"));
                    }
                }
                Ok(with(None, persistence.map(|p| vec![p]), Some((parameters.to_owned(), gains))))
            }
            ParameterKind::None => Err(fail("this measure takes no parameter")),
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
        "set_p" | "setp" => MeasureFamily::SetP,
        "set_recall" | "set_r" | "setr" => MeasureFamily::SetRecall,
        "set_f" | "setf" => MeasureFamily::SetF,
        "set_map" | "setap" => MeasureFamily::SetMap,
        "infap" => MeasureFamily::InfAp,
        "rbp" => MeasureFamily::Rbp,
        "unj" | "unjudged" => MeasureFamily::Unj,
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
    /// The set the requests name, merged per family (cutoffs and levels united and sorted, as
    /// trec_eval prints them; the last parameter text of a number or gain family wins) and
    /// ordered by family. No request means `official`.
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
            let unite = family.parameter_kind() == ParameterKind::Levels;
            if let Some(levels) = levels {
                if unite {
                    entry.levels.get_or_insert_with(Vec::new).extend(levels);
                } else {
                    entry.levels = Some(levels.clone());
                }
            }
            if let Some(gains) = gains {
                if !unite {
                    // A gain text without p given for rbp keeps the default persistence.
                    if levels.is_none() {
                        entry.levels = None;
                    }
                }
                entry.gains = Some(gains.clone());
            }
        };
        for request in requests {
            let nickname = match request {
                MeasureRequest::Official => MeasureFamily::OFFICIAL,
                MeasureRequest::Set => MeasureFamily::SET,
                MeasureRequest::AllTrec => &MeasureFamily::ALL[..],
                MeasureRequest::Family { family, cutoffs, recall_levels, gains } => {
                    choose(*family, cutoffs.as_ref(), recall_levels.as_ref(), gains.as_ref());
                    continue;
                }
            };
            let all_trec = matches!(request, MeasureRequest::AllTrec);
            for &family in nickname.iter().filter(|f| !all_trec || f.in_all_trec()) {
                choose(family, None, None, None);
            }
        }
        chosen.sort_by_key(|c| c.family);
        let mut measures = Vec::new();
        for Chosen { family, cutoffs, levels, gains } in chosen {
            let name = |text: &Option<GainOverrides>| match text {
                Some((text, _)) => format!("{}_{text}", family.name()),
                None => family.name().to_owned(),
            };
            match family.parameter_kind() {
                ParameterKind::Cutoffs => {
                    let mut cutoffs = cutoffs.unwrap_or_else(|| family.default_cutoffs().to_vec());
                    cutoffs.sort_unstable();
                    cutoffs.dedup();
                    measures.extend(cutoffs.into_iter().map(|k| Measure::at_cutoff(family, k)));
                }
                ParameterKind::Levels => {
                    let mut levels = levels.unwrap_or_else(|| family.default_numbers().to_vec());
                    levels.sort_by(f64::total_cmp);
                    levels.dedup();
                    measures.extend(levels.into_iter().map(|level| Measure {
                        recall_level: Some(level),
                        name: format!("{}_{level:.2}", family.name()),
                        ..Measure::plain(family)
                    }));
                }
                ParameterKind::Numbers => measures.push(Measure {
                    numbers: levels.unwrap_or_else(|| family.default_numbers().to_vec()),
                    name: name(&gains),
                    ..Measure::plain(family)
                }),
                ParameterKind::Pairs => measures.push(Measure {
                    numbers: levels.unwrap_or_default(),
                    name: name(&gains),
                    gains: gains.map(|(_, g)| g).unwrap_or_default(),
                    ..Measure::plain(family)
                }),
                ParameterKind::None => measures.push(Measure::plain(family)),
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
    fn number_and_pair_parameters_print_as_given() {
        assert_eq!(names(&["Rprec_mult.5.0,0.2,0.35"]), ["Rprec_mult_0.20", "Rprec_mult_0.35", "Rprec_mult_5.00"]);
        assert_eq!(names(&["utility.2,-1,0,0"]), ["utility_2,-1,0,0"]);
        assert_eq!(names(&["11pt_avg..25,.5,.75"]), ["11pt_avg_.25,.5,.75"]);
        assert_eq!(names(&["relstring.20"]), ["relstring_20"]);
        assert_eq!(names(&["rbp.p=0.8,1=-1", "G.1=2"]), ["G_1=2", "rbp_p=0.8,1=-1"]);
        assert_eq!(names(&["unj"]), ["unj_5", "unj_10", "unj_20"]);
        let set = MeasureSet::from_requests(&[MeasureRequest::parse("rbp.p=0.8,1=-1").expect("parses")]);
        assert_eq!((set.measures()[0].numbers.clone(), set.measures()[0].gains.clone()), (vec![0.8], vec![(1, -1.0)]));
        let set = MeasureSet::from_requests(&[MeasureRequest::parse("11pt_avg..5,.25").expect("parses")]);
        assert_eq!(set.measures()[0].numbers, [0.5, 0.25], "kept in the order given");
    }

    #[test]
    fn all_trec_and_set_are_trec_eval_nicknames() {
        let all = names(&["all_trec"]);
        // trec_eval 10.0 prints 99 summary lines under -m all_trec (out.test.a), plus relstring.
        assert_eq!(all.len(), 100);
        assert!(!all.iter().any(|n| n == "dcg" || n == "yaap" || n.starts_with("f1")));
        assert_eq!(all[all.len() - 5..], ["rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]);
        assert_eq!(
            names(&["set"]),
            [
                "runid",
                "num_q",
                "num_ret",
                "num_rel",
                "num_rel_ret",
                "utility",
                "set_P",
                "set_relative_P",
                "set_recall",
                "set_map",
                "set_F"
            ]
        );
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
        for bad in [
            "nope",
            "P.x",
            "P.0",
            "map.5",
            "P@0",
            "Rprec@5",
            "iprec_at_recall.2",
            "ndcg.1:3",
            "utility.1,2",
            "relstring.5,6",
            "G.x=1",
            "ndcg.p=0.5",
            "rbp.q=0.5",
            "Rprec_mult.-1",
            "infAP.3",
        ] {
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
