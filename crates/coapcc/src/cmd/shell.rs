//! `coapcc completions SHELL` and `coapcc man`: the shell completion script (clap_complete)
//! and the manual page (clap_mangen, roff), both generated from the command-line definition,
//! so they list every subcommand and option as `--help` does.

use std::io::Write;

use clap::{Args, Command};
use clap_complete::Shell;

use crate::error::CliError;

/// Arguments of `coapcc completions`.
#[derive(Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell. Bash: `coapcc completions bash >
    /// ~/.local/share/bash-completion/completions/coapcc`.
    shell: Shell,
}

/// Arguments of `coapcc man`.
#[derive(Args)]
pub struct ManArgs {}

/// Writes the completion script of `cmd` for the chosen shell.
pub fn completions(args: &CompletionsArgs, mut cmd: Command, out: &mut dyn Write) -> Result<(), CliError> {
    clap_complete::generate(args.shell, &mut cmd, "coapcc", out);
    Ok(())
}

/// Writes the manual page of `cmd` (roff, section 1): `coapcc man > coapcc.1; man ./coapcc.1`.
/// Each subcommand is listed with its summary; its options are in `coapcc SUBCOMMAND --help`.
pub fn man(_: &ManArgs, cmd: Command, out: &mut dyn Write) -> Result<(), CliError> {
    clap_mangen::Man::new(cmd).render(out)?;
    Ok(())
}
