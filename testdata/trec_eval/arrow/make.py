"""Writes this folder's Parquet and Arrow IPC copies of ../test/qrels.test and
../test/results.test (run from the repository root: python testdata/trec_eval/arrow/make.py).

Columns: qrels `qid, docno, rel` (utf8, utf8, int32); run `query_id, doc_id, score` (utf8,
dictionary<int32, utf8>, float64), in file order. Parquet Snappy-compressed, IPC uncompressed
(the codecs `kgeval` reads)."""

from pathlib import Path

import pyarrow as pa
import pyarrow.feather
import pyarrow.parquet

HERE = Path(__file__).resolve().parent
TEST = HERE.parent / "test"

q = [line.split() for line in (TEST / "qrels.test").read_text().splitlines() if line.strip()]
qrels = pa.table({"qid": [r[0] for r in q], "docno": [r[2] for r in q], "rel": pa.array([int(r[3]) for r in q], pa.int32())})
r = [line.split() for line in (TEST / "results.test").read_text().splitlines() if line.strip()]
run = pa.table({"query_id": [x[0] for x in r], "doc_id": pa.array([x[2] for x in r]).dictionary_encode(), "score": [float(x[4]) for x in r]})
pyarrow.parquet.write_table(qrels, HERE / "qrels.test.parquet", compression="snappy")
pyarrow.parquet.write_table(run, HERE / "results.test.parquet", compression="snappy")
pyarrow.feather.write_feather(run, HERE / "results.test.feather", compression="uncompressed")
