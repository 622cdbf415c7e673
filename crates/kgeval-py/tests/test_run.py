"""kgeval.run: a campaign into a report folder, as `kgeval run MANIFEST -o DIR` (issue 27 item 6)."""

import json
import os
from pathlib import Path

import pytest

import kgeval

ROOT = Path(__file__).resolve().parents[3]
QALD3 = ROOT / "testdata" / "campaigns" / "qald3.toml"


def test_a_bundled_campaign_writes_every_file(tmp_path):
    out = tmp_path / "report"
    results = kgeval.run(QALD3, out, precision=3)
    names = sorted(p.name for p in out.iterdir())
    assert names == [".kgeval-run", "index.html", "lexicon.csv", "qa.csv", "report.md", "results.json", "tables.tex"]
    assert results["failed"] == {}
    on_disk = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [t["name"] for t in on_disk["tasks"]] == [t["name"] for t in results["tasks"]] == ["qa", "lexicon"]
    # The questions file as a submission: 4 right of 99 (the out-of-scope questions).
    qa = next(t for t in results["tasks"] if t["name"] == "qa")
    unanswered = next(s for s in qa["result"]["systems"] if s["system"] == "unanswered")
    assert unanswered["global"]["right"] == 4
    # report.md at 3 decimals; a second run into the same folder replaces its own files.
    assert "0.040" in (out / "report.md").read_text(encoding="utf-8")
    kgeval.run(QALD3, out)
    assert sorted(p.name for p in out.iterdir()) == names


def test_a_folder_kgeval_did_not_write_is_refused_untouched(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(kgeval.Error, match="found a folder that kgeval did not write"):
        kgeval.run(QALD3, out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_the_manifest_folder_is_refused(tmp_path):
    with pytest.raises(kgeval.Error, match="an input of this run"):
        kgeval.run(QALD3, QALD3.parent)


def test_a_failing_task_is_reported_not_raised(tmp_path):
    manifest = tmp_path / "camp.toml"
    (tmp_path / "gold.ttl").write_text("this is < not turtle\n", encoding="utf-8")
    (tmp_path / "uris.txt").write_text("http://dbpedia.org/ontology/Muscle\n", encoding="utf-8")
    manifest.write_text(
        'title = "t"\n[[task]]\nname = "broken"\nfamily = "lexicon"\ngold = "gold.ttl"\n'
        'uris = "uris.txt"\nsystems = ["gold.ttl"]\n',
        encoding="utf-8",
    )
    results = kgeval.run(manifest, tmp_path / "out")
    assert list(results["failed"]) == ["broken"]
    assert "gold.ttl" in results["failed"]["broken"]
    assert (tmp_path / "out" / "report.md").is_file()


@pytest.mark.parametrize(
    "manifest, out, precision, message",
    [
        (42, "out", None, "expected two paths"),
        (str(QALD3), "out", -1, "precision"),
        (str(QALD3), "out", 18, "precision"),
        ("no-such.toml", "out", None, "no-such.toml"),
    ],
)
def test_bad_arguments_raise_kgeval_errors(tmp_path, manifest, out, precision, message):
    with pytest.raises(kgeval.Error, match=message):
        kgeval.run(manifest, tmp_path / out, precision=precision)
    assert not (tmp_path / out).exists()
