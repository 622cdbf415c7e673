//! The cross-family per-item score table: system × item × metric → f64.

use indexmap::{IndexMap, IndexSet};
use rustc_hash::{FxBuildHasher, FxHashMap};

use crate::metric_names::{canonical_metric_name, metric_info, MetricInfo};

/// A system (run, matcher, submission) in a [`ScoreTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemId(pub u32);
/// An item (alignment pair, ranking query, IR topic, QALD question, lexicon URI, KGC question).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId(pub u32);
/// A metric name (`precision`, `mrr`, `map`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetricId(pub u32);

/// An item with its grouping keys (`pair`, `type`, `side`, `relation_category`, …), so that
/// breakdowns are group-bys rather than bespoke code.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ItemInfo {
    /// The item's name, unique in the table.
    pub name: String,
    /// Grouping keys and values, in insertion order.
    pub groups: Vec<(String, String)>,
}

impl ItemInfo {
    /// The value of grouping key `key`.
    #[must_use]
    pub fn group(&self, key: &str) -> Option<&str> {
        self.groups.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// One value per (system, item, metric), filled by every evaluation family and consumed by
/// meta-evaluation (Kendall tau between system orderings, paired significance tests, …).
///
/// Systems, items and metrics keep their insertion order; iteration is deterministic. Each
/// metric carries a [`MetricInfo`] (direction, aggregation, level; by default the
/// vocabulary's, [`metric_info`]); each (system, metric) may carry a headline value (the
/// family's aggregate: MACRO MRR, micro precision, trec_eval's summary line), which is what
/// `--fail-under` gates and what the campaign report prints. Tables of several families or
/// systems combine with [`ScoreTable::merge`].
///
/// ```
/// use kgeval_model::ScoreTable;
/// let mut table = ScoreTable::new();
/// let sys = table.system("AML");
/// let f1 = table.metric("f1");
/// let a = table.item("cmt-conference", &[("track", "conference")]);
/// let b = table.item("cmt-confof", &[("track", "conference")]);
/// table.set(sys, a, f1, 0.5);
/// table.set(sys, b, f1, 1.0);
/// assert_eq!(table.mean(sys, f1), Some(0.75));
/// let by_track = table.group_mean(sys, f1, "track");
/// assert_eq!(by_track["conference"], (2, 0.75));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ScoreTable {
    systems: IndexSet<String, FxBuildHasher>,
    items: IndexMap<String, ItemInfo, FxBuildHasher>,
    metrics: IndexMap<String, MetricInfo, FxBuildHasher>,
    values: FxHashMap<(SystemId, ItemId, MetricId), f64>,
    headlines: FxHashMap<(SystemId, MetricId), f64>,
}

/// Two tables disagree: merging them would silently pick one value.
#[derive(Debug, Clone, PartialEq)]
pub enum MergeConflict {
    /// The same (system, item, metric) holds two different values.
    Value {
        /// The system.
        system: String,
        /// The item.
        item: String,
        /// The metric.
        metric: String,
        /// The value in the table merged into.
        ours: f64,
        /// The value in the other table.
        theirs: f64,
    },
    /// The same (system, metric) has two different headline values.
    Headline {
        /// The system.
        system: String,
        /// The metric.
        metric: String,
        /// The value in the table merged into.
        ours: f64,
        /// The value in the other table.
        theirs: f64,
    },
    /// The same metric name means different things (direction, aggregation or level).
    Metric {
        /// The metric.
        metric: String,
        /// Its info in the table merged into.
        ours: MetricInfo,
        /// Its info in the other table.
        theirs: MetricInfo,
    },
}

impl std::fmt::Display for MergeConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeConflict::Value { system, item, metric, ours, theirs } => write!(
                f,
                "system {system:?}, item {item:?}, metric {metric:?}: found {theirs} in one table and {ours} in the other, expected one value (rename a system to keep both)"
            ),
            MergeConflict::Headline { system, metric, ours, theirs } => write!(
                f,
                "system {system:?}, metric {metric:?}: found headline {theirs} in one table and {ours} in the other, expected one value (rename a system to keep both)"
            ),
            MergeConflict::Metric { metric, ours, theirs } => {
                write!(f, "metric {metric:?}: found {theirs} in one table and {ours} in the other, expected one meaning")
            }
        }
    }
}

