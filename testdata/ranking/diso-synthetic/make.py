#!/usr/bin/env python3
"""Regenerates the synthetic DISO Task 2 gold keys and the lexical submission (stdlib only).

The gold keys are NOT the private DISO references: they are made up, deterministic, with the
matched/NIL counts implied by the published leaderboard (uco-stix 194/23, stix-d3fend 38/35).
A query is NIL when (37 * qid) mod n < n_nil; a matched query's gold is the candidate most
similar to the source's local name, or the second most similar one for every fourth matched
query. The submission scores every non-NIL candidate by that similarity (4 decimals, so ties
happen) and leaves NIL out, so NIL gets tau.

    python3 testdata/ranking/diso-synthetic/make.py
"""
import difflib
import json
import re
from pathlib import Path

HERE = Path(__file__).parent
POOLS = HERE.parent / "diso-oaei" / "pools"
NIL = "https://oaei.ontologymatching.org/2026/diso/NIL"
NIL_COUNTS = {"uco-stix": 23, "stix-d3fend": 35}


def words(iri):
    local = re.split(r"[#/]", iri.rstrip("/#"))[-1]
    local = re.sub(r"([a-z])([A-Z])", r"\1 \2", local)
    return re.sub(r"[_\-]+", " ", local).lower().strip()


def similarity(a, b):
    return round(difflib.SequenceMatcher(None, words(a), words(b)).ratio(), 4)


for pair, n_nil in NIL_COUNTS.items():
    pools = [json.loads(line) for line in (POOLS / pair / "pools.jsonl").open() if line.strip()]
    n = len(pools)
    out = HERE / pair
    out.mkdir(exist_ok=True)
    gold_lines, submission_lines, matched = [], [], 0
    for pool in pools:
        qid, source = pool["qid"], pool["source"]
        targets = [c for c in pool["candidates"] if c != NIL]
        scored = sorted(targets, key=lambda c: -similarity(source, c))
        if (37 * qid) % n < n_nil:
            gold = NIL
        else:
            gold = scored[1] if matched % 4 == 3 else scored[0]
            matched += 1
        gold_lines.append(f"{qid}\t{gold}\n")
        scores = {c: similarity(source, c) for c in targets}
        submission_lines.append(json.dumps({"qid": qid, "scores": scores}) + "\n")
    (out / "gold.tsv").write_text("".join(gold_lines))
    (out / "lexical.jsonl").write_text("".join(submission_lines))
    print(pair, n, "queries,", n - matched, "NIL")
