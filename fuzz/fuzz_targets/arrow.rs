//! The Parquet and Arrow IPC readers (`kgeval trec` on a table, the server's table uploads):
//! the first byte picks the format (even: Parquet, odd: Arrow IPC, file or stream by the rest's
//! magic), the rest is the table. Every batch is read to the end as a run (columns resolved,
//! topics found, documents built) and as qrels: a malformed table must be an error, never a
//! panic, a hang or an allocation of a size it merely declares.
#![no_main]

use kgeval_formats::arrow::{batches_from_bytes, read_qrels, ArrowFileKind, RunColumns};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, table)) = data.split_first() else { return };
    let kind = if selector % 2 == 0 { ArrowFileKind::Parquet } else { ArrowFileKind::Ipc };
    let bytes = bytes::Bytes::copy_from_slice(table);
    if let Ok(batches) = batches_from_bytes(bytes.clone(), kind, "fuzz") {
        if let Ok(columns) = RunColumns::resolve(&batches.schema, "fuzz") {
            let mut first_row = 0;
            for batch in batches.batches {
                let Ok(batch) = batch else { break };
                if let Ok(view) = columns.batch(&batch, "fuzz", first_row) {
                    let mut docs = Vec::new();
                    for (_, rows) in view.topics() {
                        docs.clear();
                        view.push_docs(rows, &mut docs);
                    }
                }
                first_row += batch.num_rows() as u64;
            }
        }
    }
    if let Ok(batches) = batches_from_bytes(bytes, kind, "fuzz") {
        let _ = read_qrels(&batches.schema, batches.batches, "fuzz");
    }
});
