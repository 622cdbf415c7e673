//! The worked example of `docs/compare.md` ("Does A really beat B?") runs as written and
//! prints the rows it quotes (the KGC-sparsity study's micro MRR tau(S, S-C) = -0.2308 among
//! them).

use crate::{kgeval, root};

#[test]
fn readme_worked_example_prints_what_it_quotes() {
    let readme = std::fs::read_to_string(root().join("docs/compare.md")).expect("docs/compare.md");
    let section = readme.split("# Does A really beat B?").nth(1).expect("section");
    let block = section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).expect("sh block");
    // The first command (continuation lines joined) and the output lines quoted below it.
    let mut command = String::new();
    let mut quoted = Vec::new();
    for line in block.lines().skip_while(|l| l.starts_with('#')) {
        if line.is_empty() {
            break;
        }
        match line.strip_prefix("# ") {
            Some(row) if !command.ends_with('\\') && !command.is_empty() => quoted.push(row.to_owned()),
            Some(_) => {}
            None => {
                command = command.trim_end_matches('\\').to_owned();
                command.push(' ');
                command.push_str(line.trim());
            }
        }
    }
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    assert_eq!(args.first(), Some(&"compare"), "{command}");
    let out = kgeval(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&String> = quoted.iter().filter(|row| row.as_str() != "…").collect();
    assert!(rows.len() >= 4, "{quoted:?}");
    for row in rows {
        assert!(stdout.contains(row.as_str()), "README quotes `{row}`, the command prints:\n{stdout}");
    }
    assert!(stdout.contains("micro_mrr           13  -0.2308"), "{stdout}");
}
