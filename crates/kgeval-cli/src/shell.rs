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

/// Prints the man page (roff) of `command`, its subcommands listed.
pub(crate) fn man(command: clap::Command) -> anyhow::Result<crate::Outcome> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command).render(&mut out)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(crate::Outcome::Ok)
}
