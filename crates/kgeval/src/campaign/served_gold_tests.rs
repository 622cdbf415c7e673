//! Every served family reads its gold once: a served task scores uploads against the gold it
//! read at the start — the same scores as the family's own `run` on the same files — and
//! keeps scoring them, the same, once the gold files are gone.

use std::path::Path;
use std::sync::Arc;

use super::ServedCampaign;
use crate::toml_doc::TomlManifest;
use crate::{Input, NoProgress, SystemInput};

/// The bundled files copied into the folder (`FROM`, `TO` relative to it).
pub(super) const FILES: [(&str, &str); 12] = [
    ("qald/qald3/dbpedia-train-answers.xml", "qald-gold.xml"),
    ("lemon/qald3-dbpedia_train_lexicon_en.ttl", "lexicon.ttl"),
    ("lemon/qald3-dbpedia_train_classes_properties.txt", "uris.txt"),
    ("diso/brick-smartenv/Rplus.rdf", "Rplus.rdf"),
    ("ranking/diso-oaei/pools/uco-stix/pools.jsonl", "uco-pools.jsonl"),
    ("ranking/diso-synthetic/uco-stix/gold.tsv", "uco-gold.tsv"),
    ("ranking/diso-oaei/pools/stix-d3fend/pools.jsonl", "d3-pools.jsonl"),
    ("ranking/diso-synthetic/stix-d3fend/gold.tsv", "d3-gold.tsv"),
    ("kgc/mini/test.txt", "test.txt"),
    ("kgc/mini/train.txt", "train.txt"),
    ("trec_eval/test/qrels.test", "qrels.txt"),
    ("qald/qald3/dbpedia-train.xml", "unused.xml"),
];

pub(super) const CAMPAIGN: &str = "\
[[task]]\nname = \"qa\"\nfamily = \"qald\"\ngold = \"qald-gold.xml\"\nprimary = \"qald_f\"\n\
[[task]]\nname = \"lex\"\nfamily = \"lexicon\"\ngold = \"lexicon.ttl\"\nuris = \"uris.txt\"\nprimary = \"f1\"\n\
[[task]]\nname = \"t1\"\nfamily = \"align\"\nprofile = \"diso\"\nprimary = \"f1\"\n\
[[task.pair]]\nname = \"brick-smartenv\"\nreference = \"Rplus.rdf\"\n\
[[task]]\nname = \"t2\"\nfamily = \"rank\"\nprofile = \"diso\"\nprimary = \"mrr\"\n\
[[task.pair]]\nname = \"uco-stix\"\npools = \"uco-pools.jsonl\"\ngold = \"uco-gold.tsv\"\n\
[[task.pair]]\nname = \"stix-d3fend\"\npools = \"d3-pools.jsonl\"\ngold = \"d3-gold.tsv\"\n\
[[task]]\nname = \"lp\"\nfamily = \"kgc\"\ntest = \"test.txt\"\nfilters = [\"train.txt\"]\nprimary = \"micro_mrr\"\n\
[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\nmeasures = [\"map\"]\nprimary = \"map\"\n";

pub(super) fn bundled(path: &str) -> Arc<[u8]> {
    Arc::from(std::fs::read(Path::new("../../testdata").join(path)).expect("bundled data"))
}

/// Each task's upload: a system's file (a multi-pair task's parts bundled).
fn upload(task: &super::ServedTask) -> Arc<[u8]> {
    match task.name.as_str() {
        "qa" => bundled("qald/qald3/dbpedia-train.xml"),
        "lex" => bundled("lemon/qald3-dbpedia-test-lexicon-en.ttl"),
        "t1" => bundled("diso/brick-smartenv/Rapprox.rdf"),
        "t2" => {
            let lexical = |pair: &str| bundled(&format!("ranking/diso-synthetic/{pair}/lexical.jsonl"));
            let parts =
                [("uco-stix".to_owned(), lexical("uco-stix")), ("stix-d3fend".to_owned(), lexical("stix-d3fend"))];
            task.bundle(&parts).expect("both pairs")
        }
        "lp" => bundled("kgc/mini/ranks.tsv"),
        _ => bundled("trec_eval/test/results.test"),
    }
}

/// The served campaign `text` in `dir`, with the bundled `files` copied into it (`FROM`, `TO`
/// relative to it).
pub(super) fn campaign_in(dir: &Path, files: &[(&str, &str)], text: &str) -> ServedCampaign {
    for (from, to) in files {
        std::fs::copy(Path::new("../../testdata").join(from), dir.join(to)).expect("copied");
    }
    let file = dir.join("c.toml");
    let name = file.to_string_lossy().into_owned();
    let manifest = TomlManifest::parse(text, &name).expect("parsed");
    ServedCampaign::from_manifest(&manifest, text, &file, &[]).expect("a campaign")
}

#[test]
fn every_family_scores_against_the_gold_read_once() {
    let dir = tempfile::tempdir().expect("a folder");
    let campaign = campaign_in(dir.path(), &FILES, CAMPAIGN);
    let mut first = Vec::new();
    for task in &campaign.tasks {
        task.read_gold().expect("the gold read");
        let bytes = upload(task);
        let served = task.score("team", Input::from_bytes("upload", Arc::clone(&bytes))).expect("scored");
        // The family's own run, reading every file: the same table.
        let system = SystemInput::named("team", Input::from_bytes("upload", bytes));
        let run = task.with_systems(vec![system]).expect("a task").run(&NoProgress).expect("run");
        let headlines = super::headlines(&served, "team");
        assert!(!headlines.is_empty(), "{}", task.name);
        assert_eq!(headlines, super::headlines(&run, "team"), "{}", task.name);
        assert_eq!(super::item_values(&served, "team"), super::item_values(&run, "team"), "{}", task.name);
        first.push(headlines);
    }
    // The gold files gone: every task (and its clone) scores as before, from the gold kept.
    for (_, to) in FILES {
        std::fs::remove_file(dir.path().join(to)).expect("removed");
    }
    for (task, headlines) in campaign.tasks.iter().zip(&first) {
        let clone = task.clone();
        let served = clone.score("team", Input::from_bytes("upload", upload(task))).expect("scored without the files");
        assert_eq!(&super::headlines(&served, "team"), headlines, "{}", task.name);
    }
}
