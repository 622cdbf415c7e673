"""Parquet files as writers make them: polars' default ``write_parquet()`` (ZSTD) and pyarrow
with every codec kgeval reads (Snappy, ZSTD, LZ4, gzip, uncompressed) score as the same rows
given in memory; a codec the build leaves out (Brotli) is a ParseError naming it."""

import pytest

import kgeval
import kgeval.trec

pa = pytest.importorskip("pyarrow")
import pyarrow.parquet  # noqa: E402

MEASURES = ["map", "P.5", "ndcg_cut.10", "recip_rank", "num_q", "num_ret"]


def tables():
    """A small qrels and run with graded relevance, ties, unjudged and unretrieved topics."""
    qrels = {"qid": [], "docno": [], "rel": []}
    run = {"qid": [], "docno": [], "score": []}
    for t in range(12):
        for d in range(6):
            if t % 4 != 0:
                qrels["qid"].append(f"q{t}")
                qrels["docno"].append(f"d{d}")
                qrels["rel"].append((d + t) % 3)
            if t % 4 != 1:
                run["qid"].append(f"q{t}")
                run["docno"].append(f"d{(d * 5 + t) % 7}")
                run["score"].append(float((d * 3 + t) % 4))
    return pa.table({**qrels, "rel": pa.array(qrels["rel"], pa.int64())}), pa.table(run)


@pytest.mark.parametrize("codec", ["zstd", "lz4", "gzip", "snappy", "none"])  # pyarrow's lz4: LZ4_RAW
def test_pyarrow_parquet_of_every_codec_reads(tmp_path, codec):
    qrels, run = tables()
    paths = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    for table, path in zip((qrels, run), paths):
        pyarrow.parquet.write_table(table, path, compression=codec)
    written = pyarrow.parquet.ParquetFile(paths[1]).metadata.row_group(0).column(0).compression
    assert written == {"none": "UNCOMPRESSED"}.get(codec, codec.upper())
    want = kgeval.trec.evaluate(qrels, run, MEASURES, complete=True)
    assert kgeval.trec.evaluate(str(paths[0]), str(paths[1]), MEASURES, complete=True) == want
    # A partition of the run read from its file.
    assert kgeval.trec.accumulate(paths[0], paths[1], MEASURES).finalize(paths[0]) == kgeval.trec.evaluate(
        qrels, run, MEASURES, per_query=False
    )


def test_polars_default_write_parquet_is_zstd_and_reads(tmp_path):
    pl = pytest.importorskip("polars")
    qrels, run = tables()
    paths = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    for table, path in zip((qrels, run), paths):
        pl.from_arrow(table).write_parquet(path)
    assert pyarrow.parquet.ParquetFile(paths[1]).metadata.row_group(0).column(0).compression == "ZSTD"
    got = kgeval.trec.evaluate(str(paths[0]), str(paths[1]), MEASURES)
    assert got == kgeval.trec.evaluate(qrels, run, MEASURES)


def test_a_codec_the_build_leaves_out_is_named(tmp_path):
    qrels, run = tables()
    paths = tmp_path / "qrels.parquet", tmp_path / "run.parquet"
    pyarrow.parquet.write_table(qrels, paths[0])
    pyarrow.parquet.write_table(run, paths[1], compression="brotli")
    with pytest.raises(kgeval.ParseError, match="run.parquet: .*brotli"):
        kgeval.trec.evaluate(str(paths[0]), str(paths[1]), MEASURES)