impl std::error::Error for MergeConflict {}

/// What [`ScoreTable::merge`] added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MergeCounts {
    /// Systems new to the table.
    pub new_systems: usize,
    /// Items new to the table.
    pub new_items: usize,
    /// Metrics new to the table.
    pub new_metrics: usize,
    /// Values added (equal values already present are not counted).
    pub new_values: usize,
}

impl ScoreTable {
    /// An empty table.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of system `name`, adding it if new.
    pub fn system(&mut self, name: &str) -> SystemId {
        SystemId(self.systems.insert_full(name.to_owned()).0 as u32)
    }

    /// The id of metric `name`, adding it with the vocabulary's [`metric_info`] if new.
    pub fn metric(&mut self, name: &str) -> MetricId {
        if let Some(index) = self.metrics.get_index_of(name) {
            return MetricId(index as u32);
        }
        self.metric_with_info(name, metric_info(name))
    }

    /// The id of metric `name`, adding it with `info` if new or setting `info` if it exists.
    pub fn metric_with_info(&mut self, name: &str, info: MetricInfo) -> MetricId {
        let (index, _) = self.metrics.insert_full(name.to_owned(), info);
        MetricId(index as u32)
    }

    /// What a metric is (direction, aggregation, level).
    #[must_use]
    pub fn metric_info(&self, id: MetricId) -> MetricInfo {
        self.metrics[id.0 as usize]
    }

    /// Sets the headline value of a system and metric (the family's aggregate).
    pub fn set_headline(&mut self, system: SystemId, metric: MetricId, value: f64) {
        self.headlines.insert((system, metric), value);
    }

    /// The headline value of a system and metric.
    #[must_use]
    pub fn headline(&self, system: SystemId, metric: MetricId) -> Option<f64> {
        self.headlines.get(&(system, metric)).copied()
    }

    /// Every headline as `(system, metric, value)`, sorted by ids.
    #[must_use]
    pub fn headlines(&self) -> Vec<(SystemId, MetricId, f64)> {
        let mut rows: Vec<_> = self.headlines.iter().map(|(&(s, m), &v)| (s, m, v)).collect();
        rows.sort_unstable_by_key(|&(s, m, _)| (s, m));
        rows
    }

    /// The id of a metric by name, when the table has it.
    #[must_use]
    pub fn find_metric(&self, name: &str) -> Option<MetricId> {
        self.metrics.get_index_of(name).map(|i| MetricId(i as u32))
    }

    /// The id of a system by name, when the table has it.
    #[must_use]
    pub fn find_system(&self, name: &str) -> Option<SystemId> {
        self.systems.get_index_of(name).map(|i| SystemId(i as u32))
    }

    /// The same table with every metric under its canonical name
    /// ([`canonical_metric_name`]: `rr` → `recip_rank`, `hits_at_10` → `hits@10`) and the
    /// vocabulary's info for metrics that were renamed.
    #[must_use]
    pub fn canonical(&self) -> ScoreTable {
        let mut out = ScoreTable::new();
        out.systems.clone_from(&self.systems);
        out.items.clone_from(&self.items);
        let ids: Vec<MetricId> = self
            .metrics
            .iter()
            .map(|(name, &info)| {
                let canonical = canonical_metric_name(name);
                let info = if canonical == name.as_str() { info } else { metric_info(&canonical) };
                out.metric_with_info(&canonical, info)
            })
            .collect();
        for (&(s, i, m), &v) in &self.values {
            out.values.insert((s, i, ids[m.0 as usize]), v);
        }
        for (&(s, m), &v) in &self.headlines {
            out.headlines.insert((s, ids[m.0 as usize]), v);
        }
        out
    }

