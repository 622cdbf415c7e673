//! The cross-family per-item score table: system × item × metric → f64.

use indexmap::{IndexMap, IndexSet};
use rustc_hash::{FxBuildHasher, FxHashMap};

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
/// Systems, items and metrics keep their insertion order; iteration is deterministic.
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
    metrics: IndexSet<String, FxBuildHasher>,
    values: FxHashMap<(SystemId, ItemId, MetricId), f64>,
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

    /// The id of metric `name`, adding it if new.
    pub fn metric(&mut self, name: &str) -> MetricId {
        MetricId(self.metrics.insert_full(name.to_owned()).0 as u32)
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
        self.metrics.iter().map(String::as_str)
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
        &self.metrics[id.0 as usize]
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
}
