//! The original QALD-3 Task 2 evaluation script (`eval_task2.py`, Python 2), reproduced with
//! its quirks so that old numbers can be recomputed. Each quirk is numbered as in
//! `docs/lexicon.md` (S1…S9).

use kgeval_model::align::PrfScores;
use kgeval_model::lexicon::{EntryAccuracy, LexicalEntry, Lexicon, UriEvaluation, UriKind, UriList};

use super::entry_label;

/// S7: the script's role maps (adjective roles `copulativeSubject` and `attributiveArg` are in
/// neither).
const SCRIPT_SUBJECT_ROLES: [&str; 2] = ["subject", "copulativeArg"];
const SCRIPT_OBJECT_ROLES: [&str; 5] =
    ["directObject", "indirectObject", "prepositionalObject", "prepositionalAdjunct", "possessiveAdjunct"];

/// An entry as the script sees it.
struct ScriptEntry<'a> {
    /// S2: canonical form lower-cased with every space removed.
    lemma: String,
    pos: String,
    references: Vec<&'a str>,
    entry: &'a LexicalEntry,
}

fn script_entries(lexicon: &Lexicon) -> Vec<ScriptEntry<'_>> {
    lexicon
        .entries
        .iter()
        .filter_map(|entry| {
            let written = entry.written_rep.as_ref()?;
            let references = entry.references();
            (!references.is_empty()).then(|| ScriptEntry {
                lemma: written.replace(' ', "").to_lowercase(),
                pos: entry.part_of_speech.as_deref().unwrap_or("None").to_lowercase(),
                references,
                entry,
            })
        })
        .collect()
}

fn share_reference(a: &ScriptEntry<'_>, b: &ScriptEntry<'_>) -> bool {
    a.references.iter().any(|r| b.references.contains(r))
}

fn same_entry(a: &ScriptEntry<'_>, b: &ScriptEntry<'_>) -> bool {
    a.lemma == b.lemma && share_reference(a, b) && a.pos == b.pos
}

/// S3: the entries for `uri`, dropping one that repeats the lemma and POS of a kept entry
/// sharing any reference with it.
fn entries_for<'a, 'b>(entries: &'b [ScriptEntry<'a>], uri: &str) -> Vec<&'b ScriptEntry<'a>> {
    let mut kept: Vec<&ScriptEntry<'a>> = Vec::new();
    for entry in entries.iter().filter(|e| e.references.contains(&uri)) {
        if !kept.iter().any(|k| same_entry(k, entry)) {
            kept.push(entry);
        }
    }
    kept
}

/// Every URI the system's entries reference, in order of appearance (S1: the script loops over
/// these, not over the list).
pub(crate) fn mentioned_uris(system: &Lexicon) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for entry in script_entries(system) {
        for reference in entry.references {
            if !out.iter().any(|u| u == reference) {
                out.push(reference.to_owned());
            }
        }
    }
    out
}

/// S4: `round(x, 5)` as Python 2 does it (half away from zero).
fn round5(x: f64) -> f64 {
    (x * 100_000.0).round() / 100_000.0
}

/// Scores one URI the way the script does.
pub(crate) fn score_uri(gold: &Lexicon, system: &Lexicon, uri: &str, list: &UriList) -> UriEvaluation {
    let gold_all = script_entries(gold);
    let system_all = script_entries(system);
    let gold_entries = entries_for(&gold_all, uri);
    let user_entries = entries_for(&system_all, uri);
    let label = |e: &ScriptEntry<'_>| entry_label(&(e.lemma.clone(), Some(e.pos.clone())));
    let mut evaluation = UriEvaluation {
        uri: uri.to_owned(),
        kind: list.kind_of(uri),
        gold: gold_entries.iter().map(|e| label(e)).collect(),
        ..UriEvaluation::default()
    };
    // S5: a user lemma counts at most once, whatever its POS.
    let mut counted: Vec<&str> = Vec::new();
    for user in &user_entries {
        let hit = gold_entries.iter().any(|g| same_entry(user, g)) && !counted.contains(&user.lemma.as_str());
        if hit {
            counted.push(&user.lemma);
            evaluation.matched.push(label(user));
        } else {
            evaluation.extra.push(label(user));
        }
    }
    evaluation.missing =
        gold_entries.iter().filter(|g| !user_entries.iter().any(|u| same_entry(u, g))).map(|g| label(g)).collect();
    let correct = counted.len() as f64;
    if correct > 0.0 {
        let recall = round5(correct / gold_entries.len() as f64);
        let precision = round5(correct / user_entries.len() as f64);
        let f_measure = round5(2.0 * recall * precision / (precision + recall));
        evaluation.scores = PrfScores { precision, recall, f_measure };
    }
    // S9: accuracy over every matching (user, gold) pair, without the S5 restriction.
    let mut points = 0.0;
    let mut pairs = 0usize;
    for user in &user_entries {
        for gold in gold_entries.iter().filter(|g| same_entry(user, g)) {
            pairs += 1;
            let mut accuracy = entry_points(user, gold, list);
            accuracy.entry = label(user);
            points += accuracy.accuracy;
            evaluation.accuracy_raw += accuracy.raw;
            evaluation.entries.push(accuracy);
        }
    }
    if pairs > 0 {
        evaluation.accuracy = points / pairs as f64;
        evaluation.accuracy_raw /= pairs as f64;
    }
    evaluation
}

