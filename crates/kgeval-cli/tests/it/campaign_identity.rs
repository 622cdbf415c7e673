//! One identity per system (issue 27): in every bundled campaign, a task's systems carry the
//! same name and the same significance letter in `results.json` (the leaderboards),
//! `report.md` (the leaderboards), `tables.tex` and `index.html` (the result tables), and a
//! system's superscripts are the same letters in `tables.tex` and `index.html`.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::kgeval;

/// `(task, system) → letter`, as one file shows it.
type Letters = BTreeMap<(String, String), String>;

fn run_campaign(manifest: &str, out: &Path) {
    let output = kgeval(&["run", manifest, "-o", out.to_str().expect("utf-8")]);
    assert!(output.status.success(), "{manifest}: {}", String::from_utf8_lossy(&output.stderr));
}

/// Inserts `letter` for `(task, system)`, asserting that one file never gives a system two
/// letters or a letter to two systems of a task.
fn insert(letters: &mut Letters, file: &str, task: &str, system: &str, letter: &str) {
    let key = (task.to_owned(), system.to_owned());
    if let Some(old) = letters.get(&key) {
        assert_eq!(old, letter, "{file}: task {task}: system {system} has letters {old} and {letter}");
    }
    let clash = letters.iter().find(|((t, s), l)| t == task && s != system && l.as_str() == letter);
    assert!(clash.is_none(), "{file}: task {task}: letter {letter} names {system} and {:?}", clash.map(|c| &c.0 .1));
    letters.insert(key, letter.to_owned());
}

fn json_letters(results: &Value) -> Letters {
    let mut letters = Letters::new();
    for task in results["tasks"].as_array().expect("tasks") {
        let name = task["name"].as_str().expect("name");
        for metric in task["compare"]["metrics"].as_array().into_iter().flatten() {
            for row in metric["leaderboard"].as_array().expect("leaderboard") {
                let (system, letter) =
                    (row["system"].as_str().expect("system"), row["letter"].as_str().expect("letter"));
                insert(&mut letters, "results.json", name, system, letter);
            }
        }
    }
    letters
}

/// The leaderboards of `report.md`: rows `| letter | system | mean | tier |` under a task's
/// `## NAME (…)` heading.
fn markdown_letters(report: &str) -> Letters {
    let mut letters = Letters::new();
    let mut task = String::new();
    let mut in_leaderboard = false;
    for line in report.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            task = heading.split(" (").next().expect("name").to_owned();
        } else if line.starts_with("|  | system | mean | tier |") {
            in_leaderboard = true;
        } else if !line.starts_with('|') {
            in_leaderboard = false;
        } else if in_leaderboard && !line.starts_with("|---") {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            insert(&mut letters, "report.md", &task, cells[1], cells[0]);
        }
    }
    letters
}

/// `tables.tex`: rows `letter & system & …` after `% Task NAME (family)`; and the
/// superscripts of each row, in order.
fn latex_letters(tex: &str) -> (Letters, BTreeMap<(String, String), Vec<String>>) {
    let mut letters = Letters::new();
    let mut marks = BTreeMap::new();
    let mut task = String::new();
    let mut in_rows = false;
    for line in tex.lines() {
        if let Some(rest) = line.strip_prefix("% Task ") {
            task = rest.rsplit_once(" (").expect("family").0.to_owned();
        } else if line.starts_with("% ") {
            // Another kind of table (discriminative power): no systems.
            task.clear();
        } else if line == "\\midrule" {
            in_rows = true;
        } else if line == "\\bottomrule" {
            in_rows = false;
        } else if in_rows && line.contains(" & ") && !task.is_empty() {
            let cells: Vec<&str> = line.trim_end_matches(" \\\\").split(" & ").collect();
            // A long name wraps in `\parbox[t]{W}{\raggedright NAME}`.
            let name = cells[1].split_once("\\raggedright ").map_or(cells[1], |(_, n)| n.trim_end_matches('}'));
            let system = name.replace("\\allowbreak{}", "").replace("\\_", "_");
            insert(&mut letters, "tables.tex", &task, &system, cells[0]);
            let row_marks = cells.iter().filter_map(|c| c.strip_prefix("$^{")?.strip_suffix("}$")).map(str::to_owned);
            marks.entry((task.clone(), system)).or_insert_with(Vec::new).extend(row_marks);
        }
    }
    (letters, marks)
}

