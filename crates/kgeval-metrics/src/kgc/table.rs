//! The per-item score table of a KGC evaluation.

use kgeval_model::kgc::RelationCategory;
use kgeval_model::trec::MeasureSet;
use kgeval_model::{ScoreTable, TermId};
use rustc_hash::FxHashMap;

use super::data::KgcData;
use super::ir_list::IrValues;
use crate::ranking::{record_into_table, RankRecord};

/// One system's values: `level=micro` items `{qid}/{answer}` (the answer's `rr`,
/// `hits_at_k`, `rank`) and `level=macro` items `{qid}` (the best answer's `rr`, `hits_at_k`,
/// `rank`, then the IR measures), each with `side`, `relation` and (when known) `category`.
#[allow(clippy::too_many_arguments)]
pub(super) fn fill(
    data: &KgcData<'_>,
    system: &str,
    ks: &[u32],
    records: &[Vec<RankRecord>],
    best: &[RankRecord],
    category_of: &FxHashMap<TermId, RelationCategory>,
    ir: Option<&IrValues>,
    measures: &MeasureSet,
) -> ScoreTable {
    let mut table = ScoreTable::new();
    let system = table.system(system);
    let ir_metrics: Vec<_> = measures.measures().iter().map(|m| table.metric(&m.name)).collect();
    let names = &data.vocabulary;
    for (index, (q, (records, best))) in
        data.test.questions.questions().iter().zip(records.iter().zip(best)).enumerate()
    {
        let relation = names.relations.resolve(q.key.relation);
        let category = category_of.get(&q.key.relation).map(|c| c.name());
        let mut groups = vec![("level", "macro"), ("side", q.key.side.name()), ("relation", relation)];
        if let Some(category) = category {
            groups.push(("category", category));
        }
        let item = table.item(&q.id, &groups);
        record_into_table(&mut table, system, item, best, ks);
        if let Some(values) = ir.and_then(|ir| ir.topics[index].as_ref()) {
            for (&metric, &value) in ir_metrics.iter().zip(values) {
                table.set(system, item, metric, value);
            }
        }
        groups[0].1 = "micro";
        for (&answer, record) in q.answers.iter().zip(records) {
            let item = table.item(&format!("{}/{}", q.id, names.entities.resolve(answer)), &groups);
            record_into_table(&mut table, system, item, record, ks);
        }
    }
    table
}
