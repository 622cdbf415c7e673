//! What a served task's scoring says names no organiser's file: every family's gold lives at
//! a long private path, and each upload that fails — an id the gold lacks, a malformed
//! line — is refused with a message that says `the gold` (when it concerns it) and never the
//! path; [`crate::Error::concern`] tells a fit error from the upload's own. (An id the gold
//! lacks is no error in `trec`, `lexicon` and `align`: those uploads are scored, their
//! conventions naming no file.)

use std::sync::Arc;

use super::ServedCampaign;
use crate::toml_doc::TomlManifest;
use crate::{Concern, Input};

/// The bundled files copied into the private folder (`FROM`, `TO` relative to it).
const FILES: [(&str, &str); 10] = [
    ("qald/qald3/dbpedia-train-answers.xml", "qald-gold.xml"),
    ("lemon/qald3-dbpedia_train_lexicon_en.ttl", "lexicon.ttl"),
    ("lemon/qald3-dbpedia_train_classes_properties.txt", "uris.txt"),
    ("diso/brick-smartenv/Rplus.rdf", "Rplus.rdf"),
    ("ranking/diso-oaei/pools/uco-stix/pools.jsonl", "uco-pools.jsonl"),
    ("ranking/diso-synthetic/uco-stix/gold.tsv", "uco-gold.tsv"),
    ("kgc/mini/test.txt", "test.txt"),
    ("kgc/mini/train.txt", "train.txt"),
    ("trec_eval/test/qrels.test", "qrels.txt"),
    ("qald/sparql/gold.xml", "sparql-gold.xml"),
];

const CAMPAIGN: &str = "\
[[task]]\nname = \"qa\"\nfamily = \"qald\"\ngold = \"qald-gold.xml\"\nprimary = \"qald_f\"\n\
[[task]]\nname = \"qa-endpoint\"\nfamily = \"qald\"\ngold = \"sparql-gold.xml\"\nendpoint = \"http://127.0.0.1:1/organiser-sparql\"\nprimary = \"qald_f\"\n\
[[task]]\nname = \"lex\"\nfamily = \"lexicon\"\ngold = \"lexicon.ttl\"\nuris = \"uris.txt\"\nprimary = \"f1\"\n\
[[task]]\nname = \"t1\"\nfamily = \"align\"\nprofile = \"diso\"\nprimary = \"f1\"\n\
[[task.pair]]\nname = \"brick-smartenv\"\nreference = \"Rplus.rdf\"\n\
[[task]]\nname = \"t2\"\nfamily = \"rank\"\nprofile = \"diso\"\nprimary = \"mrr\"\n\
[[task.pair]]\nname = \"uco-stix\"\npools = \"uco-pools.jsonl\"\ngold = \"uco-gold.tsv\"\n\
[[task]]\nname = \"lp\"\nfamily = \"kgc\"\ntest = \"test.txt\"\nfilters = [\"train.txt\"]\nprimary = \"micro_mrr\"\n\
[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\nmeasures = [\"map\"]\nprimary = \"map\"\n";

