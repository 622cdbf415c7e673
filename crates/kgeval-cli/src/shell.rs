//! `kgeval completions SHELL` (clap_complete) and `kgeval man` (clap_mangen): generated from
//! the same clap definitions as the binary, printed on stdout.

use std::io::Write as _;

/// Arguments of `kgeval completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

/// Prints the completion script of `command` for the shell asked for.
pub(crate) fn completions(args: &CompletionsArgs, mut command: clap::Command) -> anyhow::Result<crate::Outcome> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command, "kgeval", &mut out);
    crate::output::write_output(None, &String::from_utf8_lossy(&out))?;
    Ok(crate::Outcome::Ok)
}

/// Arguments of `kgeval man`.
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// A subcommand's page (`kgeval-run(1)`) instead of the main one.
    subcommand: Option<String>,
}

/// Prints the man page (roff) of `command` (its subcommands listed as `kgeval-NAME(1)`), or of
/// the subcommand asked for.
pub(crate) fn man(args: &ManArgs, command: clap::Command) -> anyhow::Result<crate::Outcome> {
    let man = match &args.subcommand {
        None => clap_mangen::Man::new(command),
        Some(name) => {
            let names: Vec<String> = command.get_subcommands().map(|s| s.get_name().to_owned()).collect();
            let Some(sub) = command.find_subcommand(name) else {
                anyhow::bail!("man: found subcommand {name:?}, expected one of {}", names.join(", "));
            };
            clap_mangen::Man::new(sub.clone()).title(format!("kgeval-{name}"))
        }
    };
    let mut out = Vec::new();
    man.render(&mut out)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(crate::Outcome::Ok)
}
