"""Peer agreement: the cells kgeval reads from every real Alignment-API RDF/XML fixture equal
the cells rdflib (an independent RDF/XML parser) finds in the same file.

For each file, kgeval scores the file against itself with `--write-labels`, which lists every cell
(all TP); rdflib parses the file as RDF and collects (entity1, entity2, relation, measure) of
every align:Cell, with the Alignment-API defaults (relation "=", measure 1.0). Files that are
not valid RDF/XML (the legacy <uri1> tutorial format, the repaired-'&' file, EDOAL) are left out
with the reason. Usage: rdflib_agreement.py KGEVAL_BINARY
"""
import csv
import os
import subprocess
import sys
import tempfile

import rdflib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ALIGN = ["http://knowledgeweb.semanticweb.org/heterogeneity/alignment#",
         "http://knowledgeweb.semanticweb.org/heterogeneity/alignment"]
SKIP = {
    "unparsable_alignment.rdf": "raw '&' in attributes: not well-formed XML",
    "wine2.xml": "EDOAL level-2 alignment",
}
LEGACY_DIR = "alignapi/html/tutorial"  # legacy <uri1>/<onto1> text form; not the align: RDF vocabulary


def fixtures():
    for base in ("testdata/alignment", "testdata/diso"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, base)):
            for name in sorted(files):
                if not name.endswith((".rdf", ".xml")) or name in SKIP:
                    continue
                path = os.path.join(dirpath, name)
                head = open(path, "rb").read(4096)
                if b"heterogeneity/alignment" not in head or LEGACY_DIR in path:
                    continue
                yield path


def rdflib_cells(path):
    g = rdflib.Graph()
    g.parse(path, format="xml")
    cells = set()
    for ns in ALIGN:
        n = rdflib.Namespace(ns if ns.endswith("#") else ns + "#")
        for variant in {n, rdflib.Namespace(ns)}:
            for cell in g.subjects(rdflib.RDF.type, variant["Cell"]):
                e1 = g.value(cell, variant["entity1"])
                e2 = g.value(cell, variant["entity2"])
                rel = g.value(cell, variant["relation"])
                measure = g.value(cell, variant["measure"])
                cells.add((str(e1), str(e2), str(rel).strip() if rel is not None else "=",
                           round(float(measure), 9) if measure is not None else 1.0))
    return cells


def kgeval_cells(binary, path):
    with tempfile.TemporaryDirectory() as tmp:
        labels = os.path.join(tmp, "labels.tsv")
        subprocess.run([binary, "align", "--reference", path, "--system", path, "--completeness", "complete",
                        "--write-labels", labels], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(labels, newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    return {(r["entity1"], r["entity2"], r["relation"], round(float(r["confidence"]), 9))
            for r in rows if r["label"] == "TP"}


def main():
    binary = sys.argv[1]
    checked = failed = 0
    for path in fixtures():
        try:
            theirs = rdflib_cells(path)
        except Exception as e:  # a file rdflib cannot read is not a peer check
            print(f"skip {os.path.relpath(path, ROOT)}: rdflib: {e}".splitlines()[0])
            continue
        if not theirs:
            continue
        ours = kgeval_cells(binary, path)
        checked += 1
        if ours != theirs:
            failed += 1
            print(f"DIFFER {os.path.relpath(path, ROOT)}: kgeval {len(ours)} cells, rdflib {len(theirs)}; "
                  f"only kgeval {sorted(ours - theirs)[:3]}, only rdflib {sorted(theirs - ours)[:3]}")
    print(f"rdflib-agreement: {checked - failed} passed, {failed} failed")
    sys.exit(1 if failed or checked < 20 else 0)


if __name__ == "__main__":
    main()
