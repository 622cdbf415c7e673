//! The campaign manifest is read through the TOML library, never line by line (issue 31, item
//! 2): on generated manifests written in every TOML form — `[[task]]` tables or an inline
//! array of tables, bare, quoted and literal keys, comments and multi-line strings that look
//! like tables, LF or CRLF — the tasks kgeval reads are exactly those the `toml` crate sees.

use std::path::Path;

use kgeval::campaign::Campaign;
use proptest::prelude::*;

use crate::root;

/// How one key is written.
#[derive(Debug, Clone, Copy)]
enum KeyStyle {
    Bare,
    Quoted,
    Literal,
}

fn key(name: &str, style: KeyStyle) -> String {
    match style {
        KeyStyle::Bare => name.to_owned(),
        KeyStyle::Quoted => format!("\"{name}\""),
        KeyStyle::Literal => format!("'{name}'"),
    }
}

/// One task: its name and how its keys are written.
#[derive(Debug, Clone)]
struct GeneratedTask {
    name: String,
    styles: [KeyStyle; 4],
    comment: bool,
}

fn key_style() -> impl Strategy<Value = KeyStyle> {
    prop_oneof![Just(KeyStyle::Bare), Just(KeyStyle::Quoted), Just(KeyStyle::Literal)]
}

fn task() -> impl Strategy<Value = GeneratedTask> {
    ("[a-z][a-z0-9_-]{0,8}", [key_style(), key_style(), key_style(), key_style()], any::<bool>())
        .prop_map(|(name, styles, comment)| GeneratedTask { name, styles, comment })
}

/// The manifest text: a title (a multi-line string holding a fake `[[task]]` when `decoy`),
/// then the tasks as `[[task]]` tables or as one inline array.
fn manifest(tasks: &[GeneratedTask], inline: bool, decoy: bool, crlf: bool) -> String {
    let test = root().join("testdata/trec_eval/test");
    let qrels = test.join("qrels.test").display().to_string();
    let run = format!("full={}", test.join("results.test").display());
    let mut text = if decoy {
        "title = \"\"\"Decoy\n[[task]]\nname = \"decoy\"\nfamily = \"trec\"\n\"\"\"\n".to_owned()
    } else {
        "title = 'plain'\n".to_owned()
    };
    let fields = |t: &GeneratedTask, sep: &str| {
        [
            format!("{} = \"{}\"", key("name", t.styles[0]), t.name),
            format!("{} = \"trec\"", key("family", t.styles[1])),
            format!("{} = '{qrels}'", key("qrels", t.styles[2])),
            format!("{} = [\"{run}\"]", key("runs", t.styles[3])),
        ]
        .join(sep)
    };
    if inline {
        text.push_str("task = [\n");
        for t in tasks {
            if t.comment {
                text.push_str("  # [[task]] name = \"commented\"\n");
            }
            text.push_str(&format!("  {{ {} }},\n", fields(t, ", ")));
        }
        text.push_str("]\n");
    } else {
        for t in tasks {
            if t.comment {
                text.push_str("# [[task]]\n# name = \"commented\"\n");
            }
            text.push_str(&format!("[[task]]\n{}\n", fields(t, "\n")));
        }
    }
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    text
}

/// The task names the `toml` crate sees, in order.
fn toml_names(text: &str) -> Vec<String> {
    let table: toml::Table = toml::from_str(text).expect("generated TOML parses");
    table
        .get("task")
        .and_then(toml::Value::as_array)
        .map(|tasks| {
            tasks.iter().filter_map(|t| t.get("name").and_then(toml::Value::as_str).map(str::to_owned)).collect()
        })
        .unwrap_or_default()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn kgeval_reads_the_tasks_toml_sees(
        tasks in proptest::collection::vec(task(), 1..5),
        inline in any::<bool>(),
        decoy in any::<bool>(),
        crlf in any::<bool>(),
    ) {
        let text = manifest(&tasks, inline, decoy, crlf);
        let expected = toml_names(&text);
        let unique = expected.iter().all(|n| expected.iter().filter(|m| m.eq_ignore_ascii_case(n)).count() == 1);
        let read = Campaign::from_toml(&text, Path::new("generated.toml"));
        if unique {
            let campaign = read.map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            let names: Vec<String> = campaign.tasks.iter().map(|t| t.name.clone()).collect();
            prop_assert_eq!(names, expected);
        } else {
            let error = read.err().map(|e| e.to_string()).unwrap_or_default();
            prop_assert!(error.contains("duplicate task name"), "{}", error);
        }
    }
}

/// A CRLF copy of the bundled `trec_eval.toml` reads as the original (it was refused with
/// `:8:8: expected name = "…"`).
#[test]
fn a_crlf_manifest_reads_as_its_lf_original() {
    let path = root().join("testdata/campaigns/trec_eval.toml");
    let text = std::fs::read_to_string(&path).expect("manifest");
    let lf = Campaign::from_toml(&text, &path).expect("LF");
    let crlf = Campaign::from_toml(&text.replace('\n', "\r\n"), &path).expect("CRLF");
    assert_eq!(format!("{:?}", lf.tasks), format!("{:?}", crlf.tasks));
    assert_eq!(format!("{:?}", lf.comparisons), format!("{:?}", crlf.comparisons));
    assert_eq!((lf.tasks.len(), lf.comparisons.len()), (1, 1));
}
