//! `kgeval completions bash|zsh|fish` and `kgeval man`: generated from the binary's own clap
//! definitions, so every subcommand (`run` among them) and flag is in them; bash sources the
//! script and registers the completion.

use std::process::Command;

use crate::kgeval;

fn stdout_of(args: &[&str]) -> String {
    let out = kgeval(args);
    assert!(out.status.success(), "kgeval {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn completion_scripts_name_every_subcommand() {
    let bash = stdout_of(&["completions", "bash"]);
    assert!(bash.contains("_kgeval()"), "{bash}");
    assert!(bash.contains("complete -F _kgeval"), "{bash}");
    let zsh = stdout_of(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef kgeval"), "{zsh}");
    let fish = stdout_of(&["completions", "fish"]);
    assert!(fish.contains("complete -c kgeval"), "{fish}");
    for subcommand in
        ["align", "rank", "trec", "kgc", "qald", "lexicon", "compare", "pool", "run", "completions", "man"]
    {
        for (shell, script) in [("bash", &bash), ("zsh", &zsh), ("fish", &fish)] {
            assert!(script.contains(subcommand), "{shell}: no {subcommand}");
        }
    }
    // Flags of a subcommand: `run -o`, `align --completeness`.
    assert!(fish.contains("-s o -l output"), "{fish}");
    assert!(bash.contains("--completeness"), "{bash}");
    // bash sources the script and registers the function for `kgeval`.
    if let Ok(out) = Command::new("bash").arg("-c").arg(format!("{bash}\ncomplete -p kgeval")).output() {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("-F _kgeval"),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let bad = kgeval(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn man_page_is_roff_with_every_subcommand() {
    let man = stdout_of(&["man"]);
    assert!(man.starts_with(".ie \\n(.g .ds Aq \\(aq") || man.contains(".TH kgeval"), "{man}");
    assert!(man.contains(".TH kgeval"), "{man}");
    assert!(man.contains(".SH NAME"), "{man}");
    assert!(man.contains("Scores the outputs of knowledge\\-graph systems"), "{man}");
    for subcommand in ["align", "rank", "trec", "kgc", "qald", "lexicon", "compare", "pool", "run"] {
        assert!(man.contains(&format!("kgeval\\-{subcommand}(1)")), "no {subcommand} in\n{man}");
    }
    // A subcommand's own page: `kgeval man run`, with its options.
    let run = stdout_of(&["man", "run"]);
    assert!(run.contains(".TH kgeval-run 1"), "{run}");
    assert!(run.contains("\\fB\\-o\\fR, \\fB\\-\\-output\\fR"), "{run}");
    assert_eq!(kgeval(&["man", "nope"]).status.code(), Some(2));
}