/// `index.html`: rows `<tr><td>letter</td><td>system</td>…` inside a task's `<section>`.
fn html_letters(html: &str) -> (Letters, BTreeMap<(String, String), Vec<String>>) {
    let mut letters = Letters::new();
    let mut marks = BTreeMap::new();
    let mut task = String::new();
    let mut in_results = false;
    for line in html.lines() {
        if let Some(rest) = line.strip_prefix("<h2 id=\"") {
            task = rest.split_once("\">").expect("heading").1.split('<').next().expect("name").to_owned();
        } else if line.contains(">#</th>") {
            // A result table's header (other tables have no letter column).
            in_results = true;
        } else if line.contains("</table>") {
            in_results = false;
        } else if let Some(row) = line.strip_prefix("<tr><td>").filter(|_| in_results) {
            let mut cells = row.split("</td><td");
            let letter = cells.next().expect("letter");
            let Some(system) = cells.next().and_then(|c| c.strip_prefix('>')) else { continue };
            let system = system.replace("&amp;", "&");
            insert(&mut letters, "index.html", &task, &system, letter);
            let row_marks: Vec<String> = line
                .split("<sup class=\"marks\"")
                .skip(1)
                .map(|s| s.split_once('>').expect("sup").1.split('<').next().expect("marks").to_owned())
                .collect();
            marks.insert((task.clone(), system), row_marks);
        }
    }
    (letters, marks)
}

#[test]
fn every_bundled_campaign_gives_a_system_one_letter_in_every_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut with_marks = 0;
    for campaign in ["diso", "kgc-sparsity", "oaei2018", "qald3", "trec_eval"] {
        let out = dir.path().join(campaign);
        run_campaign(&format!("testdata/campaigns/{campaign}.toml"), &out);
        let read = |file: &str| std::fs::read_to_string(out.join(file)).expect(file);
        let json = json_letters(&serde_json::from_str(&read("results.json")).expect("JSON"));
        let markdown = markdown_letters(&read("report.md"));
        let (latex, latex_marks) = latex_letters(&read("tables.tex"));
        let (html, html_marks) = html_letters(&read("index.html"));
        assert!(!html.is_empty(), "{campaign}: no result table found in index.html");
        // The tables show every system of every task that ran; the leaderboards the systems
        // of the tasks with a meta-evaluation: each must agree with the tables.
        assert_eq!(latex, html, "{campaign}: tables.tex and index.html");
        assert_eq!(markdown, json, "{campaign}: report.md and results.json");
        for (key, letter) in &json {
            assert_eq!(html.get(key), Some(letter), "{campaign}: {key:?} in results.json and index.html");
        }
        // Superscripts: the same letters in both tables, cell by cell.
        for (key, marks) in &html_marks {
            let tex: Vec<&String> = latex_marks.get(key).into_iter().flatten().collect();
            assert_eq!(tex, marks.iter().collect::<Vec<_>>(), "{campaign}: marks of {key:?}");
            with_marks += usize::from(!marks.is_empty());
        }
    }
    // The check has something to check: qald3 marks significant wins in both tasks.
    assert!(with_marks >= 2, "only {with_marks} rows with superscripts");
}

#[test]
fn qald3_letters_follow_the_task_order_whatever_the_means() {
    // Issue 27: report.md had `a` = gold, `b` = unanswered (sorted by mean) where tables.tex
    // and index.html had `a` = unanswered, `b` = gold (input order).
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("qald3");
    run_campaign("testdata/campaigns/qald3.toml", &out);
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(report.contains("| b | gold | 1.0000<sup>a</sup> | 1 |"), "{report}");
    assert!(report.contains("| a | unanswered | 0.0404 | 2 |"), "{report}");
    let tex = std::fs::read_to_string(out.join("tables.tex")).expect("tables.tex");
    assert!(tex.contains("a & unanswered & "), "{tex}");
    assert!(tex.contains("b & gold & "), "{tex}");
}