    /// Adds every system, item, metric, value and headline of `other`, matched by name.
    ///
    /// # Errors
    /// A [`MergeConflict`] when a (system, item, metric) or a headline holds a different value
    /// in each table, or a metric has a different [`MetricInfo`]; `self` is then unchanged.
    pub fn merge(&mut self, other: &ScoreTable) -> Result<MergeCounts, MergeConflict> {
        for (name, &theirs) in &other.metrics {
            if let Some(&ours) = self.metrics.get(name) {
                if ours != theirs {
                    return Err(MergeConflict::Metric { metric: name.clone(), ours, theirs });
                }
            }
        }
        let lookup = |s: SystemId, i: Option<ItemId>, m: MetricId| {
            Some((
                self.systems.get_index_of(other.system_name(s))?,
                match i {
                    Some(i) => Some(self.items.get_index_of(&other.item_info(i).name)?),
                    None => None,
                },
                self.metrics.get_index_of(other.metric_name(m))?,
            ))
        };
        for (&(s, i, m), &theirs) in &other.values {
            if let Some((s2, Some(i2), m2)) = lookup(s, Some(i), m) {
                let key = (SystemId(s2 as u32), ItemId(i2 as u32), MetricId(m2 as u32));
                if let Some(&ours) = self.values.get(&key) {
                    if !same_value(ours, theirs) {
                        return Err(MergeConflict::Value {
                            system: other.system_name(s).to_owned(),
                            item: other.item_info(i).name.clone(),
                            metric: other.metric_name(m).to_owned(),
                            ours,
                            theirs,
                        });
                    }
                }
            }
        }
        for (&(s, m), &theirs) in &other.headlines {
            if let Some((s2, None, m2)) = lookup(s, None, m) {
                if let Some(&ours) = self.headlines.get(&(SystemId(s2 as u32), MetricId(m2 as u32))) {
                    if !same_value(ours, theirs) {
                        return Err(MergeConflict::Headline {
                            system: other.system_name(s).to_owned(),
                            metric: other.metric_name(m).to_owned(),
                            ours,
                            theirs,
                        });
                    }
                }
            }
        }
        let mut counts = MergeCounts {
            new_systems: other.systems().filter(|s| !self.systems.contains(*s)).count(),
            new_items: other.items().filter(|i| !self.items.contains_key(&i.name)).count(),
            new_metrics: other.metrics().filter(|m| !self.metrics.contains_key(*m)).count(),
            new_values: 0,
        };
        let systems: Vec<SystemId> = other.systems().map(|s| self.system(s)).collect();
        let items: Vec<ItemId> = other
            .items()
            .map(|info| {
                let groups: Vec<(&str, &str)> = info.groups.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
                self.item(&info.name, &groups)
            })
            .collect();
        let metrics: Vec<MetricId> =
            other.metrics.iter().map(|(name, &info)| self.metric_with_info(name, info)).collect();
        for (s, i, m, v) in other.rows() {
            let key = (systems[s.0 as usize], items[i.0 as usize], metrics[m.0 as usize]);
            if self.values.insert(key, v).is_none() {
                counts.new_values += 1;
            }
        }
        for (s, m, v) in other.headlines() {
            self.headlines.insert((systems[s.0 as usize], metrics[m.0 as usize]), v);
        }
        Ok(counts)
    }

    /// The id of item `name`, adding it with `groups` if new (groups of an existing item are
    /// extended with keys it did not have).
    pub fn item(&mut self, name: &str, groups: &[(&str, &str)]) -> ItemId {
        let entry = self.items.entry(name.to_owned());
        let index = entry.index();
        let info = entry.or_insert_with(|| ItemInfo { name: name.to_owned(), groups: Vec::new() });
        for (k, v) in groups {
            if info.group(k).is_none() {
                info.groups.push(((*k).to_owned(), (*v).to_owned()));
            }
        }
        ItemId(index as u32)
    }

    /// Sets one value (overwriting).
    pub fn set(&mut self, system: SystemId, item: ItemId, metric: MetricId, value: f64) {
        self.values.insert((system, item, metric), value);
    }

    /// One value.
    #[must_use]
    pub fn get(&self, system: SystemId, item: ItemId, metric: MetricId) -> Option<f64> {
        self.values.get(&(system, item, metric)).copied()
    }

    /// Looks up ids by name.
    #[must_use]
    pub fn find(&self, system: &str, item: &str, metric: &str) -> Option<(SystemId, ItemId, MetricId)> {
        Some((
            SystemId(self.systems.get_index_of(system)? as u32),
            ItemId(self.items.get_index_of(item)? as u32),
            MetricId(self.metrics.get_index_of(metric)? as u32),
        ))
    }

    /// System names in insertion order (index = [`SystemId`]).
    pub fn systems(&self) -> impl ExactSizeIterator<Item = &str> {
        self.systems.iter().map(String::as_str)
    }