/// What scoring an upload should give: a score, or an error of this concern whose message
/// holds this text.
enum Expected {
    Scored,
    Refused(Concern, &'static str),
}

/// Per task: an upload and what it gives.
fn cases(task: &str) -> Vec<(&'static str, Expected)> {
    use Concern::{Gold, Input};
    use Expected::{Refused, Scored};
    const KGC: &str = "# filter: train test\nhead\trelation\ttail\tside\trank\n";
    match task {
        "qa" => vec![
            (
                "<dataset id=\"x\"><question id=\"99999\"><answers></answers></question></dataset>",
                Refused(Gold, "upload:1:17: found question id \"99999\", expected an id of the gold (1 of 1 ids not in it"),
            ),
            (
                "<dataset id=\"x\"><question id=\"1\"><string lang=\"en\">Who wrote Faust?</string><answers></answers></question></dataset>",
                Refused(Gold, "found 1 of 1 questions whose text differs from the gold's"),
            ),
            ("<dataset id=\"x\"><question id=\"1\"><answers></dataset>", Refused(Input, "upload:1:")),
        ],
        "qa-endpoint" => vec![(
            r#"{"questions": [{"id": "1", "query": {"sparql": "SELECT ?x WHERE { ?x ?p ?o }"}}]}"#,
            Refused(Input, "question 1: the task's endpoint: request failed: "),
        )],
        "lex" => vec![
            (
                "@prefix lemon: <http://lemon-model.net/lemon#> .\n<http://x.org/e> a lemon:LexicalEntry .\n",
                Scored,
            ),
            ("garbage", Refused(Input, "upload:1:1: invalid Turtle")),
        ],
        "t1" => vec![
            (
                "<?xml version=\"1.0\"?><rdf:RDF xmlns=\"http://knowledgeweb.semanticweb.org/heterogeneity/alignment\" \
                 xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><Alignment><map><Cell>\
                 <entity1 rdf:resource=\"http://x.org/a\"/><entity2 rdf:resource=\"http://x.org/b\"/>\
                 <relation>=</relation><measure>1.0</measure></Cell></map></Alignment></rdf:RDF>",
                Scored,
            ),
            ("<?xml version=\"1.0\"?><rdf:RDF", Refused(Input, "brick-smartenv:1:22: found end of file")),
        ],
        "t2" => vec![
            (
                "{\"qid\": 99999, \"ranking\": [\"http://x.org/a\"]}\n",
                Refused(Gold, "uco-stix:1: unknown qid 99999: no pool of the gold has it"),
            ),
            (
                "{\"qid\": 0, \"ranking\": [\"http://x.org/a\"]}\n{\"qid\": 0, \"ranking\": [\"http://x.org/a\"]}\n",
                Refused(Input, "uco-stix:2: duplicate qid 0"),
            ),
        ],
        "lp" => vec![
            (
                "# filter: train test\nhead\trelation\ttail\tside\trank\ne99\tr0\te0\thead\t1\n",
                Refused(Gold, "upload:3:1: found entity `e99`, expected an entity of the gold"),
            ),
            (
                "# filter: train test\nhead\trelation\ttail\tside\trank\ne5\tr0\te0\thead\t1\n",
                Refused(Gold, "the gold's test split:1:1: found no rank for the tail side of this triple in upload"),
            ),
            (KGC, Refused(Gold, "the gold's test split:1:1: found no rank")),
            ("head\trelation\ttail\tside\trank\n", Refused(Input, "upload:1:1: found no `# filter: …` line")),
        ],
        _ => vec![("999 Q0 d 1 1.0 x\n", Scored), ("301 Q0 doc\n", Refused(Input, "upload:1:"))],
    }
}

#[test]
fn served_errors_name_the_gold_never_its_path_and_say_what_they_concern() {
    let dir = tempfile::tempdir().expect("a folder");
    let private = dir.path().join("organiser-only").join("hidden-gold-folder");
    std::fs::create_dir_all(&private).expect("made");
    let campaign = super::served_gold_tests::campaign_in(&private, &FILES, CAMPAIGN);
    let secret = "hidden-gold-folder";
    for task in &campaign.tasks {
        let cases = cases(&task.name);
        assert!(!cases.is_empty(), "{}", task.name);
        for (upload, expected) in cases {
            let input = Input::from_bytes("upload", Arc::<[u8]>::from(upload.as_bytes()));
            match (task.score("team", input), expected) {
                (Ok(evaluation), Expected::Scored) => {
                    // The conventions (what the scores were computed against) name no file either.
                    let conventions = format!("{:?}", evaluation.conventions);
                    assert!(!conventions.contains(secret), "{}: {conventions}", task.name);
                }
                (Err(error), Expected::Refused(concern, text)) => {
                    let line = super::one_line(&error);
                    assert!(line.contains(text), "{}: {line}", task.name);
                    assert!(!line.contains(secret), "{}: {line}", task.name);
                    assert!(!line.contains("organiser-sparql"), "{}: {line}", task.name);
                    assert_eq!(error.concern(), concern, "{}: {line}", task.name);
                    if concern == Concern::Gold {
                        assert!(line.contains("the gold"), "{}: {line}", task.name);
                    }
                }
                (Ok(_), Expected::Refused(_, text)) => panic!("{}: scored, expected {text}", task.name),
                (Err(error), Expected::Scored) => panic!("{}: {error}", task.name),
            }
        }
    }
}

/// Read by the organiser (at a server's start), a malformed gold names its file; a first score
/// that reads it names none.
#[test]
fn a_gold_that_cannot_be_read_is_named_to_the_organiser_only() {
    let dir = tempfile::tempdir().expect("a folder");
    let private = dir.path().join("hidden-gold-folder");
    std::fs::create_dir_all(&private).expect("made");
    std::fs::write(private.join("qrels.txt"), "301 0 doc\n").expect("written");
    let file = private.join("c.toml");
    let text = "[[task]]\nname = \"adhoc\"\nfamily = \"trec\"\nqrels = \"qrels.txt\"\nprimary = \"map\"\n";
    let name = file.to_string_lossy().into_owned();
    let manifest = TomlManifest::parse(text, &name).expect("parsed");
    let campaign = ServedCampaign::from_manifest(&manifest, text, &file, &[]).expect("a campaign");
    let task = &campaign.tasks[0];
    let upload = || Input::from_bytes("upload", b"301 Q0 doc 1 1.0 x\n".to_vec());
    let scored = super::one_line(&task.score("team", upload()).expect_err("no gold"));
    assert_eq!(scored, "task adhoc: the gold cannot be read; the organisers have the log");
    let read = super::one_line(&task.read_gold().expect_err("no gold"));
    assert!(read.contains("hidden-gold-folder") && read.contains("qrels.txt:1:"), "{read}");
}