/// The script's frame: the `rdf:type` of the last frame (`None` as the string "None").
fn script_frame(entry: &LexicalEntry) -> Option<&str> {
    entry.frames.last().and_then(|f| f.frame_type.as_deref())
}

/// The script's accuracy points of one (user, gold) pair.
fn entry_points(user: &ScriptEntry<'_>, gold: &ScriptEntry<'_>, list: &UriList) -> EntryAccuracy {
    let frame = f64::from(u8::from(script_frame(user.entry) == script_frame(gold.entry)));
    // S6: a class (the first reference, when the entry has only one) scores its frame only,
    // not divided by 3. The script asked a SPARQL endpoint; kgeval asks the URI list.
    let is_class = user.references.len() == 1 && list.kind_of(user.references[0]) == Some(UriKind::Class);
    if is_class {
        return EntryAccuracy {
            entry: String::new(),
            frame,
            arguments: None,
            mapping: None,
            raw: frame,
            accuracy: frame,
        };
    }
    let user_syntax = syntactic_arguments(user.entry);
    let user_semantics = sense_arguments(user.entry);
    let gold_syntax = syntactic_arguments(gold.entry);
    // S8: the mapping point needs as many sense "arguments" as syntactic ones.
    let mapping = if user_syntax.len() == user_semantics.len() {
        let user_print = fingerprint(user.entry);
        let gold_print = fingerprint(gold.entry);
        let present = gold_print.iter().filter(|x| user_print.contains(x)).count();
        // S6: Python 2 integer division turns a partial match into 0.
        f64::from(u8::from(present == gold_print.len()))
    } else {
        0.0
    };
    // The role point: as many arguments as gold and every gold argument matched by role
    // (counting pairs, so repeated roles inflate the count).
    let arguments = if user_syntax.len() == gold_syntax.len() {
        let found = user_syntax.iter().map(|(r, _)| gold_syntax.iter().filter(|(g, _)| g == r).count()).sum::<usize>();
        f64::from(u8::from(found == gold_syntax.len()))
    } else {
        0.0
    };
    EntryAccuracy::property(frame, arguments, mapping)
}

/// Every (role, node) of every frame.
fn syntactic_arguments(entry: &LexicalEntry) -> Vec<(&str, &str)> {
    entry.frames.iter().flat_map(|f| &f.arguments).map(|a| (a.role.as_str(), a.node.as_str())).collect()
}

/// S8: every non-reference triple of a top-level sense is an "argument": `subjOfProp` a
/// subject, everything else (objOfProp, subsense, propertyDomain, …) an object.
fn sense_arguments(entry: &LexicalEntry) -> Vec<(bool, Option<&str>)> {
    let mut out = Vec::new();
    for sense in entry.senses.iter().filter(|s| !s.subsense) {
        out.extend(sense.subject_nodes.iter().map(|n| (true, Some(n.as_str()))));
        out.extend(sense.object_nodes.iter().map(|n| (false, Some(n.as_str()))));
        out.extend(std::iter::repeat_n((false, None), sense.other_properties));
    }
    out
}

/// S7: the script's mapping fingerprint: for each sense argument that is also a syntactic
/// argument, 1 = subject→object role, 2 = object→subject role, 3 = subject→subject role,
/// 4 = object→object role (roles outside both maps leave no mark).
fn fingerprint(entry: &LexicalEntry) -> Vec<u8> {
    let syntax = syntactic_arguments(entry);
    let mut out = Vec::new();
    for (is_subject, node) in sense_arguments(entry) {
        let Some(node) = node else { continue };
        for (role, _) in syntax.iter().filter(|(_, n)| *n == node) {
            let subject_role = SCRIPT_SUBJECT_ROLES.contains(role);
            let object_role = SCRIPT_OBJECT_ROLES.contains(role);
            match (is_subject, subject_role, object_role) {
                (true, _, true) => out.push(1),
                (false, true, _) => out.push(2),
                (true, true, _) => out.push(3),
                (false, _, true) => out.push(4),
                _ => {}
            }
        }
    }
    out
}