    /// Items in insertion order (index = [`ItemId`]).
    pub fn items(&self) -> impl ExactSizeIterator<Item = &ItemInfo> {
        self.items.values()
    }

    /// Metric names in insertion order (index = [`MetricId`]).
    pub fn metrics(&self) -> impl ExactSizeIterator<Item = &str> {
        self.metrics.keys().map(String::as_str)
    }

    /// The name of a system.
    #[must_use]
    pub fn system_name(&self, id: SystemId) -> &str {
        &self.systems[id.0 as usize]
    }

    /// The info of an item.
    #[must_use]
    pub fn item_info(&self, id: ItemId) -> &ItemInfo {
        &self.items[id.0 as usize]
    }

    /// The name of a metric.
    #[must_use]
    pub fn metric_name(&self, id: MetricId) -> &str {
        self.metrics.get_index(id.0 as usize).map_or("", |(name, _)| name.as_str())
    }

    /// Every stored value as `(system, item, metric, value)`, sorted by ids (deterministic).
    #[must_use]
    pub fn rows(&self) -> Vec<(SystemId, ItemId, MetricId, f64)> {
        let mut rows: Vec<_> = self.values.iter().map(|(&(s, i, m), &v)| (s, i, m, v)).collect();
        rows.sort_unstable_by_key(|&(s, i, m, _)| (s, i, m));
        rows
    }

    /// The values of one system and metric, in item order, skipping items without a value.
    #[must_use]
    pub fn column(&self, system: SystemId, metric: MetricId) -> Vec<(ItemId, f64)> {
        (0..self.items.len() as u32)
            .map(ItemId)
            .filter_map(|item| self.get(system, item, metric).map(|v| (item, v)))
            .collect()
    }

    /// The mean over items of one system and metric (`None` when no item has a value).
    #[must_use]
    pub fn mean(&self, system: SystemId, metric: MetricId) -> Option<f64> {
        let column = self.column(system, metric);
        (!column.is_empty()).then(|| column.iter().map(|(_, v)| v).sum::<f64>() / column.len() as f64)
    }

    /// `(count, mean)` per value of grouping key `key`, in first-seen order. Items without
    /// that key are left out.
    #[must_use]
    pub fn group_mean(&self, system: SystemId, metric: MetricId, key: &str) -> IndexMap<String, (usize, f64)> {
        let mut sums: IndexMap<String, (usize, f64)> = IndexMap::new();
        for (item, value) in self.column(system, metric) {
            if let Some(group) = self.item_info(item).group(key) {
                let slot = sums.entry(group.to_owned()).or_insert((0, 0.0));
                slot.0 += 1;
                slot.1 += value;
            }
        }
        for slot in sums.values_mut() {
            slot.1 /= slot.0 as f64;
        }
        sums
    }

    /// Whether the table holds no value.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The number of stored values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// The values alone, as a `--per-item` JSON round trip keeps them: no grouping keys, no
    /// headlines, the vocabulary's [`MetricInfo`] for every metric; systems, items and metrics
    /// that hold no value are left out.
    #[must_use]
    pub fn values_only(&self) -> ScoreTable {
        let mut out = ScoreTable::new();
        for (s, i, m, v) in self.rows() {
            let s = out.system(self.system_name(s));
            let i = out.item(&self.item_info(i).name, &[]);
            let m = out.metric(self.metric_name(m));
            out.set(s, i, m, v);
        }
        out
    }

    /// Whether both tables hold the same systems, items (names and groups), metrics (names and
    /// info), values and headlines, whatever the insertion order.
    #[must_use]
    pub fn same_content(&self, other: &ScoreTable) -> bool {
        let named = |t: &ScoreTable| {
            let mut rows: Vec<(String, String, String, u64)> = t
                .rows()
                .into_iter()
                .map(|(s, i, m, v)| {
                    (t.system_name(s).to_owned(), t.item_info(i).name.clone(), t.metric_name(m).to_owned(), v.to_bits())
                })
                .collect();
            rows.extend(t.headlines().into_iter().map(|(s, m, v)| {
                (t.system_name(s).to_owned(), String::new(), t.metric_name(m).to_owned(), v.to_bits())
            }));
            rows.sort();
            let mut items: Vec<&ItemInfo> = t.items().collect();
            items.sort_by(|a, b| a.name.cmp(&b.name));
            let mut metrics: Vec<(&String, &MetricInfo)> = t.metrics.iter().collect();
            metrics.sort_by(|a, b| a.0.cmp(b.0));
            let mut systems: Vec<&str> = t.systems().collect();
            systems.sort_unstable();
            (
                rows,
                items.into_iter().cloned().collect::<Vec<_>>(),
                metrics.into_iter().map(|(n, i)| (n.clone(), *i)).collect::<Vec<_>>(),
                systems.into_iter().map(str::to_owned).collect::<Vec<_>>(),
            )
        };
        named(self) == named(other)
    }
}

