#!/usr/bin/env bash
# Seeds fuzz/corpus/<target>/ from testdata/: every file under 32 KiB whose name fits the
# target, once per selector byte (each target's first byte picks the reader).
# Usage: fuzz/seed.sh   (run from anywhere; the corpora are not committed)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seed() { # target selectors find-expression... (0 selectors: the file as it is)
    local target=$1 selectors=$2; shift 2
    local dir="$root/fuzz/corpus/$target"
    mkdir -p "$dir"
    find "$root/testdata" -type f -size -32k \( "$@" \) -print0 | while IFS= read -r -d '' file; do
        local name; name=$(echo "${file#"$root"/testdata/}" | tr '/' '_')
        if ((selectors == 0)); then
            cp "$file" "$dir/$name"
        fi
        for ((s = 0; s < selectors; s++)); do
            { printf "\\x$(printf %02x "$s")"; cat "$file"; } >"$dir/$s-$name"
        done
    done
}
seed align 10 -name '*.rdf' -o -name '*.owl' -o -name '*.ttl' -o -name '*.nt' -o -name '*.tsv' -o -name '*.csv'
seed rdfxml_diff 8 -name '*.rdf' -o -name '*.owl'
seed rank 5 -path '*ranking*' -o -path '*diso*' -o -name '*.jsonl'
seed trec 2 -path '*trec*'
seed kgc 8 -path '*kgc*'
seed qald 2 -path '*qald*'
seed lexicon 4 -path '*lemon*'
seed meta 6 -name '*.csv' -o -name '*.json' -o -path '*trec_eval*'
seed manifest 3 -name '*.toml'
seed npy 0 -name '*.npy'
seed arrow 2 -name '*.parquet' -o -name '*.feather' -o -name '*.arrow'
