//! Golden snapshots of our own rendered output under `testdata/golden/`.
//!
//! These are snapshots, not oracles: every external number they contain is also asserted
//! directly in a test (`crates/kgeval-cli/tests/it/`). Regenerate with `cargo xtask fixtures`;
//! `cargo xtask fixtures --check` fails on any drift (run by `.ci/run`).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _};

/// One golden file: its name under `testdata/golden/` and the `kgeval` arguments producing it
/// on stdout (paths relative to the workspace root).
const FIXTURES: &[(&str, &[&str])] = &[
    ("oaei2018.txt", &["align", "--manifest", "testdata/tracks/oaei2018.toml"]),
    ("oaei2018.json", &["align", "--manifest", "testdata/tracks/oaei2018.toml", "--format", "json"]),
    ("oaei2018.csv", &["align", "--manifest", "testdata/tracks/oaei2018.toml", "--format", "csv"]),
    ("oaei2018.md", &["align", "--manifest", "testdata/tracks/oaei2018.toml", "--format", "markdown"]),
    ("alignapi-tutorial.txt", &["align", "--manifest", "testdata/tracks/alignapi-tutorial.toml", "--profile", "alignapi"]),
    (
        "diso-brick-smartenv.json",
        &[
            "align",
            "--profile",
            "diso",
            "--reference",
            "testdata/diso/brick-smartenv/Rplus.rdf",
            "--system",
            "Rapprox=testdata/diso/brick-smartenv/Rapprox.rdf",
            "--format",
            "json",
            "--per-item",
        ],
    ),
    (
        "cmt-conference-aml-threshold.txt",
        &[
            "align",
            "--reference",
            "testdata/alignment/melt/matching-eval/src/test/resources/cmt-conference.rdf",
            "--system",
            "AML=testdata/alignment/melt/examples/analyzingMatcherSimilarity/results/conference_conference-v1/cmt-conference/AML/systemAlignment.rdf",
            "--completeness",
            "complete",
            "--best-threshold",
        ],
    ),
    ("diso-synthetic-task2.json", &["rank", "--manifest", "testdata/ranking/diso-synthetic/task2.toml", "--format", "json"]),
    (
        "trec-all-trec.json",
        &[
            "trec",
            "-m",
            "all_trec",
            "-m",
            "ndcg@10",
            "-m",
            "mrr@10",
            "testdata/trec_eval/test/qrels.test",
            "testdata/trec_eval/test/results.test",
            "--format",
            "json",
        ],
    ),
    (
        "kgc-fb15k237-popularity.json",
        &[
            "kgc",
            "--test",
            "testdata/kgc/fb15k-237/test.txt.gz",
            "--filter",
            "testdata/kgc/fb15k-237/train.txt.gz",
            "--filter",
            "testdata/kgc/fb15k-237/valid.txt.gz",
            "--entities",
            "testdata/kgc/fb15k-237/entities.txt.gz",
            "--ranks",
            "testdata/kgc/baseline/popularity-ranks.tsv.gz",
            "--relation-weights",
            "triples:testdata/kgc/kgc-sparsity/data/FB-Test-S/samples.txt",
            "--format",
            "json",
        ],
    ),
];

/// Golden `report.md` and `tables.tex` of each bundled campaign: `kgeval run MANIFEST -o DIR`,
/// the files copied from DIR (their numbers are asserted directly in
/// `kgeval-cli/tests/it/campaign.rs` and `campaign_render.rs`).
const CAMPAIGNS: &[(&str, &str)] = &[
    ("campaign-oaei2018.md", "testdata/campaigns/oaei2018.toml"),
    ("campaign-diso.md", "testdata/campaigns/diso.toml"),
    ("campaign-qald3.md", "testdata/campaigns/qald3.toml"),
    ("campaign-kgc-sparsity.md", "testdata/campaigns/kgc-sparsity.toml"),
    ("campaign-trec_eval.md", "testdata/campaigns/trec_eval.toml"),
];

/// The report (`NAME`) and LaTeX tables (`NAME` with `.tex`) of `kgeval run manifest`, written
/// into a temporary folder and read back.
fn campaign_report(kgeval: &Path, name: &str, manifest: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let dir = std::env::temp_dir().join(format!("kgeval-fixtures-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(kgeval).args(["run", manifest, "-o"]).arg(&dir).output().context("running kgeval run")?;
    if !out.status.success() {
        bail!("{name}: kgeval run {manifest} exited with {}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    let report = std::fs::read(dir.join("report.md")).with_context(|| format!("{name}: reading report.md"))?;
    let tables = std::fs::read(dir.join("tables.tex")).with_context(|| format!("{name}: reading tables.tex"))?;
    std::fs::remove_dir_all(&dir)?;
    Ok(vec![(name.to_owned(), report), (name.replace(".md", ".tex"), tables)])
}

pub(crate) fn run(check: bool) -> anyhow::Result<()> {
    // `.ci/run` passes the binary `cargo test --workspace` built: `cargo build -p kgeval-cli`
    // unifies features over fewer packages and would rebuild much of the tree (≈ 200 s).
    let kgeval = match std::env::var_os("KGEVAL_BIN") {
        Some(bin) => PathBuf::from(bin),
        None => crate::build_kgeval(false)?,
    };
    let golden = Path::new("testdata/golden");
    std::fs::create_dir_all(golden)?;
    let mut drift = Vec::new();
    for (name, args) in FIXTURES {
        let out = Command::new(&kgeval).args(*args).output().with_context(|| format!("running kgeval for {name}"))?;
        if !out.status.success() {
            bail!(
                "{name}: kgeval {} exited with {}: {}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let path = golden.join(name);
        if check {
            let old = std::fs::read(&path).unwrap_or_default();
            if old != out.stdout {
                drift.push(path.display().to_string());
            }
        } else {
            std::fs::write(&path, &out.stdout).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    for (name, manifest) in CAMPAIGNS {
        for (name, report) in campaign_report(&kgeval, name, manifest)? {
            let path = golden.join(name);
            if check {
                if std::fs::read(&path).unwrap_or_default() != report {
                    drift.push(path.display().to_string());
                }
            } else {
                std::fs::write(&path, &report).with_context(|| format!("writing {}", path.display()))?;
                println!("wrote {}", path.display());
            }
        }
    }
    if !drift.is_empty() {
        bail!("golden files out of date (run `cargo xtask fixtures`): {}", drift.join(", "));
    }
    if check {
        println!("fixtures: {} golden files up to date", FIXTURES.len() + 2 * CAMPAIGNS.len());
    }
    Ok(())
}