/// Equal values, NaN equal to NaN.
fn same_value(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric_names::{Aggregation, Direction};

    fn table(system: &str, items: &[(&str, f64)], metric: &str) -> ScoreTable {
        let mut t = ScoreTable::new();
        let s = t.system(system);
        let m = t.metric(metric);
        for &(item, v) in items {
            let i = t.item(item, &[("family", "x")]);
            t.set(s, i, m, v);
        }
        t
    }

    #[test]
    fn merge_two_systems_and_two_families() {
        let mut a = table("A", &[("q1", 1.0), ("q2", 0.5)], "rr");
        let b = table("B", &[("q2", 0.25), ("q3", 1.0)], "rr");
        let counts = a.merge(&b).expect("no conflict");
        assert_eq!(counts, MergeCounts { new_systems: 1, new_items: 1, new_metrics: 0, new_values: 2 });
        let (sb, _, rr) = a.find("B", "q2", "rr").expect("B q2");
        assert_eq!(a.mean(sb, rr), Some(0.625));
        assert_eq!(a.systems().collect::<Vec<_>>(), ["A", "B"]);
        // A second family (an alignment table) joins the same table under its own metrics.
        let c = table("A", &[("cmt-conference", 0.8)], "f1");
        a.merge(&c).expect("no conflict");
        assert_eq!(a.metrics().collect::<Vec<_>>(), ["rr", "f1"]);
        assert_eq!(a.len(), 5);
        // Merging again is a no-op; merging a different value is an error naming it.
        assert_eq!(a.merge(&b).expect("same values").new_values, 0);
        let clash = table("B", &[("q2", 0.3)], "rr");
        let error = a.merge(&clash).unwrap_err();
        assert!(error.to_string().starts_with("system \"B\", item \"q2\", metric \"rr\": found 0.3"), "{error}");
        assert_eq!(a.len(), 5, "unchanged on conflict");
    }

    #[test]
    fn canonical_names_and_info() {
        let mut t = table("A", &[("q1", 0.5)], "rr");
        let s = t.system("A");
        let hits = t.metric("hits_at_10");
        let rank = t.metric("rank");
        t.set_headline(s, hits, 0.75);
        assert_eq!(t.metric_info(rank).direction, Direction::Lower);
        let c = t.canonical();
        assert_eq!(c.metrics().collect::<Vec<_>>(), ["recip_rank", "hits@10", "rank"]);
        let (s, i, m) = c.find("A", "q1", "recip_rank").expect("renamed");
        assert_eq!(c.get(s, i, m), Some(0.5));
        assert_eq!(c.headline(s, c.find_metric("hits@10").expect("hits")), Some(0.75));
        // A metric with another meaning under the same name does not merge.
        let mut micro = ScoreTable::new();
        micro.metric_with_info("precision", MetricInfo::MEAN.with_aggregation(Aggregation::MicroFromCounts));
        let mut macro_ = ScoreTable::new();
        macro_.metric("precision");
        assert!(matches!(micro.merge(&macro_), Err(MergeConflict::Metric { .. })));
    }

    #[test]
    fn same_content_ignores_order() {
        let mut a = table("A", &[("q1", 1.0)], "rr");
        let b = table("B", &[("q1", 0.5)], "rr");
        let mut ab = a.clone();
        ab.merge(&b).expect("merge");
        let mut ba = b.clone();
        ba.merge(&a).expect("merge");
        assert!(ab.same_content(&ba));
        let s = a.system("A");
        let m = a.metric("rr");
        let i = a.item("q1", &[]);
        a.set(s, i, m, 0.9);
        assert!(!a.same_content(&table("A", &[("q1", 1.0)], "rr")));
    }
}
